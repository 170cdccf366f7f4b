"""What the embedded router makes of its ranked candidates: one of three outcomes.

- ``match``: sure enough to run the best pipeline.  Its **confidence** — the best score plus
  ``lead_weight`` times its lead over the runner-up — reaches ``match_at``: a high score that
  another pipeline nearly shares is not a match, nor is a clear lead at a low score.  The
  runner-up of an APP's only pipeline is Skill mode, at ``none_below``.
- ``no_match``: the best score is below ``none_below``: clearly none of the pipelines (Skill
  mode).
- ``unsure`` (in between): the right pipeline is probably on a **short list** — the best
  candidates, at most ``short_max``, within ``short_within`` of the best — which the caller
  (the host agent, or ``hybrid``'s LLM) chooses from, or declines for Skill mode.

The numbers are calibrated on the DEV split of benchmarks/routing (``run.py --calibrate``):
among the rules with at most 3 % wrong matches, the one that matches the most requests; then
the smallest short list that holds the right pipeline for 97 % of the unsure requests (or
``short_max`` when none does); then the highest ``none_below`` that turns away at most 1 % of
the requests a pipeline is for.  Figures in benchmarks/routing/README.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skill2app.runtime.routing.route import MATCH, NO_MATCH, UNSURE, Candidate


@dataclass(frozen=True)
class Policy:
    match_at: float = 0.585
    lead_weight: float = 1.5
    none_below: float = 0.24
    short_within: float = 1.0
    short_max: int = 5


POLICY = Policy()


def lead(ranked: Sequence[Candidate], policy: Policy = POLICY) -> float:
    """How far the best candidate is ahead of the runner-up.  A pipeline alone (an APP of one)
    has Skill mode for its runner-up, at the no-match line."""
    if not ranked:
        return 0.0
    runner_up = ranked[1].score if len(ranked) > 1 else policy.none_below
    return max(0.0, ranked[0].score - runner_up)


def confidence(ranked: Sequence[Candidate], policy: Policy = POLICY) -> float:
    return ranked[0].score + policy.lead_weight * lead(ranked, policy) if ranked else 0.0


def outcome(ranked: Sequence[Candidate], policy: Policy = POLICY) -> str:
    """``match``, ``unsure`` or ``no_match`` for candidates ranked best first."""
    if not ranked:
        return NO_MATCH
    if confidence(ranked, policy) >= policy.match_at:
        return MATCH
    return NO_MATCH if ranked[0].score < policy.none_below else UNSURE


def short_list(ranked: Sequence[Candidate], policy: Policy = POLICY) -> tuple[Candidate, ...]:
    """The candidates an unsure request is handed over with, best first."""
    if not ranked:
        return ()
    floor = ranked[0].score - policy.short_within
    return tuple(c for c in ranked[: policy.short_max] if c.score >= floor)


def reason(decided: str, ranked: Sequence[Candidate], policy: Policy = POLICY) -> str:
    """One line: why this outcome."""
    if not ranked:
        return "no match: the routing table is empty"
    first = ranked[0]
    ahead = (
        f', {lead(ranked, policy):.2f} ahead of "{ranked[1].pipeline}"'
        if len(ranked) > 1
        else f" (the only pipeline: {lead(ranked, policy):.2f} above the no-match line)"
    )
    if decided == MATCH:
        return f'matched "{first.pipeline}" by {first.why}{ahead}'
    if decided == NO_MATCH:
        return (
            f'no match: best "{first.pipeline}" scores {first.score:.2f}, '
            f"below {policy.none_below:.2f}"
        )
    names = ", ".join(f'"{c.pipeline}"' for c in short_list(ranked, policy))
    return (
        f'unsure: best "{first.pipeline}" scores {first.score:.2f}{ahead}, confidence '
        f"{confidence(ranked, policy):.2f} below {policy.match_at:.2f}; choose among {names}"
    )
