"""Read a Python program's command line statically with ``ast``: typer, click or argparse,
whichever it imports (``python_decorators`` and ``python_argparse`` read each)."""

from __future__ import annotations

import ast
from typing import TypeGuard

from skill2app.converter.inventory.programs.interface import Command, Param, add_param, dest_of
from skill2app.converter.inventory.programs.python_argparse import argparse_command
from skill2app.converter.inventory.programs.python_decorators import click_command, typer_command
from skill2app.converter.inventory.programs.python_source import Names


def extract_python_cli(source: str) -> tuple[Command | None, str]:
    """(the program's command line or None, its module docstring)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 200,000 deep, too
        return None, ""
    names = Names(module)
    try:
        return _command(module, names), names.docstring
    except RecursionError:  # an expression parsed, but too deep to unparse: no interface read
        return None, names.docstring


def _command(module: ast.Module, names: Names) -> Command | None:
    """What the framework the program imports declares, or the flags it tests by hand."""
    imported = _imports(module)
    command = None
    if "typer" in imported:
        command = typer_command(module, names)
    if command is None and "click" in imported:
        command = click_command(module, names)
    if command is None and "argparse" in imported:
        command = argparse_command(module, names)
    if command is not None:
        _declared(command)
    elif "sys" in imported:
        command = _by_hand(module)
    return command


def _by_hand(module: ast.Module) -> Command | None:
    """The flags a program reading ``sys.argv`` itself tests for: ``"--render" in argv`` is
    a switch; ``argv[argv.index("--out") + 1]`` takes a value.  ``argv`` is ``sys.argv`` or
    a name given a slice or copy of it."""
    aliases = {"sys.argv"}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module == "sys":  # from sys import argv
            aliases |= {a.asname or a.name for a in node.names if a.name == "argv"}
    for node in ast.walk(module):
        if not isinstance(node, ast.Assign):
            continue
        value = ast.unparse(node.value)  # once: not once for each name known so far
        if any(a in value for a in aliases):
            aliases |= {ast.unparse(t) for t in node.targets if isinstance(t, ast.Name)}
    switches: dict[str, None] = {}
    valued: dict[str, None] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            flag, where = node.left, node.comparators[0]
            if isinstance(node.ops[0], ast.In | ast.NotIn) and ast.unparse(where) in aliases:
                if isinstance(flag, ast.Constant) and _is_flag(flag.value):
                    switches[flag.value] = None
        elif flag_name := _index_of(node, aliases):
            valued[flag_name] = None
    if not switches and not valued:
        return None
    many = _read_to_the_end(module, aliases)
    command = Command("none")
    for name in [*switches, *valued]:
        taking = name in valued
        param = Param(name, "flag", dest_of(name), type="string" if taking else "boolean")
        param.source, param.typed, param.valued = "program", True, taking
        if taking and name in many:  # `--exclude a b c`: every word after it
            param.type, param.spread = "array", True
        add_param(command, param)
    return command


def _index_of(node: ast.AST, aliases: set[str]) -> str:
    """The flag ``node`` looks up in argv (``argv.index("--x")``), or ""."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return ""
    if node.func.attr != "index" or ast.unparse(node.func.value) not in aliases:
        return ""
    first = node.args[0] if node.args else None
    return first.value if isinstance(first, ast.Constant) and _is_flag(first.value) else ""


def _read_to_the_end(module: ast.Module, aliases: set[str]) -> set[str]:
    """The flags whose values are every word after them: ``argv[argv.index("--exclude") +
    1:]``, or ``i = argv.index("--exclude")`` then ``argv[i + 1:]`` (the assignment of ``i``
    nearest above the slice; ``argv[i + 2:]`` is what follows the flag's one value)."""
    at: dict[str, list[tuple[int, str]]] = {}  # a name -> (line, flag) of each index it got
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and (flag := _index_of(node.value, aliases)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    at.setdefault(target.id, []).append((node.lineno, flag))
    found: set[str] = set()
    for node in ast.walk(module):
        if not (isinstance(node, ast.Subscript) and ast.unparse(node.value) in aliases):
            continue
        part = node.slice
        if not (isinstance(part, ast.Slice) and part.upper is None):
            continue
        lower = part.lower
        if not (isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Add)):
            continue
        if not (isinstance(lower.right, ast.Constant) and lower.right.value == 1):
            continue
        flag = _index_of(lower.left, aliases)
        if not flag and isinstance(lower.left, ast.Name):
            named = [a for a in at.get(lower.left.id, []) if a[0] <= node.lineno]
            flag = max(named)[1] if named else ""
        found |= {flag} if flag else set()
    return found


def _is_flag(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and value.startswith("-") and value not in ("-h", "--help", "-")


def _declared(command: Command) -> None:
    """Every parameter a parser declares is known for sure: required or not, and its type."""
    for param in command.params:
        param.certain = param.typed = True
    for sub in command.subcommands.values():
        _declared(sub)


def _imports(module: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found
