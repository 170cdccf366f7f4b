"""Exit statuses a Node program's code gives as its answer, not as a failure.

A validator ends ``if (failed === 0) { console.log('All checks passed') } else {
console.log(`Fix the ${failed} issue(s)`); process.exit(1); }`` (epic-design's
validate-layers.js): its exit 1 is what it found, and a step taking it for a crash fails
exactly when the program did its job.  A false verdict is worse (a real failure would pass
as an answer), so the rule is narrow.  Read from the code (comments and templates blanked),
a status is an answer when

- its ``if`` (or the ``if`` of its ``else``) is at the program's top level and nothing but
  the rest of its report follows the exit (a check inside a function, or before the work,
  stops the program: a failure);
- the test names what checks found (``failed``, ``errors.length``, ``issues``:
  ``verdicts``' words) — never ``error``, ``ok`` or ``success`` (``const ok = await
  publish()``: whether an operation worked), nor a count kept in a ``catch`` (``failed++``
  for each download that threw), nor a step's or response's ``.ok``, nor the arguments;
- the branch says nothing on stderr (``console.error``, ``console.warn``,
  ``process.stderr``) and throws nothing;

or it is the non-zero side of such a test's conditional status at the top level, at the
program's end (``process.exit(errors.length ? 1 : 0)``).
"""

from __future__ import annotations

import re
from itertools import islice

from skill2app.converter.inventory.node_needs import CATCH, closing_brace, node_code
from skill2app.converter.inventory.programs.shell_exits import ends_program
from skill2app.converter.inventory.programs.verdicts import says_verdict

_EXIT = re.compile(r"\bprocess\.(?:exit\(\s*|exitCode\s*=\s*)([0-9]{1,3})\s*(?:[);]|$)")
_CONDITIONAL = re.compile(
    r"\bprocess\.(?:exit\(|exitCode\s*=)\s*([^;?()]{1,120}?)\s*\?\s*([0-9]{1,3})\s*:\s*([0-9]{1,3})"
)
_IF = re.compile(r"^\s*(?:\}\s*)?(?:else\s+)?if\s*\((.{1,300}?)\)\s*(?:\{|process\b|$)")
_ELSE = re.compile(r"^\s*\}?\s*else\s*\{\s*$")
_FAILURE = re.compile(
    r"\bconsole\.(?:error|warn)\b|\bprocess\.stderr\b|\bthrow\b|\b[Uu]sage\b|\breject\("
)
_OPERATION = re.compile(  # a step's or a response's outcome (`!stageA.ok`), the arguments
    r"\.\s*(?:ok|success|status)\b|\b(?:argv|args|opts|options)\b|existsSync|\berr(?:or)?\b"
)
# What a call gives that says whether it worked, not what a check found
_OUTCOME = frozenset({"ok", "success", "succeeded", "passed", "result", "done"})
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
# What may follow a verdict's exit: the rest of its report, closing braces, `exit(0)`
_LAST_WORDS = re.compile(
    r"[})\];]+|console\.log\(.*|process\.exit\(\s*0\s*\);?|process\.exitCode\s*=\s*0;?|"
)
MAX_LINE = 400
MAX_BRANCH = 12  # lines between the `if` and the exit
MAX_NAMES = 8


def node_verdicts(source: str) -> dict[int, str]:
    """Status -> the test of what the program found that gives it (the module's doc)."""
    code = node_code(source)
    lines = code.split("\n")
    depths = _depths(lines)
    found: dict[int, str] = {}
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE or not ends_program(lines, index, _LAST_WORDS):
            continue  # first: the last lines only are read further (a file of many exits)
        for match in _CONDITIONAL.finditer(line):
            test, statuses = match.group(1), (int(match.group(2)), int(match.group(3)))
            if depths[index] == 0 and 0 in statuses and _verdict(test, code):
                for status in statuses:
                    if 0 < status < 256:
                        found.setdefault(status, f"the program's verdict: {test.strip()[:60]}")
        exited = _EXIT.search(line)
        if exited is None or not 0 < int(exited.group(1)) < 256:
            continue
        test = _branch_test(lines, depths, index)
        if test is not None and _verdict(test, code):
            found.setdefault(int(exited.group(1)), f"the program's verdict: {test.strip()[:60]}")
    return found


def _depths(lines: list[str]) -> list[int]:
    """The brace depth at the start of each line."""
    depths, depth = [], 0
    for line in lines:
        depths.append(depth)
        depth = max(0, depth + line.count("{") - line.count("}"))
    return depths


def _branch_test(lines: list[str], depths: list[int], index: int) -> str | None:
    """The test of the top-level ``if`` whose branch (or ``else``) holds line ``index``; None
    when the branch fails aloud, the ``if`` is inside another block, or none is close above."""
    same = _IF.match(lines[index])
    if same:  # `if (failed) process.exit(1);` at the top level
        fails = _FAILURE.search(lines[index])
        return None if fails or depths[index] != 0 else same.group(1)
    if depths[index] != 1:
        return None
    for at in range(index - 1, max(-1, index - MAX_BRANCH), -1):
        above = lines[at]
        if len(above) > MAX_LINE or _FAILURE.search(above):
            return None
        if _level(above, depths[at]) != 0:
            continue  # a statement of the branch, or a block inside it
        opened = _IF.match(above)  # `if (x) {` or `} else if (x) {`: this branch's test
        if opened:
            return opened.group(1)
        if not _ELSE.match(above):
            return None  # the branch is no `if`'s
        for before in range(at - 1, max(-1, at - 4 * MAX_BRANCH), -1):  # the branch before
            if _level(lines[before], depths[before]) == 0 and (chain := _IF.match(lines[before])):
                return chain.group(1)
        return None
    return None


def _level(line: str, depth: int) -> int:
    """The depth a line's own code is at: ``} else {`` starts inside the block it closes."""
    closing = re.match(r"[\s}]*", line)
    return depth - (closing.group().count("}") if closing else 0)


def _verdict(test: str, code: str) -> bool:
    """Whether ``test`` names what checks found, not an operation's outcome (the doc)."""
    findings = _NAME.sub(lambda m: "" if m.group().lower() in _OUTCOME else m.group(), test)
    if not says_verdict(findings) or _OPERATION.search(test):
        return False  # `success ? 0 : 1`: whether something worked, however it was given
    for name in list(dict.fromkeys(_NAME.findall(test)))[:MAX_NAMES]:
        if len(name) < 2:
            continue
        given = re.finditer(rf"\b{re.escape(name)}\s*(=(?!=)|\+\+|\+=|--)", code)
        for assigned in islice(given, MAX_NAMES):
            if _in_catch(code, assigned.start()):  # `failed++` for each download that threw
                return False
    return True


def _in_catch(code: str, at: int) -> bool:
    """Whether position ``at`` is inside a ``catch`` block: the nearest ``catch {`` before it
    whose block has not closed by then."""
    opened = None
    for match in CATCH.finditer(code, max(0, at - 4000), at):
        opened = match
    if opened is None:
        return False
    end = closing_brace(code, opened.end() - 1)
    return end < 0 or end > at
