"""Filling a routed pipeline's inputs from the request: explicit first, then offline parsing,
or one lite-tier call with the declaration as JSON Schema when a provider is configured."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skill2app.runtime.app.config import Config
from skill2app.runtime.errors import InputError
from skill2app.runtime.providers.base import LlmRequest
from skill2app.runtime.providers.scripted import ScriptedProvider
from skill2app.runtime.routing.extraction import extract_inputs, offline_extract


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
            {"path": os.path.abspath("data.csv"), "limit": 5},  # meant from here
        ),
        (  # a comparison, not a count
            "filter rows of sample.csv where units>3",
            {"where": "string?", "limit": "integer?"},
            {},
        ),
        (  # which quote pairs with which is a guess
            "count the words in 'rock 'n' roll'",
            {"text": "string"},
            {},
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


def test_a_file_named_in_the_request_fills_the_one_file_input_among_strings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newcomer's trial: a pipeline with a file input and a text input got nothing from
    "summarise notes.md in three bullets" (rule 4 took only a lone string input)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / "other.md").write_text("y")
    (tmp_path / "docs").mkdir()
    two = {"file": "string", "style": "string"}
    assert offline_extract("summarise notes.md in three bullets", two) == {
        "file": str(tmp_path / "notes.md")
    }
    # two files, a file that is not there, or two file inputs: nothing is guessed
    assert offline_extract("summarise notes.md and other.md", two) == {}
    assert offline_extract("summarise gone.md", two) == {}
    both = {"src_file": "string", "dst_file": "string"}
    assert offline_extract("copy notes.md", both) == {}
    # quoted text stays for the other input; a folder goes to the folder input
    assert offline_extract("summarise notes.md as 'bullets'", two) == {
        "file": str(tmp_path / "notes.md")
    }
    into = {"file": "string", "folder": "string"}
    assert offline_extract("put notes.md into docs/", into) == {
        "file": str(tmp_path / "notes.md"),
        "folder": str(tmp_path / "docs"),
    }
    # a bare word naming a file or folder here is a word, as for a lone input (a reviewer's:
    # "explain the Makefile", "list files in docs")
    (tmp_path / "Makefile").write_text("all:\n")
    assert offline_extract("explain the Makefile briefly", two) == {}
    assert offline_extract("list files in docs", {"folder": "string", "pattern": "string"}) == {}


def test_files_to_read_to_write_and_allowed_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host agents' trial: an output file was filled with the input's path (and would have
    overwritten it), an enum input with a file name, a list of files not at all."""
    monkeypatch.chdir(tmp_path)
    for name in ("a.pdf", "b.pdf", "scan.pdf"):
        (tmp_path / name).write_bytes(b"%PDF-1.4\n")
    merge = {"pdf_files": "array", "output_path": "string?"}
    assert offline_extract("merge a.pdf and b.pdf into both.pdf", merge) == {
        "pdf_files": [str(tmp_path / "a.pdf"), str(tmp_path / "b.pdf")],
        "output_path": str(tmp_path / "both.pdf"),  # said to be written: taken
    }
    # an existing file is never guessed into an output: it would be overwritten
    assert offline_extract("compress scan.pdf", {"output_file": "string?"}) == {}
    rotate = {"pdf_file": "string", "degrees": "integer?", "out_path": "string?"}
    assert offline_extract("rotate scan.pdf by 180", rotate, {"degrees": [90, 180, 270]}) == {
        "degrees": 180,
        "pdf_file": str(tmp_path / "scan.pdf"),
    }
    modes = {"mode": ["append", "overwrite"]}
    assert offline_extract("put it in overwrite mode", {"mode": "string?"}, modes) == {
        "mode": "overwrite"
    }
    # an input with allowed values takes only one of them: not the file, not two of them
    assert offline_extract("use scan.pdf", {"mode": "string"}, modes) == {}
    assert offline_extract("append or overwrite?", {"mode": "string"}, modes) == {}


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


# --- the Anthropic provider: the extraction schema goes through the SDK's transform_schema ---


def test_llm_extraction_through_the_real_anthropic_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema once had ``"type": [T, "null"]``, which transform_schema asserts on: every
    request with a missing input and an API key was an internal error before any call."""
    import httpx2

    from skill2app.runtime.providers.anthropic import AnthropicProvider

    sent: list[dict] = []

    def api(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        answer = {"path": "sales.csv", "rows": None}
        body = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": json.dumps(answer)}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 9, "output_tokens": 9},
        }
        return httpx2.Response(200, json=body)

    client = httpx2.Client(transport=httpx2.MockTransport(api))
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    provider = AnthropicProvider(api_key="test-key", http_client=client, max_retries=0)
    asked: list[LlmRequest] = []
    complete = provider.complete
    monkeypatch.setattr(provider, "complete", lambda r: asked.append(r) or complete(r))
    declared = {"path": "string", "rows": "integer?"}
    values = extract_inputs(
        "summarise the sales table", declared, {}, provider=provider, config=Config()
    )
    assert values == {"path": "sales.csv"}
    nullable_int = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert asked[0].schema is not None
    assert asked[0].schema["properties"]["rows"] == nullable_int  # as the SDK takes it
    assert sent[0]["output_config"]["format"]["schema"]["properties"]["rows"] == nullable_int


# --- filesystem probes never fail --------------------------------------------------------------


@pytest.mark.parametrize(
    "request_text",
    [
        "count the words in '" + " ".join(["word"] * 60) + "'",  # > 255 bytes: ENAMETOOLONG
        "count the words in " + "x" * 300 + ".txt",
        "count the words in " + "d/" * 3000 + "a.txt",  # longer than PATH_MAX
        "count the words in 'a\0b.txt'",  # a NUL byte: ValueError
        "count the words in a\0b.txt",
    ],
)
def test_text_no_file_can_have_as_name_is_not_an_error(request_text: str) -> None:
    found = offline_extract(request_text, {"text": "string"})
    quoted = request_text.partition("'")[2].rpartition("'")[0]
    assert found == ({"text": quoted} if quoted else {})


# --- rule 1: named values ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_text", "declared", "expected"),
    [
        # prose: more than one word after "text:" is not a value of one word
        ("count the words in this text: the quick brown fox", {"text": "string"}, {}),
        (
            "count the words in this text: 'the quick brown fox'",
            {"text": "string"},
            {"text": "the quick brown fox"},
        ),
        ("text: hello", {"text": "string"}, {"text": "hello"}),
        (
            "review repo: acme/web, then pr 42",
            {"repo": "string", "pr": "integer"},
            {
                "repo": "acme/web",
                "pr": 42,
            },
        ),
        ("review repo: acme/web.", {"repo": "string"}, {"repo": "acme/web"}),
        # never inside quoted text: the quoted text is the value
        (
            "count the words in 'the text: hello world'",
            {"text": "string"},
            {"text": "the text: hello world"},
        ),
        ("say 'n=5 please'", {"text": "string", "n": "integer?"}, {"text": "n=5 please"}),
        # nor inside a URL
        ("fetch https://x.org/?text=hi", {"text": "string"}, {"text": "https://x.org/?text=hi"}),
        # a name inside another word is not the name
        ("the subtext: hello", {"text": "string"}, {}),
        (
            "--lines 5 of --text hello world",
            {"lines": "integer", "text": "string"},
            {
                "lines": 5,
                "text": "hello",
            },
        ),
        ('title="Mary\'s essay" now', {"title": "string"}, {"title": "Mary's essay"}),
        ("count: the words", {"count": "integer?"}, {}),  # prose, not a value
        (
            "show it --verbose --lines 5",
            {"lines": "integer", "verbose": "boolean?"},
            {
                "lines": 5,
                "verbose": True,
            },
        ),
        ("show it --lines", {"lines": "integer?"}, {}),
        # a URL that names another input is not a candidate for the text
        (
            "url=https://a.com 'hi'",
            {"url": "string", "text": "string"},
            {
                "url": "https://a.com",
                "text": "hi",
            },
        ),
        (
            "source=https://a.com",
            {"source": "string", "url": "string"},
            {"source": "https://a.com"},
        ),
        (
            "count the words in 'see https://x.com now'",
            {"text": "string"},
            {"text": "see https://x.com now"},
        ),
        ("threshold: 0.75 for scoring", {"threshold": "number"}, {"threshold": 0.75}),
    ],
)
def test_named_values(request_text: str, declared: dict, expected: dict) -> None:
    assert offline_extract(request_text, declared) == expected


# --- quotes and apostrophes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("what's on today's agenda?", {}),
        ("count the words of Mary's essay, it's short", {}),
        ("count the words in 'it's short' please", {"text": "it's short"}),
        ("count 'Mary's essay' and nothing else", {"text": "Mary's essay"}),
        ("翻译'你好'", {"text": "你好"}),
        ("the students' essay", {}),
    ],
)
def test_an_apostrophe_is_not_a_quote_mark(request_text: str, expected: dict) -> None:
    assert offline_extract(request_text, {"text": "string"}) == expected


# --- rule 2: the only number -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("以 JSON 显示表格的前2行", {"lines": 2}),
        ("以 JSON 显示表格的前 2 行", {"lines": 2}),
        ("最后３行", {"lines": 3}),  # fullwidth digit
        ("show the head of data/2024/app.log", {}),
        ("show the head of app2024.log", {}),
        ("show the head of 2024.log", {}),
        ("show the head of https://example.com/logs?page=2", {}),
        ("upgrade to v2.0 and show the log", {}),
        ("upgrade to 1.2.3 and show the log", {}),
        ("the log of 2024-05-01", {}),
        ("the log at 12:30", {}),
        ("the log of 3/4", {}),
        ("the log of 5月", {}),
        ("the log, lines 5-10", {}),
        ("the log of build-7", {}),
        ("count the words in 'I have 3 apples'", {}),
        ("show the first 5.", {"lines": 5}),
        ("show PR #42", {"lines": 42}),
        ("show 20 lines of data/2024/app.log", {"lines": 20}),
    ],
)
def test_the_only_number(request_text: str, expected: dict) -> None:
    declared = {"lines": "integer?", "text": "string?", "other": "string?"}
    found = offline_extract(request_text, declared)
    assert {k: v for k, v in found.items() if k == "lines"} == expected


# --- rule 3: URLs, e-mails, domains ------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_text", "declared", "expected"),
    [
        ("fetch the page https://example.com/a.", {"url": "string"}, "https://example.com/a"),
        ("fetch https://example.com/a, then stop", {"url": "string"}, "https://example.com/a"),
        ("fetch the page (https://example.com/a)", {"url": "string"}, "https://example.com/a"),
        ("fetch the page（https://example.com/a）", {"url": "string"}, "https://example.com/a"),
        ("抓取 https://example.com/a。谢谢", {"url": "string"}, "https://example.com/a"),
        # CJK letters in a URL: its own (/wiki/北京) or the sentence's, run on? Fill nothing.
        ("抓取https://example.com/a谢谢", {"url": "string"}, None),
        ("fetch https://zh.wikipedia.org/wiki/北京", {"url": "string"}, None),
        ("whois https://EXAMPLE.org/a.", {"domain": "string"}, "EXAMPLE.org"),  # as written
        ("see https://x.org/wiki/A_(b).", {"url": "string"}, "https://x.org/wiki/A_(b)"),
        ("fetch <https://example.com/a>!", {"url": "string"}, "https://example.com/a"),
        ("whois lookup https://www.example.org/path", {"domain": "string"}, "www.example.org"),
        ("whois lookup example.org.", {"domain": "string"}, "example.org"),
        # the host of a link is not the handle in its path
        ("view https://bsky.app/profile/alice.bsky.social", {"handle": "string"}, None),
        ("whois 'hello world'", {"domain": "string"}, None),  # only a domain fills a domain
    ],
)
def test_shaped_values(request_text: str, declared: dict, expected: str | None) -> None:
    name = next(iter(declared))
    assert offline_extract(request_text, declared) == ({name: expected} if expected else {})


# --- rule 4: files and folders -----------------------------------------------------------------

CSV_STATS = {"path": "string", "columns": "string?", "delimiter": "string?"}


@pytest.mark.parametrize(
    ("request_text", "declared", "expected"),
    [
        # a file input takes the existing file, not a quoted word
        ("summarise the column 'revenue' of sample.csv", CSV_STATS, "sample.csv"),
        ("summarise the column 'revenue' of missing.csv", CSV_STATS, None),
        ("summarise the columns split by / of the CSV", CSV_STATS, None),
        ("summarise the columns in ./sub", CSV_STATS, None),  # a folder, not a file
        ("summarise the columns in 'sub'", CSV_STATS, None),
        ("stats of 'out/new.csv'", CSV_STATS, "out/new.csv"),  # quoted, shaped like a path
        ("list the files in ./sub", {"folder": "string"}, "sub"),
        ("list the files in sample.csv", {"folder": "string"}, None),
        ("stats of 'https://x.org/a.csv'", CSV_STATS, None),  # a URL is not a local file
        ("count the words in ./sub", {"text": "string"}, "sub"),
        ("count the words in 'sub'", {"text": "string"}, "'sub'"),  # a word, as typed
        ("count the words in 'sample.csv' of sample.csv", {"text": "string"}, "sample.csv"),
        ("count the words in 'hi' of sample.csv", {"text": "string"}, None),  # two candidates
        ("check the profile 'alice'", {"profile": "string"}, "'alice'"),  # not a *file
    ],
)
def test_what_a_path_input_takes(
    request_text: str,
    declared: dict,
    expected: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sample.csv").write_text("a,b\n")
    (tmp_path / "sub").mkdir()
    name = next(iter(declared))
    found = offline_extract(request_text, declared)
    if expected is None:
        assert name not in found
    elif expected.startswith("'"):
        assert found[name] == expected.strip("'")
    else:  # a path (there or not: a file to write) meant from where app-run was started
        assert found[name] == str(tmp_path / expected)


def test_a_file_named_for_a_path_input_is_passed_on_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a bare file is: steps run in their pipeline folder. A text input keeps its value."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.log").write_text("x")
    absolute = str(tmp_path / "app.log")
    declared = {"logfile": "string", "lines": "integer?"}
    assert offline_extract("head of logfile=app.log", declared) == {"logfile": absolute}
    assert offline_extract("head of --logfile app.log, 5 lines", declared) == {
        "logfile": absolute,
        "lines": 5,
    }
    # one not there yet (a file to write) is meant from here too
    none = str(tmp_path / "none.log")
    assert offline_extract("head of logfile=none.log", declared) == {"logfile": none}
    assert offline_extract("say title=app.log", {"title": "string"}) == {"title": "app.log"}
    explicit = extract_inputs(
        "head of app.log", declared, {"logfile": "app.log"}, provider=None, config=Config()
    )
    assert explicit == {"logfile": "app.log"}  # --input: passed on as given
