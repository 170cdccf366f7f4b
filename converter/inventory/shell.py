"""Shell commands in a Markdown code block: simple commands, with what each reads on stdin.

A block is cut into simple commands with ``shlex`` after joining ``\\`` line continuations and
setting heredoc bodies aside; ``&&``, ``||``, ``;``, ``|`` and ``&`` separate commands,
``NAME=value`` prefixes are recorded and dropped, ``cd dir`` changes where later paths in the
same block are resolved, and wrappers (``sudo``, ``env``, ``npx`` ...) are looked through.
What a command reads on stdin is kept (``Stdin``): a file (``< FILE``, ``cat FILE |``), text
(``echo TEXT |``, ``<<< TEXT``, a heredoc's body), or another command's output (``cmd |``).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace

SHELL_LANGUAGES = ("", "bash", "sh", "shell", "zsh", "console", "shell-session", "terminal")
# A word of a sentence, its brackets and punctuation aside: "release", "work/reproducibility",
# "Sodium-glucose", "4,744", "40%", "0·79" (and a bullet "•").
_PLAIN_WORD = re.compile(r"|[A-Za-z][a-z]*(?:[-'/][A-Za-z]+)*|[−-]?\d[\d.,·%]*")


_COMMAND_START = re.compile(
    r"^(?:python3?|node|bash|sh|zsh|uv|uvx|npx|bunx?|deno|pip3?|npm|pnpm|yarn|sudo|env|\$|[.~]?/.*)$"
)
_SCRIPT_PATH = re.compile(r"[\w.-]/[\w./-]*\.\w{1,5}\b")


def prose_block(text: str) -> bool:
    """Whether an untagged block holds wrapped paragraphs (an example abstract, a sample
    letter: "drug requiring 10-15 years and $2.6 billion to develop [1]. Machine learning"),
    not commands: half its lines or more are sentences (six words or more, three in four
    plain words, no option)."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    lines = [words for words in lines if not words[0].startswith("#")]  # comments: neither
    # a letter's labels and greetings ("Subject: ...", "- Quote Deadline: {deadline}",
    # "Dear {name},"): neither, when a sentence says the block is prose
    label = [_label(words) for words in lines]
    labels = sum(label)
    sentences = 0
    for words, is_label in zip(lines, label, strict=True):
        if labels and is_label:
            continue  # neither a sentence nor a command ("Note: ..." is not both)
        if _COMMAND_START.match(words[0]) or any(_SCRIPT_PATH.search(w) for w in words):
            continue  # `python scripts/generate.py "A sunset over the mountains"`
        plain = sum(bool(_PLAIN_WORD.fullmatch(w.strip("()[]{}\"'*•,.;:!?"))) for w in words)
        options = any(w.startswith("-") and len(w) > 1 and w[1] != " " for w in words[1:])
        sentences += len(words) >= 6 and plain * 4 >= len(words) * 3 and not options
    if sentences and labels:
        return sentences * 2 >= len(lines) - labels
    return bool(lines) and sentences * 2 >= len(lines)


def _label(words: list[str]) -> bool:
    """A letter's or form's line that is no command: ``_LABEL_LINE``, with no program in it
    ("Step 1: python scripts/x.py" is a command)."""
    if any(_SCRIPT_PATH.search(w) or _COMMAND_START.match(w) for w in words[1:]):
        return False
    return bool(_LABEL_LINE.match(" ".join(words)))


# A line of a letter or form that is no command: a capitalised label of up to three words
# and a colon, bold text alone, a template's field alone ("{sender_name}"), or a greeting or
# sign-off.
_LABEL_LINE = re.compile(
    r"^(?:[-*+]\s+)?(?:[A-Z][\w-]*(?: [\w-]+){0,2}:(?:\s|$)|\*\*[^*]+\*\*:?$)|^\{\w+\}$"
    r"|^(?:Dear|Hi|Hello|Best|Regards|Kind regards|Thanks|Thank you|Sincerely|Cheers)\b"
)


_WRAPPERS = ("sudo", "env", "time", "nohup", "exec", "command", "npx", "pnpx", "bunx")
# A wrapper's options that take the next word as their value (a variable, a user, a file).
_VALUED = {
    "env": ("-u", "--unset", "-C", "--chdir"),
    "sudo": ("-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "--host"),
    "time": ("-f", "--format", "-o", "--output"),
    "exec": ("-a",),
    "npx": ("-p", "--package"),
    "pnpx": ("-p", "--package"),
}
PACKAGE_RUNNERS = ("npx", "pnpx", "bunx")  # they fetch the package they run when it is missing
_KEYWORDS = ("if", "then", "else", "elif", "while", "until", "do", "!", "{")
_OPERATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"}
_REDIRECT = re.compile(r"^(?:\d*>>?|<<?<?|>&|&>>?|<&|>\||\d+<)$")
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# `<<EOF`, `<<-'END'`: a heredoc and the word that closes it; never `<<<` (a here-string).
HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*['\"]?([A-Za-z_][\w]*)['\"]?")
_PROMPT = re.compile(r"^\s*(?:\$|%|>|PS>)\s+")


@dataclass(frozen=True)
class Stdin:
    """What a documented command feeds a program on its standard input."""

    kind: str  # file | text | command | program (a program of the skill, ``value`` its path)
    value: str = ""  # the file, the text (a heredoc's body), or the command as written

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value}


@dataclass(frozen=True)
class SimpleCommand:
    line: int  # file line where the command starts
    argv: list[str]
    env: list[str] = field(default_factory=list)  # NAME of NAME=value prefixes
    cwd: str = ""  # directory from an earlier `cd` in the block; "" = the skill folder
    stdin: Stdin | None = None  # None: the command reads nothing the block gives it
    position: int = 0  # its place in its line: in `a | b | c`, a is 0, b 1 and c 2
    nested: bool = False  # inside `( ... )`: a subshell, or words in parentheses
    runner: str = ""  # `npx` of `npx @scope/cli render`: argv[0] is a package it fetches;
    # `npx -y` when the documents let it fetch without asking (a run has no one to ask)
    values: dict[str, str] = field(default_factory=dict)  # NAME -> value, as written


def logical_lines(
    text: str, first_line: int, language: str = ""
) -> list[tuple[int, str, list[str]]]:
    """(file line, text, the bodies of its heredocs) of each command line: continuations
    joined, heredoc bodies set aside, output skipped, prompts removed; a line that opens
    with a pipe is a table row (no shell line can), not a command."""
    raw = text.split("\n")
    prompted = language in ("console", "shell-session", "terminal") or any(
        line.startswith("$ ") for line in raw
    )
    out: list[tuple[int, str, list[str]]] = []
    pending, start, heredoc, tabs = "", 0, "", False
    body: list[str] = []
    joined_until = -1  # lines up to here belong to a quoted string opened above
    for offset, line in enumerate(raw):
        if offset <= joined_until:
            continue
        if heredoc:
            if line.strip() == heredoc:
                heredoc = ""
                out[-1][2].append("\n".join(body))
            else:
                body.append(line.lstrip("\t") if tabs else line)  # `<<-` strips tabs
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
        if full.lstrip().startswith("|"):
            continue  # `| Datetime | view | Target |`: a Markdown table, no command
        if _ARRAY_OPEN.match(full):  # `URLS=(` then one value a line, then `)`: values only
            last = min(offset + MAX_QUOTED_LINES, len(raw) - 1)
            end = next((e for e in range(offset + 1, last + 1) if ")" in raw[e]), offset)
            full, joined_until = full[: full.rindex("=(")].rstrip("+") + "=", end  # runs nothing
        quote = _quote_after(full)  # `node -e "` ... `"`: one command over several lines
        last = min(offset + MAX_QUOTED_LINES, len(raw) - 1) if quote else offset
        for end in range(offset + 1, last + 1):
            quote = _quote_after(raw[end], quote)  # each line read once, from where it stood
            if not quote:
                full = "\n".join([full, *raw[offset + 1 : end + 1]])
                joined_until = end
                break
        match = HEREDOC.search(full)
        if match:
            heredoc, body, tabs = match.group(1), [], match.group(0).startswith("<<-")
        out.append((start, full, []))
    if pending:
        out.append((start, pending, []))
    return out


MAX_QUOTED_LINES = 80
# An array assignment left open on its line (`URLS=(`, `URLS+=(`, `local -a items=(`): its
# values follow.
_ARRAY_OPEN = re.compile(
    r"^\s*(?:(?:local|declare|typeset|readonly)\s+(?:-\w+\s+)*)?\w+\+?=\([^)]*$"
)


def _quote_after(text: str, quote: str = "") -> str:
    """The quote still open at the end of ``text`` ("" for none), read from inside ``quote``;
    a quote opens only at the start of a word ("Don't" in a documented command opens
    nothing), and comments and escapes are skipped."""
    escaped = comment = False
    before = "\n"
    for char in text:
        if comment:
            comment = char != "\n"
        elif escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "\"'" and before in " \t\n=(:$":
            quote = char
        elif char == "#" and before in " \t\n;":
            comment = True  # it runs to the end of its line
        before = char
    return quote


# A placeholder word: `<file.pdf>`, `<output pdf>`, `<workspace>/iteration-N`, `<dir>/out.json`,
# `<owner>/<repo>`, `uploads/<filename>`, `[<path> ...]`, a value `NAME=<user_id>` and
# `<目标目录>` too.
_NAME = r"<[^\W\d](?:[^<>|&;\n]*?[^<>|&;\s])?>"
# ... or a choice between values: `--mode <drama|narration>`, `&status={done|doing|mark}`
_CHOICE = r"<[\w.-]+(?:\|[\w.-]+)+>|\{[\w.-]+(?:\|[\w.-]+)+\}"
_ANGLE = re.compile(
    rf"(?:(?<=[\s\[=])|^)(?:{_CHOICE}|{_NAME}(?:{_NAME}|[^\s<>|&;\]])*)(?=[\s\]]|$)|"
    rf"(?<=/){_NAME}(?:{_NAME}|[^\s<>|&;\]\"'])*(?=[\s\]\"']|$)"  # uploads/<filename>"
)


def tokenize(line: str) -> list[str]:
    """Shell words and operators of one command line; comments dropped.  ``<placeholder>``
    words (``<input.pdf>``, ``<output pdf>``) are kept as words, not read as redirections."""
    kept: list[str] = []

    def keep(word: str) -> str:
        kept.append(word)
        return f"\x00{len(kept) - 1}\x00"

    line = _ANGLE.sub(lambda m: keep(m.group(0)), _fd_redirections(line, keep))
    words = _split(line)
    return [re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], w) for w in words]


_FD_REDIRECT = re.compile(r"(\d+)(>>|>&|>\||<&|>|<(?!<))")


def _fd_redirections(line: str, keep: Callable[[str], str]) -> str:
    """``line`` with the file descriptor of each redirection outside quotes dropped (``2>``,
    ``2>>``, ``0<``: ``shlex`` would read the number as an argument), except an input one
    on another descriptor than stdin (``3<FILE``): that becomes the word ``3<`` (via
    ``keep``), so the file is not taken for stdin."""
    out: list[str] = []
    quote, i = "", 0
    while i < len(line):
        char = line[i]
        at_word = i == 0 or line[i - 1].isspace()
        match = _FD_REDIRECT.match(line, i) if not quote and at_word else None
        if match:
            fd, op = match.groups()
            out.append(keep(fd + op) + " " if op == "<" and int(fd) != 0 else op)
            i = match.end()
            continue
        if char == "\\" and quote != "'":
            out.append(line[i : i + 2])
            i += 2
            continue
        if char == "#" and not quote and at_word:  # a comment: the rest is not shell
            out.append(line[i:])
            break
        if char in "'\"" and quote in ("", char):
            quote = "" if quote else char
        out.append(char)
        i += 1
    return "".join(out)


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
# (empty for root)`), a quoted prompt or output (`> Post about the weather`), JSON, a call
# in a programming language's syntax (`send_media(file_paths=[...])`: a host tool).
# a line of JSON, a list or a diagram; but `{baseDir}/scripts/x.sh` runs the skill's program
_NOT_A_COMMAND = re.compile(r'-|>|\{(?!\{?\w+\}\}?/)|\}|"[^"]*"\s*:|[A-Za-z_][\w.]*\(')
# A word called with its arguments in brackets (`map(x)`), outside quotes, anywhere in the
# line: no shell writes that (`greet() {` defines a function; `$(`, `<(`, `arr=(`, `@(` are
# the shell's own).
_CALL = re.compile(r"(?<![\w$<>=@!*+?.-])[A-Za-z_][\w.]*\((?!\s*\))")
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
_COMMENT = re.compile(r"(?:^|\s)#.*$")  # `# wraps requests.get(url)`: a remark
_TEST = re.compile(r"\[\[.*?\]\]")  # `[[ $x =~ foo(bar)? ]]`: a regular expression


def _code_of(line: str) -> str:
    """What of a line the shell reads as words: quotes, a trailing comment and the inside of
    ``[[ ... ]]`` left out."""
    return _TEST.sub(" ", _COMMENT.sub("", _QUOTED.sub("''", line)))


# Box drawing and arrows: a directory tree or a diagram, never a command.
_DRAWING = re.compile(r"[\u2190-\u21ff\u2500-\u257f\u25a0-\u25ff\u27f0-\u27ff]")


def simple_commands(
    text: str, first_line: int, language: str = "", paths: dict[str, str] | None = None
) -> list[SimpleCommand]:
    """The commands a block runs, but not the shell functions it defines (`greet() {`).  An
    untagged block that draws (a tree of calls or files under its root: "bm25.py CLI" above
    "├── resolve_corpus(spec)") runs nothing, its first line included; its lines of
    pseudo-code or prose run nothing either (``_shell_lines``)."""
    if not language:
        text = "" if _DRAWING.search(text) else _shell_lines(text)
    else:  # `api_key = os.getenv(...)`, `import os` in a block tagged bash: Python
        text = "\n".join("" if _NEVER_SHELL.match(ln) else ln for ln in text.split("\n"))
    if not text:
        return []
    commands = _commands(text, first_line, language, paths=paths)
    defined = set(FUNCTION.findall(text)) - set(RUN_PAST_FUNCTIONS.findall(text))
    return [c for c in commands if c.argv[0] not in defined] if defined else commands


FUNCTION = re.compile(r"(?m)^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\s*\)")  # `greet() {`
# The programs run past a function of their name: a wrapper (`ffmpeg() { command ffmpeg
# -hide_banner "$@"; }`) runs the program it is named after; read in one pass.
RUN_PAST_FUNCTIONS = re.compile(r"\b(?:command|builtin)\s+([A-Za-z_][\w-]*)")

# A line no shell reads: `body_language = rule.body_language` (spaces around =), a block
# opened by a colon (`for each rule in tree:`, `else:`).
_NOT_SHELL = re.compile(
    r"^\s*(?:[A-Za-z_][\w.\[\]]*\s+=\s+\S|(?:for|if|elif|else|while|def|try|except)\b.*:$|"
    r"[^#\s].*\S:$|(?:raise|return|yield|await|assert|class|def)\s+\S|print\(|"
    r"from\s+[\w.]+\s+import\s|import\s+\w+(?:\s*,\s*\w+)*\s*$|import\s+[\w.*]+;|"
    r"(?:public|private|protected|static|final|const|let|var|function|new|try|catch|finally)\b|"
    r"[^$#].*[(=].*;$)"
)  # a line no shell reads: `x = y` (spaces around =), a colon opening a block or a list,
# Python's, Java's and JavaScript's own statements (`raise SystemExit(rsp)`, `from x import
# y`, `final String s = call(x);`)
# Of those, what no block tagged as shell means either: an assignment with spaces around the
# =, a Python import.
_NEVER_SHELL = re.compile(
    r"^\s*(?:[A-Za-z_][\w.\[\]]*\s+=\s+\S|from\s+[\w.]+\s+import\s|"
    r"import\s+\w+(?:\s*,\s*\w+)*\s*$)"
)
_WORD = re.compile(
    r"[^\s/.$=\"']+|\"[^\"]*\""
)  # no path, file or variable: a term, or a quoted one


# A Mermaid diagram's first line (`graph TB`, `sequenceDiagram`): its `subgraph`, `end` and
# `style` lines are no commands.
_DIAGRAM = re.compile(
    r"^\s*(?:(?:graph|flowchart)\s+(?:TB|TD|BT|RL|LR)\b|(?:sequenceDiagram|classDiagram|"
    r"stateDiagram(?:-v2)?|erDiagram|gantt|pie|journey|gitGraph|mindmap|timeline)\b)"
)
# A list item that is a sentence ("1. Flag as ...", "- 1:30 AM PDT exists"), not a command.
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:[A-Z0-9]|[^\x00-\x7f])")


def _shell_lines(text: str) -> str:
    """An untagged block as the shell would read it: "" for a Mermaid diagram, a list of
    terms one a line ("wabi-sabi", "yohaku", "EBITDA": a vault's term list) or a block most
    of whose lines are pseudo-code or prose list items; else the block with those lines
    blanked (the line numbers kept), so `npm install` under "1. Install deps" still runs."""
    if _DIAGRAM.match(text.lstrip("\n")):
        return ""
    lines = text.split("\n")
    said = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if len(said) >= 2 and all(_WORD.fullmatch(ln) for ln in said):
        return ""
    prose = [bool(_NOT_SHELL.match(ln) or _ITEM.match(ln)) for ln in lines]
    if said and sum(prose) * 2 > len(said):
        return ""
    return "\n".join("" if p else ln for ln, p in zip(lines, prose, strict=True))


def _commands(
    text: str,
    first_line: int,
    language: str,
    level: int = 0,
    paths: dict[str, str] | None = None,
) -> list[SimpleCommand]:
    commands: list[SimpleCommand] = []
    cwd = ""
    for line, logical, bodies in logical_lines(text, first_line, language):
        if _NOT_A_COMMAND.match(logical.lstrip()) or _DRAWING.search(logical):
            continue
        if paths is not None:
            logical = with_paths(logical, paths)
        logical, inner = _lift_substitutions(logical)
        if _CALL.search(_code_of(logical)):
            continue  # `nodes | map(fn(x): upcase(x);)`: a query language's, no shell's
        first = len(commands)  # the line's first command: position 0
        words: list[str] = []
        piped: Stdin | None = None  # what a `|` before the current command feeds it
        depth = 0  # parentheses open around the current command
        test = False  # inside `[[ ... ]]`: `(a|b)` and `&&` belong to its expression
        for token in [*(_restore(t, inner) for t in tokenize(logical)), ";"]:
            if token in ("[[", "]]"):
                test = token == "[["
            if test and token != ";":
                words.append(token)  # `[[ "$B" =~ ^(feat|fix)/ ]]`: no commands feat, fix
            elif token in _OPERATORS or token.startswith(("&&", "||", ";")):
                count = len(commands)
                at = (line, count - first, depth > 0)
                cwd = _flush(words, at, cwd, commands, piped, bodies)
                depth = max(0, depth + (token == "(") - (token == ")"))
                piped = None
                if token in ("|", "|&"):  # nothing flushed: `( ... ) |`, a subshell's output
                    piped = _piped(commands[-1]) if len(commands) > count else Stdin("command")
                words = []
            else:
                words.append(token)
        for nested in inner:  # what the substitutions run, in their own right
            readable = len(nested) < MAX_SUBSTITUTION and level < MAX_SUBSTITUTION_DEPTH
            found = _commands(nested, line, "bash", level + 1) if readable else []
            commands += [replace(c, line=line, nested=True) for c in found]
    return commands


MAX_SUBSTITUTION = 2000  # characters of one `$( ... )` read for the commands inside
MAX_SUBSTITUTION_DEPTH = 4
_HOLE = re.compile(r"\x01(\d+)\x01")


def _lift_substitutions(line: str) -> tuple[str, list[str]]:
    """``line`` with each unquoted ``$( ... )`` held as one placeholder inside its word
    (``launchctl bootstrap gui/$(id -u) FILE`` stays one command of three words), and the
    commands inside, in order; inside double quotes too, where the shell runs them just the
    same (``CUTOFF="$(date -d "${N} days ago")"``: the inner quotes are the command's own)."""
    out: list[str] = []
    inner: list[str] = []
    quote, i = "", 0
    while i < len(line):
        char = line[i]
        if char == "\\" and quote != "'":
            out.append(line[i : i + 2])
            i += 2
            continue
        if not quote and char == "#" and (i == 0 or line[i - 1] in " \t;"):
            out.append(line[i:])  # a comment runs nothing: `# eval "$(install.sh)"`
            break
        if char in "'\"" and quote in ("", char):
            quote = "" if quote else char
        elif quote != "'" and line.startswith("$(", i) and not line.startswith("$((", i):
            end = _closing(line, i + 2)
            if end == -1:  # unclosed: so is every later one (each would scan to the end)
                out.append(line[i:])
                break
            out.append(f"\x01{len(inner)}\x01")
            inner.append(line[i + 2 : end])
            i = end + 1
            continue
        out.append(char)
        i += 1
    return "".join(out), inner


def _closing(line: str, start: int) -> int:
    """The index of the parenthesis closing the one opened before ``start``, or -1."""
    depth = 1
    for index in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[index], 0)
        if depth == 0:
            return index
    return -1


def _restore(token: str, inner: list[str]) -> str:
    return _HOLE.sub(lambda m: f"$({inner[int(m.group(1))]})", token)


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
    words: list[str],
    at: tuple[int, int, bool],
    cwd: str,
    out: list[SimpleCommand],
    stdin: Stdin | None = None,
    bodies: list[str] | None = None,
) -> str:
    """Add the command of ``words`` to ``out``; ``bodies``: the line's heredoc bodies not yet
    fed to a command (a ``<< DELIMITER`` takes the first); ``at``: its line, position and
    whether it is inside parentheses.
    The new ``cwd`` is returned."""
    argv: list[str] = []
    env: list[str] = []
    redirect = ""
    bodies = bodies if bodies is not None else []
    for word in words:
        if redirect:  # the word after a redirection: `< FILE`, `<<< TEXT`, `<< DELIMITER`
            if redirect == "<<":
                stdin = Stdin("text", bodies.pop(0) if bodies else "")
            elif redirect in ("<", "<<<"):
                stdin = Stdin("file" if redirect == "<" else "text", word)
            redirect = ""
        elif _REDIRECT.match(word):
            redirect = word
        elif HEREDOC.match(word):
            stdin = Stdin("text", bodies.pop(0) if bodies else "")
        else:
            argv.append(word)
    while argv and argv[0] in _KEYWORDS:
        argv.pop(0)
    values: dict[str, str] = {}
    while argv and _ENV_ASSIGN.match(argv[0]):
        name, _, value = argv.pop(0).partition("=")
        env.append(name)
        values[name] = value
    runner = ""
    while argv and argv[0] in _WRAPPERS:
        wrapper = argv.pop(0)
        runner = wrapper if wrapper in PACKAGE_RUNNERS else runner
        while argv and (argv[0].startswith("-") or _ENV_ASSIGN.match(argv[0])):
            if runner == wrapper and argv[0] in ("-y", "--yes"):  # fetch without asking
                runner = f"{wrapper} {argv[0]}"
            if _ENV_ASSIGN.match(argv[0]):
                name, _, value = argv[0].partition("=")
                env.append(name)
                values[name] = value
            option = argv.pop(0)
            if option in _VALUED.get(wrapper, ()) and argv:  # `env -u http_proxy CMD`
                argv.pop(0)
    if not argv:
        return cwd
    if argv[0] == "cd":
        target = argv[1] if len(argv) > 1 else ""
        return _cd(cwd, target)
    out.append(SimpleCommand(at[0], argv, env, cwd, stdin, at[1], at[2], runner, values))
    return cwd


# `WDS="<this-skill-dir>/scripts/wds.cjs"`, `export SCRIPT="$SKILL_DIR/scripts/x.py"`
_PATH_ASSIGN = re.compile(
    r"^\s*(?:export\s+)?([A-Za-z_]\w*)=([\"']?)([^\s\"';|&`]*/[^\s\"';|&`]+)\2\s*(?:#.*)?$"
)


def with_paths(line: str, paths: dict[str, str]) -> str:
    """``line`` with each ``$NAME`` / ``${NAME}`` a document set to a path earlier replaced
    by that path (``node $WDS search table`` runs ``<this-skill-dir>/scripts/wds.cjs``); a
    line that sets one is remembered in ``paths``."""
    assigned = _PATH_ASSIGN.match(line)
    if assigned:
        paths[assigned.group(1)] = assigned.group(3)
        return line
    if not paths or "$" not in line:
        return line
    return re.sub(r"\$\{?([A-Za-z_]\w*)\}?", lambda m: paths.get(m.group(1), m.group(0)), line)


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
