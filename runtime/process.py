"""Running a step's program: argv without a shell, JSON on stdin, its own process group.

Each program starts in a new session, so a timeout or an interrupt of app-run kills the whole
group (the program and anything it started): SIGTERM first, SIGKILL after a grace period.
"""

from __future__ import annotations

import errno
import os
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import StepTimeout, SubprocessError

GRACE_SECONDS = 2.0
TAIL_CHARS = 2000


@dataclass(frozen=True)
class Completed:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def split_command(command: str, step: str = "") -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise SubprocessError(
            f"command cannot be split: {exc}", step=step, command=command
        ) from None
    if not argv:
        raise SubprocessError("command is empty", step=step, command=command)
    return argv


def run_program(
    argv: list[str],
    *,
    stdin: str,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    step: str = "",
) -> Completed:
    """Run to completion; raise StepTimeout past ``timeout`` seconds (group killed).

    Any exception while waiting (an interrupt of app-run included) kills the group first.
    """
    command = shlex.join(argv)
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
    except OSError as exc:
        raise cannot_start(exc, argv, cwd, step) from None
    try:
        stdout, stderr = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        _, stderr = _drain(proc)
        raise StepTimeout(
            f"timed out after {timeout:g}s",
            step=step,
            command=command,
            returncode=proc.returncode,
            stderr_tail=tail(stderr),
            hint="raise the step's timeout: or make the program faster",
        ) from None
    except BaseException:
        kill_group(proc)
        raise
    return Completed(proc.returncode, stdout, stderr, time.monotonic() - started)


def cannot_start(exc: OSError, argv: list[str], cwd: Path, step: str) -> SubprocessError:
    """Why a program did not start: it, its #! interpreter or its working directory is missing,
    it is not executable, or it is no program at all."""
    program = argv[0]
    what, hint = f"cannot run {program!r}: {exc.strerror}", "fix the command"
    if isinstance(exc, FileNotFoundError) and not cwd.is_dir():
        what = f"its working directory {cwd} is gone"
        hint = "did a step delete it? restore the folder (steps must not remove their own)"
    elif isinstance(exc, FileNotFoundError) and "/" in program and (cwd / program).is_file():
        what = f"{program!r} names an interpreter that does not exist: {_shebang(cwd / program)}"
        hint = f"fix the #! line of {program} or install its interpreter"
    elif isinstance(exc, FileNotFoundError):
        what = f"program {program!r} not found"
        hint = "install it, put it on PATH, or fix the command"
    elif isinstance(exc, PermissionError):
        what = f"{program!r} is not executable"
        hint = f"chmod +x {program} or run it through its interpreter"
    elif exc.errno == errno.ENOEXEC:
        hint = f"start {program} with a #! line, or run it through its interpreter"
    return SubprocessError(what, step=step, command=shlex.join(argv), hint=hint)


def _shebang(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            line = fh.readline(200).decode("utf-8", "replace").strip()
    except OSError:
        return "(unreadable)"
    return line if line.startswith("#!") else "(no #! line)"


def kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the program's process group, then SIGKILL whatever is left after a grace."""
    for sig, wait in ((signal.SIGTERM, GRACE_SECONDS), (signal.SIGKILL, GRACE_SECONDS)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=wait)
            if sig == signal.SIGTERM:
                # The leader is gone; make sure nothing it started survives.
                os.killpg(proc.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue
        except (ProcessLookupError, PermissionError):
            return


def _drain(proc: subprocess.Popen) -> tuple[str, str]:
    try:
        out, err = proc.communicate(timeout=GRACE_SECONDS)
    except (subprocess.TimeoutExpired, ValueError):
        return "", ""
    return out or "", err or ""


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else "…" + text[-limit:]


def failure(completed: Completed, argv: list[str], step: str, what: str) -> SubprocessError:
    """The error for a program that exited non-zero or was killed by a signal."""
    code = completed.returncode
    if code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exited with {code}"
    return SubprocessError(
        f"{what} {how}",
        step=step,
        command=shlex.join(argv),
        returncode=code,
        stderr_tail=tail(completed.stderr),
    )
