"""The copy of an APP folder that one `app-run test` sample runs in.

A sample names its files as if app-run was started in the APP folder
(``pipelines/fix/samples/table.xlsx``), and what it writes beside them (``table_fixed.xlsx``)
or in the folder it runs in would land in the APP.  So it runs in a copy: every pipeline's
``samples/`` copied (a sample may name another pipeline's files), every other entry of the
APP a link to it (its programs, steps, assets).  The copy sits at one place per APP and
pipeline under app-run's state folder (``tests/<APP digest>/<pipeline>``), so an output that
names a file names the same one from run to run; a lock file (``tests/<APP digest>/.locks/``)
makes a second run of the same sample wait for the first (two `app-run test` at once); the
copy is removed after the run, and on any failure while it is made (Ctrl-C too).

Samples over ``MAX_BYTES`` or ``MAX_FILES``, or a copy that cannot be made, fail the test
with the reason: a sample never runs in the APP folder itself.  Links are made to each
entry's absolute path as written, never resolved (a link loop in the APP stays a link).  A
samples folder, or a file in one, that leads out of the APP (``samples -> ~/.ssh``,
``input.json -> ~/secret.json``) is not copied: no sample reads it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO

from skill2app.runtime.app.bounds import inside
from skill2app.runtime.app.config import state_home
from skill2app.runtime.app.model import App
from skill2app.runtime.errors import AppRunError
from skill2app.runtime.run.sandbox import remove_tree

MAX_BYTES = 64 * 1024 * 1024  # all the samples/ folders of an APP together
MAX_FILES = 10_000


class WorkCopy:
    """``with WorkCopy(app, name) as folder:`` the copy ``name``'s sample runs in."""

    def __init__(self, app: App, name: str) -> None:
        self.app, self.name = app, name
        digest = hashlib.sha256(os.path.abspath(app.root).encode()).hexdigest()[:16]
        self.base = state_home() / "tests" / digest
        self.folder = self.base / name
        self._lock: IO[str] | None = None

    def __enter__(self) -> Path:
        try:
            locks = self.base / ".locks"  # apart from the copies: a pipeline may be "x.lock"
            locks.mkdir(parents=True, exist_ok=True)
            lock = open(locks / self.name, "w")  # noqa: SIM115
            fcntl.flock(lock, fcntl.LOCK_EX)  # another run of this sample: wait for it
            self._lock = lock
            remove_tree(self.folder)
            self._build()
        except BaseException as exc:  # Ctrl-C too: nothing half-made, no lock held
            if self._lock is not None:  # only the lock's holder may remove the copy
                try:
                    remove_tree(self.folder)  # what was copied before the problem
                except OSError:
                    pass
            self._release()
            if not isinstance(exc, OSError | RuntimeError):
                raise
            raise AppRunError(
                f"cannot copy the APP to run the sample in ({self.folder}): {_why(exc)}",
                hint="keep samples/ to small files and folders, and APP_RUN_HOME writable",
            ) from None
        return self.folder

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            remove_tree(self.folder)
        except OSError:
            pass  # left behind: the next run removes it first, or says why it cannot
        finally:
            self._release()

    def _build(self) -> None:
        root = Path(os.path.abspath(self.app.root))
        pipelines = root / "pipelines"
        samples = [  # one leading out of the APP is not copied: nor counted
            p / "samples"
            for p in _entries(pipelines)
            if (p / "samples").is_dir() and inside(p / "samples", root)
        ]
        _check_size(samples)
        self.folder.mkdir(parents=True)
        for entry in _entries(root):
            if entry.name != "pipelines":
                (self.folder / entry.name).symlink_to(entry)
        for pipeline in _entries(pipelines):
            mine = self.folder / "pipelines" / pipeline.name
            if not (pipeline / "samples").is_dir():  # a linked pipeline's samples: copied too
                mine.parent.mkdir(parents=True, exist_ok=True)
                mine.symlink_to(pipeline)
                continue
            mine.mkdir(parents=True)
            for entry in _entries(pipeline):
                if entry.name == "samples":
                    if inside(entry, root):  # `samples -> ~/.ssh`: not copied, never read
                        shutil.copytree(entry, mine / "samples", symlinks=True, ignore=_out(root))
                else:
                    (mine / entry.name).symlink_to(entry)

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the file lets the lock go
            self._lock = None


def _why(exc: BaseException) -> str:
    """The first problem of a copy (``shutil.Error`` lists one per file)."""
    problems = exc.args[0] if isinstance(exc, shutil.Error) and exc.args else None
    if isinstance(problems, list) and problems and len(problems[0]) == 3:
        return str(problems[0][2])  # "`.../samples/fifo` is a named pipe"
    return str(exc)


def _out(root: Path) -> Callable[[str, list[str]], set[str]]:
    """copytree's ``ignore``: the entries of a samples folder that lead out of the APP
    (``input.json -> ~/secret.json``): a sample reads none of them."""

    def leading_out(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if not inside(os.path.join(folder, n), root)}

    return leading_out


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _check_size(folders: list[Path]) -> None:
    size = files = 0
    for folder in folders:
        for path in folder.rglob("*"):
            files += 1
            size += path.lstat().st_size
            if size > MAX_BYTES or files > MAX_FILES:
                raise OSError(
                    f"the samples/ folders hold more than {MAX_BYTES // 2**20} MB or "
                    f"{MAX_FILES} files: keep samples small"
                )


def private_home(copy: Path) -> Path:
    """The private HOME of the sample run in ``copy`` (``app-run test --sandbox``), made
    empty: beside the copies, one per pipeline, so an output naming a file in it names the
    same one each run."""
    home = copy.parent / ".homes" / copy.name
    remove_tree(home)
    home.mkdir(parents=True)
    return home
