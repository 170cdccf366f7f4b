"""Read a Python program's command line statically with ``ast``: typer, click or argparse,
whichever it imports (``python_decorators`` and ``python_argparse`` read each)."""

from __future__ import annotations

import ast

from skill2app.converter.inventory.programs.interface import Command
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
    imported = _imports(module)
    command = None
    if "typer" in imported:
        command = typer_command(module, names)
    if command is None and "click" in imported:
        command = click_command(module, names)
    if command is None and "argparse" in imported:
        command = argparse_command(module, names)
    return command, names.docstring


def _imports(module: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found
