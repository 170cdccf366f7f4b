"""What a skill needs from its environment: binaries, env vars, packages, files, auth.

Read from SKILL.md (commands in shell blocks, ``export``/``$NAME`` and inline ``NAME_LIKE_THIS``,
``pip``/``npm install``, config paths, words about API keys and logins) and from the programs
(``os.environ``, ``process.env``, ``${X:?}``, imports, ``subprocess``/``child_process`` calls,
``command -v``).  These become the checks a ``_constructor`` pipeline proposes.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from skill2app.converter.inventory.packages import import_name, package_key
from skill2app.converter.inventory.shell import SimpleCommand, simple_commands

KINDS = ("binary", "env", "python-package", "node-package", "file", "auth")
COMMON_COMMANDS = frozenset(
    "ls cat echo printf mkdir rm rmdir cp mv touch chmod chown cd pwd head tail wc sort uniq cut "
    "tr sed awk grep egrep find xargs date sleep test true false env basename dirname mktemp tee "
    "read export source exec set unset shift local declare readonly return exit trap wait kill "
    "ps which command type hash readlink realpath ln du df tar gzip gunzip zip unzip diff cmp seq "
    "expr yes nl od stat file id whoami uname hostname if then else elif fi for while until do "
    "done case esac function in select time break continue eval let printenv less more open "
    "python python3 py bash sh zsh [ [[ ] ]] { } . :".split()
)
SHELL_VARS = frozenset(
    "HOME PATH PWD OLDPWD USER SHELL TMPDIR TMP LANG LC_ALL TERM IFS RANDOM SECONDS LINENO "
    "BASH_SOURCE FUNCNAME OPTARG OPTIND REPLY HOSTNAME UID EUID PPID EDITOR "
    # placeholders agents substitute with the skill's own folder
    "SKILL_DIR SKILL_ROOT SKILL_PATH BASE_DIR BASEDIR CLAUDE_SKILL_DIR CLAUDE_PLUGIN_ROOT".split()
)
NODE_BUILTINS = frozenset(
    "fs path os child_process util url http https crypto events stream readline process "
    "assert buffer zlib net tls dns querystring string_decoder timers worker_threads".split()
)
_AUTH = re.compile(
    r"\b(api[ _-]?keys?|access[ _-]tokens?|tokens?|oauth|log ?in|sign ?in|authenticat\w*|"
    r"credentials?|bearer|secrets?)\b|(密钥|令牌|登录|认证|授权|凭据)",
    re.I,
)
_ENV_INLINE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_ENV_REF = re.compile(r"\$\{?([A-Z][A-Z0-9_]*[A-Z0-9])(:?[?-])?")
_ASSIGN = re.compile(r"(?:^|[\s;(])(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=")
_CONFIG = re.compile(
    r"^(?:(?:~|\$HOME)/[\w./-]+|\.env(?:\.\w+)?|[\w./-]*(?:config|settings|credentials)"
    r"[\w.-]*\.(?:json|ya?ml|toml|ini|cfg|conf))$"
)


@dataclass
class Requirement:
    kind: str  # one of KINDS
    name: str
    required: bool
    where: list[str] = field(default_factory=list)  # "SKILL.md:12", "tools/x.py:3"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "required": self.required,
            "where": sorted(set(self.where), key=where_key),
        }


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

    def add(
        self, kind: str, name: str, where: str, *, required: bool = True, installed: bool = False
    ) -> None:
        """``installed``: ``name`` is a distribution from ``pip install``, not an import."""
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

    def result(self) -> list[Requirement]:
        items = self.items.values()
        return sorted(items, key=lambda item: (KINDS.index(item.kind), item.name))


# -- SKILL.md ------------------------------------------------------------------------------


def from_commands(
    commands: list[SimpleCommand], file: str, out: Collector, *, required: bool = True
) -> None:
    """Binaries and packages from commands that do not run one of the skill's programs.

    Such a binary is only a warning: the agent uses it in Skill mode, but no pipeline runs it
    (the programs' own calls and interpreters are required, from ``from_program``).  Packages
    are required unless the block may be pseudo-code (``required=False``: an untagged block).
    """
    for command in commands:
        name = command.argv[0].rsplit("/", 1)[-1]
        where = f"{file}:{command.line}"
        if not re.fullmatch(r"[a-z][\w.+-]*", name) or name in COMMON_COMMANDS:
            continue
        if name in ("pip", "pip3", "uv", "npm", "pnpm", "yarn") and "install" in command.argv:
            kind = "node-package" if name in ("npm", "pnpm", "yarn") else "python-package"
            for word in command.argv[command.argv.index("install") + 1 :]:
                if word.startswith("-") or word.endswith((".txt", ".toml", ".cfg")):
                    continue
                if re.fullmatch(r"[@\w][\w@/.=<>~!-]*(?:\[[\w.,\s-]*\])?[\w.=<>~!,*-]*", word):
                    package = re.split(r"[=<>~!\[]", word)[0]  # `requests[socks]>=2`: requests
                    python = kind == "python-package"
                    out.add(kind, package, where, required=required, installed=python)
            continue
        out.add("binary", name, where, required=False)


def from_shell_text(text: str, first_line: int, file: str, out: Collector) -> None:
    """``$NAME`` used but never assigned in a block, and ``export NAME=...``.  SKILL.md only
    documents a variable; it is required when a program (or ``${NAME:?}``) insists on it."""
    assigned = set(_ASSIGN.findall(text))
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
    r"\b(?:creates|created|writes|written|saves|saved|generates|generated)\b|"
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


def from_inline(text: str, line: int, file: str, out: Collector, context: str = "") -> None:
    """An env var or a config file named in inline code; ``context`` is the text of its line,
    whose sentence tells a required file from one the program makes itself."""
    if _ENV_INLINE.match(text) and text not in SHELL_VARS:
        out.add("env", text, f"{file}:{line}", required=False)
    elif _CONFIG.match(text) and not made_by_program(sentence_of(text, context), text):
        out.add("file", text, f"{file}:{line}")


def sentence_of(part: str, text: str) -> str:
    """The sentence of ``text`` that holds ``part`` ("" when none does)."""
    return next((s for s in _SENTENCE_END.split(text) if part in s), "")


def from_prose(lines: list[str], first_line: int, file: str, out: Collector) -> None:
    for offset, line in enumerate(lines):
        for match in _AUTH.finditer(line):
            word = (match.group(1) or match.group(2)).lower()
            word = re.sub(r"[ _-]+", " ", word).rstrip("s") if match.group(1) else word
            out.add("auth", word, f"{file}:{first_line + offset}")


# -- programs ------------------------------------------------------------------------------


def from_program(path: str, language: str, source: str, local: set[str], out: Collector) -> None:
    if language == "python":
        _python(path, source, local, out)
        return
    scanner = {"node": _node, "typescript": _node, "bash": _shell, "sh": _shell, "zsh": _shell}
    scan = scanner.get(language)
    if scan is not None:
        for number, line in enumerate(source.split("\n"), start=1):
            scan(line, f"{path}:{number}", out)
    if language in ("bash", "sh", "zsh"):
        _shell_commands(source, path, out)


_RUN_CALLS = frozenset({"run", "call", "check_call", "check_output", "Popen", "system", "popen"})


def from_python_example(text: str, first_line: int, file: str, out: Collector) -> None:
    """Packages a Python example in SKILL.md imports: what the model's own scripts need."""
    _python(file, text, set(), out, first_line - 1, required=False)


def _python(
    path: str,
    source: str,
    local: set[str],
    out: Collector,
    offset: int = 0,
    required: bool = True,
) -> None:
    """Env vars, third-party imports and programs run, read from the syntax tree."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 200,000 deep, too
        return
    guarded = _guarded_imports(tree)
    for node in ast.walk(tree):
        where = f"{path}:{getattr(node, 'lineno', 0) + offset}"
        if isinstance(node, ast.Call) and _imported_by_name(node):
            module = node.args[0].value.split(".")[0]  # type: ignore[attr-defined]
            if module not in sys.stdlib_module_names and module not in local:
                out.add("python-package", module, where, required=required and node not in guarded)
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if node.level == 0 else [])
            )
            for name in names:
                top = name.split(".")[0]
                if (
                    top
                    and top not in sys.stdlib_module_names
                    and top not in local
                    and top != "__future__"
                ):
                    out.add("python-package", top, where, required=required and node not in guarded)
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                out.add("env", node.slice.value, where, required=isinstance(node.ctx, ast.Load))
        elif isinstance(node, ast.Call):
            _python_call(node, where, out)


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _guarded_imports(tree: ast.AST) -> set[ast.AST]:
    """Imports inside ``try: ... except ImportError:`` whose handler carries on (a fallback),
    rather than stopping with "pip install x": the program copes without them."""
    guarded: set[ast.AST] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = set()
        for handler in node.handlers:
            if _stops(handler):
                continue
            kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            caught |= {ast.unparse(k).rsplit(".", 1)[-1] if k else "BaseException" for k in kinds}
        if caught & _IMPORT_ERRORS:
            for statement in node.body:
                guarded |= {
                    n
                    for n in ast.walk(statement)
                    if isinstance(n, ast.Import | ast.ImportFrom)
                    or (isinstance(n, ast.Call) and _imported_by_name(n))
                }
    return guarded


def _stops(handler: ast.ExceptHandler) -> bool:
    """Whether an except clause ends the program: ``raise``, ``sys.exit(...)``, ``exit()``."""
    for node in ast.walk(handler):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("sys.exit", "exit", "quit"):
            return True
    return False


def _imported_by_name(node: ast.Call) -> bool:
    """``importlib.import_module("x")`` / ``__import__("x")`` with a literal name."""
    func = ast.unparse(node.func)
    first = node.args[0] if node.args else None
    return (
        func in ("importlib.import_module", "import_module", "__import__")
        and isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and bool(first.value)
        and not first.value.startswith(".")
    )


def _python_call(node: ast.Call, where: str, out: Collector) -> None:
    func = ast.unparse(node.func)
    first = node.args[0] if node.args else None
    text = first.value if isinstance(first, ast.Constant) else None
    if func in ("os.environ.get", "os.getenv") and isinstance(text, str):
        out.add("env", text, where, required=False)
    elif func == "shutil.which" and isinstance(text, str):  # the program checks it itself
        out.add("binary", text, where, required=False)
    elif func.rsplit(".", 1)[-1] in _RUN_CALLS and func.split(".")[0] in ("subprocess", "os"):
        if isinstance(first, ast.List | ast.Tuple) and first.elts:
            head = first.elts[0]
            text = head.value if isinstance(head, ast.Constant) else None
        word = text.split()[0] if isinstance(text, str) and text.strip() else ""
        if re.fullmatch(r"[\w.+-]+", word) and word not in COMMON_COMMANDS:
            out.add("binary", word, where)


def _node(line: str, where: str, out: Collector) -> None:
    env = r"(\?\?|\|\|)?\s*process\.env(?:\.(\w+)|\[\s*['\"](\w+)['\"]\s*\])(\s*(?:\?\?|\|\|))?"
    for match in re.finditer(env, line):
        optional = bool(match.group(1) or match.group(4))  # a ?? b / a || b: a fallback exists
        out.add("env", match.group(2) or match.group(3), where, required=not optional)
    for match in re.finditer(r"(?:require\(\s*|from\s+|import\s+)['\"]([^'\"]+)['\"]", line):
        module = match.group(1)
        if module.startswith((".", "/", "node:")):
            continue
        base = "/".join(module.split("/")[:2]) if module.startswith("@") else module.split("/")[0]
        if base not in NODE_BUILTINS:
            out.add("node-package", base, where)
    call = re.search(
        r"\b(?:execSync|execFileSync|spawnSync|spawn|execFile|exec)\(\s*['\"`]"
        r"([\w.+-]+)",
        line,
    )
    if call and call.group(1) not in COMMON_COMMANDS:
        out.add("binary", call.group(1), where)


def _shell(line: str, where: str, out: Collector) -> None:
    for match in re.finditer(r"\$\{([A-Z][A-Z0-9_]*)(:?[?-])", line):
        out.add("env", match.group(1), where, required=match.group(2).endswith("?"))
    check = re.search(r"\b(?:command\s+-v|which|hash|type\s+-P)\s+([\w.+-]+)", line)
    if check:
        out.add("binary", check.group(1), where)


def _shell_commands(source: str, path: str, out: Collector) -> None:
    functions = set(re.findall(r"^\s*(?:function\s+)?([\w-]+)\s*\(\)", source, re.M))
    arms = re.compile(r"^\s*[^\s()]+(\s*\|\s*[^\s()]+)*\s*\)")
    kept = "\n".join("" if arms.match(line) else line for line in source.split("\n"))
    commands = [c for c in simple_commands(kept, 1, "bash") if c.argv[0] not in functions]
    from_commands(commands, path, out)
