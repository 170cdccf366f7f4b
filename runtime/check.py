"""`app-run check`: validate a whole APP without running anything.

Each finding is a Diagnostic naming file:line and what to do.  Errors stop `run`; warnings
(unknown keys such as ``required_scope``, a missing SKILL.md, a program not on PATH) never do.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .app import LIFECYCLE, App
from .document import Document, plain
from .errors import LoadError, Where
from .template import BadReference, line_of_offset, references

SCRIPT_EXTENSIONS = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php")


@dataclass(frozen=True)
class Diagnostic:
    level: str  # "error" | "warning"
    message: str
    where: Where
    hint: str = ""

    def one_line(self) -> str:
        text = f"{self.level}: {self.message} ({self.where})"
        return f"{text} — {self.hint}" if self.hint else text

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "message": self.message,
            "file": str(self.where.file),
            "line": self.where.line,
            "hint": self.hint,
        }


@cache
def pipeline_schema() -> dict[str, Any]:
    from importlib import resources

    text = resources.files("runtime").joinpath("schemas/pipeline.schema.json").read_text("utf-8")
    return json.loads(text)


def check_app(app: App, only: list[str] | None = None) -> list[Diagnostic]:
    """Check every pipeline (or just ``only`` plus the lifecycle pipelines)."""
    found: list[Diagnostic] = []
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
    return sorted(found, key=lambda d: (str(d.where.file), d.where.line, d.level))


def errors_in(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.level == "error"]


def check_document(app: App, dirname: str, doc: Document) -> list[Diagnostic]:
    if doc.data is None:
        return [
            Diagnostic(
                "error",
                "pipeline.yaml is empty",
                doc.where(),
                "write its name, description and steps (see `app-run schema`)",
            )
        ]
    found = schema_diagnostics(doc)
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
                f"set name: {dirname} or rename the directory",
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
    return found


def schema_diagnostics(doc: Document) -> list[Diagnostic]:
    from jsonschema import Draft202012Validator

    found: list[Diagnostic] = []
    validator = Draft202012Validator(pipeline_schema())
    for err in validator.iter_errors(plain(doc.data)):
        path = list(err.absolute_path)
        if err.validator == "additionalProperties":
            extras = sorted(set(err.instance) - set(err.schema.get("properties", {})))
            for key in extras:
                found.append(
                    Diagnostic(
                        "warning",
                        f"unknown key {key!r} is ignored",
                        doc.where(*path, key),
                        "check the spelling if app-run should use it",
                    )
                )
            continue
        found.append(Diagnostic("error", _schema_message(err), doc.where(*path), _schema_hint(err)))
    return found


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


def _inside(app: App, path: Path) -> bool:
    try:
        path.resolve().relative_to(app.root)
        return True
    except ValueError:
        return False


def _via_link(path: Path) -> str:
    """Where a path that leaves the APP through a symlink really leads ("" without one)."""
    real = path.resolve()
    return f": a symlink takes it to {real}" if real != Path(os.path.abspath(path)) else ""


def check_file(app: App, doc: Document, keys: tuple, relpath: str, kind: str) -> list[Diagnostic]:
    where = doc.where(*keys)
    target = relpath
    if kind == "validate":
        try:
            words = shlex.split(relpath)
        except ValueError:
            words = []
        if len(words) != 1:  # a full command (`python3 steps/check.py --strict`), or unsplittable
            return check_command(app, doc, keys[1], relpath, key="validate")
        target = words[0]
    path = doc.path.parent / target
    if Path(target).is_absolute() or not _inside(app, path):
        return [
            Diagnostic(
                "error",
                f"{kind} {relpath!r} is outside the APP{_via_link(path)}",
                where,
                "use a path relative to the pipeline directory, inside the APP",
            )
        ]
    if not path.is_file():
        return [
            Diagnostic(
                "error",
                f"{kind} file {target!r} not found",
                where,
                f"create {path.resolve().relative_to(app.root)} or fix the path",
            )
        ]
    if kind == "schema":
        return check_schema_file(path, where)
    return []


def check_schema_file(path: Path, where: Where) -> list[Diagnostic]:
    from jsonschema import SchemaError, validators

    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [
            Diagnostic(
                "error",
                f"schema file is not UTF-8 text (byte 0x{raw[exc.start]:02x})",
                Where(path, raw.count(b"\n", 0, exc.start) + 1),
                "a JSON Schema is a UTF-8 JSON text file: save it as one",
            )
        ]
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        return [
            Diagnostic(
                "error",
                f"schema is not valid JSON: {exc}",
                Where(path, exc.lineno),
                "fix the JSON syntax",
            )
        ]
    try:
        validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return [
            Diagnostic(
                "error",
                f"not a valid JSON Schema: {exc.message}",
                Where(path),
                "see https://json-schema.org/understanding-json-schema/",
            )
        ]
    return []


def check_command(
    app: App, doc: Document, index: int, command: str, key: str = "command"
) -> list[Diagnostic]:
    """``key``: the step's ``command``, or a ``validate`` given as a full command."""
    where = doc.where("steps", index, key)
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return [
            Diagnostic(
                "error",
                f"{key} cannot be split: {exc}",
                where,
                "balance the quotes (commands run without a shell)",
            )
        ]
    if not words:
        return [Diagnostic("error", f"{key} is empty", where)]
    found: list[Diagnostic] = []
    program = words[0]
    if "/" not in program and shutil.which(program) is None:
        found.append(
            Diagnostic(
                "warning",
                f"program {program!r} is not on PATH",
                where,
                "install it or use its full path",
            )
        )
    for pos, word in enumerate(words):
        is_script = word.lower().endswith(SCRIPT_EXTENSIONS) or (pos == 0 and "/" in word)
        # A word with spaces is an argument such as `bash -c "cd x && python3 y.py"`, not a path.
        is_script = is_script and not any(c.isspace() for c in word)
        if not is_script or word.startswith("-") or "://" in word or Path(word).is_absolute():
            continue
        path = doc.path.parent / word
        if not _inside(app, path):
            found.append(
                Diagnostic(
                    "error",
                    f"{key} script {word!r} is outside the APP{_via_link(path)}",
                    where,
                    "keep step scripts inside the APP folder",
                )
            )
        elif not path.is_file():
            found.append(
                Diagnostic(
                    "error",
                    f"{key} script {word!r} not found",
                    where,
                    f"create {path.resolve().relative_to(app.root)} or fix the path",
                )
            )
    return found


def check_prompt(
    doc: Document,
    index: int,
    prompt: str,
    declared: dict,
    earlier: list[str],
    steps: list,
    is_lifecycle: bool,
) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    base = doc.line_of("steps", index, "prompt")
    block = type(doc.data["steps"][index]["prompt"]).__name__ in (
        "LiteralScalarString",
        "FoldedScalarString",
    )
    for ref in references(prompt):
        line = base + (1 + line_of_offset(prompt, ref.offset) if block else 0)
        where = Where(doc.path, line)
        if isinstance(ref, BadReference):
            found.append(
                Diagnostic(
                    "error",
                    str(ref),
                    where,
                    "write {{input.<name>}} or {{<earlier step>.output[.field]}}",
                )
            )
        elif ref.is_input:
            if ref.path and ref.path[0] not in declared and not is_lifecycle:
                found.append(
                    Diagnostic(
                        "error",
                        f"{{{{{ref.text}}}}}: no input {ref.path[0]!r}",
                        where,
                        "declare it under input: or fix the name",
                    )
                )
        elif not any(isinstance(s, dict) and s.get("name") == ref.root for s in steps):
            found.append(
                Diagnostic(
                    "error",
                    f"{{{{{ref.text}}}}}: no step {ref.root!r} in this pipeline",
                    where,
                    f"use an earlier step: {', '.join(earlier) or '(none before this one)'}",
                )
            )
        elif ref.root not in earlier:
            found.append(
                Diagnostic(
                    "error",
                    f"{{{{{ref.text}}}}}: {ref.root!r} is not an earlier step",
                    where,
                    "a prompt can use only steps that run before it",
                )
            )
    return found
