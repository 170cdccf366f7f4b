"""Decorator-style Python command lines read with ``ast``: click and typer."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from skill2app.converter.inventory.programs.interface import (
    Command,
    Param,
    add_param,
    dest_of,
    first_paragraph,
)

if TYPE_CHECKING:
    from skill2app.converter.inventory.programs.python_source import Names

_SCALARS = {"int": "integer", "float": "number", "bool": "boolean"}
_CLICK_TYPES = {
    "INT": "integer",
    "IntRange": "integer",
    "FLOAT": "number",
    "FloatRange": "number",
    "BOOL": "boolean",
}
_ARRAYS = ("list", "List", "Sequence", "tuple", "Tuple", "set", "Set")
_CLICK_SUFFIXES = ("_command", "_cmd", "_group", "_grp")


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _last(node: ast.expr) -> str:
    """``click.option`` → ``option``; ``option`` → ``option``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _owner(node: ast.expr) -> str:
    """``cli.command(...)`` → ``cli``; ``click.command`` → ``click``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return ast.unparse(node.value)
    return ""


def _functions(module: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in module.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _strings(call: ast.Call, names: Names) -> list[str]:
    return [v for v in (names.value(a) for a in call.args) if isinstance(v, str)]


# -- click ---------------------------------------------------------------------------------


class _Entry(NamedTuple):
    func: str  # the decorated function
    parent: str  # the group function it is attached to; "" at the top
    name: str  # the command name click derives
    command: Command
    group: bool


def click_command(module: ast.Module, names: Names) -> Command | None:
    entries: dict[str, _Entry] = {}
    for func in _functions(module):
        entry = _click_entry(func, names, entries)
        if entry is not None:
            entries[func.name] = entry
    if not entries:
        return None
    for entry in entries.values():
        if entry.parent in entries:
            entries[entry.parent].command.subcommands[entry.name] = entry.command
    _click_add_command(module, names, entries)
    roots = sorted((e for e in entries.values() if not e.parent), key=lambda e: not e.group)
    return (roots or list(entries.values()))[0].command


def _click_entry(
    func: ast.FunctionDef | ast.AsyncFunctionDef, names: Names, known: dict[str, _Entry]
) -> _Entry | None:
    for deco in func.decorator_list:
        kind, owner = _last(deco), _owner(deco)
        parent = owner if owner not in ("", "click") else ""
        if kind not in ("command", "group") or (parent and parent not in known):
            continue
        call = deco if isinstance(deco, ast.Call) else None
        explicit = ""
        doc = ast.get_docstring(func) or ""
        if call is not None:
            explicit = (_strings(call, names) or [""])[0] or _text(names.value(_kw(call, "name")))
            doc = _text(names.value(_kw(call, "help"))) or doc
        command = Command("click", first_paragraph(doc))
        _click_params(func, command, names)
        name = explicit or _click_name(func.name)
        return _Entry(func.name, parent, name, command, kind == "group")
    return None


def _click_add_command(module: ast.Module, names: Names, entries: dict[str, _Entry]) -> None:
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and _last(node) == "add_command" and node.args:
            owner, child = _owner(node), ast.unparse(node.args[0])
            if owner in entries and child in entries:
                name = _text(names.value(node.args[1])) if len(node.args) > 1 else ""
                name = name or _text(names.value(_kw(node, "name"))) or entries[child].name
                entries[owner].command.subcommands[name] = entries[child].command


def _click_name(func_name: str) -> str:
    for suffix in _CLICK_SUFFIXES:
        if func_name.endswith(suffix) and func_name != suffix.lstrip("_"):
            func_name = func_name[: -len(suffix)]
            break
    return func_name.lower().replace("_", "-")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _click_params(func: ast.FunctionDef | ast.AsyncFunctionDef, cmd: Command, names: Names) -> None:
    for deco in func.decorator_list:
        if not isinstance(deco, ast.Call) or _last(deco) not in ("option", "argument"):
            continue
        decls = _strings(deco, names)
        if not decls:
            continue
        if _last(deco) == "argument":
            nargs = names.value(_kw(deco, "nargs"))
            has_default = _kw(deco, "default") is not None
            required = names.value(_kw(deco, "required"))
            param = Param(
                decls[0],
                "positional",
                dest_of(decls[0]),
                source="click",
                required=bool(required)
                if required is not None
                else not has_default and nargs != -1,
            )
            param.type = (
                "array"
                if nargs == -1 or (isinstance(nargs, int) and nargs > 1)
                else _click_type(deco, names, param)
            )
        else:
            param = _click_option(deco, decls, names)
        param.default = names.value(_kw(deco, "default"))
        param.help = first_paragraph(_text(names.value(_kw(deco, "help"))))
        add_param(cmd, param)


def _click_option(deco: ast.Call, decls: list[str], names: Names) -> Param:
    spellings: list[str] = []
    for decl in decls:
        spellings.extend(s.strip() for s in decl.split("/") if s.strip().startswith("-"))
    dest = next((d for d in decls if not d.startswith("-")), "")
    longs = [s for s in spellings if s.startswith("--")] or spellings or ["--" + dest]
    param = Param(
        longs[0],
        "flag",
        dest or dest_of(longs[0]),
        source="click",
        aliases=[s for s in spellings if s != longs[0]],
        required=bool(names.value(_kw(deco, "required"))),
    )
    if names.value(_kw(deco, "is_flag")) or any("/" in d for d in decls):
        param.type = "boolean"
    elif names.value(_kw(deco, "count")):
        param.type = "integer"
    elif names.value(_kw(deco, "multiple")):
        param.type = "array"
    else:
        param.type = _click_type(deco, names, param)
    return param


def _click_type(deco: ast.Call, names: Names, param: Param) -> str:
    type_node = _kw(deco, "type")
    if type_node is None:
        default = names.value(_kw(deco, "default"))
        if isinstance(default, bool):
            return "boolean"
        return (
            "integer"
            if isinstance(default, int)
            else ("number" if isinstance(default, float) else "string")
        )
    if isinstance(type_node, ast.Call) and _last(type_node) == "Choice" and type_node.args:
        choices = names.value(type_node.args[0])
        param.choices = list(choices) if isinstance(choices, list) else None
        return "string"
    name = _last(type_node)
    return _CLICK_TYPES.get(name) or _SCALARS.get(name, "string")


# -- typer ---------------------------------------------------------------------------------


@dataclass
class _TyperApp:
    help: str = ""
    commands: dict[str, Command] = field(default_factory=dict)
    callback: Command | None = None
    subapps: dict[str, str] = field(default_factory=dict)  # command name → app variable


def typer_command(module: ast.Module, names: Names) -> Command | None:
    apps: dict[str, _TyperApp] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if _last(node.value) == "Typer":
                help_text = _text(names.value(_kw(node.value, "help")))
                apps[ast.unparse(node.targets[0])] = _TyperApp(help_text)
    for func in _functions(module):
        _typer_register(func, apps, names)
    runs = [
        n
        for n in ast.walk(module)
        if isinstance(n, ast.Call) and _last(n) == "run" and _owner(n) == "typer" and n.args
    ]
    if runs and not apps:  # typer.run(main)
        funcs = {f.name: f for f in _functions(module)}
        target = funcs.get(ast.unparse(runs[0].args[0]))
        return _typer_function(target, names) if target else None
    children = _typer_subapps(module, names, apps)
    roots = [var for var in apps if var not in children]
    return _typer_build(roots[0], apps) if roots else None


def _typer_register(
    func: ast.FunctionDef | ast.AsyncFunctionDef, apps: dict[str, _TyperApp], names: Names
) -> None:
    for deco in func.decorator_list:
        owner, kind = _owner(deco), _last(deco)
        if owner not in apps or kind not in ("command", "callback"):
            continue
        command = _typer_function(func, names)
        explicit = ""
        if isinstance(deco, ast.Call):
            command.description = (
                first_paragraph(_text(names.value(_kw(deco, "help")))) or command.description
            )
            explicit = (_strings(deco, names) or [""])[0] or _text(names.value(_kw(deco, "name")))
        if kind == "callback":
            apps[owner].callback = command
        else:
            apps[owner].commands[explicit or func.name.lower().replace("_", "-")] = command


def _typer_subapps(module: ast.Module, names: Names, apps: dict[str, _TyperApp]) -> set[str]:
    children: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and _last(node) == "add_typer" and node.args:
            owner, child = _owner(node), ast.unparse(node.args[0])
            if owner in apps and child in apps:
                name = _text(names.value(_kw(node, "name"))) or child
                apps[owner].subapps[name] = child
                children.add(child)
    return children


def _typer_build(var: str, apps: dict[str, _TyperApp]) -> Command:
    """A Typer app with one command and no callback is that command (no subcommand name)."""
    app = apps[var]
    commands = dict(app.commands)
    for name, child in app.subapps.items():
        commands[name] = _typer_build(child, apps)
    if len(commands) == 1 and app.callback is None and not app.subapps:
        only = next(iter(commands.values()))
        only.description = only.description or first_paragraph(app.help)
        return only
    root = app.callback or Command("typer")
    root.description = root.description or first_paragraph(app.help)
    root.subcommands = commands
    return root


def _typer_function(func: ast.FunctionDef | ast.AsyncFunctionDef, names: Names) -> Command:
    command = Command("typer", first_paragraph(ast.get_docstring(func)))
    args = func.args.posonlyargs + func.args.args
    defaults: list[ast.expr | None] = [None] * (len(args) - len(func.args.defaults))
    defaults += list(func.args.defaults)
    pairs = list(zip(args, defaults, strict=True))
    pairs += list(zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True))
    for arg, default in pairs:
        param = _typer_param(arg, default, names)
        if param is not None:
            add_param(command, param)
    return command


def _typer_param(arg: ast.arg, default: ast.expr | None, names: Names) -> Param | None:
    base, marker = arg.annotation, None
    if (
        isinstance(base, ast.Subscript)
        and _last(base.value) == "Annotated"
        and isinstance(base.slice, ast.Tuple)
    ):
        base = base.slice.elts[0]
        extras = _annotated_extras(arg)
        marker = next((e for e in extras if _last(e) in ("Option", "Argument")), None)
    if isinstance(default, ast.Call) and _last(default) in ("Option", "Argument"):
        marker, default = default, (default.args[0] if default.args else _kw(default, "default"))
    if base is not None and ast.unparse(base).endswith("Context"):
        return None
    positional = (marker is not None and _last(marker) == "Argument") or (
        marker is None and default is None
    )
    missing = default is None or (isinstance(default, ast.Constant) and default.value is ...)
    param = Param(arg.arg, "positional", arg.arg, required=missing, source="typer")
    param.type, param.choices = _typer_type(base, names)
    param.default = None if missing else names.value(default)
    if isinstance(marker, ast.Call):
        param.help = first_paragraph(_text(names.value(_kw(marker, "help"))))
    if not positional:
        spellings = [
            s
            for s in (_strings(marker, names) if isinstance(marker, ast.Call) else [])
            if s.startswith("-")
        ]
        spellings = spellings or ["--" + arg.arg.replace("_", "-")]
        param.kind, param.name = "flag", spellings[0]
        param.aliases = spellings[1:]
        if param.type == "boolean" and "/" not in param.name:
            param.aliases.append("--no-" + param.name.removeprefix("--"))
    return param


def _annotated_extras(arg: ast.arg) -> list[ast.expr]:
    annotation = arg.annotation
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
        return list(annotation.slice.elts[1:])
    return []


def _typer_type(node: ast.expr | None, names: Names) -> tuple[str, list[Any] | None]:
    if node is None:
        return "string", None
    if isinstance(node, ast.BinOp):  # X | None
        side = node.left if ast.unparse(node.left) != "None" else node.right
        return _typer_type(side, names)
    if isinstance(node, ast.Subscript):
        outer = _last(node.value)
        if outer == "Optional":
            return _typer_type(node.slice, names)
        if outer == "Literal":
            values = names.value(node.slice)
            return "string", values if isinstance(values, list) else [values]
        if outer in _ARRAYS:
            return "array", None
    name = _last(node)
    if name in names.enums:
        return "string", list(names.enums[name])
    return _SCALARS.get(name, "string"), None
