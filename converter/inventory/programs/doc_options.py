"""Flags a skill's documents describe outside its commands: tables, lists, labelled lines.

Read from the prose of every Markdown file (code blocks left out):

- a Markdown table with a column of flags (``| `--page-size` | 可选 | 分页大小（默认 50） |``):
  whether a flag is optional, its type, default and description come from the other cells;
- a label and the flags after it: ``Optional: `--a` `--b```, ``可选：`--page-size 20```,
  ``Options:``;
- a line describing one flag (``- `--timeout`：轮询等待秒数（默认 60）``);
- the allowed values of a flag (``- `--align` 可选值：`left`、`center`（默认）、`right```).

``attach`` gives each to the program it belongs to: one that is run in that document and
whose source spells the flag, else the one program run in the same section.  What the
documents say completes a program without a complete declaration (type, choices, default,
optional); a declared one only gets help, defaults and a table's short aliases.  Optional
flags are remembered with the section they were described in, so the pipelines of the
commands there offer them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from skill2app.converter.inventory.markdown import Section
from skill2app.converter.inventory.programs.interface import (
    AUTHORITATIVE,
    Command,
    Param,
    dest_of,
)
from skill2app.converter.inventory.programs.program import Program
from skill2app.converter.inventory.programs.usage import (
    UsageArg,
    default_in,
    option_line,
    usage_args,
)

_FLAG_CELL = re.compile(r"^`?(--?[A-Za-z][\w-]*)(?:[ =]([^`]+))?`?$")
_OPTIONAL = re.compile(r"^(?:可选|optional|no|否|✗|×|-)$|可选(?!值)|\boptional\b", re.I)
_REQUIRED = re.compile(r"^(?:必填|必须|必需|required|yes|是|✓|√)$|必填|\brequired\b", re.I)
# A default cell saying the flag has none because it must be given ("required", "必填"; not
# "yes", which is a switch's default).
_MUST_GIVE = re.compile(r"required|必填|必须|必需", re.I)
_CONDITIONAL = re.compile(
    r"\S\s*时(?:必填|必须|必需|需要)|(?:必填|必须)\s*[（(][^）)]*时|"
    r"\brequired\s+(?:when|for|if|with|by)\b|\bonly\s+(?:when|for|with)\b",
    re.I,
)
_LABEL = re.compile(
    r"^\W*(?P<label>optional(?: flags| arguments| parameters)?|options|可选参数|可选|选项)"
    r"\W*[:：]",
    re.I,
)
_CHOICE_CUE = re.compile(
    r"可选值|取值|allowed values|possible values|one of|choices|values\s*[:：]", re.I
)
_DEFAULT_MARK = re.compile(r"^\s*[（(][^）)]*(?:默认|default)", re.I)
_TYPES = {
    "integer": "integer", "int": "integer", "number": "number", "数字": "integer",
    "整数": "integer", "bool": "boolean", "boolean": "boolean", "布尔": "boolean",
    "array": "array", "list": "array", "数组": "array", "string": "string", "str": "string",
    "字符串": "string", "text": "string",
}  # fmt: skip
_EMPTY = {"", "-", "—", "无", "none", "n/a", "null"}


@dataclass
class DocOption:
    arg: UsageArg
    file: str
    line: int
    scope: tuple[int, int]  # first and last line of the innermost section describing it
    optional: bool | None = None  # None: the document does not say
    required: bool = False  # its default cell says it must be given: `| --target | required |`
    type: str = ""  # a type the document names ("" when it names none)


def doc_options(
    file: str, lines: list[str], first_line: int, sections: list[Section]
) -> list[DocOption]:
    """Every flag a Markdown file describes in its prose (``lines`` start at file line
    ``first_line``)."""
    found: list[DocOption] = []
    fenced = False
    table: list[tuple[int, list[str]]] = []
    for offset, line in enumerate([*lines, ""]):
        number = first_line + offset
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.lstrip().startswith("|"):
            table.append((number, _cells(line)))
            continue
        if table:
            found += _table(file, table, sections)
            table = []
        found += [
            DocOption(arg, file, number, _scope(sections, number), optional)
            for arg, optional in _line(line)
        ]
    return found


def _cells(line: str) -> list[str]:
    # `google\|openai` is one cell: Markdown's escaped bar, a bar inside the cell's text
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [c.strip().replace("\\|", "|") for c in cells]


def _table(file: str, rows: list[tuple[int, list[str]]], sections: list[Section]) -> list:
    if len(rows) < 3 or not all(re.fullmatch(r":?-{2,}:?", c) for c in rows[1][1] if c):
        return []
    header = [c.lower() for c in rows[0][1]]
    found = []
    for number, cells in rows[2:]:
        flags = [i for i, c in enumerate(cells) if _FLAG_CELL.match(c)]
        if not flags:
            continue
        # `| --target | -t | ...`: the long spelling names it, a short one beside it is an alias
        flag_at = next((i for i in flags if cells[i].strip("`").startswith("--")), flags[0])
        match = _FLAG_CELL.match(cells[flag_at])
        assert match is not None
        value = (match.group(2) or "").strip()
        arg = UsageArg(match.group(1), "flag", value)
        shorts = [_FLAG_CELL.match(cells[i]) for i in flags if i != flag_at]  # `-t DIR` too
        arg.aliases = [m.group(1) for m in shorts if m and re.fullmatch(r"-[A-Za-z]", m.group(1))]
        if re.fullmatch(r"[\w.-]+(?:\|[\w.-]+)+", value):  # `--provider google\|openai`
            arg.choices = value.split("|")
        option = DocOption(arg, file, number, _scope(sections, number))
        for title, cell in zip(header, cells, strict=False):
            _cell(option, title, cell.strip("` "))
        described = " ".join(c for i, c in enumerate(cells) if i not in flags)
        arg.help = arg.help or described
        arg.default = arg.default if arg.default is not None else default_in(described)
        arg.choices = arg.choices or _marked_choices(described)
        if arg.default is None:
            arg.default = _marked_default(described)
        found.append(option)
    return found


def _cell(option: DocOption, title: str, cell: str) -> None:
    arg = option.arg
    if re.search(r"default|默认", title):
        said = cell.strip("()（）* ")
        if _MUST_GIVE.fullmatch(said):  # "(required)" is no default value
            option.optional, option.required = False, True  # but says it must be given
            return
        if _REQUIRED.fullmatch(said):  # "yes", "是": no value to take as a default
            return
        if cell.lower() not in _EMPTY:
            arg.default = cell
    elif re.search(r"type|类型", title):
        option.type = _TYPES.get(cell.lower(), "")
    elif re.search(r"desc|说明|描述|含义|用途|meaning|purpose", title):
        arg.help = cell
    elif _CONDITIONAL.search(cell):  # "search 时必填": needed by one action, not always
        option.optional = True
    elif _REQUIRED.search(cell) and len(cell) <= 12:
        option.optional = False  # not necessarily always: "send 必填", or under "**send 参数**"
    elif _OPTIONAL.search(cell) and len(cell) <= 12:
        option.optional = True


def _line(line: str) -> list[tuple[UsageArg, bool | None]]:
    """The flags one line of prose describes, each with whether it says they are optional."""
    label = _LABEL.match(line)
    if label:
        spans = re.findall(r"`([^`]+)`", line[label.end() :])
        args = [a for span in spans if span.startswith("-") for a in usage_args(span)]
        return [(a, True) for a in args if a.kind == "flag"]
    spans = re.findall(r"`([^`]+)`", line)
    if spans and spans[0].startswith("--") and _CHOICE_CUE.search(line):
        arg = UsageArg(spans[0].split()[0], "flag", "x")
        arg.choices = [s for s in spans[1:] if re.fullmatch(r"[\w.:-]+", s)] or None
        arg.default = _marked_default(line)
        return [(arg, None)] if arg.choices else []
    option = option_line(line)
    if option is None or not line.lstrip().startswith(("-", "*", "+", "`")):
        return []
    return [(option, True if option.optional and _OPTIONAL.search(option.help) else None)]


def _truth(text: str) -> bool | None:
    """A boolean flag's documented default as a boolean ("false (removed)", "off", "否"), or
    None when the text says neither ("only when stdout is a tty", "none")."""
    said = re.match(
        r"\s*[`'\"]?(?:(true|yes|on|enabled?)|(false|no|off|disabled?))(?![\w-])|\s*(是)(?!否)|\s*(否)",
        text,
        re.I,
    )
    if said is None:
        return None
    return bool(said.group(1) or said.group(3))


def _marked_default(text: str) -> str | None:
    """The value a text marks as the default: "`center`（居中，默认）", "`image` (default)"."""
    for match in re.finditer(r"`([^`]+)`", text):
        if _DEFAULT_MARK.match(text[match.end() :]):
            return match.group(1)
    return None


def _marked_choices(text: str) -> list[str] | None:
    """Values a description lists as the choices: "`image`（默认）/ `file`"."""
    first = text.find("`")
    spans = re.findall(r"`([\w.:-]+)`", text)
    between = re.sub(r"`[^`]+`|[（(][^）)]*[）)]", "", text[first:] if first >= 0 else "")
    if len(spans) >= 2 and re.fullmatch(r"[\s/、,|或or]*", between):
        return spans
    return None


def _scope(sections: list[Section], line: int) -> tuple[int, int]:
    """The innermost section around ``line`` (the whole file if none)."""
    around = [s for s in sections if s.line <= line <= s.end_line]
    if not around:
        return (0, 10**9)
    section = max(around, key=lambda s: (s.level, s.line))
    return (section.line, section.end_line)


# -- onto the programs -------------------------------------------------------------------


def attach(programs: list[Program], options: list[DocOption], sources: dict[str, str]) -> None:
    keyed: dict[str, frozenset[str]] = {}  # per program, the keys its parser's object gives

    def keys_of(path: str) -> frozenset[str]:
        if path not in keyed:
            keyed[path] = keys_read(sources[path])
        return keyed[path]

    for option in options:
        for program in _owners(programs, option, sources, keys_of):
            _apply(program, option)


def _owners(
    programs: list[Program],
    option: DocOption,
    sources: dict[str, str],
    keys_of: Callable[[str], frozenset[str]],
) -> list[Program]:
    flag = option.arg.name
    here = [p for p in programs if any(inv.file == option.file for inv in p.invocations)]
    spelled = [p for p in here if re.search(rf"['\"`]{re.escape(flag)}\b", sources[p.path])]
    if spelled:
        return spelled
    first, last = option.scope
    near = [
        p
        for p in here
        if any(inv.file == option.file and first <= inv.line <= last for inv in p.invocations)
    ]
    if len(near) == 1:
        return near
    # else the one program here whose hand-rolled parser reads the flag by its key
    keyed = [p for p in here if _key_forms(flag) & keys_of(p.path)]
    return keyed if len(keyed) == 1 else []


# What a hand-rolled parser stores the flags in, filled by key (``flags[key] = args[++i]``,
# ``opts[name] = true``), then reads by key: ``flags.css``, ``opts["dry-run"]``.
_FILLED = re.compile(
    r"\b([A-Za-z_$][\w$]{0,40})\s*\[(?:[^\[\]\n]|\[[^\[\]\n]{0,40}\]){1,80}\]\s*=[^=]"
)
# A member of every array or object, never a flag: `args.length`, `args.filter(...)`.
_MEMBERS = frozenset(
    "length filter map slice includes indexOf push forEach join find some every reduce concat "
    "splice shift pop keys values entries toString hasOwnProperty constructor prototype size "
    "get set has delete".split()
)
MAX_SOURCE = 2_000_000  # characters of a program read for the keys its parser's object gives


def keys_read(source: str) -> frozenset[str]:
    """The keys a program reads from the objects its parser fills by key (``flags.css``,
    ``flags['dry-run']``; ``attach`` reads each program once): not a method call, nor an
    array's member."""
    source = source[:MAX_SOURCE]
    holders = {m.group(1) for m in _FILLED.finditer(source)}
    if not holders:
        return frozenset()
    names = "|".join(re.escape(h) for h in sorted(holders))
    read = re.compile(
        rf"\b(?:{names})\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)\b(?!\s*\()"
        rf"|\b(?:{names})\s*\[\s*['\"]([\w-]+)['\"]\s*\]"
    )
    keys = {m.group(1) or m.group(2) for m in read.finditer(source)}
    return frozenset(keys - _MEMBERS)


def _key_forms(flag: str) -> set[str]:
    """``--dry-run`` as a parser's key may spell it: dry-run, dry_run, dryRun."""
    key = flag.lstrip("-")
    camel = re.sub(r"-(\w)", lambda m: m.group(1).upper(), key)
    return {key, key.replace("-", "_"), camel}


# Where a flag known only from the skill's own command lines came from: a short spelling of
# it there (`-t src/`) is the same flag once a table names it an alias.
_GUESSED = ("invocation", "usage", "documentation")


def _alias(program: Program, option: DocOption, param: Param) -> None:
    """Give ``param`` the aliases ``option``'s table names; one that the command lines made a
    flag of its own (`-t src/` before the table said `| --target | -t |`) is folded into it,
    when every command line passing it is in the table's section (`list -t failed` in
    another section may mean another flag)."""
    commands = _commands(program)
    first, last = option.scope
    for alias in option.arg.aliases:
        passing = [i for i in program.invocations if alias in i.argv]
        if any(i.file != option.file or not first <= i.line <= last for i in passing):
            continue
        for command in commands:
            other = command.flag(alias)
            if other is None or other is param:
                continue
            if other.name != alias or other.source not in _GUESSED:
                break  # a parser's own flag, or another's alias: not ours to take
            command.params.remove(other)
            if other.choices and param.choices is not None:
                param.choices = [
                    *param.choices,
                    *(c for c in other.choices if c not in param.choices),
                ]
        else:
            if alias not in param.aliases and alias != param.name:
                param.aliases.append(alias)


def _commands(program: Program) -> list[Command]:
    cli = program.cli
    return [cli, *cli.subcommands.values()] if cli is not None else []


def _apply(program: Program, option: DocOption) -> None:
    cli = program.cli
    if cli is None:
        return
    arg = option.arg
    commands = [cli, *cli.subcommands.values()]
    params = [p for c in commands if (p := c.flag(arg.name)) is not None]
    complete = cli.framework in AUTHORITATIVE
    if not params and not complete:
        param = Param(arg.name, "flag", dest_of(arg.name), source="documentation")
        cli.params.append(param)
        params = [param]
    for param in params:
        param.help = param.help or arg.help
        _alias(program, option, param)
        if param.default is None and arg.default is not None and not complete:
            # a parser that declares none means none: "ビルトイン5パターン" describes what the
            # program does without it, and passed as --patterns it is taken for a file
            param.default = arg.default
        if not complete:
            kind = option.type or (arg.type if arg.value or arg.default else param.type)
            param.type = param.documented_type(kind)  # `--x true`: the code reads a value
            if param.choices and arg.choices:  # a dispatch's branches (`if (p === "google")
                # … else openai`) and the documented values (`google|openai|dashscope`)
                more = [c for c in arg.choices if c not in param.choices]
                param.choices = [*param.choices, *more]
            param.choices = param.choices or arg.choices
            if option.optional or param.default is not None:
                param.required, param.certain = False, True
            elif option.required and not param.certain:  # "| --target | required |"
                param.required, param.certain = True, True
        if param.type == "boolean" and isinstance(param.default, str):
            param.default = _truth(param.default)  # "false (removed)" is off, not a value
    if option.optional:
        program.doc_options.setdefault(arg.name, []).append(
            (option.file, option.scope[0], option.scope[1])
        )
