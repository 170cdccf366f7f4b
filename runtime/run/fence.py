"""A JSON or YAML answer wrapped the way models and agents write one.

Models and host agents fence an answer by habit: "Here is the plan:" then ```` ```json ````,
the document, and a closing fence on its own line or right after the last brace (``}```);
some add a usage block after it, and a plan's own strings may hold fences.  ``candidates``
lists what to try, in order: the text as it is (an unfenced document: its strings may hold
fences of their own), then the body of its first fenced block closed at each later fence in
turn, then that body to the end (an answer cut off).  The first that reads is the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

_OPEN = re.compile(r"(?m)^[ \t]*```[\w+-]*[ \t]*\n")
MAX_CLOSINGS = 20  # later fences tried as the closing one: bounded work on any answer

T = TypeVar("T")


def candidates(text: str) -> list[str]:
    """What ``text`` may hold as its document, in the order to try (the module doc)."""
    stripped = text.strip()
    found = [stripped]
    opening = _OPEN.search(stripped)
    if opening is None:
        return found
    start = at = opening.end()
    for _ in range(MAX_CLOSINGS):
        at = stripped.find("```", at)
        if at < 0:
            break
        found.append(stripped[start:at].strip())
        at += 3
    found.append(stripped[start:].strip())
    return list(dict.fromkeys(found))


def read_answer(text: str, parse: Callable[[str], T]) -> T:
    """``parse`` of the first of ``candidates`` it reads; else what it raised reading the
    likeliest one (the first fenced body, or the text when it has no fence)."""
    tried = candidates(text)
    failures: list[Exception] = []
    for candidate in tried:
        try:
            return parse(candidate)
        except (ValueError, RecursionError) as exc:
            failures.append(exc)
    raise failures[1 if len(failures) > 1 else 0]


def unfenced(text: str) -> str:
    """The likeliest document in ``text``: its first fenced body, else the text (for a reader
    that cannot try each candidate)."""
    tried = candidates(text)
    return tried[1] if len(tried) > 1 else tried[0]
