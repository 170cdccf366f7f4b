"""Files outside the skill that its programs need: ``require('../feishu-auth/token-utils.js')``.

Skills of one collection share helpers by relative path (``path.join(__dirname,
'../other-skill/x.js')``, ``import ... from '../other-skill/x.mjs'``, ``sys.path.insert(0,
'../shared')``).  Converted in place, those files are still there; copied alone with ``--out``,
the program fails with ``Cannot find module``.  ``outside_files`` finds them: a quoted relative
path in a program or module of the skill that leads out of the skill folder to a file that
exists (tried with the usual suffixes), never further up than ``limit`` (the collection's
folder, or the skill's parent: ``collection_bound``, never the user's home), never a hidden
file (``within``).  Nothing found here is read or run; the caller copies it or
says it is missing.  ``missing_modules`` finds the modules a JavaScript program loads from
outside the skill that are not there at all (rp-source-csv's ``require('../../../lib/
progress-log.js')``, its parent skill's): the program stops at its start without them.
"""

from __future__ import annotations

import ast
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from skill2app.converter.inventory.imports import outside_the_skill, sys_path_dirs
from skill2app.converter.inventory.node_needs import node_code, node_modules
from skill2app.converter.inventory.programs.facts import read_source

_RELATIVE = re.compile(r"""(["'`])(\.\.?/[^"'`\n$]{1,200})\1""")
SUFFIXES = ("", ".js", ".mjs", ".cjs", ".ts", ".py", ".sh", "/index.js", "/__init__.py")
MAX_FOLLOWED = 200  # files followed from one skill (a sibling's own relative imports too)
MAX_MISSING = 20  # modules outside the skill reported missing


@dataclass(frozen=True)
class Outside:
    """``file``:``line`` names ``target``, a file outside the skill (relative to the skill's
    folder, POSIX: ``../feishu-auth/token-utils.js``)."""

    file: str
    line: int
    target: str

    def where(self) -> str:
        return f"{self.file}:{self.line}"


def outside_files(
    skill_dir: Path, code_files: list[str], limit: Path | None = None
) -> list[Outside]:
    """The files outside ``skill_dir`` that ``code_files`` (relative paths) name, and the
    files those name in turn (a sibling's own helpers), inside ``limit`` (default: the skill's
    parent folder).  Links are resolved before the containment check."""
    root = skill_dir.resolve()
    bound = collection_bound(skill_dir, limit)
    found: list[Outside] = []
    seen: set[str] = set()
    todo = [(rel, rel) for rel in code_files]  # (file as the skill names it, its path)
    while todo and len(seen) < MAX_FOLLOWED:
        shown, rel = todo.pop(0)
        source = (
            read_source(root / rel) if not rel.startswith("../") else read_inside(root, rel, bound)
        )
        found += _python_siblings(root, shown, rel, source, bound)
        for line_no, line in enumerate(source.split("\n"), 1):
            for _quote, literal in _RELATIVE.findall(line):
                target = _resolve(root, posixpath.dirname(rel), literal, bound)
                if target is None or not target.startswith("../"):
                    continue
                found.append(Outside(shown, line_no, target))
                if target not in seen:
                    seen.add(target)
                    todo.append((target, target))
    return _unique(found)


_JS = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")


def missing_modules(
    skill_dir: Path, code_files: list[str], limit: Path | None = None
) -> list[tuple[Outside, bool]]:
    """The modules ``code_files`` (JavaScript and TypeScript) load from outside ``skill_dir``
    that are not inside ``limit`` (default: the skill's parent), with whether the program needs
    them (a load in a ``try`` block copes without): ``target`` is the path relative to the
    skill's folder, as the program spells it.  Comments and the text of template literals load
    nothing (a generator's ``import Icon from '../icons/Icon'``)."""
    root = skill_dir.resolve()
    bound = collection_bound(skill_dir, limit)
    found: list[tuple[Outside, bool]] = []
    for rel in code_files:
        if not rel.endswith(_JS) or rel.startswith("../"):
            continue
        code = node_code(read_source(root / rel))
        start = 0  # where the line starts in ``code``
        for number, line in enumerate(code.split("\n"), 1):
            for module in node_modules(line):  # what node_needs reads a line's loads with
                base = posixpath.normpath(posixpath.join(posixpath.dirname(rel), module))
                if not base.startswith("../") or _resolve(root, "", base, bound) is not None:
                    continue
                if len(found) >= MAX_MISSING:
                    return found  # enough to say the skill was taken from its collection
                at = start + line.find(module)
                tried = re.search(r"\btry\s*\{[^{}]*$", code[max(0, at - 300) : at])
                found.append((Outside(rel, number, base), not tried))
            start += len(line) + 1
    return found


def _python_siblings(root: Path, shown: str, rel: str, source: str, bound: Path) -> list[Outside]:
    """The modules a Python file imports from a folder outside the skill its ``sys.path``
    lines add (``sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "scripts"))``
    then ``import secret_detect``)."""
    if not rel.endswith(".py") or rel.startswith("../"):
        return []
    outside = [d for d in sys_path_dirs(rel, source) if outside_the_skill(d)]
    if not outside:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        else:
            continue
        for name in names:
            for folder in outside:
                literal = posixpath.join(folder, *name.split("."))
                target = _resolve(root, "", literal, bound)
                if target is not None:
                    found.append(Outside(shown, node.lineno, target))
                    break
    return found


def _resolve(root: Path, folder: str, literal: str, bound: Path) -> str | None:
    """``literal`` (relative to ``folder`` of the skill) as a path relative to the skill, when
    it names an existing file inside ``bound``; None otherwise."""
    base = posixpath.normpath(posixpath.join(folder, literal.rstrip("/")))
    for suffix in SUFFIXES:
        candidate = base + suffix
        path = root / candidate
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            continue
        if within(real, bound) and real.is_file():
            return candidate
    return None


def read_inside(root: Path, rel: str, bound: Path) -> str:
    """The text of ``rel`` (relative to ``root``) when, links resolved, it is inside
    ``bound`` (``within``); "" otherwise, or when it cannot be read."""
    path = (root / rel).resolve()
    return read_source(path) if within(path, bound) else ""


def within(path: Path, bound: Path) -> bool:
    """Whether ``path`` (resolved) lies in ``bound`` and in no hidden folder or file of it
    (``../.netrc``, ``../.config/tool/cfg.py``, ``../shared/.env``: a sibling skill's helper
    is never one)."""
    if not path.is_relative_to(bound):
        return False
    return not any(part.startswith(".") for part in path.relative_to(bound).parts)


# Folders that hold a user's files, not a collection of skills: a skill kept right in one
# has no siblings (an attack run: ``~/myskill`` named ``../.netrc``).
_NO_COLLECTION = ("/", "/tmp", "/var/tmp", "/home", "/root", "/Users")
MAX_LOOKED_AT = 500  # entries of a parent folder looked at for another skill


def collection_bound(skill_dir: Path, limit: Path | None = None) -> Path:
    """The folder the skill's programs may reach out to (its collection): ``limit``, else the
    skill's parent when it holds another skill (a folder with a SKILL.md); the skill's own
    folder otherwise, and whenever that folder is the user's home, holds it, or is a place
    like ``/`` or ``/tmp`` (a reviewer: ``~/Downloads/x`` reached ``../passwords.txt``)."""
    bound = (limit or skill_dir.parent).resolve()
    home = Path(os.path.realpath(os.path.expanduser("~")))
    unsafe = {os.path.realpath(p) for p in _NO_COLLECTION}
    if str(bound) in unsafe or home.is_relative_to(bound):
        return skill_dir.resolve()
    if limit is None and not _holds_another_skill(bound, skill_dir.resolve()):
        return skill_dir.resolve()
    return bound


def _holds_another_skill(folder: Path, skill: Path) -> bool:
    try:
        entries = sorted(folder.iterdir())[:MAX_LOOKED_AT]
    except OSError:
        return False
    return any(e.resolve() != skill and (e / "SKILL.md").is_file() for e in entries)


def _unique(found: list[Outside]) -> list[Outside]:
    seen: set[tuple[str, int, str]] = set()
    out = []
    for item in found:
        key = (item.file, item.line, item.target)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
