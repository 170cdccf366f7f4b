"""What a pipeline's steps point at, checked without running anything: the program of a code
step, a schema or validate script, and the references in an llm step's prompt.  Paths must stay
inside the APP (symlinks followed); a program not on PATH is only a warning."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

from skill2app.runtime.app.diagnostic import Diagnostic
from skill2app.runtime.app.document import Document
from skill2app.runtime.app.model import App
from skill2app.runtime.errors import Where
from skill2app.runtime.run.template import BadReference, line_of_offset, references

SCRIPT_EXTENSIONS = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php")


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
