"""What an input's name says it holds, and a pipeline's inputs as JSON Schema for a caller.

An APP declares each input's type (spec v0.4: ``name: type``, ``type?`` optional), or in the
long form (app-run extension) its description, enum and default too (``run.inputs``).  The
name often says more: a file or a folder (``run.inputs.path_kind``), a URL, an e-mail address,
a domain, free text (``report``, ``query``).  ``extraction`` reads values by it;
``input_schema`` describes the inputs to a caller (`route --json` candidates, ``needs_input``):
``run.inputs.input_schema``, with what the name suggests where no description was written.
Kept apart from ``extraction`` so that `app-run route` does not compile its request patterns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from skill2app.runtime.run.inputs import base_type, declaration, path_kind
from skill2app.runtime.run.inputs import input_schema as declared_schema

URL_NAME = re.compile(r"url|link|href|endpoint", re.I)
EMAIL_NAME = re.compile(r"e_?mail", re.I)
HOST_NAME = re.compile(r"domain|host|site|fqdn", re.I)
HANDLE_NAME = re.compile(r"handle", re.I)
FREE_TEXT_WORDS = frozenset(
    """text texts report reports message messages query queries question questions
    description descriptions content contents prompt prompts note notes body comment comments
    feedback request issue summary""".split()
)
JSON_TYPES = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}


def words(name: str) -> list[str]:
    """``logFile_path`` -> ``["log", "file", "path"]``."""
    return re.split(r"[_\-\s]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower())


def shaped(name: str) -> bool:
    """Named like a file, a folder, a URL, an e-mail address, a host or a handle."""
    shapes = (URL_NAME, EMAIL_NAME, HOST_NAME, HANDLE_NAME)
    return path_kind(name) != "any" or any(p.search(name) for p in shapes)


def free_text_name(name: str) -> bool:
    return any(w in FREE_TEXT_WORDS for w in words(name))


def describe(name: str, type_: str) -> str:
    """What an input's name says it holds (for one declared without a description)."""
    if base_type(type_) != "string":
        return ""
    found = path_kind(name)
    if found == "file":
        return "path of a file (absolute, or relative to where app-run is started)"
    if found == "dir":
        return "path of a folder (absolute, or relative to where app-run is started)"
    for pattern, what in (
        (URL_NAME, "a URL"),
        (EMAIL_NAME, "an e-mail address"),
        (HOST_NAME, "a domain name"),
        (HANDLE_NAME, "a handle"),
    ):
        if pattern.search(name):
            return what
    return "free text" if free_text_name(name) else ""


def input_schema(
    declared: dict[str, str],
    info: dict[str, dict[str, Any]] | None = None,
    names: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The JSON Schema of ``declared`` (or of its ``names``): each input's type, description,
    enum and default as declared (``run.inputs.input_schema``), and what its name suggests as
    the description of one declared without."""
    chosen = list(declared) if names is None else [n for n in names if n in declared]
    info = info or {}
    schema = declared_schema(
        {n: declared[n] for n in chosen}, {n: info[n] for n in chosen if n in info}
    )
    for name, prop in schema["properties"].items():
        said = "description" not in prop and describe(name, declared[name])
        if said:
            prop["description"] = said
    return schema


def row_declaration(raw: Any) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """A routing-table row's ``input`` (short or long form, as written) as (types, info); a
    value that is neither is taken as a string (check reports it)."""
    if not isinstance(raw, dict):
        return {}, {}
    usable = {
        k: v for k, v in raw.items() if isinstance(v, str) or (isinstance(v, dict) and "type" in v)
    }
    types, info = declaration(usable)
    types |= {str(k): "string" for k in raw if k not in usable}
    return types, info
