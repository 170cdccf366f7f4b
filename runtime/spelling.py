""" "Did you mean": the known name closest to a mistyped one.  Imports nothing from the package,
so every command (app-run, app-new, app-convert) and the checker can use it.

Close means difflib's similarity ratio of at least 0.75, case aside: ``inputs`` is close to
``input``, ``textkt`` to ``textkit``, ``chek`` to ``check``; ``tags`` is not close to ``steps``,
nor ``required_scope`` to anything a pipeline.yaml has.
"""

from __future__ import annotations

from collections.abc import Iterable

CUTOFF = 0.75


def closest(word: str, known: Iterable[str]) -> str | None:
    """The one name of ``known`` closest to ``word`` (None: none is close, or ``word`` is one)."""
    import difflib  # not at start-up: only a mistake needs it

    names = {name.lower(): name for name in known}
    if word.lower() in names:
        return None
    found = difflib.get_close_matches(word.lower(), list(names), n=1, cutoff=CUTOFF)
    return names[found[0]] if found else None


def did_you_mean(word: str, known: Iterable[str], *, what: str = "") -> str:
    """``did you mean 'input'?`` (``what`` before the name: ``did you mean the folder 'x'?``),
    or an empty string when no name is close."""
    found = closest(word, known)
    if found is None:
        return ""
    return f"did you mean {what + ' ' if what else ''}{found!r}?"
