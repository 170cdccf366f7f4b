"""Claims: which pipeline a "Use when ..." situation of the skill is about.

Each path of a program, and each workflow, claims the situations (``situations.situations``)
that name its action's verb or share enough words with its program and section title; a
situation several pipelines claim stays with the one that claims it best, and one two claim
equally well is left to neither (``settle``).  A situation no path claimed is about the skill
as a whole: the pipeline that stands for the skill (named like it: its workflow, or its method)
takes it, while it has room (``adopt``).  (Giving what is still left to the pipeline the
embedded router matches it to was tried and dropped: on 231 corpus skills it gave pipelines
their fifth trigger 5 times and put "combining multiple PDFs into one" on split-pdf and
"删掉那个新闻任务" on cron-manager-enable.)
"""

from __future__ import annotations

from skill2app.converter.analyzers.situations import a_task
from skill2app.converter.analyzers.text import keys, overlap
from skill2app.converter.analyzers.triggers import MAX_TRIGGERS, clean, trigger_key
from skill2app.converter.analyzers.verbs import names_an_action
from skill2app.converter.plan.model import Pipeline, Plan

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


def adopt(plan: Plan, clauses: list[str], claimed: set[str]) -> None:
    """Give the situations no path claimed (``claimed``: those some path matched, kept or
    settled away) to the one pipeline named like the skill, up to MAX_TRIGGERS: goal-loop's
    workflow, named goal-loop, is what "run it until all tests are green" asks for.  A
    program's pipeline that is not the skill (webapp-testing's ``with_server.py``) takes
    none: what the skill is for is not what its helper does."""
    whole = [p for p in plan.pipelines if p.name == plan.app_name]
    if len(whole) != 1:
        return
    pipeline = whole[0]
    have = {trigger_key(t) for p in plan.pipelines for t in p.triggers}
    for clause in clauses:
        if len(pipeline.triggers) >= MAX_TRIGGERS:
            break
        text = clean(clause)
        if _a_request(text) and clause not in claimed and trigger_key(text) not in have:
            pipeline.triggers.append(text)
            have.add(trigger_key(text))


def _a_request(text: str) -> bool:
    """Whether a situation asks for something in words enough to route: an action, and a
    task by ``situations.a_task`` (three words, or four CJK characters: "run it until all
    tests are green", "发布公众号"), as the method pipeline takes its situations; not a
    keyword ("footnotes", "standup"), a topic ("burnout detection") or a quote cut in half
    ('failing" an "error')."""
    if not text or any(q in text for q in '"“”「」'):
        return False
    return a_task(text) and names_an_action(text)
