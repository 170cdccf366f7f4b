"""An APP's SKILL.md as Skill mode reads it: its text and its YAML frontmatter, plus what is
wrong with it, as warnings with file:line (a broken SKILL.md must not pass unnoticed:
`app-run check` lists them, and the Skill-mode fallback carries them to the host agent).

SKILL.md's content is never a reason to stop: it is the fallback, and its text still helps
an agent when its frontmatter is broken.  So bytes that are not UTF-8 are replaced (and said),
a frontmatter that cannot be read counts as empty (and is said), and no more than
``MAX_BYTES`` is read.  What SKILL.md *is* can be: one that links out of the APP
(``SKILL.md -> ~/notes/private.md``), or a named pipe or a device (reading it would wait or
never end), is refused with a ``LoadError`` and never read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.runtime.app.bounds import inside
from skill2app.runtime.app.diagnostic import Diagnostic
from skill2app.runtime.app.regular import NotRegular, read_regular
from skill2app.runtime.errors import LoadError, Where

FENCE = "---"
MAX_BYTES = 1_000_000  # Skill mode reads no more of a SKILL.md than this


@dataclass(frozen=True)
class SkillMd:
    path: Path
    text: str  # "" when there is no SKILL.md
    frontmatter: dict[str, Any]
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def exists(self) -> bool:
        return self.path.is_file()


def read_skill_md(path: Path) -> SkillMd:
    """``path`` read as Skill mode uses it (see the module doc)."""
    if not os.path.lexists(path):
        return SkillMd(path, "", {})
    if not inside(path, path.parent):
        raise LoadError(
            f"SKILL.md is a link to {os.path.realpath(path)}, outside the APP: not read",
            where=Where(path),
            hint="copy that file into the APP as SKILL.md if it is the APP's",
        )
    warnings: list[Diagnostic] = []
    try:
        raw = read_regular(path, MAX_BYTES)
    except FileNotFoundError:  # a link to nothing: no SKILL.md
        return SkillMd(path, "", {})
    except NotRegular as exc:
        if exc.kind == "a folder":  # not a SKILL.md at all (`check` says there is none)
            return SkillMd(path, "", {})
        raise LoadError(
            f"SKILL.md is {exc.kind}, not a file: not read",
            where=Where(path),
            hint="SKILL.md must be the APP's Markdown file",
        ) from None
    except OSError as exc:
        why = exc.strerror or str(exc)
        warnings.append(_warn(f"SKILL.md cannot be read: {why}", path, 0, "check its permissions"))
        return SkillMd(path, "", {}, warnings)
    if len(raw) > MAX_BYTES:
        cut = MAX_BYTES
        while cut > MAX_BYTES - 4 and raw[cut] & 0xC0 == 0x80:  # not inside a character
            cut -= 1
        raw = raw[:cut]
        fix = "keep SKILL.md short: move long material into references/"
        what = f"SKILL.md is over {MAX_BYTES:,} bytes: only its start is read"
        warnings.append(_warn(what, path, 0, fix))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        fix = "convert it to UTF-8 (its other bytes are shown as \ufffd)"
        warnings.append(_warn(f"SKILL.md is not UTF-8 text (byte {exc.start})", path, line, fix))
        text = raw.decode("utf-8", errors="replace")
    data, problem = _frontmatter(text.lstrip("\ufeff"))
    if problem:
        warnings.append(_warn(problem[0], path, problem[1], problem[2]))
    return SkillMd(path, text, data, warnings)


def _frontmatter(text: str) -> tuple[dict[str, Any], tuple[str, int, str] | None]:
    """The YAML mapping between a first line ``---`` and the next line ``---`` (none: ``{}``);
    and what is wrong with it (message, line, fix) if anything."""
    from skill2app.runtime.app.document import safe_yaml
    from skill2app.runtime.errors import LoadError

    lines = text.splitlines()
    if not lines or lines[0].strip() != FENCE:
        return {}, None  # plain Markdown: the spec asks for no frontmatter
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == FENCE), None)
    if end is None:
        return {}, ("SKILL.md's frontmatter has no closing ---", 1, "end it with a line ---")
    try:  # bounded: an alias bomb or deep nesting is a warning, never a hang or a crash
        data = safe_yaml("\n".join(lines[1:end]), "SKILL.md", first_line=2, max_nodes=10_000)
    except LoadError as exc:
        line = exc.where.line if exc.where else 2  # the frontmatter starts on line 2
        if exc.message.startswith("invalid YAML: "):
            problem = exc.message.removeprefix("invalid YAML: ")
            return {}, (
                f"SKILL.md's frontmatter is not valid YAML: {problem}",
                line,
                "fix the YAML",
            )
        return {}, (f"SKILL.md's frontmatter is not read: {exc.message}", line, exc.hint)
    if not isinstance(data, dict):
        fix = "write it as name: ... and description: ... lines"
        return {}, ("SKILL.md's frontmatter is not a mapping", 2, fix)
    return data, None


def _warn(message: str, path: Path, line: int, hint: str) -> Diagnostic:
    return Diagnostic("warning", message, Where(path, line), hint)
