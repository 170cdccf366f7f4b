"""Which shell commands in SKILL.md run a program of the skill, with which arguments.

The commands come from ``shell.simple_commands``; each names its program through an
interpreter (``python3 x.py``, ``python -m tools.x``, ``uv run``, ``npx tsx`` ...) or directly
(``./x.sh``), and the program's path is resolved against the skill's files, also from a
``cd`` earlier in the block.  What the command reads on stdin is kept, naming the program
when another program of the skill pipes into it.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field

from skill2app.converter.inventory.requirements import COMMON_COMMANDS, SYSTEM_INSTALLERS
from skill2app.converter.inventory.shell import (
    PACKAGE_RUNNERS,
    SimpleCommand,
    Stdin,
    simple_commands,
)

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
_RUNNERS = {
    "uv": ("run",),
    "poetry": ("run",),
    "pipenv": ("run",),
    "pipx": ("run",),
    "deno": ("run",),
    "bun": ("run",),
    "npm": ("exec",),
    "pnpm": ("exec",),
}
_PROGRAM_EXT = re.compile(r"\.(py|sh|bash|zsh|js|mjs|cjs|ts|rb|pl|php|r|ps1)$", re.I)


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
    position: int = 0  # its place among the commands of its line (`a.py | b.py`: b is 1)
    optional: list[str] = field(default_factory=list)  # flags shown in `[...]` groups
    values: dict[str, str] = field(default_factory=dict)  # its NAME=value prefixes: NAME -> value

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"file": self.file, "line": self.line, "argv": list(self.argv)}
        if self.interpreter:
            data["interpreter"] = self.interpreter
        if self.env:
            data["env"] = sorted(self.env)
        if self.stdin is not None:
            data["stdin"] = self.stdin.to_dict()
        if self.optional:
            data["optional"] = sorted(self.optional)
        data["source"] = self.source
        return data


def order_key(inv: Invocation) -> tuple[bool, str, int]:
    """Where an invocation is written: SKILL.md first, then other files, by line."""
    return (inv.file != "SKILL.md", inv.file, inv.line)


def program_of(argv: list[str]) -> tuple[str, str, int]:
    """(interpreter, script word, index of the first argument) for ``argv``.

    ``python3 -u scripts/x.py a`` → ("python3", "scripts/x.py", 3);
    ``python -m tools.report a`` → ("python", "tools/report.py", 3);
    ``./x.sh a`` → ("", "./x.sh", 1);
    ``npx -y bun scripts/main.ts a`` → ("bun", "scripts/main.ts", 4) (a usage line keeps the
    package runner that fetches the interpreter, and its options).
    """
    i, interpreter = 0, ""
    while i < len(argv):
        word = argv[i]
        base = posixpath.basename(word)
        fetched = _fetched_interpreter(argv, i) if base in PACKAGE_RUNNERS else 0
        if fetched and not interpreter:
            i = fetched
            continue
        if base in _RUNNERS and i + 1 < len(argv) and argv[i + 1] in _RUNNERS[base]:
            interpreter = interpreter or f"{base} {argv[i + 1]}"  # `uv run`: `uv` alone refuses
            i += 2
        elif base in INTERPRETERS or re.fullmatch(r"python3(\.\d+)?", base):
            interpreter = base
            i += 1
        elif word.startswith("-") and interpreter:
            if word == "-m" and i + 1 < len(argv):
                return interpreter, argv[i + 1].replace(".", "/") + ".py", i + 2
            takes = word in ("--with", "-p", "--python", "-r", "--require")
            if " " in interpreter:  # a runner's own options: `uv run --with pypdf` runs it so
                interpreter = " ".join([interpreter, *argv[i : i + 1 + takes]])
            i += 1 + takes
        else:
            return interpreter, word, i + 1
    return interpreter, "", len(argv)


def _fetched_interpreter(argv: list[str], at: int) -> int:
    """Where the interpreter a package runner at ``at`` fetches is (``npx -y bun x.ts``,
    ``bunx --bun tsx x.ts``: 2), past the runner's own options; 0 when it runs no
    interpreter (``npx @scope/cli render``: the package is the program)."""
    i = at + 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 1 + (argv[i] in ("-p", "--package"))
    found = i < len(argv) and posixpath.basename(argv[i]) in INTERPRETERS
    return i if found else 0


def resolve(word: str, cwd: str, files: list[str]) -> str:
    """The file of the skill that ``word`` names, or ""."""
    if not word or word in ("-", "--"):
        return ""
    clean = posixpath.normpath(word.strip()).removeprefix("./")
    known = set(files)
    # "$SKILL_DIR/x.sh", "<this-skill-dir>/x.sh", "{baseDir}/scripts/x.sh"
    placeholder = re.match(r"(?:\$\{?\w+\}?|<[\w-]+>|\{\{?[\w-]+\}\}?)/(.+)$", clean)
    if placeholder:
        rest = placeholder.group(1)
        found = resolve(rest, "", files)
        same = [f for f in files if posixpath.basename(f) == posixpath.basename(rest)]
        return found or (same[0] if len(same) == 1 and _PROGRAM_EXT.search(rest) else "")
    if cwd and posixpath.normpath(posixpath.join(cwd, clean)) in known:
        return posixpath.normpath(posixpath.join(cwd, clean))
    if clean in known:
        return clean
    if not posixpath.splitext(clean)[1]:  # `python scripts/check_fields` for check_fields.py
        for ext in (".py", ".sh", ".js"):  # that very path: a bare `cast` is a command of
            for path in (posixpath.normpath(posixpath.join(cwd, clean + ext)), clean + ext):
                if path in known:  # the PATH, not lib/cast.py
                    return path
        if "/" not in clean:  # `pushover-notify`, a shell script the skill puts on the PATH
            same = [f for f in files if posixpath.basename(f) == clean + ".sh"]
            return same[0] if len(same) == 1 else ""
    suffixes = [f for f in files if clean.endswith("/" + f)]
    if suffixes:
        return max(suffixes, key=len)
    if "/" not in clean and _PROGRAM_EXT.search(clean):
        same = [f for f in files if posixpath.basename(f) == clean]
        if len(same) == 1:
            return same[0]
    return ""


def linked_names(commands: list[SimpleCommand], files: list[str]) -> dict[str, str]:
    """Names the documents install a program of the skill under (``ln -sf
    ".../scripts/pushover-notify.sh" ~/.local/bin/pushover-notify``) → that program: a
    command run by that name runs it."""
    names: dict[str, str] = {}
    for command in commands:
        words = [w for w in command.argv[1:] if not w.startswith("-")]
        is_link = command.argv[:1] == ["ln"] and any(
            re.fullmatch(r"-\w*s\w*", w) for w in command.argv[1:]
        )
        if not is_link or len(words) != 2:
            continue
        program = resolve(words[0], command.cwd, files)
        name = posixpath.basename(words[1].rstrip("/")) if not words[1].endswith("/") else ""
        name = name or posixpath.basename(program)
        if name in SYSTEM_COMMANDS or not re.fullmatch(_NAME, name):
            continue  # `ln -sf .../notify.sh ~/.local/bin/git`: `git status` is still git
        if program and _PROGRAM_EXT.search(program):
            names[name] = program
    return names


# `bun build cli.ts --compile --outfile gdrive` (a package.json script): the binary runs cli.ts
_COMPILED = re.compile(r"\bbun\s+build\s+(?:--\S+\s+)*(\S+\.[cm]?[jt]s)\b.*?--outfile[ =](\S+)")
MAX_PACKAGES = 20  # package.json files read for the names of their programs
MAX_SCRIPT = 500  # characters of a package.json script read for a compiled program


def package_names(texts: dict[str, str], files: list[str]) -> dict[str, str]:
    """Names a package.json of the skill gives its programs (``texts``: its path -> text):
    ``"bin": {"gdrive": "cli.ts"}`` and a script compiling one (``bun build cli.ts --compile
    --outfile gdrive``) -> the program, by the name (``gdrive``) and by its path
    (``scripts/gdrive``, which the skill's commands run once it is built: round 47's
    gdrive-access documented only ``$GDRIVE_CLI list <folder_id>``)."""
    names: dict[str, str] = {}
    for path, text in list(texts.items())[:MAX_PACKAGES]:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, dict):
            continue
        folder = posixpath.dirname(path)
        bins = data.get("bin")
        pairs = [(n, t, n) for n, t in bins.items()] if isinstance(bins, dict) else []
        if isinstance(bins, str) and isinstance(data.get("name"), str):
            name = data["name"].rsplit("/", 1)[-1]
            pairs.append((name, bins, name))
        scripts = data.get("scripts")
        for line in scripts.values() if isinstance(scripts, dict) else []:
            short = isinstance(line, str) and len(line) <= MAX_SCRIPT  # the pattern: bounded
            built = _COMPILED.search(line) if short else None
            if built:  # `--outfile dist/gdrive`: run as dist/gdrive from that folder
                out = posixpath.normpath(built.group(2))
                if out.startswith(("/", "..", "~", "$")):
                    continue  # `--outfile /usr/local/bin/pandoc`: built out of the skill
                pairs.append((posixpath.basename(out), built.group(1), out))
        for name, target, made in pairs:
            program = posixpath.normpath(posixpath.join(folder, str(target)))
            named = isinstance(name, str) and re.fullmatch(_NAME, name)
            if not named or name in SYSTEM_COMMANDS or len(names) >= MAX_NAMES:
                continue  # a bin named git would make every `git status` the skill's program
            if program in files and _PROGRAM_EXT.search(program):
                names.setdefault(name, program)
                names.setdefault(posixpath.normpath(posixpath.join(folder, str(made))), program)
    return names


# Commands a skill's documents run that are never its own programs, whatever its
# package.json or an `ln -s` calls them: the shell's and the system's own, its package
# managers, and the tools skills run most.
SYSTEM_COMMANDS = (
    COMMON_COMMANDS
    | SYSTEM_INSTALLERS
    | frozenset(
        "git gh node npm npx bun bunx deno pip pip3 uv uvx curl wget jq make docker kubectl code "
        "sudo ssh scp rsync yarn pnpm tsx ts-node go cargo ruby perl java javac php rustc gcc "
        "g++ cc clang timeout gtimeout nohup xargs watch screen tmux vim nano emacs systemctl "
        "service crontab pytest sqlite3 psql mysql redis-cli mongo pandoc ffmpeg ffprobe magick "
        "convert soffice libreoffice pdftoppm pdftotext pdfinfo qpdf gs tesseract rg fd fzf bat "
        "helm terraform aws gcloud az openssl base64 sha256sum md5sum shasum man".split()
    )
)
_NAME = r"[A-Za-z0-9][\w.-]{0,63}"  # a name a skill may give its program
MAX_NAMES = 100  # names taken from the package.json files of one skill


def linked_program(word: str, linked: dict[str, str]) -> str:
    """The program a command word runs under a linked name: the name itself (``gdrive``), or
    a path that starts at a variable or the home folder and ends in a linked path
    (``$HOME/.claude/.../scripts/gdrive``; never ``/usr/bin/git``)."""
    clean = posixpath.normpath(word)
    if word in linked or clean in linked:
        return linked.get(word) or linked[clean]
    base = posixpath.basename(clean)
    if base not in linked or not clean.startswith(("$", "~", "<", "{")):
        return ""
    ends = [key for key in linked if "/" in key and clean.endswith("/" + key)]
    return linked[max(ends, key=len)] if ends else ""


def invocations_in(
    text: str,
    first_line: int,
    language: str,
    files: list[str],
    source: str = "block",
    doc: str = "SKILL.md",
    linked: dict[str, str] | None = None,
) -> tuple[list[Invocation], list[SimpleCommand]]:
    """(invocations of skill files, the other commands) in one block or inline span;
    ``linked``: names the documents install programs under (``linked_names``)."""
    commands = simple_commands(text, first_line, language)
    return invocations_of(commands, files, source, doc, linked)


def invocations_of(
    commands: list[SimpleCommand],
    files: list[str],
    source: str = "block",
    doc: str = "SKILL.md",
    linked: dict[str, str] | None = None,
) -> tuple[list[Invocation], list[SimpleCommand]]:
    """``invocations_in`` for commands already read from their block."""
    found: list[Invocation] = []
    others: list[SimpleCommand] = []
    for command in commands:
        interpreter, word, first_arg = program_of(command.argv)
        if command.runner and interpreter:  # `npx -y bun x.ts`: npx fetches bun, then runs it
            interpreter = f"{command.runner} {interpreter}"
        program = resolve(word, command.cwd, files)
        if not program and not interpreter and linked:
            program = linked_program(word, linked)  # `pushover-notify --title T`
        if program:
            argv, optional = optional_groups(command.argv[first_arg:])
            found.append(
                Invocation(
                    program,
                    command.line,
                    argv,
                    interpreter,
                    source,
                    command.env,
                    doc,
                    _of_program(command.stdin, command.cwd, files),
                    command.position,
                    optional,
                    dict(command.values),
                )
            )
        else:
            others.append(command)
    return found, others


def elsewhere(command: SimpleCommand, doc: str, source: str = "block") -> Invocation | None:
    """The command as an invocation of a program outside the skill folder that the
    documents run (``node ../feishu-auth/auth.js --auth-and-poll``), or None."""
    interpreter, word, first_arg = program_of(command.argv)
    clean = posixpath.normpath(word.strip()) if word else ""
    if not clean.startswith("../") or not _PROGRAM_EXT.search(clean):
        return None
    argv, optional = optional_groups(command.argv[first_arg:])
    return Invocation(
        clean, command.line, argv, interpreter, source, command.env, doc,
        position=command.position, optional=optional,
    )  # fmt: skip


# `[option]` or `[flags]` may name a word the program takes.
_OPTIONS_WORDS = frozenset(("options", "opts", "选项"))


def optional_groups(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` without the brackets of its optional groups, and the flags inside them:
    ``--action list [--count 20] [--offset 0]`` gives ``--action list --count 20 --offset
    0`` with ``--count`` and ``--offset`` optional.  A word wholly in brackets that is no
    flag (``[timeout_seconds]``) stays as it is: a placeholder of an optional positional;
    ``[options]`` only says where the options go, and is left out."""
    words: list[str] = []
    optional: list[str] = []
    depth = 0
    for word in argv:
        opens = len(word) - len(word.lstrip("["))
        closes = len(word) - len(word.rstrip("]"))
        inner = word[opens : len(word) - closes] if closes else word[opens:]
        if opens and closes and inner.lower().rstrip(".…") in _OPTIONS_WORDS:
            continue  # `x.ts <file> [options]`: where options go, no positional
        if is_json_literal(word) or (opens and closes and not inner.startswith("-")):
            words.append(word)
            continue
        depth += opens
        if inner:
            words.append(inner)
            if depth > 0 and inner.startswith("-") and not inner[1:2].isdigit():
                optional.append(inner.split("=", 1)[0])
        depth = max(0, depth - closes)
    return words, optional


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
    """``<file>``, ``{input}``, ``{{x}}``, ``$FILE``, ``YOUR_KEY``, ``path/to/x``, ``...``,
    and a value with a blank to fill inside (``https://x.org/share/REPLACE_WITH_SHARE_ID``,
    ``https://x.org/u/<id>``); a JSON object or array literal (``{"a": 1}``, ``[1, 2]``) is a
    real value."""
    if is_json_literal(value):
        return False
    return bool(
        re.fullmatch(r"<[^<>]+>|\{\{?[^{}]+\}\}?|\[[^\[\]]+\]", value)
        or "$" in value
        or "..." in value
        or re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", value)
        or re.search(r"(^|/)path/to/|your[-_]|YOUR_|^xxx|example\.com", value)
        or _BLANK.search(value)
    )


# A blank left to fill inside a value: "REPLACE_WITH_SHARE_ID", "CHANGE_ME", "/share/<id>".
_BLANK = re.compile(
    r"(?<![A-Za-z0-9])(?:REPLACE[_-]?(?:WITH[_A-Z0-9]*|ME|THIS)|CHANGE[_-]?ME)(?![A-Za-z0-9])"
    r"|(?<=/)<[A-Za-z_][\w-]*>"
)


def is_json_literal(value: str) -> bool:
    """Whether ``value`` is a JSON object or array (``{"a": 1}``, ``[]``), not a placeholder."""
    if not value.strip().startswith(("{", "[")):
        return False
    try:
        return isinstance(json.loads(value), dict | list)
    except (ValueError, RecursionError):  # "[[[[…" three thousand deep
        return False
