"""What the commands that run a program show of its interface, merged into its facts.

The commands a skill's documents show running a program (and, when none does, those of its
own header: ``own_examples``) complete what its code declares (``merge_invocations``): a
flag or positional that a program reading its own argv (a script, a shell or Node program)
does not declare is added, typed by the value shown (``20`` an integer, none a boolean); a
flag an argparse, click or typer program does not declare is a warning; a placeholder
(``<vault>``) names a positional its usage line named in no input's words.  The values each
flag is shown with are collected (``values_seen``); a flag's choices, a program's
subcommands and the values of a mode-like flag (``--format json``) or of one shown with two
become its enumerations.  The values a script switches on (``case "$1" in``) are the
choices of the flag of that name, or its subcommands (``apply_dispatch``).
"""

from __future__ import annotations

import re

from skill2app.converter.inventory.invocations import is_placeholder
from skill2app.converter.inventory.programs.facts import Program
from skill2app.converter.inventory.programs.interface import (
    Command,
    Param,
    add_param,
    as_run,
    dest_of,
    parse_argv,
)
from skill2app.converter.inventory.programs.scripts import positional_name, usage_positionals

ENUM_FLAG_NAMES = {
    "action", "command", "cmd", "mode", "op", "operation", "type", "kind", "format", "fmt",
    "level", "style", "task", "method", "subcommand", "sort", "order", "lang", "range",
}  # fmt: skip
_IDENT_VALUE = re.compile(r"^[A-Za-z][A-Za-z0-9_:-]*$")
_SUBCOMMAND_VARS = ("1", "cmd", "command", "subcommand", "action", "verb")


def apply_dispatch(program: Program, dispatch: dict[str, list[str]]) -> None:
    """Values a script switches on become the choices of the flag with that name, or the
    program's subcommands when no flag carries them."""
    cli = program.cli
    if cli is None:
        return
    for var, values in sorted(dispatch.items()):
        flag = next((p for p in cli.params if p.kind == "flag" and p.dest == dest_of(var)), None)
        if flag is not None:
            default = [flag.default] if isinstance(flag.default, str) else []
            flag.choices = flag.choices or sorted(set(values) | set(default))
            flag.type = "string"
        elif var.lower() in _SUBCOMMAND_VARS and not cli.subcommands:
            program.enumerations["<command>"] = values


def merge_invocations(program: Program) -> None:
    """Complete the interface with what SKILL.md shows and collect the values seen."""
    if program.cli is None:
        program.cli = Command("none")
    seen: dict[str, set[str]] = {}
    commands_seen: set[str] = set()
    for inv in program.invocations:
        parsed = parse_argv(inv.argv, program.cli)
        target = program.command_for(parsed.subcommand) or program.cli
        reads = as_run(program.cli, parsed.subcommand)  # its options before the subcommand too
        positionals = parsed.positionals
        if program.enumerations.get("<command>") and positionals:
            if not is_placeholder(positionals[0]):  # `pushover-notify ...`: no command
                commands_seen.add(positionals[0])
            positionals = positionals[1:]
        for name, value in parsed.flags:
            if reads.flag(name) is None or reads is program.cli:
                _note_flag(program, target, name, value)
            if value is not None and not is_placeholder(value):
                seen.setdefault(name, set()).add(value)
        _note_positionals(program, target, positionals)
        _name_positionals(target, positionals)
        if parsed.subcommand and not is_placeholder(parsed.subcommand):
            commands_seen.add(parsed.subcommand)
    program.values_seen = {k: sorted(v) for k, v in seen.items()}
    _enumerations(program, commands_seen)


_IMPLICIT_HELP = frozenset({"-h", "--help"})


def _note_flag(program: Program, command: Command, name: str, value: str | None) -> None:
    if command.flag(name) is not None:
        return
    if command.framework not in ("none", "shell", "node"):
        if name not in _IMPLICIT_HELP:  # argparse, click, typer, commander add it themselves
            program.warnings.append(f"SKILL.md passes {name}, which the program does not declare")
        return
    param = Param(name, "flag", dest_of(name), type=_type_of(value), source="invocation")
    if name.lstrip("-") in program.insists:  # the program stops without it
        param.required = param.certain = True
    add_param(command, param)


def _name_positionals(command: Command, words: list[str]) -> None:
    """A positional whose usage line names it in words that make no input name (``python
    init_vault.py <目标目录>`` gives ``arg``) takes the name of the placeholder a documented
    command shows in its place (``--refresh-tools <vault>``)."""
    used = {p.dest for p in command.params}
    for param, word in zip(command.positionals(), words, strict=False):
        better = positional_name(word) if is_placeholder(word) else ""
        if re.fullmatch(r"arg(?:_\d+)?", param.dest) and better and better not in used:
            param.name = param.dest = better
            used.add(better)


def _note_positionals(program: Program, command: Command, words: list[str]) -> None:
    # "--file <path> [--file <path> ...]": the ellipsis repeats a flag, it is no argument
    words = [w for w in words if w.strip("[]").strip() not in ("...", "…")]
    declared = command.positionals()
    if command.framework not in ("none", "shell", "node") or len(words) <= len(declared):
        return
    if any(p.type == "array" or p.rest for p in declared):
        return  # `kobo_get.sh "$ID1" "$ID2" "$ID3"`: more of `REVISION_ID [REVISION_ID ...]`
    cli = program.cli or command
    named = usage_positionals(
        program.doc, {*program.enumerations.get("<command>", []), *cli.subcommands}
    )
    for index, word in enumerate(words[len(declared) :], start=len(declared)):
        dest = named[index] if index < len(named) else positional_name(word)
        used = {p.dest for p in command.params}
        base, count = dest, 1
        while dest in used:  # text, text_2, text_3 (never text_2_2)
            count += 1
            dest = f"{base}_{count}"
        optional = word.startswith("[") and word.endswith("]")  # `[timeout_seconds]`
        add_param(
            command,
            Param(
                dest,
                "positional",
                dest,
                type=_type_of(word),
                required=not optional,
                source="invocation",
                certain=optional,
            ),
        )


def _type_of(value: str | None) -> str:
    if value is None:
        return "boolean"
    if re.fullmatch(r"-?\d+", value):
        return "integer"
    if re.fullmatch(r"-?\d+\.\d+", value):
        return "number"
    return "string"


def _enumerations(program: Program, commands_seen: set[str]) -> None:
    cli = program.cli
    assert cli is not None
    for command in [cli, *cli.subcommands.values()]:
        for param in command.params:
            if param.kind == "flag" and param.choices:
                program.enumerations.setdefault(param.name, [str(c) for c in param.choices])
    for name, values in program.values_seen.items():
        if name in program.enumerations or not all(_IDENT_VALUE.match(v) for v in values):
            continue
        if dest_of(name) in ENUM_FLAG_NAMES or len(values) >= 2:
            program.enumerations[name] = values
    if cli.subcommands:
        program.enumerations["<command>"] = sorted(cli.subcommands)
    elif "<command>" in program.enumerations:
        known = set(program.enumerations["<command>"])
        program.enumerations["<command>"] = sorted(known | commands_seen)
