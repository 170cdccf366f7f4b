"""Flags without which a Python program asks its questions on the terminal.

A calculator often runs from its flags when the main one is given and asks for every value
with ``input()`` when it is not (saas-metrics-coach's ``metrics_calculator.py``: ``if
args.mrr is not None: ... sys.exit(0)``, then "Interactive mode").  A pipeline step has no
terminal: without that flag the program stops at its first question (EOFError).  So the
flag a program tests before it leaves, when what follows the test asks on the terminal, is
required for a step (``interactive_guards``).  Where a program calls ``input()`` at all
(video-comparer's "Continue anyway? [y/N]" when the two videos differ) is a fact the analyst
is shown (``asks_at``): the step dies there unless it feeds the answer or avoids the branch.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

_LEAVES = ("sys.exit", "exit", "quit")


def interactive_guards(source: str) -> set[str]:
    """The ``args.<dest>`` names whose test, when true, ends the program (``sys.exit`` or
    ``return``) before code that calls ``input()``, directly or through a function of the
    program."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    asking = _asking_functions(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        for block in _blocks(node):
            for index, statement in enumerate(block):
                dest = _guard(statement)
                if dest and _asks(block[index + 1 :], asking):
                    found.add(dest)
    return found


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    return [
        block
        for name in ("body", "orelse")
        if isinstance(block := getattr(node, name, None), list)
        and all(isinstance(item, ast.stmt) for item in block)
    ]


def _guard(statement: ast.stmt) -> str:
    """``dest`` of ``if args.dest is not None: ... sys.exit(0)`` (or ``if args.dest:``, a
    ``return``), "" for anything else."""
    if not isinstance(statement, ast.If) or statement.orelse or not statement.body:
        return ""
    test = statement.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if not (isinstance(test.ops[0], ast.IsNot) and _is_none(test.comparators[0])):
            return ""
        test = test.left
    if not (isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name)):
        return ""
    if test.value.id not in ("args", "opts", "options", "parsed", "ns"):
        return ""
    return test.attr if _leaves(statement.body[-1]) else ""


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _leaves(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Return):
        return True
    call = statement.value if isinstance(statement, ast.Expr) else None
    return isinstance(call, ast.Call) and ast.unparse(call.func) in _LEAVES


def _asking_functions(tree: ast.Module) -> set[str]:
    """The functions that call ``input()``, and those calling them (a few rounds)."""
    functions = {
        node.name: node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    asking: set[str] = set()
    for _round in range(4):
        more = {name for name, body in functions.items() if _asks([body], asking)} - asking
        if not more:
            break
        asking |= more
    return asking


def _asks(statements: Sequence[ast.AST], asking: set[str]) -> bool:
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "input" or node.func.id in asking:
                    return True
    return False


def asks_at(source: str) -> int:
    """The line of a Python program's first ``input()`` call, 0 when it has none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0
    lines = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "input"
    ]
    return min(lines, default=0)
