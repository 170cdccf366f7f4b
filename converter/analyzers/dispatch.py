"""The command one word of a dispatching program runs: its own positionals, as its lines show.

A program that dispatches on its first word without declaring subcommands (``const [command,
...args] = process.argv.slice(2)`` then ``switch (command)``; a shell ``case "$1"``) has no
parser to say what each command takes.  Its documented lines do::

    node $WDS search <keyword>                 # Find components by keyword
    node $WDS components <Name1> <Name2>...    # several at once
    node $WDS testkit <Name> [method]
    node $WDS search form input validation

Each command gets the positionals of its own lines — never those of its siblings (which made
one pipeline take ``keyword, text, text_2, text_2_2, ...``): names from the line with the most
placeholders (``<keyword>`` → keyword, ``"<ExampleName>"`` → example_name), optional when
bracketed (``[method]``), and the last one takes every remaining word (an array, named in the
plural) when the line says so (``<Name2>...``) or another line of the command gives more words
than the placeholders name (``search form input validation``).  The program's flags stay; its
description is the program's, not the command's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from skill2app.converter.inventory.programs.interface import Command, Param
from skill2app.converter.inventory.programs.scripts import positional_name

_ELLIPSIS = re.compile(r"(?:\.\.\.|…)$")
_PLACEHOLDER = re.compile(r"^\[?<[^<>]+>\]?(?:\.\.\.|…)?$|^\[[^\[\]]+\](?:\.\.\.|…)?$|^\{[^{}]+\}$")


def dispatched(cli: Command, lines: Sequence[Sequence[str]]) -> Command:
    """The command a dispatched word runs, from the words its documented ``lines`` give after
    it (each line's positionals, the word itself left out)."""
    flags = [p for p in cli.params if p.kind == "flag"]
    lines = [[w for w in line if w not in ("...", "…")] for line in lines]
    named = max(lines, key=lambda ws: sum(bool(_PLACEHOLDER.match(w)) for w in ws), default=[])
    if not named:
        return Command(cli.framework, "", flags)
    many = bool(_ELLIPSIS.search(named[-1])) or any(len(line) > len(named) for line in lines)
    names = [_name(word) for word in named]
    if many and len(names) > 1 and _stem(names[-1]) == _stem(names[-2]) != names[-1]:
        names.pop()  # <Name1> <Name2>...: one list of names
        named = named[:-1]
    params = []
    for index, (word, name) in enumerate(zip(named, names, strict=True)):
        last = index == len(names) - 1
        optional = word.startswith("[")
        if last and many:
            name = _plural(_stem(name))
        params.append(
            Param(
                name,
                "positional",
                name,
                type="array" if last and many else "string",
                required=not optional,
                source="invocation",
                rest=last and many,
                certain=True,
            )
        )
    return Command(cli.framework, "", [*params, *flags])  # the program's description is not its


def _name(word: str) -> str:
    """``<keyword>`` → keyword, ``[method]`` → method, ``<Name2>...`` → name2; a value shown
    as such (``table``) gets a name by its kind (``text``)."""
    text = _ELLIPSIS.sub("", word.strip("\"'"))
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1]
        text = inner if inner.startswith("<") else f"<{inner}>"
    if text.startswith("<"):  # <ExampleName> → example_name
        text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return positional_name(text)


def _stem(name: str) -> str:
    return re.sub(r"_?\d+$", "", name)


def _plural(name: str) -> str:
    if name.endswith("s"):
        return name
    return name[:-1] + "ies" if re.search(r"[^aeiou]y$", name) else name + "s"
