"""What an input's name says it holds, and a pipeline's inputs as JSON Schema.

An APP declares only a type for each input (spec v0.4: ``name: type``, ``type?`` optional).
The name says more: a file or a folder (``path``, ``logfile``, ``out_dir``), a URL, an e-mail
address, a domain, free text (``report``, ``query``).  ``extraction`` reads values by it;
``input_schema`` describes the inputs to a caller (`route --json`, ``needs_input``).  Kept
apart from ``extraction`` so that `app-run route` does not compile its request patterns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

URL_NAME = re.compile(r"url|link|href|endpoint", re.I)
EMAIL_NAME = re.compile(r"e_?mail", re.I)
HOST_NAME = re.compile(r"domain|host|site|fqdn", re.I)
HANDLE_NAME = re.compile(r"handle", re.I)
FILE_WORDS = {"path", "file", "filename", "filepath", "pathname", "fname"}
DIR_WORDS = {"dir", "dirname", "dirpath", "directory", "folder", "workdir"}
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
OPTIONAL = "?"


def words(name: str) -> list[str]:
    """``logFile_path`` -> ``["log", "file", "path"]``."""
    return re.split(r"[_\-\s]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower())


def kind(name: str) -> str:
    """What an input's name says its value is: ``file``, ``dir`` or ``any`` (text)."""
    said = words(name)
    if any(w in DIR_WORDS for w in said):
        return "dir"
    if any(w in FILE_WORDS or (w.endswith(("file", "path")) and w != "profile") for w in said):
        return "file"
    return "any"


def shaped(name: str) -> bool:
    """Named like a file, a folder, a URL, an e-mail address, a host or a handle."""
    shapes = (URL_NAME, EMAIL_NAME, HOST_NAME, HANDLE_NAME)
    return kind(name) != "any" or any(p.search(name) for p in shapes)


def free_text_name(name: str) -> bool:
    return any(w in FREE_TEXT_WORDS for w in words(name))


def describe(name: str, type_: str) -> str:
    """What an input's name says it holds (its declaration has no description)."""
    if type_.removesuffix(OPTIONAL) != "string":
        return ""
    found = kind(name)
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


def input_schema(declared: dict[str, str], names: Iterable[str] | None = None) -> dict[str, Any]:
    """``declared`` (or its ``names``) as a JSON Schema object: each input's type, what its
    name suggests as the description, and null as the default of an optional one (``string?``).
    There are no enums to list: an APP declares none."""
    chosen = list(declared) if names is None else [n for n in names if n in declared]
    properties: dict[str, Any] = {}
    for name in chosen:
        type_ = declared[name]
        base = type_.removesuffix(OPTIONAL)
        prop: dict[str, Any] = {"type": JSON_TYPES.get(base, "string")}
        said = describe(name, type_)
        if said:
            prop["description"] = said
        if type_.endswith(OPTIONAL):
            prop["type"] = [prop["type"], "null"]
            prop["default"] = None
        properties[name] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": [n for n in chosen if not declared[n].endswith(OPTIONAL)],
        "additionalProperties": False,
    }
