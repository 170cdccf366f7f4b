"""The command-line interface of one program: its flags, positionals and subcommands.

Filled statically (Python ``ast`` for argparse/click/typer, a light scan of shell and Node
sources) and completed by what SKILL.md shows.  Types use the plan's vocabulary:
string | integer | number | boolean | array.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Frameworks whose declaration is complete: every flag the program takes is declared.
AUTHORITATIVE = ("argparse", "click", "typer", "commander", "yargs")
# What an argument naming the file a program writes is called: a positional only by these
# (``gen.py TYPE OUTPUT_PATH``: round 28's tool-drawio), a flag by these or a short word
# (``--output``, ``-o``, ``--dest``) that as a positional could name anything.
OUTPUT_FILE_NAMES = frozenset(
    {"output", "output_path", "output_file", "outfile", "out_file", "out_path"}
)
OUTPUT_FILE_DESTS = OUTPUT_FILE_NAMES | {"out", "o", "dest"}
_NOT_IDENT = re.compile(r"[^a-z0-9_]+")


def dest_of(name: str) -> str:
    """``--due-date`` → ``due_date``; ``-n`` → ``n``; ``InputFile`` → ``inputfile``."""
    text = _NOT_IDENT.sub("_", name.lstrip("-").lower()).strip("_")
    if not text:
        return "arg"
    return f"arg_{text}" if text[0].isdigit() else text


@dataclass
class Param:
    name: str  # "--action" for a flag, the destination for a positional
    kind: str  # "flag" | "positional"
    dest: str
    type: str = "string"
    aliases: list[str] = field(default_factory=list)  # other spellings: "-a", "--no-color"
    choices: list[Any] | None = None
    default: Any = None
    required: bool = False
    help: str = ""
    source: str = ""  # argparse | click | typer | commander | yargs | shell | node | usage |
    # documentation | invocation
    spread: bool = False  # an array flag given once, then every value (argparse nargs="+")
    count: int = 0  # how many values a spread flag takes (argparse nargs=2); 0: up to a flag
    rest: bool = False  # a positional taking every remaining word (REMAINDER, `-- cmd...`)
    certain: bool = False  # whether it is required is declared or documented, not guessed
    typed: bool = False  # its type comes from the program's code, not from a guess
    valued: bool = False  # the program's code reads a value after it: never a switch

    @property
    def names_output_file(self) -> bool:
        """Whether it is a flag naming the file the program writes (``--output report.md``)."""
        return self.kind == "flag" and self.type == "string" and self.dest in OUTPUT_FILE_DESTS

    def documented_type(self, kind: str) -> str:
        """Its type once documentation says ``kind``: its own when the program's code knew
        better (a switch it sets to true, a value it parses as a number, a value it reads)."""
        return self.type if self.typed or (self.valued and kind == "boolean") else kind

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "dest": self.dest,
            "type": self.type,
            "required": self.required,
            "source": self.source,
        }
        if self.aliases:
            data["aliases"] = sorted(self.aliases)
        if self.choices is not None:
            data["choices"] = list(self.choices)
        if self.default is not None:
            data["default"] = self.default
        if self.help:
            data["help"] = self.help
        if self.spread:
            data["spread"] = True
        if self.rest:
            data["rest"] = True
        return data


@dataclass
class Command:
    framework: str  # argparse | click | typer | shell | node | none
    description: str = ""
    params: list[Param] = field(default_factory=list)
    subcommands: dict[str, Command] = field(default_factory=dict)
    # statuses the code behind a subcommand gives as answers (a dispatcher's module's)
    verdicts: dict[int, str] = field(default_factory=dict)

    def flag(self, spelling: str) -> Param | None:
        """The flag spelled ``spelling`` (``--x`` or ``--x=...`` prefix not handled here)."""
        for param in self.params:
            if param.kind == "flag" and (param.name == spelling or spelling in param.aliases):
                return param
        return None

    def positionals(self) -> list[Param]:
        return [p for p in self.params if p.kind == "positional"]

    def is_empty(self) -> bool:
        return not self.params and not self.subcommands

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"framework": self.framework}
        if self.description:
            data["description"] = self.description
        data["params"] = [p.to_dict() for p in self.params]
        if self.subcommands:
            data["subcommands"] = {
                name: self.subcommands[name].to_dict() for name in sorted(self.subcommands)
            }
        return data


def as_run(cli: Command, subcommand: str) -> Command:
    """What a run of ``subcommand`` accepts: its own parameters, then the program's options
    given before it (argparse ``mail.py --mailbox 163 send``) that it does not define itself
    (``before``).  The program's own command when there is no such subcommand."""
    own = cli.subcommands.get(subcommand) if subcommand else None
    if own is None:
        return cli
    return Command(own.framework, own.description, [*own.params, *before(cli, subcommand)])


def before(cli: Command, subcommand: str) -> list[Param]:
    """The program's flags that go before ``subcommand`` on its command line."""
    own = cli.subcommands.get(subcommand) if subcommand else None
    if own is None:
        return []
    return [p for p in cli.params if p.kind == "flag" and own.flag(p.name) is None]


def add_param(command: Command, param: Param) -> None:
    """Add ``param`` unless one with the same spelling is there already."""
    for existing in command.params:
        if existing.kind == param.kind and existing.name == param.name:
            return
    command.params.append(param)


def first_paragraph(text: str | None) -> str:
    """The first paragraph of a docstring/help text, on one line: up to a blank line or a
    line that opens another field of a header ("Usage: ...", "Outputs:").  A header written
    as fields says what the program does in its ``Purpose:``/``Description:`` line ("#
    Template: Content Capture Workflow / # Purpose: Extract content from web pages / #
    Usage: ..."): that line, not the title and usage run together."""
    if not text:
        return ""
    lines = [line.strip() for line in text.strip().split("\n")]
    first = lines[: lines.index("")] if "" in lines else lines  # the first paragraph
    for i, line in enumerate(first):
        purpose = _PURPOSE.match(line)
        if purpose:  # "Purpose: Extract ...", or "Purpose:" over the text
            said = purpose.group(1) or (lines[i + 1] if i + 1 < len(lines) else "")
            rest = lines[i + 1 + (not purpose.group(1)) :]
            return " ".join(" ".join(_field(said, rest)).split())
    return " ".join(" ".join(_field(lines[0], lines[1:])).split())


# The field of a header that says what the program does (not an argument named
# "description" in an "Args:" list, which comes after the first paragraph).
_PURPOSE = re.compile(
    r"^(?:purpose|description|summary|what it does|功能|用途|描述|作用)\s*[:：]\s*(.*)$", re.I
)
# A line opening another field of a header (the usage, the outputs, the options).
_FIELD = re.compile(
    r"^(?:usage|examples?|outputs?|options|arguments|args|requires|requirements|dependencies|"
    r"environment|env|exit codes?|returns|author|license|version|用法|示例|输出|参数|依赖|返回)"
    r"\s*[:：]",
    re.I,
)


def _field(first: str, rest: list[str]) -> list[str]:
    """``first`` and the lines after it up to a blank line or another field."""
    lines = [first]
    for line in rest:
        if not line or _FIELD.match(line):
            break
        lines.append(line)
    return lines


@dataclass
class ParsedArgs:
    """One invocation's words read against a (possibly unknown) command line."""

    subcommand: str = ""
    flags: list[tuple[str, str | None]] = field(default_factory=list)  # (canonical name, value)
    positionals: list[str] = field(default_factory=list)


def parse_argv(argv: list[str], command: Command | None) -> ParsedArgs:
    """Split ``argv`` into subcommand, flags and positionals.

    A flag the command declares takes a value unless it is boolean (a spread one: every word
    up to the next flag, or its ``count``); an undeclared flag takes the next word as its
    value; neither ever takes a word that is itself a flag.
    """
    parsed = ParsedArgs()
    current = command
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            parsed.positionals.extend(argv[i + 1 :])
            break
        if _is_flag_word(word):
            i = _take_flag(argv, i, current, parsed)
            continue
        subs = current.subcommands if current is not None else {}
        if not parsed.subcommand and not parsed.positionals and word in subs:
            parsed.subcommand = word
            current = subs[word]
        else:
            parsed.positionals.append(word)
        i += 1
    return parsed


def _take_flag(argv: list[str], i: int, command: Command | None, parsed: ParsedArgs) -> int:
    word = argv[i]
    name, _, attached = word.partition("=")
    param = command.flag(name) if command is not None else None
    canonical = param.name if param is not None else name
    if attached or "=" in word:
        parsed.flags.append((canonical, attached))
        return i + 1
    nxt = argv[i + 1] if i + 1 < len(argv) else None
    is_flag = nxt is not None and _is_flag_word(nxt)
    takes_value = (
        param.type != "boolean"
        if param is not None and param.source != "invocation"
        else nxt is not None and not is_flag
    )
    if is_flag:
        takes_value = False  # `--auth-and-poll --open-id X`: no parser takes a flag as a value
    if takes_value and nxt is not None:
        parsed.flags.append((canonical, nxt))
        i += 2
        taken = 1
        while param is not None and param.spread and i < len(argv):  # `--exclude a b c`
            if _is_flag_word(argv[i]):
                break
            if param.count and taken >= param.count:  # `--size 800 600 in.png`: two
                break
            taken += 1
            parsed.flags.append((canonical, argv[i]))
            i += 1
        return i
    parsed.flags.append((canonical, None))
    return i + 1


def _is_flag_word(word: str) -> bool:
    """Whether a word of a command line is a flag (``-x``, ``--name``), not ``-`` nor ``-3``."""
    return word.startswith("-") and len(word) > 1 and not _is_number(word)


def _is_number(word: str) -> bool:
    return bool(re.fullmatch(r"-?\d+(\.\d+)?", word))
