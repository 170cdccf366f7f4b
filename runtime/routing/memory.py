"""Learned examples: the requests confirmed for a pipeline, remembered per APP.

A request is *confirmed* for a pipeline when the caller chose it: `app-run run APP PIPELINE
--request "…"` (the command a `needs_route` answer hands over) or `hybrid`'s LLM chose it.
The embedded router then scores it like a trigger of that pipeline (``RouteEntry.learned``), so
the same words go there straight away next time.  The same words confirmed for another
pipeline replace the old example.

Stored in the user's state folder, never in the APP nor in run records:
``$APP_RUN_HOME/learned/<hash of the APP's path>.json``, mode 0600 in a 0700 folder, written
atomically under a lock.  It is read as untrusted: a file someone else owns or could write,
one larger than ``MAX_BYTES``, or of another shape is ignored (and replaced on the next
write); an entry that is not a short text for a pipeline of this APP is dropped.  Bounded:
``MAX_CHARS`` a request (longer ones are not learned), ``MAX_PER_PIPELINE`` examples a pipeline
and ``MAX_EXAMPLES`` an APP, the least recently confirmed going first.  A request holding the
value of a secret-named environment variable, or a credential's shape, is not learned.
``learn: false`` in the config (or ``APP_RUN_LEARN=0``) neither stores nor uses them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.jsonfile import lock, write_json

FORMAT = 1
MAX_CHARS = 500
MAX_PER_PIPELINE = 50
MAX_EXAMPLES = 1000
MAX_BYTES = 2_000_000
SOURCES = ("run", "hybrid")  # how a request was confirmed: a `run --request`, hybrid's LLM


@dataclass(frozen=True)
class Example:
    request: str
    pipeline: str
    count: int = 1  # times confirmed
    last: int = 0  # when last confirmed (seconds since the epoch)
    source: str = "run"

    @property
    def key(self) -> str:
        return words(self.request)


def words(request: str) -> str:
    """What makes two requests "the same words": case, spacing and end punctuation aside."""
    return " ".join(request.casefold().split()).strip(" .!?。！？")


class Memory:
    """The learned examples of the APP at ``app_root`` (``home``: APP_RUN_HOME)."""

    def __init__(self, home: Path, app_root: Path) -> None:
        key = hashlib.sha256(str(app_root).encode("utf-8", "surrogateescape")).hexdigest()
        self.app_root = app_root
        self.path = home / "learned" / f"{key[:24]}.json"

    def examples(self, pipelines: list[str] | None = None) -> list[Example]:
        """The examples kept (for ``pipelines`` only, when given), newest first."""
        found = _read(self.path, str(self.app_root))
        if pipelines is not None:
            found = [e for e in found if e.pipeline in pipelines]
        return sorted(found, key=lambda e: -e.last)

    def learned(self, pipelines: list[str]) -> dict[str, tuple[str, ...]]:
        """Each pipeline's learned requests, as the router takes them."""
        out: dict[str, list[str]] = {}
        for example in self.examples(pipelines):
            out.setdefault(example.pipeline, []).append(example.request)
        return {name: tuple(texts) for name, texts in out.items()}

    def learn(
        self, request: str, pipeline: str, *, source: str = "run", secrets: tuple[str, ...] = ()
    ) -> Example | None:
        """Remember ``request`` for ``pipeline``; the same words kept for another pipeline are
        replaced.  None (nothing kept) for a request that is empty, too long or holds a
        secret (``secrets``: more secret names, the config's), or when the store cannot be
        written: learning never stops a run."""
        request = " ".join(request.split())
        if not request or len(request) > MAX_CHARS or _holds_secret(request, secrets):
            return None
        with contextlib.suppress(OSError), self._locked() as examples:
            if examples is None:
                return None
            same = [e for e in examples if e.key == words(request)]
            count = sum(e.count for e in same if e.pipeline == pipeline) + 1
            example = Example(request, pipeline, count, int(time.time()), source)
            kept = [e for e in examples if e.key != example.key]
            examples[:] = _bounded([example, *kept])
            return example
        return None

    def forget(self, pipeline: str | None = None, request: str | None = None) -> list[Example]:
        """Remove every example (of ``pipeline``, or the one of ``request``); the removed."""
        with self._locked() as examples:
            if examples is None:
                raise OSError(f"{self.path} is in use by another app-run")
            removed = [
                e
                for e in examples
                if (pipeline is None or e.pipeline == pipeline)
                and (request is None or e.key == words(request))
            ]
            examples[:] = [e for e in examples if e not in removed]
            return removed

    @contextlib.contextmanager
    def _locked(self) -> Any:
        """The examples, to change in place and written back at the end of the block (None
        when another app-run holds the store for more than a moment)."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for _ in range(20):
            with lock(self.path.with_suffix(".lock")) as held:
                if held:
                    examples = _read(self.path, str(self.app_root))
                    before = list(examples)
                    yield examples
                    if examples != before:
                        data = {
                            "format": FORMAT,
                            "app": str(self.app_root),
                            "examples": [asdict(e) for e in examples],
                        }
                        write_json(self.path, data, mode=0o600)
                    return
            time.sleep(0.05)
        yield None


def _bounded(examples: list[Example]) -> list[Example]:
    """Newest first, at most MAX_PER_PIPELINE a pipeline and MAX_EXAMPLES in all."""
    kept: list[Example] = []
    per: dict[str, int] = {}
    for example in sorted(examples, key=lambda e: -e.last):
        if per.get(example.pipeline, 0) < MAX_PER_PIPELINE and len(kept) < MAX_EXAMPLES:
            per[example.pipeline] = per.get(example.pipeline, 0) + 1
            kept.append(example)
    return kept


def _read(path: Path, app: str) -> list[Example]:
    """The examples in ``path`` that pass as what this module wrote; [] for a file that
    cannot be trusted or read."""
    try:
        with path.open("rb") as fh:
            info = os.fstat(fh.fileno())
            if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
                return []
            raw = fh.read(MAX_BYTES + 1)
        data = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_BYTES else None
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("app") != app:
        return []
    items = data.get("examples")
    found: list[Example] = []
    seen: set[str] = set()
    for item in items if isinstance(items, list) else []:
        example = _example(item)
        if example is not None and example.key not in seen:
            seen.add(example.key)
            found.append(example)
    return _bounded(found)


def _example(item: Any) -> Example | None:
    if not isinstance(item, dict):
        return None
    request, pipeline = item.get("request"), item.get("pipeline")
    count, last, source = item.get("count", 1), item.get("last", 0), item.get("source", "run")
    usable = (
        isinstance(request, str)
        and 0 < len(request) <= MAX_CHARS
        and request == " ".join(request.split())
        and isinstance(pipeline, str)
        and 0 < len(pipeline) <= 200
        and type(count) is int
        and count > 0
        and type(last) is int
        and source in SOURCES
    )
    if not usable:
        return None
    return Example(str(request), str(pipeline), count, last, str(source))


def _holds_secret(request: str, names: tuple[str, ...]) -> bool:
    """The value of a secret-named environment variable, or a credential's shape (a bearer
    token, a password in a URL, an API key), is in ``request`` (``app.secrets``)."""
    from skill2app.runtime.app.secrets import Scrubber

    return Scrubber.from_env(names).text(request) != request
