"""SIGINT and SIGTERM while app-run runs a pipeline: raised in a step, held off in a destructor.

A run on another thread than the main one (a tool call of `app-run mcp`) gets no signals; a
``Stop`` stands in for them there: ``fire()`` acts on the run as SIGTERM would — a running
program's process group is killed (``process`` watches ``active_stop()``), the next step does
not start, and the destructor still runs, not cut short (it is held off while ``hold`` is set,
as signals are).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from skill2app.runtime.errors import Interrupted, SignalReceived


class Stop:
    """A request to stop one run on a worker thread, from any thread (see the module doc)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        self.signum = signum
        self.fired = False
        self.hold = False  # set while a destructor runs (or a session is written): not now
        self.pending = False  # fired while held: the run was told to stop
        self._read, self._write = os.pipe()  # readable once fired: a wait on a program sees it

    def fire(self) -> None:
        if self.fired:
            return
        self.fired = True
        self.pending = self.hold
        if self._write >= 0:
            with contextlib.suppress(OSError):
                os.write(self._write, b"x")

    def fileno(self) -> int:
        return self._read

    def check(self) -> None:
        """Raise SignalReceived when fired (and not held): where a run can stop cleanly."""
        if self.fired and not self.hold:
            raise SignalReceived(self.signum)

    def close(self) -> None:
        """Once the run is over (a closed Stop may still be fired: it then does nothing)."""
        for fd in (self._read, self._write):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._read = self._write = -1


_STOP: ContextVar[Stop | None] = ContextVar("app_run_stop", default=None)


@contextmanager
def stoppable(stop: Stop) -> Iterator[Stop]:
    """Runs inside this block (on this thread) stop when ``stop`` fires."""
    token = _STOP.set(stop)
    try:
        yield stop
    finally:
        _STOP.reset(token)


def active_stop() -> Stop | None:
    """The Stop of the run on this thread, unless it is held off right now."""
    stop = _STOP.get()
    return stop if stop is not None and not stop.hold else None


class _Signals:
    """SIGINT/SIGTERM raise SignalReceived; once ``hold`` is set they are noted, not raised.
    Off the main thread, the run's Stop (if any) is held and noted the same way."""

    def __init__(self, stop: Stop | None = None) -> None:
        self._hold = False
        self._pending: int | None = None
        self.stop = stop

    @property
    def hold(self) -> bool:
        return self._hold

    @hold.setter
    def hold(self, value: bool) -> None:
        self._hold = value
        if self.stop is not None:
            self.stop.hold = value

    @property
    def pending(self) -> int | None:
        if self._pending is None and self.stop is not None and self.stop.pending:
            return self.stop.signum
        return self._pending

    def handler(self, signum: int, frame: object) -> None:
        if self._hold:
            self._pending = signum
            return
        raise SignalReceived(signum)


@contextmanager
def interrupts() -> Iterator[_Signals]:
    """SIGINT/SIGTERM (on the main thread) and the run's Stop (if any) raise SignalReceived
    inside, until ``hold`` is set; a nested block is not held, as a new handler would not be,
    and the Stop's hold is as before afterwards."""
    stop = _STOP.get()
    held = stop.hold if stop is not None else False
    if stop is not None:
        stop.hold = False
    signals = _Signals(stop)
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.signal(s, signals.handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield signals
    except SignalReceived as stopped:  # between phases: no step to fail, nothing more to run
        raise Interrupted(stopped.signum) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if stop is not None:
            stop.hold = held


class Held:
    """SIGINT/SIGTERM noted, not acted on, from a run's first record line until ``advance``
    takes over (``release``): a signal in between must not leave a record without its end,
    nor a work folder behind.  Outside the main thread it does nothing."""

    def __init__(self) -> None:
        self.signals = _Signals()
        self.signals.hold = True
        self.previous: dict[int, object] = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self.signals.handler)

    @property
    def pending(self) -> int | None:
        return self.signals.pending

    def release(self) -> None:
        """Put back the handlers found (once)."""
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        self.previous = {}
