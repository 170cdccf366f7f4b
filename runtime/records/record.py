"""Run records: one JSONL file per run under ``<APP_RUN_HOME>/runs/``.

Each line is an event: ``run_start``, ``phase_start``/``phase_end`` (constructor, business,
destructor), ``step_start``, ``step_retry``, ``step_end`` (duration, retries, token usage,
error) and ``run_end``.  Input values whose key looks like a secret are redacted; outputs and
the environment are never recorded.

A record that cannot be written never stops a run once it has started (the destructor must
still run): the first write error is kept in ``Recorder.failure`` and the record ends there.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skill2app.runtime.errors import ConfigError, UsageError
from skill2app.runtime.records.display import retries_text

# "auth" as in auth_header, oauth_token — not author or authority.
SECRET_KEY = re.compile(r"key|token|secret|passw|credential|auth(?!or)", re.IGNORECASE)


def new_run_id(pipeline: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{pipeline.strip('_')}-{os.urandom(3).hex()}"


def redact(values: dict[str, Any]) -> dict[str, Any]:
    return {k: ("***" if SECRET_KEY.search(k) else v) for k, v in values.items()}


def scrub(text: str, hidden: set[str]) -> str:
    """``text`` with every hidden value replaced by ``***``."""
    for value in sorted(hidden, key=len, reverse=True):  # a secret holding another goes whole
        text = text.replace(value, "***")
    return text


def secret_values(values: Any) -> set[str]:
    """The string values of secret-looking keys, long enough not to blank out common words."""
    return {
        str(v) for k, v in values.items() if SECRET_KEY.search(str(k)) and len(str(v or "")) >= 8
    }


@dataclass
class Recorder:
    """Appends events to the run's JSONL file and hands each to ``listener`` (progress)."""

    path: Path | None
    listener: Callable[[dict[str, Any]], None] | None = None
    failure: str | None = None  # why the record stopped being written (and at which event)
    # Values never written, wherever they turn up (a step's stderr, an error message): those of
    # secret-looking environment variables, and of secret-looking inputs (``hide``).
    hidden: set[str] = field(default_factory=lambda: secret_values(os.environ))

    def hide(self, values: dict[str, Any]) -> None:
        self.hidden |= secret_values(values)

    def __call__(self, event: dict[str, Any]) -> None:
        event = {"time": round(time.time(), 3), **event}
        if self.path is not None and self.failure is None:
            line = json.dumps(event, ensure_ascii=False, default=str)
            escaped = {json.dumps(value, ensure_ascii=False)[1:-1] for value in self.hidden}
            line = scrub(line, escaped)  # as the values appear inside JSON strings
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
            except OSError as exc:
                self.failure = f"{exc.strerror or exc} (writing {_what(event)})"
        if self.listener is not None:
            self.listener(event)

    def first(self, event: dict[str, Any]) -> None:
        """Write a run's first event; nothing has run yet, so a record that cannot be written
        at all stops the run here."""
        self(event)
        if self.failure is not None:
            raise ConfigError(
                f"cannot write the run record {self.path}: {self.failure}",
                hint="make APP_RUN_HOME a writable folder with free space, or point it elsewhere",
            )


def _what(event: dict[str, Any]) -> str:
    """The event being written, for the error: e.g. ``step_start of hello/first``."""
    where = "/".join(str(event[k]) for k in ("pipeline", "step") if event.get(k))
    return f"{event.get('event')} of {where}" if event.get("step") else str(event.get("event"))


def runs_dir(home: Path) -> Path:
    return home / "runs"


def find_run(home: Path, run: str | None) -> Path:
    """A run record by id, id prefix or path; the newest when ``run`` is None."""
    if run and Path(run).is_file():
        return Path(run)
    records = sorted(runs_dir(home).glob("*.jsonl"))
    if not records:
        raise UsageError(f"no run records in {runs_dir(home)}", hint="run a pipeline first")
    if run is None:
        return max(records, key=lambda p: p.stat().st_mtime)
    matches = [p for p in records if p.stem.startswith(run)]
    if len(matches) != 1:
        what = "no run" if not matches else f"{len(matches)} runs"
        raise UsageError(f"{what} matching {run!r}", hint="see the ids with `app-run log --list`")
    return matches[0]


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
