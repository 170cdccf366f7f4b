"""Exit statuses a Python program's code gives as its answer, not as a failure.

A checker often says its verdict with its exit status and documents it nowhere: the
validator of session-handoff ends with ``sys.exit(0 if success else 1)``, its staleness
check with ``if level in FRESH: sys.exit(0) / elif level == "STALE": sys.exit(1) / else:
sys.exit(2)``, design-lint's ``main`` returns ``1 if report["summary"]["errors"] else 0`` to
``sys.exit(main())``.  A step that took those statuses for crashes would fail exactly when
the program did its job (round 11's judge).  Read from the code, such a status is a result
when

- it is one branch of a conditional status whose other branch is 0, given to
  ``sys.exit`` (or returned by a function whose value ``sys.exit`` is given), and its test
  names a check's outcome (``success``, ``valid``, ``errors``: ``if result`` may as well mean
  "it managed to do it") and was not given what an operation returned (``success =
  convert_with_ai(...)`` says whether the conversion worked: markitdown, round 27);
- or it ends one branch of an ``if``/``elif``/``else`` chain whose other branches end with
  ``sys.exit(0)`` and whose tests sort what the program found (``level == "STALE"``, an
  outcome's name), not its arguments (``len(sys.argv) < 2`` is a usage error).

- or it follows what the program prints on stdout as its FAIL verdict (``VALIDATION_FAIL:``
  and the reasons, ``[FAIL]``) in an ``except`` of an error the program defines itself
  (``ValidationError``), in a program that prints its PASS verdict too
  (``_printed_before``).

Anything else — an exit in an ``except``, after a usage message, on a missing file — stays
a failure.
"""

from __future__ import annotations

import ast
import re

from skill2app.converter.inventory.python_needs import caught_names

EXITS = ("sys.exit", "exit", "quit")  # what ends a Python program with a status


def python_verdicts(source: str) -> dict[int, str]:
    """Status -> how the code gives it, for the statuses that are the program's answer."""
    try:
        found = _verdicts(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # deep code: none read
        return {}
    usage = 2 if _PARSES_ARGUMENTS.search(source) else 0  # argparse's own status: bad usage
    return {status: said for status, said in found.items() if 0 < status < 256 and status != usage}


# A program whose parser exits 2 on a bad command line (argparse; gating's mutation tester
# also returns 2 when its gate is red before any mutation): its 2 is no verdict.
_PARSES_ARGUMENTS = re.compile(r"^\s*(?:import argparse|from argparse import)\b", re.M)


def _verdicts(tree: ast.Module) -> dict[int, str]:
    found: dict[int, str] = {}
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    passes = any(  # a checker that prints its PASS verdict too
        _prints_out(node) and _PRINTED_PASS.match(_printed_text(node))  # type: ignore[arg-type]
        for node in ast.walk(tree)
    )
    exited = _exited_functions(tree)
    done = _operation_results(tree)
    elifs = {  # read from the top of their chain
        id(parent.orelse[0])
        for parent in ast.walk(tree)
        if isinstance(parent, ast.If) and len(parent.orelse) == 1
        and isinstance(parent.orelse[0], ast.If)
    }  # fmt: skip
    for node in ast.walk(tree):
        value = None
        if isinstance(node, ast.Call) and ast.unparse(node.func) in EXITS and node.args:
            value = node.args[0]
        elif isinstance(node, ast.FunctionDef) and node.name in exited:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and sub.value is not None:
                    _conditional(sub.value, found, done)
                for block in statement_blocks(sub):
                    _returned(block, found, done)
            continue
        if value is not None:
            _conditional(value, found, done)
        if isinstance(node, ast.If) and id(node) not in elifs:
            _chain(node, found, done)
        for block in statement_blocks(node):
            _exits_before(block, found)
        if passes and isinstance(node, ast.ExceptHandler) and _catches_own(node, own):
            _printed_before(node.body, found)
    return found


def _catches_own(handler: ast.ExceptHandler, own: set[str]) -> bool:
    """Whether an ``except`` catches only exceptions the program defines itself (a
    validator's ``ValidationError``), never a broad or system one (``Exception``,
    ``OSError``: the program broke)."""
    names = caught_names(handler)  # a bare except: BaseException, never the program's
    return bool(names) and names <= own


# What a checker prints on stdout as its verdict, first on the line ("VALIDATION_FAIL:",
# "FAIL", "[FAIL]") — and as the other verdict ("VALIDATION_PASS", "PASS", "OK").
_PRINTED_FAIL = re.compile(r"^\W*(?:[A-Z][A-Z0-9]*_)?(?:FAIL(?:ED|URE)?|NG|NOT_OK)\b")
_PRINTED_PASS = re.compile(r"^\W*(?:[A-Z][A-Z0-9]*_)?(?:PASS(?:ED)?|OK)\b")
_UNREADABLE = re.compile(r"\binvalid\s+(?:json|yaml|toml|xml)\b", re.I)  # its input broke


def _printed_before(block: list[ast.stmt], found: dict[int, str]) -> None:
    """``print('VALIDATION_FAIL:')``, the reasons, then ``sys.exit(1)`` in an ``except`` of
    the program's own error, in a program that also prints ``VALIDATION_PASS``
    (mentat-collaboration-audit's validator, round 45): the status says what the check
    found.  Not when what it prints says the program broke ("VALIDATION_FAIL: file not
    found", "cannot read"), nor on stderr."""
    status = _exit_status(block)
    if not status:
        return
    printed: list[ast.Call] = []
    for statement in reversed(block[:-1]):  # the prints (and loops of prints) right before
        calls = _only_prints(statement)
        if calls is None:
            break
        printed = calls + printed
    said = [text for call in printed if (text := _printed_text(call))]
    if not said or not _PRINTED_FAIL.match(said[0]):
        return
    if any(_BROKE_SAID.search(text) or _UNREADABLE.search(text) for text in said):
        return  # "VALIDATION_FAIL:", then "  cannot read ...": it broke
    found.setdefault(status, f"the program's verdict: prints {said[0][:60]!r}")


def _only_prints(statement: ast.stmt) -> list[ast.Call] | None:
    """The print calls of a statement that only prints (a ``for`` loop of prints too) to
    stdout, in order; None for any other statement."""
    if isinstance(statement, ast.For) and not statement.orelse:
        calls: list[ast.Call] = []
        for inner in statement.body:
            more = _only_prints(inner)
            if more is None:
                return None
            calls += more
        return calls or None
    if isinstance(statement, ast.Expr) and _prints_out(statement.value):
        return [statement.value]  # type: ignore[list-item]  # _prints_out: a call
    return None


def _prints_out(node: ast.AST) -> bool:
    """Whether ``node`` is a ``print`` to stdout (not ``file=sys.stderr`` nor a file)."""
    return (
        isinstance(node, ast.Call)
        and ast.unparse(node.func) == "print"
        and not any(k.arg == "file" for k in node.keywords)
    )


def _printed_text(call: ast.Call) -> str:
    """The text a print starts with: a string, or an f-string's first literal part."""
    first = call.args[0] if call.args else None
    if isinstance(first, ast.JoinedStr) and first.values:
        first = first.values[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""


def _exits_before(block: list[ast.stmt], found: dict[int, str]) -> None:
    """``if result.summary["critical_count"] > 0: sys.exit(1)`` right before a last
    ``sys.exit(0)`` (meeting-minutes-reviewer: its exit 1 is "critical issues found")."""
    if len(block) < 2 or not isinstance(block[-1], ast.Expr) or _exit_status(block[-1:]) != 0:
        return
    for branch in reversed(block[:-1]):  # the tests right before the end; output between them
        if _prints(branch):
            continue
        if not isinstance(branch, ast.If) or branch.orelse or not branch.body:
            return  # anything else (``work()``) may fail on its own: stop
        status = _exit_status(branch.body)
        test = branch.test
        if not status or _ARGUMENTS.search(ast.unparse(test)) or _says_error(branch.body):
            return
        if not (_names_outcome(test) or _counts_findings(test)):
            return
        found.setdefault(status, f"the program's verdict: {ast.unparse(test)[:60]} ...")


_PRINTS = re.compile(r"^(?:print|sys\.(?:stdout|stderr)\.write|logging\.\w+|log\.\w+|click\.echo)$")


def _prints(statement: ast.stmt) -> bool:
    """Whether a statement only prints (``print("All checks passed")``)."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and bool(_PRINTS.match(ast.unparse(statement.value.func)))
    )


# What a count of findings is called (``critical_count``, ``errors``, ``len(issues)``).
_FINDINGS = re.compile(
    r"(?:^|_)(?:critical|errors?|issues?|violations?|findings?|failures?|problems?|conflicts?)"
    r"(?:_count)?$",
    re.I,
)


def _counts_findings(test: ast.expr) -> bool:
    """A comparison of a count of findings with a number (``summary["critical_count"] > 0``)."""
    for node in ast.walk(test):
        if not isinstance(node, ast.Compare):
            continue
        if not any(
            isinstance(c, ast.Constant) and isinstance(c.value, int) for c in node.comparators
        ):
            continue
        for item in ast.walk(node.left):
            name = (
                item.value if isinstance(item, ast.Constant) and isinstance(item.value, str)
                else item.id if isinstance(item, ast.Name)
                else item.attr if isinstance(item, ast.Attribute) else ""
            )  # fmt: skip
            if name and _FINDINGS.search(name):
                return True
    return False


def _conditional(
    value: ast.expr, found: dict[int, str], done: dict[str, list[tuple[int, bool]]]
) -> None:
    """``0 if ok else 1`` / ``1 if errors else 0``: the non-zero branch, when the test names
    a check's outcome (``if result`` may as well be "it failed to do it"), not whether an
    operation worked (``done``: ``success = convert_with_ai(...)``)."""
    test = ast.unparse(value.test) if isinstance(value, ast.IfExp) else ""
    if isinstance(value, ast.IfExp) and says_verdict(test) and not _ARGUMENTS.search(test):
        if _tests_an_operation(value.test, value.lineno, done):
            return
        statuses = [_int(value.body), _int(value.orelse)]
        if 0 in statuses and all(s is not None for s in statuses):
            for status in statuses:
                if status:
                    found.setdefault(status, f"the program's verdict: {ast.unparse(value)}")


# What a program does rather than checks: a status saying whether it managed is no verdict.
_OPERATION = re.compile(
    r"^_*(?:convert|download|upload|generate|create|write|send|fetch|build|export|save|"
    r"install|render|deploy|copy|move|transcribe|translate|publish|post|sync|"
    r"backup|restore|migrate|compress|encode|resize|merge|split)(?:_|$)"
    # running something that is no check: `run_codex_review(...)` worked or broke (round 42:
    # its "レビュー失敗" exit 1 was taken for a finding); `run_checks()` answers a question
    r"|^_*run_(?!\w*(?:check|test|lint|valid|verif|audit|scan|gate|grade|diff))",
    re.I,
)


def _operation_results(tree: ast.Module) -> dict[str, list[tuple[int, bool]]]:
    """Each name's assignments (line, whether an operation's result: ``success =
    convert_with_ai(...)``, ``ok = self.upload(path)``), in order: whether it worked, not
    what a check found, when the last one before the exit is such a call."""
    given: dict[str, list[tuple[int, bool]]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        func = node.value.func if isinstance(node.value, ast.Call) else None
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        for target in node.targets:
            # `success, result = run_x(...)`: the names unpacked from it too
            names = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
            for name in names:
                if isinstance(name, ast.Name):
                    given.setdefault(name.id, []).append(
                        (node.lineno, bool(_OPERATION.match(called)))
                    )
    return {name: sorted(lines) for name, lines in given.items()}


def _tests_an_operation(test: ast.expr, line: int, done: dict[str, list[tuple[int, bool]]]) -> bool:
    """Whether ``test`` (at ``line``) names what an operation last returned (``done``):
    whether it worked, not what a check found."""
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    return any(_last_given(done.get(name, []), line) for name in names)


def _last_given(assignments: list[tuple[int, bool]], line: int) -> bool:
    """Whether the last assignment before ``line`` gave an operation's result."""
    before = [operation for at, operation in assignments if at <= line]
    return bool(before) and before[-1]


def statement_blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly under ``node`` (a body, an ``else``, a ``finally``)."""
    return [
        block
        for name in ("body", "orelse", "finalbody")
        if isinstance(block := getattr(node, name, None), list)
        and all(isinstance(item, ast.stmt) for item in block)
    ]


def _returned(
    block: list[ast.stmt], found: dict[int, str], done: dict[str, list[tuple[int, bool]]]
) -> None:
    """``if errors: print(...); return 1`` and, last, ``return 0`` in a function whose value
    ``sys.exit`` is given (hit-weekly-brief's validator: its ``FAIL:`` lines are the answer);
    not one testing what an operation returned (``ok = upload(path)``)."""
    end = block[-1] if block else None
    if not isinstance(end, ast.Return) or end.value is None or _int(end.value) != 0:
        return
    for branch in block[:-1]:
        if not isinstance(branch, ast.If) or branch.orelse or not branch.body:
            continue
        last = branch.body[-1]
        status = _int(last.value) if isinstance(last, ast.Return) and last.value else None
        test = ast.unparse(branch.test)
        if not status:
            continue
        if _ARGUMENTS.search(test) or not _names_outcome(branch.test) or _says_error(branch.body):
            continue
        if _tests_an_operation(branch.test, branch.lineno, done):
            continue
        found.setdefault(status, f"the program's verdict: {test[:60]} ...")


def _names_outcome(test: ast.expr) -> bool:
    """Whether a test's own names say what a check found (``if errors:``, ``if not ok():``),
    not a key or a variable it looks up (``resp["error"]``, ``environ.get("API_TOKEN")``)."""
    names = [
        node.id if isinstance(node, ast.Name) else node.attr
        for node in ast.walk(test)
        if isinstance(node, ast.Name | ast.Attribute)
    ]
    return says_verdict(" ".join(names))


_IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_TALLY = frozenset({"count", "found", "list", "total", "num", "n"})
# What may stand before the outcome in a compound name: how many, or whose check it is
# (``all_errors``, ``has_issues``, ``lint_errors``); ``download_failed``, ``api_error`` and
# ``fetch_ok`` name an operation that broke or worked, no finding.
_QUANTIFIERS = frozenset(
    "all any has have is are total num n found validation lint check checks audit test tests "
    "schema rule rules style".split()
)


def says_verdict(code: str) -> bool:
    """Whether code names what a check found: a whole word (``errors``, ``ok``), or a compound
    name whose last word is one after a word of how many or of a check (``all_errors``,
    ``has_issues``, ``lint_errors``), or one counted (``errors_found``, ``issue_count``);
    never ``error_message``, ``file_not_found``, ``download_failed``, ``api_error``."""

    def words(match: re.Match[str]) -> str:
        parts = match.group().lower().split("_")
        if "not" in parts:
            return ""
        kept = [p for p, q in zip(parts, parts[1:], strict=False) if q in _TALLY]
        if all(p in _QUANTIFIERS for p in parts[:-1]):
            kept.append(parts[-1])
        return " ".join(kept)

    return bool(_VERDICT.search(_IDENTIFIER.sub(words, code)))


def _chain(node: ast.If, found: dict[int, str], done: dict[str, list[tuple[int, bool]]]) -> None:
    """An ``if``/``elif``/``else`` chain each branch of which ends with ``sys.exit(N)``; not
    one whose test is whether an operation worked (``success, result = run_review(...)``)."""
    if _tests_an_operation(node.test, node.lineno, done):
        return
    tests: list[ast.expr] = []
    endings: list[int | None] = []
    bodies: list[list[ast.stmt]] = []
    current: ast.If | None = node
    while current is not None:
        tests.append(current.test)
        endings.append(_exit_status(current.body))
        bodies.append(current.body)
        rest = current.orelse
        if len(rest) == 1 and isinstance(rest[0], ast.If):
            current = rest[0]
        else:
            if rest:
                endings.append(_exit_status(rest))
                bodies.append(rest)
            current = None
    if len(endings) < 2 or any(e is None for e in endings) or 0 not in endings:
        return
    if any(_ARGUMENTS.search(ast.unparse(test)) for test in tests):  # a usage check: an error
        return
    if not any(_classifies(test) for test in tests):  # `if result: exit(0) else: exit(1)`
        return
    said = f"the program's verdict: {ast.unparse(tests[0])[:60]} ..."
    for status, body in zip(endings, bodies, strict=True):
        if status and not _says_error(body):  # "config file not found": an error, not a verdict
            found.setdefault(status, said)


# Words that name what a check found ("valid", "errors", "violations", "drift" ...), whole.
_VERDICT = re.compile(
    r"\b(?:valid|is_valid|success|successful|succeeded|ok|passed|passes|failed|failures?|"
    r"errors?|issues?|violations?|clean|drift|found|matches|matched|stale|differs?|"
    r"differences?|changes?|changed|warnings?|findings?|problems?|conflicts?|survivors?|"
    r"unresolved|broken|mismatch(?:es|ed)?)\b",
    re.I,
)
# A test of the program's own arguments: a usage error, whatever it exits with.
_ARGUMENTS = re.compile(r"\bargv\b|\b(?:args|opts|options|parser|parsed)\.")
# What an error message says ("config file not found", "cannot read"): a failure.
_ERROR_SAID = re.compile(
    r"\b(?:error|usage|not found|no such|cannot|can't|could not|unable|invalid|missing|"
    r"denied|failed to)\b",
    re.I,
)


# A message that gives the check's verdict ("[FAIL] validation failed with 3 error(s)"):
# whatever else it says, what follows is what the check found.
_VERDICT_SAID = re.compile(r"\[\s*(?:FAIL(?:ED)?|NG)\s*\]|^\W*(?:❌|✗)?\s*FAIL(?:ED)?\b")


# What says the program broke, not what it found, even after a verdict word.
_BROKE_SAID = re.compile(
    r"\b(?:could not|cannot|can't|unable|not found|no such|denied|connect\w*|timed? ?out|"
    r"usage)\b",
    re.I,
)


def _says_error(body: list[ast.stmt]) -> bool:
    """Whether a branch prints or logs an error message (not a verdict) before it exits."""
    said = [
        sub.value
        for node in body
        for sub in ast.walk(node)
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str)
    ]
    if any(_VERDICT_SAID.search(t) and not _BROKE_SAID.search(t) for t in said):
        return False  # "[FAIL] validation failed with 3 error(s)"; not "FAILED: could not ..."
    return any(_ERROR_SAID.search(text) for text in said)


def _classifies(test: ast.expr) -> bool:
    """A test that sorts what the program found: compared with named levels (``level ==
    "STALE"``, ``level in ["FRESH", ...]``) or naming an outcome (``if errors:``)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            for item in ast.walk(node):
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    return True
    return says_verdict(ast.unparse(test))


def _exit_status(body: list[ast.stmt]) -> int | None:
    """N when ``body`` ends with ``sys.exit(N)`` (a constant), else None."""
    last = body[-1] if body else None
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        call = last.value
        if ast.unparse(call.func) in EXITS:
            return _int(call.args[0]) if call.args else 0
    return None


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value if not isinstance(node.value, bool) else None
    return None


def _exited_functions(tree: ast.Module) -> set[str]:
    """Functions whose value the program exits with: ``sys.exit(main())``, ``raise
    SystemExit(main())``."""
    names = set()
    for node in ast.walk(tree):
        raised = isinstance(node, ast.Raise)  # raise SystemExit(main())
        call = node.exc if isinstance(node, ast.Raise) else node
        if not isinstance(call, ast.Call) or not call.args:
            continue
        if ast.unparse(call.func) in (("SystemExit",) if raised else EXITS):
            inner = call.args[0]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
                names.add(inner.func.id)
    return names
