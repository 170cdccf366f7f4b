"""Claims: which pipeline a "Use when ..." situation of the skill is about.

Each path of a program, and each workflow, claims the situations (``situations.situations``)
that name its action's verb or share enough words with its program and section title; a
situation several pipelines claim stays with the one that claims it best, and one two claim
equally well is left to neither (``settle``).
"""

from __future__ import annotations

from skill2app.converter.analyzers.text import keys, overlap
from skill2app.converter.plan.model import Pipeline

VERB_MATCH = 10.0  # a clause naming a path's subcommand or action is about that path


def described(
    clauses: list[str], verb: set[str], named: set[str], closeness: float
) -> dict[str, float]:
    """The skill's situations (``situations.situations``) about this path, with how strongly
    they match it: naming the action's verb (strongest), or ``closeness`` words shared with
    its program and section title (by how many)."""
    found: dict[str, float] = {}
    for clause in clauses:
        shared = overlap(clause, named)
        # a long clause shares a word with anything: it takes two ("deploy a coded action app"
        # is not about validate-action-schema)
        enough = max(closeness, 2) if closeness and len(clause.split()) > 8 else closeness
        if len(clause) <= 80 and (keys(clause) & verb or shared >= enough):
            found[clause] = shared + (VERB_MATCH if keys(clause) & verb else 0)
    return found


def settle(claims: list[tuple[Pipeline, str, float]]) -> None:
    """A clause several paths matched stays only with the one that matches it best: "a quick
    look at the columns" belongs to the ``columns`` subcommand, not to "Summarise columns";
    a clause two paths match equally well ("extracting text" for both extract programs)
    routes to neither: it is left out of both."""
    best: dict[str, float] = {}
    for _pipeline, clause, strength in claims:
        best[clause] = max(best.get(clause, strength), strength)
    ties = {c for c in best if sum(1 for _p, k, s in claims if k == c and s == best[c]) > 1}
    for pipeline, clause, strength in claims:
        if (strength < best[clause] or clause in ties) and clause in pipeline.triggers:
            pipeline.triggers.remove(clause)
