"""The nouns of routing: a routing-table entry, a scored candidate, and the decision.

The Runner builds one ``RouteEntry`` per business pipeline from its ``pipeline.yaml``
(``name``, ``description``, ``triggers``), plus the requests confirmed for it before
(``learned``, ``memory.py``); a router turns a user request into a ``RouteDecision``: a
``match`` (``pipeline`` is set), ``unsure`` (the answer is probably among ``candidates``: the
caller chooses) or ``no_match`` (Skill mode).
"""

from __future__ import annotations

from dataclasses import dataclass

MATCH, UNSURE, NO_MATCH = "match", "unsure", "no_match"
OUTCOMES = (MATCH, UNSURE, NO_MATCH)


@dataclass(frozen=True)
class RouteEntry:
    """One business pipeline in the routing table."""

    name: str
    description: str
    triggers: tuple[str, ...] = ()
    learned: tuple[str, ...] = ()  # requests confirmed for it (memory.py), scored apart


@dataclass(frozen=True)
class Candidate:
    pipeline: str
    score: float
    why: str  # e.g. 'trigger "review this PR" (0.82)'


@dataclass(frozen=True)
class RouteDecision:
    pipeline: str | None  # set for a match only
    score: float
    strategy: str  # "embedded" | "llm" | "hybrid"
    candidates: tuple[Candidate, ...]  # best first: the short list when unsure, else up to 5
    reason: str  # one line: why matched / unsure / no match
    decision: str = ""  # match | unsure | no_match ("": match if pipeline else no_match)
    confirmed: bool = False  # chosen by hybrid's LLM among the short list: a learned example

    def __post_init__(self) -> None:
        if not self.decision:
            object.__setattr__(self, "decision", MATCH if self.pipeline else NO_MATCH)
        if self.decision not in OUTCOMES or (self.decision == MATCH) != bool(self.pipeline):
            raise ValueError(f"decision {self.decision!r} with pipeline {self.pipeline!r}")
