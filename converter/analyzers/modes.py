"""Modes of one program: the tasks a single command line does, told apart by its flags.

A program without subcommands or an action flag can still do several tasks, each shown in a
section of its own: ``generate_qr.py --data URL`` under "Generate Single QR Code",
``generate_qr.py --batch list.csv --output-dir out/`` under "Generate Batch QR Codes",
``generate_qr.py --vcard --name ...`` under "Generate vCard QR Code".  Each such section is a
mode, and a mode is one main path (one pipeline), when

- every use of the program is under a section titled as a task (``triggers.as_task``), or
  repeats the flags of one such section (a quick start showing one mode again);
- there are two tasks or more, and each task's commands give a flag no other task's give
  (its *own* flags): the basic use and the same use "with more options" are one task, not
  two (the basic one gives no flag of its own).

A mode's path runs the program with the switches its commands always give (``--vcard``
fixed on), requires the value flag its commands always give first (``--batch``), and offers
no flag that belongs to another mode: another mode's switches and required values, the
flags only another mode's commands give, and the flags whose help names another mode
("Contact name for vCard").  What the program's parser declares and no mode claims (an
option with a default, "Pixels per QR module") is offered in every mode.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from skill2app.converter.analyzers.triggers import as_task
from skill2app.converter.inventory.invocations import Invocation
from skill2app.converter.inventory.programs.interface import Command, ParsedArgs

MAX_MODES = 6


@dataclass(frozen=True)
class Mode:
    """What tells one task of a program from its others."""

    task: str  # the title of its section, as a task: "generate batch QR codes"
    switches: tuple[str, ...]  # boolean flags every command of the task gives: fixed on
    key: str  # the value flag every command of the task gives first: required ("" if none)
    excluded: frozenset[str]  # flags of the other tasks: never offered here


def find_modes(
    cli: Command, parsed: list[tuple[Invocation, ParsedArgs]], title_of: Callable[[Invocation], str]
) -> list[tuple[Mode, list[Invocation]]]:
    """The program's modes with their commands, in the order the documents show them; none
    when its commands are one task (``title_of``: the title of the section showing one)."""
    groups: dict[str, list[tuple[Invocation, ParsedArgs]]] = {}
    loose: list[tuple[Invocation, ParsedArgs]] = []
    for inv, args in parsed:
        task = as_task(title_of(inv))
        if task:
            groups.setdefault(task, []).append((inv, args))
        else:
            loose.append((inv, args))
    if not 2 <= len(groups) <= MAX_MODES:
        return []
    given = {task: _flags(uses) for task, uses in groups.items()}
    own = {task: flags - _others(given, task) for task, flags in given.items()}
    if not all(own.values()):
        return []
    for inv, args in loose:  # a quick start repeating one task's command
        home = [t for t in groups if set(_names(args)) & own[t]]
        if len(home) != 1:
            return []
        groups[home[0]].append((inv, args))
    keys = {task: _key(cli, uses, own[task]) for task, uses in groups.items()}
    claims = {task: _claims(cli, own[task], *keys[task]) for task in groups}
    modes = []
    for task, uses in groups.items():
        others = set().union(*(claims[t] for t in groups if t != task))
        switches, key = keys[task]
        invocations = [inv for inv, _args in uses]
        modes.append((Mode(task, switches, key, frozenset(others)), invocations))
    return modes


def _flags(uses: list[tuple[Invocation, ParsedArgs]]) -> set[str]:
    return {name for _inv, args in uses for name in _names(args)}


def _names(args: ParsedArgs) -> list[str]:
    return [name for name, _value in args.flags]


def _others(given: dict[str, set[str]], task: str) -> set[str]:
    return set().union(*(flags for t, flags in given.items() if t != task))


def _always(uses: list[tuple[Invocation, ParsedArgs]]) -> list[str]:
    """The flags every command of a task gives, in the order the first one gives them."""
    first = _names(uses[0][1])
    return [f for f in dict.fromkeys(first) if all(f in _names(args) for _inv, args in uses)]


def _switch(cli: Command, flag: str, uses: list[tuple[Invocation, ParsedArgs]]) -> bool:
    """Whether ``flag`` is a switch each command turns on (``--vcard``), not a value."""
    param = cli.flag(flag)
    if param is not None and param.source != "invocation":
        return param.type == "boolean"
    return all(v is None for _inv, args in uses for n, v in args.flags if n == flag)


def _key(
    cli: Command, uses: list[tuple[Invocation, ParsedArgs]], own: set[str]
) -> tuple[tuple[str, ...], str]:
    """A task's switches (its own boolean flags every command turns on) and its key (the
    first of its own value flags every command gives)."""
    always = [f for f in _always(uses) if f in own]
    switches = tuple(f for f in always if _switch(cli, f, uses))
    return switches, next((f for f in always if f not in switches), "")


def _claims(cli: Command, own: set[str], switches: tuple[str, ...], key: str) -> set[str]:
    """The flags that belong to one task alone: its switches and key, its own flags that
    no parser gives a default (``--phone`` beside ``--vcard``), and the declared flags
    whose help names its switches or key ("Contact name for vCard")."""
    claimed = {*switches, *([key] if key else [])}
    for flag in own:
        param = cli.flag(flag)
        if param is None or param.source == "invocation" or param.default is None:
            claimed.add(flag)
    words = {w for f in claimed & {*switches, key} for w in _words(f)}
    for param in cli.params:
        if param.kind == "flag" and words & set(_words(param.help)):
            claimed.add(param.name)
    return claimed


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]{3,}", text.lower()) if w not in _COMMON]


# Words flags share across tasks: "--output" and "--output-dir" name no task.
_COMMON = frozenset(
    "output input file path dir directory name type format mode size the for and with".split()
)
