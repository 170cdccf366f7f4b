"""The embedded router's three outcomes, measured: match / unsure (short list) / no match.

Every request is scored once per router (``EmbeddedRouter.parts``: what each model makes of
it); weights and the decision policy are then applied to those parts through the router's own
code (``phrase_scores``, ``rank``, ``runtime.routing.decision``), so calibration searches the
real decision path, quickly.

Metrics (in-scope = the request has a labelled pipeline; out of scope = it has none):

- ``coverage``: in-scope requests decided ``match`` *and* right, over all in-scope;
  ``decided``: in-scope decided ``match`` (right or wrong);
- ``risk``: wrong matches over all matches (an out-of-scope request matched counts wrong);
- ``unsure``: share of in-scope requests decided ``unsure``; ``short_list_recall``: among
  those, the share whose short list holds the right pipeline; ``list_length``: its mean size;
- ``lost``: in-scope requests decided ``no_match``;
- ``no_match_recall``: out-of-scope requests not matched (``no_match``, or ``unsure``: the
  caller sees the Skill-mode alternative — the "pipeline: null" of `route --json`);
  ``no_match_strict``: out-of-scope requests decided ``no_match`` by the router alone;
- ``end_to_end``: with an oracle in the caller's place, which picks the right pipeline from
  a short list (or Skill mode when none is right): in-scope requests that end in their
  pipeline, over in-scope; ``end_to_end_all`` also counts out-of-scope requests that end in
  Skill mode.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from dataset import KINDS, Request

from skill2app.runtime.routing import Candidate, EmbeddedRouter
from skill2app.runtime.routing import decision as decide
from skill2app.runtime.routing.models.embedded import Parts, Weights

RISK_TARGET = 0.03
SHORT_LIST_TARGET = 0.97
LOST_TARGET = 0.01  # in-scope requests turned away as no_match, at most
LEAD_WEIGHTS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
MATCH_AT = [round(0.30 + 0.005 * i, 3) for i in range(201)]
SHORT_WITHIN = [round(0.01 * i, 2) for i in range(1, 61)] + [1.0]
NONE_BELOW = [round(0.01 * i, 2) for i in range(61)]
GRID = {  # Weights fields searched by --calibrate
    "lexical": (0.5, 0.7),
    "cjk": (0.6, 1.0),
    "sentence_share": (0.5, 0.6, 0.7),
    "static_floor": (0.5, 0.6, 0.7, 0.8),
    "support": (0.375, 0.5),
}


@dataclass(frozen=True)
class Scored:
    request: Request
    ranked: list[Candidate]

    @property
    def rank(self) -> int:
        """1-based rank of the labelled pipeline (0: not ranked, or out of scope)."""
        for at, c in enumerate(self.ranked, 1):
            if c.pipeline == self.request.expected:
                return at
        return 0


class PartsCache:
    """Each request's parts, computed once per router."""

    def __init__(self, routers: dict[str, EmbeddedRouter]) -> None:
        self.routers = routers
        self._parts: dict[tuple[str, str], Parts] = {}

    def parts(self, request: Request) -> Parts:
        key = (request.app, request.text)
        if key not in self._parts:
            self._parts[key] = self.routers[request.app].parts(request.text)
        return self._parts[key]

    def score(self, requests: Sequence[Request], weights: Weights | None = None) -> list[Scored]:
        out = []
        for request in requests:
            router = self.routers[request.app]
            w = weights or router.weights
            phrases = router.phrase_scores(self.parts(request), w)
            out.append(Scored(request, router.rank(phrases, w.support)))
        return out


def outcome(scored: Scored, policy: decide.Policy) -> tuple[str, tuple[Candidate, ...]]:
    decided = decide.outcome(scored.ranked, policy)
    if decided == "match":
        return decided, (scored.ranked[0],)
    return decided, decide.short_list(scored.ranked, policy) if decided == "unsure" else ()


def measure(rows: Sequence[Scored], policy: decide.Policy) -> dict[str, Any]:
    inscope = [s for s in rows if s.request.expected is not None]
    oos = [s for s in rows if s.request.expected is None]
    count = dict.fromkeys(("match", "right", "wrong", "unsure", "listed", "lost"), 0)
    count |= {"oos_unsure": 0, "oos_none": 0, "oos_match": 0}
    lengths, by_kind = [], dict.fromkeys(KINDS, (0, 0))
    for s in rows:
        decided, listed = outcome(s, policy)
        expected = s.request.expected
        ok = (
            (decided != "match") if expected is None else (expected in (c.pipeline for c in listed))
        )
        done, seen = by_kind[s.request.kind]
        by_kind[s.request.kind] = (done + ok, seen + 1)
        if decided == "unsure":
            lengths.append(len(listed))
        if expected is None:
            count[
                {"match": "oos_match", "unsure": "oos_unsure", "no_match": "oos_none"}[decided]
            ] += 1
        elif decided == "match":
            count["match"] += 1
            count["right" if listed[0].pipeline == expected else "wrong"] += 1
        elif decided == "unsure":
            count["unsure"] += 1
            count["listed"] += expected in (c.pipeline for c in listed)
        else:
            count["lost"] += 1
    n_in, n_oos = len(inscope), len(oos)
    matches = count["match"] + count["oos_match"]
    return {
        "in_scope": n_in,
        "out_of_scope": n_oos,
        "coverage": _ratio(count["right"], n_in),
        "decided": _ratio(count["match"], n_in),
        "risk": _ratio(count["wrong"] + count["oos_match"], matches),
        "unsure": _ratio(count["unsure"], n_in),
        "short_list_recall": _ratio(count["listed"], count["unsure"]),
        "list_length": round(sum(lengths) / len(lengths), 2) if lengths else 0.0,
        "lost": _ratio(count["lost"], n_in),
        "no_match_recall": _ratio(n_oos - count["oos_match"], n_oos),
        "no_match_strict": _ratio(count["oos_none"], n_oos),
        "end_to_end": _ratio(count["right"] + count["listed"], n_in),
        "end_to_end_all": _ratio(
            count["right"] + count["listed"] + n_oos - count["oos_match"], n_in + n_oos
        ),
        "ranked_top1": _ratio(sum(s.rank == 1 for s in inscope), n_in),
        "ranked_top5": _ratio(sum(0 < s.rank <= 5 for s in inscope), n_in),
        "by_kind": {k: f"{a}/{b}" for k, (a, b) in by_kind.items() if b},
    }


def _ratio(num: int, den: int) -> float:
    return round(num / den, 4) if den else 0.0


def risk_coverage(rows: Sequence[Scored], policy: decide.Policy, points: int = 9) -> list[dict]:
    """Coverage and risk of ``match`` as its threshold moves around the policy's."""
    out = []
    for step in range(-(points // 2), points // 2 + 1):
        at = round(policy.match_at + 0.05 * step, 3)
        m = measure(rows, replace(policy, match_at=at))
        out.append({"match_at": at, **{k: m[k] for k in ("coverage", "decided", "risk")}})
    return out


# --- calibration ------------------------------------------------------------------------------


def calibrate_policy(rows: Sequence[Scored]) -> tuple[decide.Policy, dict[str, Any]]:
    """On these (DEV) rows: the match rule with the most coverage at risk <= RISK_TARGET; the
    smallest short list reaching SHORT_LIST_TARGET (else all of SHORT_MAX); the highest
    none_below that loses at most LOST_TARGET of the in-scope requests."""
    base = decide.Policy(none_below=0.0, short_within=1.0)
    best: tuple[float, float, float] | None = None
    for weight, at in itertools.product(LEAD_WEIGHTS, MATCH_AT):
        m = measure(rows, replace(base, lead_weight=weight, match_at=at))
        if m["risk"] <= RISK_TARGET and (best is None or m["coverage"] > best[0]):
            best = (m["coverage"], weight, at)
    assert best is not None, "no match rule meets the risk target"
    policy = replace(base, lead_weight=best[1], match_at=best[2])
    for within in SHORT_WITHIN:
        if (
            measure(rows, replace(policy, short_within=within))["short_list_recall"]
            >= SHORT_LIST_TARGET
        ):
            policy = replace(policy, short_within=within)
            break
    kept = 0.0
    for below in NONE_BELOW:
        if measure(rows, replace(policy, none_below=below))["lost"] <= LOST_TARGET:
            kept = below
    policy = replace(policy, none_below=kept)
    return policy, measure(rows, policy)


def calibrate(cache: PartsCache, dev: Sequence[Request]) -> list[dict[str, Any]]:
    """Every weight setting of GRID with its calibrated policy and DEV metrics, best first:
    the most DEV coverage, then end-to-end, then short-list recall."""
    results = []
    for values in itertools.product(*GRID.values()):
        weights = Weights(**dict(zip(GRID, values, strict=True)))
        policy, m = calibrate_policy(cache.score(dev, weights))
        results.append({"weights": weights, "policy": policy, "dev": m})
    key = ("coverage", "end_to_end", "short_list_recall")
    return sorted(results, key=lambda r: tuple(-r["dev"][k] for k in key))
