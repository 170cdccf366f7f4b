"""Run records: one JSONL file per run under ``<APP_RUN_HOME>/runs/``.

Each line is an event: ``run_start``, ``phase_start``/``phase_end`` (constructor, business,
destructor), ``step_start``, ``step_retry``, ``step_end`` (duration, retries, token usage,
error) and ``run_end``.  Input values whose key looks like a secret are redacted (at any
depth); outputs and the environment are never recorded.  Every event is scrubbed of secret
values (``secrets.Scrubber``) *before* it is written or handed to the listener (progress on
stderr), so no printer sees what the record would not hold.

Bounds: a text value longer than ``MAX_VALUE_CHARS`` is recorded as its head and how much was
left out; a record stops growing at ``MAX_RECORD_BYTES`` (its ``run_end`` is still written);
records are private (0600, in a 0700 folder); and when a run starts, the oldest records go
so that at most ``KEEP_RUNS`` records and ``KEEP_MB`` megabytes remain.

A record that cannot be written never stops a run once it has started (the destructor must
still run): the first write error is kept in ``Recorder.failure`` and the record ends there.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.app.secrets import redact as redact
from skill2app.runtime.errors import ConfigError, UsageError
from skill2app.runtime.records.display import abbreviated, retries_text

MAX_VALUE_CHARS = 4000  # a longer text (an input, an error) is recorded as its head
MAX_RECORD_BYTES = 10_000_000  # a record stops growing here (run_end is still written)
KEEP_RUNS = 500  # records kept in runs/ (the oldest go first, when a run starts)
KEEP_MB = 200  # ... and megabytes kept there


def new_run_id(pipeline: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{pipeline.strip('_')}-{os.urandom(3).hex()}"


def bounded(value: Any, scrubber: Scrubber, depth: int = 0) -> Any:
    """``value`` scrubbed, every text in it cut to ``MAX_VALUE_CHARS`` (saying so)."""
    if isinstance(value, str):
        if len(value) <= MAX_VALUE_CHARS:
            return scrubber.text(value)
        left = len(value) - MAX_VALUE_CHARS
        return f"{scrubber.head(value, MAX_VALUE_CHARS)}… [{left} more characters not recorded]"
    if depth > 32:
        return "… [nested too deeply to record]"
    if isinstance(value, dict):
        return {str(k): bounded(v, scrubber, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [bounded(v, scrubber, depth + 1) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return bounded(str(value), scrubber, depth)


@dataclass
class Recorder:
    """Appends events to the run's JSONL file and hands each to ``listener`` (progress)."""

    path: Path | None
    listener: Callable[[dict[str, Any]], None] | None = None
    failure: str | None = None  # why the record stopped being written (and at which event)
    # Blanks, wherever they turn up (a step's stderr, an error message), the values of
    # secret-looking environment variables and inputs (``hide``), and credential-like text.
    scrubber: Scrubber = field(default_factory=Scrubber.from_env)
    written: int = 0  # bytes written so far
    cut: bool = False  # past MAX_RECORD_BYTES: only run_end is still written

    @property
    def hidden(self) -> set[str]:
        return self.scrubber.hidden

    def hide(self, values: dict[str, Any]) -> None:
        self.scrubber.hide(values)

    def __call__(self, event: dict[str, Any]) -> None:
        event = bounded({"time": round(time.time(), 3), **event}, self.scrubber)
        if self.path is not None and self.failure is None:
            self._write(event)
        if self.listener is not None:
            self.listener(event)

    def _write(self, event: dict[str, Any]) -> None:
        assert self.path is not None
        line = json.dumps(event, ensure_ascii=False, default=str) + "\n"
        if self.cut and event.get("event") != "run_end":
            return
        if self.written + len(line) > MAX_RECORD_BYTES and event.get("event") != "run_end":
            self.cut = True
            note = {"time": event["time"], "event": "record_cut", "bytes": self.written}
            line = json.dumps(note) + "\n"
        try:
            _private_folder(self.path.parent)
            with self.path.open("a", encoding="utf-8") as fh:
                _private_file(fh.fileno())
                fh.write(line)
            self.written += len(line)
        except OSError as exc:
            self.failure = f"{exc.strerror or exc} (writing {_what(event)})"

    def first(self, event: dict[str, Any]) -> None:
        """Write a run's first event; nothing has run yet, so a record that cannot be written
        at all stops the run here."""
        self(event)
        if self.failure is not None:
            raise ConfigError(
                f"cannot write the run record {self.path}: {self.failure}",
                hint="make APP_RUN_HOME a writable folder with free space, or point it elsewhere",
            )
        if self.path is not None:
            rotate(self.path.parent, keep=self.path)


def _private_folder(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)


def _private_file(fd: int) -> None:
    """A record holds the run's inputs: only its owner may read it (a device stays as it is)."""
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)


def rotate(folder: Path, keep: Path | None = None) -> list[Path]:
    """Remove the oldest records beyond ``KEEP_RUNS`` records or ``KEEP_MB`` megabytes."""
    try:
        entries = [(e.stat().st_mtime, e.stat().st_size, Path(e.path)) for e in os.scandir(folder)]
    except OSError:
        return []
    records = sorted((e for e in entries if e[2].suffix == ".jsonl"), reverse=True)
    removed, total = [], 0
    for count, (_, size, path) in enumerate(records, 1):
        total += size
        if path != keep and (count > KEEP_RUNS or total > KEEP_MB * 1_000_000):
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(path)
    return removed


def _what(event: dict[str, Any]) -> str:
    """The event being written, for the error: e.g. ``step_start of hello/first``."""
    where = "/".join(str(event[k]) for k in ("pipeline", "step") if event.get(k))
    return f"{event.get('event')} of {where}" if event.get("step") else str(event.get("event"))


def runs_dir(home: Path) -> Path:
    return home / "runs"


def find_run(home: Path, run: str | None) -> Path:
    """A run record by id, id prefix or path; the newest when ``run`` is None."""
    if run is not None and not _could_be_path(run):  # 5,000 characters: no run, no OSError
        raise UsageError(
            f"no run matching {abbreviated(run)!r}", hint="see the ids with `app-run log --list`"
        )
    if run and _is_file(Path(run)):
        return Path(run)
    records = sorted(runs_dir(home).glob("*.jsonl"))
    if not records:
        raise UsageError(f"no run records in {runs_dir(home)}", hint="run a pipeline first")
    if run is None:
        return max(records, key=lambda p: p.stat().st_mtime)
    matches = [p for p in records if p.stem.startswith(run)]
    if len(matches) != 1:
        what = "no run" if not matches else f"{len(matches)} runs"
        raise UsageError(
            f"{what} matching {abbreviated(run)!r}", hint="see the ids with `app-run log --list`"
        )
    return matches[0]


def _could_be_path(text: str) -> bool:
    """Whether the file system could take ``text`` as a path (no NUL byte, each name within
    255 bytes, 4,096 in all): what is not, no run is named by either."""
    names = text.encode("utf-8", "surrogatepass").split(b"/")
    return "\0" not in text and len(text) <= 4096 and all(len(n) <= 255 for n in names)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a folder on the way that cannot be searched
        return False


def read_events(path: Path) -> list[dict[str, Any]]:
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.strip():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a crash: keep the rest readable
    return events


def list_runs(home: Path, limit: int = 20) -> list[dict[str, Any]]:
    rows = []
    records = sorted(runs_dir(home).glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    for path in records[-limit:]:
        events = read_events(path)
        start = next((e for e in events if e.get("event") == "run_start"), {})
        end = next((e for e in events if e.get("event") == "run_end"), {})
        rows.append(
            {
                "run": path.stem,
                "pipeline": start.get("pipeline"),
                "app": start.get("app"),
                "status": end.get("status", "unfinished"),
            }
        )
    return rows


def describe_run(events: list[dict[str, Any]]) -> str:
    """A run record as readable lines: the run, each phase and step, the outcome."""
    lines = []
    for e in events:
        kind = e.get("event")
        if kind == "run_start":
            lines.append(
                f"run {e['run_id']}: {e['pipeline']} in {e['app']} (provider {e.get('provider')})"
            )
        elif kind == "phase_start":
            lines.append(f"  {e['phase']}: {e['pipeline']}")
        elif kind == "step_retry":
            lines.append(f"      retry after attempt {e['attempt']}: {'; '.join(e['errors'])}")
        elif kind == "step_end":
            usage = e.get("usage") or {}
            tokens = (
                f", {usage.get('input_tokens', 0)}+{usage.get('output_tokens', 0)} tokens"
                if usage
                else ""
            )
            lines.append(
                f"    {e['step']}: {e['status']} in {e['seconds']:.2f}s"
                f"{retries_text(e.get('retries') or 0)}{tokens}"
            )
            if e.get("error"):
                lines.append(f"      error: {e['error']['message']}")
        elif kind == "step_pause":
            lines.append(f"    {e['step']}: paused, waiting for the host agent's answer")
        elif kind == "step_answer":
            lines.append(f"    {e['step']}: answer received from the host agent")
        elif kind == "run_end":
            lines.append(f"  => {e['status']} (exit {e['exit_code']})")
    last = events[-1].get("event") if events else None
    if last == "step_pause":
        lines.append("  => paused (see `app-run sessions`)")
    elif not any(e.get("event") == "run_end" for e in events):
        lines.append("  => unfinished (app-run was killed or is still running)")
    return "\n".join(lines)
