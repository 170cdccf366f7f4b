"""Filling a routed pipeline's inputs from the request: explicit first, then offline parsing,
or one lite-tier call with the declaration as JSON Schema when a provider is configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.config import Config
from runtime.errors import InputError
from runtime.extract import extract_inputs, offline_extract
from runtime.providers.scripted import ScriptedProvider


@pytest.mark.parametrize(
    ("request_text", "declared", "expected"),
    [
        (
            "review PR 42 of repo=acme/web",
            {"repo": "string", "pr_number": "integer"},
            {"repo": "acme/web", "pr_number": 42},
        ),
        (
            "review --repo acme/web --pr-number 7",
            {"repo": "string", "pr_number": "integer"},
            {"repo": "acme/web", "pr_number": 7},
        ),
        ("summarise 'Q3 plan' please", {"title": "string"}, {"title": "Q3 plan"}),
        ("翻译「你好世界」", {"text": "string"}, {"text": "你好世界"}),
        ("threshold: 0.75 for scoring", {"threshold": "number"}, {"threshold": 0.75}),
        ("dry_run=yes now", {"dry_run": "boolean"}, {"dry_run": True}),
        # Ambiguous: two numbers for one integer, two quoted strings for one string -> nothing.
        ("compare 3 and 4", {"n": "integer"}, {}),
        ('"a" or "b"', {"s": "string"}, {}),
        # A lone value goes to the one required input of its kind, optional ones aside.
        (
            "stats of 'data.csv' limit 5",
            {"path": "string", "columns": "string?", "limit": "integer?"},
            {"path": "data.csv", "limit": 5},
        ),
        ("take 'x'", {"a": "string?", "b": "string?"}, {}),
        ("take 'x'", {"a": "string?"}, {"a": "x"}),
        # A value shaped like what the input's name says: handle, domain, e-mail, URL.
        (
            "view the profile of alice.bsky.social",
            {"handle": "string"},
            {"handle": "alice.bsky.social"},
        ),
        ("follow @bob.bsky.social", {"handle": "string"}, {"handle": "bob.bsky.social"}),
        (
            "set the nameservers of example.com to ns1.host.net",
            {"domain": "string", "limit": "integer?"},
            {},  # two domains: ambiguous
        ),
        (
            "list records of example.com as json",
            {"domain": "string", "format": "string?"},
            {"domain": "example.com"},
        ),
        ("open report.pdf", {"domain": "string"}, {}),  # a file name, not a domain
        (
            "mail bob@example.com the https://example.com/r.pdf link",
            {"email": "string", "url": "string", "subject": "string?"},
            {"email": "bob@example.com", "url": "https://example.com/r.pdf"},
        ),
    ],
)
def test_offline_extraction(request_text: str, declared: dict, expected: dict) -> None:
    assert offline_extract(request_text, declared) == expected


def test_a_named_value_of_the_wrong_type_is_an_input_error_not_a_missing_input() -> None:
    with pytest.raises(InputError, match="input count='many' is not a valid integer"):
        offline_extract("count=many", {"count": "integer"})


def test_existing_file_token_fills_the_only_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "changes.diff").write_text("x")
    # made absolute: it was found from here, and steps run in their pipeline folder
    assert offline_extract("review changes.diff now", {"diff_file": "string"}) == {
        "diff_file": str(tmp_path / "changes.diff")
    }
    assert offline_extract("review missing.diff now", {"diff_file": "string"}) == {}


def test_explicit_inputs_win_and_are_not_reextracted() -> None:
    values = extract_inputs(
        "repo=other/x", {"repo": "string"}, {"repo": "acme/web"}, provider=None, config=Config()
    )
    assert values == {"repo": "acme/web"}


def test_llm_extraction_keeps_only_stated_and_well_typed_values() -> None:
    provider = ScriptedProvider({"_router/extract": [{"repo": "acme/web", "pr_number": None}]})
    values = extract_inputs(
        "review the acme web repo",
        {"repo": "string", "pr_number": "integer"},
        {},
        provider=provider,
        config=Config(),
    )
    assert values == {"repo": "acme/web"}


def test_llm_extraction_ignores_an_answer_outside_the_schema() -> None:
    provider = ScriptedProvider({"_router/extract": [{"repo": 5, "pr_number": None}]})
    values = extract_inputs(
        "x", {"repo": "string", "pr_number": "integer"}, {}, provider=provider, config=Config()
    )
    assert values == {}


def test_a_file_named_relative_or_quoted_is_passed_on_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """./x and ../x keep their dots; a quoted name of an existing file is a path too."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "uni.txt").write_text("five")
    (tmp_path / "我的 notes.txt").write_text("x")
    monkeypatch.chdir(tmp_path / "sub")
    declared = {"input_file": "string"}
    want = {"input_file": str(tmp_path / "uni.txt")}
    assert offline_extract("count words in ../uni.txt.", declared) == want
    monkeypatch.chdir(tmp_path)
    assert offline_extract("count words in ./uni.txt", declared) == want
    assert offline_extract("count words in (uni.txt)", declared) == want
    assert offline_extract("count words in 'uni.txt'", declared) == want
    assert offline_extract("count '我的 notes.txt'", declared) == {
        "input_file": str(tmp_path / "我的 notes.txt")
    }
    assert offline_extract("say 'hello there'", {"text": "string"}) == {"text": "hello there"}
