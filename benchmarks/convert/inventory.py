"""The facts app-convert extracts from real skills, measured against the expectation files.

For each skill of the chosen set (``corpus.py`` extracts it from the local mirrors), this runs
``app-convert SKILL --out TMP --analyzer heuristic`` as a user would, reads the inventory and the
heuristic plan in-process, and reports:

- **converts**: the command exits 0 or 5 with an APP written;
- **requirements**: constructor checks that are false (named in ``not_requirements``: local
  modules, prose words, other platforms' tools), blocking ones, warnings; and blocking checks
  the expectation does not list; recall of the expected ``requirements``;
- **flags**: documented flags (``programs[].flags`` without ``documented_in: program``) found
  with the right type and optionality, in the inventory (the program's interface) and in the
  plan (an input of a code step running it, or a literal it passes); positionals likewise;
- **triggers**: per business pipeline, how many, and how many in the skill's ``languages``;
- **self-routing**: each trigger routed with the embedded router over the rendered APP's
  routing table with that trigger left out (leave-one-out) reaches its own pipeline;
- **placeholders**: pipelines whose sample input is still a placeholder
  (``samples/placeholders.json``).

    python benchmarks/convert/inventory.py [--set dev|test|fresh|all] [--json] [--keep DIR]
        [--with-siblings]   # each skill inside the folder holding it (its collection cloned)
    python benchmarks/convert/inventory.py --folder SKILL_DIR ...   # skills without expectations

Tune on ``dev`` only; ``test`` is held out (this script reads its expectations, you do not).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import SETS, Skill, corpus  # noqa: E402

from skill2app.converter.analyzers.heuristic import analyze  # noqa: E402
from skill2app.converter.inventory.model import Inventory, build_inventory  # noqa: E402
from skill2app.converter.inventory.packages import package_key  # noqa: E402
from skill2app.converter.inventory.programs.interface import Param  # noqa: E402
from skill2app.converter.plan.model import CodeStep, Plan  # noqa: E402
from skill2app.converter.render.checks import constructor_checks  # noqa: E402

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
KIND_KEYS = {
    "binary": "binaries",
    "python-package": "python_packages",
    "node-package": "node_packages",
    "env": "env_vars",
}
CONVERT = [sys.executable, "-c", "from skill2app.converter.cli import main; main()"]


# -- requirements --------------------------------------------------------------------------


def _norm(kind: str, name: str) -> str:
    return package_key(name) if kind == "python-package" else name.strip().lower()


def requirement_figures(checks: list[dict[str, Any]], expected: dict[str, Any]) -> dict[str, Any]:
    """``checks``: the constructor's (kind, name, required, pipelines); ``expected``: the
    expectation.  A check scoped to no pipeline (``pipelines: []``: only code no pipeline
    runs needs it) blocks none: it counts as a warning."""
    wanted = expected.get("requirements") or {}
    real = {  # a name, or {name: ..., required: ...}
        (kind, _norm(kind, str(item.get("name", "") if isinstance(item, dict) else item)))
        for kind, key in KIND_KEYS.items()
        for item in wanted.get(key) or []
    }
    false_names = {
        str(item.get("name", "")).strip().lower() for item in expected.get("not_requirements") or []
    }
    false_blocking, false_warning, unexpected = [], [], []
    found = set()
    for check in checks:
        kind, name, key = check["kind"], check["name"], _norm(check["kind"], check["name"])
        if (kind, key) in real:
            found.add((kind, key))
            continue
        is_false = name.lower() in false_names or key in {_norm(kind, n) for n in false_names}
        blocking = check["required"] and check.get("pipelines") != []  # [] stops no pipeline
        if is_false:
            (false_blocking if blocking else false_warning).append(f"{kind}:{name}")
        elif blocking and kind != "auth":
            unexpected.append(f"{kind}:{name}")
    return {
        "false_blocking": false_blocking,
        "false_warning": false_warning,
        "unexpected_blocking": unexpected,
        "expected": len(real),
        "found": len(found),
        "missed": sorted(f"{k}:{n}" for k, n in real - found),
    }


# -- flags ---------------------------------------------------------------------------------


def _type_ok(expected: dict[str, Any], actual: str) -> bool:
    """Whether ``actual`` (an inventory or input type) is right for an expected flag: a path
    is a string; a flag taking `true|false` is a string (a boolean would be passed bare); a
    repeatable flag (``action="append"``, written once per value) is right as an array."""
    kind = expected.get("type", "string")
    if kind == "boolean":
        return actual == "boolean" if expected.get("boolean", True) else actual == "string"
    return actual in ({"path": "string"}.get(kind, kind), "array")


def _params(inventory: Inventory, path: str) -> list[Param]:
    """The parameters the inventory knows for ``path``: a program of the skill, or one
    outside it that its documents run (``../feishu-auth/auth.js``: as they show it)."""
    program = inventory.program(path) or next(
        (p for p in inventory.elsewhere if p.path == path), None
    )
    if program is None or program.cli is None:
        return []
    commands = [program.cli, *program.cli.subcommands.values()]
    return [p for c in commands for p in c.params]


def _program_level(inventory: Inventory, path: str) -> list[Param]:
    """The parameters of ``path``'s own command, not of a subcommand."""
    program = inventory.program(path) or next(
        (p for p in inventory.elsewhere if p.path == path), None
    )
    return list(program.cli.params) if program is not None and program.cli is not None else []


def _documented(program: dict[str, Any], item: dict[str, Any]) -> bool:
    return "program" not in (program.get("documented_in"), item.get("documented_in"))


def flag_figures(inventory: Inventory, plan: Plan | None, expected: dict[str, Any]) -> dict:
    rows: dict[str, list[str]] = {"inventory_miss": [], "plan_miss": []}
    counts = {"flags": 0, "inventory": 0, "plan": 0, "positionals": 0, "positionals_plan": 0}
    for program in expected.get("programs") or []:
        path = program["path"]
        params = _params(inventory, path)
        for flag in program.get("flags") or []:
            if not _documented(program, flag):
                continue
            counts["flags"] += 1
            name = flag["flag"]
            same = [p for p in params if name in (p.name, *p.aliases)]
            # the expectations do not say which subcommand a flag is of: any may match; and
            # they mark a flag required in one subcommand only optional (for the program)
            top = [id(p) for p in _program_level(inventory, path)]
            want = bool(flag.get("required"))
            right = [
                p
                for p in same
                if _type_ok(flag, p.type)
                and (p.required == want or (id(p) not in top and not want))
            ]
            param = (right or same or [None])[0]
            good = bool(right)
            counts["inventory"] += good
            if not good:
                rows["inventory_miss"].append(f"{path} {name} ({_shown(param)})")
            if _in_plan(plan, path, flag, inventory):
                counts["plan"] += 1
            else:
                rows["plan_miss"].append(f"{path} {name}")
        if program.get("documented_in") != "program":
            for index, positional in enumerate(program.get("positionals") or []):
                counts["positionals"] += 1
                if _positional_in_plan(plan, path, index, positional, inventory):
                    counts["positionals_plan"] += 1
                else:
                    rows["plan_miss"].append(f"{path} <{positional['name']}>")
    return {**counts, **rows}


def _shown(param: Param | None) -> str:
    if param is None:
        return "not found"
    return f"{param.type}, {'required' if param.required else 'optional'}"


def _steps(plan: Plan | None, path: str) -> list[tuple[CodeStep, dict[str, Any]]]:
    if plan is None:
        return []
    return [
        (step, {i.name: i for i in pipeline.input})
        for pipeline in plan.pipelines
        for step in pipeline.steps
        if isinstance(step, CodeStep) and step.program == path
    ]


def _in_plan(plan: Plan | None, path: str, flag: dict[str, Any], inventory: Inventory) -> bool:
    """Whether a step running ``path`` passes the flag with the right type and optionality.
    Any step may: a flag the expectations call optional (for the program) may be required
    in a step of one subcommand or one mode (``--action create_event``) that needs it."""
    program = inventory.program(path)
    want = bool(flag.get("required"))
    for step, inputs in _steps(plan, path):
        own = program.cli.subcommands.get(step.subcommand) if program and program.cli else None
        param = own.flag(flag["flag"]) if own is not None and step.subcommand else None
        required_here = param is not None and param.required  # in this step's subcommand
        one_mode = bool(step.subcommand) or any(
            a.flag and not a.ref and a.value is not None for a in step.args
        )
        spellings = {flag["flag"]}  # `-o` in the docs, `--output` in the step: one flag
        for command in (own, program.cli if program else None):
            known = command.flag(flag["flag"]) if command is not None else None
            spellings |= {known.name, *known.aliases} if known is not None else set()
        for arg in step.args:
            if arg.flag not in spellings:
                continue
            if not arg.ref:  # a literal it passes: the bare switch, or a fixed value
                if (arg.value is None) == bool(flag.get("boolean") and flag["type"] == "boolean"):
                    return True
                continue
            item = inputs.get(arg.ref.removeprefix("input."))
            if item is None or not _type_ok(flag, item.type):
                continue
            if item.required in (want, required_here) or (one_mode and not want):
                return True
    return False


def _positional_in_plan(
    plan: Plan | None, path: str, index: int, want: dict[str, Any], inventory: Inventory
) -> bool:
    """Whether a step passes the expected positional ``index``; of a program with
    subcommands, the first (``command``) is the step's subcommand, and the rest shift."""
    program = inventory.program(path)
    dispatched = program is not None and bool(program.enumerations.get("<command>"))
    if program is not None and program.cli is not None and (program.cli.subcommands or dispatched):
        if index == 0:
            return any(step.subcommand for step, _inputs in _steps(plan, path))
        # the expectations list every subcommand's positionals in one list, each optional
        # for the program: a step of any subcommand passing one by its name counts
        return any(
            arg.ref == f"input.{name}" and _type_ok(want, inputs[name].type)
            for step, inputs in _steps(plan, path)
            for arg in step.args
            if not arg.flag
            for name in [arg.ref.removeprefix("input.")]
            if name in inputs and _same_name(name, str(want.get("name", "")))
        )
    for step, inputs in _steps(plan, path):
        positional = [a for a in step.args if not a.flag]
        if index >= len(positional):
            continue
        arg = positional[index]
        if not arg.ref:
            return True
        item = inputs.get(arg.ref.removeprefix("input."))
        if item is not None and _type_ok(want, item.type):
            return item.required == bool(want.get("required", True))
    return False


def _same_name(found: str, wanted: str) -> bool:
    """``pdf_file`` and ``pdf``, ``paths`` and ``path``: one name, said two ways."""

    def stem(text: str) -> str:
        text = text.lower().removesuffix("_file").removesuffix("_path")
        return text[:-1] if text.endswith("s") and len(text) > 3 else text

    return stem(found) == stem(wanted)


# -- triggers and routing ------------------------------------------------------------------


def language_of(text: str, languages: Sequence[str] = ()) -> str:
    """ "en" for Latin script; for CJK, "ja" when it has kana, or when the skill is written in
    Japanese and not in Chinese (a phrase of kanji alone: "台帳更新"), else "zh".  (Before
    2026-12-02 every CJK phrase was "zh", so no pipeline of a Japanese skill could count as
    having its five triggers in its languages.)"""
    import re

    if not re.search(f"[{CJK}]", text):
        return "en"
    if re.search("[\u3040-\u30ff]", text):
        return "ja"
    return "ja" if "ja" in languages and "zh" not in languages else "zh"


def trigger_figures(entries: list[Any], languages: list[str]) -> dict[str, Any]:
    counts = [len(e.triggers) for e in entries]
    in_language = [sum(language_of(t, languages) in languages for t in e.triggers) for e in entries]
    covered = [
        all(any(language_of(t, languages) == lang for t in e.triggers) for lang in languages)
        for e in entries
    ]
    return {
        "pipelines": len(entries),
        "triggers": sum(counts),
        "min": min(counts, default=0),
        "five_or_more": sum(n >= 5 and ok for n, ok in zip(in_language, covered, strict=True)),
        "in_language": sum(in_language),
    }


def self_routing(entries: list[Any]) -> dict[str, Any]:
    """Each trigger, left out of its pipeline, routed over the rest of the table."""
    from skill2app.runtime.routing import EmbeddedRouter, RouteEntry

    hits, misses = 0, []
    for index, entry in enumerate(entries):
        for trigger in entry.triggers:
            rest = tuple(t for t in entry.triggers if t != trigger)
            table = list(entries)
            table[index] = RouteEntry(entry.name, entry.description, rest)
            decision = EmbeddedRouter(table).route(trigger)
            if decision.pipeline == entry.name:
                hits += 1
            else:
                misses.append(f"{trigger!r} ({entry.name}) -> {decision.pipeline}")
    return {"probes": hits + len(misses), "hits": hits, "misses": misses}


# -- one skill -----------------------------------------------------------------------------


def convert(skill: Skill, out: Path) -> tuple[int, str]:
    done = subprocess.run(
        [*CONVERT, str(skill.folder), "--out", str(out), "--analyzer", "heuristic"],
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    return done.returncode, errors[0] if errors else ""


def placeholders(app: Path) -> list[str]:
    found = []
    for sample in sorted(app.glob("pipelines/*/samples/input.json")):
        name = sample.parent.parent.name
        if (sample.parent / "placeholders.json").is_file():
            found.append(name)
    return found


def measure(skill: Skill, work: Path) -> dict[str, Any]:
    expected = skill.expectation.data
    out = work / skill.expectation.id.replace("/", "__")
    exit_code, error = convert(skill, out)
    written = (out / "pipelines").is_dir()
    inventory = build_inventory(skill.folder)
    plan: Plan | None
    try:
        plan = analyze(inventory)
    except Exception as exc:  # the benchmark reports it; app-convert's own exit says more
        plan, error = None, error or f"analyze: {exc!r}"
    checks = (  # as the constructor embeds them: scoped to the pipelines that need them
        constructor_checks(plan, inventory)
        if plan is not None
        else [r.to_dict() for r in inventory.requirements]
    )
    row: dict[str, Any] = {
        "skill": skill.expectation.id,
        "set": skill.expectation.set,
        "programs": len(inventory.programs),
        "exit_code": exit_code,
        "converts": exit_code in (0, 5) and written,
        "error": error,
        "requirements": requirement_figures(checks, expected),
        "flags": flag_figures(inventory, plan, expected),
    }
    if written:
        from skill2app.runtime.app.model import load_app
        from skill2app.runtime.routing.router import routing_entries

        entries = routing_entries(load_app(out))
        row["triggers"] = trigger_figures(entries, list(expected.get("languages") or ["en"]))
        row["routing"] = self_routing(entries)
        row["placeholders"] = placeholders(out)
    return row


# -- report --------------------------------------------------------------------------------


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def total(part: str, key: str) -> int:
        return sum(r.get(part, {}).get(key, 0) for r in rows)

    def count(part: str, key: str) -> int:
        return sum(len(r[part][key]) for r in rows)

    return {
        "skills": len(rows),
        "with_programs": sum(r["programs"] > 0 for r in rows),
        "converted": sum(r["converts"] for r in rows),
        "converted_with_programs": sum(r["converts"] for r in rows if r["programs"]),
        "false_blocking": count("requirements", "false_blocking"),
        "false_warning": count("requirements", "false_warning"),
        "unexpected_blocking": count("requirements", "unexpected_blocking"),
        "requirements_expected": total("requirements", "expected"),
        "requirements_found": total("requirements", "found"),
        "flags": total("flags", "flags"),
        "flags_inventory": total("flags", "inventory"),
        "flags_plan": total("flags", "plan"),
        "positionals": total("flags", "positionals"),
        "positionals_plan": total("flags", "positionals_plan"),
        "pipelines": total("triggers", "pipelines"),
        "triggers": total("triggers", "triggers"),
        "five_or_more": total("triggers", "five_or_more"),
        "triggers_in_language": total("triggers", "in_language"),
        "routing_probes": total("routing", "probes"),
        "routing_hits": total("routing", "hits"),
        "placeholders": sum(len(r.get("placeholders", [])) for r in rows),
    }


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else f"{part}/0"


def report(rows: list[dict[str, Any]], label: str) -> str:
    t = totals(rows)
    lines = [f"inventory figures, {label} set ({t['skills']} skills)", ""]
    lines += [
        f"converts (exit 0/5, APP written): {_share(t['converted'], t['skills'])}; "
        f"with programs: {_share(t['converted_with_programs'], t['with_programs'])}",
        f"false requirements: {t['false_blocking']} blocking, {t['false_warning']} warnings; "
        f"blocking checks not expected: {t['unexpected_blocking']}; "
        f"expected found: {_share(t['requirements_found'], t['requirements_expected'])}",
        f"documented flags, right type and optionality: inventory "
        f"{_share(t['flags_inventory'], t['flags'])}, plan {_share(t['flags_plan'], t['flags'])}; "
        f"positionals in the plan {_share(t['positionals_plan'], t['positionals'])}",
        f"triggers: {t['triggers']} over {t['pipelines']} pipelines "
        f"({t['triggers'] / max(t['pipelines'], 1):.1f} each); pipelines with >= 5 in the "
        f"skill's languages: {_share(t['five_or_more'], t['pipelines'])}; "
        f"in the skill's languages: {_share(t['triggers_in_language'], t['triggers'])}",
        f"self-routing (leave-one-out): {_share(t['routing_hits'], t['routing_probes'])}",
        f"pipelines whose sample is a placeholder: {t['placeholders']}",
        "",
    ]
    for row in rows:
        req, flags = row["requirements"], row["flags"]
        trig = row.get("triggers", {})
        route = row.get("routing", {})
        lines.append(
            f"{row['skill']:28} exit {row['exit_code']}  false {len(req['false_blocking'])}"
            f"+{len(req['false_warning'])}w  unexpected {len(req['unexpected_blocking'])}  "
            f"req {req['found']}/{req['expected']}  flags {flags['inventory']}/{flags['plan']}"
            f"/{flags['flags']}  pipelines {trig.get('pipelines', 0)} triggers "
            f"{trig.get('triggers', 0)}  routing {route.get('hits', 0)}/{route.get('probes', 0)}"
            f"  placeholders {len(row.get('placeholders', []))}"
        )
        details = [
            ("error", [row["error"]] if row["error"] else []),
            ("false blocking", req["false_blocking"]),
            ("false warning", req["false_warning"]),
            ("unexpected blocking", req["unexpected_blocking"]),
            ("requirements missed", req["missed"]),
            ("flags missed (inventory)", flags["inventory_miss"]),
            ("flags missed (plan)", flags["plan_miss"]),
            ("routing misses", route.get("misses", [])),
        ]
        for title, items in details:
            if items:
                lines.append(f"    {title}: " + "; ".join(items))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=(*SETS, "all"), default="dev")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", type=Path, help="extract and convert into this folder")
    parser.add_argument(
        "--folder",
        type=Path,
        action="append",
        help="measure this skill folder instead (no expectation: no requirement or flag figures)",
    )
    parser.add_argument(
        "--with-siblings",
        action="store_true",
        help="extract each skill inside the folder holding it in its repository (its sibling "
        "skills present, as for a user who cloned the collection)",
    )
    args = parser.parse_args(argv)
    if args.folder:
        return _folders(args.folder, args.json)
    sets = SETS if args.set == "all" else (args.set,)
    keep = args.keep.resolve() if args.keep else None
    folder = keep / "skills" if keep else None
    with corpus(sets, keep=folder, siblings=args.with_siblings) as skills:
        with tempfile.TemporaryDirectory(prefix="inventory-bench-") as tmp:
            work = keep / "apps" if keep else Path(tmp)
            rows = [measure(skill, work) for skill in skills]
    result = {"set": args.set, "totals": totals(rows), "skills": rows}
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else report(rows, args.set))
    return 0


def _folders(folders: list[Path], as_json: bool) -> int:
    from corpus import Expectation

    rows = []
    with tempfile.TemporaryDirectory(prefix="inventory-bench-") as tmp:
        for folder in folders:
            name = folder.resolve().name
            fake = Expectation(folder / f"{name}.yaml", "none", "local/folder", "0" * 7, name)
            fake.__dict__["data"] = {"languages": _languages(folder)}
            rows.append(measure(Skill(fake, folder.resolve()), Path(tmp)))
    result = {"set": "folders", "totals": totals(rows), "skills": rows}
    print(json.dumps(result, indent=2, ensure_ascii=False) if as_json else report(rows, "folders"))
    return 0


def _languages(folder: Path) -> list[str]:
    """The skill's language as the inventory detects it (a folder has no expectation)."""
    return [build_inventory(folder).language]


if __name__ == "__main__":
    raise SystemExit(main())
