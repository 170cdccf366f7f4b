"""A shell script's first question to the user on the terminal (``terminal_prompt``)."""

from __future__ import annotations

import re

# `read -r name` / `read -p "Bug title: " title` on a line of its own: a question the user
# answers on the terminal.  Not `read -r x < file`, `read ... <<< "$text"` nor `read -u 3`:
# those read data.  An option's value never starts with "-" (no backtracking between them).
_PROMPT_READ = re.compile(
    r"""^\s*(?:\w+=\S*\s+)*read\s+(?:-[a-zA-Z]+(?:\s+(?:"[^"]*"|'[^']*'|(?!-)\S+))?\s+)*"""
    r"(?:[A-Za-z_]\w*(?:\s+\w+)*)?\s*(?:[;#]|$)"
)
# `read -p "Title: " t`, `read -n 1 -s -r -p "Press any key"`: a question, whatever else.
_ASKS = re.compile(r"^\s*(?:\w+=\S*\s+)*read\b[^<|]*\s-[a-zA-Z]*p\b")
_FD = re.compile(r"\s-\w*u\s*\S")  # `read -r -u 3 line`, `-u "$fd"`: a file descriptor
# A loop or block fed from a file or a pipe (`done < "$1"`, `} < list`, `cat list | while`,
# `done < <(cmd)`): the reads inside it read that data.
_OPENS = re.compile(r"^\s*(?:(?:while|until|for)\b.*|.*\|\s*while\b.*)$|^\s*\{\s*$")
_CLOSES = re.compile(r"^\s*(?:done|\})(.*)$")
_TTY_CHECK = re.compile(r"(?:\[\[?|\btest)\s*(?:!\s*)?-t\s+0\b|\bisatty\b")  # asks only with one
MAX_PROMPT_LINE = 500


def terminal_prompt(source: str) -> int:
    """The line (1-based) of a shell script's first question to the user on the terminal, 0
    when it asks none, checks whether it has a terminal first (``[ -t 0 ]``), or may be
    reading data a loop or block is fed; a `read -p` question counts whatever else the
    script does.  A pipeline step gets no terminal, so such a script stops at its first
    question (qa-test-planner's generators, round 19)."""
    if _TTY_CHECK.search(source):
        return 0
    lines = source.splitlines()
    fed = _fed_lines(lines)
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_PROMPT_LINE or not (_PROMPT_READ.match(line) or _ASKS.match(line)):
            continue
        if "<" in line or _FD.search(line):
            continue
        if _ASKS.match(line) or number not in fed:
            return number
    return 0


def _fed_lines(lines: list[str]) -> set[int]:
    """The lines (1-based) inside a loop or block whose data comes from a file or a pipe."""
    fed: set[int] = set()
    opened: list[tuple[int, bool]] = []  # (first line, piped into: `cat x | while`)
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_PROMPT_LINE:
            continue
        closes = _CLOSES.match(line)
        if closes and opened:
            first, piped = opened.pop()
            if piped or "<" in closes.group(1):
                fed |= set(range(first, number + 1))
        elif _OPENS.match(line) and not re.search(r"\bdone\b", line):
            opened.append((number, bool(re.search(r"\|\s*while\b", line))))
    return fed
