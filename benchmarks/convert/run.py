"""How good are the APPs app-convert makes of real skills?  Measured against expectations
written before any conversion output was looked at (expectations/, see its README).

For every skill of the chosen set (dev: tuned on; test: held out) it converts the skill

- with the heuristic analyzer (offline, no LLM), and
- with the host analyzer, replaying the answers an agent gave (answers/<collection>/<skill>/
  attempt-N.*, recorded by following the JSON app-convert printed), and
- ``--analyzer blind``: the same with answers-blind/, recorded by agents that saw nothing
  but what app-convert printed and the skill (not the expectations, not the judgements, not
  the other answers; the engineer who recorded answers/ had written the expectations);
  answers that end before app-convert's review pause keep the plan, as an agent may,

smoke run included, and scores each APP:

  paths      expected main paths covered: a path is covered when at least two of its three
             example requests are routed (a match, not Skill mode) to the same pipeline by the
             embedded router over the APP's routing table, a pipeline covering one path only
  inputs     for covered paths, expected required inputs the pipeline has (recall) and the
             pipeline's required inputs that are expected (precision), matched by name words
             (file/path, dir/folder, out/output count as the same) and type
  split      covered paths whose pipeline has an llm step exactly when the expected path has
  smoke      code steps passed / run (skipped: a dependency this machine lacks, a placeholder;
             traced: ran with a stand-in for a program not installed here, counted apart)
  selftest   descriptions and triggers routed to their own pipeline, leave-one-out
  own_requests  requests the skill quotes and situations its description names that reach a
             pipeline (a match), as app-convert's report routes them (verify/requests.py)
  schemas    llm steps whose schema has more than one field (not {result: string})
  rules      checks the validate scripts run, per llm step
  run-desc   pipelines described as "Run <script>" (a script's path or file name after
             "Run": "Run scripts/x.py", "Run the fill.py script"; "Run the full audit of a
             codebase ..." and a program's own "Run Bandit secret detection" are not)
  accept     the author-acceptance score (1-5) a judge gave the APP (judgements/), if any

    python benchmarks/convert/run.py --set dev            # both analyzers, Markdown table
    python benchmarks/convert/run.py --set test --json results.json
    python benchmarks/convert/run.py --set all --keep apps/   # keep the APPs (for a judge)
    python benchmarks/convert/run.py --set test --analyzer all   # heuristic, host and blind

Needs the corpus mirrors (corpus.py) and, for smoke runs that pass, the skills' own
dependencies: python3 on PATH with pypdf, pdfplumber, openpyxl, python-docx, python-pptx,
pillow, reportlab; poppler-utils and qpdf; Node 20 with `npm install -g docx pptxgenjs pnpm
adm-zip iconv-lite officeparser pdf-parse xlsx` and NODE_PATH=$(npm root -g). Without them
steps fail or are skipped, and a recorded answer that passed where they were installed can be
refused. Run one set at a time: two runs side by side slow the smoke runs into their time
limits. Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import SETS, Skill, corpus  # noqa: E402

ANSWERS = HERE / "answers"
# The host analyzer's recorded answers: by the project's engineer (who had written the
# expectations: "host"), and by agents that saw only what app-convert printed ("blind").
ANSWER_SETS = {"host": ANSWERS, "blind": HERE / "answers-blind"}
JUDGEMENTS = HERE / "judgements"
SAME = {"path": "file", "filename": "file", "folder": "dir", "directory": "dir", "out": "output",
        "outfile": "output", "destination": "output", "dest": "output", "pdf": "file",
        "csv": "file", "xlsx": "file", "docx": "file", "pptx": "file"}  # fmt: skip
TYPES = {"path": "string"}


def convert_with(skill: Skill, analyzer: str, work: Path) -> tuple[Any, str]:
    """(the report, "") or (None, why there is no APP) for ``analyzer`` on ``skill``."""
    from skill2app.converter.convert import Options, convert, resume
    from skill2app.converter.errors import ConvertError

    out = work / analyzer / skill.expectation.id
    try:
        if analyzer == "heuristic":
            options = Options(skill_dir=skill.folder, out=out, analyzer="heuristic", smoke=True)
            return convert(options), ""
        answers = sorted(
            (ANSWER_SETS[analyzer] / skill.expectation.id).glob("attempt-*.*"),
            key=lambda p: int(re.sub(r"\D", "", p.stem) or 0),
        )
        if not answers:
            return None, "no recorded host answers"
        report = convert(Options(skill_dir=skill.folder, out=out, analyzer="host"))
        for answer in answers:
            assert report.pause is not None
            report = resume(report.pause["session"], answer.read_text(encoding="utf-8"))
            if report.pause is None:
                break
        if report.pause is not None and report.pause.get("step") == "review":
            # the recorded answers end before the review: the agent keeps its plan
            report = resume(report.pause["session"], answers[-1].read_text(encoding="utf-8"))
        if report.pause is not None:
            problems = _problems(report.pause.get("prompt") or "")
            return None, f"still paused after {len(answers)} recorded answers: {problems}"
        if report.exhausted:
            return None, f"attempts used up: {report.exhausted[0]}"
        return report, ""
    except ConvertError as exc:
        return None, exc.one_line()


def _problems(prompt: str) -> str:
    """The problems a pause's prompt lists for the previous attempt, on one line."""
    start = prompt.find("Fix every problem below")
    if start < 0:
        return "(no problems listed)"
    section = prompt[start:].split("\n## ", 1)[0]
    return "; ".join(line[2:] for line in section.splitlines() if line.startswith("- "))


def score(skill: Skill, report: Any, analyzer: str) -> dict[str, Any]:
    from skill2app.runtime.app.model import load_app, routing_table

    app = load_app(Path(report.app))
    table = [row for row in routing_table(app) if "error" not in row]
    expected = skill.expectation.data.get("main_paths") or []
    covered = _coverage(table, expected)
    pipelines = {row["name"]: app.pipeline(row["name"]) for row in table}
    inputs = [_inputs(path, pipelines[name]) for path, name in covered if name]
    split = [_split(path, pipelines[name]) for path, name in covered if name]
    smoke = report.verification.smoke if report.verification else []
    llm = [s for p in pipelines.values() for s in p.steps if s.type == "llm"]
    return {
        "skill": skill.expectation.id,
        "set": skill.expectation.set,
        "analyzer": analyzer,
        "pipelines": len(table),
        "paths": f"{sum(1 for _p, n in covered if n)}/{len(expected)}",
        "paths_covered": sum(1 for _p, n in covered if n) / max(len(expected), 1),
        "input_recall": _mean([r for r, _p in inputs]),
        "input_precision": _mean([p for _r, p in inputs]),
        "split": _mean(split),
        "smoke": _ratio(smoke),
        "smoke_skipped": sum(1 for s in smoke if s.status == "skipped"),
        "smoke_traced": sum(1 for s in smoke if s.status == "traced"),
        "selftest": _selftest(table),
        "own_requests": _own(report.requests),
        "schemas": _mean(
            [_rich(p, s) for p in pipelines.values() for s in p.steps if s.type == "llm"]
        ),  # fmt: skip
        "rules_per_llm": (_checks(pipelines) / len(llm)) if llm else None,
        "run_descriptions": sum(1 for r in table if RUN_SCRIPT.match(r["description"])),
        "accept": _judgement(skill, analyzer),
    }


RUN_SCRIPT = re.compile(
    r"Run\s+(?:the\s+)?`?(?:[\w.-]+/)*[\w.-]+\.(?:py|sh|bash|js|mjs|cjs|ts|rb|pl)\b", re.I
)


def _coverage(table: list[dict[str, Any]], paths: list[dict[str, Any]]) -> list[tuple[Any, str]]:
    """(expected path, the pipeline covering it, or ""): at least two of the path's example
    requests are routed (a match, not Skill mode) to that pipeline, and no other path claims
    it with more votes — one pipeline covers one main path."""
    from skill2app.runtime.routing import EmbeddedRouter, RouteEntry

    entries = [RouteEntry(r["name"], r["description"], tuple(r["triggers"])) for r in table]
    if not entries:
        return [(path, "") for path in paths]
    router = EmbeddedRouter(entries)
    votes: list[tuple[int, int, str]] = []  # (votes, path index, pipeline)
    for index, path in enumerate(paths):
        routed = [router.route(request).pipeline for request in path.get("example_requests") or []]
        for name in {n for n in routed if n}:
            if routed.count(name) >= 2:
                votes.append((routed.count(name), index, name))
    chosen: dict[int, str] = {}
    taken: set[str] = set()
    for _count, index, name in sorted(votes, key=lambda v: (-v[0], v[1])):
        if index not in chosen and name not in taken:
            chosen[index] = name
            taken.add(name)
    return [(path, chosen.get(index, "")) for index, path in enumerate(paths)]


def _first(router: Any, request: str) -> str:
    ranked = router.candidates(request)
    return ranked[0].pipeline if ranked else ""


def _words(name: str) -> set[str]:
    return {SAME.get(w, w) for w in re.split(r"[^a-z0-9]+", name.lower()) if w}


def _inputs(path: dict[str, Any], pipeline: Any) -> tuple[float, float]:
    """(recall, precision) of the required inputs."""
    want = {n: s for n, s in (path.get("inputs") or {}).items() if (s or {}).get("required")}
    have = [n for n, t in pipeline.inputs.items() if not t.endswith("?")]

    def same(a: str, b: str) -> bool:
        wa, wb = _words(a), _words(b)
        return bool(wa & wb) or a == b

    recall = sum(1 for n in want if any(same(n, h) for h in have)) / max(len(want), 1)
    precision = sum(1 for h in have if any(same(h, n) for n in want)) / max(len(have), 1)
    return recall, precision


def _split(path: dict[str, Any], pipeline: Any) -> float:
    wants_llm = any(s.get("kind") == "llm" for s in path.get("steps") or [])
    has_llm = any(s.type == "llm" for s in pipeline.steps)
    return 1.0 if wants_llm == has_llm else 0.0


def _rich(pipeline: Any, step: Any) -> float:
    if not step.schema:
        return 0.0
    schema = json.loads((pipeline.dir / step.schema).read_text(encoding="utf-8"))
    props = schema.get("properties") or {}

    def nested(node: Any) -> bool:
        if not isinstance(node, dict):
            return False
        return bool(node.get("properties")) or nested(node.get("items"))

    return 1.0 if len(props) > 1 or any(nested(v) for v in props.values()) else 0.0


def _checks(pipelines: dict[str, Any]) -> int:
    """Checks the validate scripts run (their CHECKS entries)."""
    from skill2app.converter.render.literals import read_literal

    total = 0
    for pipeline in pipelines.values():
        for step in pipeline.steps:
            if step.type == "llm" and step.validate:
                checks = read_literal((pipeline.dir / step.validate).read_text("utf-8"), "CHECKS")
                total += len(checks or [])
    return total


def _selftest(table: list[dict[str, Any]]) -> float | None:
    """Phrases (descriptions, triggers) ranked first for their own pipeline, leave-one-out."""
    from skill2app.runtime.routing import EmbeddedRouter, RouteEntry

    if len(table) < 2:
        return None
    hits = total = 0
    for row in table:
        for index, phrase in enumerate([row["description"], *row["triggers"]]):
            entries = []
            for other in table:
                if other is not row:
                    entries.append(
                        RouteEntry(other["name"], other["description"], tuple(other["triggers"]))
                    )
                    continue
                triggers = tuple(t for i, t in enumerate(row["triggers"], 1) if i != index)
                description = row["description"] if index else (triggers[0] if triggers else "")
                entries.append(RouteEntry(row["name"], description, triggers))
            total += 1
            hits += _first(EmbeddedRouter(entries), phrase) == row["name"]
    return hits / total if total else None


def _own(requests: Any) -> float | None:
    """The skill's own requests (quoted, or its description's situations) that reach a
    pipeline, as the report routes them; None when it has none."""
    return requests.matched / len(requests.own) if requests.ran and requests.own else None


def _judgement(skill: Skill, analyzer: str) -> float | None:
    """The score of the newest round of judges that judged this APP (judgements/README.md)."""
    numbered = sorted(
        (int(d.name.split("-")[1]) for d in JUDGEMENTS.glob("round-*") if d.name[6:].isdigit()),
        reverse=True,
    )
    rounds = [JUDGEMENTS / f"round-{n}" / analyzer for n in numbered]
    rounds.append(JUDGEMENTS / analyzer)
    path = next((r / f"{skill.expectation.id}.yaml" for r in rounds
                 if (r / f"{skill.expectation.id}.yaml").is_file()), None)  # fmt: skip
    if path is None:
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    value = data.get("score")
    return float(value) if isinstance(value, int | float) else None


def _ratio(smoke: list[Any]) -> float | None:
    ran = [s for s in smoke if s.status in ("passed", "failed")]
    return sum(1 for s in ran if s.status == "passed") / len(ran) if ran else None


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


COLUMNS = ("skill", "analyzer", "pipelines", "paths", "input_recall", "input_precision",
           "split", "smoke", "selftest", "own_requests", "schemas", "rules_per_llm",
           "run_descriptions", "accept")  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:.2f}"
        return "-" if value is None else str(value)

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(row.get(c)) for c in COLUMNS) + " |" for row in rows]
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per analyzer: means over the skills it converted, and how many it did."""
    found = []
    for analyzer in sorted({r["analyzer"] for r in rows}):
        mine = [r for r in rows if r["analyzer"] == analyzer and "error" not in r]
        row: dict[str, Any] = {"skill": f"mean ({len(mine)} APPs)", "analyzer": analyzer}
        for key in COLUMNS[2:]:
            if key == "paths":
                row[key] = _mean([r["paths_covered"] for r in mine])
            else:
                row[key] = _mean([r[key] for r in mine if isinstance(r.get(key), int | float)])
        found.append(row)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=(*SETS, "all"), default="dev")
    parser.add_argument(
        "--analyzer", choices=("heuristic", "host", "blind", "both", "all"), default="both"
    )
    parser.add_argument("--json", type=Path, help="write every row here as JSON")
    parser.add_argument("--keep", type=Path, help="write the APPs here (ANALYZER/COLLECTION/SKILL)")
    args = parser.parse_args(argv)
    sets = SETS if args.set == "all" else (args.set,)
    groups = {"both": ("heuristic", "host"), "all": ("heuristic", "host", "blind")}
    analyzers = groups.get(args.analyzer, (args.analyzer,))
    rows: list[dict[str, Any]] = []
    with corpus(sets) as skills, tempfile.TemporaryDirectory(prefix="convert-bench-") as tmp:
        work = args.keep or Path(tmp)
        for skill in skills:
            for analyzer in analyzers:
                report, why = convert_with(skill, analyzer, work)
                if report is None:
                    rows.append({"skill": skill.expectation.id, "analyzer": analyzer,
                                 "set": skill.expectation.set, "error": why})  # fmt: skip
                    print(f"{skill.expectation.id} ({analyzer}): no APP: {why}", file=sys.stderr)
                    continue
                rows.append(score(skill, report, analyzer))
    print(table([r for r in rows if "error" not in r] + summary(rows)))
    failed = [r for r in rows if "error" in r]
    for row in failed:
        print(f"\nno APP: {row['skill']} ({row['analyzer']}): {row['error']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
