"""Free text from the request for a free-text input (issue 20): the quoted text, the text after
a colon, or the request without the words that frame it — never for paths, numbers or enums."""

from __future__ import annotations

import pytest

from skill2app.runtime.app.config import Config
from skill2app.runtime.routing.filling import fill_inputs
from skill2app.runtime.routing.freetext import free_text, free_text_input
from skill2app.runtime.routing.schema import input_schema


@pytest.mark.parametrize(
    ("request_text", "phrases", "expected"),
    [
        (
            "please triage this bug report: the app crashes when I upload a photo",
            ["triage this bug"],
            ("the app crashes when I upload a photo", "the text after the colon"),
        ),
        (
            'translate "good morning" into French',
            ["translate into French"],
            ("good morning", "the quoted text"),
        ),
        (
            "summarise the meeting we had about the budget",
            ["summarise these meeting notes"],
            ("we had about the budget", "the request without the words of the trigger"),
        ),
        (
            "search the wiki for onboarding checklist please",
            ["search the wiki"],
            ("onboarding checklist", "the request without the words of the trigger"),
        ),
        (
            "帮我总结一下：今天会议决定下周发布",
            ["总结会议"],
            ("今天会议决定下周发布", "the text after the colon"),
        ),
        ("see https://example.org:8080/x", ["see it"], ("https://example.org:8080/x", None)),
        ("please", ["please help"], None),
    ],
)
def test_free_text_is_taken_from_the_request(
    request_text: str, phrases: list[str], expected: tuple[str, str | None] | None
) -> None:
    found = free_text(request_text, phrases)
    if expected is None or expected[1] is None:
        assert found is None or expected is not None and found[0] == expected[0]
    else:
        assert found == expected


@pytest.mark.parametrize(
    ("missing", "declared", "expected"),
    [
        ({"report": "string"}, {"report": "string"}, "report"),
        ({"title": "string"}, {"title": "string", "count": "integer"}, "title"),  # only string
        ({"title": "string"}, {"title": "string", "subtitle": "string"}, None),  # two: a guess
        ({"text": "string", "query": "string"}, {"text": "string", "query": "string"}, None),
        ({"path": "string"}, {"path": "string"}, None),  # never a path
        ({"out_dir": "string"}, {"out_dir": "string"}, None),
        ({"url": "string"}, {"url": "string"}, None),
        ({"count": "integer"}, {"count": "integer"}, None),  # never a number
        ({"notes": "string?"}, {"notes": "string?"}, "notes"),
    ],
)
def test_which_input_takes_free_text(
    missing: dict[str, str], declared: dict[str, str], expected: str | None
) -> None:
    assert free_text_input(missing, declared) == expected


def test_filling_says_where_each_value_came_from() -> None:
    filled = fill_inputs(
        "count the words in this: hello big world limit=3",
        {"text": "string", "limit": "integer?", "lang": "string?"},
        {"lang": "en"},
        provider=None,
        config=Config(),
        phrases=["count the words"],
    )
    assert filled.values == {"lang": "en", "limit": 3, "text": "hello big world"}
    assert filled.sources == {"lang": "given", "limit": "request", "text": "free text"}
    assert filled.how == {"text": "the text after the colon"} and filled.missing == []
    assert filled.report()["text"] == {
        "value": "hello big world",
        "from": "free text",
        "how": "the text after the colon",
    }


def test_a_path_is_never_free_text() -> None:
    filled = fill_inputs(
        "compare: the two of them", {"left_file": "string"}, {}, provider=None, config=Config()
    )
    assert filled.values == {} and filled.missing == ["left_file"]


def test_input_schema_says_types_descriptions_and_defaults() -> None:
    schema = input_schema({"report": "string", "logfile": "string", "n": "integer?"})
    assert schema["properties"] == {
        "report": {"type": "string", "description": "free text"},
        "logfile": {
            "type": "string",
            "description": "path of a file (absolute, or relative to where app-run is started)",
        },
        "n": {"type": ["integer", "null"]},
    }
    assert schema["required"] == ["report", "logfile"]
    assert input_schema({"a": "string", "b": "number"}, names=["b"])["required"] == ["b"]


def test_a_long_form_declaration_says_its_own_description_enum_and_default() -> None:
    from skill2app.runtime.routing.schema import row_declaration

    declared, info = row_declaration(
        {
            "report": {"type": "string", "description": "The bug report, as the user wrote it"},
            "severity": {"type": "string", "enum": ["low", "high"], "default": "low"},
            "path": "string",
        }
    )
    schema = input_schema(declared, info)
    assert schema["properties"]["report"]["description"] == "The bug report, as the user wrote it"
    assert schema["properties"]["severity"] == {
        "type": "string",
        "enum": ["low", "high"],
        "default": "low",
    }
    assert schema["properties"]["path"]["description"].startswith("path of a file")
    assert schema["required"] == ["report", "path"]
