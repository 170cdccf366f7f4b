"""The Anthropic provider, driven through the real SDK against a mocked HTTP layer.

The SDK (anthropic 2.x) is built on httpx2, so respx cannot see its traffic; every test hands
the provider an ``httpx2.Client`` whose ``MockTransport`` handler checks the request the SDK
really sends and answers with the JSON (or SSE stream) the Messages API would return.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.providers.anthropic import (
    AnthropicProvider,
    parse_json_answer,
    thinking_config,
)
from skill2app.runtime.providers.base import LlmRequest

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = Path(__file__).resolve().parent / "cassettes"
SCHEMA = {
    "type": "object",
    "properties": {
        "severity": {"type": "string", "enum": ["low", "high"]},
        "files": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["severity", "files"],
    "additionalProperties": False,
}
# What the SDK's transform_schema makes of SCHEMA: the form the API accepts.
API_SCHEMA = {
    "type": "object",
    "properties": {
        "severity": {"enum": ["low", "high"]},
        "files": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
    "required": ["severity", "files"],
}
ANSWER = {"severity": "high", "files": ["app.py", "db.py"]}
FAST_RETRY = {"retry-after-ms": "1"}  # the SDK honours it: retries take 1 ms, not 0.5 s+

Handler = Callable[[httpx2.Request], httpx2.Response]


class Api:
    """A fake Messages API: records every request, answers from a list of responses."""

    def __init__(self, *responses: httpx2.Response | Exception) -> None:
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        assert request.method == "POST"
        assert request.url == "https://api.anthropic.com/v1/messages"
        # anthropic 2.10 sends the API key as a bearer token, not in x-api-key.
        assert request.headers["authorization"] == "Bearer test-key"
        assert "x-api-key" not in request.headers
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", request.headers["anthropic-version"])
        assert request.headers["content-type"] == "application/json"
        answer = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def body(self, index: int = -1) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


def provider(api: Handler, **kw: Any) -> AnthropicProvider:
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    return AnthropicProvider(api_key="test-key", http_client=client, **kw)


def request(**kw: Any) -> LlmRequest:
    fields: dict[str, Any] = {"prompt": "Review the diff.", "tier": "standard"}
    fields["model"] = "claude-sonnet-4-6"
    return LlmRequest(**(fields | kw))


def message(
    content: list[dict[str, Any]], stop_reason: str = "end_turn", model: str = "claude-sonnet-4-6"
) -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 42, "output_tokens": 17},
    }


def ok(content: list[dict[str, Any]], **kw: Any) -> httpx2.Response:
    return httpx2.Response(200, json=message(content, **kw), headers={"request-id": "req_1"})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def error(status: int, kind: str, detail: str, **headers: str) -> httpx2.Response:
    body = {"type": "error", "error": {"type": kind, "message": detail}, "request_id": "req_9"}
    return httpx2.Response(status, json=body, headers=headers)


def sse(*events: dict[str, Any]) -> httpx2.Response:
    """A ``text/event-stream`` body: each event named by its type, as the API sends it."""
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(
        200, content=body.encode(), headers={"content-type": "text/event-stream; charset=utf-8"}
    )


def thinking_stream(model: str, answer_text: str) -> httpx2.Response:
    start = message([], model=model) | {"stop_reason": None}
    start["usage"] = {"input_tokens": 120, "output_tokens": 1}
    half = len(answer_text) // 2
    return sse(
        {"type": "message_start", "message": start},
        {"type": "ping"},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "The diff touches db.py; "},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "that is risky."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "text_delta", "text": answer_text[:half]},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "text_delta", "text": answer_text[half:]},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 345},
        },
        {"type": "message_stop"},
    )


# --- answers ---------------------------------------------------------------------------------


def test_plain_text_answer() -> None:
    api = Api(ok([text("Looks fine. "), text("Ship it.")], model="claude-sonnet-4-6-20260217"))
    answer = provider(api).complete(request(system="You review code.", max_tokens=2048))

    assert answer.text == "Looks fine. Ship it."
    assert answer.data is None
    assert answer.model == "claude-sonnet-4-6-20260217"  # the model that answered
    assert answer.usage == {"input_tokens": 42, "output_tokens": 17}
    assert api.body() == {
        "model": "claude-sonnet-4-6",
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": "Review the diff."}],
        "system": "You review code.",
    }


def test_schema_answer_is_parsed_and_schema_sent_in_api_form() -> None:
    raw = json.dumps(ANSWER)
    api = Api(ok([text(raw)]))
    answer = provider(api).complete(request(schema=SCHEMA))

    assert answer.data == ANSWER
    assert answer.text == raw
    body = api.body()
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": API_SCHEMA}}
    assert "stream" not in body and "thinking" not in body and "system" not in body


def test_fenced_json_is_tolerated() -> None:
    raw = "```json\n" + json.dumps(ANSWER, indent=2) + "\n```"
    answer = provider(Api(ok([text(raw)]))).complete(request(schema=SCHEMA))

    assert answer.data == ANSWER
    assert answer.text == raw


@pytest.mark.parametrize(
    ("raw", "data"),
    [
        ('{"a": 1}', {"a": 1}),
        ("  ```\n[1, 2]\n```  ", [1, 2]),
        ('```JSON\n{"a": 1}```', {"a": 1}),
        ("Here you go: {", None),
    ],
)
def test_parse_json_answer(raw: str, data: Any) -> None:
    assert parse_json_answer(raw) == data


# --- reasoning tier: thinking + streaming ----------------------------------------------------


@pytest.mark.parametrize(
    ("model", "max_tokens", "thinking"),
    [
        ("claude-opus-4-6", 32_000, {"type": "adaptive"}),
        ("claude-haiku-4-5", 8192, {"type": "enabled", "budget_tokens": 4096}),
        ("claude-opus-4-5-20251101", 20_000, {"type": "enabled", "budget_tokens": 10_000}),
    ],
)
# The SDK warns about models it lists as deprecated (claude-opus-4-5-20251101 since anthropic
# 2.13): the request it sends is what is tested here, not the model's lifetime.
@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
def test_reasoning_streams_and_ignores_thinking_blocks(
    model: str, max_tokens: int, thinking: dict[str, Any]
) -> None:
    api = Api(thinking_stream(model, json.dumps(ANSWER)))
    reasoning = request(
        tier="reasoning", model=model, thinking=True, max_tokens=max_tokens, schema=SCHEMA
    )
    answer = provider(api).complete(reasoning)

    assert answer.data == ANSWER
    assert answer.text == json.dumps(ANSWER)  # no thinking text leaks into the answer
    assert answer.model == model
    assert answer.usage == {"input_tokens": 120, "output_tokens": 345}
    body = api.body()
    assert body["stream"] is True
    assert body["thinking"] == thinking
    assert body["max_tokens"] == max_tokens
    assert body["output_config"]["format"]["schema"] == API_SCHEMA


@pytest.mark.parametrize(("max_tokens", "streamed"), [(16_000, False), (16_001, True)])
def test_large_max_tokens_streams_without_thinking(max_tokens: int, streamed: bool) -> None:
    answer = thinking_stream("claude-sonnet-4-6", "done") if streamed else ok([text("done")])
    api = Api(answer)
    result = provider(api).complete(request(max_tokens=max_tokens))

    assert result.text == "done"
    body = api.body()
    assert body.get("stream", False) is streamed
    assert "thinking" not in body


def test_thinking_budget_needs_room() -> None:
    assert thinking_config("claude-opus-4-7", 1000) == {"type": "adaptive"}
    with pytest.raises(ProviderError, match="no room for extended thinking"):
        thinking_config("claude-haiku-4-5", 1024)


# --- failures --------------------------------------------------------------------------------


def test_rejected_key_is_one_readable_line() -> None:
    api = Api(error(401, "authentication_error", "invalid x-api-key"))
    with pytest.raises(ProviderError) as caught:
        provider(api, max_retries=2).complete(request())

    assert caught.value.one_line() == (
        "Anthropic API key is rejected (401) — check ANTHROPIC_API_KEY"
    )
    assert len(api.requests) == 1  # a 401 is not retried


def test_overloaded_without_retries() -> None:
    api = Api(error(529, "overloaded_error", "Overloaded"))
    with pytest.raises(ProviderError) as caught:
        provider(api, max_retries=0).complete(request())

    assert caught.value.one_line() == (
        "Anthropic API is overloaded (529, after 0 retries) — try again in a few minutes"
    )
    assert len(api.requests) == 1


def test_rate_limit_is_retried_then_reported() -> None:
    api = Api(error(429, "rate_limit_error", "Number of requests exceeded", **FAST_RETRY))
    with pytest.raises(ProviderError, match=r"rate limit reached \(429, after 1 retry\)"):
        provider(api, max_retries=1).complete(request())
    assert len(api.requests) == 2


def test_retry_that_succeeds_is_invisible() -> None:
    api = Api(error(529, "overloaded_error", "Overloaded", **FAST_RETRY), ok([text("hi")]))
    assert provider(api, max_retries=1).complete(request()).text == "hi"
    assert len(api.requests) == 2


def test_bad_request_carries_the_api_message() -> None:
    detail = "max_tokens: 999999 > 64000, which is the maximum\nallowed for claude-sonnet-4-6"
    api = Api(error(400, "invalid_request_error", detail))
    with pytest.raises(ProviderError) as caught:
        provider(api).complete(request())

    line = caught.value.one_line()
    assert line.startswith("Anthropic API rejected the request (400): max_tokens: 999999 > 64000")
    assert "\n" not in line


def test_error_event_inside_a_stream() -> None:
    start = message([]) | {"stop_reason": None}
    api = Api(
        sse(
            {"type": "message_start", "message": start},
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        )
    )
    with pytest.raises(ProviderError, match=r"overloaded \(529"):
        provider(api, max_retries=0).complete(request(thinking=True, model="claude-opus-4-6"))


def test_connection_failure() -> None:
    api = Api(httpx2.ConnectError("[Errno 111] Connection refused"))
    with pytest.raises(ProviderError) as caught:
        provider(api, max_retries=0).complete(request())
    assert caught.value.one_line() == (
        "cannot reach the Anthropic API — check the network connection and ANTHROPIC_BASE_URL"
    )


def test_cut_off_schema_answer() -> None:
    api = Api(ok([text('{"severity": "hi')], stop_reason="max_tokens"))
    with pytest.raises(ProviderError) as caught:
        provider(api).complete(request(schema=SCHEMA, max_tokens=64, step="analyze"))

    assert caught.value.one_line() == (
        "the answer to step analyze was cut off at max_tokens=64 (max_tokens) before the JSON"
        " ended — raise max_tokens for this step's tier in app-run.yaml"
    )


def test_cut_off_text_answer_is_returned() -> None:
    api = Api(ok([text("The first half")], stop_reason="max_tokens"))
    assert provider(api).complete(request(max_tokens=4)).text == "The first half"


def test_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    api = Api(ok([text("never")]))
    unconfigured = AnthropicProvider(http_client=httpx2.Client(transport=httpx2.MockTransport(api)))
    with pytest.raises(ProviderNotConfigured) as caught:
        unconfigured.complete(request())

    assert caught.value.one_line() == (
        "no Anthropic API key — set ANTHROPIC_API_KEY or choose provider: scripted in app-run.yaml"
    )
    assert api.requests == []


def test_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    api = Api(ok([text("hi")]))
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    assert AnthropicProvider(http_client=client).complete(request()).text == "hi"


def test_module_import_does_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "from skill2app.runtime.providers.anthropic import AnthropicProvider\n"
        "AnthropicProvider(api_key='k')\n"
        "print(sorted(m for m in ('anthropic', 'httpx2') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


# --- converse: one tool_use round trip ------------------------------------------------------

TOOL = {
    "name": "read_file",
    "description": "Read a file of the APP.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}


def test_converse_tool_use_round_trip() -> None:
    tool_use = {
        "type": "tool_use",
        "id": "toolu_01A09q90qw90lq917835lq9",
        "name": "read_file",
        "input": {"path": "SKILL.md"},
    }
    api = Api(
        ok([text("I will read it."), tool_use], stop_reason="tool_use"),
        ok([text("SKILL.md describes one pipeline.")]),
    )
    agent = provider(api)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What does SKILL.md say?"}]
    kw: dict[str, Any] = {"system": "You convert skills.", "tools": [TOOL]}
    kw |= {"model": "claude-sonnet-4-6", "max_tokens": 1024}

    first = agent.converse(messages=messages, **kw)
    assert first["stop_reason"] == "tool_use"
    assert first["content"] == [text("I will read it."), tool_use]
    assert first["usage"] == {"input_tokens": 42, "output_tokens": 17}
    assert api.body(0)["tools"] == [TOOL]
    assert api.body(0)["system"] == "You convert skills."

    result = {"type": "tool_result", "tool_use_id": tool_use["id"], "content": "# Skill\n..."}
    messages += [
        {"role": "assistant", "content": first["content"]},
        {"role": "user", "content": [result]},
    ]
    second = agent.converse(messages=messages, **kw)
    assert second["stop_reason"] == "end_turn"
    assert second["content"] == [text("SKILL.md describes one pipeline.")]
    sent = api.body(1)["messages"]
    assert sent[1] == {"role": "assistant", "content": [text("I will read it."), tool_use]}
    assert sent[2] == {"role": "user", "content": [result]}


# --- a recorded exchange, replayed by vcrpy through the SDK's own httpx2 transport ------------


def test_cassette_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    vcr = pytest.importorskip("vcr")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_CUSTOM_HEADERS", raising=False)
    recorder = vcr.VCR(
        record_mode="none",  # never reach the network: an unmatched request fails the test
        match_on=["method", "scheme", "host", "path", "body"],
    )
    with recorder.use_cassette(str(CASSETTES / "anthropic_schema_answer.yaml")) as cassette:
        # No http_client: the SDK builds its default httpx2 client, which vcrpy patches.
        answer = AnthropicProvider(api_key="test-key", max_retries=0).complete(
            request(schema=SCHEMA, max_tokens=1024, system="You review code.")
        )
        assert cassette.all_played and cassette.play_count == 1

    assert answer.data == ANSWER
    assert answer.model == "claude-sonnet-4-6"
    assert answer.usage == {"input_tokens": 311, "output_tokens": 29}


def test_converse_streams_a_large_turn() -> None:
    start = message([]) | {"stop_reason": None}
    partial = ['{"pa', 'th": "SKI', 'LL.md"}']
    api = Api(
        sse(
            {"type": "message_start", "message": start},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "read_file",
                    "input": {},
                },
            },
            *(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
                for piece in partial
            ),
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 55},
            },
            {"type": "message_stop"},
        )
    )
    turn = provider(api).converse(
        system=None,
        messages=[{"role": "user", "content": "Read SKILL.md"}],
        tools=[TOOL],
        model="claude-sonnet-4-6",
        max_tokens=32_000,
    )

    assert api.body()["stream"] is True
    assert "system" not in api.body()
    assert turn == {
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "read_file",
                "input": {"path": "SKILL.md"},
            }
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 42, "output_tokens": 55},
    }


def test_constraints_the_api_rejects_are_moved_into_descriptions() -> None:
    """The API answers 400 to e.g. ``minimum`` on integers; the runner still enforces them."""
    strict = {
        "type": "object",
        "properties": {
            "score": {"type": "integer", "minimum": 0, "maximum": 10},
            "note": {"type": "string", "minLength": 1},
        },
        "required": ["score", "note"],
    }
    api = Api(ok([text('{"score": 3, "note": "ok"}')]))
    provider(api).complete(request(schema=strict))
    sent = api.body()["output_config"]["format"]["schema"]
    score, note = sent["properties"]["score"], sent["properties"]["note"]
    assert "minimum" not in score and "maximum" not in score and "minLength" not in note
    assert score["description"] == "{minimum: 0, maximum: 10}"
    assert note["description"] == "{minLength: 1}"


# --- schemas the SDK's transform_schema does not take -----------------------------------------

NULLABLE = {
    "type": "object",
    "properties": {
        "title": {"type": ["string", "null"], "minLength": 2, "description": "or null"},
        "score": {"type": ["integer", "null"]},
    },
    "required": ["title", "score"],
}


def test_a_type_list_is_sent_as_any_of() -> None:
    """transform_schema asserts on ``"type": [T, "null"]`` (AssertionError, once an internal
    error): each type becomes an anyOf branch with the keywords that apply to it."""
    api = Api(ok([text('{"title": null, "score": 3}')]))
    answer = provider(api).complete(request(schema=NULLABLE))
    assert answer.data == {"title": None, "score": 3}
    sent = api.body()["output_config"]["format"]["schema"]
    assert sent["properties"] == {
        "title": {
            "anyOf": [{"type": "string", "description": "{minLength: 2}"}, {"type": "null"}],
            "description": "or null",
        },
        "score": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    }


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"x": {"type": "date"}}},  # SDK: AssertionError
        {"type": "object", "properties": {"x": {"minimum": 1}}},  # SDK: ValueError (no type)
        {"type": "array", "items": [{"type": "string"}]},  # SDK: TypeError (old tuple form)
    ],
)
def test_a_schema_the_sdk_cannot_rewrite_is_sent_as_written(schema: dict[str, Any]) -> None:
    api = Api(ok([text("[]")]))
    provider(api).complete(request(schema=schema))
    assert api.body()["output_config"]["format"]["schema"] == schema


def test_an_llm_step_with_a_nullable_schema_runs(
    runtime_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the user's schema, the real provider and SDK, only HTTP faked."""
    from functools import partial

    from helpers import invoke, make_app

    from skill2app.runtime.providers import anthropic as anthropic_provider

    step = {"name": "title", "type": "llm", "prompt": "A title?", "schema": "schema.json"}
    app = make_app(
        tmp_path / "app",
        {"hello": [step]},
        {"pipelines/hello/schema.json": json.dumps(NULLABLE)},
    )
    api = Api(ok([text('{"title": "Hi", "score": null}')]))
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    real = partial(anthropic_provider.AnthropicProvider, http_client=client)
    monkeypatch.setattr(anthropic_provider, "AnthropicProvider", real)
    result = invoke("run", app, "hello", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["output"] == {"title": "Hi", "score": None}
    assert "anyOf" in json.dumps(api.body()["output_config"])
