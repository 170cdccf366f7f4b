"""Main paths through one program: one per subcommand, per action value, per mode (a task
its documents show with flags of its own: ``modes.py``), or the program.

A main path becomes a pipeline with one code step.  Its inputs are the program's parameters
(every declared one for argparse/click/typer; for shell and Node scripts, the ones SKILL.md
shows for that path), with types, choices and defaults kept; the action or subcommand is fixed,
and a JSON output switch (``--format json``, ``--json``) is turned on so the step's output is
data.  Data SKILL.md feeds the program on stdin (``cat data.json |``, ``< input.txt``,
``echo TEXT |``) becomes one more input, ``input_file`` or ``input_text``, fed to its stdin;
a path whose data only ever comes from another command's output stays in Skill mode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from skill2app.converter.analyzers.dispatch import dispatched
from skill2app.converter.analyzers.environment import env_of
from skill2app.converter.analyzers.modes import Mode, find_modes
from skill2app.converter.analyzers.text import capital, free_name, humanize, slug, snake, step_name
from skill2app.converter.inventory.invocations import Invocation, is_placeholder, order_key
from skill2app.converter.inventory.programs.interface import (
    AUTHORITATIVE,
    Command,
    Param,
    ParsedArgs,
    as_run,
    dest_of,
    parse_argv,
)
from skill2app.converter.inventory.programs.program import Program
from skill2app.converter.inventory.programs.scripts import split_usage, without_usage
from skill2app.converter.inventory.shell import Stdin
from skill2app.converter.plan.model import Arg, CodeStep, Input, StdinFeed
from skill2app.converter.plan.samples import example_of, with_example

ACTION_FLAGS = {"action", "command", "cmd", "op", "operation", "task", "subcommand", "verb"}
FORMAT_FLAGS = ("--format", "--output-format", "--fmt", "-f")
_FORMATS = frozenset(
    "json jsonl ndjson text txt plain table yaml yml csv tsv markdown md html xml human".split()
)
SKIP_FLAGS = {"--help", "-h", "--version", "-V"}
STDIN_INPUTS = {  # kind of data fed on stdin -> (input name, its description)
    "file": ("input_file", "File whose content the program reads on stdin"),
    "text": ("input_text", "Text the program reads on stdin"),
}
MAX_EXAMPLE = 400  # longer data SKILL.md feeds on stdin is no example in a description
_LATE = (True, "~", 0)  # sorts after every invocation


@dataclass
class MainPath:
    program: Program
    command: Command  # the (sub)command whose parameters apply
    subcommand: str = ""
    action: tuple[str, str] | None = None  # (flag, value) fixed for this path
    invocations: list[Invocation] = field(default_factory=list)
    mode: Mode | None = None  # the task, when the program's flags tell its tasks apart

    @property
    def label(self) -> str:
        if self.mode is not None:
            return self.mode.task
        return self.subcommand or (self.action[1] if self.action else "")

    def parsed(self) -> list[ParsedArgs]:
        return [self._parse(inv) for inv in self.invocations]

    def _parse(self, inv: Invocation) -> ParsedArgs:
        parsed = parse_argv(inv.argv, self.program.cli)
        if self.subcommand and not parsed.subcommand and parsed.positionals:
            parsed.subcommand = parsed.positionals.pop(0)  # a script's own dispatch on $1
        return parsed


def main_paths(
    program: Program, title_of: Callable[[Invocation], str] | None = None
) -> tuple[list[MainPath], list[str]]:
    """The program's main paths, and the labels of paths left out (nothing shows how);
    ``title_of`` (the title of the section showing a command) lets its modes be found."""
    cli = program.cli or Command("none")
    authoritative = cli.framework in AUTHORITATIVE
    parsed = [(inv, parse_argv(inv.argv, cli)) for inv in program.invocations]
    if cli.subcommands:
        return [
            MainPath(program, sub, name, None, [i for i, p in parsed if p.subcommand == name])
            for name, sub in _by_first_use(cli.subcommands, parsed)
        ], []
    dispatch = program.enumerations.get("<command>")
    if dispatch:
        paths, left = _split(program, cli, dispatch, parsed, lambda p, v: p.positionals[:1] == [v])
        if not authoritative:  # each word takes what its own lines show (dispatch.py)
            for path in paths:
                path.command = dispatched(cli, [p.positionals for p in path.parsed()])
        return paths, left
    flag = next(
        (
            f
            for f in sorted(program.enumerations)
            if f.startswith("-")
            and dest_of(f) in ACTION_FLAGS
            and (not authoritative or _declared_choices(cli, f))
        ),
        "",
    )
    if flag:
        paths, left = _split(
            program,
            cli,
            program.enumerations[flag],
            parsed,
            lambda p, v: (flag, v) in p.flags,
            action_flag=flag,
        )
        if authoritative:
            paths += [MainPath(program, cli, "", (flag, v)) for v in left]
            left = []
        return _default_action(program, cli, flag, parsed, paths), left
    modes = find_modes(cli, parsed, title_of) if title_of is not None else []
    if modes:
        return [MainPath(program, cli, invocations=i, mode=m) for m, i in modes], []
    if program.invocations or (authoritative and cli.params):
        return [MainPath(program, cli, invocations=list(program.invocations))], []
    return [], [""]


def _declared_choices(cli: Command, flag: str) -> bool:
    """Whether a declared flag has choices: the values SKILL.md merely shows for a flag of
    a complete parser (``--command python``) are no actions."""
    param = cli.flag(flag)
    return param is not None and bool(param.choices)


def _default_action(
    program: Program,
    cli: Command,
    flag: str,
    parsed: list[tuple[Invocation, ParsedArgs]],
    paths: list[MainPath],
) -> list[MainPath]:
    """``paths`` and the path of the program's default action: the commands shown without
    the action flag run it (the program's default value of the flag names it, when known)."""
    plain = [inv for inv, p in parsed if all(name != flag for name, _v in p.flags)]
    if not plain:
        return paths
    param = cli.flag(flag)
    default = str(param.default) if param is not None and param.default is not None else ""
    same = next((p for p in paths if p.action == (flag, default)), None)
    if same is not None:
        same.invocations = sorted([*same.invocations, *plain], key=order_key)
        return paths
    return sorted(
        [*paths, MainPath(program, cli, invocations=plain)],
        key=lambda p: min([order_key(i) for i in p.invocations] or [_LATE]),
    )


def _by_first_use(
    subs: dict[str, Command], parsed: list[tuple[Invocation, ParsedArgs]]
) -> list[tuple[str, Command]]:
    first: dict[str, tuple[bool, str, int]] = {}
    for inv, p in parsed:
        first.setdefault(p.subcommand, order_key(inv))
    return sorted(subs.items(), key=lambda kv: (first.get(kv[0], _LATE), kv[0]))


def _split(
    program: Program,
    cli: Command,
    values: list[str],
    parsed: list[tuple[Invocation, ParsedArgs]],
    matches: Callable[[ParsedArgs, str], bool],
    action_flag: str = "",
) -> tuple[list[MainPath], list[str]]:
    paths: list[MainPath] = []
    left: list[str] = []
    ordered = sorted(
        values,
        key=lambda v: (min([order_key(i) for i, p in parsed if matches(p, v)] or [_LATE]), v),
    )
    for value in ordered:
        invs = [inv for inv, p in parsed if matches(p, value)]
        if not invs:
            left.append(value)
        elif action_flag:
            paths.append(MainPath(program, cli, "", (action_flag, value), invs))
        else:
            paths.append(MainPath(program, cli, value, None, invs))
    return paths, left


def path_name(path: MainPath) -> str:
    stem = slug(path.program.path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    label = slug(path.label)
    if not label:
        return stem
    if path.mode is not None:  # the task alone: "generate-batch-qr-codes"
        return label
    return label if stem and label.startswith(stem) else "-".join(x for x in (stem, label) if x)


def json_switch(command: Command, program: Program) -> tuple[list[Arg], str]:
    """Arguments that make the program print JSON, and the step's stdout kind."""
    for param in command.params:
        if param.kind != "flag":
            continue
        choices = [str(c) for c in (param.choices or program.values_seen.get(param.name, []))]
        if _format_flag(param.name, choices):
            return [Arg(param.name, "json")], "json"
        if param.name == "--json" and param.type == "boolean":
            return [Arg("--json")], "json"
    has_switch = any(
        p.name == "--json" or p.name in FORMAT_FLAGS or _format_flag(p.name, p.choices or [])
        for c in [program.cli or command, *(program.cli or command).subcommands.values()]
        for p in c.params
    )
    return [], "json" if program.emits_json and not has_switch else "text"


def _format_flag(name: str, choices: list[str]) -> bool:
    """Whether a flag picks the output's format as JSON: a format flag offering json
    (``--format json``), or one whose every choice is a format (``--output {json,text}``,
    which elsewhere names an output file)."""
    offered = {str(c).lower() for c in choices}
    return "json" in offered and (name in FORMAT_FLAGS or offered <= _FORMATS)


def exposed_params(path: MainPath) -> list[Param]:
    """Parameters that become inputs: positionals first, then flags (a subcommand's own,
    then the program's options given before it)."""
    command = path.command
    if (
        path.subcommand
        and path.program.cli is not None
        and path.subcommand in (path.program.cli.subcommands)
    ):
        command = as_run(path.program.cli, path.subcommand)
    fixed = {path.action[0]} if path.action else set()
    fixed |= {a.flag for a in json_switch(command, path.program)[0]}
    if path.mode is not None:  # its switches are on; another mode's flags are not its own
        fixed |= set(path.mode.switches) | path.mode.excluded
    if command.framework in AUTHORITATIVE:
        chosen = list(command.params)
    else:
        seen = {name for p in path.parsed() for name, _v in p.flags}
        seen |= documented_here(path)
        count = max([len(p.positionals) for p in path.parsed()] or [0])
        chosen = [p for p in command.params if p.required or (p.kind == "flag" and p.name in seen)]
        chosen += [
            p
            for p in command.positionals()
            if p not in chosen and (command.positionals().index(p) < count or p.certain)
        ]
    chosen = [p for p in chosen if p.name not in SKIP_FLAGS and p.name not in fixed]
    order = command.positionals()
    positionals = sorted((p for p in chosen if p.kind == "positional"), key=order.index)
    flags = [p for p in chosen if p.kind == "flag"]
    rest = [p for p in positionals if p.rest]  # every remaining word: after the flags
    leading = [f for f in flags if command.framework not in AUTHORITATIVE and _leads(path, f)]
    flags = [f for f in flags if f not in leading]
    return leading + [p for p in positionals if not p.rest] + flags + rest


def _leads(path: MainPath, flag: Param) -> bool:
    """Whether every documented command that passes ``flag`` passes it first, before the
    positionals: a program that reads its own argv may only see it there (``init_vault.py
    --refresh-tools <vault>``; after the vault it prints its usage)."""
    shown = [inv.argv for inv in path.invocations if flag.name in inv.argv]
    return bool(shown) and all(argv[0] == flag.name for argv in shown)


def documented_here(path: MainPath) -> set[str]:
    """Optional flags a document describes in a section where this path's command is shown
    ("可选：`--description`" after the block of create_task)."""
    found = set()
    for flag, scopes in path.program.doc_options.items():
        for file, first, last in scopes:
            if any(inv.file == file and first <= inv.line <= last for inv in path.invocations):
                found.add(flag)
    return found


def said_optional(path: MainPath, param: Param) -> bool:
    """Whether the documents call ``param`` optional where this path's command is shown
    ("- `--hearing-sheet`: ... (optional)"), or show it in brackets."""
    return param.name in documented_here(path) or any(
        param.name in inv.optional for inv in path.invocations
    )


def is_output_file(param: Param) -> bool:
    """An optional flag naming the file the program writes."""
    return not param.required and param.names_output_file


def examples(path: MainPath, param: Param) -> list[str]:
    values: list[str] = []
    declared = path.command.positionals()
    if param.kind != "flag" and param not in declared:
        return []  # a positional the program does not declare: only its own use shows it
    for parsed in path.parsed():
        if param.kind == "flag":
            values += [v for n, v in parsed.flags if n == param.name and v is not None]
        elif param.rest:  # every remaining word: the example is all of them
            index = declared.index(param)
            words = parsed.positionals[index:]
            values += [json.dumps(words)] if words and not any(map(is_placeholder, words)) else []
        else:
            index = declared.index(param)
            values += parsed.positionals[index : index + 1]
    own = param.help.strip().casefold()  # `search.py "搜索关键词"` with help "搜索关键词"
    return [v for v in values if not is_placeholder(v) and v.strip().casefold() != own]


def _numeric(value: str) -> bool:
    return bool(re.fullmatch(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", value.strip()))


def input_for(path: MainPath, param: Param, name: str) -> Input:
    authoritative = path.command.framework in AUTHORITATIVE
    seen = examples(path, param)
    kind = param.type
    if not param.typed and kind == "string" and seen and all(_int(v) for v in seen):
        kind = "integer"
    elif not param.typed and kind in ("integer", "number") and not all(map(_numeric, seen)):
        kind = "string"  # `--ar <ratio>` shown as `--ar 16:9`: not a number after all
    shown_optional = any(param.name in inv.optional for inv in path.invocations)
    if path.mode is not None and param.name == path.mode.key and not said_optional(path, param):
        required = True  # what the mode works on: "--batch list.csv"
    elif authoritative or param.certain:
        required = param.required
    elif shown_optional:
        required = False
    else:
        everywhere = (
            all(any(n == param.name for n, _v in p.flags) for p in path.parsed())
            if param.kind == "flag"
            else True
        )
        required = (
            bool(path.invocations)
            and everywhere
            and param.default is None
            and kind not in ("boolean", "array")
        )
    help_text = param.help
    if seen and kind != "boolean" and example_of(help_text) is None:  # "邮件主题" shown "主题"
        help_text = with_example(help_text, seen[0])
    enum = param.choices or _values_seen(param, path.program.enumerations.get(param.name))
    # An optional output file is the user's to name; unnamed, the program does what it
    # does without it (prints to stdout, or writes where it always does): no default here.
    default = None if param.kind == "flag" and is_output_file(param) else param.default
    return Input(
        name,
        kind,
        required,
        help_text,
        list(enum) if enum and kind == "string" else None,
        _coerce(default, kind),
    )


def _int(text: str) -> bool:
    return text.lstrip("-").isdigit()


def _coerce(value: object, kind: str) -> object:
    if value is None or isinstance(value, bool):
        return value if kind == "boolean" else None
    if kind == "integer":
        return (
            int(value)
            if isinstance(value, int) or (isinstance(value, str) and _int(value))
            else None
        )
    if kind == "number":
        try:
            return float(value) if isinstance(value, str | int | float) else None
        except ValueError:
            return None
    if kind == "string":
        return value if isinstance(value, str) else None
    return value if kind == "array" and isinstance(value, list) else None


def code_step(path: MainPath, taken: set[str]) -> tuple[CodeStep, list[Input]]:
    """The single code step of a main path, and the inputs it reads."""
    fixed, stdout = json_switch(path.command, path.program)
    shown = [_formats(i.argv, fixed[0].flag) for i in path.invocations] if fixed else []
    fixed, stdout = documented_output(fixed, stdout, shown)
    args: list[Arg] = [Arg(path.action[0], path.action[1])] if path.action else []
    args += [Arg(flag) for flag in (path.mode.switches if path.mode is not None else ())]
    rest: list[Arg] = []  # every remaining word: after the flags, as documented
    inputs: list[Input] = []
    exposed = exposed_params(path)
    for param in exposed:
        name = _own_name(param, path, exposed)
        name = name if name not in taken else f"{name}_{len(taken)}"
        taken.add(name)
        inputs.append(input_for(path, param, name))
        arg = Arg(param.name if param.kind == "flag" else "", ref=f"input.{name}")
        (rest if param.rest else args).append(arg)
    if rest and any("--" in inv.argv for inv in path.invocations):
        rest.insert(0, Arg(value="--"))
    stem = path.program.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    name = step_name(snake(path.label) or snake(stem) or "run")
    step = CodeStep(name, path.program.path, args + fixed + rest, path.subcommand, stdout)
    fed = [inv.stdin for inv in path.invocations if inv.stdin is not None]
    if fed:
        required = len(fed) == len(path.invocations)
        item, step.stdin = stdin_input(fed, required, taken)
        inputs.append(item)
    step.env, variables = env_of(path.invocations, taken)  # `NAME=<value> python3 x.py`
    inputs += variables
    return step, inputs


def _own_name(param: Param, path: MainPath, exposed: list[Param]) -> str:
    """The input name of ``param``: its destination, but a positional numbered apart from a
    flag of the same name (``main.ts <url>`` or ``--url <url>``: ``url_2``) that this path
    does not pass is named as the flag is (``url``), the value both stand for."""
    name = dest_of(param.dest)
    base = re.sub(r"_\d+$", "", name)
    if param.kind != "positional" or base == name:
        return name
    flags = {dest_of(p.dest) for p in path.command.params if p.kind == "flag"}
    passed = {dest_of(p.dest) for p in exposed}
    return base if base in flags and base not in passed else name


def documented_output(
    fixed: list[Arg], stdout: str, shown: list[set[str]]
) -> tuple[list[Arg], str]:
    """``json_switch``'s choice, unless it is a format flag's value and every documented
    command (``shown``: the values each gives that flag) gives it another one
    (`--format markdown --output report.md`): then the value shown, and text on stdout."""
    if not fixed or fixed[0].value is None or not shown or not all(shown):
        return fixed, stdout  # a switch (`--json`), or a command that names no format
    asked = set().union(*shown)
    if "json" in asked:
        return fixed, stdout
    return ([Arg(fixed[0].flag, next(iter(asked)))] if len(asked) == 1 else []), "text"


def _formats(argv: list[str], flag: str) -> set[str]:
    """The values a documented command line gives ``flag`` (lower case)."""
    values = [argv[i + 1] for i, word in enumerate(argv[:-1]) if word == flag]
    values += [w.split("=", 1)[1] for w in argv if w.startswith(f"{flag}=")]
    return {v.lower() for v in values}


def stdin_input(fed: list[Stdin], required: bool, taken: set[str]) -> tuple[Input, StdinFeed]:
    """The input holding what SKILL.md feeds a program on stdin (a file when it ever feeds one,
    else text), and the step's feed from it; its name is added to ``taken``."""
    kind = "file" if any(s.kind == "file" for s in fed) else "text"
    name, description = STDIN_INPUTS[kind]
    name = free_name(name, taken)
    examples = [s.value for s in fed if s.kind == kind and s.value]
    examples = [e for e in examples if len(e) <= MAX_EXAMPLE and not is_placeholder(e)]
    if examples:  # the sample input: what SKILL.md pipes in (a heredoc's body too)
        description = with_example(description, examples[0])
    taken.add(name)
    return Input(name, "string", required, description), StdinFeed(f"input.{name}", kind)


def fed_by_command(invocations: list[Invocation]) -> list[Invocation]:
    """Those of ``invocations`` whose stdin another command's (or program's) output feeds: a
    pipeline running the program alone would run it on nothing."""
    return [
        inv
        for inv in invocations
        if inv.stdin is not None and inv.stdin.kind in ("command", "program")
    ]


def piped_reason(inv: Invocation) -> str:
    """Why a path fed by another command's output stays in Skill mode."""
    assert inv.stdin is not None
    source = f"`{inv.stdin.value}`" if inv.stdin.value else "another command"
    if inv.stdin.kind == "program":
        return (
            f"SKILL.md pipes the output of {source} into it, and no pipeline reproduces that "
            "pipe; run alone, the program would get no data"
        )
    return (
        f"SKILL.md pipes the output of {source} into it; a pipeline cannot reproduce that, "
        "and the program would run on no data"
    )


def describe_path(path: MainPath) -> str:
    """What the path does, from the interface's own help; a usage line tells how, not what,
    so only the description after its arguments counts."""
    program = path.program
    about = what_it_does(program.cli.description if program.cli else "")
    if path.command is not program.cli and what_it_does(path.command.description):
        text = what_it_does(path.command.description)
    elif path.action and about:
        text = f"{humanize(path.action[1])}: {about}"
    else:
        text = about or what_it_does(program.doc) or f"Run {program.path}"
    return capital(text)


def what_it_does(text: str) -> str:
    """The first paragraph of a docstring or help text that says what the program does, as
    one line: a leading usage line (``Usage: x.py [file]``, ``用法: x.sh FILE 输出字数``)
    leaves only the words after its arguments, one below the title ends it ("2.5D Asset
    Inspector" over "Usage: python scripts/inspect-assets.py ..."); "" when nothing is
    left."""
    for paragraph in text.split("\n\n"):
        lines: list[str] = []
        for line in _TITLE_NAME.sub("", without_usage(paragraph)).split("\n"):
            if split_usage(line) is not None or _OR_USAGE.match(line):
                if any(lines):
                    break
                continue  # more usage lines above what it does
            lines.append(line.strip())
        if said := " ".join(line for line in lines if line):
            return said
    return ""


_OR_USAGE = re.compile(r"\s*or:\s", re.I)  # "   or: python x.py folder/"


# A header's title line names its file first: "build_viewer.py — emit a viewer", "Scripts/
# doctor.sh - verify ...", "feishu-task: Feishu task management".
_TITLE_NAME = re.compile(
    r"^\s*(?:(?:[\w.-]*/)*[\w-]+\.(?:py|sh|js|mjs|cjs|ts|rb|pl)|[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)"
    r"\s*(?:[—–]|--?|:)\s+"
)


def _values_seen(param: Param, values: list[str] | None) -> list[str] | None:
    """The values the documents pass to a flag, as its only values: never for a flag a parser
    declares without choices (``--lang`` with ``default="zh"``, shown once as ``--lang en``,
    takes any language), nor from one value (``--type feat``), nor when its default is not
    among them, nor when one is a name from the user's code (``--focus QueryEngine``, shown
    beside ``--focus main``: a function or class to centre on, any of them)."""
    if not values or len(values) < 2 or param.source in AUTHORITATIVE:
        return None
    if any(re.search(r"[a-z][A-Z]", v) for v in values):
        return None
    if param.default is not None and str(param.default) not in values:
        return None
    return values
