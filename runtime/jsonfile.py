"""JSON (and text) files app-run writes (sessions, fixtures): atomically, so a crash never
leaves half a file, and with the permissions asked for; and ``lock``, so that one process at a
time acts on one (a session being resumed)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def write_json(path: Path, value: Any, *, mode: int | None = None, sort_keys: bool = False) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=sort_keys) + "\n"
    write_text(path, text, mode=mode)


def write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """``text`` into ``path`` atomically (a temporary file renamed over it), with ``mode``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def lock(path: Path) -> Iterator[bool]:
    """Hold the lock file ``path`` (made if missing) for the ``with`` block: yields True, or
    False at once when another process holds it.  A holder removes the file as it lets go;
    whoever opened the file just before finds it gone and takes the new one instead."""
    fd = _acquire(path)
    try:
        yield fd is not None
    finally:
        if fd is not None:
            with contextlib.suppress(OSError):
                path.unlink()  # still held: no one can take this file in between
            os.close(fd)


def _acquire(path: Path) -> int | None:
    for _ in range(20):  # a lock changing hands that often in a row is as good as held
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd
        except (BlockingIOError, FileNotFoundError) as exc:
            os.close(fd)
            if isinstance(exc, BlockingIOError):
                return None
            continue  # removed by the holder before us: open the new one
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced by a new file after its holder let go: take that one
    return None
