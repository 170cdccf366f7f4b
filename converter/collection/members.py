"""The skills of a collection: skill folders (a SKILL.md) up to three levels below its folder
(``skills/.curated/gh-fix-ci``), plus the folder itself when its own SKILL.md is the skill's
(not the one app-convert generated for the collection)."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

from skill2app.converter.errors import SkillError, Where
from skill2app.converter.inventory.skill import read_skill_md
from skill2app.converter.marker import MARKER
from skill2app.runtime.app.regular import head_lines

MAX_DEPTH = 3
MAX_MEMBERS = 200
SKIPPED = frozenset(
    {".git", ".github", ".venv", "venv", "node_modules", "__pycache__", "pipelines", "dist",
     "build", "site-packages", ".app-convert-backup", ".idea", ".vscode"}
)  # fmt: skip
# Folders of a skill that may hold a SKILL.md of their own without being a skill of the
# collection (a template, an example, a test fixture).
PARTS = frozenset(
    {"assets", "template", "templates", "example", "examples", "reference", "references",
     "test", "tests", "fixtures", "samples", "docs"}
)  # fmt: skip


@dataclass(frozen=True)
class Member:
    """One skill of a collection: its folder relative to the collection ("" for the root's
    own skill) and its name (the folder's, or the root skill's)."""

    rel: str
    folder: Path
    name: str

    def path(self, inner: str) -> str:
        """``inner`` (relative to the skill) relative to the collection."""
        return posixpath.normpath(posixpath.join(self.rel, inner)) if self.rel else inner

    def file(self, path: str) -> str:
        """A path a check or a cleanup names: relative ones are the skill's; a home, an
        absolute path or a variable stays as it is."""
        return path if path.startswith(("/", "~", "$", "%")) else self.path(path)

    def spot(self, where: str) -> str:
        """A ``file:line`` (or ``file``) of the skill, relative to the collection."""
        if not where:
            return where
        file, colon, line = where.rpartition(":")
        if colon and line.isdigit():
            return f"{self.path(file)}:{line}"
        return self.path(where)


def find_members(root: Path) -> list[Member]:
    """The skills of the collection in ``root``, root's own first; [] when ``root`` is one
    skill (or holds none)."""
    own = root / "SKILL.md"
    has_own = own.is_file() and not is_generated_skill_md(own)
    found: list[Member] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        rel = here.relative_to(root).as_posix()
        depth = 0 if rel == "." else rel.count("/") + 1
        if depth and "SKILL.md" in files and (here / "SKILL.md").is_file():
            found.append(Member(rel, here, slug(here.name) or "skill"))
            dirs[:] = []  # a skill's own folders are its own
            continue
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED
            and not (here / d).is_symlink()
            and depth < MAX_DEPTH
            and not (has_own and d.lower() in PARTS)
        )
        if len(found) > MAX_MEMBERS:
            raise SkillError(
                f"more than {MAX_MEMBERS} skills below this folder",
                where=Where(str(root)),
                hint="convert a smaller folder, or each skill on its own",
            )
    if not found:
        return []
    found.sort(key=lambda m: m.rel)
    if has_own:
        name = slug(read_skill_md(own, display="SKILL.md").frontmatter.name) or "skill"
        found.insert(0, Member("", root, name))
    return found


def is_generated_skill_md(path: Path) -> bool:
    """Whether ``path`` is the SKILL.md app-convert generated for a collection (its marker
    is in the comment after the frontmatter); its first 64 KB read at most, never waited for."""
    try:
        return any(MARKER in line for line in head_lines(path, 12))
    except OSError:
        return False


def slug(text: str) -> str:
    words = "".join(c if c.isascii() and c.isalnum() else " " for c in text.lower()).split()
    return "-".join(words)[:40].strip("-")
