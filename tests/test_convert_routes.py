"""app-convert's routing self-test (converter/verify/routes.py): a converted APP's own phrases
are routed with the embedded router; two pipelines matched to each other fail verification,
a phrase routed elsewhere is a warning, and the report says how many reached their own."""

from __future__ import annotations

from pathlib import Path

from helpers import code, make_app

from skill2app.converter.verify.routes import check_routes, confused_pairs
from skill2app.runtime.app.model import load_app
from skill2app.runtime.routing.route import RouteEntry
from skill2app.runtime.routing.selftest import Stray


def entry(name: str, triggers: int) -> RouteEntry:
    return RouteEntry(name, f"the {name} pipeline", tuple(f"t{i}" for i in range(triggers)))


def stray(own: str, other: str, decision: str = "match") -> Stray:
    return Stray("trigger", "t", own, other, 0.7, 0.5, decision)


def test_two_pipelines_are_confused_only_when_most_of_each_is_matched_to_the_other() -> None:
    entries = [entry("a", 2), entry("b", 2), entry("c", 2)]  # three phrases each
    mutual = [stray("a", "b"), stray("a", "b"), stray("b", "a"), stray("b", "a")]
    assert confused_pairs(entries, mutual) == [("a", "b")]
    one_way = [stray("a", "b"), stray("a", "b"), stray("b", "a")]  # one of b's three: not most
    assert confused_pairs(entries, one_way) == []
    unsure = [stray("a", "b"), stray("a", "b"), *[stray("b", "a", "unsure")] * 2]
    assert confused_pairs(entries, unsure) == []  # unsure is asked: nothing wrong runs
    lone = [entry("a", 0), entry("b", 2)]  # a description alone has nothing to route
    assert confused_pairs(lone, [stray("a", "b"), stray("b", "a"), stray("b", "a")]) == []


def test_pipelines_with_the_same_phrases_cannot_be_told_apart(tmp_path: Path) -> None:
    same = {
        "description": "Merge several PDF files into one PDF",
        "triggers": ["merge these PDFs", "combine the PDF files", "join a.pdf and b.pdf"],
        "steps": [code("s")],
    }
    other = {
        "description": "Send a message to a Slack channel",
        "triggers": ["post this to #general", "tell the team on Slack", "send a Slack message"],
        "steps": [code("s")],
    }
    app = load_app(make_app(tmp_path / "app", {"merge": same, "combine": same, "slack": other}))
    result = check_routes(app)
    assert result.ran and result.phrases == 12
    assert result.apart == [("combine", "merge")]
    assert result.errors == [
        'routing self-test: pipelines "combine" and "merge" cannot be told apart: most of the '
        "description and triggers of each route to the other"
    ]
    assert not any(s.own == "slack" for s in result.strays)  # its phrases reach it
    assert 'pipeline "slack" has fewer than 5 triggers' in " ".join(result.warnings)
    assert result.to_dict()["cannot_be_told_apart"] == [["combine", "merge"]]


def test_distinct_pipelines_pass_and_one_pipeline_is_not_tested(tmp_path: Path) -> None:
    merge = {
        "description": "Merge several PDF files into one PDF",
        "triggers": ["merge these PDFs", "combine the PDF files", "join a.pdf and b.pdf"],
        "steps": [code("s")],
    }
    slack = {
        "description": "Send a message to a Slack channel",
        "triggers": ["post this to #general", "tell the team on Slack", "send a Slack message"],
        "steps": [code("s")],
    }
    result = check_routes(load_app(make_app(tmp_path / "two", {"merge": merge, "slack": slack})))
    assert (result.ran, result.passed, result.phrases, result.errors) == (True, 8, 8, [])
    alone = check_routes(load_app(make_app(tmp_path / "one", {"merge": merge})))
    assert not alone.ran and "one business pipeline" in alone.skipped
