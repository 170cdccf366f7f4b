"""Running a step's program: argv without a shell, JSON on stdin, its own process group.

Each program starts in a new session, so a timeout or an interrupt of app-run kills the whole
group (the program and anything it started): SIGTERM first, SIGKILL after a grace period.  A run
on a worker thread (``app-run mcp``) is interrupted by its ``Stop`` instead of a signal: the wait
watches it too (Linux; elsewhere a program runs to its end or its timeout).
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import selectors
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.errors import ConfigError, SignalReceived, StepTimeout, SubprocessError
from skill2app.runtime.run.interrupts import Stop, active_stop
from skill2app.runtime.run.sandbox import Sandbox

GRACE_SECONDS = 2.0
TAIL_CHARS = 2000
STDERR_KEEP = 64 * 1024  # only its tail is ever shown: a chatty step cannot fill app-run's memory
DEFAULT_MAX_OUTPUT_MB = 256  # APP_RUN_MAX_OUTPUT_MB: the most a step may print on stdout
AFTER_EXIT_SECONDS = 1.0  # how long the pipes are read once the program and its group are gone
NO_SECRETS = Scrubber()


def max_output_bytes() -> int:
    """APP_RUN_MAX_OUTPUT_MB in bytes (0: no limit); ConfigError when it is not a number."""
    raw = os.environ.get("APP_RUN_MAX_OUTPUT_MB", "").strip()
    try:
        megabytes = float(raw) if raw else DEFAULT_MAX_OUTPUT_MB
    except ValueError:
        megabytes = math.nan
    if not math.isfinite(megabytes) or megabytes < 0 or megabytes > 1_000_000:
        raise ConfigError(
            f"APP_RUN_MAX_OUTPUT_MB={raw!r} is not a number of megabytes",
            hint="set a number from 0 (no limit) to 1000000, e.g. 256, or unset it",
        )
    return int(megabytes * 1_000_000)


class OutputTooLarge(Exception):
    """Raised inside Exchange when stdout passes the limit; run_program turns it into an error."""


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
    sandbox: Sandbox | None = None,
    max_output: int | None = None,
    scrubber: Scrubber = NO_SECRETS,
) -> Completed:
    """Run to completion; raise StepTimeout past ``timeout`` seconds (group killed).

    Any exception while waiting (an interrupt of app-run included) kills the group first; so
    does the program's end (nothing it started in its group outlives it).  With ``sandbox``
    the program runs inside it (see ``sandbox``).  ``max_output``: the most stdout may hold
    (default APP_RUN_MAX_OUTPUT_MB).  Error texts (stderr tails) go through ``scrubber``.
    """
    started = time.monotonic()
    if not math.isfinite(timeout) or timeout <= 0:
        raise SubprocessError(
            f"timeout {timeout!r} is not a number of seconds",
            step=step,
            command=shlex.join(argv),
            hint="set timeout: to a positive number of seconds",
        )
    run_argv = sandbox.wrap(argv, cwd) if sandbox is not None else argv
    stop = active_stop()
    if stop is not None:
        stop.check()  # told to stop: start nothing more
    try:
        proc = subprocess.Popen(
            run_argv,
            cwd=cwd,
            env=sandbox.env(env) if sandbox is not None else env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise cannot_start(exc, argv, cwd, step) from None
    limit = max_output_bytes() if max_output is None else max_output
    exchange = Exchange(proc, stdin.encode("utf-8", "surrogateescape"), limit, stop)
    try:
        exchange.run(started + timeout)
    except OutputTooLarge:
        kill_group(proc)
        raise SubprocessError(
            f"printed more than {exchange.limit / 1_000_000:g} MB on stdout: stopped",
            step=step,
            command=shlex.join(argv),
            stderr_tail=scrubber.tail(exchange.text(proc.stderr), TAIL_CHARS),
            hint="write big data to a file in $APP_WORK_DIR and output its path, "
            "or raise APP_RUN_MAX_OUTPUT_MB",
        ) from None
    except subprocess.TimeoutExpired:
        kill_group(proc)
        exchange.drain()
        raise StepTimeout(
            f"timed out after {timeout:g}s",
            step=step,
            command=shlex.join(argv),
            returncode=proc.returncode,
            stderr_tail=scrubber.tail(exchange.text(proc.stderr), TAIL_CHARS),
            hint="raise the step's timeout: or make the program faster",
        ) from None
    except BaseException:
        kill_group(proc)
        raise
    finally:
        exchange.close()
    return Completed(
        proc.returncode,
        exchange.text(proc.stdout),
        exchange.text(proc.stderr),
        time.monotonic() - started,
    )


class Exchange:
    """Feed a program its stdin and collect its stdout and stderr until it has ended.

    What ``Popen.communicate(timeout=...)`` does, without its wait for the exit, which polls in
    sleeps from 0.5 ms (about 1 ms per step): on Linux a pidfd is watched with the pipes, so
    the end is seen the moment it happens.  It also keeps only the last ``STDERR_KEEP`` bytes
    of stderr and stops a program whose stdout passes ``APP_RUN_MAX_OUTPUT_MB``.  Elsewhere
    (no pidfd), communicate() itself, without those two limits.
    """

    CHUNK = 1 << 20

    def __init__(
        self, proc: subprocess.Popen, data: bytes, limit: int, stop: Stop | None = None
    ) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.stdin, self.stdout, self.stderr = proc.stdin, proc.stdout, proc.stderr
        self.data = memoryview(data)
        self.chunks: dict[object, list[bytes]] = {self.stdout: [], self.stderr: []}
        self.sizes: dict[object, int] = {self.stdout: 0, self.stderr: 0}
        self.limit = limit
        self.selector = selectors.DefaultSelector()
        self.pidfd = _pidfd(proc.pid)
        self.stop = stop

    def run(self, deadline: float) -> None:
        """Until the program has exited and closed its outputs; TimeoutExpired at ``deadline``."""
        if self.pidfd is None:
            remaining = max(deadline - time.monotonic(), 0)
            self._keep(*self.proc.communicate(bytes(self.data), timeout=remaining))
            return
        for stream in (self.stdout, self.stderr):
            self.selector.register(stream, selectors.EVENT_READ)
        self.selector.register(self.pidfd, selectors.EVENT_READ)
        if self.stop is not None:
            self.selector.register(self.stop, selectors.EVENT_READ)
        if self.data:
            os.set_blocking(self.stdin.fileno(), False)
            self.selector.register(self.stdin, selectors.EVENT_WRITE)
        else:
            self.stdin.close()
        self._pump(deadline, until_exit=True)
        self._end_group()  # before the reaping: the group's id cannot be anyone else's yet
        self.proc.wait()  # it has ended: this only reaps it
        self._stop_feeding()
        # What its group left in the pipes; a process that left the group (setsid) and keeps
        # them open must not hold app-run: read for a moment, then go on without it.
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._pump(min(deadline, time.monotonic() + AFTER_EXIT_SECONDS))

    def _end_group(self) -> None:
        """The program has exited: whatever it left running in its process group is killed."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def _stop_feeding(self) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(self.stdin)
        with contextlib.suppress(OSError):
            self.stdin.close()

    def drain(self) -> None:
        """After a kill: what is left in the pipes, for a moment at most."""
        with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
            if self.pidfd is not None:
                self._stop_feeding()
                self._pump(time.monotonic() + 0.5)
            else:  # communicate() kept what it read before the timeout
                self._keep(*self.proc.communicate(timeout=0.5))

    def _keep(self, out: bytes | None, err: bytes | None) -> None:
        self.chunks = {self.stdout: [out or b""], self.stderr: [err or b""]}

    def _pump(self, deadline: float, until_exit: bool = False) -> None:
        """Feed and read until the pipes close (``until_exit``: until the program exits); the
        run's Stop (app-run mcp: a cancelled call) firing raises SignalReceived."""
        registered = self.selector.get_map()
        while len(registered) > self._watching_stop():  # the Stop alone: done
            if until_exit and not any(k.fileobj is self.pidfd for k in registered.values()):
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired(self.proc.args, 0)
            for key, _ in self.selector.select(remaining):
                if key.fileobj is self.pidfd:
                    self.selector.unregister(self.pidfd)
                elif key.fileobj is self.stop:
                    raise SignalReceived(self.stop.signum)
                elif key.fileobj is self.stdin:
                    self._feed()
                else:
                    chunk = os.read(key.fd, self.CHUNK)
                    if chunk:
                        self._keep_chunk(key.fileobj, chunk)
                    else:
                        self.selector.unregister(key.fileobj)

    def _watching_stop(self) -> int:
        registered = self.selector.get_map().values()
        return int(self.stop is not None and any(k.fileobj is self.stop for k in registered))

    def _keep_chunk(self, stream: object, chunk: bytes) -> None:
        chunks = self.chunks[stream]
        chunks.append(chunk)
        self.sizes[stream] += len(chunk)
        if stream is self.stderr and self.sizes[stream] > 2 * STDERR_KEEP:
            kept = b"".join(chunks)[-STDERR_KEEP:]
            self.chunks[stream], self.sizes[stream] = [kept], len(kept)
        elif stream is self.stdout and self.limit and self.sizes[stream] > self.limit:
            raise OutputTooLarge

    def _feed(self) -> None:
        try:
            written = os.write(self.stdin.fileno(), self.data[: self.CHUNK])
        except BlockingIOError:
            return
        except BrokenPipeError:  # it stopped reading: what it printed still counts
            written = len(self.data)
        self.data = self.data[written:]
        if not self.data:
            self.selector.unregister(self.stdin)
            self.stdin.close()

    def text(self, stream: object) -> str:
        return b"".join(self.chunks.get(stream, [])).decode("utf-8", "replace")

    def close(self) -> None:
        self.selector.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
        for stream in (self.stdin, self.stdout, self.stderr):
            with contextlib.suppress(OSError):
                stream.close()


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux ≥ 5.3
        return None


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


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else "…" + text[-limit:]


def failure(
    completed: Completed, argv: list[str], step: str, what: str, scrubber: Scrubber = NO_SECRETS
) -> SubprocessError:
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
        stderr_tail=scrubber.tail(completed.stderr, TAIL_CHARS),
    )
