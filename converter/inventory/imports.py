"""What a program imports from the skill itself: its own modules are never packages to install.

Python resolves ``import a.b`` against ``sys.path``: the folder of the script that runs, the
folder ``python -m`` runs from, and whatever the program adds itself
(``sys.path.insert(0, str(Path(__file__).parent.parent))``).  ``LocalFiles.python_local`` takes
the importing file's folder and each folder above it inside the skill, plus the folders its
``sys.path`` lines name, and says whether ``a`` is a module or package there
(``scripts/office/`` makes ``from office.soffice import x`` local).  Node's ``require('./x')``
is always local; a bare name is local when it is an alias of the skill's ``tsconfig.json`` or
``jsconfig.json`` ``paths`` (``~/lib``, ``@/components``) or cannot be an npm name at all.

``import_graph`` links each file to the skill files it imports, so that what a module needs
is also what every program importing it needs.
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
from collections.abc import Callable, Iterable

MAX_CONFIG_BYTES = 200_000
_NPM_NAME = re.compile(r"^(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*$", re.I)
_SYS_PATH_LITERAL = re.compile(
    r"""sys\.path\.(?:insert\(\s*-?\d+\s*,|append\()\s*[rf]?(["'])([^"'\n]{1,300})\1"""
)


class LocalFiles:
    """The skill's files, for telling its own modules from third-party packages."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = sorted(paths)
        self.files = set(self.paths)
        self.names = frozenset(posixpath.basename(p) for p in self.paths)  # file names alone
        self.dirs = {posixpath.dirname(p) for p in self.paths}
        for path in list(self.dirs):
            while path:
                path = posixpath.dirname(path)
                self.dirs.add(path)
        self.aliases: set[str] = set()  # TS/JS path alias prefixes: "~", "@", "#lib"

    # -- Python ---------------------------------------------------------------------------

    def roots(self, file: str, source: str = "") -> list[str]:
        """Folders ``file``'s absolute imports resolve against: its own, each one above it
        inside the skill ("" is the skill folder), and those its ``sys.path`` lines add."""
        found = []
        folder = posixpath.dirname(file)
        while True:
            found.append(folder)
            if not folder:
                break
            folder = posixpath.dirname(folder)
        for extra in [*sys_path_dirs(file, source), *self._named_dirs(source)]:
            if extra not in found:
                found.append(extra)
        return found

    def _named_dirs(self, source: str) -> list[str]:
        """The skill folders a ``sys.path`` line names by a path written out, as a document
        shows it (seeing-images' ``sys.path.insert(0, '/mnt/skills/user/seeing-images/
        scripts')`` then ``from see import grid``): the longest tail of the path that is a
        folder of the skill."""
        found = []
        for match in _SYS_PATH_LITERAL.finditer(source[:MAX_CONFIG_BYTES]):
            parts = [p for p in match.group(2).strip().split("/") if p not in ("", ".")]
            tails = ("/".join(parts[i:]) for i in range(len(parts)))
            found.append(next((t for t in tails if t in self.dirs), ""))
        return [f for f in found if f]

    def python_module(self, name: str, roots: list[str]) -> str:
        """The skill file ``name`` (``office.soffice``) is, against ``roots``: a module file,
        a package's ``__init__.py``, or a namespace package's folder; "" when none."""
        parts = name.split(".")
        for root in roots:
            base = posixpath.join(root, *parts) if root else posixpath.join(*parts)
            if base + ".py" in self.files:
                return base + ".py"
            if base + "/__init__.py" in self.files:
                return base + "/__init__.py"
            if base in self.dirs:
                return base + "/"
        return ""

    def python_local(self, top: str, roots: list[str]) -> bool:
        return bool(self.python_module(top, roots))

    # -- Node -----------------------------------------------------------------------------

    def node_local(self, module: str) -> bool:
        """Whether a bare ``require``/``import`` name is the skill's own (an alias of its
        tsconfig/jsconfig ``paths``) or no npm package at all (``~/x``, ``#internal``)."""
        if module.startswith((".", "/")):
            return True
        if any(module == a or module.startswith(a + "/") for a in self.aliases):
            return True
        base = "/".join(module.split("/")[:2]) if module.startswith("@") else module.split("/")[0]
        return not _NPM_NAME.match(base)

    def read_aliases(self, read: Callable[[str], str]) -> None:
        """The ``compilerOptions.paths`` prefixes of every tsconfig/jsconfig in the skill
        (``"~/*"`` → ``~``, ``"@lib/*"`` → ``@lib``); ``read`` gives a file's text."""
        for path in self.paths:
            if posixpath.basename(path) not in ("tsconfig.json", "jsconfig.json"):
                continue
            text = read(path)[:MAX_CONFIG_BYTES]
            self.aliases |= _alias_prefixes(text)


def _alias_prefixes(text: str) -> set[str]:
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)  # tsconfig allows comments
    text = re.sub(r",(\s*[}\]])", r"\1", text)  # and trailing commas
    try:
        data = json.loads(text)
    except ValueError:
        return set(re.findall(r"[\"']([~@#][\w.-]*)/\*[\"']\s*:", text))
    options = data.get("compilerOptions") if isinstance(data, dict) else None
    paths = options.get("paths") if isinstance(options, dict) else None
    if not isinstance(paths, dict):
        return set()
    return {key.split("/*", 1)[0].rstrip("/") for key in paths if isinstance(key, str)}


# -- sys.path lines ----------------------------------------------------------------------


def sys_path_dirs(file: str, source: str) -> list[str]:
    """Skill folders ``file`` adds to ``sys.path`` with a path built from ``__file__``
    (``os.path.dirname(__file__)``, ``Path(__file__).parent.parent / "lib"``); a folder
    outside the skill (a sibling skill's, ``../shared/scripts``) starts with ``..``."""
    return [folder for folder, _line in _sys_path_calls(file, source)]


def outside_the_skill(folder: str) -> bool:
    """Whether a folder relative to the skill (``_path_value``'s) is above it: ``..`` or
    ``../shared/scripts``."""
    return folder == ".." or folder.startswith("../")


def outside_from(file: str, source: str) -> tuple[str, int]:
    """The first folder outside the skill ``file`` adds to ``sys.path``, relative to the
    skill, and the line from which it imports from it (ledger's ``sys.path.insert(0,
    ".../../shared/scripts")`` then ``import secret_detect``: a sibling skill's module, no
    package to install); ("", 0) when it adds none."""
    found = [
        (line, folder)
        for folder, line in _sys_path_calls(file, source)
        if outside_the_skill(folder)
    ]
    line, folder = min(found, default=(0, ""))
    return folder, line


def outside_paths(file: str, source: str) -> list[tuple[str, int]]:
    """The places above the skill's own folder that ``file`` names by a path built from
    ``__file__``, with the line of each (cognitive-book-mirror's ``WORKSPACE_ROOT =
    SKILL_ROOT.parent.parent.parent`` then ``DIARY_DIR = WORKSPACE_ROOT / "MEMORY" / ...``:
    the host's workspace, which in an APP folder names another place); the folders it only
    adds to ``sys.path`` (a sibling skill's modules: ``siblings``) aside."""
    if "__file__" not in source:
        return []
    try:
        tree = ast.parse(source)
        assigns = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1),
            key=lambda n: n.lineno,
        )
        on_sys_path = {
            name.id
            for call in ast.walk(tree)
            if isinstance(call, ast.Call) and ast.unparse(call.func).startswith("sys.path.")
            for name in ast.walk(call)
            if isinstance(name, ast.Name)
        }
        known: dict[str, str] = {}
        found = []
        for node in assigns:
            target = node.targets[0]
            value = _path_value(node.value, file, known)
            if not isinstance(target, ast.Name) or value is None:
                continue
            known[target.id] = value
            if outside_the_skill(value) and target.id not in on_sys_path:
                found.append((value, node.lineno))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return found


def reaches_out(file: str, source: str) -> list[tuple[str, int]]:
    """``outside_paths`` above the folder holding the skill (``../../``: the workspace or
    plugin the skill is installed in), not a sibling skill's (``../feishu-auth/config.json``:
    a sibling, which a collection's conversion keeps)."""
    return [(path, line) for path, line in outside_paths(file, source) if path.startswith("../..")]


def _sys_path_calls(file: str, source: str) -> list[tuple[str, int]]:
    if "sys.path" not in source:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 200,000 deep, too
        return []
    known: dict[str, str] = {}  # ENGINE_DIR = Path(__file__).resolve().parent / "core"
    found = []
    try:  # a deep expression parses, then would not be walked back up
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = statement.targets[0]
                if not isinstance(target, ast.Name):
                    continue
                value = _path_value(statement.value, file, known)
                if value is None:
                    known.pop(target.id, None)  # given another value: no longer the path
                else:
                    known[target.id] = value
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr not in ("insert", "append") or not node.args:
                continue
            if ast.unparse(node.func.value) != "sys.path":
                continue
            folder = _path_value(node.args[-1], file, known)
            if folder is not None:
                found.append(("" if folder == "." else folder, node.lineno))
    except RecursionError:
        return found
    return found


MAX_UP = 32  # folders above the skill a path may climb: deeper is no place we can name


def _up(folder: str) -> str | None:
    """The folder above ``folder`` (a path relative to the skill): above the skill's own
    folder ("" or ".") is "..", above ".." is "../.." (``Path(__file__).parent.parent.parent``
    of ``scripts/x.py`` is the folder holding the skill); None above ``MAX_UP`` of them."""
    if folder in ("", "."):
        return ".."
    if folder == ".." or folder.endswith("/.."):
        return f"{folder}/.." if folder.count("..") < MAX_UP else None
    return posixpath.dirname(folder)


def _path_value(node: ast.expr, file: str, known: dict[str, str] | None = None) -> str | None:
    """The skill folder an expression built from ``__file__`` names (``known``: names given
    such a path before); None when unknown."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str":
        return _path_value(node.args[0], file, known) if node.args else None
    if isinstance(node, ast.Name):
        return file if node.id == "__file__" else (known or {}).get(node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name = ast.unparse(node.func)
        if name in ("os.path.dirname", "path.dirname") and node.args:
            inner = _path_value(node.args[0], file, known)
            return _up(inner) if inner is not None else None
        if name in ("os.path.abspath", "os.path.realpath", "path.abspath") and node.args:
            return _path_value(node.args[0], file, known)
        if name in ("os.path.join", "path.join") and node.args:
            head = _path_value(node.args[0], file, known)
            rest = [a.value for a in node.args[1:] if isinstance(a, ast.Constant)]
            if head is None or len(rest) != len(node.args) - 1:
                return None
            return posixpath.normpath(posixpath.join(head or ".", *map(str, rest)))
        if node.func.attr in ("resolve", "absolute"):
            return _path_value(node.func.value, file, known)
        if ast.unparse(node.func) == "Path" or ast.unparse(node.func).endswith(".Path"):
            return _path_value(node.args[0], file, known) if node.args else None
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("Path", "pathlib.Path"):
        return _path_value(node.args[0], file, known) if node.args else None
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        inner = _path_value(node.value, file, known)
        return _up(inner) if inner is not None else None
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith(".parents"):
        inner = _path_value(node.value.value, file, known)  # type: ignore[attr-defined]
        index = node.slice.value if isinstance(node.slice, ast.Constant) else None
        if inner is None or not isinstance(index, int) or not 0 <= index < MAX_UP:
            return None
        for _ in range(index + 1):
            inner = _up(inner) if inner is not None else None
        return inner
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        head = _path_value(node.left, file, known)
        if head is not None and isinstance(node.right, ast.Constant):
            return posixpath.normpath(posixpath.join(head or ".", str(node.right.value)))
    return None


# -- who imports whom ----------------------------------------------------------------------


def python_imports(file: str, source: str, local: LocalFiles) -> set[str]:
    """The skill files ``file`` imports (module files, package ``__init__``s)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 200,000 deep, too
        return set()
    roots = local.roots(file, source)
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[tuple[str, list[str]]] = []
        if isinstance(node, ast.Import):
            names = [(alias.name, roots) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            here = roots
            if node.level:
                folder = posixpath.dirname(file)
                for _ in range(node.level - 1):
                    folder = posixpath.dirname(folder)
                here = [folder]
            names = [(base, here)] if base else []
            names += [(f"{base}.{a.name}" if base else a.name, here) for a in node.names]
        for name, where in names:
            target = local.python_module(name, where) if name else ""
            if target and not target.endswith("/"):
                found.add(target)
    found.discard(file)
    return found


_NODE_REQUIRE = re.compile(r"(?:require\(\s*|from\s+|import\s+|import\(\s*)['\"](\.[^'\"]+)['\"]")


def node_imports(file: str, source: str, local: LocalFiles) -> set[str]:
    """The skill files ``file`` requires or imports by relative path."""
    found = set()
    for module in _NODE_REQUIRE.findall(source):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(file), module))
        for candidate in (base, base + ".js", base + ".mjs", base + ".cjs", base + ".ts"):
            if candidate in local.files:
                found.add(candidate)
                break
        else:
            if base + "/index.js" in local.files:
                found.add(base + "/index.js")
    return found


def importers(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """File → every file that imports it, directly or through other files."""
    reverse: dict[str, set[str]] = {}
    for source, targets in graph.items():
        for target in targets:
            reverse.setdefault(target, set()).add(source)
    closed: dict[str, set[str]] = {}
    for target in reverse:
        seen: set[str] = set()
        todo = list(reverse[target])
        while todo:
            current = todo.pop()
            if current in seen or current == target:
                continue
            seen.add(current)
            todo.extend(reverse.get(current, ()))
        closed[target] = seen
    return closed
