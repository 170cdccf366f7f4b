"""SIGINT and SIGTERM while app-run runs a pipeline: raised in a step, held off in a destructor."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from skill2app.runtime.errors import Interrupted, SignalReceived


class _Signals:
    """SIGINT/SIGTERM raise SignalReceived; once ``hold`` is set they are noted, not raised."""

    def __init__(self) -> None:
        self.hold = False
        self.pending: int | None = None

    def handler(self, signum: int, frame: object) -> None:
        if self.hold:
            self.pending = signum
            return
        raise SignalReceived(signum)


@contextmanager
def interrupts() -> Iterator[_Signals]:
    signals = _Signals()
    if threading.current_thread() is not threading.main_thread():
        yield signals
        return
    previous = {s: signal.signal(s, signals.handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield signals
    except SignalReceived as stop:  # between phases: no step to fail, nothing more to run
        raise Interrupted(stop.signum) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
