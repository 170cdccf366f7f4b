"""A JSON or YAML answer wrapped the way models and agents write one.

Models and host agents fence an answer by habit: "Here is the plan:" then ```` ```json ````,
the document, and a closing fence on its own line or right after the last brace (``}```).
``unfenced`` gives the document inside; an answer that is JSON already is left as it is
(its strings may hold fences of their own).
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"(?m)^[ \t]*```[\w+-]*[ \t]*\n")


def unfenced(text: str) -> str:
    """The body of the fenced block in ``text`` (from the first opening fence at the start of
    a line to the last fence), else ``text``; stripped of surrounding whitespace."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        return stripped
    opening = _OPEN.search(stripped)
    if opening is None:
        return stripped
    closing = stripped.rfind("```")
    end = closing if closing >= opening.end() else len(stripped)  # unclosed: to the end
    return stripped[opening.end() : end].strip()
