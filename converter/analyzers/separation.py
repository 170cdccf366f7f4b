"""Triggers that tell a skill's pipelines apart, checked with the router that will route them.

The heuristic says a pipeline's requests in other words (``triggers.more_requests``: "获取日程"
→ "查看日程", "create event" → "create an event") until it has five.  Said of siblings that
share an object, other words can mean another sibling's task: "查看日程" of get-event is what
list-events' "查看所有日程" says, and the router sends it to list-events.  So the expansions
are kept only where the router agrees: each trigger is routed
against the rest of the table with itself left out (the routing self-test of
``runtime/routing/selftest.py``), and

- an expansion that lands on another pipeline is dropped: it says the sibling's task (dropping
  also the expansions that draw a sibling's own phrases away was tried: it cost a tenth of
  the pipelines their fifth trigger and moved the self-test by 0.2 points on DEV);
- a pipeline left short of five gets the next of its candidates, which are checked in turn.

The skill's own words are dropped only from a pipeline that has more than five: its requests
that the router matches to a sibling outright (an unsure one is left to the caller, and may be
the skill's most natural request), the farthest astray first, while five are left, five in the
skill's language too.  On the 220 skills of DEV, TEST and FRESH to FRESH31, with the
descriptions of a Chinese program's actions (``documentation.path_description``), the
self-test went from 85.7 to 87.0 %, with as many pipelines of five (dropping the unsure ones
too gave 88.1 % but cost realistic requests such as cron-manager's
"把那个天气任务改成每2小时执行").  Where a pipeline has no words to spare,
the report says what overlaps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from skill2app.converter.analyzers.text import has_cjk, humanize
from skill2app.converter.analyzers.triggers import (
    CJK_LANGUAGES,
    MAX_TRIGGERS,
    MIN_TRIGGERS,
    in_language,
    more_requests,
    pick,
    trigger_key,
)

if TYPE_CHECKING:
    from pathlib import Path

    from skill2app.converter.plan.model import Pipeline, Plan

ROUNDS = 4  # checks of the table: each drops what strays and refills from the candidates


def dedupe(plan: Plan) -> None:
    """Unique names and triggers; a pipeline short of five requests in the skill's language
    gets its own said in other words, and an English request of a Chinese or Japanese skill
    a second one (a lone one has nothing of its own to reach); what the router then confuses
    with a sibling is dropped (``separate``)."""
    names: set[str] = set()
    triggers: set[str] = set()
    expansions: dict[str, Expansions] = {}
    for index, pipeline in enumerate(plan.pipelines, start=1):
        fallback = pipeline.name or pipeline.description[:80]
        pipeline.name = pipeline.name or f"{plan.app_name}-{index}"  # no ASCII name to go by
        base, n = pipeline.name, 2
        while pipeline.name in names:
            pipeline.name, n = f"{base}-{n}", n + 1
        names.add(pipeline.name)
        pipeline.triggers = pick(pipeline.triggers, triggers) or [humanize(fallback)]
        mine = expansions[pipeline.name] = Expansions()
        short = MIN_TRIGGERS - in_language(pipeline.triggers, plan.language)
        if short > 0:  # the same requests in other words
            more = more_requests(
                pipeline.triggers,
                plan.language,
                plan.app_name,
                pipeline.description,
                plan.app_description,
            )
            mine.give(pipeline, more, short, triggers)
        if lone_english(plan.language, pipeline.triggers) and len(pipeline.triggers) < MAX_TRIGGERS:
            english = [t for t in pipeline.triggers if not has_cjk(t)]
            verb = (english[0].split() or [""])[0].lower()  # "create a tasklist" first
            said = sorted(more_requests(english, "en"), key=lambda c: c.split()[:1] != [verb])
            mine.give(pipeline, said, 1, triggers)
        triggers |= {trigger_key(t) for t in pipeline.triggers}
    plan.notes += separate(plan, expansions, triggers)


@dataclass
class Expansions:
    """The triggers a pipeline was given in other words, and the candidates left."""

    made: set[str] = field(default_factory=set)  # trigger keys the analyzer made up
    left: list[str] = field(default_factory=list)  # candidates not yet tried, best first

    def give(self, pipeline: Pipeline, candidates: list[str], count: int, taken: set[str]) -> None:
        """Give ``pipeline`` ``count`` of ``candidates`` that no pipeline has (``taken``,
        which then holds them too); the rest stay ``left`` for a later top-up."""
        have = taken | _keys(pipeline.triggers)
        added = pick(candidates, have, count)
        tried = have | _keys(added)
        pool = dict.fromkeys([*self.left, *candidates])
        self.left = [c for c in pool if trigger_key(c) not in tried]
        self.made |= _keys(added)
        taken |= _keys(added)
        pipeline.triggers += added


def lone_english(language: str, triggers: list[str]) -> bool:
    """Whether a Chinese or Japanese skill's pipeline has one English request: alone in its
    language, it has nothing of its own to reach (the self-test sends it to a sibling)."""
    return language in CJK_LANGUAGES and sum(not has_cjk(t) for t in triggers) == 1


def separate(plan: Plan, expansions: dict[str, Expansions], taken: set[str]) -> list[str]:
    """Drop the expansions of ``plan``'s pipelines that the router confuses with a sibling,
    and refill from the candidates (``taken``: trigger keys no pipeline may take again);
    return notes for the report (what was dropped, or that the router could not be loaded
    here and nothing was checked)."""
    spare = any(len(p.triggers) > MIN_TRIGGERS for p in plan.pipelines)
    if len(plan.pipelines) < 2 or not (spare or any(e.made for e in expansions.values())):
        return []
    try:
        from skill2app.runtime.errors import AppRunError
        from skill2app.runtime.routing.selftest import model_cache
    except ImportError:  # pragma: no cover - the runtime ships with the converter
        return []
    dropped: list[str] = []
    for _ in range(ROUNDS):
        try:
            culprits = _culprits(plan, expansions, model_cache())
        except (AppRunError, ImportError, OSError) as exc:
            return [f"the triggers were not checked with the router: {exc}"]
        if not culprits:
            break
        for pipeline in plan.pipelines:
            mine = culprits.get(pipeline.name, set())
            if not mine:
                continue
            kept = [t for t in pipeline.triggers if trigger_key(t) not in mine]
            dropped += [f"{pipeline.name}: {t}" for t in pipeline.triggers if t not in kept]
            pipeline.triggers = kept
            taken |= mine  # never tried again, here or on a sibling
        _refill(plan, expansions, taken)
    if not dropped:
        return []
    return [
        f"{len(dropped)} trigger(s) were dropped: the router sent them to another pipeline "
        f"({'; '.join(dropped[:6])}"
        f"{' …' if len(dropped) > 6 else ''})"
    ]


def _culprits(
    plan: Plan, expansions: dict[str, Expansions], cache_dir: Path | None
) -> dict[str, set[str]]:
    """Per pipeline, the keys of its triggers that route to another pipeline (the routing
    self-test's strays, ``runtime.routing.selftest``): every made-up one, and of the skill's
    own, the farthest astray first while MIN_TRIGGERS are left."""
    from skill2app.runtime.routing.route import RouteEntry
    from skill2app.runtime.routing.selftest import selftest

    entries = [RouteEntry(p.name, p.description, tuple(p.triggers)) for p in plan.pipelines]
    strays = [s for s in selftest(entries, cache_dir=cache_dir).strays if s.kind == "trigger"]
    triggers = {p.name: p.triggers for p in plan.pipelines}
    found: dict[str, set[str]] = {}
    for stray in strays:
        key = trigger_key(stray.text)
        if key in expansions.get(stray.own, Expansions()).made:
            found.setdefault(stray.own, set()).add(key)  # it says a sibling's task
    for stray in sorted(strays, key=lambda s: s.mine - s.score):
        if stray.decision != "match":
            continue  # unsure: the caller chooses; the skill's request may be the right one
        key, mine = trigger_key(stray.text), found.setdefault(stray.own, set())
        left = [t for t in triggers[stray.own] if trigger_key(t) not in mine | {key}]
        # the skill's own words, where it has more than it needs, in its language too
        enough = len(left) >= MIN_TRIGGERS and (
            in_language([stray.text], plan.language) == 0
            or in_language(left, plan.language) >= MIN_TRIGGERS
        )
        if key not in mine and enough:
            mine.add(key)
    return {name: keys for name, keys in found.items() if keys}


def _refill(plan: Plan, expansions: dict[str, Expansions], taken: set[str]) -> None:
    """Top up each pipeline short of five, or left with one English request in a Chinese or
    Japanese skill, from its candidates not yet tried."""
    cjk = plan.language in CJK_LANGUAGES
    for pipeline in plan.pipelines:
        mine = expansions.get(pipeline.name)
        if mine is None or not mine.left:
            continue
        short = MIN_TRIGGERS - in_language(pipeline.triggers, plan.language)
        if short > 0:
            alike = [c for c in mine.left if has_cjk(c) == cjk]  # in the skill's language
            mine.give(pipeline, alike, short, taken)
        if lone_english(plan.language, pipeline.triggers):
            mine.give(pipeline, [c for c in mine.left if not has_cjk(c)], 1, taken)


def _keys(triggers: list[str]) -> set[str]:
    return {trigger_key(t) for t in triggers}
