"""What a skill's programs (and the code examples of its documents) need from the
environment: packages, binaries, env vars.

Python is read from its syntax tree (``python_needs``), Node line by line (``node_needs``),
shell here.  The
skill's own modules are never packages (``imports.LocalFiles``), and what only one platform
or a fallback uses is a warning, not a blocking check: a Node block under
``process.platform``, a shell block under ``uname``/``$OSTYPE``, alternatives
(``command -v gtimeout || command -v timeout``), a check whose failure the script survives.
"""

from __future__ import annotations

import ast
import re
from collections import deque

from skill2app.converter.inventory.imports import LocalFiles, outside_from
from skill2app.converter.inventory.node_needs import from_node
from skill2app.converter.inventory.python_needs import PythonNeeds
from skill2app.converter.inventory.requirements import COMMON_COMMANDS, Collector, from_commands
from skill2app.converter.inventory.shell import (
    FUNCTION,
    HEREDOC,
    RUN_PAST_FUNCTIONS,
    simple_commands,
)

_SHELL_PLATFORM = re.compile(
    r"\buname\b|\$\{?OSTYPE|\$\{?OS\b|\$\{?WINDIR|\$\{?MSYSTEM|\bsw_vers\b"
)
_SHELL_CHECK = re.compile(r"\b(?:command\s+-v|which|hash|type\s+-P)\s+([\w.+-]+)")
# A quoted string with no command substitution in it (`$(…)`, backticks): a message.
_PROSE_STRING = re.compile(r"\"(?:[^\"\\$`]|\\.|\$(?!\())*\"|'[^']*'")


def from_program(
    path: str,
    language: str,
    source: str,
    local: LocalFiles,
    out: Collector,
    caught: frozenset[str] = frozenset(),
    functions: frozenset[str] = frozenset(),
) -> None:
    """``caught``: the exception classes some ``except`` of the skill's Python catches;
    ``functions``: the shell functions the skill's shell files define."""
    if language == "python":
        _python(path, source, local, out, caught=caught)
    elif language in ("node", "typescript"):
        from_node(path, source, local, out)
    elif language in ("bash", "sh", "zsh"):
        _shell(path, source, out, functions, local.names if local else frozenset())


def _python(
    path: str, source: str, local: LocalFiles | None, out: Collector, offset: int = 0, *,
    required: bool = True, caught: frozenset[str] = frozenset(),
) -> None:  # fmt: skip
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 200,000 deep, too
        return
    roots = local.roots(path, source) if local is not None else []
    folder, outside = outside_from(path, source)
    unknown: set[str] = set()

    def is_local(top: str, line: int) -> bool | None:
        """The skill's own module (True), a package (False), or unknown (None): imported,
        unresolved, after a folder outside the skill joins sys.path (ledger's secret_detect,
        in the sibling ``shared`` skill converted without it; or a package after all)."""
        if local is not None and local.python_local(top, roots):
            return True
        if 0 < outside < line:
            unknown.add(top)
            return None
        return False

    def add(kind: str, name: str, line: int, needed: bool) -> None:
        beside = f"{folder}/{name}.py" if kind == "python-package" and name in unknown else ""
        out.add(kind, name, f"{path}:{line + offset}", required=required and needed, beside=beside)

    try:
        PythonNeeds(tree, is_local, COMMON_COMMANDS, caught).scan(add)
    except RecursionError:  # parsed, yet too deep to unparse (`a` + `.b()` 400 times): unread
        return


def from_python_example(
    text: str, first_line: int, file: str, out: Collector, local: LocalFiles | None = None
) -> None:
    """Packages a Python example in a document imports: what the model's own scripts need
    (a warning: no pipeline runs the example); never the skill's own modules (``local``:
    ``from scripts.create_page import ...`` imports the skill's scripts/ folder)."""
    _python(file, text, local, out, first_line - 1, required=False)


def shell_functions(source: str) -> set[str]:
    """The functions a shell script defines (``name() {``, ``function name``) and its
    aliases (``alias ll="ls -l"``): names it calls that are no programs."""
    names = {*FUNCTION.findall(source), *_FUNCTION_WORD.findall(source)}
    names |= {name for name, value in _ALIAS.findall(source) if value.split()[:1] != [name]}
    # a wrapper of the program of its name (`ffmpeg() { command ffmpeg ...; }`) runs it
    return names - set(RUN_PAST_FUNCTIONS.findall(source))


_FUNCTION_WORD = re.compile(r"(?m)^\s*function\s+([A-Za-z_][\w-]*)")
_ALIAS = re.compile(r"(?m)^\s*alias\s+([A-Za-z_][\w.-]*)=['\"]?([^'\"\n]*)")


def _shell(
    path: str,
    source: str,
    out: Collector,
    defined: frozenset[str] = frozenset(),
    skill_files: frozenset[str] = frozenset(),
) -> None:
    """``defined``: the functions of the skill's shell files; ``skill_files``: the names of
    its files (a script sourcing one of them still runs its later commands as its own)."""
    lines = source.split("\n")
    platform = _shell_platform_lines(lines)
    own, branch_only = _own_variables(source)
    for index, line in enumerate(lines):
        where = f"{path}:{index + 1}"
        line = "" if line.lstrip().startswith("#") else line  # "# Detect which files ..."
        for match in re.finditer(r"\$\{([A-Z][A-Z0-9_]*)(:?[?-])", line):
            if match.group(1) in own:
                continue  # `PROJECTS_DIR=...` then `${PROJECTS_DIR:?}`: a guard, no need
            default = line[match.end() :].split("}", 1)[0].split("$", 1)[0].strip("\"' ")
            if match.group(2).endswith("-") and default and line[match.end() :][:1] != "$":
                continue  # `${MERMAID_WIDTH:-1200}`: a setting with its default, no need
            needed = match.group(2).endswith("?") and index not in platform
            needed = needed and match.group(1) not in branch_only  # set in a branch: maybe
            out.add("env", match.group(1), where, required=needed)
        names = _SHELL_CHECK.findall(_PROSE_STRING.sub('""', line))  # "…specify which one:"
        for name in names:
            alone = len(names) == 1  # several: a fallback chain, any one of them will do
            after = lines[index + 1 : index + 6]
            needed = alone and index not in platform and _check_needed(line, after)
            # a check the script survives (it installs the tool, or warns): it copes without,
            # whatever it runs later (`command -v pnpm || npm install -g pnpm`, then `pnpm`)
            out.add("binary", name, where, required=needed, checked=not needed)
    functions = shell_functions(source) | defined
    arms = re.compile(r"^\s*[^\s()]+(\s*\|\s*[^\s()]+)*\s*\)")
    kept = "\n".join("" if arms.match(line) else line for line in lines)
    commands = [c for c in simple_commands(kept, 1, "bash") if c.argv[0] not in functions]
    from_commands(commands, path, out, program=True, every_run=_top_level_lines(lines, skill_files))


# A variable the script sets itself: `NAME=...`, `local NAME=...`, `read NAME`, `for NAME in`.
_SHELL_ASSIGN = re.compile(
    r"[ \t]*(?:(?:export|local|readonly|declare(?:[ \t]+-\w+)*)[ \t]+)?([A-Z][A-Z0-9_]*)="
    r"|[ \t]*read[ \t]+(?:-\w+[ \t]+)*([A-Z][A-Z0-9_]*)|[ \t]*for[ \t]+([A-Z][A-Z0-9_]*)[ \t]+in\b"
)


def _own_variables(source: str) -> tuple[set[str], set[str]]:
    """The variables a shell script sets itself, not from the environment it was given:
    (set on every path: a line of its own at the top level, before any block; set in a branch
    or a loop only, which the environment may still give).  A heredoc's body sets nothing
    (a `.env` template it writes), and ``API_KEY="${API_KEY:?}"`` takes its value from the
    environment: not its own."""
    always: set[str] = set()
    sometimes: set[str] = set()
    ending = ""  # the word closing the heredoc the line is in
    for line in source.split("\n"):
        if ending:
            ending = "" if line.strip() == ending else ending
            continue
        heredoc = HEREDOC.search(line[:MAX_SHELL_LINE])
        ending = heredoc.group(1) if heredoc else ""
        match = _SHELL_ASSIGN.match(line[:MAX_SHELL_LINE])
        if match is None:
            continue
        name = next(g for g in match.groups() if g)
        if re.search(rf"\$\{{?{name}\b", line[match.end() : match.end() + MAX_SHELL_LINE]):
            continue
        (always if not line[:1].isspace() else sometimes).add(name)
    return always, sometimes - always


MAX_SHELL_LINE = 500  # characters of a line read for an assignment


def _check_needed(line: str, after: list[str]) -> bool:
    """Whether ``command -v X`` on ``line`` stops the script when X is missing: ``|| exit``,
    ``|| { echo ...; exit 1; }``, ``if ! command -v X; then ... exit``.  Alternatives
    (``command -v a || command -v b``) and features used when present are not."""
    line = _shell_code(line, "")[0]  # "exit" in a quoted message stops nothing
    after = [_shell_code(later, "")[0] for later in after]
    stops = re.compile(r"\b(?:exit|die|fail|abort)\b|\breturn\s+[1-9]")
    if "||" in line:
        return bool(stops.search(line.split("||", 1)[1]) or stops.search(" ".join(after[:2])))
    if "&&" in line and not re.search(r"\bthen\b", line):  # `[ -z "$(command -v x)" ] && ...`
        return bool(stops.search(line.split("&&", 1)[1]))
    if re.search(r"\bif\s+!\s", line) or re.search(r"\[\[?\s*-z\s", line):
        then = re.split(r"\bthen\b", line, maxsplit=1)  # `if ! ...; then echo x; exit 1; fi`
        block = [re.split(r"\b(?:fi|else|elif)\b", then[1])[0]] if len(then) > 1 else []
        if len(then) > 1 and re.search(r"\bfi\b", then[1]):
            after = []
        for later in after:
            if re.match(r"\s*(?:fi|else|elif)\b", later):
                break
            block.append(later)
        return bool(stops.search(" ".join(block)))
    if re.search(r"\bif\b|&&", line):
        return False  # used when present
    return True


# What opens and closes a block of a shell script, at a command's place: its lines run only
# sometimes (`echo done` closes nothing, nor a case arm `done)`).
_SHELL_OPENS = re.compile(
    r"(?:^|[;&|(){]|\bthen|\bdo|\belse)\s*(?:if|case|for|while|until|select)\b"
)
_SHELL_CLOSES = re.compile(r"(?:^|[;&|])\s*(?:fi|esac|done)\b(?!\s*\))")
_SHELL_BRACES = re.compile(r"(?:^|[\s)])([{}])(?=\s|;|$)")
# A heredoc's start, its word quoted or not: `<<EOF`, `<<-'EOF'` (not a here-string `<<<`).
_HEREDOC_START = re.compile(r"<<-?[ \t]*['\"]?([A-Za-z_]\w*)['\"]?")
# `source FILE` / `. FILE`, at a command's place: its functions are the script's from there.
_SOURCES = re.compile(r"(?:^|[;&|])[ \t]*(?:source|\.)[ \t]+([^;&|#\n]+)")
# What a sourced file sets that is no command: variables (`.env`), a virtualenv's activation.
_SETS_VARIABLES = re.compile(r"(?:^|[./])env$|activate$")


def _shell_code(line: str, quote: str) -> tuple[str, str, list[str]]:
    """One line of a shell script as code: (the line with each quoted string, escape and
    comment left out, the quote still open at its end ("" if none), the words ending the
    heredocs it starts).  ``quote``: the quote open from the line before.  One pass."""
    out: list[str] = []
    words: list[str] = []
    i, size = 0, len(line)
    while i < size:
        char = line[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 2
                continue
            if char == quote:
                quote = ""
                out.append("_")
            i += 1
            continue
        if char == "\\":
            out.append("\\" if i == size - 1 else "_")  # a continuation, or an escape
            i += 2
            continue
        if char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1] in " \t;&|("):
            break  # a comment
        elif line.startswith("<<", i) and not line.startswith("<<<", i):
            started = _HEREDOC_START.match(line, i)
            if started:
                words.append(started.group(1))
                out.append(" ")
                i = started.end()
                continue
            out.append(char)
        else:
            out.append(char)
        i += 1
    return "".join(out), quote, words


def _sourced_name(argument: str) -> str:
    """The file name a ``source`` argument ends with: ``"$(dirname "$0")/paths.sh"`` →
    ``paths.sh``."""
    return argument.strip().rsplit("/", 1)[-1].strip("\"' ")


def _top_level_lines(lines: list[str], own: frozenset[str] = frozenset()) -> frozenset[int]:
    """The (1-based) lines of a shell script whose commands run on every run: at its top
    level, outside any ``if``/``case``/loop, function or group, no fallback (``a || b``) or
    condition (``a && b``, over continued lines too), before any top-level ``exit`` and before
    the script sources a file that is none of the skill's (``own``: their names), whose
    functions it may then call (``. "$NVM_DIR/nvm.sh"`` then ``nvm use``).  ``agent-browser
    open "$URL"`` there fails the script when the tool is missing: the pipeline running it
    needs the tool.  Quotes over several lines and heredocs' bodies are no code; a command a
    string spans goes on after it closes.  Linear on any script."""
    found: set[int] = set()
    depth, quote = 0, ""
    groups: list[bool] = []  # open `(`s at a line's end: a group (True) or a value (`=(`)
    heredocs: deque[str] = deque()  # the words ending the heredocs whose bodies come next
    start = 0  # the line a command starts on
    logical: list[str] = []  # its code so far
    for number, line in enumerate(lines, start=1):
        if heredocs:
            if line.strip() == heredocs[0]:
                heredocs.popleft()
            continue
        code, quote, words = _shell_code(line, quote)
        heredocs.extend(words)
        start = start or number
        logical.append(code)
        if code.endswith("\\") or quote:
            continue  # continued, or a string still open
        text, first = " ".join(logical), start  # joined once
        start, logical = 0, []
        braces = _SHELL_BRACES.findall(text)
        opens = len(_SHELL_OPENS.findall(text)) + braces.count("{")
        closes = len(_SHELL_CLOSES.findall(text)) + braces.count("}")
        if re.search(r"\(\s*$", text):  # `cmd || (` opens a group; `args=(`, `$(` a value
            group = not re.search(r"(?:=|\$)\(\s*$", text)
            groups.append(group)
            opens += group
        elif re.fullmatch(r"\s*\)\s*", text) and groups:
            closes += groups.pop()
        sourced = _SOURCES.search(lines[first - 1]) if _SOURCES.search(text) else None
        if sourced:
            name = _sourced_name(sourced.group(1))
            if name not in own and not _SETS_VARIABLES.search(name):
                break  # its functions and aliases are no binaries (`[ -s x ] && . x`, too)
        if depth == 0 and not opens and not closes and not re.search(r"\|\||&&", text):
            if re.match(r"\s*exit\b", text):
                break  # what follows a top-level exit never runs
            found.add(first)
        depth = max(depth + opens - closes, 0)
    return frozenset(found)


def _shell_platform_lines(lines: list[str]) -> set[int]:
    """Indexes of lines inside an ``if``/``case`` that tests the platform."""
    inside: set[int] = set()
    stack: list[tuple[str, bool]] = []  # ("if" | "case", tests the platform)
    for index, line in enumerate(lines):
        code = line.split(" #", 1)[0]
        opens = re.match(r"\s*(if|case)\b", code)
        if any(platform for _kind, platform in stack):
            inside.add(index)
        if opens:
            stack.append((opens.group(1), bool(_SHELL_PLATFORM.search(code))))
        if re.search(r"\bfi\b", code) and stack and stack[-1][0] == "if":
            stack.pop()
        elif re.search(r"\besac\b", code) and stack and stack[-1][0] == "case":
            stack.pop()
    return inside
