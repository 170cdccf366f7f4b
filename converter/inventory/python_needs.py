"""What a Python program needs, read from its syntax tree: packages, binaries, env vars.

A need is *conditional* (a warning, not a blocking check) when the program copes without it
or only some platforms reach it:

- inside ``try:`` whose ``except`` (ImportError, FileNotFoundError, OSError, Exception ...)
  carries on instead of stopping the program (``has_gtimeout()``, an optional import);
- under a platform test (``platform.system() == "Darwin"``, ``sys.platform``, ``os.name``);
- under a capability probe: ``shutil.which(...)``, or a function of the program whose
  ``try``/``except`` answers True or False (``if _needs_shim(): compile it with gcc``);
- in a function that is only ever called from such places.

The program to run is read from the call's first argument: a literal list or string, or a
variable the same function assigns a list to (``cmd = ["claude", "-p", ...]`` then
``subprocess.run(cmd)``), each assignment with its own condition.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterator

RUN_CALLS = frozenset({"run", "call", "check_call", "check_output", "Popen", "system", "popen"})
_TOLERATED = frozenset(
    {"ImportError", "ModuleNotFoundError", "FileNotFoundError", "OSError", "Exception",
     "BaseException", "SubprocessError", "CalledProcessError", "TimeoutExpired", "EnvironmentError",
     "PermissionError"}
)  # fmt: skip
_PLATFORM = re.compile(
    r"\b(?:platform\.(?:system|platform|mac_ver|win32_ver|uname)|sys\.platform|os\.name|"
    r"os\.uname)\b|\b(?:is_|IS_)?(?:windows|win32|macos|darwin|WINDOWS|MACOS|DARWIN)\b"
)
# A Python package's own need of a program: importing the package means running it.
SYSTEM_NEEDS = {
    "pdf2image": "pdftoppm",  # poppler-utils
    "pytesseract": "tesseract",
    "pydub": "ffmpeg",
    "moviepy": "ffmpeg",
    "ffmpeg": "ffmpeg",  # ffmpeg-python
    "whisper": "ffmpeg",
    "pdfkit": "wkhtmltopdf",
    "imgkit": "wkhtmltoimage",
}
# SDK clients that read their key from the environment when none is passed.
CLIENT_KEYS = {
    "Anthropic": "ANTHROPIC_API_KEY",
    "AsyncAnthropic": "ANTHROPIC_API_KEY",
    "OpenAI": "OPENAI_API_KEY",
    "AsyncOpenAI": "OPENAI_API_KEY",
}

Add = Callable[[str, str, int, bool], None]  # (kind, name, line, required)


# A branch on a key or token: the code under it is a service's path, taken when one is given
# (mapping-documents: `if not api_key: structure only, else: import anthropic ...`).
# The test is the name alone, or its negation; the name ends as a key does (not `_tokenizer`,
# `tokens`): a fullmatch of a name, linear on any test.
_KEY_TEST = re.compile(
    r"(?:not\s+)?(?:\w+\.)*\w*?(?:api_?key|(?:access|auth|bearer|api|secret)_?token|token)", re.I
)


def stops(handler: ast.AST, own: frozenset[str] = frozenset()) -> bool:
    """Whether an except clause (or a branch) ends the program: ``raise``, ``sys.exit(...)``,
    ``exit()``; not a ``raise`` of one of the ``own`` exception classes the source defines
    (``raise Unavailable(...) from exc``: its callers carry on without what was missing)."""
    for node in ast.walk(handler):
        if isinstance(node, ast.Raise):
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if raised is not None and ast.unparse(raised) in own:
                continue
            return True
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("sys.exit", "exit", "quit"):
            return True
    return False


def _tolerant(node: ast.Try, own: frozenset[str] = frozenset()) -> bool:
    """A ``try`` whose handlers carry on after a missing module or program (or turn its
    absence into one of the ``own`` exceptions the source defines, for its callers)."""
    for handler in node.handlers:
        if stops(handler, own):
            continue
        if caught_names(handler) & _TOLERATED:
            return True
    return False


def caught_names(handler: ast.ExceptHandler) -> set[str]:
    """The classes an ``except`` catches, by their last name (``except (sources.Unavailable,
    OSError)`` → Unavailable, OSError; a bare ``except:`` → BaseException)."""
    if handler.type is None:
        return {"BaseException"}
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {ast.unparse(k).rsplit(".", 1)[-1] for k in kinds}


def _picks_mode(test: ast.expr) -> bool:
    """A test comparing a value with a string literal, or asking what it ends or starts
    with (never ``__name__``)."""
    if "__name__" in ast.unparse(test):
        return False
    for node in ast.walk(test):
        literal = any(
            isinstance(c, ast.Constant) and isinstance(c.value, str) for c in ast.walk(node)
        )
        if isinstance(node, ast.Compare) and literal:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and literal:
            if node.func.attr in ("endswith", "startswith"):
                return True
    return False


def _catches_import_error(node: ast.Try) -> bool:
    return any(caught_names(handler) & _IMPORT_ERRORS for handler in node.handlers)


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


def caught_classes(source: str) -> set[str]:
    """The exception classes a Python source's ``except`` clauses name (``except
    sources.Unavailable`` → ``Unavailable``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            found |= caught_names(node)
    return found


def _top_modules(nodes: list[ast.stmt]) -> set[str]:
    """The top-level modules the statements import."""
    found: set[str] = set()
    for stmt in nodes:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found


def _another_way(tried: ast.AST | None, node: ast.AST) -> bool:
    """Whether ``node``, in an ``except`` of the ``try`` statement ``tried``, is a fallback:
    what it imports is not what the try imported (``except ImportError: from yaml import
    SafeLoader`` after ``from yaml import CSafeLoader`` still needs yaml)."""
    if not isinstance(tried, ast.Try) or not isinstance(node, ast.stmt):
        return False
    mine = _top_modules([node])
    return bool(mine) and not mine & _top_modules(tried.body)


def _fatal_flags(tree: ast.Module) -> set[str]:
    """Names the program stops on when false: ``if not HAS_X: raise ImportError(...)``."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if (
            isinstance(test, ast.UnaryOp)
            and isinstance(test.op, ast.Not)
            and isinstance(test.operand, ast.Name)
            and any(stops(statement) for statement in node.body)
        ):
            found.add(test.operand.id)
    return found


def _assigned(node: ast.Try) -> set[str]:
    """The names a ``try`` statement assigns (in its body and handlers)."""
    return {
        target.id
        for sub in ast.walk(node)
        if isinstance(sub, ast.Assign)
        for target in sub.targets
        if isinstance(target, ast.Name)
    }


def imported_by_name(node: ast.Call) -> str:
    """``importlib.import_module("x")`` / ``__import__("x")``: "x" ("" otherwise)."""
    func = ast.unparse(node.func)
    first = node.args[0] if node.args else None
    if func not in ("importlib.import_module", "import_module", "__import__"):
        return ""
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return ""
    return "" if first.value.startswith(".") else first.value


class PythonNeeds:
    """One Python source's needs, each with whether the program can do without it."""

    def __init__(
        self,
        tree: ast.Module,
        is_local: Callable[[str, int], bool | None],  # (module, line): own / package / unknown
        common: frozenset[str],
        caught: frozenset[str] = frozenset(),
    ):
        self.tree = tree
        self.is_local = is_local
        self.common = common
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.functions = {
            n.name: n
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        self.probes = {name for name, f in self.functions.items() if _is_probe(f)}
        # exception classes of its own that the program's callers catch (``caught``: the
        # skill's ``except`` clauses, this file's and the others')
        self.own_errors = frozenset(
            n.name
            for n in tree.body
            if isinstance(n, ast.ClassDef)
            and n.name in caught
            and any(re.search(r"Error|Exception|Unavailable", ast.unparse(b)) for b in n.bases)
        )
        self.fatal_flags = _fatal_flags(tree)
        self.conditional_functions = self._conditional_functions()
        self._calls: dict[str, list[ast.Call]] | None = None
        self._assignments: dict[int, dict[str, list[tuple[str, ast.AST]]]] = {}

    # -- conditions ---------------------------------------------------------------------

    def _ancestors(self, node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
        """(ancestor, the child of it on the way down to ``node``), innermost first."""
        child = node
        while child in self.parents:
            parent = self.parents[child]
            yield parent, child
            child = parent

    def guarded(self, node: ast.AST) -> bool:
        """Whether ``node`` sits in a tolerant try, an ``except`` (a fallback), a platform
        branch or a probed branch of its own function (not counting what calls that
        function)."""
        for parent, child in self._ancestors(node):
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                return False
            if (
                isinstance(parent, ast.Try)
                and child in parent.body
                and _tolerant(parent, self.own_errors if self._function_of(parent) else frozenset())
            ):
                # `except ImportError: HAS_X = False`, then `if not HAS_X: raise`: needed
                return not (_assigned(parent) & self.fatal_flags)
            if isinstance(parent, ast.ExceptHandler) and _another_way(
                self.parents.get(parent), node
            ):
                return True  # `from backports.zoneinfo import ...` when zoneinfo failed
            if isinstance(parent, ast.If | ast.IfExp | ast.While) and child is not parent.test:
                if self._conditional_test(parent.test) or (
                    isinstance(parent, ast.If) and _KEY_TEST.fullmatch(ast.unparse(parent.test))
                ):  # `if not api_key:` ... `else:` the API's own path
                    return True
        return False

    def conditional(self, node: ast.AST) -> bool:
        if self.guarded(node):
            return True
        owner = self._function_of(node)
        return owner is not None and owner.name in self.conditional_functions

    def _env_checked(self, node: ast.AST, name: str) -> bool:
        """Whether ``node`` sits in a branch whose test looks the variable ``name`` up
        (``if "X" in os.environ:``, ``elif os.getenv("X"):``)."""
        for parent, child in self._ancestors(node):
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                return False
            if isinstance(parent, ast.If | ast.IfExp | ast.While) and child is not parent.test:
                for sub in ast.walk(parent.test):
                    if isinstance(sub, ast.Constant) and sub.value == name:
                        return True
        return False

    def _conditional_test(self, test: ast.expr) -> bool:
        text = ast.unparse(test)
        if _PLATFORM.search(text) or "shutil.which" in text or re.search(r"\bwhich\(", text):
            return True
        return any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in self.probes
            for n in ast.walk(test)
        )

    def _function_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for parent, _child in self._ancestors(node):
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                return parent
        return None

    def _conditional_functions(self) -> set[str]:
        """Functions of the program called only from guarded places (or from functions that
        are themselves conditional); a function never called here is not conditional."""
        sites: dict[str, list[ast.AST]] = {name: [] for name in self.functions}
        called: set[int] = set()  # the names that are a call's function
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                name = _called_name(node)
                called.add(id(node.func))
                if name in sites:
                    sites[name].append(node)
        for node in ast.walk(self.tree):  # handed over to be called: `pool.submit(work, x)`
            if isinstance(node, ast.Name) and node.id in sites and id(node) not in called:
                if isinstance(node.ctx, ast.Load):
                    sites[node.id].append(node)
        found: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, calls in sites.items():
                if name in found or not calls:
                    continue
                if all(self.guarded(c) or self._in(c, found) for c in calls):
                    found.add(name)
                    changed = True
        return found

    def _lazy_feature(self, node: ast.AST) -> bool:
        """An import a function makes when it is called, in a ``try`` that catches its
        ImportError (to say how to install it), where every call of the function is in a
        branch (duckdb-expert's ``load_config_from_yaml``, called ``if suffix in [".yaml",
        ".yml"]``, round 48): one mode's package, the others run without it.  Not ``main``'s
        own imports, nor a function called unconditionally."""
        owner = self._function_of(node)
        tried = next(
            (p for p, child in self._ancestors(node) if isinstance(p, ast.Try) and child in p.body),
            None,
        )
        if owner is None or owner.name == "main" or tried is None:
            return False
        if self._function_of(tried) is not owner or not _catches_import_error(tried):
            return False
        calls = self._calls_by_name().get(owner.name, [])
        return 0 < len(calls) <= MAX_CALLERS and all(self._in_branch(c) for c in calls)

    def _in_branch(self, node: ast.AST) -> bool:
        """Whether ``node`` is in the body of the nearest ``if`` of its own function (or of the
        module) whose test picks a mode by a literal value (``suffix in [".yaml", ".yml"]``,
        ``cmd == "fetch"``, ``path.endswith(".xlsx")``): not an ``else``, nor a test of
        whether something is given or there (``if args.input:``, ``if not exists(...)``)."""
        for parent, child in self._ancestors(node):
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                return False
            if isinstance(parent, ast.If) and child is not parent.test:
                return child in parent.body and _picks_mode(parent.test)
        return False

    def _in(self, node: ast.AST, names: set[str]) -> bool:
        owner = self._function_of(node)
        return owner is not None and owner.name in names

    # -- needs --------------------------------------------------------------------------

    def scan(self, add: Add) -> None:
        for node in ast.walk(self.tree):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._imports(node, line, add)
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
                if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                    name = node.slice.value
                    if isinstance(node.ctx, ast.Load) and _ENV_NAME.fullmatch(name):
                        # set or deleted: the program's own; read after `if "X" in
                        # os.environ:` it does without it
                        optional = self.conditional(node) or self._env_checked(node, name)
                        add("env", name, line, not optional)
            elif isinstance(node, ast.Call):
                self._call(node, line, add)

    def _imports(self, node: ast.Import | ast.ImportFrom, line: int, add: Add) -> None:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            names = [node.module or ""] if node.level == 0 else []
        for name in names:
            self._package(name.split(".")[0], node, line, add)

    def _package(self, top: str, node: ast.AST, line: int, add: Add) -> None:
        if not top or top == "__future__" or top in sys.stdlib_module_names:
            return
        own = self.is_local(top, line)
        if own:
            return
        required = own is not None and not self.conditional(node)  # unknown: a warning
        required = required and not self._lazy_feature(node)
        add("python-package", top, line, required)
        if top in SYSTEM_NEEDS:
            add("binary", SYSTEM_NEEDS[top], line, required)

    def _call(self, node: ast.Call, line: int, add: Add) -> None:
        func = ast.unparse(node.func)
        first = node.args[0] if node.args else None
        text = first.value if isinstance(first, ast.Constant) else None
        module = imported_by_name(node)
        if module:
            self._package(module.split(".")[0], node, line, add)
        elif func in ("os.environ.get", "os.getenv") and isinstance(text, str):
            default = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(default, ast.Constant) and default.value not in (None, "")):
                # `getenv("WIDTH", "1200")`: its default is set; `token = getenv("X", "")`
                # then `if not token: sys.exit(1)`: the program stops without it
                add("env", text, line, self._stops_without(node) and not self.conditional(node))
        elif func == "shutil.which" and isinstance(text, str):  # the program checks it itself
            add("binary", text, line, False)
        elif func.rsplit(".", 1)[-1] in CLIENT_KEYS and not _has_keyword(node, "api_key"):
            add("env", CLIENT_KEYS[func.rsplit(".", 1)[-1]], line, not self.conditional(node))
        elif func.rsplit(".", 1)[-1] in RUN_CALLS and func.split(".")[0] in ("subprocess", "os"):
            for word, where in self._programs_run(node, first):
                if re.fullmatch(r"[\w.+-]+", word) and word not in self.common:
                    # a command a helper is handed may be one of several ways (skill-installer's
                    # git after a failed download): said, not required
                    passed = isinstance(where, ast.Call) and where is not node
                    certain = not (passed or self.conditional(node) or self.guarded(where))
                    add("binary", word, line, certain)

    def _stops_without(self, call: ast.Call) -> bool:
        """Whether the value of ``call``, assigned to a name, is tested right after for
        being empty (``if not token:``, ``if token is None:``) in a branch that ends the
        program (tencent-meeting-mcp's ``TENCENT_MEETING_TOKEN``)."""
        assign = self.parents.get(call)
        if not (
            isinstance(assign, ast.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0], ast.Name)
        ):
            return False
        name, block = assign.targets[0].id, self.parents.get(assign)
        body = getattr(block, "body", [])
        if assign not in body:
            return False
        for later in body[body.index(assign) + 1 : body.index(assign) + 4]:
            if isinstance(later, ast.If) and _tests_empty(later.test, name):
                # the branch itself ends the program (not a nested `if` after a fallback that
                # reads the value from a file), and gives the name no value another way
                sets = any(
                    isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                    for n in ast.walk(ast.Module(body=later.body, type_ignores=[]))
                )
                ends = [n for n in later.body if isinstance(n, ast.Raise | ast.Expr)]
                return not sets and any(stops(n, self.own_errors) for n in ends)
        return False

    def _programs_run(self, call: ast.Call, first: ast.expr | None) -> list[tuple[str, ast.AST]]:
        """(program word, the node that names it) for what ``call`` runs."""
        head = _head(first)
        if head is not None:
            return [(head, call)]
        if not isinstance(first, ast.Name):
            return []
        function = self._function_of(call)
        found = list(self._assigned_commands(function or self.tree).get(first.id, []))
        if found or function is None:
            return found
        # a helper's parameter (``def run(cmd): subprocess.run(cmd)``): what its callers
        # pass it, literally or by a name they assign (video2minutes' ``cmd = ["ffmpeg", ...]``
        # then ``run(cmd)``), one level deep; the node given is the call to the helper.  A
        # method's callers are its ``self.``/``cls.`` calls (``cur.execute(sql)`` is another's)
        names = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
        if first.id not in names:
            return []
        index = names.index(first.id) - (1 if names[:1] in (["self"], ["cls"]) else 0)
        for node in self._calls_by_name().get(function.name, [])[:MAX_CALLERS]:
            passed = [k.value for k in node.keywords if k.arg == first.id]
            passed += node.args[index : index + 1]
            for value in passed[:1]:
                word = _head(value)
                if word is not None:
                    found.append((word, node))
                elif isinstance(value, ast.Name):
                    scope = self._function_of(node) or self.tree
                    assigned = self._assigned_commands(scope).get(value.id, [])
                    found += [(w, node) for w, _at in assigned]
        return found

    def _calls_by_name(self) -> dict[str, list[ast.Call]]:
        """The program's calls by the name they call (``_called_name``), read once."""
        if self._calls is None:
            self._calls = {}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Call) and (name := _called_name(node)):
                    self._calls.setdefault(name, []).append(node)
        return self._calls

    def _assigned_commands(self, scope: ast.AST) -> dict[str, list[tuple[str, ast.AST]]]:
        """Per name, (program word, assignment) for each literal command assigned to it in
        ``scope``; each scope read once (a walk per call was quadratic)."""
        known = self._assignments.get(id(scope))
        if known is not None:
            return known
        found: dict[str, list[tuple[str, ast.AST]]] = {}
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign):
                word = _head(node.value)
                for target in node.targets:
                    if word is not None and isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append((word, node))
        self._assignments[id(scope)] = found
        return found


MAX_CALLERS = 50  # calls of one helper followed: more say nothing new

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a name a shell can set ("X/cache" is none)


def _tests_empty(test: ast.expr, name: str) -> bool:
    """``not name``, ``name is None``, ``not name.strip()`` (or any of them in an ``or``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_tests_empty(value, name) for value in test.values)
    text = ast.unparse(test)
    return text in (f"not {name}", f"{name} is None", f"not {name}.strip()", f"{name} == ''")


def _head(node: ast.expr | None) -> str | None:
    """The program a literal command names: ``["git", ...]``, ``"git diff"``,
    ``["timeout", "5"] + cmd``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _head(node.left)
    if isinstance(node, ast.List | ast.Tuple) and node.elts:
        node = node.elts[0]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.strip() or None
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
        return node.value.split()[0]
    return None


def _called_name(node: ast.Call) -> str:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value) in ("self", "cls"):
        return node.func.attr
    return ""


def _has_keyword(node: ast.Call, name: str) -> bool:
    return any(k.arg == name for k in node.keywords)


def _is_probe(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A function that answers whether something is available: a ``try`` whose body or
    handlers return True or False."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Try):
            continue
        parts = [*node.body, *(s for h in node.handlers for s in h.body)]
        returns = [
            s
            for part in parts
            for s in ast.walk(part)
            if isinstance(s, ast.Return) and isinstance(s.value, ast.Constant)
        ]
        if any(
            isinstance(r.value, ast.Constant) and isinstance(r.value.value, bool) for r in returns
        ):
            return True
    return False
