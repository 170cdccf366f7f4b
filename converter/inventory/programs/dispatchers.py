"""A Python program that hands its command line to another program's ``main``.

openclaw's ``cli.py`` takes a subcommand word (``choices=list(SUBCOMMANDS)``) and the rest of
the line (``nargs=argparse.REMAINDER``), looks the word up in a table of the modules it
imports (``SUBCOMMANDS = {"audit": audit, "diff": compare, ...}``) and calls that module's
``main(parsed.args)``.  Read alone, its interface is two positionals, and every documented
flag (``cli.py copy gateway-provider --from 甲虾 --alias``) was unknown.  Each module beside
it is a program with its own parser: those parsers are the dispatcher's subcommands, one
word per module (``diff`` and its alias ``compare``: the one the documents use).

A shim is the simplest dispatcher: mentat-collaboration-audit's ``generate_final_report.py``
puts ``scripts/core`` on ``sys.path``, imports ``main`` from ``engine`` and runs it, so its
command line is ``engine.py``'s parser (``hand_to_main``).
"""

from __future__ import annotations

import ast
import copy
import posixpath

from skill2app.converter.inventory.imports import sys_path_dirs
from skill2app.converter.inventory.programs.facts import Program
from skill2app.converter.inventory.programs.interface import Command


def dispatch_to_modules(programs: list[Program], sources: dict[str, str]) -> list[Program]:
    """Give each dispatcher the parsers of the modules it dispatches to as its subcommands;
    the programs changed (their documented commands are to be read again)."""
    by_path = {p.path: p for p in programs}
    changed = []
    for program in programs:
        cli = program.cli
        if program.language != "python" or cli is None or cli.subcommands:
            continue
        word = next((p for p in cli.params if p.kind == "positional" and p.choices), None)
        rest = [p for p in cli.params if p.kind == "positional" and p.rest]
        if word is None or not rest:
            continue
        table = _module_table(sources.get(program.path, ""))
        folder = posixpath.dirname(program.path)
        shown = {w for inv in program.invocations for w in inv.argv}
        words = sorted(map(str, word.choices or []), key=lambda w: w not in shown)
        subcommands, reached = {}, set()
        for choice in words:  # one word per module: the one the documents use ("diff")
            module = by_path.get(posixpath.join(folder, f"{table.get(choice, '')}.py"))
            if module is None or module.cli is None or not module.cli.params:
                continue
            if module.path not in reached:
                subcommands[choice] = copy.deepcopy(module.cli)
                subcommands[choice].verdicts = dict(module.verdicts)  # audit's exit 1: errors
                reached.add(module.path)
        if len(subcommands) < 2 or len(reached) < len(set(table.values())) / 2:
            continue
        kept = [p for p in cli.params if p is not word and p not in rest]
        program.cli = Command(cli.framework, cli.description, kept, subcommands)
        changed.append(program)
    return changed


def hand_to_main(programs: list[Program], sources: dict[str, str]) -> list[Program]:
    """Give each Python program with no parser of its own that runs the ``main`` it imports
    from a program of the skill (``from engine import main``) that program's parser and
    verdicts; the programs changed."""
    by_path = {p.path: p for p in programs}
    changed = []
    for program in programs:
        if program.language != "python" or (program.cli and program.cli.framework != "none"):
            continue  # its own parser (what the documents show of it is no parser)
        source = sources.get(program.path, "")
        module = _main_from(source)
        if not module:
            continue
        here = posixpath.dirname(program.path)
        folders = [here]
        folders += sys_path_dirs(program.path, source)
        rel = module.replace(".", "/") + ".py"
        found = (posixpath.normpath(posixpath.join(d, rel)) for d in folders)
        target = next((by_path[f] for f in found if f in by_path), None)
        if target is None or target is program or target.cli is None or target.cli.is_empty():
            continue
        program.cli = copy.deepcopy(target.cli)
        program.verdicts = dict(target.verdicts)
        changed.append(program)
    return changed


def _main_from(source: str) -> str:
    """The module a script imports ``main`` from at its top level and calls under ``if
    __name__ == "__main__"`` ("engine"), else ""."""
    if "main" not in source:
        return ""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    module = next(
        (
            node.module
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
            and node.module
            and not node.level
            and any(a.name == "main" and not a.asname for a in node.names)
        ),
        "",
    )
    try:  # walked, never unparsed: a deep test parses, then would not unparse
        runs = any(
            isinstance(node, ast.If)
            and any(
                isinstance(c, ast.Constant) and c.value == "__main__" for c in ast.walk(node.test)
            )
            and any(
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "main"
                for call in ast.walk(node)
            )
            for node in tree.body
        )
    except RecursionError:
        return ""
    return module if runs else ""


def _module_table(source: str) -> dict[str, str]:
    """word → module name, from the module-level dicts whose values are modules the source
    imports (``{"audit": audit, "diff": compare}``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    imported = {
        (alias.asname or alias.name)
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    table: dict[str, str] = {}
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if not isinstance(value, ast.Dict):
            continue
        for key, item in zip(value.keys, value.values, strict=True):
            if (
                isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and isinstance(item, ast.Name)
                and item.id in imported
            ):
                table[key.value] = item.id
    return table
