"""Read a Python program's command line statically with ``ast``: argparse, click or typer.

Nothing is imported or run.  Values that are not literals are resolved only through
module-level constants (``ACTIONS = ("a", "b")``, dict keys, ``Enum`` members); anything else
is left out rather than guessed.
"""

from __future__ import annotations

import ast
from typing import Any

from converter.cli_model import Command, Param, add_param, dest_of, first_paragraph
from converter.cli_python_deco import click_command, typer_command

_ARGPARSE_TYPES = {"int": "integer", "float": "number"}
_ARRAY_NARGS = ("+", "*", "...", "A...")
_NARGS_CONSTANTS = {"OPTIONAL": "?", "ZERO_OR_MORE": "*", "ONE_OR_MORE": "+", "REMAINDER": "..."}
_ARGPARSE_SKIP_ACTIONS = ("help", "version")


class Names:
    """Module-level literal constants and Enum values a CLI declaration may refer to."""

    def __init__(self, module: ast.Module) -> None:
        self.consts: dict[str, Any] = {}
        self.enums: dict[str, list[Any]] = {}
        self.docstring = ast.get_docstring(module) or ""
        for node in module.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._const(node.targets[0], node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._const(node.target, node.value)
            elif isinstance(node, ast.ClassDef) and any(
                "Enum" in ast.unparse(base) for base in node.bases
            ):
                self.enums[node.name] = self._enum_values(node)

    def _const(self, target: ast.expr, value: ast.expr) -> None:
        if not isinstance(target, ast.Name):
            return
        if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) for k in value.keys):
            self.consts[target.id] = [k.value for k in value.keys if isinstance(k, ast.Constant)]
            return
        try:
            self.consts[target.id] = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError):
            pass

    @staticmethod
    def _enum_values(node: ast.ClassDef) -> list[Any]:
        values = []
        for item in node.body:
            if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant):
                values.append(item.value.value)
        return values

    def value(self, node: ast.expr | None) -> Any:
        """A literal value, or None when it cannot be known without running the code."""
        if node is None:
            return None
        try:
            return _plain(ast.literal_eval(node))
        except (ValueError, SyntaxError, TypeError):
            pass
        if isinstance(node, ast.Name):
            if node.id == "__doc__":
                return self.docstring
            if node.id in self.enums:
                return list(self.enums[node.id])
            return _plain(self.consts.get(node.id))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            if node.func.id in ("sorted", "list", "tuple", "set"):
                inner = self.value(node.args[0])
                if isinstance(inner, list):
                    return sorted(inner, key=str) if node.func.id == "sorted" else inner
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "keys":
                return self.value(node.func.value)
        if isinstance(node, ast.ListComp) and node.generators:
            return self.value(node.generators[0].iter)
        if isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
            return "".join(str(p) for p in parts)
        return None


def _plain(value: Any) -> Any:
    """Tuples and sets become lists so the value is JSON-safe."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return None


def extract_python_cli(source: str) -> tuple[Command | None, str]:
    """(the program's command line or None, its module docstring)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
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


# -- argparse ------------------------------------------------------------------------------


def _callee(call: ast.Call) -> tuple[str, str]:
    """(receiver as written, method or function name) of a call."""
    if isinstance(call.func, ast.Attribute):
        return ast.unparse(call.func.value), call.func.attr
    if isinstance(call.func, ast.Name):
        return "", call.func.id
    return "", ""


def _targets(module: ast.Module) -> dict[int, str]:
    """id(call) → the name it is assigned to."""
    found: dict[int, str] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            found[id(node.value)] = ast.unparse(node.targets[0])
        elif isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Call):
            found[id(node.value)] = ast.unparse(node.target)
    return found


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def argparse_command(module: ast.Module, names: Names) -> Command | None:
    calls = sorted(
        (n for n in ast.walk(module) if isinstance(n, ast.Call)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    targets = _targets(module)
    parsers: dict[str, Command] = {}  # variable → parser
    groups: dict[str, Command] = {}  # subparsers variable → parent parser
    root: Command | None = None
    for call in calls:
        receiver, method = _callee(call)
        target = targets.get(id(call), "")
        if method == "ArgumentParser":
            parser = Command("argparse", _text(names.value(_kw(call, "description"))))
            root = root or parser
            parsers[target] = parser
        elif method == "add_subparsers" and receiver in parsers:
            groups[target] = parsers[receiver]
        elif method == "add_parser" and receiver in groups and call.args:
            name = names.value(call.args[0])
            if isinstance(name, str):
                doc = names.value(_kw(call, "help")) or names.value(_kw(call, "description"))
                sub = Command("argparse", first_paragraph(_text(doc)))
                groups[receiver].subcommands[name] = sub
                parsers[target] = sub
        elif method in ("add_argument_group", "add_mutually_exclusive_group"):
            if receiver in parsers:
                parsers[target] = parsers[receiver]
        elif method == "add_argument" and receiver in parsers:
            param = _argparse_param(call, names)
            if param is not None:
                add_param(parsers[receiver], param)
    if root is not None:
        root.description = first_paragraph(root.description)
    return root


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _argparse_param(call: ast.Call, names: Names) -> Param | None:
    spellings = [s for s in (names.value(a) for a in call.args) if isinstance(s, str)]
    if not spellings:
        return None
    action_node = _kw(call, "action")
    action = _text(names.value(action_node))
    if not action and action_node is not None:
        action = ast.unparse(action_node).split(".")[-1]  # argparse.BooleanOptionalAction
    if action in _ARGPARSE_SKIP_ACTIONS:
        return None
    flags = [s for s in spellings if s.startswith("-")]
    long_flags = [s for s in flags if s.startswith("--")] or flags
    nargs_node = _kw(call, "nargs")
    nargs = names.value(nargs_node)
    if nargs is None and nargs_node is not None:  # argparse.REMAINDER, argparse.ONE_OR_MORE ...
        nargs = _NARGS_CONSTANTS.get(ast.unparse(nargs_node).split(".")[-1])
    dest = _text(names.value(_kw(call, "dest"))) or dest_of(
        long_flags[0] if flags else spellings[0]
    )
    kind = "flag" if flags else "positional"
    required = bool(names.value(_kw(call, "required"))) if flags else nargs not in ("?", "*", "...")
    param = Param(
        name=long_flags[0] if flags else dest,
        kind=kind,
        dest=dest,
        type=_argparse_type(call, action, nargs),
        aliases=[s for s in flags if s != long_flags[0]],
        choices=_choices(names.value(_kw(call, "choices"))),
        default=names.value(_kw(call, "default")),
        required=required,
        help=first_paragraph(_text(names.value(_kw(call, "help")))),
        source="argparse",
    )
    if action == "BooleanOptionalAction":
        param.aliases.append("--no-" + param.name.removeprefix("--"))
    # `--set a b` (nargs) takes its values after one flag; `--tag a --tag b` (append) repeats.
    param.spread = (
        bool(flags)
        and action not in ("append", "extend")
        and (nargs in _ARRAY_NARGS or (isinstance(nargs, int) and nargs > 1))
    )
    return param


def _argparse_type(call: ast.Call, action: str, nargs: Any) -> str:
    if action in ("store_true", "store_false", "store_const", "BooleanOptionalAction"):
        return "boolean"
    if action == "count":
        return "integer"
    if action in ("append", "extend", "append_const") or nargs in _ARRAY_NARGS:
        return "array"
    if isinstance(nargs, int) and nargs > 1:
        return "array"
    type_node = _kw(call, "type")
    if type_node is not None:
        return _ARGPARSE_TYPES.get(ast.unparse(type_node).split(".")[-1], "string")
    return "string"


def _choices(value: Any) -> list[Any] | None:
    if isinstance(value, list) and value and all(isinstance(v, str | int | float) for v in value):
        return list(value)
    return None
