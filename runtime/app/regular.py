"""A skill's or an APP's own file read within bounds: a regular file only, never past a limit.

A skill is untrusted input, and so is an APP: its README.md or SKILL.md may be a named pipe
(opening it for reading waits for a writer that never comes), a link to ``/dev/zero`` (reading
never ends) or gigabytes without a newline.  ``read_regular`` looks at what the file is
before it opens it, opens it without waiting, looks again at what it opened (a file swapped
for a pipe in between is still refused), and reads at most ``limit + 1`` bytes: more than
``limit`` means the file is over it.  ``head_lines`` reads a file's first lines the same way.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

HEAD_BYTES = 65_536  # the first lines of a file, as ``head_lines`` reads them: no more


class NotRegular(OSError):
    """``path`` is a named pipe, a device, a socket or a folder: never read."""

    def __init__(self, path: Path | str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a file whose ``st_mode`` is ``mode`` is, in words (``a named pipe``)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def read_regular(path: Path | str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``path`` (its links followed), a regular file;
    ``NotRegular`` when it is not one, an ``OSError`` when it cannot be read."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegular(path, kind_of(mode))  # never opened: a pipe would wait, /dev/zero
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped since the look above
            raise NotRegular(path, kind_of(mode))
        return handle.read(limit + 1)


def head_lines(path: Path | str, lines: int, limit: int = HEAD_BYTES) -> list[str]:
    """The first ``lines`` lines of the regular file ``path`` (within its first ``limit``
    bytes; invalid UTF-8 replaced); raises what ``read_regular`` raises."""
    text = read_regular(path, limit)[:limit].decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:lines]
