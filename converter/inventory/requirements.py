"""What a skill needs from its environment: binaries, env vars, packages, files, auth.

Read from SKILL.md (commands in shell blocks, ``export``/``$NAME`` and inline ``NAME_LIKE_THIS``,
``pip``/``npm install``, config paths, words about API keys and logins) here, and from the
programs (``os.environ``, ``process.env``, ``${X:?}``, imports, ``subprocess``/``child_process``
calls, ``command -v``) in ``program_needs``.  These become the checks a ``_constructor``
pipeline proposes.  A binary comes only from a command position: never from a directory
tree, words in parentheses or a line of prose in an untagged block; a file only from a path
the user keeps (``~/...``, ``.env``), never one the skill lists as allowed or as an example.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from skill2app.converter.inventory.packages import BROUGHT_BY, import_name, package_key
from skill2app.converter.inventory.shell import SimpleCommand, simple_commands

KINDS = ("binary", "env", "python-package", "node-package", "file", "auth")
COMMON_COMMANDS = frozenset(
    "ls cat echo printf mkdir rm rmdir cp mv touch chmod chown cd pwd head tail wc sort uniq cut "
    "tr sed awk grep egrep find xargs date sleep test true false env basename dirname mktemp tee "
    "read export source exec set unset shift local declare readonly return exit trap wait kill "
    "ps which command type hash readlink realpath ln du df tar gzip gunzip zip unzip diff cmp seq "
    "expr yes nl od stat file id whoami uname hostname if then else elif fi for while until do "
    "done case esac function in select time break continue eval let printenv less more open "
    "python python3 py bash sh zsh [ [[ ] ]] { } . : mapfile readarray jobs bg fg disown pushd "
    "popd dirs shopt ulimit umask getopts caller builtin compgen complete enable help history "
    "times alias unalias".split()
)
# The system's package managers: a script installing with one sets up, it needs the package.
SYSTEM_INSTALLERS = frozenset(
    "brew apt apt-get yum dnf port choco winget scoop pacman apk zypper sudo".split()
)
# A name with a data file's extension is a file the text shows, not a program
# ("<src>/site/index.html  # gallery"); `j++` is arithmetic.
_NOT_A_PROGRAM = re.compile(
    r".*\.(?:html?|zip|jpe?g|png|gif|svg|webp|json|ya?ml|csv|tsv|txt|md|pdf|docx?|xlsx?|pptx?"
    r"|mp[34]|wav|log|xml|toml|ini|cfg|conf|lock)$|[a-z]\w*\+\+$",
    re.I,
)
# Words that start lines of prose in an untagged block ("optional: ...", "see below").
PROSE_WORDS = frozenset(
    "a an the and or but if then so see use using run note example examples optional required "
    "overview below above default dynamic positional static every each once all any some "
    "only also when where which what who how why this that these those here there step steps "
    "output input returns return result results first next last latest full maximum minimum "
    "known blocks block as is are was be to of in on at by for from with without via per "
    "etc e.g i.e vs yes no ok".split()
)
_PROSE_ARG = re.compile(r"[A-Za-z]+[,.;:?!]?")


def _prose(argv: list[str], least: int = 4) -> bool:
    """A line of words (``container where Claude executes tools``), not a command line."""
    return len(argv) >= least and all(_PROSE_ARG.fullmatch(word) for word in argv)


def _listing(argv: list[str]) -> bool:
    """Words with a comma or a full stop between them (``validates nested boxes,
    T-junctions, crosses``): prose, where `$(gh auth token)` is a command."""
    words = all(re.fullmatch(r"[A-Za-z][\w-]*[,.;:]?", word) for word in argv)
    return words and any(word[-1] in ",.;:" for word in argv[:-1])


# A command a document writes for the reader's own: `/path/to/your/script.sh`,
# `some-long-running-job`; a dotted name that is no script (`cs.LG`, `science.abc123`).
_YOURS = re.compile(r"(?:^|/)(?:path/to|your|my)(?:/|[-_])|^(?:some|your|my)-", re.I)
_SCRIPT_SUFFIX = re.compile(r"\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php|exe|bat|cmd|ps1|jar)$")


def _placeholder_command(word: str, name: str) -> bool:
    if _YOURS.search(word) or _YOURS.search(name):
        return True
    return "." in name and not _SCRIPT_SUFFIX.search(name) and not re.search(r"\.\d+$", name)


# What shows a line of an untagged block is a command line: an option, a path or a variable,
# a `key=value`, a pipe or a redirection.
_EVIDENCE = re.compile(r"^(?:--?[A-Za-z][\w-]*(?:=.*)?|[.~$/].*|.*/.*|[\w.-]+=.*)$")


def _shell_evidence(command: SimpleCommand) -> bool:
    return (
        command.stdin is not None
        or command.position > 0
        or any(_EVIDENCE.match(arg) for arg in command.argv[1:])
        or bool({"install", "add"} & set(command.argv[1:3]))  # `npm install docx`
    )


# Variables every session has: a program reading one needs nothing of the user.
AMBIENT = frozenset("HOME PATH PWD".split())
USUAL = frozenset("USER LOGNAME SHELL".split())
SHELL_VARS = frozenset(
    "HOME PATH PWD OLDPWD USER SHELL TMPDIR TMP LANG LC_ALL TERM IFS RANDOM SECONDS LINENO "
    "BASH_SOURCE FUNCNAME OPTARG OPTIND REPLY HOSTNAME UID EUID PPID EDITOR "
    "BASH_REMATCH BASH_VERSION BASH_VERSINFO BASH_ARGV BASH_LINENO BASHPID PIPESTATUS "
    "HOSTTYPE OSTYPE MACHTYPE GROUPS DIRSTACK COLUMNS LINES SHLVL "
    # placeholders agents substitute with the skill's own folder
    "SKILL_DIR SKILL_ROOT SKILL_PATH BASE_DIR BASEDIR CLAUDE_SKILL_DIR CLAUDE_PLUGIN_ROOT".split()
)
_ENV_INLINE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_ENV_REF = re.compile(r"\$\{?([A-Z][A-Z0-9_]*[A-Z0-9])(:?[?-])?")
_ASSIGN = re.compile(r"(?:^|[\s;(])(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=")
# A file the user keeps outside the skill: in the home folder (or an absolute config path),
# or a `.env`.  A bare `config.toml` names some tool's own file, not one beside the APP.
_CONFIG = re.compile(
    r"^(?:(?:~|\$HOME)/[\w./-]+|\.env(?:\.\w+)?|/[\w./-]*(?:config|settings|credentials)"
    r"[\w.-]*\.(?:json|ya?ml|toml|ini|cfg|conf))$"
)


@dataclass
class Requirement:
    kind: str  # one of KINDS
    name: str
    required: bool
    where: list[str] = field(default_factory=list)  # "SKILL.md:12", "tools/x.py:3"
    # a module imported after a folder outside the skill joins sys.path: the file it may be
    # (`../shared/scripts/secret_detect.py`), when it is no package
    beside: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "required": self.required,
            "where": sorted(set(self.where), key=where_key),
        }
        if self.beside:
            data["beside"] = self.beside
        return data


def where_key(where: str) -> tuple[str, int]:
    file, _, line = where.rpartition(":")
    return (file, int(line)) if line.isdigit() else (where, 0)


class Collector:
    """Requirements keyed by (kind, name); ``required`` is sticky once any source says so.
    A Python package is keyed by ``package_key``: ``pip install PyYAML`` and ``import yaml``
    are one requirement, named as the program imports it."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Requirement] = {}
        self.installed_only: set[tuple[str, str]] = set()  # named by `pip install` alone
        self.checked: set[tuple[str, str]] = set()  # "checks if X exists": never required
        self.no_login = False  # the skill says it needs none ("无需 API Key"): none is listed
        # required by an install line; imported by the programs only where they may do without
        self.install_says: set[tuple[str, str]] = set()
        self.import_says: dict[tuple[str, str], bool] = {}  # key -> a program's import needs it
        # binaries a document shows as one platform's, beside another's ("# macOS" over
        # `sips ...`, "# Linux" over `file ...`): only warned of, wherever a program runs them
        self.one_platform: set[tuple[str, str]] = set()

    def add(
        self,
        kind: str,
        name: str,
        where: str,
        *,
        required: bool = True,
        installed: bool = False,
        checked: bool = False,
        beside: str = "",
    ) -> None:
        """``installed``: ``name`` is a distribution from ``pip install``, not an import;
        ``checked``: a source says the skill copes without it ("checks if X exists"), which
        no other source's "loads X" makes required."""
        if kind == "env" and name in AMBIENT:
            return  # `${process.env.HOME}/.local/bin/vault`: set wherever a program runs
        if kind == "env" and name in USUAL:
            required = False  # a login session's; a container or cron may lack it
        key = (kind, package_key(name) if kind == "python-package" else name)
        shown = import_name(name) if installed else name
        if key not in self.items:
            self.items[key] = Requirement(kind, shown, required)
            if installed:
                self.installed_only.add(key)
        elif key in self.installed_only and not installed:
            self.items[key].name = name  # what the program imports names it
            self.installed_only.discard(key)
        item = self.items[key]
        item.required = item.required or required
        item.where.append(where)
        item.beside = item.beside or beside
        if checked:
            self.checked.add(key)
        if installed and required:
            self.install_says.add(key)
        elif not installed and not where.rpartition(":")[0].lower().endswith(".md"):
            # what a program of the skill imports (a document's snippet is the model's code)
            self.import_says[key] = self.import_says.get(key, False) or required

    def forget(self, kind: str, name: str) -> None:
        """Drop a requirement a later fact shows is none (a function the skill defines)."""
        key = (kind, name)
        self.items.pop(key, None)
        self.checked.discard(key)
        self.installed_only.discard(key)
        self.install_says.discard(key)
        self.import_says.pop(key, None)

    def result(self) -> list[Requirement]:
        for key in self.checked | (self.one_platform & self.items.keys()):
            self.items[key].required = False
        for key in self.install_says:  # `pip install akshare`, but `try: import akshare`
            if key[0] == "python-package" and self.import_says.get(key) is False:
                self.items[key].required = False
        packages = {key[1] for key in self.items if key[0] == "python-package"}

        def brought(key: tuple[str, str]) -> bool:  # urllib3 beside requests: requests has it
            parent = BROUGHT_BY.get(key[1], "")
            return key[0] == "python-package" and bool(parent) and package_key(parent) in packages

        items = [
            item
            for key, item in self.items.items()
            if not (self.no_login and item.kind == "auth") and not brought(key)
        ]
        return sorted(items, key=lambda item: (KINDS.index(item.kind), item.name))


# -- SKILL.md ------------------------------------------------------------------------------


def from_commands(
    commands: list[SimpleCommand],
    file: str,
    out: Collector,
    *,
    required: bool = True,
    program: bool = False,
    shown: frozenset[str] = frozenset(),
    every_run: frozenset[int] = frozenset(),
) -> None:
    """Binaries and packages from commands that do not run one of the skill's programs.

    Such a binary is only a warning: the agent uses it in Skill mode, but no pipeline runs it
    (the programs' own calls and interpreters are required, from ``from_program``).  Packages
    are required unless the block may be pseudo-code (``required=False``: an untagged block);
    there, words in parentheses and plain English words are prose, not commands.  What a
    program installs itself (``program``: ``pnpm install react`` in scripts/init.sh) is its
    output, not a requirement: only its installer is named (a warning, like its other tools).
    An untagged block's line is a command when a block tagged as shell runs the same name
    (``shown``) or the line has the shape of one (``_shell_evidence``): a list of search terms
    or a table of language codes runs nothing.  A program's command on a line it runs on
    every run (``every_run``: a shell script's top level) needs its binary: required, when
    named as it is found on PATH.
    """
    for command in commands:
        # `npx @editframe/cli render`: npx fetches the package it runs, whose binary may be
        # named otherwise (`cli` would be a false name): npx is what must be on PATH
        name = command.runner.split(" ")[0] or command.argv[0].rsplit("/", 1)[-1]
        where = f"{file}:{command.line}"
        if re.fullmatch(r"/[a-z][\w-]*", command.argv[0]):  # `/review 12`: an agent's command
            continue
        if not re.fullmatch(r"[a-z][\w.+-]*[\w+]", name) or name in COMMON_COMMANDS:
            continue
        if len(command.argv) == 1 and re.search(r"[a-z][A-Z]", name):
            continue  # `siteMap` alone in a block: a value to pass (an operation), no program
        if _NOT_A_PROGRAM.match(name) and name not in ("g++", "c++", "clang++"):
            continue
        if not required and (command.nested or name in PROSE_WORDS or _prose(command.argv)):
            continue
        if _placeholder_command(command.argv[0], name):
            continue  # `/path/to/your/script.sh`, `some-long-running-job`, `cs.LG`
        if command.nested and len(command.argv) >= 3 and _listing(command.argv):
            continue  # `(validates nested boxes, crosses)`: words in parentheses
        if not required and name not in shown and not _shell_evidence(command):
            continue  # `cancer immunotherapy`, `en  English  vtt`: a term list, a table
        installs = {"install", "add"} & set(command.argv[1:3])
        if program and name in ("pip", "pip3", "uv", "npm", "pnpm", "yarn") and installs:
            out.add("binary", name, where, required=False)
            continue
        tool = name == "pipx" or (name == "uv" and command.argv[1:2] == ["tool"])
        if tool and "install" in command.argv:
            for word in command.argv[command.argv.index("install") + 1 :]:  # a command-line tool
                if re.fullmatch(r"[a-z][\w.-]*", word):  # `uv tool install ruff`: the binary ruff
                    out.add("binary", word, where, required=False)
            continue
        if name in ("pip", "pip3", "uv", "npm", "pnpm", "yarn") and "install" in command.argv:
            kind = "node-package" if name in ("npm", "pnpm", "yarn") else "python-package"
            # `npm install -g @uipath/cli`: a command-line tool, which no program imports
            required = required and not ({"-g", "--global"} & set(command.argv))
            for word in command.argv[command.argv.index("install") + 1 :]:
                if word.startswith("-") or word.endswith((".txt", ".toml", ".cfg")):
                    continue
                if re.fullmatch(r"[@\w][\w@/.=<>~!-]*(?:\[[\w.,\s-]*\])?[\w.=<>~!,*-]*", word):
                    package = re.split(r"[=<>~!\[]", word)[0]  # `requests[socks]>=2`: requests
                    python = kind == "python-package"
                    out.add(kind, package, where, required=required, installed=python)
            continue
        needed = command.line in every_run and "/" not in command.argv[0] and not command.runner
        if name in SYSTEM_INSTALLERS or "install" in command.argv[1:3]:
            needed = False  # `brew install ffmpeg`, `sudo apt-get install -y x`: a setup step
        out.add("binary", name, where, required=needed)


# A comment naming the platform the commands under it are for: "# macOS", "# On Linux:",
# "# Windows (PowerShell)".
_PLATFORM_COMMENT = re.compile(
    r"^\s*#\s*(?:on\s+|for\s+)?(macOS|mac|OS X|Linux|Windows|WSL|Ubuntu|Debian)\b[^\n]{0,40}$",
    re.I,
)


def platform_commands(text: str) -> set[str]:
    """The programs a block runs under one platform's comment only, when the block shows
    another platform's commands too (alternatives: `sips` under "# macOS", `file` under
    "# Linux"); a program shown under both (`ffmpeg`), an interpreter (`node x.js`) and a
    block that names one platform only, or says another is not supported, are none."""
    under: dict[str, set[str]] = {}
    platform = ""
    for line in text.split("\n"):
        named = _PLATFORM_COMMENT.match(line)
        if named:
            if _UNSUPPORTED.search(line):
                return set()  # "# Linux is not supported": the skill's own platform
            platform = named.group(1).lower()
            platform = "macos" if platform in ("mac", "macos", "os x") else platform
            under.setdefault(platform, set())
        elif not line.strip():
            platform = ""
        elif platform and not line.lstrip().startswith("#"):
            first = line.split()[0].rsplit("/", 1)[-1]
            if re.fullmatch(r"[a-z][\w.+-]*", first) and first not in _INTERPRETERS:
                under[platform].add(first)
    if len(under) < 2:
        return set()
    return {
        name
        for names in under.values()
        for name in names
        if sum(name in other for other in under.values()) == 1
    }


_UNSUPPORTED = re.compile(r"not supported|unsupported|not available|n/a\b", re.I)
_INTERPRETERS = frozenset(
    "python python3 node bun deno bash sh zsh uv uvx npx pnpm npm ruby perl pwsh".split()
)


def from_shell_text(text: str, first_line: int, file: str, out: Collector) -> None:
    """``$NAME`` used but never assigned in a block, and ``export NAME=...``.  SKILL.md only
    documents a variable; it is required when a program (or ``${NAME:?}``) insists on it."""
    assigned = set(_ASSIGN.findall(text))
    out.one_platform |= {("binary", name) for name in platform_commands(text)}
    for offset, line in enumerate(text.split("\n")):
        where = f"{file}:{first_line + offset}"
        for match in re.finditer(r"\bexport\s+([A-Z][A-Z0-9_]+)=", line):
            out.add("env", match.group(1), where, required=False)
        for match in _ENV_REF.finditer(line):
            name = match.group(1)
            if name not in SHELL_VARS and name not in assigned:
                out.add("env", name, where, required=(match.group(2) or "").endswith("?"))


# A path the program itself makes (writes, creates, saves) is no requirement: a fresh install
# does not have it yet.  Nor is one named only as a default ("(default `~/.todo.json`)").  But
# a making verb counts only when the path is its object or subject ("creates `~/.x`", "`~/.x`
# is created"), not another clause's ("reads `config.json` and writes a summary"); a negated or
# obligated making ("is not created by the tool", "must be created") is the user's job, and
# so is a path the sentence says is needed ("Requires `~/.apirc` (created by `setup.sh`)",
# "`~/.x` must exist") or a default location it says must exist ("needs `~/.x` before the
# first run (it is the default location)").  Imperatives ("Create `~/.foorc`") are the user's.
_MADE_BY_PROGRAM = re.compile(
    r"\b(?:creates|created|writes|written|saves|saved|generates|generated|downloads|"
    r"downloaded|exports|exported|stores|stored)\b|"
    r"自动创建|会创建|将创建|生成|写入|保存",
    re.I,
)
_IF_MISSING = re.compile(
    r"\bif (?:it )?(?:does ?n[o']t|doesn't) exist|\bif (?:it is )?missing", re.I
)
_NOT_MADE = re.compile(  # words just before a making verb that make it the user's job
    r"(?:\b(?:not|never|no longer)|n['’]t|\b(?:must|should|has to|have to|needs? to))"
    r"(?:[\s-]+(?:be|been|auto|automatically|yet))*[\s-]*$|[不未没须需]\S{0,3}$",
    re.I,
)
_DEFAULT = re.compile(r"\bdefault|默认", re.I)
_NEEDS = re.compile(
    r"\b(?:requires?|required|needs?|needed|must (?:exist|be present|be provided))\b|需要|必须",
    re.I,
)
_NEEDED = re.compile(
    _NEEDS.pattern + r"|\bbefore (?:the first|running|you run|first use|use|using)\b", re.I
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])")
_CLAUSE_BREAK = re.compile(r"[,;:，；：。]|\b(?:and|but|or|then|while|which|that)\b", re.I)
_NEAR = 30  # characters between a verb and the path it is about


def made_by_program(sentence: str, path: str = "") -> bool:
    """Whether ``sentence`` says the file ``path`` (one it names) is one the program makes
    itself (so no constructor check): a making verb about it that is not negated or
    obligated, nothing saying it is needed, or a default that nothing says must exist."""
    at = sentence.find(path) if path else -1
    span = (at, at + len(path)) if at >= 0 else (0, len(sentence))
    if any(_about(sentence, m, span) for m in _NEEDS.finditer(sentence)):
        return False
    verbs = list(_MADE_BY_PROGRAM.finditer(sentence))
    made = [m for m in verbs if not _NOT_MADE.search(sentence[: m.start()])]
    if any(_about(sentence, m, span) for m in made):
        return True
    if _IF_MISSING.search(sentence) and (made or not verbs):  # "created if it is missing"
        return True
    return bool(_DEFAULT.search(sentence)) and not _NEEDED.search(sentence)


def _about(sentence: str, verb: re.Match[str], span: tuple[int, int]) -> bool:
    """Whether ``verb`` is said of the text at ``span``: next to it, in the same clause."""
    if verb.start() < span[1] and span[0] < verb.end():
        return True
    between = sentence[min(verb.end(), span[1]) : max(verb.start(), span[0])].strip(" `'\"")
    return len(between) <= _NEAR and not _CLAUSE_BREAK.search(between)


_PROVIDE = re.compile(
    r"(?:^|[-*+]\s|[.:]\s)[\W\d]{0,8}"  # a sentence or list item that opens with the verb
    r"(?:put|create|save|store|write|add|place|copy|configure|set up|edit|fill in)\b"
    r"|^[\W\d]*(?:在|把|将)?[^。；]{0,12}(?:放|写|保存|创建|配置)",
    re.I,
)
_USES = re.compile(r"\b(?:reads?|loads?|opens?|uses?|parses?)\b|读取|加载", re.I)
# Read by someone else, not by the skill: "`~/.claude/CLAUDE.md` 会被所有项目加载", "is loaded by
# every session" (the file is what the skill works on, the user's to name).
_BY_OTHERS = re.compile(
    r"\b(?:is|are|gets?|get)\s+(?:\w+\s+)?(?:read|loaded|opened|used|parsed)\s+by\b"
    r"(?!\s+(?:the\s+|this\s+|our\s+)?(?:script|program|tool|cli|skill|app|command)s?\b)|"
    r"被(?!(?:本|该|这个)?(?:脚本|程序|工具|技能|命令))[^。；，,]{0,16}(?:读取|加载|使用)",
    re.I,
)
_NOT_NEEDED = re.compile(r"\bnot (?:\w+ )?(?:needed|required)\b|不需要|无需", re.I)


# "Script checks if `~/x` exists", "if present", "(optional)", "如果 ~/x 存在": what the skill
# looks for and does without.
_CHECKED = re.compile(
    r"\b(?:if|whether|when)\b[^;]{0,60}?\b(?:exists?|is present|present|is found|available)\b|"
    r"\boptional(?:ly)?\b|(?:如果|若|如)[^。；]{0,30}存在|可选",
    re.I,
)


def _checked(context: str, part: str) -> bool:
    """Whether a sentence of ``context`` naming ``part`` says the skill looks for it and
    does without (a list item led by its list's introduction: either sentence)."""
    sentences = _SENTENCE_END.split(context[:4000])
    return any(part in sentence and _CHECKED.search(sentence) for sentence in sentences)


def _user_provides(sentence: str) -> bool:
    """Whether a sentence naming a file asks the user to provide it ("Put your API key in
    `~/.config/x.json`", "`~/.x` must exist"), not just mentions it (a log the program keeps,
    a legacy folder, a fallback it tries)."""
    if _NOT_NEEDED.search(sentence):
        return False
    uses = _USES.search(sentence) and not _BY_OTHERS.search(sentence)
    if _PROVIDE.search(sentence) or _NEEDED.search(sentence) or uses:
        return True
    makings = list(_MADE_BY_PROGRAM.finditer(sentence))  # "never writes", "isn't created"
    return bool(makings) and all(_NOT_MADE.search(sentence[: m.start()]) for m in makings)


# A flag the model sets for itself in a condition of the method ("If `HAS_GH` or `HAS_GIT`:"),
# not a variable of the environment.
_CONDITION_FLAG = re.compile(
    r"\W*(?:if|when|unless)\s+`[A-Z][A-Z0-9_]*`(?:\s+(?:or|and)\s+`[A-Z][A-Z0-9_]*`)*\s*[:：]",
    re.I,
)


def _in_condition(name: str, context: str) -> bool:
    """Whether ``name`` is one of the flags a line of ``context`` opens a condition with
    ("2. If `HAS_GH` or `HAS_GIT`:"); "If `HAS_SVN`: export `SVN_TOKEN`" names SVN_TOKEN
    as a variable still."""
    # the line, or a list item after the line introducing its list ("Steps: 1. If ...")
    for start in re.finditer(
        r"(?:^|\s(?:[-*+]|\d+[.)])\s+)(?=\W*(?:if|when|unless)\s)", context, re.I
    ):
        found = _CONDITION_FLAG.match(context, start.end())
        if found is not None and f"`{name}`" in found.group(0):
            return True
    return False


# What says a name in capitals is a variable of the environment: its line speaks of one, or
# it names a secret ("GEMINI_API_KEY").  Else it is a build setting (`PRODUCT_NAME`), a key of
# a config file (`OBSIDIAN_WIKI_VAULT_PATH` in `.obsidian-wiki.config`), a constant.
_ENVIRONMENT_SAID = re.compile(
    r"\benv(?:ironment)?\b|\bexport\b|\bvariables?\b|\bvars?\b|\bsecrets?\b|"
    r"\bapi[ _-]?keys?\b|\bcredentials?\b|\bpasswords?\b|\bsets\s+the\b|\bset\s+`|"
    r"\brequires?\b|\bmust\s+(?:be\s+set|point)\b|\bpoints?\s+to\b|\bconfigur\w+|\$\{?[A-Z]|"
    r"环境变量|環境変数|密钥|令牌|配置",
    re.I,
)
_SECRET_NAME = re.compile(
    r"_(?:API_KEY|ACCESS_KEY|SECRET_KEY|PRIVATE_KEY|KEY_ID|TOKEN|SECRET|PASSWORD|PASS|PAT)$"
)


def _said_of_environment(name: str, context: str) -> bool:
    return bool(_SECRET_NAME.search(name) or not context or _ENVIRONMENT_SAID.search(context))


def from_inline(text: str, line: int, file: str, out: Collector, context: str = "") -> None:
    """An env var or a config file named in inline code; ``context`` is the text of its line,
    whose sentence tells a required file from one the program makes itself."""
    if _ENV_INLINE.match(text) and text not in SHELL_VARS:
        if not _in_condition(text, context) and _said_of_environment(text, context):
            out.add("env", text, f"{file}:{line}", required=False)
    elif _INSTALL.match(text):  # `npm install -g docx`: what the model's own code needs
        from_commands(simple_commands(text, line), file, out, required=False)
    elif _CONFIG.match(text):
        sentence = sentence_of(text, context)
        if not made_by_program(sentence, text) and not _choices(sentence):
            # named in passing (a legacy folder, a log it keeps) it is only a warning
            # a `.env` sets variables the environment may give as well: never blocking
            dotenv = text.rstrip("/").rsplit("/", 1)[-1].startswith(".env")  # ~/.x/.env too
            # a table lists places (a cache per tool, a default per platform), none to have;
            # so does a list item per platform ("- Linux: `~/.local/share/x/consent.json`")
            listed = context.lstrip().startswith("|") or bool(_PLATFORM_ITEM.search(context))
            required = _user_provides(sentence) and not dotenv and not listed
            checked = _checked(context, text)
            out.add("file", text, f"{file}:{line}", required=required, checked=checked)


_PLATFORM_ITEM = re.compile(
    r"(?:^|\s)(?:[-*+]|\d+[.)])\s+\**(?:macOS|mac|OS X|Linux|Windows|Win(?:32|64)?|Darwin|Unix|"
    r"WSL|FreeBSD)\**\s*(?:\([^)]*\)\s*)?[:：]",
    re.I,
)
_FILE_WORD = re.compile(r"[\w.*~/-]*[\w*]\.\w+|[\w.~-]*/[\w./-]*")
_INSTALL = re.compile(r"^(?:pip3?|uv(?: pip)?|npm|pnpm|yarn)\s+(?:install|add)\s")
_CHOICE_WORDS = re.compile(
    r"\b(?:allow(?:ed|s)?|permit(?:ted|s)?|allowlist|whitelist|any of|one of|such as|"
    r"e\.g\.|for example|for instance)\b|允许|例如|比如|之一",
    re.I,
)


def _choices(sentence: str) -> bool:
    """Whether a sentence names paths as choices or examples (a list of allowed folders,
    "e.g. `~/x`"), not as one file the skill needs."""
    spans = re.findall(r"`([^`]+)`", sentence)
    files = [s for s in spans if _FILE_WORD.fullmatch(s)]
    configs = [s for s in spans if _CONFIG.match(s)]
    return len(files) >= 3 or len(configs) >= 2 or bool(_CHOICE_WORDS.search(sentence))


_WINDOW = 300  # characters either side of ``part``: what one sentence can say about it


def sentence_of(part: str, text: str) -> str:
    """The sentence of ``text`` that holds ``part`` ("" when none does), at most ``_WINDOW``
    characters either side of it: the work per span stays bounded on a line of any length
    (8,000 spans on one 160 KB line took 200 s when each read the whole line)."""
    at = text.find(part)
    if at < 0:
        return ""
    start = max(0, at - _WINDOW)
    window = text[start : at + len(part) + _WINDOW]
    offset = at - start
    position = 0
    for sentence in _SENTENCE_END.split(window):
        position = window.find(sentence, position)
        if position <= offset < position + len(sentence) or part in sentence:
            return sentence
        position += len(sentence)
    return ""
