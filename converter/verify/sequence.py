"""Which samples must run before a sample: ``samples/after.json`` from what the smoke run saw.

The smoke run runs the samples in the plan's order on one copy of the APP, so a sample may
read what an earlier one made: ``ask-kb`` queries the bundle that ``build-kb``'s sample wrote
to ``samples/kb-out/``, ``update-dims`` records into the run that ``start-run``'s sample
opened in ``pipelines/start-run/samples/migration/``.  `app-run test` runs each sample alone
(rounds 45–46: two APPs that passed their smoke run failed 9 of their own 12 tests), unless
``samples/after.json`` names what runs first (``runtime.records.prerequisites``).

So the smoke run notes the files each pipeline changed (``snapshot``) at or under the paths
the samples name (``named_paths``, read once; ``watched_paths``; up to ``MAX_FILES`` files,
and the report says when there were more), and a pipeline's sample runs after every earlier
pipeline that changed a file at or under a path its sample input names — with the ones the
plan names (``sample.after``), in the plan's order. A sample that reads what an earlier one
put elsewhere (the home folder, a server) is not seen: the plan must name those. Nor can a
path be told to be read or written: two samples writing into one output folder are chained,
and the constructor's changes there count as the pipeline's.
"""

from __future__ import annotations

import json
import os
import posixpath
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2app.converter.render.render import RenderedFile
from skill2app.runtime.app.document import MAX_FILE_BYTES
from skill2app.runtime.records.prerequisites import AFTER_FILE, after_json, sample_file

if TYPE_CHECKING:
    from skill2app.converter.plan.model import Plan

MAX_FILES = 20_000  # files of a copy looked at: a runaway step's folder is not walked whole
MAX_VALUE = 300  # a longer sample value is text, not a path
MAX_PATHS = 1_000  # strings of one sample read as paths
_SKIPPED = frozenset({".git", "__pycache__", "node_modules"})

Snapshot = dict[str, tuple[int, int]]  # APP-relative path -> (size, mtime in ns)


def named_paths(root: Path, names: list[str]) -> dict[str, list[str]]:
    """pipeline -> the paths its sample names (``sample_paths``), in the order of ``names``
    (the smoke run's): read once, for what is watched and for what runs after what."""
    return {name: sample_paths(root / sample_file(name, "input.json")) for name in names}


def watched_paths(named: dict[str, list[str]]) -> list[str]:
    """Every path the samples name (``named``), a path inside another left out: what the
    smoke run watches for changes."""
    paths = sorted({p for found in named.values() for p in found})
    kept: list[str] = []
    for path in paths:  # sorted: a folder comes before what is inside it
        if not any(_under(path, folder) for folder in kept):
            kept.append(path)
    return kept


def snapshot(root: Path, paths: list[str]) -> tuple[Snapshot, bool]:
    """Every file at or under ``paths`` in ``root`` (links not followed, nothing outside
    ``root``) with its size and time of change; and whether ``MAX_FILES`` cut it short."""
    found: Snapshot = {}
    inside = root.resolve()
    for path in paths:
        start = root / path
        try:
            if not start.resolve().is_relative_to(inside):
                continue  # a link out of the copy: not the APP's
            kind = os.lstat(start).st_mode
        except FileNotFoundError:
            continue  # nothing there (yet)
        except (OSError, RuntimeError):
            continue  # no name the file system takes (a sentence of 270 bytes), a loop
        if stat.S_ISDIR(kind):
            for folder, dirs, files in os.walk(start):
                dirs[:] = sorted(d for d in dirs if d not in _SKIPPED)
                for name in sorted(files):
                    _note(found, root, Path(folder, name))
                    if len(found) >= MAX_FILES:
                        return found, True
        else:
            _note(found, root, start)
        if len(found) >= MAX_FILES:
            return found, True
    return found, False


def _note(found: Snapshot, root: Path, path: Path) -> None:
    try:
        seen = os.lstat(path)
    except OSError:
        return
    found[path.relative_to(root).as_posix()] = (seen.st_size, seen.st_mtime_ns)


def changed_files(before: Snapshot, after: Snapshot) -> list[str]:
    """The files made or changed between two snapshots."""
    return sorted(path for path, seen in after.items() if before.get(path) != seen)


def inferred_after(
    named: dict[str, list[str]], wrote: dict[str, list[str]]
) -> dict[str, list[str]]:
    """pipeline -> the earlier pipelines (in the order of ``named``, the smoke run's) that
    changed a file at or under a path its sample names (``named``: pipeline -> those paths;
    ``wrote``: pipeline -> files it changed)."""
    reached = {name: _prefixes(files) for name, files in wrote.items()}
    order = list(named)
    found: dict[str, list[str]] = {}
    for index, (name, paths) in enumerate(named.items()):
        earlier = [
            other for other in order[:index]
            if any(path in reached.get(other, ()) for path in paths)
        ]  # fmt: skip
        if earlier:
            found[name] = earlier
    return found


def _prefixes(files: list[str]) -> set[str]:
    """Each file and every folder above it (``a/b/c.txt`` → ``a``, ``a/b``, ``a/b/c.txt``)."""
    found: set[str] = set()
    for file in files:
        parts = file.split("/")
        found.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return found


def sample_paths(input_json: Path) -> list[str]:
    """The relative paths a sample input names (its strings that may be paths, normalised),
    none when the file is not there, is a link (it may lead out of the APP) or is not
    readable."""
    try:
        if input_json.is_symlink() or input_json.stat().st_size > MAX_FILE_BYTES:
            return []  # the smoke run says so (read_bounded)
        data = json.loads(input_json.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    paths: list[str] = []
    for value in _strings(data, 0)[:MAX_PATHS]:
        if len(value) > MAX_VALUE or "\n" in value or "://" in value:
            continue  # text, or an address
        if value.startswith(("/", "~")):
            continue  # outside the copy
        path = posixpath.normpath(value.strip())
        if path not in (".", "") and not path.startswith(".."):
            paths.append(path)
    return paths


def _strings(value: Any, depth: int) -> list[str]:
    if isinstance(value, str):
        return [value]
    if depth > 4:
        return []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for item in items for s in _strings(item, depth + 1)]


def _under(file: str, path: str) -> bool:
    return file == path or file.startswith(path + "/")


def merged_after(
    order: list[str], planned: dict[str, list[str]], seen: dict[str, list[str]]
) -> dict[str, list[str]]:
    """pipeline -> what its sample runs after: the plan's names and the smoke run's, in
    ``order``; only pipelines that have any."""
    merged = {}
    for name in order:
        wanted = set(planned.get(name, [])) | set(seen.get(name, []))
        if wanted:
            merged[name] = [n for n in order if n in wanted]
    return merged


def with_after(
    files: list[RenderedFile], plan: Plan, seen: dict[str, list[str]]
) -> list[RenderedFile]:
    """``files`` with each pipeline's ``samples/after.json`` naming what its sample runs
    after: the plan's and what the smoke run saw (``seen``)."""
    order = [p.name for p in plan.pipelines]
    planned = {p.name: p.sample.after for p in plan.pipelines}
    merged = merged_after(order, planned, seen)
    made = {sample_file(name, AFTER_FILE): after_json(names) for name, names in merged.items()}
    kept = [f for f in files if f.path not in made]
    return sorted([*kept, *(RenderedFile(p, t) for p, t in made.items())], key=lambda f: f.path)
