"""Integers too long for Python: more than 4,300 decimal digits (``sys.get_int_max_str_digits``,
the guard against quadratic conversions of CVE-2020-10735).

``int()`` refuses to read one with a bare ValueError, raised from inside the JSON and YAML
parsers, and one made another way (YAML's ``0x…``) cannot be printed.  ``loads`` turns the
first into JSON's own syntax error at the number's place, so every reader of a user's JSON
(``--input-json``, a step's stdout, an answer) says it as the one line it gives any broken
JSON; ``document`` does the same for YAML with ``too_long``.  Imports nothing from the package.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from typing import Any

HINT = "quote it to keep it as text, or use a smaller number"
# JSON strings (skipped: their digits are text) and numbers, in the order they come
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?')


def digit_limit() -> int:
    """The most decimal digits an int may have to be read or printed (0: no limit)."""
    return sys.get_int_max_str_digits()


def described() -> str:
    """What is wrong with such a number, in words: "an integer of more than 4,300 digits"."""
    return f"an integer of more than {digit_limit():,} digits"


@functools.lru_cache(maxsize=4)
def _bound(limit: int) -> int:
    return 10**limit


def too_long(value: Any) -> bool:
    """Whether ``value`` is an int with more decimal digits than Python reads or prints."""
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    limit = digit_limit()
    return bool(limit) and abs(value) >= _bound(limit)


def loads(text: str, **hooks: Any) -> Any:
    """``json.loads(text, **hooks)``; an integer too long to read is a ``JSONDecodeError`` at
    its place (``msg``: "an integer of more than 4,300 digits"), like any syntax error."""
    try:
        return json.loads(text, **hooks)
    except json.JSONDecodeError:
        raise
    except ValueError:
        at = _long_integer_at(text)
        if at is None:
            raise
        raise json.JSONDecodeError(described(), text, at) from None


def _long_integer_at(text: str) -> int | None:
    """Where the first integer too long to read starts in JSON ``text`` (valid up to it)."""
    limit = digit_limit()
    for match in _TOKENS.finditer(text):
        token = match.group()
        digits = token.removeprefix("-")
        if limit and token[0] != '"' and digits.isdigit() and len(digits) > limit:
            return match.start()
    return None
