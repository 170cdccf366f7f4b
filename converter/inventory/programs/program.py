"""Find a skill's programs and describe each: language, interface, how SKILL.md calls it.

Programs are the runnable files in ``tools/`` (the APP layout) and ``scripts/`` (the Agent Skills
layout), beside SKILL.md, and anywhere else SKILL.md invokes one.  ``references/`` and
``assets/`` are context, never programs.  Nothing is run unless ``probe=True``.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from skill2app.converter.inventory.imports import reaches_out
from skill2app.converter.inventory.invocations import (
    INTERPRETERS,
    Invocation,
    invocations_in,
    order_key,
    program_of,
)
from skill2app.converter.inventory.programs.browser import waits_for_browser
from skill2app.converter.inventory.programs.documented import apply_usage, usage_of
from skill2app.converter.inventory.programs.facts import Program, read_source
from skill2app.converter.inventory.programs.interactive import read_prompts
from skill2app.converter.inventory.programs.interface import Command
from skill2app.converter.inventory.programs.interpreter import interpreter
from skill2app.converter.inventory.programs.invoked import apply_dispatch, merge_invocations
from skill2app.converter.inventory.programs.node import insisted, scan_node
from skill2app.converter.inventory.programs.node_exits import node_verdicts
from skill2app.converter.inventory.programs.prompts import terminal_prompt
from skill2app.converter.inventory.programs.python import extract_python_cli
from skill2app.converter.inventory.programs.scripts import (
    USAGE_PREFIX,
    USAGE_SEPARATORS,
    heredoc_help,
    leading_comment,
    name_python_positionals,
    name_shell_positionals,
    scan_shell,
)
from skill2app.converter.inventory.programs.shell_exits import shell_verdicts
from skill2app.converter.inventory.programs.verdicts import python_verdicts
from skill2app.converter.inventory.shell import simple_commands

PROGRAM_DIRS = ("tools", "scripts")
CONTEXT_DIRS = ("references", "assets")


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
    return posixpath.basename(rel) != "__init__.py" and program_shaped(language, source)


def program_shaped(language: str, source: str) -> bool:
    """Whether a file's source reads as a program: a file in any known language but Python; one
    in Python with a shebang, a ``__main__`` guard or a command-line parser (no module)."""
    if language != "python":
        return bool(language)
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
        interpreter=interpreter(lang, source, invocations),
        location=location_of(rel),
        invocations=sorted(invocations, key=lambda i: (*order_key(i), i.source, i.argv)),
        emits_json=_emits_json(lang, source),
    )
    dispatch: dict[str, list[str]] = {}
    if lang == "python":
        program.cli, program.doc = extract_python_cli(source)
        program.verdicts = python_verdicts(source)
        program.asks_at = read_prompts(program.cli, source)  # and what it must be given
        program.reaches_out = reaches_out(rel, source)
    elif lang in ("bash", "sh", "zsh"):
        program.cli, dispatch = scan_shell(source)
        program.verdicts = shell_verdicts(source)
        program.prompts_at = terminal_prompt(source)
        program.doc = leading_comment(source, "#")
    elif lang in ("node", "typescript"):
        program.cli, dispatch = scan_node(source)
        program.verdicts = node_verdicts(source)
        program.insists = insisted(source)
        program.doc = leading_comment(source, "//")
    program.waits_at = waits_for_browser(source)
    program.doc = (program.doc or _usage_line(source)).strip()[:2000]
    program.installs = installed_by(rel, program.doc)
    program.exit_notes = "\n".join(_EXIT_COMMENT.findall(source)[:MAX_EXIT_NOTES])
    apply_dispatch(program, dispatch)
    program.cli = program.cli or Command("none")
    literals = {*program.enumerations.get("<command>", []), *program.cli.subcommands}
    help_text = "\n".join([program.doc, _usage_line(source), *heredoc_help(source)])
    usage = usage_of(help_text, posixpath.basename(rel))
    apply_usage(program.cli, usage, literals)
    if lang in ("bash", "sh", "zsh"):
        name_shell_positionals(program.cli, source)
    _argv_count(program.cli, source)
    merge_invocations(program)
    if lang == "python":
        name_python_positionals(program.cli, source)
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
        merge_invocations(program)


def documented_only(rel: str, invocations: list[Invocation]) -> Program:
    """A program outside the skill that its documents run (a sibling skill's helper) and that
    is not there to read (the skill alone, without its collection): its interface is what
    the documents show of it (a conversion that needs it copies it, see ``siblings``)."""
    language = _language_from_invocations(invocations)
    program = Program(
        path=rel,
        language=language,
        interpreter=interpreter(language, "", invocations),
        location="elsewhere",
        invocations=sorted(invocations, key=lambda i: (*order_key(i), i.source, i.argv)),
    )
    merge_invocations(program)
    return program


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
