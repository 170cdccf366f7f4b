"""The files of app-convert's host sessions: one JSON file per session, written atomically
(mode 0600), locked while one app-convert acts on it, bound to the skill's files by a
fingerprint, listed and cleaned like app-run's sessions.

    <APP_RUN_HOME>/convert-sessions/<id>.json
    <APP_RUN_HOME>/convert-sessions/<id>.prompt.md   the whole analyst prompt, read again on retries
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skill2app.converter.errors import UsageError
from skill2app.runtime.jsonfile import lock, write_json, write_text

VERSION = 1
FOLDER = "convert-sessions"
SKIPPED = {".git", "node_modules", "__pycache__", ".venv", "pipelines", ".app-convert-backup"}
MAX_FILES = 20_000
MAX_ID = 200  # bytes of a session id: ids made are under 160; a file name holds 255


def sessions_dir(home: Path) -> Path:
    return home / FOLDER


def path_of(home: Path, session: str) -> Path:
    """The file of ``session``; an id app-convert cannot have made (a path, too long for a
    file name, a control character) is no conversion session, said before any file is
    looked at."""
    if not is_session_id(session):
        shown = session if len(session) <= 64 else session[:64] + "…"
        raise UsageError(f"no conversion session {shown!r}", hint="see app-convert sessions")
    return sessions_dir(home) / f"{session}.json"


def is_session_id(session: str) -> bool:
    """Whether ``session`` could be an id app-convert made (``host.start``: a time, the
    skill's name cut to 32 characters, 6 hex digits), as one file name."""
    return (
        0 < len(session.encode("utf-8", "surrogatepass")) <= MAX_ID
        and session.isprintable()
        and not session.startswith(".")
        and "/" not in session
        and "\\" not in session
    )


def write(home: Path, data: dict[str, Any]) -> None:
    write_json(path_of(home, data["session"]), data, mode=0o600)


def prompt_path(home: Path, session: str) -> Path:
    """Where ``session``'s first analyst prompt is kept, for a host to read again."""
    return path_of(home, session).with_suffix(".prompt.md")


def keep_prompt(home: Path, session: str, prompt: str) -> Path:
    """Save ``session``'s whole analyst prompt (0600, beside the session) and say where."""
    path = prompt_path(home, session)
    write_text(path, prompt, mode=0o600)
    return path


def load(home: Path, session: str) -> dict[str, Any]:
    path = path_of(home, session)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            f"no conversion session {session!r}", hint="see app-convert sessions"
        ) from None
    except (OSError, ValueError, RecursionError) as exc:
        raise UsageError(
            f"conversion session {session} cannot be read ({type(exc).__name__})",
            hint=f"remove {path} and start again",
        ) from None
    if not _valid(data, session):
        raise UsageError(
            f"conversion session {session} is not one app-convert wrote",
            hint=f"remove {path} and start again",
        )
    return data


def _valid(data: Any, session: str) -> bool:
    shapes = {"session": str, "status": str, "skill": str, "fingerprint": str,
              "options": dict, "attempt": int, "max_attempts": int, "problems": list,
              "draft": str}  # fmt: skip
    # a session paused for the review holds these too
    review = {"stage": str, "reviewed": bool, "verified": str, "review": list,
              "review_prompt": str, "misrouted": list}  # fmt: skip
    return (
        isinstance(data, dict)
        and data.get("version") == VERSION
        and all(isinstance(data.get(k), t) for k, t in shapes.items())
        and all(k not in data or isinstance(data[k], t) for k, t in review.items())
        and data["session"] == session
        and (data.get("stage") != "review" or _verified(data))
    )


def _verified(data: dict[str, Any]) -> bool:
    """Whether a session paused for the review holds the plan it verified, and its table."""
    try:
        plan = json.loads(str(data.get("verified")))
    except (ValueError, RecursionError):
        return False
    return isinstance(plan, dict) and isinstance(data.get("review_prompt"), str)


@contextlib.contextmanager
def held(home: Path, session: str) -> Iterator[dict[str, Any]]:
    """The session's data while this process alone acts on it."""
    path = path_of(home, session)
    if not path.is_file():
        raise UsageError(f"no conversion session {session!r}", hint="see app-convert sessions")
    with lock(path.with_suffix(".lock")) as mine:
        if not mine:
            raise UsageError(
                f"conversion session {session} is in use by another app-convert",
                hint="wait for it to finish",
            )
        yield load(home, session)


def list_sessions(home: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(sessions_dir(home).glob("*.json")):
        try:
            data = load(home, path.stem)
        except UsageError:
            rows.append({"session": path.stem, "status": "corrupt"})
            continue
        keys = ("session", "status", "skill", "attempt", "max_attempts", "updated")
        rows.append({k: data.get(k) for k in keys})
    return rows


def clean(home: Path, older_than_hours: float = 24.0) -> list[str]:
    """Remove ended and corrupt sessions, and paused ones older than ``older_than_hours``."""
    removed = []
    now = time.time()
    for row in list_sessions(home):
        stale = row["status"] == "paused" and now - (row.get("updated") or 0) > (
            older_than_hours * 3600
        )
        if row["status"] == "paused" and not stale:
            continue
        path = path_of(home, row["session"])
        with lock(path.with_suffix(".lock")) as mine:
            if mine:
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(row["session"])
    for kept in sessions_dir(home).glob("*.prompt.md"):  # its session gone: the prompt too
        if not kept.with_name(kept.name.removesuffix(".prompt.md") + ".json").exists():
            with contextlib.suppress(OSError):
                kept.unlink()
    return removed


def fingerprint(skill: Path) -> str:
    """A hash of the skill's files as they are (paths, sizes, modification times), without
    what conversions add (pipelines/, backups) or tools keep (.git, node_modules)."""
    digest = hashlib.sha256()
    count = 0
    for folder, dirs, files in os.walk(skill):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in sorted(files):
            path = Path(folder) / name
            with contextlib.suppress(OSError):
                stat = path.lstat()
                rel = path.relative_to(skill).as_posix()
                digest.update(f"{rel}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
            count += 1
            if count > MAX_FILES:
                return digest.hexdigest() + "+"
    return digest.hexdigest()
