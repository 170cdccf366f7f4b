"""A paused run kept as a session file (host delegation, see ``delegation``).

``<APP_RUN_HOME>/sessions/<id>.json``: written atomically, mode 0600 (it holds the inputs);
its shape is checked here, in one place, for every command: a file that fails is `corrupt`
(listed as such, refused by resume/abandon), never a crash. ``<id>.lock`` is held by the one
app-run acting on the session. ``host_commands`` are the commands that carry it on.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import os
import re
import shlex
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skill2app.runtime.app.bounds import real
from skill2app.runtime.errors import ConfigError, UsageError
from skill2app.runtime.jsonfile import lock, write_json
from skill2app.runtime.records.display import abbreviated

VERSION = 1
PHASES = ("constructor", "business", "destructor")
# paused: waits for an answer; running: an answer was taken and a resume is carrying the run
# on (a resume killed then left it so: `resume` again goes on from its last finished step)
OPEN = ("paused", "running")
# A session's name is its run id (``20250101T120000-<pipeline>-<hex>``); its files add
# ``.json`` and ``.lock``, and a file name holds at most 255 bytes.
MAX_NAME = 200
_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")


class Corrupt(ValueError):
    """A session file that is not what app-run writes (the message says what is wrong)."""


def sessions_dir(home: Path) -> Path:
    return home / "sessions"


def session_path(home: Path, session: str) -> Path:
    return sessions_dir(home) / f"{session}.json"


def write(path: Path, data: dict[str, Any]) -> None:
    """Save a session, bound to its APP (``binding``)."""
    data["binding"] = binding(path.parent, data)
    write_json(path, data, mode=0o600)  # a session holds the run's inputs


def binding(folder: Path, data: dict[str, Any]) -> str:
    """What ties a session to the APP it was started with: a keyed hash (the key is private to
    this APP_RUN_HOME) of its id, pipeline and the APP folder's real path and identity (device,
    inode).  A session edited to name another APP, or whose APP folder was replaced by another
    at the same path, no longer matches."""
    root = Path(str(data.get("app", "")))
    try:
        found = real(root)  # a link loop: an OSError here, not a RuntimeError
        st = found.stat()
        identity = [str(found), st.st_dev, st.st_ino]
    except OSError:
        identity = [str(root), None, None]
    message = json.dumps([data.get("session"), data.get("pipeline"), *identity])
    return hmac.new(_key(folder), message.encode(), hashlib.sha256).hexdigest()


def is_bound(folder: Path, data: dict[str, Any]) -> bool:
    saved = data.get("binding")
    try:
        return isinstance(saved, str) and hmac.compare_digest(saved, binding(folder, data))
    except OSError:  # the key cannot be read (or made): nothing can be vouched for
        return False


def _key(folder: Path) -> bytes:
    """The key binding sessions: ``<APP_RUN_HOME>/session.key``, private, made on first use."""
    path = folder.parent / "session.key"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        folder.mkdir(parents=True, exist_ok=True)
        key = os.urandom(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_bytes()
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        return key


def close(path: Path, data: dict[str, Any]) -> None:
    """Mark a session ended; one that cannot be marked is removed: it must not run again."""
    try:
        write(path, {**data, "updated": time.time()})
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink()


def parse(path: Path) -> dict[str, Any]:
    """A session file's content once its shape is checked (Corrupt if not it)."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise Corrupt(f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise Corrupt(f"not UTF-8 text (byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:
        raise Corrupt(f"not JSON ({type(exc).__name__})") from None
    problem = _shape_problem(data, path.stem)
    if problem:
        raise Corrupt(problem)
    return data


_TYPES = {"session": str, "status": str, "app": str, "pipeline": str, "inputs": dict}


def _shape_problem(data: Any, name: str) -> str | None:
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("version", VERSION) != VERSION:
        return f"version {data['version']!r}, not {VERSION}"
    for key, kind in _TYPES.items():
        if not isinstance(data.get(key), kind):
            return f"{key!r} is not a {kind.__name__}"
    if data["session"] != name:
        return f"'session' is {data['session']!r}, not its file's name"
    updated = data.get("updated")
    if isinstance(updated, bool) or not isinstance(updated, int | float):
        return "'updated' is not a time"
    if not math.isfinite(updated):
        return "'updated' is not a time"
    if any(not isinstance(data.get(k), str | None) for k in ("work_dir", "caller_cwd")):
        return "'work_dir' or 'caller_cwd' is not a path"
    pause = data.get("pause")
    if not isinstance(pause, dict | None):
        return "'pause' is not an object"
    if data["status"] in OPEN and not isinstance((pause or {}).get("step"), str):
        return "'pause' does not name the step waited on"
    return _position_problem(data.get("position"))


def _position_problem(position: Any) -> str | None:
    if not isinstance(position, dict) or position.get("phase") not in PHASES:
        return "'position' has no phase (constructor or business)"
    step = position.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        return "'position' has no step number"
    if not isinstance(position.get("outputs"), dict):
        return "'position' has no step outputs"
    attempts = position.get("attempts")
    if not isinstance(attempts, list) or not all(
        isinstance(a, list) and all(isinstance(e, str) for e in a) for a in attempts
    ):
        return "'position' has no list of attempts"
    return None


def well_named(session: str) -> bool:
    """Whether ``session`` could be a session's name: nothing else is looked for on disk (an
    over-long name, a path, a NUL byte would make the file system raise, not say "no")."""
    return len(session) <= MAX_NAME and _NAME.fullmatch(session) is not None


def existing(home: Path, session: str) -> Path:
    """The file of an existing session (UsageError if there is none)."""
    path = session_path(home, session) if well_named(session) else None
    if path is None or not path.is_file():
        raise UsageError(
            f"no session {abbreviated(session)!r}",
            hint="see open sessions with `app-run sessions`",
        )
    return path


def load(home: Path, session: str) -> dict[str, Any]:
    """A paused session's content; read it while holding its lock (``locked``)."""
    path = existing(home, session)
    try:
        data = parse(path)
    except FileNotFoundError:
        existing(home, session)  # removed since: "no session"
        raise
    except Corrupt as exc:
        raise UsageError(
            f"session {session!r} is corrupt: {exc}",
            hint=f"remove {path}, or all such with `app-run sessions --clean` (its destructor "
            "cannot be run safely)",
        ) from None
    if data["status"] not in OPEN:
        raise UsageError(
            f"session {session!r} already ended ({data['status']})",
            hint="start a new run with `app-run run`",
        )
    return data


def refuse_unbound(home: Path, data: dict[str, Any], command: str) -> None:
    """UsageError unless the session is bound to the APP it names (see ``binding``)."""
    if is_bound(sessions_dir(home), data) or not Path(data["app"]).exists():
        return  # (an APP that is gone is said when loading it: nothing of it can run)
    raise UsageError(
        f"session {data['session']!r} names an APP it was not started with ({data['app']}): "
        "edited by hand, or the APP folder was replaced",
        hint=f"nothing was run; end it with `{command}`",
    )


@contextlib.contextmanager
def locked(home: Path, session: str) -> Iterator[None]:
    """Hold ``session`` for this app-run (UsageError if another one holds it)."""
    with held(home, session) as mine:
        if not mine:
            raise UsageError(
                f"session {session!r} is in use by another app-run (resume or abandon)",
                hint="wait for it to finish, then see `app-run sessions`",
            )
        yield


@contextlib.contextmanager
def held(home: Path, session: str) -> Iterator[bool]:
    """Try to hold ``session``: True if this app-run does, False if another one does."""
    stack = contextlib.ExitStack()
    try:
        mine = stack.enter_context(lock(sessions_dir(home) / f"{session}.lock"))
    except OSError as exc:
        raise ConfigError(
            f"cannot lock session {session!r}: {exc.strerror or exc}",
            hint="make APP_RUN_HOME a writable folder",
        ) from None
    with stack:
        yield mine


# --- listing ---------------------------------------------------------------------------------


def list_sessions(home: Path) -> list[dict[str, Any]]:
    now = time.time()
    rows = (row_of(path, now) for path in session_files(home))
    return [row for row in rows if row is not None]


def session_files(home: Path) -> list[Path]:
    folder = sessions_dir(home)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.json") if not p.name.startswith(".") and p.is_file())


def row_of(path: Path, now: float) -> dict[str, Any] | None:
    """One line of `sessions` (None: the session was removed meanwhile)."""
    try:
        data = parse(path)
    except FileNotFoundError:
        return None
    except Corrupt as exc:
        return {"session": path.stem, "status": "corrupt", "reason": str(exc)}
    return {
        "session": path.stem,
        "status": data["status"],
        "app": data["app"],
        "pipeline": data["pipeline"],
        "step": (data.get("pause") or {}).get("step"),
        "age_hours": round((now - data["updated"]) / 3600, 2),
    }


# --- the commands to paste ----------------------------------------------------------------


def host_commands(session: str, home: Path | None) -> dict[str, str]:
    """`resume` and `abandon` for ``session`` as they work pasted: this app-run, this
    APP_RUN_HOME, every word shell-quoted; `resume` reads the answer on stdin."""
    prefix = ""
    if home is not None and os.environ.get("APP_RUN_HOME"):  # the host's shell may not have it
        prefix = f"APP_RUN_HOME={shlex.quote(str(home.absolute()))} "
    program = _program()
    return {
        "resume": prefix + shlex.join([program, "resume", session, "--answer", "-"]),
        "abandon": prefix + shlex.join([program, "abandon", session]),
    }


def _program() -> str:
    """`app-run` when that is the app-run running on PATH, else this one's full path."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is None or argv0.name != "app-run":
        return "app-run"  # not started as the app-run script (in-process, python -c)
    found = shutil.which("app-run")
    if found and Path(found).resolve() == argv0.resolve():
        return "app-run"
    return str(argv0.absolute())


def pasteable(words: list[str], home: Path | None) -> str:
    """`app-run WORDS...` as it works pasted, like ``host_commands``: this app-run, this
    APP_RUN_HOME, every word shell-quoted."""
    prefix = ""
    if home is not None and os.environ.get("APP_RUN_HOME"):
        prefix = f"APP_RUN_HOME={shlex.quote(str(home.absolute()))} "
    return prefix + shlex.join([_program(), *words])
