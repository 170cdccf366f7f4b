"""Text that generated files can hold safely: Python literals that fit the line width (or say
``# noqa: E501``), YAML literal blocks only where they read back exactly, one-line strings;
and the literals a generated file holds, read back as written (``read_literal``)."""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from typing import Any

MAX_WIDTH = 100

_PRINTABLE = re.compile(r"[^\x09\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def yaml_block(text: str) -> tuple[bool, str]:
    """Whether ``text`` can be a YAML literal block scalar, and its chomping indicator."""
    body = text.rstrip("\n")
    trailing = len(text) - len(body)
    lines = body.split("\n")
    ok = (
        "\n" in body
        and trailing <= 1
        and not body[:1].isspace()
        and "\t" not in body
        and "\r" not in body
        and not _PRINTABLE.search(body.replace("\n", ""))
        and all(line.strip() or not line for line in lines)
        and not any(c in body for c in "\x85\u2028\u2029\ufeff")
    )
    return ok, "" if trailing == 1 else "-"


def one_line(text: str) -> str:
    """``text`` on one line: control and unprintable characters become spaces, runs of
    whitespace one space."""
    return " ".join(_PRINTABLE.sub(" ", text).split())


def py_literal(value: Any, *, prefix: str = "", indent: int = 0) -> str:
    """``value`` as Python source, one item a line when it does not fit; a line still longer
    than MAX_WIDTH (a long string) gets ``# noqa: E501``."""
    text = prefix + _literal(value, indent + len(prefix), indent)
    lines = [
        f"{line}  # noqa: E501" if width(line) > MAX_WIDTH else line for line in text.split("\n")
    ]
    return "\n".join(lines)[len(prefix) :]


def _literal(value: Any, column: int, indent: int) -> str:
    flat = _flat(value)
    if not isinstance(value, dict | list) or not value or column + width(flat) + 1 <= MAX_WIDTH:
        return flat
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        items = [
            f"{pad}{_flat(k)}: {_literal(v, len(pad) + len(_flat(k)) + 2, indent + 4)},"
            for k, v in value.items()
        ]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{_literal(v, len(pad), indent + 4)}," for v in value]
    return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"


def width(text: str) -> int:
    """Columns ``text`` takes in an editor (and for ruff): wide CJK characters count two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _flat(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flat(k)}: {_flat(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flat(v) for v in value) + "]"
    return repr(value)  # bool, None, int, float


def read_spec(source: str) -> dict[str, Any] | None:
    """The ``SPEC = {...}`` literal of a generated adapter, as written."""
    value = read_literal(source, "SPEC")
    return value if isinstance(value, dict) else None


def read_literal(source: str, name: str) -> Any:
    """The literal a generated file assigns to ``name`` at its top level (None: none)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    return None
