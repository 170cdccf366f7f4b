"""File changes: plan them, check them, show them (--dry-run) and write them atomically.

Every generator returns a list of ``Change``; nothing touches the disk until ``apply``, which
refuses to overwrite an existing file without ``force``, re-checks that a file being edited
has not changed since it was read, writes each file through a temporary file and
``os.replace``, and removes what it created if a later write fails.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skill2app.scaffold.errors import Conflict, Where, WriteFailed

CREATE, OVERWRITE, EDIT = "create", "overwrite", "edit"


@dataclass(frozen=True)
class Change:
    """One file app-new wants to write; ``path`` is as the user named it (may be relative)."""

    path: Path
    action: str  # create | overwrite | edit
    content: str
    old: str | None = None  # the current text, for overwrite and edit
    template: str = ""  # the template it came from ("" for a round-trip edit)
    executable: bool = False

    def diff(self) -> str:
        """A unified diff from the current text to the new one ("" for a new file)."""
        if self.old is None:
            return ""
        lines = difflib.unified_diff(
            self.old.splitlines(keepends=True),
            self.content.splitlines(keepends=True),
            fromfile=f"a/{self.path.as_posix()}",
            tofile=f"b/{self.path.as_posix()}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def new_file(path: Path, content: str, *, template: str = "", executable: bool = False) -> Change:
    """A file to write from a template: ``create``, or ``overwrite`` when it already exists."""
    if path.is_dir():
        raise Conflict(
            "a folder is in the way", where=Where(path), hint="move it away or pick another name"
        )
    if path.exists():
        return Change(path, OVERWRITE, content, read_text(path), template, executable)
    return Change(path, CREATE, content, None, template, executable)


def edited_file(path: Path, old: str, content: str) -> Change:
    """An existing file whose text app-new changed (a round-trip YAML edit)."""
    return Change(path, EDIT, content, old)


def read_text(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def check(changes: Iterable[Change], *, force: bool) -> None:
    """Raise ``Conflict`` naming the first file that would be overwritten without ``force``,
    or written through a symbolic link (a ``pipelines/`` that leads out of the APP)."""
    changes = list(changes)
    for change in changes:
        link = _link_on_the_way(change.path)
        if link is not None:
            raise Conflict(
                f"{link.name} is a symbolic link (to {os.readlink(link)}): app-new writes only "
                "inside the APP folder, never through a link",
                where=Where(link),
                hint="replace the link with a real folder, or work in the folder it leads to",
            )
    clashes = [change for change in changes if change.action == OVERWRITE]
    if clashes and not force:
        more = f", as do {len(clashes) - 1} more" if len(clashes) > 1 else ""
        raise Conflict(
            f"file already exists{more}",
            where=Where(clashes[0].path),
            hint="pass --force to overwrite, or --dry-run to see every change first",
        )


def apply(changes: list[Change], *, force: bool = False, dry_run: bool = False) -> list[Change]:
    """Check ``changes`` and, unless ``dry_run``, write them; return them in order."""
    check(changes, force=force)
    if dry_run:
        return changes
    created: list[Path] = []
    for change in changes:
        try:
            _write(change, created)
        except Conflict:
            _roll_back(created)
            raise
        except OSError as exc:
            _roll_back(created)
            raise WriteFailed(
                f"cannot write: {exc.strerror or exc}",
                where=Where(change.path),
                hint="check the folder's permissions and free space, then run again",
            ) from exc
    return changes


def _link_on_the_way(path: Path) -> Path | None:
    """The first symbolic link among the folders from the APP (the nearest folder up with a
    SKILL.md) down to ``path``; None if there is none (or no APP yet)."""
    folders = list(Path(os.path.abspath(path)).parents)
    root = next((f for f in folders if (f / "SKILL.md").is_file()), None)
    if root is None:
        return None
    for folder in reversed(folders[: folders.index(root)]):
        if folder.is_symlink():
            return folder
    return None


def _write(change: Change, created: list[Path]) -> None:
    exists = change.path.exists()
    if exists and change.action == CREATE:
        raise Conflict(
            "file appeared while app-new was running",
            where=Where(change.path),
            hint="run again (add --force to overwrite it)",
        )
    if change.action == EDIT and read_text(change.path) != change.old:
        raise Conflict(
            "file changed while app-new was running",
            where=Where(change.path),
            hint="run again; nothing was lost",
        )
    _make_parents(change.path.parent, created)
    mode = _mode_for(change, exists)
    atomic_write(change.path, change.content, mode)
    if not exists:
        created.append(change.path)


def atomic_write(path: Path, text: str, mode: int) -> None:
    """Write ``text`` to a temporary file next to ``path``, then ``os.replace`` it into place."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(change: Change, exists: bool) -> int:
    if exists:
        return change.path.stat().st_mode & 0o7777
    return (0o777 if change.executable else 0o666) & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _make_parents(folder: Path, created: list[Path]) -> None:
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        created.append(path)


def _roll_back(created: list[Path]) -> None:
    for path in reversed(created):
        try:
            path.rmdir() if path.is_dir() else path.unlink()
        except OSError:
            pass
