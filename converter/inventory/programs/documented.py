"""What documentation says about a program's command line, merged into its interface.

Sources, weakest last: the program's own declaration (argparse, click, typer, commander,
yargs, ``util.parseArgs``: complete, never overridden), its usage text (a ``Usage:`` line of
its docstring or leading comment, option lines under it), and the skill's documents (flag
tables, option lists, "Optional:"/"可选：" labels, bracketed groups in the commands they
show).  For a program without a complete declaration the documents decide whether a
parameter is required, what type it has (a switch is boolean, ``N`` or ``20`` an integer,
``x...`` an array), its choices and its default; for a declared one they only add help
and defaults it lacks.
"""

from __future__ import annotations

from collections.abc import Collection

from skill2app.converter.inventory.programs.interface import (
    AUTHORITATIVE,
    Command,
    Param,
    add_param,
    dest_of,
)
from skill2app.converter.inventory.programs.scripts import split_usage
from skill2app.converter.inventory.programs.usage import UsageArg, option_line, usage_args


def usage_of(doc: str, name: str = "") -> list[UsageArg]:
    """The arguments of the first usage line of a program's doc (``Usage: x.py A [B]`` on
    one line, or ``Usage:`` with the command on the next line), with what its option lines
    (``--count N  How many (default: 20)``) add.  With ``name`` (the program's file name),
    a usage line must run that program: ``Usage: from office.soffice import run`` shows how
    to import a module, not its command line."""
    lines = doc.split("\n")
    found: list[UsageArg] = []
    for index, line in enumerate(lines):
        split = split_usage(line)
        if split is None:
            continue
        text, command, after = split[0], line, index + 1
        if not text and index + 1 < len(lines):
            command, after = lines[index + 1].strip(), index + 2
            following = split_usage("Usage: " + command)
            text = following[0] if following else ""
        if name and not _runs(command, name):
            continue
        found = usage_args(text)
        _alternatives(found, lines[after:], name)
        break
    stem = name.rsplit(".", 1)[0]
    for line in lines:
        option = option_line(line)
        if option is None and stem and line.strip().startswith(stem + " "):
            option = option_line(line.strip()[len(stem) :])  # "pushover-prune --keep N  ..."
        if option is not None:
            merge_arg(found, option)
    return found


def _alternatives(found: list[UsageArg], lines: list[str], name: str) -> None:
    """Complete the flags of a usage line with the lines right under it that run the same
    program another way (``x.js --url URL`` then ``x.js --file-token T --type docx``): a
    flag that one of them leaves out is optional, and theirs are optional flags."""
    for line in lines:
        # `kobo_query.py ... --format ids | kobo_get.sh [options]`: only the part that runs it
        line = next((part for part in line.split(" | ") if _runs(part, name)), line)
        split = split_usage(line) or split_usage("Usage: " + line.strip())  # one more usage line
        if not line.strip() or split is None or not name or not _runs(line, name):
            return
        flags = [a for a in usage_args(split[0]) if a.kind == "flag"]
        spelled = {s for a in flags for s in (a.name, *a.aliases)}
        known = {s for a in found if a.kind == "flag" for s in (a.name, *a.aliases)}
        for arg in found:
            if arg.kind == "flag" and not spelled & {arg.name, *arg.aliases}:
                arg.optional = True
        for arg in flags:
            if arg.name not in known:
                arg.optional = True
                found.append(arg)
                known |= {arg.name, *arg.aliases}


def _runs(command: str, name: str) -> bool:
    """Whether a usage line's command runs the program ``name`` (``x.py``, ``x``, ``$0``)."""
    stem = name.rsplit(".", 1)[0]
    words = command.replace("/", " ").split()
    return "$0" in command or any(w in (name, stem) or w.endswith(name) for w in words[:6])


def merge_arg(found: list[UsageArg], arg: UsageArg) -> None:
    """Add ``arg`` to ``found``, or complete the flag of that name with what it says."""
    known = next((a for a in found if a.kind == "flag" and arg.name in (a.name, *a.aliases)), None)
    if known is None:
        found.append(arg)
        return
    known.aliases = sorted({*known.aliases, *arg.aliases} - {known.name})
    known.help = known.help or arg.help
    known.default = known.default if known.default is not None else arg.default
    known.choices = known.choices or arg.choices
    known.value = known.value or arg.value


def apply_usage(command: Command, args: list[UsageArg], literals: Collection[str] = ()) -> None:
    """Complete ``command`` with documented ``args``.  ``literals``: words that are the
    program's subcommands or dispatch values (a usage line then shows one of several
    command lines, so its positionals are not declared)."""
    complete = command.framework in AUTHORITATIVE
    for arg in args:
        if arg.kind == "flag":
            _flag(command, arg, complete)
    positionals = [a for a in args if a.kind == "positional" and a.name not in literals]
    if complete or literals or command.positionals():
        return
    for arg in positionals:
        add_param(
            command,
            Param(
                arg.name,
                "positional",
                arg.name,
                type=arg.type,
                choices=arg.choices,
                required=not arg.optional,
                source="usage",
                rest=arg.rest,
                certain=True,
            ),
        )


def _flag(command: Command, arg: UsageArg, complete: bool) -> None:
    param = command.flag(arg.name) or next(
        (command.flag(a) for a in arg.aliases if command.flag(a)), None
    )
    if param is None:
        if complete:
            return  # the program does not have it; check_plan says so if a step passes it
        param = Param(arg.name, "flag", dest_of(arg.name), source="usage")
        add_param(command, param)
    param.help = param.help or arg.help
    if param.default is None and arg.default is not None:
        param.default = arg.default
    if complete:
        return
    param.aliases = sorted({*param.aliases, *arg.aliases} - {param.name})
    param.type = param.documented_type(arg.type)
    param.choices = param.choices or arg.choices
    if param.certain and param.required and param.source != "usage":
        pass  # the program stops without it, whatever its help says
    elif arg.optional or arg.default is not None or param.default is not None:
        param.required = False
    elif not param.certain:
        param.required = not arg.switch
    param.certain = True
