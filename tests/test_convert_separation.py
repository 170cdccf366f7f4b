"""The heuristic's triggers said in other words, checked with the router (``separation``).

A request said another way can say a sibling's task ("查看日程" of get-event is what list-events
asks); the self-test then sends the sibling's requests astray.  An expansion the router sends
to another pipeline is dropped and replaced from the candidates left; the skill's own words
only from a pipeline with more than five, while five are left.
"""

from __future__ import annotations

from skill2app.converter.analyzers.separation import Expansions, separate
from skill2app.converter.analyzers.triggers import trigger_key
from skill2app.converter.plan.model import Pipeline, Plan
from skill2app.runtime.routing import RouteEntry
from skill2app.runtime.routing.selftest import selftest

MERGE = ["merge pdf files", "combine pdfs into one document", "join several pdfs"]
SPLIT = ["split a pdf into pages", "break a pdf apart", "cut the pdf into single pages"]


def _plan(merge_extra: list[str]) -> Plan:
    plan = Plan("pdf", "PDF tools")
    plan.pipelines = [
        Pipeline("merge", "Merge PDF files into one", [*MERGE, *merge_extra]),
        Pipeline("split", "Split a PDF into one file per page", list(SPLIT)),
    ]
    return plan


def test_an_expansion_saying_a_siblings_task_is_dropped_and_replaced() -> None:
    plan = _plan(["split the pdf into separate pages"])  # a made-up trigger saying split's task
    expansions = {
        "merge": Expansions(
            {trigger_key("split the pdf into separate pages")}, ["concatenate pdfs"]
        ),
        "split": Expansions(),
    }
    taken = {trigger_key(t) for p in plan.pipelines for t in p.triggers}
    notes = separate(plan, expansions, taken)
    merge = plan.pipelines[0].triggers
    assert "split the pdf into separate pages" not in merge
    assert merge[:3] == MERGE  # the skill's own words stay
    assert "concatenate pdfs" in merge  # a pipeline short of five is topped up
    assert plan.pipelines[1].triggers == SPLIT
    assert notes and "split the pdf into separate pages" in notes[0]
    entries = [RouteEntry(p.name, p.description, tuple(p.triggers)) for p in plan.pipelines]
    assert not selftest(entries, cache_dir=None).strays


def test_an_own_trigger_of_a_pipeline_of_five_stays_and_a_fitting_expansion_too() -> None:
    plan = _plan(["merge the pdfs", "split the pdf into separate pages"])
    expansions = {"merge": Expansions({trigger_key("merge the pdfs")}), "split": Expansions()}
    taken = {trigger_key(t) for p in plan.pipelines for t in p.triggers}
    assert separate(plan, expansions, taken) == []  # five: no word of the skill to spare
    assert plan.pipelines[0].triggers == [
        *MERGE,
        "merge the pdfs",
        "split the pdf into separate pages",
    ]


def test_nothing_made_up_nothing_checked() -> None:
    plan = _plan([])
    assert separate(plan, {"merge": Expansions(), "split": Expansions()}, set()) == []
    assert plan.pipelines[0].triggers == MERGE


def test_an_own_trigger_saying_a_siblings_task_is_dropped_where_five_are_left() -> None:
    stray = "split the pdf into separate pages"
    plan = _plan(["merge the pdfs", "put two pdfs together", stray])  # the skill's own, six
    taken = {trigger_key(t) for p in plan.pipelines for t in p.triggers}
    notes = separate(plan, {"merge": Expansions(), "split": Expansions()}, taken)
    assert plan.pipelines[0].triggers == [*MERGE, "merge the pdfs", "put two pdfs together"]
    assert notes and stray in notes[0]
    assert plan.pipelines[1].triggers == SPLIT  # three: none to spare, none checked away


def test_own_triggers_are_dropped_farthest_astray_first_down_to_five() -> None:
    strays = ["split the pdf into separate pages", "split pages", "cut a pdf into pages"]
    plan = _plan(["merge the pdfs", *strays])  # six: one may go
    taken = {trigger_key(t) for p in plan.pipelines for t in p.triggers}
    entries = [RouteEntry(p.name, p.description, tuple(p.triggers)) for p in plan.pipelines]
    found = {s.text: s.mine - s.score for s in selftest(entries, cache_dir=None).strays}
    assert set(strays) <= set(found)  # all three go astray
    farthest = min(strays, key=lambda t: found[t])
    separate(plan, {"merge": Expansions(), "split": Expansions()}, taken)
    merge = plan.pipelines[0].triggers
    assert len(merge) == 5 and farthest not in merge


def test_a_chinese_pipeline_keeps_five_requests_in_chinese() -> None:
    """A Chinese skill's pipeline of six (five in Chinese, one in English) keeps its Chinese
    request that strays: dropping it would leave four in the skill's language."""
    stray = "把PDF拆分成单页"
    plan = Plan("pdf", "PDF 工具", language="zh")
    plan.pipelines = [
        Pipeline(
            "merge",
            "合并 PDF",
            ["合并PDF文件", "把几个PDF合成一个", "合并多个PDF", "拼接PDF", stray, "merge pdfs"],
        ),
        Pipeline(
            "split",
            "拆分 PDF",
            ["拆分PDF", "把PDF拆成单页", "分割PDF文件", "PDF按页拆分", "切分PDF"],
        ),
    ]
    entries = [RouteEntry(p.name, p.description, tuple(p.triggers)) for p in plan.pipelines]
    assert stray in {
        s.text for s in selftest(entries, cache_dir=None).strays if s.decision == "match"
    }
    taken = {trigger_key(t) for p in plan.pipelines for t in p.triggers}
    separate(plan, {"merge": Expansions(), "split": Expansions()}, taken)
    assert stray in plan.pipelines[0].triggers
