"""Checked pipelines, remembered between runs, so an unchanged APP is not checked again.

`app-run run` checks the pipeline it runs and the lifecycle pipelines before anything runs.
Parsing pipeline.yaml with line numbers (ruamel.yaml) and validating it (jsonschema) costs more
than the rest of a code-only run, so the Pipeline models that passed are kept in
``<APP_RUN_HOME>/cache/checked/<hash of the APP path>.json`` and reused while the APP's
**fingerprint** is the same: app-run's version, the checker's own files, and every file and
folder in the APP (path, size, mtime, mode, inode; symlinks followed), except the folders in
``SKIPPED``.  Any change in the APP — an edited, added, removed or renamed file — checks again.

The routing table (`list`, `route`, `app-run APP "request"`) is kept in the same entry: it
needs every pipeline.yaml parsed.

Not cached: pipelines with check errors (they are reported on every run), an APP with more than
``MAX_ENTRIES`` files (the walk would cost what it saves), and an APP changed less than
``SETTLE_SECONDS`` ago (a file rewritten within one filesystem timestamp tick could keep its
mtime and size).  ``APP_RUN_NO_CACHE=1`` turns the cache off.  An unreadable or damaged cache
file is ignored and replaced.  Writing an entry removes those not written for ``STALE_DAYS``
(an APP moved or deleted leaves one; one in use is just checked again and rewritten).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from skill2app.runtime import __version__
from skill2app.runtime.app.model import App, Pipeline, Step
from skill2app.runtime.jsonfile import write_json

FORMAT = 1
MAX_ENTRIES = 2000
SETTLE_SECONDS = 2.0
STALE_DAYS = 30
SKIPPED = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".mypy_cache", ".ruff_cache"}
)
# What decides a check's verdict besides the APP: these files of app-run itself, relative to
# the runtime package (RUNTIME_DIR).
RUNTIME_DIR = Path(__file__).resolve().parents[1]
CHECKER = (
    "app/model.py",
    "app/cache.py",
    "app/check.py",
    "app/document.py",
    "app/references.py",
    "run/inputs.py",
    "run/template.py",
    "schemas/pipeline.schema.json",
)


class CheckCache:
    """The cache file of one APP, at its fingerprint of this moment."""

    def __init__(self, app: App, home: Path) -> None:
        self.app = app
        key = hashlib.sha256(str(app.root).encode("utf-8", "surrogateescape")).hexdigest()
        self.path = home / "cache" / "checked" / f"{key[:24]}.json"
        if app.stamp is None:  # one walk of the APP per process (routing, then the run)
            app.stamp = fingerprint(app.root)
        self.fingerprint, self.settled = app.stamp

    def load(self, names: list[str]) -> dict[str, Pipeline] | None:
        """The models of ``names`` if all were checked at this fingerprint, else None."""
        if self.fingerprint is None:
            return None
        known = self._entry().get("pipelines", {})
        if not all(name in known for name in names):
            return None
        try:
            return {name: _model(self.app, name, known[name]) for name in names}
        except (KeyError, TypeError, ValueError):  # a damaged or hand-edited cache file
            return None

    def save(self, models: dict[str, Pipeline]) -> None:
        """Remember ``models`` (all passed `check`); a cache that cannot be written is no error."""
        entry = self._entry()
        known = entry.get("pipelines", {})
        known.update({name: _record(model) for name, model in models.items()})
        self._write({**entry, "pipelines": known})

    def load_table(self) -> list[dict[str, Any]] | None:
        """The routing table stored at this fingerprint, if any."""
        table = self._entry().get("table") if self.fingerprint is not None else None
        rows_ok = isinstance(table, list) and all(
            isinstance(row, dict) and {"name", "description", "triggers"} <= set(row)
            for row in table
        )
        return table if rows_ok else None

    def save_table(self, table: list[dict[str, Any]]) -> None:
        self._write({**self._entry(), "table": table})

    def _write(self, entry: dict[str, Any]) -> None:
        if self.fingerprint is None or not self.settled:
            return
        entry.setdefault("pipelines", {})
        entry.update(format=FORMAT, app=str(self.app.root), fingerprint=self.fingerprint)
        with contextlib.suppress(OSError):
            write_json(self.path, entry, mode=0o600)
            _prune(self.path.parent)

    def _entry(self) -> dict[str, Any]:
        """The stored entry if it is for this APP at this fingerprint ({} otherwise).  The file
        holds the commands a run executes: one that someone else could have written is ignored."""
        try:
            with self.path.open("rb") as fh:
                st = os.fstat(fh.fileno())
                if st.st_uid != os.getuid() or st.st_mode & 0o022:
                    return {}
                data = json.loads(fh.read().decode("utf-8"))
        except (OSError, ValueError):
            return {}
        fresh = (
            isinstance(data, dict)
            and data.get("format") == FORMAT
            and data.get("fingerprint") == self.fingerprint
            and isinstance(data.get("pipelines"), dict)
        )
        return data if fresh else {}


def _prune(folder: Path) -> None:
    """Entries of APPs not run for ``STALE_DAYS`` go (a moved or deleted APP leaves one)."""
    cutoff = time.time() - STALE_DAYS * 86400
    for entry in os.scandir(folder):
        if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def enabled() -> bool:
    return os.environ.get("APP_RUN_NO_CACHE", "") in ("", "0")


def cached_table(app: App, home: Path) -> list[dict[str, Any]]:
    """The routing table (`list`, routing): from the cache while the APP is unchanged."""
    from skill2app.runtime.app.model import routing_table

    if app.table is None and enabled():
        store = CheckCache(app, home)
        app.table = store.load_table()
        if app.table is None:
            store.save_table(routing_table(app))
    return routing_table(app)


def fingerprint(root: Path) -> tuple[str | None, bool]:
    """(hash of the APP and the checker as they are now, or None when too big to cache;
    whether no entry changed in the last SETTLE_SECONDS)."""
    rows = [__version__, *_stat_rows(RUNTIME_DIR, CHECKER)]
    newest = 0
    count = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            rows.append(f"{folder}: unreadable")
            continue
        for entry in entries:
            count += 1
            if count > MAX_ENTRIES:
                return None, False
            try:
                st = entry.stat()
            except OSError:
                rows.append(f"{entry.path}: dangling")
                continue
            size = 0 if stat.S_ISDIR(st.st_mode) else st.st_size  # a folder's size says little
            rows.append(f"{entry.path} {size} {st.st_mtime_ns} {st.st_mode} {st.st_ino}")
            newest = max(newest, st.st_mtime_ns)
            if entry.is_dir(follow_symlinks=False) and entry.name not in SKIPPED:
                stack.append(Path(entry.path))
    digest = hashlib.sha256("\n".join(rows).encode("utf-8", "surrogateescape")).hexdigest()
    return digest, time.time_ns() - newest > SETTLE_SECONDS * 1e9


def _stat_rows(base: Path, names: tuple[str, ...]) -> list[str]:
    rows = []
    for name in names:
        try:
            st = (base / name).stat()
            rows.append(f"{name} {st.st_size} {st.st_mtime_ns}")
        except OSError:
            rows.append(f"{name} missing")
    return rows


def _record(model: Pipeline) -> dict[str, Any]:
    return {
        "name": model.name,
        "description": model.description,
        "triggers": list(model.triggers),
        "inputs": model.inputs,
        "input_info": model.input_info,
        "steps": [asdict(step) for step in model.steps],
        "output": model.output,
    }


def _model(app: App, name: str, data: dict[str, Any]) -> Pipeline:
    file = app.files[name]
    return Pipeline(
        name=str(data["name"]),
        description=str(data["description"]),
        triggers=tuple(str(t) for t in data["triggers"]),
        inputs={str(k): str(v) for k, v in data["inputs"].items()},
        steps=tuple(_step(step) for step in data["steps"]),
        output=str(data["output"]),
        dir=file.parent,
        file=file,
        input_info=dict(data.get("input_info") or {}),
    )


def _step(data: dict[str, Any]) -> Step:
    needs = data.get("needs")
    return Step(**{**data, "needs": tuple(needs) if needs is not None else None})
