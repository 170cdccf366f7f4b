"""The routing self-test: do an APP's own phrases route where they are written?

Each pipeline's description and each trigger is routed, as a request, against the rest of the
table (leave one out: it does not meet itself).  It must reach its own pipeline: a phrase
that lands on another pipeline is a trigger that misleads the router — or two pipelines
that overlap.  A pipeline with fewer than ``MIN_TRIGGERS`` triggers routes on too little.
Each finding is a warning naming both pipelines and the file:line of the phrase.  An APP with
one business pipeline has nothing to test: there is no other pipeline to tell it from.

Used by `app-run check`, `app-new pipeline` and app-convert's verification.  It loads the
embedded router's models and reuses its kept index (``models/index.py``), so a check of an
unchanged 100-pipeline APP takes a few tenths of a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skill2app.runtime.app.diagnostic import Diagnostic
from skill2app.runtime.app.document import Document
from skill2app.runtime.app.model import App, routing_table
from skill2app.runtime.errors import AppRunError, Where
from skill2app.runtime.routing.decision import outcome
from skill2app.runtime.routing.route import Candidate, RouteEntry

MIN_TRIGGERS = 3
DEFAULT = Path("<state>")  # cache_dir: the one app-run uses (APP_RUN_HOME), unless turned off


def routing_selftest(
    source: App | Sequence[RouteEntry], *, cache_dir: Path | None = DEFAULT
) -> list[Diagnostic]:
    """Warnings for the phrases of ``source`` (a loaded APP, or its routing entries) that
    route to another pipeline, and for pipelines with fewer than MIN_TRIGGERS triggers."""
    entries, places = _table(source)
    if len(entries) < 2:
        return []  # nothing to tell it from: routing is match or Skill mode
    if cache_dir == DEFAULT:
        cache_dir = model_cache()
    found = [_few(e, places[e.name]) for e in entries if len(e.triggers) < MIN_TRIGGERS]
    try:
        found += _strays(entries, places, cache_dir)
    except AppRunError as exc:  # the encoder package missing, say: the rest of check stands
        where = places[entries[0].name].where()
        message = f"routing self-test skipped: {exc.message}"
        found.append(Diagnostic("warning", message, where, exc.hint))
    return found


class _Place:
    """Where a pipeline's phrases are written (a file's lines, or just the pipeline's file)."""

    def __init__(self, file: Path | str, doc: Document | None) -> None:
        self.file, self.doc = file, doc

    def where(self, *keys: str | int) -> Where:
        return self.doc.where(*keys) if self.doc is not None else Where(self.file)


def _table(source: App | Sequence[RouteEntry]) -> tuple[list[RouteEntry], dict[str, _Place]]:
    if not isinstance(source, App):
        entries = [RouteEntry(e.name, e.description, e.triggers) for e in source]
        return entries, {e.name: _Place(f"pipelines/{e.name}/pipeline.yaml", None) for e in entries}
    entries, places = [], {}
    for row in routing_table(source):
        if row.get("error"):
            continue  # check reports it; it has no phrases to test
        entries.append(RouteEntry(row["name"], row["description"], tuple(row["triggers"])))
        doc = source.source(row["name"])
        places[row["name"]] = _Place(
            source.files[row["name"]], doc if isinstance(doc, Document) else None
        )
    return entries, places


def model_cache() -> Path | None:
    """Where the embedded router keeps its encoder copy and table indexes: app-run's place."""
    from skill2app.runtime.app.cache import enabled
    from skill2app.runtime.app.config import state_home

    return state_home() / "cache" / "models" if enabled() else None


def _few(entry: RouteEntry, place: _Place) -> Diagnostic:
    count = len(entry.triggers)
    where = place.where("triggers") if entry.triggers else place.where("description")
    return Diagnostic(
        "warning",
        f'pipeline "{entry.name}" has {count} trigger{"" if count == 1 else "s"}: routing '
        f"needs at least {MIN_TRIGGERS} to tell it from the others",
        where,
        "add requests a user would type for it under `triggers:`",
    )


@dataclass(frozen=True)
class Stray:
    """A phrase of pipeline ``own`` that routes to ``other`` (scores: ``score`` there,
    ``mine`` for its own)."""

    kind: str  # description | trigger
    text: str
    own: str
    other: str
    score: float
    mine: float
    decision: str = "match"  # what routing makes of it: a wrong match, or unsure (asks)
    nearest: str = ""  # the phrase of ``other`` that drew it most

    def to_dict(self) -> dict[str, object]:
        return {
            "pipeline": self.own,
            "kind": self.kind,
            "text": self.text,
            "routes_to": self.other,
            "decision": self.decision,
            "score": round(self.score, 4),
            "own_score": round(self.mine, 4),
            "drawn_by": self.nearest,
        }


@dataclass(frozen=True)
class SelfTest:
    """What the self-test found: how many phrases were routed, and those that went astray."""

    phrases: int
    strays: list[Stray]

    @property
    def passed(self) -> int:
        return self.phrases - len(self.strays)


def selftest(entries: Sequence[RouteEntry], *, cache_dir: Path | None = DEFAULT) -> SelfTest:
    """Route each phrase of ``entries`` against the others (leave one out).  A phrase whose
    pipeline has no other phrase counts as passed: there is nothing of its own to reach."""
    entries = [RouteEntry(e.name, e.description, tuple(e.triggers)) for e in entries]
    if len(entries) < 2:
        return SelfTest(sum(1 + len(e.triggers) for e in entries), [])
    if cache_dir == DEFAULT:
        cache_dir = model_cache()
    import numpy as np

    from skill2app.runtime.routing.models.embedded import EmbeddedRouter

    router = EmbeddedRouter(entries, cache_dir=cache_dir)
    matrix = router.phrase_matrix()
    np.fill_diagonal(matrix, -1.0)  # leave each phrase out of its own routing
    by_pipeline = router.pipeline_scores(matrix)
    phrases = router.index.phrases
    counts = np.bincount([p.pipeline for p in phrases], minlength=len(entries))
    found = []
    for at, phrase in enumerate(phrases):
        scores = by_pipeline[at]
        best = int(np.argmax(scores))
        if counts[phrase.pipeline] < 2 or best == phrase.pipeline:
            continue  # nothing of its own left to reach, or it reaches it
        if scores[best] <= scores[phrase.pipeline]:
            continue  # a tie goes to its own
        own, other = entries[phrase.pipeline].name, entries[best].name
        ranked = sorted(
            (Candidate(e.name, float(scores[i]), "") for i, e in enumerate(entries)),
            key=lambda c: -c.score,
        )
        decided = outcome(ranked, router.policy)
        mine = float(scores[phrase.pipeline])
        theirs = [j for j, p in enumerate(phrases) if p.pipeline == best]
        nearest = phrases[max(theirs, key=lambda j: matrix[at, j])].text if theirs else ""
        found.append(
            Stray(phrase.kind, phrase.text, own, other, ranked[0].score, mine, decided, nearest)
        )
    return SelfTest(len(phrases), found)


def _strays(
    entries: list[RouteEntry], places: dict[str, _Place], cache_dir: Path | None
) -> list[Diagnostic]:
    found = selftest(entries, cache_dir=cache_dir).strays
    by_name = {e.name: e for e in entries}
    return [_stray(s, places, _keys(by_name[s.own], s.kind, s.text)) for s in found]


def _keys(entry: RouteEntry, kind: str, text: str) -> tuple[str | int, ...]:
    if kind == "description":
        return ("description",)
    return ("triggers", entry.triggers.index(text))


def _stray(stray: Stray, places: dict[str, _Place], keys: tuple[str | int, ...]) -> Diagnostic:
    text, own, other = stray.text, stray.own, stray.other
    shown = text if len(text) <= 60 else text[:57] + "..."
    there = places[other].where("description")
    return Diagnostic(
        "warning",
        f'{stray.kind} "{shown}" of pipeline "{own}" routes to "{other}" ({stray.score:.2f} '
        f"against {stray.mine:.2f} for {own})",
        places[own].where(*keys),
        f'reword it with what only "{own}" does, or see whether "{other}" ({there}) overlaps it',
    )
