"""Prompt templates of llm steps (spec 4.2): ``{{step.output}}``, ``{{step.output.field}}``,
``{{input.param}}`` (and ``{{input}}`` for all inputs).

Rendering is one pass of substitution over the template text: a substituted value is data and
is never read again as template syntax, so an input containing ``{{...}}`` stays literal.
Strings are inserted as they are; every other value is JSON (indented, non-ASCII kept).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from skill2app.runtime.errors import TemplateError

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
SEGMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$|^[0-9]+$")


@dataclass(frozen=True)
class Reference:
    text: str  # as written, e.g. "fetch_diff.output.files"
    root: str  # "input" or a step name
    path: tuple[str, ...]  # segments after "input" / after "<step>.output"
    offset: int  # character offset in the template

    @property
    def is_input(self) -> bool:
        return self.root == "input"


class BadReference(ValueError):
    def __init__(self, text: str, offset: int, why: str) -> None:
        super().__init__(why)
        self.text = text
        self.offset = offset


def parse_reference(text: str, offset: int = 0) -> Reference:
    parts = text.split(".")
    if not all(SEGMENT.match(p) for p in parts):
        raise BadReference(text, offset, f"{{{{{text}}}}} is not a reference")
    if parts[0] == "input":
        return Reference(text, "input", tuple(parts[1:]), offset)
    if len(parts) < 2 or parts[1] != "output":
        raise BadReference(
            text, offset, f"{{{{{text}}}}} must be {{{{input.<name>}}}} or {{{{<step>.output}}}}"
        )
    return Reference(text, parts[0], tuple(parts[2:]), offset)


def references(template: str) -> list[Reference | BadReference]:
    """Every placeholder in ``template``, parsed; malformed ones as BadReference values."""
    found: list[Reference | BadReference] = []
    for match in PLACEHOLDER.finditer(template):
        try:
            found.append(parse_reference(match.group(1), match.start()))
        except BadReference as bad:
            found.append(bad)
    return found


def line_of_offset(template: str, offset: int) -> int:
    """0-based line inside the template text."""
    return template.count("\n", 0, offset)


def render(template: str, inputs: dict[str, Any], steps: dict[str, Any], step: str = "") -> str:
    """Substitute every placeholder; ``steps`` maps step name -> that step's output."""

    def substitute(match: re.Match[str]) -> str:
        try:
            ref = parse_reference(match.group(1))
        except BadReference as bad:
            raise TemplateError(str(bad), step=step) from None
        if ref.is_input:
            value: Any = inputs
        elif ref.root in steps:
            value = steps[ref.root]
        else:
            raise TemplateError(
                f"prompt refers to {{{{{ref.text}}}}} but step {ref.root!r} has not run",
                step=step,
            )
        return to_text(resolve(value, ref, step))

    return PLACEHOLDER.sub(substitute, template)


def resolve(value: Any, ref: Reference, step: str = "") -> Any:
    for i, key in enumerate(ref.path):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            walked = ".".join((ref.root, *(("output",) if not ref.is_input else ()), *ref.path[:i]))
            raise TemplateError(
                f"prompt refers to {{{{{ref.text}}}}} but {walked} has no {key!r}",
                step=step,
            )
    return value


def to_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2)
