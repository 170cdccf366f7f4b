"""Two-outcome routing metrics — a pipeline or none — for the BM25 baseline, the teachers and
the hybrid rows (where an LLM settles what embedded is unsure of).

``top1`` = in-scope request routed to the expected pipeline (a no match counts as a miss);
``ranked_top1`` = expected pipeline ranked first, threshold ignored; ``wrong`` = routed to
another pipeline.  Over decisions: ``nomatch_precision`` = share of no-match answers that were
out of scope; ``nomatch_recall`` = share of out-of-scope requests answered no match.
``calibrate`` picks a threshold and margin on DEV: among those with no-match recall >= 90 %,
the best ``top1 - wrong``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dataset import KINDS, Request

from skill2app.runtime.routing import Candidate

RECALL_TARGET = 0.9
THRESHOLDS = [round(0.2 + 0.01 * i, 2) for i in range(61)]
MARGINS = [0.0, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08]


@dataclass(frozen=True)
class Ranked:
    request: Request
    first: Candidate
    second: Candidate | None

    def decide(self, threshold: float, margin: float) -> str | None:
        if self.first.score < threshold:
            return None
        if self.second is not None and self.first.score - self.second.score < margin:
            return None
        return self.first.pipeline


def rank_all(requests: Sequence[Request], routers: dict[str, object]) -> list[Ranked]:
    out = []
    for request in requests:
        ranked = routers[request.app].candidates(request.text)  # type: ignore[attr-defined]
        out.append(Ranked(request, ranked[0], ranked[1] if len(ranked) > 1 else None))
    return out


def metrics(rows: Sequence[tuple[Request, str | None, str]]) -> dict[str, object]:
    """rows: (request, routed pipeline or None, first-ranked pipeline)."""
    inscope = [r for r in rows if r[0].expected is not None]
    oos = [r for r in rows if r[0].expected is None]
    nomatch = [r for r in rows if r[1] is None]
    hit = sum(r[1] == r[0].expected for r in inscope)
    by_kind = {}
    for kind in KINDS:
        of_kind = [r for r in rows if r[0].kind == kind]
        ok = sum((r[1] is None) if kind == "oos" else (r[1] == r[0].expected) for r in of_kind)
        by_kind[kind] = f"{ok}/{len(of_kind)}"
    return {
        "n": len(rows),
        "in_scope": len(inscope),
        "out_of_scope": len(oos),
        "top1": _ratio(hit, len(inscope)),
        "ranked_top1": _ratio(sum(r[2] == r[0].expected for r in inscope), len(inscope)),
        "wrong": _ratio(sum(r[1] not in (None, r[0].expected) for r in inscope), len(inscope)),
        "nomatch_precision": _ratio(sum(r[0].expected is None for r in nomatch), len(nomatch)),
        "nomatch_recall": _ratio(sum(r[1] is None for r in oos), len(oos)),
        "by_kind": by_kind,
    }


def _ratio(num: int, den: int) -> float:
    return round(num / den, 4) if den else 0.0


def objective(m: dict[str, Any]) -> tuple[bool, float, float]:
    """What calibration maximises: no-match recall on target first, then top1 - wrong."""
    recall, top1, wrong = (float(m[k]) for k in ("nomatch_recall", "top1", "wrong"))
    return (recall >= RECALL_TARGET, top1 - wrong, recall)


def calibrate(
    ranked: Sequence[Ranked],
    thresholds: Sequence[float] = THRESHOLDS,
    margins: Sequence[float] = MARGINS,
) -> tuple[float, float, dict[str, object]]:
    """Best (threshold, margin) on these rows: max top1 - wrong with no-match recall >= target."""
    best: tuple[tuple[float, float, float], float, float, dict[str, object]] | None = None
    for threshold in thresholds:
        for margin in margins:
            rows = [(r.request, r.decide(threshold, margin), r.first.pipeline) for r in ranked]
            m = metrics(rows)
            key = objective(m)
            if best is None or key > best[0]:
                best = (key, threshold, margin, m)
    assert best is not None
    return best[1], best[2], best[3]
