"""Names a written Python step reads but never defines: a ``NameError`` waiting on the line
that reads it (round 36: four written steps called ``fail()`` on their error paths and never
defined it; the steps compiled, and their happy path passed the smoke run).

The test is deliberately loose, so that it never refuses a working step: a name counts as
defined when the module binds it anywhere (any scope: an assignment, a parameter, an import,
a ``def``, a ``for`` or ``with`` target, an ``except ... as``, a pattern capture) or it is a
builtin or a module attribute (``__file__``).  A module with ``from x import *`` is not
checked.  Only what no scope ever defines is reported.
"""

from __future__ import annotations

import ast
import builtins

_MODULE_NAMES = frozenset(
    {"__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__",
     "__builtins__", "__annotations__", "__dict__", "__path__", "__cached__",
     "__class__"}
)  # fmt: skip


def undefined_names(source: str) -> list[tuple[str, int]]:
    """(name, first line reading it) of each name ``source`` reads and never defines; []
    when it does not parse (the compile check says why) or imports ``*``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    bound: set[str] = set(dir(builtins)) | _MODULE_NAMES
    read: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return []
        bound |= _binds(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.setdefault(node.id, node.lineno)
    return sorted(((n, line) for n, line in read.items() if n not in bound), key=lambda x: x[1])


def _binds(node: ast.AST) -> set[str]:
    """The names ``node`` itself binds."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return {node.id}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.arg):
        return {node.arg}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return set(node.names)
    if isinstance(node, ast.ExceptHandler) and node.name:
        return {node.name}
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return {node.name}
    if isinstance(node, ast.MatchMapping) and node.rest:
        return {node.rest}
    return set()
