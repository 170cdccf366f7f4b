"""Flags without which a Python program asks its questions on the terminal.

A calculator often runs from its flags when the main one is given and asks for every value
with ``input()`` when it is not (saas-metrics-coach's ``metrics_calculator.py``: ``if
args.mrr is not None: ... sys.exit(0)``, then "Interactive mode").  A pipeline step has no
terminal: without that flag the program stops at its first question (EOFError).  So the
flag a program tests before it leaves is required for a step (``read_prompts``) when

- it is the only value flag so tested before the question (two are alternatives:
  ``--file`` or ``--url``, neither required; a switch tested so picks a mode);
- its branch ends with a bare ``sys.exit``/``return`` (``return args.key`` is a fallback);
- the question comes unconditionally after it: a statement of the same block calls
  ``input()``, or a function of the program that does, not inside an ``if``/``try``/loop
  (an overwrite question under ``if exists and not args.force`` asks only sometimes).

Where a program calls ``input()`` at all (video-comparer's "Continue anyway? [y/N]" when the
two videos differ) is a fact the analyst is shown (``asks_at``): the step dies there unless
it feeds the answer or avoids the branch.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from skill2app.converter.inventory.programs.interface import Command
from skill2app.converter.inventory.programs.verdicts import EXITS, statement_blocks

_NAMESPACES = ("args", "opts", "options", "parsed", "ns")


def read_prompts(command: Command | None, source: str) -> int:
    """Make required the flag without which the program asks on the terminal (the module's
    doc: the one value flag of its guards; a switch among them picks a mode, two value flags
    are alternatives), and give the line of its first ``input()`` (0: none).  One parse."""
    tree = _parse(source)
    if tree is None:
        return 0
    values = {p.dest: p for p in (command.params if command else []) if p.type != "boolean"}
    for guards in _guards_in(tree):
        alone = [values[dest] for dest in guards if dest in values]
        if len(alone) == 1:
            alone[0].required = alone[0].certain = True
    lines = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "input"
    ]
    return min(lines, default=0)


def interactive_guards(source: str) -> list[list[str]]:
    """For each question asked unconditionally after tests of the program's flags that
    leave, those flags' ``args.<dest>`` names, in order."""
    tree = _parse(source)
    return _guards_in(tree) if tree is not None else []


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _guards_in(tree: ast.Module) -> list[list[str]]:
    asking = _asking_functions(tree)
    found: list[list[str]] = []
    for node in ast.walk(tree):
        for block in statement_blocks(node):
            guards = _guards_of(block, asking)
            if guards:
                found.append(guards)
    return found


def _guards_of(block: list[ast.stmt], asking: set[str]) -> list[str]:
    """The guards of ``block`` before its first statement that asks unconditionally."""
    guards: list[str] = []
    for statement in block:  # one pass: each statement is read once
        dest = _guard(statement)
        if dest:
            guards.append(dest)
        elif _asks_here(statement, asking):
            return guards
    return []


def _guard(statement: ast.stmt) -> str:
    """``dest`` of ``if args.dest is not None: ... sys.exit(0)`` (or ``if args.dest:``, a
    bare ``return``), "" for anything else."""
    if not isinstance(statement, ast.If) or statement.orelse or not statement.body:
        return ""
    test = statement.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if not (isinstance(test.ops[0], ast.IsNot) and _is_none(test.comparators[0])):
            return ""
        test = test.left
    if not (isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name)):
        return ""
    if test.value.id not in _NAMESPACES:
        return ""
    return test.attr if _leaves(statement.body[-1]) else ""


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _leaves(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Return):
        return statement.value is None  # ``return args.key``: a value, a fallback chain
    call = statement.value if isinstance(statement, ast.Expr) else None
    return isinstance(call, ast.Call) and ast.unparse(call.func) in EXITS


def _asks_here(statement: ast.stmt, asking: set[str]) -> bool:
    """Whether a simple statement (no ``if``, loop, ``try`` or ``with``) calls ``input()`` or
    a function of the program that does."""
    if not isinstance(statement, ast.Expr | ast.Assign | ast.AnnAssign | ast.AugAssign):
        return False
    return _calls_input([statement], asking)


def _asking_functions(tree: ast.Module) -> set[str]:
    """The functions that call ``input()``, and those calling them (a few rounds)."""
    functions = [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    asking: set[str] = set()
    for _round in range(4):
        more = {f.name for f in functions if f.name not in asking and _calls_input([f], asking)}
        if not more:
            break
        asking |= more
    return asking


def _calls_input(statements: Sequence[ast.AST], asking: set[str]) -> bool:
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "input" or node.func.id in asking:
                    return True
    return False
