"""The openai provider, driven through the real openai SDK against a mocked HTTP layer.

The SDK (openai 3.x) is built on httpx2: every test hands the provider an ``httpx2.Client``
whose ``MockTransport`` handler checks the request the SDK really sends and answers as an
OpenAI-compatible server would (OpenAI, vLLM, Ollama — or llama-cpp-python, which refuses
``json_schema`` with a 500).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import APPS, make_app, write_tree

from skill2app.runtime.app.config import load_config
from skill2app.runtime.app.model import load_app
from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.host.agent import run_agent
from skill2app.runtime.providers import make_provider
from skill2app.runtime.providers.base import LlmRequest
from skill2app.runtime.providers.openai import OpenAIProvider, strict_allowed
from skill2app.runtime.records.record import Recorder, read_events
from skill2app.runtime.routing.extraction import extract_inputs
from skill2app.runtime.run.runner import start

pytest.importorskip("openai", reason="the openai extra is not installed")

URL = "http://llm.test/v1"
SCHEMA = {
    "type": "object",
    "properties": {"severity": {"type": "string", "enum": ["low", "high"]}},
    "required": ["severity"],
    "additionalProperties": False,
}
OPEN_SCHEMA = {"type": "object", "properties": {"severity": {"type": "string"}}}
FAST_RETRY = {"retry-after-ms": "1"}  # the SDK honours it: retries take 1 ms, not 0.5 s+
# What llama-cpp-python's server answers to response_format json_schema (a pydantic error).
LLAMA_CPP_REFUSAL = {
    "error": {
        "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]",
        "type": "internal_server_error",
    }
}


@pytest.fixture(autouse=True)
def forget_endpoints() -> Iterator[None]:
    OpenAIProvider.styles.clear()
    yield
    OpenAIProvider.styles.clear()


def completion(
    content: str | None = "",
    finish: str = "stop",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    refusal: str | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "served-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def ok(content: str | None = "", **kw: Any) -> httpx2.Response:
    return httpx2.Response(200, json=completion(content, **kw))


def error(status: int, message: str, **headers: str) -> httpx2.Response:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return httpx2.Response(status, json=body, headers=headers)


class Server:
    """A fake chat-completions endpoint: records every request, answers from a list."""

    def __init__(self, *responses: httpx2.Response | Exception) -> None:
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        assert request.method == "POST"
        assert str(request.url) == f"{URL}/chat/completions"
        answer = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def body(self, index: int = -1) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


def provider(server: Server, **kw: Any) -> OpenAIProvider:
    client = httpx2.Client(transport=httpx2.MockTransport(server))
    return OpenAIProvider(base_url=URL, api_key="test-key", http_client=client, **kw)


def request(**kw: Any) -> LlmRequest:
    fields: dict[str, Any] = {"prompt": "Review the diff.", "tier": "standard", "model": "qwen"}
    return LlmRequest(**(fields | kw))


# --- request and answer -----------------------------------------------------------------------


def test_plain_text_request_and_answer() -> None:
    server = Server(ok("Looks fine."))
    answer = provider(server).complete(request(system="Be terse.", max_tokens=300))
    assert (answer.text, answer.data, answer.model) == ("Looks fine.", None, "served-model")
    assert answer.usage == {"input_tokens": 11, "output_tokens": 7}
    sent = server.requests[0]
    assert sent.headers["authorization"] == "Bearer test-key"
    assert server.body() == {
        "model": "qwen",
        "max_tokens": 300,
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "Review the diff."},
        ],
    }


def test_the_key_comes_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "from-the-env")
    server = Server(ok("hi"))
    client = httpx2.Client(transport=httpx2.MockTransport(server))
    OpenAIProvider(base_url=URL, api_key_env="MY_LLM_KEY", http_client=client).complete(request())
    assert server.requests[0].headers["authorization"] == "Bearer from-the-env"


def test_a_strict_schema_is_sent_strict_and_the_answer_parsed() -> None:
    server = Server(ok('{"severity": "high"}'))
    answer = provider(server).complete(request(schema=SCHEMA, step="judge files"))
    assert answer.data == {"severity": "high"}
    assert server.body()["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "judge_files", "schema": SCHEMA, "strict": True},
    }
    assert server.body()["messages"] == [{"role": "user", "content": "Review the diff."}]


def test_a_schema_strict_mode_cannot_enforce_is_sent_not_strict() -> None:
    server = Server(ok('{"severity": "high"}'))
    provider(server).complete(request(schema=OPEN_SCHEMA))
    assert server.body()["response_format"]["json_schema"]["strict"] is False


@pytest.mark.parametrize(
    ("schema", "allowed"),
    [
        (SCHEMA, True),
        (OPEN_SCHEMA, False),
        ({**SCHEMA, "required": []}, False),
        ({"type": "array", "items": OPEN_SCHEMA}, False),
        ({"type": "array", "items": SCHEMA}, True),
        ({"type": "object", "additionalProperties": False}, True),
        ({"anyOf": [SCHEMA, {"type": "null"}]}, True),
        ({"type": "string"}, True),
    ],
)
def test_strict_allowed(schema: dict[str, Any], allowed: bool) -> None:
    assert strict_allowed(schema) is allowed


def test_a_cut_off_json_answer_is_a_clear_error() -> None:
    server = Server(ok('{"severity": "hi', finish="length"))
    with pytest.raises(ProviderError, match=r"cut off at max_tokens=50 \(finish_reason: length\)"):
        provider(server).complete(request(schema=SCHEMA, max_tokens=50))


def test_a_refusal_fails_at_once() -> None:
    server = Server(ok(None, refusal="I can't help with that."))
    with pytest.raises(ProviderError) as caught:
        provider(server).complete(request())
    assert caught.value.one_line() == (
        "the model declined to answer: I can't help with that. — rephrase the prompt, or check "
        "what the step's inputs put into it"
    )


def test_an_empty_answer_is_rejected_and_retried_by_the_runner(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app = load_app(APPS / "llm-review")
    server = Server(ok(""), ok('{"score": 7, "summary": "cache.py needs a TTL"}'))
    result = start(
        app,
        "review",
        {"topic": "caching"},
        config=load_config(app.root),
        provider=provider(server),
        home=app_run_home,
    )
    assert result.status == "succeeded", result.to_dict()
    events = read_events(result.record)  # type: ignore[arg-type]
    [retry] = [e for e in events if e["event"] == "step_retry"]
    assert retry["errors"] == ["the answer is empty"]
    assert "the answer is empty" in server.body(1)["messages"][-1]["content"]
    [judged] = [e for e in events if e["event"] == "step_end" and e["step"] == "judge"]
    assert judged["usage"] == {"input_tokens": 22, "output_tokens": 14}  # both calls
    assert judged["retries"] == 1


# --- errors and retries -----------------------------------------------------------------------


def test_a_rate_limit_is_retried_with_backoff_then_succeeds() -> None:
    server = Server(error(429, "slow down", **FAST_RETRY), ok("done"))
    assert provider(server).complete(request()).text == "done"
    assert [r.headers["x-stainless-retry-count"] for r in server.requests] == ["0", "1"]


def test_a_rejected_key_is_one_line_and_not_retried() -> None:
    server = Server(error(401, "Incorrect API key provided: sk-abc***"))
    with pytest.raises(ProviderError) as caught:
        provider(server, api_key_env="LLM_KEY").complete(request())
    assert caught.value.one_line() == (
        f"The OpenAI-compatible server at {URL} rejected the API key (401) — check LLM_KEY"
    )
    assert caught.value.exit_code == 1 and len(server.requests) == 1


def test_server_errors_are_retried_then_reported() -> None:
    server = Server(error(503, "loading model", **FAST_RETRY))
    with pytest.raises(ProviderError) as caught:
        provider(server).complete(request())
    assert len(server.requests) == 3
    assert caught.value.message == (
        f"The OpenAI-compatible server at {URL} failed (503, after 2 retries): loading model"
    )


def test_an_unknown_model_names_the_fix() -> None:
    server = Server(error(404, "model 'claude-sonnet-5-5' not found"))
    with pytest.raises(ProviderError) as caught:
        provider(server).complete(request(model="claude-sonnet-5-5"))
    assert caught.value.message.startswith(
        f"The OpenAI-compatible server at {URL} does not know model 'claude-sonnet-5-5'"
    )
    assert "model_mapping" in caught.value.hint


def test_an_unreachable_server_is_one_line() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    client = httpx2.Client(transport=httpx2.MockTransport(refuse))
    quick = OpenAIProvider(base_url=URL, api_key="k", http_client=client, max_retries=0)
    with pytest.raises(ProviderError) as caught:
        quick.complete(request())
    assert caught.value.message == f"cannot reach the OpenAI-compatible server at {URL}"
    assert "openai.base_url" in caught.value.hint


def test_openai_itself_is_named_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert OpenAIProvider().api == "OpenAI API"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1/")
    assert OpenAIProvider().base_url == "http://127.0.0.1:11434/v1"


def test_without_the_sdk_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ProviderNotConfigured) as caught:
        OpenAIProvider(base_url=URL).complete(request())
    assert caught.value.hint == "pip install 'skill2app[openai]'"
    assert caught.value.exit_code == 2


# --- servers that do not take json_schema -----------------------------------------------------


def test_a_server_refusing_json_schema_is_asked_once_then_remembered() -> None:
    """llama-cpp-python answers json_schema with a 500: one request without retries (not the
    SDK's three), then json_object with the schema; the next call goes straight there."""
    server = Server(
        httpx2.Response(500, json=LLAMA_CPP_REFUSAL, headers=FAST_RETRY),
        ok('{"severity": "low"}'),
        ok('{"severity": "high"}'),
    )
    llm = provider(server)
    assert llm.complete(request(schema=SCHEMA)).data == {"severity": "low"}
    assert len(server.requests) == 2
    assert server.body(0)["response_format"]["type"] == "json_schema"
    retried = server.body(1)
    assert retried["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert json.dumps(SCHEMA) in retried["messages"][-1]["content"]  # in the prompt as well
    # another provider object, the same endpoint: remembered for the process
    second = provider(server).complete(request(schema=SCHEMA))
    assert second.data == {"severity": "high"} and len(server.requests) == 3
    assert server.body()["response_format"]["type"] == "json_object"


def test_each_refused_style_falls_back_to_the_next() -> None:
    server = Server(
        error(400, "response_format json_schema is not supported"),
        error(400, "Unrecognized request argument in response_format: schema"),
        error(400, "'response_format.type' must be 'text'"),
        ok('{"severity": "low"}'),
    )
    answer = provider(server).complete(request(schema=SCHEMA))
    assert answer.data == {"severity": "low"}
    kinds = [server.body(i).get("response_format") for i in range(4)]
    assert [k["type"] if k else None for k in kinds] == [
        "json_schema",
        "json_object",
        "json_object",
        None,
    ]
    assert "schema" not in kinds[2]  # type: ignore[operator]


def test_a_failing_probe_that_is_no_refusal_is_retried_normally() -> None:
    server = Server(error(503, "busy", **FAST_RETRY), ok('{"severity": "low"}'))
    assert provider(server).complete(request(schema=SCHEMA)).data == {"severity": "low"}
    assert [server.body(i)["response_format"]["type"] for i in range(2)] == ["json_schema"] * 2


def test_a_bad_request_in_a_probe_is_not_taken_for_a_refusal() -> None:
    server = Server(error(400, "max_tokens is too large: 999999"))
    with pytest.raises(ProviderError, match="rejected the request \\(400\\): max_tokens is too"):
        provider(server).complete(request(schema=SCHEMA))
    assert len(server.requests) == 1


def test_a_forced_style_is_the_only_one_tried() -> None:
    server = Server(httpx2.Response(500, json=LLAMA_CPP_REFUSAL, headers=FAST_RETRY))
    with pytest.raises(ProviderError, match=r"failed \(500, after 2 retries\)"):
        provider(server, structured_output="json_schema").complete(request(schema=SCHEMA))
    assert len(server.requests) == 3  # forced: nothing to fall back to, the SDK retries
    prompt = Server(ok('{"severity": "low"}'))
    provider(prompt, structured_output="prompt").complete(request(schema=SCHEMA))
    assert "response_format" not in prompt.body()


# --- app-run's own questions and the agent loop -----------------------------------------------


def test_input_extraction_through_the_openai_provider(tmp_path: Path) -> None:
    server = Server(ok('{"count": 3}'))
    values = extract_inputs(
        "show me a few rows",
        {"count": "integer"},
        {},
        provider=provider(server),
        config=load_config(None),
    )
    assert values == {"count": 3}
    body = server.body()
    assert body["response_format"]["type"] == "json_schema"
    assert body["model"] == load_config(None).models["lite"]


def test_tool_calls_round_trip_in_the_agent_loop(tmp_path: Path, runtime_env: Path) -> None:
    root = write_tree(
        tmp_path / "counter",
        {
            "SKILL.md": "# Counter\n",
            "pipelines/.keep": "",
            "tools/count.py": "import sys\nprint(len(sys.stdin.read().split()))\n",
        },
    )
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "tools_count", "arguments": '{"args": [], "stdin": "a b c"}'},
    }
    server = Server(ok(None, finish="tool_calls", tool_calls=[call]), ok("Three words."))
    result = run_agent(
        load_app(root),
        "How many words in 'a b c'?",
        provider=provider(server),
        model="qwen",
        max_tokens=500,
        emit=Recorder(tmp_path / "run.jsonl"),
    )
    assert (result.answer, result.turns, result.stop_reason) == ("Three words.", 2, "end_turn")
    first, second = server.body(0), server.body(1)
    assert first["tools"][0]["function"]["name"] == "tools_count"
    assert first["tools"][0]["function"]["parameters"]["properties"]["args"]["type"] == "array"
    assert first["tool_choice"] == "auto" and first["messages"][0]["role"] == "system"
    assistant, tool = second["messages"][-2:]
    assert assistant == {"role": "assistant", "content": "", "tool_calls": [call]}
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_1"
    assert tool["content"].startswith("exit code: 0\nstdout:\n3")
    assert result.usage == {"input_tokens": 22, "output_tokens": 14}


# --- configuration ----------------------------------------------------------------------------


def test_the_config_selects_the_openai_provider(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    (app / "app-run.yaml").write_text(
        "provider: openai\nopenai:\n  base_url: http://127.0.0.1:11434/v1\n"
        "  api_key_env: OLLAMA_KEY\n  structured_output: json_object\n"
        "model_mapping: {lite: qwen2.5:0.5b, standard: qwen2.5:7b, reasoning: qwen2.5:7b}\n"
    )
    config = load_config(app)
    llm = make_provider(config)
    assert isinstance(llm, OpenAIProvider)
    assert (llm.base_url, llm.api_key_env) == ("http://127.0.0.1:11434/v1", "OLLAMA_KEY")
    assert llm.allowed == ("json_object_schema", "json_object")
    assert config.model_for("lite") == "qwen2.5:0.5b"
    env = load_config(app, environ={"APP_RUN_OPENAI_BASE_URL": "http://10.0.0.2:8000/v1"})
    assert env.openai.base_url == "http://10.0.0.2:8000/v1"
    assert env.openai.api_key_env == "OLLAMA_KEY"  # the file's other keys stay


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("openai: yes\n", "Error: openai must be a mapping ({file}:1)"),
        ("openai:\n  base: x\n", "Error: unknown key openai.base ({file}:2) — use base_url, "),
        (
            "openai:\n  base_url: localhost:8080\n",
            "Error: openai.base_url: 'localhost:8080' is not an http(s) URL ({file}:2)",
        ),
        (
            "openai:\n  api_key_env: sk-123\n",
            "Error: openai.api_key_env: 'sk-123' is not the name of an environment variable",
        ),
        (
            "openai:\n  structured_output: grammar\n",
            "Error: structured_output: 'grammar' is not a structured output style ({file}:2) — "
            "use one of auto, json_schema, json_object, prompt",
        ),
    ],
    ids=["not-a-mapping", "unknown-key", "bad-url", "key-not-a-name", "bad-style"],
)
def test_a_bad_openai_section_is_named_with_its_line(
    tmp_path: Path, content: str, expected: str, runtime_env: Path
) -> None:
    from helpers import invoke

    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    (app / "app-run.yaml").write_text(content)
    result = invoke("run", app, "hello")
    assert result.exit_code == 2
    assert result.stderr.startswith(expected.format(file=app / "app-run.yaml")), result.stderr


def test_a_bad_base_url_variable_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers import invoke

    monkeypatch.setenv("APP_RUN_OPENAI_BASE_URL", "127.0.0.1:8080")
    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    result = invoke("run", app, "hello")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "Error: APP_RUN_OPENAI_BASE_URL='127.0.0.1:8080' is not an http(s) URL"
    )


def test_the_docs_config_example_is_valid(tmp_path: Path) -> None:
    import re

    docs = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
    section = docs.read_text(encoding="utf-8").split("## The config file", 1)[1]
    block = re.search(r"```yaml\n(.*?)\n```", section, re.S)
    assert block, "the configuration section has no yaml block"
    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    (app / "app-run.yaml").write_text(block.group(1).replace("answers.yaml", "app-run.yaml"))
    config = load_config(app)
    assert config.openai.base_url == "http://127.0.0.1:11434/v1"
    assert config.openai.structured_output == "auto"
