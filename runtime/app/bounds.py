"""Whether a path stays inside a folder once its links are followed.

The one test app-run applies wherever an APP names a file: references in pipeline.yaml,
schema ``$ref``s, the programs an agent is shown, the fixtures ``app-run test --update``
writes. A name that leads out of the APP through a symlink (``samples -> /etc``) is outside,
as is one through ``..``; a link loop is resolved as far as it goes, never raised.
"""

from __future__ import annotations

import os
from pathlib import Path


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether ``path``, its links followed, is ``root`` or lies under it."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def real(path: Path | str) -> Path:
    """Where ``path`` really is, its links followed as far as they go (``Path.resolve``
    raises on a link loop)."""
    return Path(os.path.realpath(path))


def relative(path: Path | str, root: Path | str) -> str:
    """``path`` (inside ``root``: see ``inside``) as ``root``'s own relative path."""
    return os.path.relpath(os.path.realpath(path), os.path.realpath(root))
