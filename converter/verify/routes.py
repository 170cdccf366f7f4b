"""The routing self-test of a converted APP: do its own phrases reach their own pipeline?

Each business pipeline's description and triggers are routed with the embedded router against
the rest of the table (``runtime.routing.selftest``).  A phrase that lands elsewhere is a
warning: often a trigger too close to another pipeline's, sometimes the router's own limit
(it ranks the right pipeline first for ~80% of unseen requests).  A phrase the router is unsure
about is handed to the agent with its own pipeline on the short list; one it matches to the
wrong pipeline runs the wrong thing.  Two pipelines most of whose phrases are matched to each
other cannot be told apart: that fails the verification.  A pipeline with fewer than the five
triggers a conversion aims at is named (``app-run check`` warns under three).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skill2app.converter.analyzers.triggers import MIN_TRIGGERS
from skill2app.runtime.app.model import App, routing_table
from skill2app.runtime.errors import AppRunError
from skill2app.runtime.routing.route import RouteEntry
from skill2app.runtime.routing.selftest import Stray, selftest


@dataclass
class RoutingCheck:
    ran: bool = False
    skipped: str = ""  # why it did not run (one pipeline, the encoder missing)
    phrases: int = 0
    strays: list[Stray] = field(default_factory=list)
    few: list[str] = field(default_factory=list)  # pipelines with fewer than MIN_TRIGGERS
    apart: list[tuple[str, str]] = field(default_factory=list)  # pairs routed to each other

    @property
    def passed(self) -> int:
        return self.phrases - len(self.strays)

    @property
    def rate(self) -> float:
        return self.passed / self.phrases if self.phrases else 1.0

    @property
    def misrouted(self) -> list[Stray]:
        """The phrases the router, with each left out, matches to another pipeline: a request
        worded like one of them runs the wrong pipeline (an unsure one is asked about)."""
        return [s for s in self.strays if s.decision == "match"]

    @property
    def errors(self) -> list[str]:
        return [
            f'routing self-test: pipelines "{a}" and "{b}" cannot be told apart: most of the '
            "description and triggers of each route to the other"
            for a, b in self.apart
        ]

    @property
    def warnings(self) -> list[str]:
        return [_said(s) for s in self.strays] + [
            f'routing self-test: pipeline "{name}" has fewer than {MIN_TRIGGERS} triggers'
            for name in self.few
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "skipped": self.skipped,
            "phrases": self.phrases,
            "passed": self.passed,
            "strays": [s.to_dict() for s in self.strays],
            "few_triggers": self.few,
            "cannot_be_told_apart": [list(pair) for pair in self.apart],
        }


def _said(stray: Stray) -> str:
    text = stray.text if len(stray.text) <= 60 else stray.text[:57] + "..."
    head = f'routing self-test: {stray.kind} "{text}" of pipeline "{stray.own}"'
    if stray.decision == "match":
        return f'{head} is matched to "{stray.other}"'
    return f'{head} ranks "{stray.other}" first (unsure: the agent would be asked)'


def check_routes(app: App) -> RoutingCheck:
    """The self-test of ``app``'s business pipelines (those that load)."""
    rows = [row for row in routing_table(app) if not row.get("error")]
    entries = [RouteEntry(r["name"], r["description"], tuple(r["triggers"])) for r in rows]
    result = RoutingCheck(few=[e.name for e in entries if len(e.triggers) < MIN_TRIGGERS])
    if len(entries) < 2:
        result.skipped = (
            "one business pipeline: nothing to tell it from"
            if entries
            else "no business pipeline: every request goes to Skill mode"
        )
        return result
    try:
        found = selftest(entries)
    except AppRunError as exc:  # the encoder cannot load here: say so, fail nothing
        result.skipped = exc.message
        return result
    result.ran, result.phrases, result.strays = True, found.phrases, found.strays
    result.apart = confused_pairs(entries, found.strays)
    return result


def confused_pairs(entries: list[RouteEntry], strays: list[Stray]) -> list[tuple[str, str]]:
    """Pipelines A and B such that more than half of A's phrases are matched to B and more
    than half of B's to A (a pipeline with one phrase has nothing to route: never part of
    one)."""
    to: dict[tuple[str, str], int] = {}
    for stray in strays:
        if stray.decision == "match":  # unsure: the agent is asked, nothing wrong runs
            to[(stray.own, stray.other)] = to.get((stray.own, stray.other), 0) + 1
    size = {e.name: 1 + len(e.triggers) for e in entries}
    pairs = []
    for (a, b), count in sorted(to.items()):
        if a < b and size[a] > 1 and size[b] > 1:
            if 2 * count > size[a] and 2 * to.get((b, a), 0) > size[b]:
                pairs.append((a, b))
    return pairs
