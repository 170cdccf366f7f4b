"""Exit statuses a Node program's code gives as its answer, not as a failure.

A validator ends ``if (failed === 0) { console.log('All checks passed') } else {
console.log(`Fix the ${failed} issue(s)`); process.exit(1); }`` (epic-design's
validate-layers.js): its exit 1 is what it found, and a step taking it for a crash fails
exactly when the program did its job.  Read line by line, like a shell script's
(``verdicts.shell_verdicts``): a status is an answer when the ``if`` whose branch gives it
(or whose ``else`` does) tests what the checks found (``failed``, ``errors.length``,
``issues``: ``verdicts``' words), not the program's arguments, a step's or a response's
``ok`` or a file being there, the branch says nothing on stderr and throws nothing
(``console.error`` with a usage line is a failure), and nothing but the rest of its report
follows (a check before the work, however worded, stops the program: a failure); or it is
the non-zero side of a conditional status (``process.exit(errors.length ? 1 : 0)``).
"""

from __future__ import annotations

import re

from skill2app.converter.inventory.programs.verdicts import ends_program, says_verdict

_EXIT = re.compile(r"\bprocess\.(?:exit\(\s*|exitCode\s*=\s*)([0-9]{1,3})\s*[);]")
_CONDITIONAL = re.compile(
    r"\bprocess\.(?:exit\(|exitCode\s*=)\s*([^;?()]{1,120}?)\s*\?\s*([0-9]{1,3})\s*:\s*([0-9]{1,3})"
)
_IF = re.compile(r"^\s*(?:\}\s*)?(?:else\s+)?if\s*\((.{1,300}?)\)\s*(?:\{|process\b|$)")
_ELSE = re.compile(r"^\s*\}?\s*else\s*\{?\s*$")
_FAILURE = re.compile(r"\bconsole\.error\b|\bthrow\b|\b[Uu]sage\b")
_OPERATION = re.compile(  # a step's or a response's outcome (`!stageA.ok`), the arguments
    r"\.\s*(?:ok|success|status)\b|\b(?:res|resp|response|result|reply)\.errors?\b"
    r"|\b(?:argv|args|opts|options)\b|existsSync|\berr\b"
)
# What may follow a verdict's exit: the rest of its report, closing braces, `exit(0)`
_LAST_WORDS = re.compile(
    r"^\s*(?:[})\];]+|//.*|/?\*.*|console\.log\(.*|process\.exit\(\s*0\s*\);?|"
    r"(?:await\s+)?main\(.*|)\s*$"
)
MAX_LINE = 400
MAX_BRANCH = 12  # lines between the `if` and the exit


def node_verdicts(source: str) -> dict[int, str]:
    """Status -> the test of what the program found that gives it (the module's doc)."""
    found: dict[int, str] = {}
    lines = source.splitlines()
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE:
            continue
        for match in _CONDITIONAL.finditer(line):
            test, statuses = match.group(1), (int(match.group(2)), int(match.group(3)))
            if 0 in statuses and _verdict(test):
                for status in statuses:
                    if 0 < status < 256:
                        found.setdefault(status, f"the program's verdict: {test.strip()[:60]}")
        exited = _EXIT.search(line)
        if exited is None or not 0 < int(exited.group(1)) < 256:
            continue
        test = _branch_test(lines, index)
        if test is not None and _verdict(test) and ends_program(lines, index, _LAST_WORDS):
            found.setdefault(int(exited.group(1)), f"the program's verdict: {test.strip()[:60]}")
    return found


def _branch_test(lines: list[str], index: int) -> str | None:
    """The test of the ``if`` whose branch (or ``else``) holds line ``index``; None when the
    branch fails aloud, or no plain ``if`` is close above."""
    same = _IF.match(lines[index])
    if same:  # `if (failed) process.exit(1);`, not `if (!user) { console.error(...); ...`
        return None if _FAILURE.search(lines[index]) else same.group(1)
    in_else = False
    for at in range(index - 1, max(-1, index - MAX_BRANCH), -1):
        above = lines[at]
        if len(above) > MAX_LINE or _FAILURE.search(above):
            return None
        opened = _IF.match(above)
        if opened and not in_else:
            return opened.group(1)
        if _ELSE.match(above):
            in_else = True  # the test is the `if`'s above its branch
            continue
        if in_else and opened:
            return opened.group(1)
        if not in_else and re.search(r"[{}]\s*$", above):
            return None  # another block starts or ends: not this branch's first line
    return None


def _verdict(test: str) -> bool:
    return says_verdict(test) and not _OPERATION.search(test)
