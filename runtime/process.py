"""Running a step's program: argv without a shell, JSON on stdin, its own process group.

Each program starts in a new session, so a timeout or an interrupt of app-run kills the whole
group (the program and anything it started): SIGTERM first, SIGKILL after a grace period.
"""

from __future__ import annotations

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
    except FileNotFoundError:
        raise SubprocessError(
            f"program {argv[0]!r} not found",
            step=step,
            command=command,
            hint="install it, put it on PATH, or fix the command",
        ) from None
    except PermissionError:
        raise SubprocessError(
            f"{argv[0]!r} is not executable",
            step=step,
            command=command,
            hint=f"chmod +x {argv[0]} or run it through its interpreter",
        ) from None
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
