"""Read a Python program's command line statically with ``ast``: argparse, click or typer.

Nothing is imported or run.  Values that are not literals are resolved only through
module-level constants (``ACTIONS = ("a", "b")``, dict keys, ``Enum`` members); anything else
is left out rather than guessed.
"""

from __future__ import annotations

import ast
import copy
import re
from typing import Any

from skill2app.converter.inventory.programs.interface import (
    Command,
    Param,
    add_param,
    dest_of,
    first_paragraph,
)
from skill2app.converter.inventory.programs.python_source import Names

_ARGPARSE_TYPES = {"int": "integer", "float": "number"}
_ARRAY_NARGS = ("+", "*", "...", "A...")
_NARGS_CONSTANTS = {"OPTIONAL": "?", "ZERO_OR_MORE": "*", "ONE_OR_MORE": "+", "REMAINDER": "..."}
_ARGPARSE_SKIP_ACTIONS = ("help", "version")


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
    helpers = _helpers(module, targets)
    factories = _factories(module)
    looped = _loop_values(module)
    inside = {id(c) for helper in helpers.values() for c in helper.calls}  # done per call
    inside |= {id(call) for _group, call in factories.values()}  # `return sub.add_parser(name)`
    parsers: dict[str, Command] = {}  # variable → parser
    groups: dict[str, Command] = {}  # subparsers variable → parent parser
    root: Command | None = None
    first: Command | None = None  # the program's parser even when it adds no --help
    dispatched = _dispatched(module)
    by_prog: dict[str, Command] = {}  # `prog="x.py lock"`: the parser of subcommand lock
    for call in calls:
        if id(call) in inside:
            continue
        receiver, method = _callee(call)
        if not receiver and method in factories and call.args:  # command("state-root")
            receiver, method = factories[method][0], "add_parser"
        target = targets.get(id(call), "")
        if method == "ArgumentParser":
            parser = Command("argparse", _text(names.value(_kw(call, "description"))))
            _inherit(parser, call, parsers)
            parsers[target] = parser
            if (word := _subcommand_prog(_kw(call, "prog"), names)) in dispatched:
                by_prog.setdefault(word, parser)  # one parser a subcommand, main() picking
                continue
            first = first or parser
            if _kw(call, "add_help") is None or names.value(_kw(call, "add_help")) is not False:
                root = root or parser  # a parents= template (add_help=False) is no program
        elif method == "add_subparsers" and receiver in parsers:
            groups[target] = parsers[receiver]
        elif method == "add_parser" and receiver in groups and call.args:
            first_arg = call.args[0]
            words = (
                looped.get(id(call), {}).get(first_arg.id)
                if isinstance(first_arg, ast.Name)
                else None
            )
            word = names.value(first_arg)
            words = words or ([word] if isinstance(word, str) else [])
            if words:  # one parser for the words of a loop: the flags each of them takes
                doc = names.value(_kw(call, "help")) or names.value(_kw(call, "description"))
                sub = Command("argparse", first_paragraph(_text(doc)))
                _inherit(sub, call, parsers)
                for word in words:
                    groups[receiver].subcommands[word] = sub
                parsers[target] = sub
        elif method in ("add_argument_group", "add_mutually_exclusive_group"):
            if receiver in parsers:
                parsers[target] = parsers[receiver]
        elif method == "add_argument" and receiver in parsers:
            param = _argparse_param(call, names)
            if param is not None:
                add_param(parsers[receiver], param)
        elif not receiver and method in helpers:  # add_common_args(sub): its flags are sub's
            _apply(helpers, method, call, parsers, names, depth=0)
    root = _with_dispatch(root or first, by_prog, module)
    if root is not None:
        root.description = first_paragraph(root.description)
    return root


def _with_dispatch(
    root: Command | None, by_prog: dict[str, Command], module: ast.Module
) -> Command | None:
    """``root`` with the parsers of a hand-made dispatch as its subcommands (two or more,
    each named by its ``prog``); one such parser alone is the program's own (``prog="weekly
    report"`` in a program that also keys a table by "report")."""
    if len(by_prog) == 1:
        return root or next(iter(by_prog.values()))
    if by_prog:
        root = root or Command("argparse", _text(ast.get_docstring(module)))
        for word, parser in by_prog.items():
            parser.description = first_paragraph(parser.description)
            root.subcommands.setdefault(word, parser)
    return root


def _subcommand_prog(node: ast.expr | None, names: Names) -> str:
    """The subcommand a parser's ``prog`` names ("goal_loop.py lock", f"{sys.argv[0]} lock",
    ``PROG + " lock"`` → "lock"); "" for a ``prog`` that only names the program.  It is one
    when the program compares its first argument with that word (``_dispatched``)."""
    prog = names.value(node) if node is not None else None
    tail = None  # the literal end of a prog built at run time: its program, then the word
    if isinstance(node, ast.JoinedStr) and node.values:  # f"{sys.argv[0]} lock"
        tail = node.values[-1]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # PROG + " lock"
        tail = node.right
    if tail is not None:
        text = tail.value if isinstance(tail, ast.Constant) else None
        prog = f"x{text}" if isinstance(text, str) else None
    found = re.fullmatch(r"\S+\s+([A-Za-z][\w-]*)", prog.strip()) if isinstance(prog, str) else None
    return found.group(1) if found else ""


def _dispatched(module: ast.Module) -> set[str]:
    """Words the module compares a value with or keys a table by (``command == "lock"``,
    ``{"lock": cmd_lock}``, ``case "lock":``): the names of a hand-made dispatch."""
    words: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
        elif isinstance(node, ast.Dict):
            parts = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.MatchValue):
            parts = [node.value]
        else:
            continue
        words |= {
            p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)
        }
    return words


class _Helper:
    """A module function that adds arguments to the parser it is given
    (``def add_common_args(parser): parser.add_argument("--store")``)."""

    def __init__(self, node: ast.FunctionDef) -> None:
        self.params = [a.arg for a in node.args.args]
        self.calls = sorted(
            (n for n in ast.walk(node) if isinstance(n, ast.Call)),
            key=lambda n: (n.lineno, n.col_offset),
        )


def _factories(module: ast.Module) -> dict[str, tuple[str, ast.Call]]:
    """Functions that only return a new subcommand's parser (``def command(name): return
    sub.add_parser(name)``, a docstring allowed) → the subparsers variable they add to, and
    that call (read at each call of the function, not where it stands)."""
    found: dict[str, tuple[str, ast.Call]] = {}
    for node in ast.walk(module):
        if not isinstance(node, ast.FunctionDef):
            continue
        body = node.body[1:] if ast.get_docstring(node) is not None else node.body
        if len(body) != 1 or not isinstance(body[0], ast.Return):
            continue
        call = body[0].value
        if not isinstance(call, ast.Call) or not call.args:
            continue
        receiver, method = _callee(call)
        first = call.args[0]
        params = {a.arg for a in node.args.args}
        if method == "add_parser" and receiver and isinstance(first, ast.Name):
            if first.id in params:
                found[node.name] = (receiver, call)
    return found


def _loop_values(module: ast.Module) -> dict[int, dict[str, list[str]]]:
    """id(call) → for each variable of a loop around it over literal words (``for name in
    ("verdict", "change-targets"):``), those words."""
    found: dict[int, dict[str, list[str]]] = {}
    for loop in ast.walk(module):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)):
            continue
        items = loop.iter.elts if isinstance(loop.iter, ast.Tuple | ast.List) else []
        words = [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if not words or len(words) != len(items):
            continue
        for statement in loop.body:
            for call in ast.walk(statement):
                if isinstance(call, ast.Call):
                    found.setdefault(id(call), {})[loop.target.id] = words
    return found


def _helpers(module: ast.Module, targets: dict[int, str]) -> dict[str, _Helper]:
    """Module-level functions that only add arguments to a parser they are given
    (``add_argument`` on a parameter, nothing else of argparse), and that the module calls
    with a parser it made.  A function that makes a parser, adds subcommands or rebinds its
    parameter (``def get_parser(parser=None): parser = parser or ArgumentParser()``) is read
    where it stands, as the rest of the module."""
    made = {
        name
        for call in ast.walk(module)
        if isinstance(call, ast.Call)
        and _callee(call)[1] in ("ArgumentParser", "add_parser", "add_argument_group")
        and (name := targets.get(id(call), ""))
    }
    called = {
        _callee(c)[1]
        for c in ast.walk(module)
        if isinstance(c, ast.Call)
        and not _callee(c)[0]
        and any(ast.unparse(a) in made for a in [*c.args, *(k.value for k in c.keywords)])
    }
    found: dict[str, _Helper] = {}
    for node in module.body:
        if not isinstance(node, ast.FunctionDef) or node.name not in called:
            continue
        helper = _Helper(node)
        adds = [c for c in helper.calls if _callee(c)[1] == "add_argument"]
        builds = any(
            _callee(c)[1] in ("ArgumentParser", "add_subparsers", "add_parser")
            for c in helper.calls
        )
        rebinds = any(
            isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign)
            and any(
                isinstance(t, ast.Name) and t.id in helper.params
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            )
            for n in ast.walk(node)
        )
        if adds and all(_callee(c)[0] in helper.params for c in adds) and not (builds or rebinds):
            found[node.name] = helper
    return found


def _apply(
    helpers: dict[str, _Helper],
    name: str,
    call: ast.Call,
    parsers: dict[str, Command],
    names: Names,
    depth: int,
) -> None:
    """The arguments helper ``name`` adds, on the parsers ``call`` passes it."""
    helper = helpers[name]
    given = {p: ast.unparse(a) for p, a in zip(helper.params, call.args, strict=False)}
    given.update({k.arg: ast.unparse(k.value) for k in call.keywords if k.arg})
    local = {p: parsers[v] for p, v in given.items() if v in parsers}
    if not local or depth > 3:
        return
    for inner in helper.calls:
        receiver, method = _callee(inner)
        if method == "add_argument" and receiver in local:
            param = _argparse_param(inner, names)
            if param is not None:
                add_param(local[receiver], param)
        elif not receiver and method in helpers and method != name:
            _apply(helpers, method, inner, local, names, depth + 1)


def _inherit(command: Command, call: ast.Call, parsers: dict[str, Command]) -> None:
    """The arguments of the ``parents=[common]`` parsers, on ``command``."""
    parents = _kw(call, "parents")
    if isinstance(parents, (ast.List, ast.Tuple)):
        for element in parents.elts:
            parent = parsers.get(ast.unparse(element))
            for param in parent.params if parent is not None else []:
                add_param(command, copy.copy(param))  # each subcommand its own


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
    param.rest = kind == "positional" and nargs in ("...", "A...")
    if action == "BooleanOptionalAction":
        param.aliases.append("--no-" + param.name.removeprefix("--"))
    # `--set a b` (nargs) takes its values after one flag; `--tag a --tag b` (append) repeats.
    param.spread = (
        bool(flags)
        and action not in ("append", "extend")
        and (nargs in _ARRAY_NARGS or (isinstance(nargs, int) and nargs > 1))
    )
    param.count = nargs if isinstance(nargs, int) and param.spread else 0
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
