"""`app-run check`: validate a whole APP without running anything.

This module checks the documents (YAML, schema, step names, `needs`, `output`);
``references`` checks what the steps point at (programs, schemas, validate scripts, prompts).

Each finding is a Diagnostic naming file:line and what to do.  Errors stop `run`; warnings
(unknown keys such as ``required_scope``, a missing SKILL.md, a program not on PATH) never do.
An unknown key close to a known one (``inputs`` for ``input``) is a typo, and an error.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

from skill2app.runtime.app.bounds import inside, real
from skill2app.runtime.app.diagnostic import Diagnostic
from skill2app.runtime.app.document import Document, plain
from skill2app.runtime.app.model import LIFECYCLE, App
from skill2app.runtime.app.references import check_command, check_file, check_prompt
from skill2app.runtime.app.skill_md import read_skill_md
from skill2app.runtime.errors import LoadError, Where
from skill2app.runtime.spelling import closest

MAX_TIMEOUT = 7 * 24 * 3600  # a week: more is a mistake (and past what a clock can add)
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")  # pipeline.schema.json's name, lifecycle aside


@cache
def pipeline_schema() -> dict[str, Any]:
    from importlib import resources

    text = (
        resources.files("skill2app.runtime")
        .joinpath("schemas/pipeline.schema.json")
        .read_text("utf-8")
    )
    return json.loads(text)


def check_app(app: App, only: list[str] | None = None, *, routes: bool = False) -> list[Diagnostic]:
    """Check every pipeline (or just ``only`` plus the lifecycle pipelines); with ``routes``,
    an APP without errors also gets the routing self-test (`app-run check`: do the triggers
    route where they are written?)."""
    # SKILL.md's own problems never stop a run: told by `check` of the whole APP only
    found: list[Diagnostic] = [] if only is not None else list(read_skill_md(app.skill_md).warnings)
    if not app.skill_md.is_file():
        found.append(
            Diagnostic(
                "warning",
                "no SKILL.md: requests that match no pipeline have no Skill-mode fallback",
                Where(app.root),
                "add a SKILL.md (app-new app writes one)",
            )
        )
    for sub in app.missing:
        found.append(
            Diagnostic(
                "error",
                f"pipelines/{sub.name}/ has no pipeline.yaml",
                Where(sub),
                "add pipeline.yaml or remove the folder",
            )
        )
    names = [n for n in app.files if only is None or n in only or n in LIFECYCLE]
    if only is None and not app.business_names():
        found.append(
            Diagnostic(
                "warning",
                "no business pipelines",
                Where(app.root / "pipelines"),
                "add one with `app-new pipeline`",
            )
        )
    for name in names:
        source = app.source(name)
        if isinstance(source, LoadError):
            where = source.where or Where(app.root / "pipelines" / name / "pipeline.yaml")
            found.append(Diagnostic("error", source.message, where, source.hint))
        else:
            found.extend(check_document(app, name, source))
    if routes and only is None and not errors_in(found):  # do its triggers route? (warnings)
        from skill2app.runtime.routing.selftest import routing_selftest

        found.extend(routing_selftest(app))
    return sorted(found, key=lambda d: (str(d.where.file), d.where.line, d.level))


MAX_SAMPLE_ENTRIES = 200  # entries of a samples/ folder looked at for links out


def _samples_leading_out(app: App, samples: Path) -> list[Diagnostic]:
    """Warnings for a pipeline's samples/ folder, or a file in it, that leads out of the APP
    (``samples -> ~/.ssh``, ``input.json -> ~/secret.json``): app-run test reads none."""
    if not samples.exists():
        return []
    paths = [samples] if not inside(samples, app.root) else []
    if not paths and samples.is_dir():
        entries = sorted(samples.iterdir())[:MAX_SAMPLE_ENTRIES]
        paths = [p for p in entries if not inside(p, app.root)]
    return [
        Diagnostic(
            "warning",
            f"{p.name} leads to {real(p)}, outside the APP: app-run test does not read it",
            Where(p),
            "keep a sample's files inside the APP folder (copy them in)",
        )
        for p in paths
    ]


def errors_in(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.level == "error"]


def check_document(app: App, dirname: str, doc: Document) -> list[Diagnostic]:
    if not inside(doc.path, app.root):  # pipeline.yaml, or its folder, is a link out
        return [
            Diagnostic(
                "error",
                f"pipeline.yaml is outside the APP: a symlink takes it to {real(doc.path)}",
                Where(doc.path),
                "keep every pipeline's files inside the APP folder (copy it in)",
            )
        ]
    leading_out = _samples_leading_out(app, doc.path.parent / "samples")
    if doc.data is None:
        return leading_out + [
            Diagnostic(
                "error",
                "pipeline.yaml is empty",
                doc.where(),
                "write its name, description and steps (see `app-run schema`)",
            )
        ]
    found = schema_diagnostics(doc) + leading_out
    data = doc.data
    if not isinstance(data, dict):
        return found
    name = data.get("name")
    if isinstance(name, str) and name != dirname:
        found.append(
            Diagnostic(
                "error",
                f"name {name!r} does not match its directory {dirname!r}",
                doc.where("name"),
                f"set name: {dirname} or rename the directory"
                if _NAME.match(dirname)
                else f"rename the directory to {name!r} (a pipeline name is lowercase letters, "
                "digits, '-' and '_')",
            )
        )
    if dirname in LIFECYCLE and data.get("triggers"):
        found.append(
            Diagnostic(
                "warning",
                f"{dirname} is not routed; its triggers are ignored",
                doc.where("triggers"),
            )
        )
    steps = data.get("steps")
    if isinstance(steps, list):
        found.extend(check_steps(app, doc, steps, is_lifecycle=dirname in LIFECYCLE))
    if isinstance(data.get("input"), dict):
        found.extend(check_input_declaration(doc, data["input"]))
    return found


def check_input_declaration(doc: Document, declared: dict[Any, Any]) -> list[Diagnostic]:
    """The long form's values must fit its type: every ``enum`` value, and the ``default``
    (which must also be one of the ``enum``); a required input has no use for a default."""
    from skill2app.runtime.run.inputs import matches

    found: list[Diagnostic] = []
    for name, spec in declared.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
            continue
        type_ = spec["type"]
        for value in spec.get("enum") or []:
            if not matches(value, type_):
                found.append(
                    Diagnostic(
                        "error",
                        f"input {name}: enum value {json.dumps(value)} is not {type_}",
                        doc.where("input", name, "enum"),
                        f"list {type_} values only",
                    )
                )
        if "default" not in spec:
            continue
        default = spec["default"]
        shown = json.dumps(default)
        problem, fix = "", ""
        if spec.get("required") is True:
            problem, fix = "is required, so its default is never used", "drop default or required"
        elif default is not None and not matches(default, type_):
            problem, fix = f"default {shown} is not {type_}", f"give a value of type {type_}"
        elif spec.get("enum") and default not in spec["enum"]:
            problem, fix = f"default {shown} is not one of its enum", "add it to the enum"
        if problem:
            found.append(
                Diagnostic("error", f"input {name}: {problem}", doc.where("input", name), fix)
            )
    return found


def schema_diagnostics(doc: Document) -> list[Diagnostic]:
    from jsonschema import Draft202012Validator

    found: list[Diagnostic] = []
    validator = Draft202012Validator(pipeline_schema())
    for err in validator.iter_errors(plain(doc.data)):
        path = list(err.absolute_path)
        if err.validator == "additionalProperties":
            known = err.schema.get("properties", {})
            for key in sorted(set(err.instance) - set(known)):
                found.append(unknown_key(doc, [*path, key], known))
            continue
        if err.validator == "anyOf" and path[:1] == ["input"] and err.context:
            err = _input_error(err)
        found.append(Diagnostic("error", _schema_message(err), doc.where(*path), _schema_hint(err)))
    return found


def _input_error(err: Any) -> Any:
    """Of an input matching neither form, the error of the form it was written in."""
    long_form = isinstance(err.instance, dict)
    own = [e for e in err.context if (e.validator != "enum") == long_form or e.relative_path]
    from jsonschema.exceptions import best_match

    return best_match(own or err.context)


def unknown_key(doc: Document, path: list[Any], known: dict[str, Any]) -> Diagnostic:
    """A key the schema does not know: an error when it is a typo of a known key (``inputs``:
    the pipeline would silently have no inputs), else a warning (vendor extras are tolerated)."""
    key = str(path[-1])
    near = closest(key, known)
    if near is None:
        hint = "check the spelling if app-run should use it"
        return Diagnostic("warning", f"unknown key {key!r} is ignored", doc.where(*path), hint)
    return Diagnostic(
        "error",
        f"unknown key {key!r}: did you mean {near!r}?",
        doc.where(*path),
        f"rename it to {near}",
    )


def _schema_message(err: Any) -> str:
    location = ".".join(str(p) for p in err.absolute_path) or "pipeline"
    if err.validator == "required":
        return f"{location}: {err.message}"
    if err.validator == "enum":
        values = [str(v) for v in err.validator_value]
        shown = [v for v in values if not v.endswith("?")]  # `type?` is said once, at the end
        allowed = ", ".join(shown) + (" (add ? for optional)" if len(shown) < len(values) else "")
        return f"{location}: {json.dumps(err.instance)} is not one of {allowed}"
    return f"{location}: {err.message}"


def _schema_hint(err: Any) -> str:
    if err.validator == "required":
        return "add the missing key (see `app-run schema` for every field)"
    if err.validator == "pattern" and list(err.absolute_path)[-1:] == ["name"]:
        return "use lowercase letters, digits, '-' or '_'"
    return "see `app-run schema` for the allowed values"


def check_steps(app: App, doc: Document, steps: list, *, is_lifecycle: bool) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    declared = plain(doc.data.get("input")) or {}
    seen: list[str] = []
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or not isinstance(step.get("name"), str):
            continue
        name = step["name"]
        if name in seen:
            found.append(
                Diagnostic(
                    "error",
                    f"step name {name!r} is used twice",
                    doc.where("steps", index, "name"),
                    "give every step a unique name",
                )
            )
        if isinstance(step.get("command"), str) and step.get("type") == "code":
            found.extend(check_command(app, doc, index, step["command"]))
        for key in ("schema", "validate"):
            if isinstance(step.get(key), str):
                found.extend(check_file(app, doc, ("steps", index, key), step[key], key))
        timeout = step.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool):
            if not math.isfinite(timeout) or timeout > MAX_TIMEOUT:  # <= 0: the schema says
                found.append(
                    Diagnostic(
                        "error",
                        f"timeout {timeout!r} is not a number of seconds from 0 to {MAX_TIMEOUT:,}",
                        doc.where("steps", index, "timeout"),
                        "set timeout: to the seconds the step may take, e.g. 300",
                    )
                )
        if isinstance(step.get("needs"), list):
            found.extend(check_needs(doc, index, step["needs"], seen))
        if isinstance(step.get("prompt"), str) and step.get("type") == "llm":
            found.extend(
                check_prompt(doc, index, step["prompt"], declared, seen, steps, is_lifecycle)
            )
        seen.append(name)
    output = doc.data.get("output")
    if isinstance(output, str) and output not in seen:
        found.append(
            Diagnostic(
                "error",
                f"output names step {output!r}, which does not exist",
                doc.where("output"),
                f"use one of: {', '.join(seen)}",
            )
        )
    return found


def check_needs(doc: Document, index: int, needs: list, earlier: list[str]) -> list[Diagnostic]:
    """Every step a step ``needs`` must come before it (its output exists by then)."""
    return [
        Diagnostic(
            "error",
            f"needs {name!r}, which is not an earlier step",
            doc.where("steps", index, "needs"),
            f"list earlier steps only: {', '.join(earlier) or '(none before this one)'}",
        )
        for name in needs
        if isinstance(name, str) and name not in earlier
    ]
