"""Find a skill's programs and describe each: language, interface, how SKILL.md calls it.

Programs are the runnable files in ``tools/`` (the APP layout) and ``scripts/`` (the Agent Skills
layout), beside SKILL.md, and anywhere else SKILL.md invokes one.  ``references/`` and
``assets/`` are context, never programs.  Nothing is run unless ``probe=True``.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.converter.inventory.invocations import (
    INTERPRETERS,
    Invocation,
    invocations_in,
    is_placeholder,
    order_key,
    program_of,
)
from skill2app.converter.inventory.programs.documented import apply_usage, usage_of
from skill2app.converter.inventory.programs.interactive import read_prompts
from skill2app.converter.inventory.programs.interface import (
    Command,
    Param,
    add_param,
    as_run,
    dest_of,
    parse_argv,
)
from skill2app.converter.inventory.programs.language import (
    DEFAULT_INTERPRETER,
    shebang_command,
    shebang_program,
)
from skill2app.converter.inventory.programs.node import insisted, scan_node
from skill2app.converter.inventory.programs.python import extract_python_cli
from skill2app.converter.inventory.programs.scripts import (
    USAGE_PREFIX,
    USAGE_SEPARATORS,
    heredoc_help,
    leading_comment,
    name_shell_positionals,
    positional_name,
    scan_shell,
    usage_positionals,
)
from skill2app.converter.inventory.programs.verdicts import (
    python_verdicts,
    shell_verdicts,
    terminal_prompt,
)
from skill2app.converter.inventory.shell import simple_commands

PROGRAM_DIRS = ("tools", "scripts")
CONTEXT_DIRS = ("references", "assets")
MAX_SOURCE_BYTES = 512_000
ENUM_FLAG_NAMES = {
    "action", "command", "cmd", "mode", "op", "operation", "type", "kind", "format", "fmt",
    "level", "style", "task", "method", "subcommand", "sort", "order", "lang", "range",
}  # fmt: skip
_IDENT_VALUE = re.compile(r"^[A-Za-z][A-Za-z0-9_:-]*$")
_SUBCOMMAND_VARS = ("1", "cmd", "command", "subcommand", "action", "verb")
_SHELLS = ("bash", "sh", "zsh")  # a shell runs a file without a #! line as a shell script


@dataclass
class Program:
    path: str
    language: str
    interpreter: str
    location: str  # tools | scripts | beside | invoked | elsewhere (outside the skill)
    doc: str = ""
    cli: Command | None = None
    invocations: list[Invocation] = field(default_factory=list)
    values_seen: dict[str, list[str]] = field(default_factory=dict)
    enumerations: dict[str, list[str]] = field(default_factory=dict)
    emits_json: bool = False
    warnings: list[str] = field(default_factory=list)
    probe: dict[str, Any] | None = None
    mentioned: bool = True  # a document of the skill runs it or names it
    insists: set[str] = field(default_factory=set)  # flags it stops without (``node.insisted``)
    exit_notes: str = ""  # its code's comments on exit statuses ("exit 1 when findings exist")
    verdicts: dict[int, str] = field(default_factory=dict)  # statuses its code gives as answers
    prompts_at: int = 0  # the line of its first question on the terminal (``terminal_prompt``)
    asks_at: int = 0  # a Python program's first input() call, maybe in a branch (``read_prompts``)
    installs: set[str] = field(default_factory=set)  # the tools it installs (``installed_by``)
    # optional flags a document describes → (file, first line, last line) of each section
    # that describes them: the pipelines of the commands there offer them
    doc_options: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)

    def command_for(self, subcommand: str) -> Command | None:
        if self.cli is None:
            return None
        return self.cli.subcommands.get(subcommand, self.cli) if subcommand else self.cli

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "language": self.language,
            "interpreter": self.interpreter,
            "location": self.location,
            "doc": self.doc,
            "emits_json": self.emits_json,
            "cli": self.cli.to_dict() if self.cli is not None else None,
            "invocations": [inv.to_dict() for inv in self.invocations],
            "values_seen": {k: self.values_seen[k] for k in sorted(self.values_seen)},
            "enumerations": {k: self.enumerations[k] for k in sorted(self.enumerations)},
        }
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.verdicts:  # exit statuses that are answers, not failures
            data["result_exits"] = {str(k): v for k, v in sorted(self.verdicts.items())}
        if self.installs:  # what it installs is none of its needs
            data["installs"] = sorted(self.installs)
        if self.prompts_at:  # it asks its questions on the terminal
            data["prompts_at"] = f"{self.path}:{self.prompts_at}"
        if self.asks_at:  # it may ask on the terminal (a branch of it does)
            data["asks_at"] = f"{self.path}:{self.asks_at}"
        if not self.mentioned:
            data["mentioned"] = False
        if self.doc_options:
            data["doc_options"] = {
                flag: [f"{file}:{first}-{last}" for file, first, last in sorted(set(spots))]
                for flag, spots in sorted(self.doc_options.items())
            }
        if self.probe is not None:
            data["probe"] = self.probe
        return data


def interpreter_need(program: Program, source: str) -> tuple[str, str]:
    """(the binary the APP runs ``program`` with, where the program itself says so).

    The binary is the first word of its interpreter (as SKILL.md runs it, else the one of
    its language, from its extension or ``#!`` line), else what its ``#!`` line names when
    it runs directly.  The spot is ``path:1`` when the ``#!`` line names that binary, else
    the program's path (its extension says it): the constructor check for the binary then
    applies to the pipelines running this program.  ("", "") when nothing runs it."""
    shebang = shebang_program(source)
    binary = program.interpreter.split()[0] if program.interpreter else shebang
    if not binary:
        return "", ""
    named = bool(shebang) and posixpath.basename(binary) == shebang
    return binary, f"{program.path}:1" if named else program.path


def location_of(rel: str) -> str:
    top = rel.split("/", 1)[0]
    if "/" not in rel:
        return "beside"
    return top if top in PROGRAM_DIRS else "invoked"


def is_candidate(rel: str, language: str, source: str, invoked: bool) -> bool:
    """Whether a file with a known language counts as a program rather than a module."""
    if invoked:
        return True
    if not language or rel.split("/", 1)[0] in CONTEXT_DIRS:
        return False
    if location_of(rel) == "invoked":
        return False
    if language != "python":
        return True
    if posixpath.basename(rel) == "__init__.py":
        return False
    return bool(
        source.startswith("#!")
        or re.search(r"__name__\s*==\s*['\"]__main__['\"]", source)
        or re.search(r"\b(argparse|click|typer)\b", source)
    )


def describe(
    skill_dir: Path,
    rel: str,
    language: str,
    invocations: list[Invocation],
    *,
    probe: bool,
    unsafe: bool = False,
) -> Program:
    source = read_source(skill_dir / rel)
    lang = language or _language_from_invocations(invocations)
    program = Program(
        path=rel,
        language=lang,
        interpreter=_interpreter(lang, source, invocations),
        location=location_of(rel),
        invocations=sorted(invocations, key=lambda i: (*order_key(i), i.source, i.argv)),
        emits_json=_emits_json(lang, source),
    )
    dispatch: dict[str, list[str]] = {}
    if lang == "python":
        program.cli, program.doc = extract_python_cli(source)
        program.verdicts = python_verdicts(source)
        program.asks_at = read_prompts(program.cli, source)  # and what it must be given
    elif lang in ("bash", "sh", "zsh"):
        program.cli, dispatch = scan_shell(source)
        program.verdicts = shell_verdicts(source)
        program.prompts_at = terminal_prompt(source)
        program.doc = leading_comment(source, "#")
    elif lang in ("node", "typescript"):
        program.cli, dispatch = scan_node(source)
        program.insists = insisted(source)
        program.doc = leading_comment(source, "//")
    program.doc = (program.doc or _usage_line(source)).strip()[:2000]
    program.installs = installed_by(rel, program.doc)
    program.exit_notes = "\n".join(_EXIT_COMMENT.findall(source)[:MAX_EXIT_NOTES])
    _apply_dispatch(program, dispatch)
    program.cli = program.cli or Command("none")
    literals = {*program.enumerations.get("<command>", []), *program.cli.subcommands}
    help_text = "\n".join([program.doc, _usage_line(source), *heredoc_help(source)])
    usage = usage_of(help_text, posixpath.basename(rel))
    apply_usage(program.cli, usage, literals)
    if lang in ("bash", "sh", "zsh"):
        name_shell_positionals(program.cli, source)
    _argv_count(program.cli, source)
    _merge_invocations(program)
    if probe:
        from skill2app.converter.inventory.programs.probe import probe_help  # only with --probe

        program.probe = probe_help(
            skill_dir, rel, program.language, program.interpreter, unsafe=unsafe
        )
    return program


# "New:    create-worktree.sh --mode new ..." or "  create-worktree.sh --mode remote ...":
# a line of a program's own header that runs it, after an optional label.
_OWN_LABEL = re.compile(r"^\s*(?:[\w ]{1,20}:\s+)?(?:\$\s+)?")
# What separates a program's name from what it does in its header's title line
# ("build_viewer.py — emit a viewer"): a usage line's separators but a comment.
_TITLE_DASHES = USAGE_SEPARATORS - {"#"}


def own_examples(program: Program, source: str) -> list[Invocation]:
    """The commands a program's own header comment shows running it (``Usage:``/``Examples:``
    lines: ``create-worktree.sh --mode new --slug <slug>``, ``FOO=1 uv run scripts/x.py``),
    as invocations written in the program's file: what a skill whose documents only name
    the program still says of it."""
    name = posixpath.basename(program.path)
    lines = source.replace("\r\n", "\n").split("\n")
    found: list[Invocation] = []
    for text in program.doc.split("\n"):
        command = USAGE_PREFIX.sub("", _OWN_LABEL.sub("", text.strip().lstrip("#/* ").rstrip()))
        if "`" in command or "$(" in command:  # a substitution is no value to show
            continue
        commands = simple_commands(command, 1, "bash")  # its runner and variables set aside
        word = program_of(commands[0].argv)[1] if commands else ""
        at = re.search(rf"(?<![^\s'\"]){re.escape(word)}['\"]?(?=\s|$)", command) if word else None
        if at is None or posixpath.basename(word) != name:
            continue
        rest = command[at.end() :].split()  # as written: quotes and [optional] groups kept
        if not rest or rest[0] in _TITLE_DASHES:  # no arguments, or the header's title
            continue
        line = next((n for n, raw in enumerate(lines, 1) if text.strip() in raw), 0)
        runs, _others = invocations_in(
            f"{program.path} {' '.join(rest)}", line, "bash", [program.path],
            "program", program.path,
        )  # fmt: skip
        found += [inv for inv in runs if inv.program == program.path]
    return found


def add_own_examples(program: Program, source: str) -> None:
    """Give a program that no document runs the commands its own header shows (and learn
    its flags and values from them, as from SKILL.md's)."""
    if program.invocations or not program.doc:
        return
    program.invocations = own_examples(program, source)
    if program.invocations:
        _merge_invocations(program)


def documented_only(rel: str, invocations: list[Invocation]) -> Program:
    """A program outside the skill that its documents run (a sibling skill's helper) and that
    is not there to read (the skill alone, without its collection): its interface is what
    the documents show of it (a conversion that needs it copies it, see ``siblings``)."""
    language = _language_from_invocations(invocations)
    program = Program(
        path=rel,
        language=language,
        interpreter=_interpreter(language, "", invocations),
        location="elsewhere",
        invocations=sorted(invocations, key=lambda i: (*order_key(i), i.source, i.argv)),
    )
    _merge_invocations(program)
    return program


# Runtimes a program never shown run is written for, when its #! line names one its
# language's default cannot stand in for (Bun's and Deno's APIs; a PEP 723 script's deps).
_OWN_RUNTIMES = {"typescript": ("bun", "deno"), "node": ("bun", "deno"), "python": ("uv",)}


# `uv run` options that change nothing for a script without dependencies.
_PLAIN_UV_OPTIONS = {"--no-project", "--script", "--no-config", "--isolated", "--quiet", "-q"}


def _interpreter(language: str, source: str, invocations: list[Invocation]) -> str:
    """``_shown_interpreter``, but python3 for a script to which ``uv run`` adds nothing: its
    PEP 723 block lists no dependencies (``dependencies = []``), so uv is not needed to run
    it (analysis-dcf, ascii-diagram-validator: a step failed where uv was not installed)."""
    interpreter = _shown_interpreter(language, source, invocations)
    words = interpreter.split()
    plain = words[:2] == ["uv", "run"] and set(words[2:]) <= _PLAIN_UV_OPTIONS
    if language == "python" and plain and _no_dependencies(source):
        return DEFAULT_INTERPRETER["python"]
    return interpreter


_PEP723 = re.compile(r"^# /// script\s*$(?P<body>.*?)^# ///\s*$", re.M | re.S)


def pep723_dependencies(source: str) -> list[str] | None:
    """The packages a script's PEP 723 header lists (one line or several); None: no header."""
    block = _PEP723.search(source)
    if block is None:
        return None
    body = "\n".join(line.removeprefix("#").strip() for line in block["body"].splitlines())
    listed = re.search(r"^dependencies\s*=\s*\[(?P<items>[^\]]*)\]", body, re.M)
    return re.findall(r"[\"']([^\"']+)[\"']", listed["items"]) if listed else []


def _no_dependencies(source: str) -> bool:
    """Whether the script's PEP 723 block declares no dependencies and asks for no Python
    newer than 3.11 (``>=3.12``, ``==3.12.*``, ``~=3.12``: uv fetches that one)."""
    block = _PEP723.search(source)
    if block is None:
        return False
    body = "\n".join(line.removeprefix("#").strip() for line in block["body"].splitlines())
    listed = re.search(r"^dependencies\s*=\s*\[(?P<items>[^\]]*)\]", body, re.M)
    wants = re.search(r"^requires-python\s*=\s*[\"'](?P<spec>[^\"']*)", body, re.M)
    for minor in re.findall(r"(?:>=|>|==|~=)\s*3\.(\d+)", wants["spec"] if wants else ""):
        if int(minor) > 11:  # a Python newer than app-run needs: uv fetches it
            return False
    return listed is None or not listed["items"].strip(" \n,")


def _shown_interpreter(language: str, source: str, invocations: list[Invocation]) -> str:
    """What the APP runs a program with: the one interpreter SKILL.md runs it with (or the one
    launcher, as it is most often shown: ``uv run --no-project``); else, when
    SKILL.md runs it directly (``./x.ts``), what its ``#!`` line names, and when it never shows
    it run, the runtime its ``#!`` line names if the language's default cannot stand in for it
    (``_OWN_RUNTIMES``); else its language's."""
    interpreters = sorted({inv.interpreter for inv in invocations if inv.interpreter})
    if len(interpreters) == 1:
        return interpreters[0]
    if interpreters and len({i.split()[0] for i in interpreters}) == 1:
        # one launcher, said more or less fully (`uv run --no-project` five times, `uv run`
        # once): the way the documents run it most, the first one shown on a tie
        shown = [inv.interpreter for inv in invocations if inv.interpreter]
        return max(interpreters, key=lambda i: (shown.count(i), -shown.index(i)))
    direct = any(not inv.interpreter for inv in invocations)
    shebang = shebang_command(source)
    if direct and not interpreters and shebang:
        return shebang
    if not invocations and shebang.split(" ")[0] in _OWN_RUNTIMES.get(language, ()):
        return shebang  # `#!/usr/bin/env bun`: a script tsx cannot run
    return DEFAULT_INTERPRETER.get(language, "")


def direct_run_warning(skill_dir: Path, program: Program) -> str:
    """A warning when SKILL.md runs ``program`` directly (``./x``, no interpreter) although
    it cannot run that way: no exec bit, or no ``#!`` line (a shell runs such a file as a
    shell script: fine for a shell script only); or, for the APP's adapter, which runs a
    program of unknown language as it is, no ``#!`` line or no exec bit.  "" otherwise."""
    direct = [inv for inv in program.invocations if not inv.interpreter]
    if not direct:
        return ""
    path = skill_dir / program.path
    shebang = read_source(path).startswith("#!")
    executable = os.access(path, os.X_OK)
    app_fails = not program.language and not (shebang and executable)
    command_fails = not executable or (not shebang and program.language not in _SHELLS)
    if not app_fails and not command_fails:
        return ""
    lacks = " and ".join([*(["no #! line"] * (not shebang)), *(["no exec bit"] * (not executable))])
    fix = " and ".join([*(["add a #! line"] * (not shebang)), *(["chmod +x"] * (not executable))])
    where = f"{direct[0].file}:{direct[0].line}"
    if not app_fails:
        interpreter = program.interpreter or DEFAULT_INTERPRETER.get(program.language, "")
        return (
            f"{where} runs {program.path} directly, but it has {lacks}, so that command "
            f"fails; the APP runs it with {interpreter} ({fix})"
        )
    return (
        f"{where} runs {program.path} directly, but it has {lacks}: neither that command "
        f"nor the APP's step can run it; {fix}, or run it through its interpreter in SKILL.md"
    )


def _argv_count(command: Command, source: str) -> None:
    """A script reading ``sys.argv`` by hand says how many arguments it needs
    (``if len(sys.argv) != 4:``, ``< 2``): those positionals are required, whatever
    brackets its usage line draws around their names."""
    if command.framework != "none":
        return
    counts = re.findall(r"len\(\s*sys\.argv\s*\)\s*(!=|<)\s*(\d+)", source)
    if not counts:
        return
    needed = max(int(number) - 1 for _op, number in counts)
    for index, param in enumerate(command.positionals()):
        if index < needed:
            param.required, param.certain = True, True


# A comment of the code that speaks of exit statuses: "# Bandit returns exit code 1 when
# findings exist — not an error" (``inventory.exits`` reads what they mean).
_EXIT_COMMENT = re.compile(r"^[ \t]*(?:#|//)[ \t]*(.*\bexit.*)$", re.I | re.M)
MAX_EXIT_NOTES = 20


def _usage_line(source: str) -> str:
    """A ``Usage: ...`` text the program prints (a string literal that starts with a usage
    line), for programs without a docstring."""
    quoted = (m.group(1) for m in re.finditer(r"[\"'`]([^\"'`\n]*)", source))
    return next((text for text in quoted if USAGE_PREFIX.match(text)), "")


def read_source(path: Path) -> str:
    """A text file's content; "" when unreadable or larger than MAX_SOURCE_BYTES."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _language_from_invocations(invocations: list[Invocation]) -> str:
    for inv in invocations:
        first = inv.interpreter.split()[0] if inv.interpreter else ""  # `uv run`: uv
        base = re.sub(r"\d+(\.\d+)*$", "", posixpath.basename(first))
        if base in INTERPRETERS:
            return INTERPRETERS[base]
    return ""


# An installer is named for what it installs (`install-mq.sh`, `install_pandoc.py`) or says so
# on its first line ("Idempotent installer for `mq`", "Installs pandoc if missing"): that tool
# is its product, no need.  `setup_git.sh` configures git: it needs it.
_INSTALLER_NAME = re.compile(r"install[-_]([a-z][\w.-]*)", re.I)
_INSTALLER_DOC = re.compile(
    r"\b[Ii]nstall(?:s|er for|ing)\s+(?:`([\w.-]+)`|([a-z][\w.-]*)\b(?![ \t]+(?:packages?|"
    r"dependencies|deps|modules?|requirements|plugins?|librar(?:y|ies)|tools?|files?)\b))"
)
_NOT_A_TOOL = frozenset(
    "the a an all any it into to in on from with dependencies deps requirements packages "
    "everything tools required this these those your our missing needed system".split()
)


def installed_by(path: str, doc: str) -> set[str]:
    """The tools the program at ``path`` installs, by its name and its doc's first line."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    found = {m.group(1).lower() for m in [_INSTALLER_NAME.fullmatch(stem)] if m}
    first = doc.split("\n", 1)[0]
    found |= {(m.group(1) or m.group(2)).lower() for m in _INSTALLER_DOC.finditer(first)}
    return found - _NOT_A_TOOL


def _emits_json(language: str, source: str) -> bool:
    if language == "python":
        return "json.dump" in source and ("print(" in source or "sys.stdout" in source)
    if language in ("node", "typescript"):
        return "JSON.stringify(" in source and (
            "console.log" in source or "process.stdout.write" in source
        )
    if language in ("bash", "sh", "zsh"):
        return bool(re.search(r"\bjq\b|printf\s+['\"]\{|echo\s+['\"]\{", source))
    return False


def _apply_dispatch(program: Program, dispatch: dict[str, list[str]]) -> None:
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


def _merge_invocations(program: Program) -> None:
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
    declared = command.positionals()
    if command.framework not in ("none", "shell", "node") or len(words) <= len(declared):
        return
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
