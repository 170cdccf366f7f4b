"""The nouns of routing: a routing-table entry, a scored candidate, and the decision.

The Runner builds one ``RouteEntry`` per business pipeline from its ``pipeline.yaml``
(``name``, ``description``, ``triggers``); a router turns a user request into a
``RouteDecision`` whose ``pipeline`` is ``None`` when nothing matches (fall back to Skill mode).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RouteEntry:
    """One business pipeline in the routing table."""

    name: str
    description: str
    triggers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Candidate:
    pipeline: str
    score: float
    why: str  # e.g. 'trigger "review this PR" (0.82)'


@dataclass(frozen=True)
class RouteDecision:
    pipeline: str | None  # None = no match -> Skill mode
    score: float
    strategy: str  # "embedded"
    candidates: tuple[Candidate, ...]  # best first, at most 5
    reason: str  # one line: why matched / why no match
