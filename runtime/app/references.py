"""What a pipeline's steps point at, checked without running anything: the program of a code
step, a schema or validate script, and the references in an llm step's prompt.  Paths must stay
inside the APP (symlinks followed): a command's program and an interpreter's script (with or
without an extension: ``python3 ../x``), any relative path argument, a ``validate`` command,
and every ``$ref`` of a schema — which may name only files inside the APP, never a URL (app-run
never fetches one, at check or at run time: ``local_registry``).  A program not on PATH is only
a warning."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skill2app.runtime.app import numbers
from skill2app.runtime.app.bounds import inside, real, relative
from skill2app.runtime.app.diagnostic import Diagnostic
from skill2app.runtime.app.document import Document
from skill2app.runtime.app.model import App
from skill2app.runtime.errors import Where
from skill2app.runtime.run.template import BadReference, line_of_offset, references

SCRIPT_EXTENSIONS = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php")
# Programs whose first argument (after their own flags) is a script they run.
INTERPRETER = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|bash|sh|dash|zsh|ksh|node|nodejs|deno|bun|tsx|ts-node|"
    r"ruby|perl|php|lua|Rscript)$"
)
NO_SCRIPT = {"-c", "-m", "-e", "--eval", "-p", "--print", "-E"}  # the code is inline: no script


def _via_link(path: Path) -> str:
    """Where a path that leaves the APP through a symlink really leads ("" without one)."""
    found = real(path)
    return f": a symlink takes it to {found}" if found != Path(os.path.abspath(path)) else ""


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
    if Path(target).is_absolute() or not inside(path, app.root):
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
                f"create {relative(path, app.root)} or fix the path",
            )
        ]
    if kind == "schema":
        return check_schema_file(path, where, app.root)
    return []


def check_schema_file(path: Path, where: Where, root: Path | None = None) -> list[Diagnostic]:
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
        schema = numbers.loads(text)  # 5,000 digits: a JSONDecodeError at its line
    except json.JSONDecodeError as exc:
        return [
            Diagnostic(
                "error",
                f"schema is not valid JSON: {exc}",
                Where(path, exc.lineno),
                "fix the JSON syntax",
            )
        ]
    except RecursionError:
        return [Diagnostic("error", "schema is nested too deeply to read", Where(path))]
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
    except RecursionError:
        return [Diagnostic("error", "schema is nested too deeply to check", Where(path))]
    return [
        Diagnostic("error", problem, Where(path), "copy what it refers to into the APP and "
                   "refer to it by a path relative to this schema (or #/$defs/...)")
        for problem in ref_problems(schema, path, root or path.parent)
    ]  # fmt: skip


def _refs(node: Any, depth: int = 0) -> Iterator[str]:
    if depth > 200:
        return
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in node.values():
            yield from _refs(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value, depth + 1)


def ref_problems(schema: Any, path: Path, root: Path) -> list[str]:
    """Why a schema's ``$ref``s leave the APP: a URL (no network, ever), an absolute file, or a
    relative file outside the APP or missing."""
    problems: list[str] = []
    for ref in dict.fromkeys(_refs(schema)):
        target = ref.split("#", 1)[0]
        if not target:
            continue  # "#/$defs/x": inside this schema
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("/"):
            problems.append(f"schema $ref {ref!r} is not a file inside the APP (never fetched)")
            continue
        file = path.parent / target
        if not inside(file, root):
            problems.append(f"schema $ref {ref!r} is outside the APP{_via_link(file)}")
        elif not file.is_file():
            problems.append(f"schema $ref {ref!r}: file not found")
    return problems


def local_registry(schema_file: Path, root: Path) -> Any:
    """A ``referencing`` registry that resolves a schema's relative ``$ref``s to JSON files
    inside ``root`` and refuses everything else (URLs, files elsewhere): nothing is fetched."""
    from referencing import Registry, Resource

    def retrieve(uri: str) -> Resource:
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", uri) or uri.startswith("/"):
            raise LookupError(f"{uri!r} is not a file inside the APP: app-run fetches nothing")
        file = real(schema_file.parent / uri)
        if not inside(file, root) or not file.is_file():
            raise LookupError(f"{uri!r} is not a file inside the APP")
        return Resource.from_contents(json.loads(file.read_text(encoding="utf-8")))

    return Registry(retrieve=retrieve)  # type: ignore[call-arg]


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
    script = _script_position(words)
    for pos, word in enumerate(words):
        role = "program" if pos == 0 else "script" if pos == script else "argument"
        problem = _path_problem(app, doc, word, role, key)
        if problem is not None:
            found.append(Diagnostic("error", problem[0], where, problem[1]))
    return found


def _script_position(words: list[str]) -> int:
    """Where the script an interpreter runs is among ``words`` (-1: not an interpreter, or
    its code is inline: ``python3 -c ...``)."""
    if not INTERPRETER.match(Path(words[0]).name):
        return -1
    for pos, word in enumerate(words[1:], 1):
        if word in NO_SCRIPT:
            return -1
        if word == "run" and Path(words[0]).name in ("deno", "bun") and pos == 1:
            continue
        if not word.startswith("-"):
            return pos
    return -1


def _path_problem(
    app: App, doc: Document, word: str, role: str, key: str
) -> tuple[str, str] | None:
    """(what, fix) when ``word`` of a command names a path that leaves the APP or a script
    that is not there.  ``role``: the ``program``, the ``script`` an interpreter runs (with
    or without an extension), or another ``argument`` (checked when it is a relative path)."""
    scriptish = word.lower().endswith(SCRIPT_EXTENSIONS)
    relevant = role == "script" or "/" in word or scriptish
    if not relevant or word.startswith("-") or "://" in word or any(c.isspace() for c in word):
        return None  # a flag, a URL, or `bash -c "cd x && python3 y.py"`: not a path
    if Path(word).is_absolute():
        return None  # the system's own, named in full (/usr/bin/env, /opt/tools/x.py)
    path = doc.path.parent / word
    if not inside(path, app.root):
        what = "path" if role == "argument" and not scriptish else "script"
        return (
            f"{key} {what} {word!r} is outside the APP{_via_link(path)}",
            "keep step scripts inside the APP folder",
        )
    if (role != "argument" or scriptish) and not path.is_file():
        rel = relative(path, app.root)
        return f"{key} script {word!r} not found", f"create {rel} or fix the path"
    return None


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
