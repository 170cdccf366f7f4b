"""Shell commands in SKILL.md: which run a program of the skill, with which arguments.

A block is cut into simple commands with ``shlex`` after joining ``\\`` line continuations and
skipping heredoc bodies; ``&&``, ``||``, ``;``, ``|`` and ``&`` separate commands, ``NAME=value``
prefixes are recorded and dropped, ``cd dir`` changes where later paths in the same block are
resolved, and wrappers (``sudo``, ``env``, ``uv run``, ``npx tsx`` ...) are looked through.
What a command reads on stdin is kept (``Stdin``): a file (``< FILE``, ``cat FILE |``), text
(``echo TEXT |``, ``<<< TEXT``, a heredoc), or another command's output (``cmd |``).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field

SHELL_LANGUAGES = ("", "bash", "sh", "shell", "zsh", "console", "shell-session", "terminal")
INTERPRETERS = {
    "python": "python",
    "python3": "python",
    "py": "python",
    "pypy3": "python",
    "node": "node",
    "nodejs": "node",
    "bun": "node",
    "deno": "node",
    "tsx": "node",
    "ts-node": "node",
    "bash": "bash",
    "sh": "sh",
    "zsh": "zsh",
    "ruby": "ruby",
    "perl": "perl",
    "php": "php",
    "Rscript": "r",
    "pwsh": "powershell",
}
_WRAPPERS = ("sudo", "env", "time", "nohup", "exec", "command", "npx", "pnpx", "bunx")
_KEYWORDS = ("if", "then", "else", "elif", "while", "until", "do", "!", "{")
_RUNNERS = {
    "uv": ("run",),
    "poetry": ("run",),
    "pipenv": ("run",),
    "deno": ("run",),
    "bun": ("run",),
    "npm": ("exec",),
    "pnpm": ("exec",),
}
_OPERATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"}
_REDIRECT = re.compile(r"^(?:\d*>>?|<<?<?|>&|&>>?|<&|>\|)$")
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_][\w]*)['\"]?")
_PROMPT = re.compile(r"^\s*(?:\$|%|>|PS>)\s+")
_PROGRAM_EXT = re.compile(r"\.(py|sh|bash|zsh|js|mjs|cjs|ts|rb|pl|php|r|ps1)$", re.I)


@dataclass(frozen=True)
class Stdin:
    """What a documented command feeds a program on its standard input."""

    kind: str  # file | text | command | program (a program of the skill, ``value`` its path)
    value: str = ""  # the file, the text ("" for a heredoc), or the command as written

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value}


@dataclass(frozen=True)
class SimpleCommand:
    line: int  # file line where the command starts
    argv: list[str]
    env: list[str] = field(default_factory=list)  # NAME of NAME=value prefixes
    cwd: str = ""  # directory from an earlier `cd` in the block; "" = the skill folder
    stdin: Stdin | None = None  # None: the command reads nothing the block gives it


@dataclass(frozen=True)
class Invocation:
    program: str  # path of the program, relative to the skill folder
    line: int
    argv: list[str]  # the arguments after the program
    interpreter: str = ""  # "python3", "node" ...; "" when the program is run directly
    source: str = "block"  # block | inline
    env: list[str] = field(default_factory=list)
    file: str = "SKILL.md"  # the Markdown file it is written in
    stdin: Stdin | None = None  # what the documentation feeds it on stdin

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"file": self.file, "line": self.line, "argv": list(self.argv)}
        if self.interpreter:
            data["interpreter"] = self.interpreter
        if self.env:
            data["env"] = sorted(self.env)
        if self.stdin is not None:
            data["stdin"] = self.stdin.to_dict()
        data["source"] = self.source
        return data


def order_key(inv: Invocation) -> tuple[bool, str, int]:
    """Where an invocation is written: SKILL.md first, then other files, by line."""
    return (inv.file != "SKILL.md", inv.file, inv.line)


def logical_lines(text: str, first_line: int, language: str = "") -> list[tuple[int, str]]:
    """(file line, text) of each command line: continuations joined, heredocs and output
    skipped, prompts removed."""
    raw = text.split("\n")
    prompted = language in ("console", "shell-session", "terminal") or any(
        line.startswith("$ ") for line in raw
    )
    out: list[tuple[int, str]] = []
    pending, start, heredoc = "", 0, ""
    for offset, line in enumerate(raw):
        if heredoc:
            heredoc = "" if line.strip() == heredoc else heredoc
            continue
        if not pending:
            start = first_line + offset
            if prompted:
                if not _PROMPT.match(line):
                    continue
                line = _PROMPT.sub("", line, count=1)
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        full = pending + line
        pending = ""
        match = _HEREDOC.search(full)
        if match:
            heredoc = match.group(1)
        out.append((start, full))
    if pending:
        out.append((start, pending))
    return out


_ANGLE = re.compile(r"(?:(?<=\s)|^)<([A-Za-z_][^<>|&;\n]*?[^<>|&;\s])>(?=\s|$)")


def tokenize(line: str) -> list[str]:
    """Shell words and operators of one command line; comments dropped.  ``<placeholder>``
    words (``<input.pdf>``, ``<output pdf>``) are kept as words, not read as redirections."""
    kept: list[str] = []

    def protect(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    line = _ANGLE.sub(protect, re.sub(r"(?<=\s)\d+(?=[<>])", "", line))
    words = _split(line)
    return [re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], w) for w in words]


def _split(line: str) -> list[str]:
    for attempt in (line, line + '"', line + "'"):  # an unclosed quote is closed at the end
        lexer = shlex.shlex(attempt, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            return list(lexer)
        except ValueError:
            continue
    return [w.strip("'\"") for w in line.split("#", 1)[0].split()]


# Lines of a shell block that document rather than run: an option list (`--name, -n  Name
# (empty for root)`), a quoted prompt or output (`> Post about the weather`), JSON.
_NOT_A_COMMAND = re.compile(r'-|>|[{}]|"[^"]*"\s*:')


def simple_commands(text: str, first_line: int, language: str = "") -> list[SimpleCommand]:
    commands: list[SimpleCommand] = []
    cwd = ""
    for line, logical in logical_lines(text, first_line, language):
        if _NOT_A_COMMAND.match(logical.lstrip()):
            continue
        words: list[str] = []
        piped: Stdin | None = None  # what a `|` before the current command feeds it
        for token in [*tokenize(logical), ";"]:
            if token in _OPERATORS or token.startswith(("&&", "||", ";")):
                count = len(commands)
                cwd = _flush(words, line, cwd, commands, piped)
                piped = None
                if token in ("|", "|&"):  # nothing flushed: `( ... ) |`, a subshell's output
                    piped = _piped(commands[-1]) if len(commands) > count else Stdin("command")
                words = []
            else:
                words.append(token)
    return commands


_TEXT_COMMANDS = ("echo", "printf")


def _piped(command: SimpleCommand) -> Stdin:
    """What ``command |`` feeds the next command: ``cat FILE`` a file, ``echo TEXT`` text,
    a bare ``cat`` what it reads itself, anything else its output."""
    name, args = command.argv[0], command.argv[1:]
    if name == "cat" and len(args) == 1 and not args[0].startswith("-"):
        return Stdin("file", args[0])
    if name == "cat" and not args and command.stdin is not None:
        return command.stdin
    if name in _TEXT_COMMANDS:
        return Stdin("text", " ".join(a for a in args if a not in ("-n", "-e", "-en", "-ne")))
    return Stdin("command", shlex.join(command.argv))


def _flush(
    words: list[str], line: int, cwd: str, out: list[SimpleCommand], stdin: Stdin | None = None
) -> str:
    argv: list[str] = []
    env: list[str] = []
    redirect = ""
    for word in words:
        if redirect:  # the word after a redirection: `< FILE`, `<<< TEXT`, `<< DELIMITER`
            kinds = {"<": Stdin("file", word), "<<<": Stdin("text", word), "<<": Stdin("text")}
            stdin = kinds.get(redirect, stdin)
            redirect = ""
        elif _REDIRECT.match(word):
            redirect = word
        elif _HEREDOC.match(word):
            stdin = Stdin("text")
        else:
            argv.append(word)
    while argv and argv[0] in _KEYWORDS:
        argv.pop(0)
    while argv and _ENV_ASSIGN.match(argv[0]):
        env.append(argv.pop(0).split("=", 1)[0])
    while argv and argv[0] in _WRAPPERS:
        argv.pop(0)
        while argv and (argv[0].startswith("-") or _ENV_ASSIGN.match(argv[0])):
            if _ENV_ASSIGN.match(argv[0]):
                env.append(argv[0].split("=", 1)[0])
            argv.pop(0)
    if not argv:
        return cwd
    if argv[0] == "cd":
        target = argv[1] if len(argv) > 1 else ""
        return _cd(cwd, target)
    out.append(SimpleCommand(line, argv, env, cwd, stdin))
    return cwd


def _cd(cwd: str, target: str) -> str:
    if not target or target.startswith(("/", "~", "$", "{", "<")) or "$" in target:
        return _strip_root(target)
    joined = posixpath.normpath(posixpath.join(cwd, target))
    return "" if joined == "." else joined


def _strip_root(path: str) -> str:
    """``{baseDir}/scripts`` → ``scripts``: keep what follows a skill-root placeholder."""
    parts = [p for p in path.split("/") if p]
    for i, part in enumerate(parts):
        if any(ch in part for ch in "${}<>~") or part.lower() in ("skill", "skills"):
            rest = parts[i + 1 :]
            if not any(any(ch in p for ch in "${}<>~") for p in rest):
                return "/".join(rest) if rest and rest[0] in ("scripts", "tools", "bin") else ""
    return ""


def program_of(argv: list[str]) -> tuple[str, str, int]:
    """(interpreter, script word, index of the first argument) for ``argv``.

    ``python3 -u scripts/x.py a`` → ("python3", "scripts/x.py", 3);
    ``python -m tools.report a`` → ("python", "tools/report.py", 3);
    ``./x.sh a`` → ("", "./x.sh", 1).
    """
    i, interpreter = 0, ""
    while i < len(argv):
        word = argv[i]
        base = posixpath.basename(word)
        if base in _RUNNERS and i + 1 < len(argv) and argv[i + 1] in _RUNNERS[base]:
            interpreter = interpreter or base
            i += 2
        elif base in INTERPRETERS or re.fullmatch(r"python3(\.\d+)?", base):
            interpreter = base
            i += 1
        elif word.startswith("-") and interpreter:
            if word == "-m" and i + 1 < len(argv):
                return interpreter, argv[i + 1].replace(".", "/") + ".py", i + 2
            i += 1 + (word in ("--with", "-p", "--python", "-r", "--require"))
        else:
            return interpreter, word, i + 1
    return interpreter, "", len(argv)


def resolve(word: str, cwd: str, files: list[str]) -> str:
    """The file of the skill that ``word`` names, or ""."""
    if not word or word in ("-", "--"):
        return ""
    clean = posixpath.normpath(word.strip()).removeprefix("./")
    known = set(files)
    if cwd and posixpath.normpath(posixpath.join(cwd, clean)) in known:
        return posixpath.normpath(posixpath.join(cwd, clean))
    if clean in known:
        return clean
    if not posixpath.splitext(clean)[1]:  # `python scripts/check_fields` for check_fields.py
        for ext in (".py", ".sh", ".js"):
            if resolve(clean + ext, cwd, files):
                return resolve(clean + ext, cwd, files)
    suffixes = [f for f in files if clean.endswith("/" + f)]
    if suffixes:
        return max(suffixes, key=len)
    if "/" not in clean and _PROGRAM_EXT.search(clean):
        same = [f for f in files if posixpath.basename(f) == clean]
        if len(same) == 1:
            return same[0]
    return ""


def invocations_in(
    text: str,
    first_line: int,
    language: str,
    files: list[str],
    source: str = "block",
    doc: str = "SKILL.md",
) -> tuple[list[Invocation], list[SimpleCommand]]:
    """(invocations of skill files, the other commands) in one block or inline span."""
    found: list[Invocation] = []
    others: list[SimpleCommand] = []
    for command in simple_commands(text, first_line, language):
        interpreter, word, first_arg = program_of(command.argv)
        program = resolve(word, command.cwd, files)
        if program:
            found.append(
                Invocation(
                    program,
                    command.line,
                    command.argv[first_arg:],
                    interpreter,
                    source,
                    command.env,
                    doc,
                    _of_program(command.stdin, command.cwd, files),
                )
            )
        else:
            others.append(command)
    return found, others


def _of_program(stdin: Stdin | None, cwd: str, files: list[str]) -> Stdin | None:
    """``stdin``, naming the program when the command piping into it runs one of the skill's."""
    if stdin is None or stdin.kind != "command" or not stdin.value:
        return stdin
    try:
        argv = shlex.split(stdin.value)
    except ValueError:
        return stdin
    program = resolve(program_of(argv)[1], cwd, files)
    return Stdin("program", program) if program else stdin


def is_placeholder(value: str) -> bool:
    """``<file>``, ``{input}``, ``$FILE``, ``YOUR_KEY``, ``path/to/x``, ``...``."""
    return bool(
        re.fullmatch(r"<[^<>]+>|\{[^{}]+\}|\[[^\[\]]+\]", value)
        or "$" in value
        or "..." in value
        or re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", value)
        or re.search(r"(^|/)path/to/|your[-_]|YOUR_|^xxx|example\.com", value)
    )
