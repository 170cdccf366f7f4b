"""Exit statuses a shell script gives as its answer, not as a failure.

A shell script says its verdict on stdout right before the status (dependency-updater's
check-tool.sh: ``echo "MISSING: $TOOL_NAME is not installed"`` ... ``exit 1``): a status
whose branch prints a verdict word on stdout (``MISSING``, ``FAIL``, ``OUTDATED``, ``DRIFT``;
other output after it, a loop or an ``if ... fi`` inside it aside) is the answer; one after
``ERROR:``, a usage line or text sent to stderr stays a failure (``shell_verdicts``).
A status after a branch taken on a count of what the checks found (``if [ "$FAIL" -gt 0 ]``)
is one too when it is the script's last word (``ends_program``) and the count is of findings,
not of commands that failed (``cmd || FAILED=1``, ``trap ... ERR``).  Python programs:
``verdicts.py``; Node ones: ``node_exits.py``.
"""

from __future__ import annotations

import re

# A verdict a shell script prints as the first word of a line on stdout.
_SHELL_VERDICT = re.compile(  # one way to match each space: linear on a line of spaces
    r"""^\s*(?:echo|printf)\s+(?:-e\s+)?(?:["']\s*)?(?:[✗✘❌\u2600-\u27bf\U0001f300-\U0001faff]\ufe0f?\s*)?"""
    r"(MISSING|FAIL(?:ED|URE)?|NG|NOT[ _]OK|NOT[ _]READY|DRIFT|DIRTY|OUTDATED|STALE|CHANGED|"
    r"UNHEALTHY|VIOLATIONS?|FOUND)\b"
)
_SHELL_EXIT = re.compile(r"^\s*exit\s+([0-9]{1,3})\s*(?:[;#]|$)")
# A branch taken on a count of what the checks found: `if [ "$FAIL" -gt 0 ] || ...; then`
_SHELL_COUNTED = re.compile(
    r"""^\s*(?:el)?if\s+(?:\[\[?|test)\s+"?\$\{?((?:(?:TOTAL|NUM|CHECKS?|LINT|AUDIT|TESTS?)_)?"""
    r"""(?:FAIL(?:S|ED|URES?)?|ERRORS?|ISSUES?|WARN(?:S|INGS?)?|PROBLEMS?|VIOLATIONS?|DRIFT|"""
    r"""FINDINGS?)(?:_COUNT)?)\}?"?\s+-(?:(?:gt|ne)\s+"?0|ge\s+"?1)\b""",
    re.I,
)
# Where a branch starts: nothing above it in the script belongs to it.
_SHELL_BRANCH = re.compile(
    r"^\s*(?:if|elif|else|then|fi|case|esac|for|while|until|do|done|function)\b|\)\s*$|[{}]\s*$"
)
# A message before the exit that says the program failed: the status is a failure's.
_SHELL_FAILED = re.compile(r"^\s*(?:echo|printf)\s.*?(?:\b(?:ERROR|Error|error|Usage|usage)\b)")
_LOOP_END = re.compile(r"^\s*done\b")
_IF_END = re.compile(r"^\s*fi\b")
_IF_START = re.compile(r"^\s*if\b")
_ONE_LINE = re.compile(r"\bdo\b.*\bdone\b|\bthen\b.*\bfi\b")  # a loop or test on one line
_LOOP_START = re.compile(r"^\s*(?:for|while|until)\b|\|\s*while\b")
MAX_SHELL_LINE = 500
_STDERR = re.compile(r">&\s*2|>\s*/dev/stderr")


def _counts_failures(source: str, name: str) -> bool:
    """Whether a counter is kept of commands that failed, not of checks' findings: set after
    ``||`` (``npm run build || BUILD_FAILED=1``, ``curl … || FAILED=$((FAILED+1))``) or in a
    ``trap … ERR``."""
    spelled = re.escape(name)
    return bool(
        re.search(rf"\|\|\s*(?:\(\(\s*)?{spelled}\b", source)
        or re.search(rf"\btrap\b[^\n]*\b{spelled}\b[^\n]*\bERR\b", source)
    )


# What may follow a verdict's exit at the end of a script: its branch's end, `exit 0`, words
_SHELL_LAST_WORDS = re.compile(r"fi|done|\}|exit\s+0|echo\b.*|printf\b.*|#.*|")
MAX_AFTER = 40  # lines after the exit read to see that the program ends there


def ends_program(lines: list[str], index: int, last_words: re.Pattern[str]) -> bool:
    """Whether nothing but ``last_words`` (its report's end, closing words, a 0 status; each
    line whole, stripped) follows line ``index``: the status is the program's last word, not
    a check before its work (a preflight that stops a migration)."""
    if len(lines) - index - 1 > MAX_AFTER:  # before any copy: a script of many exits
        return False
    rest = lines[index + 1 :]
    return all(len(line) <= MAX_SHELL_LINE and last_words.fullmatch(line.strip()) for line in rest)


def shell_verdicts(source: str) -> dict[int, str]:
    """Status -> the verdict line a shell script prints before it (the module's doc)."""
    found: dict[int, str] = {}
    lines = source.splitlines()
    for index, line in enumerate(lines):
        status = _SHELL_EXIT.match(line)
        if status is None or not 0 < int(status.group(1)) < 256:
            continue
        ifs = loops = 0  # an `if ... fi` or a loop inside the branch: stepped over
        for above in reversed(lines[max(0, index - 12) : index]):
            if len(above) > MAX_SHELL_LINE:
                break
            if _ONE_LINE.search(above):
                continue  # a statement of the branch
            if _IF_END.match(above):
                ifs += 1
                continue
            if _LOOP_END.match(above):
                loops += 1
                continue
            if ifs or loops:
                ifs -= ifs > 0 and bool(_IF_START.match(above))
                loops -= loops > 0 and bool(_LOOP_START.search(above))
                continue
            if _SHELL_VERDICT.match(above) and not _STDERR.search(above):
                found.setdefault(int(status.group(1)), above.strip()[:120])
                break
            counted = _SHELL_COUNTED.match(above)  # `if [ "$FAIL" -gt 0 ]`: what it found,
            if counted:  # at its end (a preflight stops it), not what failed to run
                if ends_program(lines, index, _SHELL_LAST_WORDS) and not _counts_failures(
                    source, counted.group(1)
                ):
                    found.setdefault(int(status.group(1)), above.strip()[:120])
                break
            if _SHELL_BRANCH.search(above) or _STDERR.search(above) or _SHELL_FAILED.match(above):
                break  # the branch starts, or the program says it failed
    return found
