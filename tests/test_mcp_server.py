"""`app-run mcp`, spawned for real and driven by the MCP SDK's own clients: the handshake era
(``ClientSession`` + ``initialize``, with a back-channel) and the modern era (``mcp.Client``),
over stdio and streamable HTTP.

The served APP has code pipelines that succeed, fail, time out and hang, a destructor that
leaves a marker, and (``llm-review``, copied from tests/apps) an llm step with a schema and a
validate script: its answers come from the client's sampling callback, or — for a client that
cannot sample — through the needs_llm pause and the ``resume`` tool.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from helpers import APPS, alive, code, group_members, invoke, make_app, marker, write_tree
from mcp_client import (
    command,
    eventually,
    http_server,
    legacy_http,
    legacy_stdio,
    modern_http,
    modern_stdio,
)

from skill2app.runtime.records.record import read_events

pytestmark = [
    pytest.mark.usefixtures("runtime_env"),
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

NAPPER = """\
import json, os, sys, time
data = json.load(sys.stdin)
started = time.time()
time.sleep(0.8)
print(json.dumps({"output": {"input": data["input"], "run_id": os.environ["APP_RUN_ID"],
    "work_dir": os.environ["APP_WORK_DIR"], "started": started, "ended": time.time()}}))
"""
GREET_INPUT = {
    "who": {"type": "string", "description": "Who to greet"},
    "style": {"type": "string", "enum": ["plain", "loud"], "default": "plain"},
    "times": "integer?",
}
GOOD = {"score": 7, "summary": "cache.py needs a TTL"}


@pytest.fixture
def app(tmp_path: Path) -> Path:
    return make_app(
        tmp_path / "demo",
        {
            "greet": {
                "description": "Greet someone by name",
                "triggers": ["say hello to Ada", "greet the team"],
                "input": GREET_INPUT,
                "steps": [code("hello", "ok", "hi")],
            },
            "broken": [code("bad", "fail")],
            "slow": [code("wait", "hang", timeout=1)],
            "stuck": [code("wait", "hang")],
            "napper": {
                "input": {"tag": "string"},
                "steps": [{"name": "nap", "type": "code", "command": "python3 steps/nap.py"}],
            },
            "_destructor": [code("cleanup")],
        },
        files={"pipelines/napper/steps/nap.py": NAPPER, "SKILL.md": "# Demo\n\nGreet people.\n"},
    )


@pytest.fixture
def review(tmp_path: Path) -> Path:
    target = tmp_path / "llm-review"
    shutil.copytree(APPS / "llm-review", target)
    return target


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def run_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.meta is not None
    return dict(result.meta["skill2app/run"])


def answers(*texts: str, seen: list[types.CreateMessageRequestParams]) -> Any:
    """A sampling callback giving ``texts`` in turn, keeping what it was asked."""
    queue = list(texts)

    async def sample(ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        seen.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(text=queue.pop(0)), model="client-model"
        )

    return sample


# --- tools ------------------------------------------------------------------------------------


def test_tools_have_the_pipelines_inputs_as_json_schema(app: Path) -> None:
    async def scenario() -> None:
        async with legacy_stdio(app) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
        assert sorted(tools) == [
            "abandon",
            "broken",
            "greet",
            "napper",
            "resume",
            "slow",
            "stuck",
        ]  # no provider and no sampling here: runs may pause, so resume/abandon are offered
        greet = tools["greet"]
        assert greet.description == (
            "Greet someone by name\n\nUse it for requests like:\n- say hello to Ada\n"
            "- greet the team"
        )
        assert greet.input_schema == {
            "type": "object",
            "properties": {
                "who": {"type": "string", "description": "Who to greet"},
                "style": {"type": "string", "enum": ["plain", "loud"], "default": "plain"},
                "times": {"type": ["integer", "null"]},
            },
            "required": ["who"],
            "additionalProperties": False,
        }
        assert tools["resume"].input_schema["required"] == ["session", "answer"]

    anyio.run(scenario)


def test_a_client_that_samples_gets_no_resume_tool(app: Path) -> None:
    async def scenario() -> None:
        async with legacy_stdio(app, sampling_callback=answers(seen=[])) as session:
            names = {t.name for t in (await session.list_tools()).tools}
        assert "resume" not in names and "greet" in names

    anyio.run(scenario)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_code_pipeline_runs_with_its_lifecycle(app: Path, runtime_env: Path, era: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def scenario() -> types.CallToolResult:
        client = legacy_stdio(app) if era == "legacy" else modern_stdio(app)
        async with client as session:
            return await session.call_tool(
                "greet", {"who": "Ada", "times": 2}, progress_callback=on_progress
            )

    result = anyio.run(scenario)
    assert not result.is_error
    assert result.structured_content == {"step": "hello", "value": "hi"}
    assert json.loads(text_of(result)) == {"step": "hello", "value": "hi"}
    seen = marker(runtime_env, "greet", "hello")
    assert seen is not None
    assert json.loads(seen["stdin"])["input"] == {"who": "Ada", "style": "plain", "times": 2}
    cleanup = marker(runtime_env, "_destructor", "cleanup")
    assert cleanup is not None and cleanup["env"]["APP_BUSINESS_STATUS"] == "succeeded"
    run = run_of(result)
    assert (run["status"], run["exit_code"]) == ("succeeded", 0)
    events = read_events(Path(run["record"]))
    assert [e["event"] for e in events][-1] == "run_end"
    assert [(d, t) for d, t, _ in progress] == [(1.0, 2.0), (2.0, 2.0)]
    assert progress[0][2] is not None and progress[0][2].startswith("greet/hello: ok")


def test_a_failing_step_is_a_tool_error_with_the_clis_message(app: Path) -> None:
    async def scenario() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with legacy_stdio(app) as session:
            failed = await session.call_tool("broken", {})
            after = await session.call_tool("greet", {"who": "Bo"})  # the server lives on
            return failed, after

    failed, after = anyio.run(scenario)
    cli = invoke("run", app, "broken", "-q")
    assert cli.exit_code == 1
    assert failed.is_error and text_of(failed) == cli.stderr.rstrip("\n")
    assert text_of(failed).startswith("Error: business failed — step 'bad': step exited with 3")
    assert failed.structured_content is not None
    assert failed.structured_content["status"] == "failed"
    assert failed.structured_content["exit_code"] == 1
    assert not after.is_error


def test_inputs_that_do_not_fit_and_unknown_tools_are_one_line_errors(app: Path) -> None:
    async def scenario() -> list[types.CallToolResult]:
        async with modern_stdio(app) as session:
            return [
                await session.call_tool("greet", {"who": "Ada", "style": "shouty"}),
                await session.call_tool("greet", {}),
                await session.call_tool("nope", {}),
            ]

    bad_enum, missing, unknown = anyio.run(scenario)
    assert all(r.is_error for r in (bad_enum, missing, unknown))
    assert text_of(bad_enum).startswith(
        'Error: inputs for \'greet\': style must be one of "plain", "loud", got "shouty"'
    )
    assert text_of(missing).startswith("Error: inputs for 'greet': missing who (string)")
    assert text_of(unknown).startswith(
        "Error: no tool named 'nope' — the tools here: broken, greet, napper, slow, stuck"
    )


def test_a_step_timeout_is_honoured(app: Path, runtime_env: Path) -> None:
    async def scenario() -> types.CallToolResult:
        async with legacy_stdio(app) as session:
            return await session.call_tool("slow", {})

    result = anyio.run(scenario)
    assert result.is_error
    assert "step 'wait': timed out after 1s" in text_of(result)
    seen = marker(runtime_env, "slow", "wait")
    assert seen is not None and group_members(seen["pgid"]) == []
    cleanup = marker(runtime_env, "_destructor", "cleanup")
    assert cleanup is not None and cleanup["env"]["APP_BUSINESS_STATUS"] == "failed"


def test_two_calls_at_once_do_not_share_a_run(app: Path) -> None:
    async def scenario() -> list[types.CallToolResult]:
        results: list[types.CallToolResult] = []
        async with legacy_stdio(app) as session:

            async def one(tag: str) -> None:
                results.append(await session.call_tool("napper", {"tag": tag}))

            async with anyio.create_task_group() as group:
                group.start_soon(one, "first")
                group.start_soon(one, "second")
        return results

    results = anyio.run(scenario)
    outputs = [r.structured_content for r in results]
    assert all(not r.is_error for r in results)
    assert sorted(o["input"]["tag"] for o in outputs) == ["first", "second"]  # type: ignore[index]
    assert outputs[0]["run_id"] != outputs[1]["run_id"]  # type: ignore[index]
    assert outputs[0]["work_dir"] != outputs[1]["work_dir"]  # type: ignore[index]
    records = {run_of(r)["record"] for r in results}
    assert len(records) == 2
    first, second = outputs
    assert first["started"] < second["ended"] and second["started"] < first["ended"]  # type: ignore[index]


# --- cancellation -----------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_cancelled_call_stops_its_step_and_the_destructor_runs(
    app: Path, runtime_env: Path, app_run_home: Path, era: str
) -> None:
    async def scenario() -> dict[str, Any]:
        client = legacy_stdio(app) if era == "legacy" else modern_stdio(app)
        async with client as session:
            with anyio.CancelScope() as scope:

                async def cancel_when_running() -> None:
                    await eventually(lambda: marker(runtime_env, "stuck", "wait"), "the step")
                    scope.cancel()

                async with anyio.create_task_group() as group:
                    group.start_soon(cancel_when_running)
                    await session.call_tool("stuck", {})
            await eventually(
                lambda: marker(runtime_env, "_destructor", "cleanup"), "the destructor"
            )
            cleanup = marker(runtime_env, "_destructor", "cleanup")
            greeted = await session.call_tool("greet", {"who": "Cy"})  # still serving
            assert not greeted.is_error
            assert cleanup is not None
            return cleanup

    cleanup = anyio.run(scenario)
    seen = marker(runtime_env, "stuck", "wait")
    assert seen is not None
    assert group_members(seen["pgid"]) == [] and not alive(seen["grandchild"])
    assert cleanup["env"]["APP_BUSINESS_STATUS"] == "interrupted"
    record = app_run_home / "runs" / f"{cleanup['env']['APP_RUN_ID']}.jsonl"
    events = read_events(record)
    assert events[-1]["event"] == "run_end" and events[-1]["status"] == "interrupted"


def test_sigterm_stops_the_running_calls_and_their_destructors_run(
    app: Path, runtime_env: Path
) -> None:
    proc = subprocess.Popen(
        command("mcp", str(app), "-q"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()

    hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
    send({"id": 1, "method": "initialize", "params": {**hello, "clientInfo": {"name": "t"}}})
    assert json.loads(proc.stdout.readline())["id"] == 1
    send({"method": "notifications/initialized"})
    send({"id": 2, "method": "tools/call", "params": {"name": "stuck", "arguments": {}}})

    async def wait_for_step() -> None:
        await eventually(lambda: marker(runtime_env, "stuck", "wait"), "the step")

    anyio.run(wait_for_step)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 143  # stdin still open: the shutdown does not wait for it
    cleanup = marker(runtime_env, "_destructor", "cleanup")
    assert cleanup is not None and cleanup["env"]["APP_BUSINESS_STATUS"] == "interrupted"
    proc.communicate(timeout=10)


# --- llm steps --------------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_an_llm_step_is_answered_by_sampling_and_checked_like_a_providers(
    review: Path, era: str
) -> None:
    asked: list[types.CreateMessageRequestParams] = []
    sample = answers('{"score": "high"}', json.dumps(GOOD), seen=asked)

    async def scenario() -> types.CallToolResult:
        client = legacy_stdio if era == "legacy" else modern_stdio
        async with client(review, sampling_callback=sample) as session:
            return await session.call_tool("review", {"topic": "caching"})

    result = anyio.run(scenario)
    assert not result.is_error, text_of(result)
    assert result.structured_content == GOOD
    first, second = asked
    first_prompt = first.messages[0].content
    second_prompt = second.messages[0].content
    assert isinstance(first_prompt, types.TextContent)
    assert isinstance(second_prompt, types.TextContent)
    assert "Review the change about caching." in first_prompt.text
    assert '"required": [\n  "score"' in first_prompt.text  # the schema rides in the prompt
    assert "Your previous answer was rejected" not in first_prompt.text
    assert "- score: 'high' is not of type 'integer'" in second_prompt.text
    preferences = first.model_preferences
    assert preferences is not None and preferences.speed_priority == 1.0  # the lite tier
    assert preferences.hints is not None and preferences.hints[0].name == "claude-haiku-5-5"
    events = read_events(Path(run_of(result)["record"]))
    assert events[0]["provider"] == "sampling"
    [judged] = [e for e in events if e["event"] == "step_end" and e["step"] == "judge"]
    assert (judged["status"], judged["retries"]) == ("succeeded", 1)


def test_answers_that_never_pass_fail_the_step_with_every_attempt(review: Path) -> None:
    sample = answers(*['{"score": 42, "summary": "x"}'] * 4, seen=[])

    async def scenario() -> types.CallToolResult:
        async with legacy_stdio(review, sampling_callback=sample) as session:
            return await session.call_tool("review", {"topic": "caching"})

    result = anyio.run(scenario)
    assert result.is_error
    assert text_of(result).startswith(
        "Error: business failed — step 'judge': no valid answer after 4 attempts — attempt 1: "
        "score 42 is above 10"
    )


def test_without_sampling_the_run_pauses_and_resume_carries_it_on(review: Path) -> None:
    async def scenario() -> list[types.CallToolResult]:
        async with legacy_stdio(review) as session:
            paused = await session.call_tool("review", {"topic": "caching"})
            assert paused.structured_content is not None
            session_id = paused.structured_content["session"]
            rejected = await session.call_tool(
                "resume", {"session": session_id, "answer": {"score": 42, "summary": "no"}}
            )
            done = await session.call_tool("resume", {"session": session_id, "answer": GOOD})
            again = await session.call_tool("resume", {"session": session_id, "answer": GOOD})
            return [paused, rejected, done, again]

    paused, rejected, done, again = anyio.run(scenario)
    assert not paused.is_error
    data = paused.structured_content
    assert data is not None
    assert (data["status"], data["step"], data["attempt"]) == ("needs_llm", "judge", 1)
    assert data["schema"]["required"] == ["score", "summary"]
    assert (data["resume_tool"], data["abandon_tool"]) == ("resume", "abandon")
    assert text_of(paused).startswith("Paused: step 'judge' of 'review' needs an LLM answer")
    assert f'"session": "{data["session"]}"' in text_of(paused)
    assert run_of(paused)["exit_code"] == 6
    assert rejected.structured_content is not None
    assert rejected.structured_content["attempt"] == 2
    assert rejected.structured_content["errors"] == [
        "score 42 is above 10",
        "the summary does not mention cache.py",
    ]
    assert not done.is_error and done.structured_content == GOOD
    assert again.is_error and "already ended (succeeded)" in text_of(again)


def test_abandon_gives_a_paused_run_up(review: Path) -> None:
    async def scenario() -> types.CallToolResult:
        async with modern_stdio(review) as session:
            paused = await session.call_tool("review", {"topic": "caching"})
            assert paused.structured_content is not None
            return await session.call_tool(
                "abandon", {"session": paused.structured_content["session"]}
            )

    result = anyio.run(scenario)
    assert result.is_error
    assert "abandoned while waiting for an answer to 'judge'" in text_of(result)


def test_resume_refuses_a_session_of_another_app(review: Path, app: Path) -> None:
    async def scenario() -> types.CallToolResult:
        async with legacy_stdio(review) as session:
            paused = await session.call_tool("review", {"topic": "caching"})
        assert paused.structured_content is not None
        async with legacy_stdio(app) as other:
            return await other.call_tool(
                "resume", {"session": paused.structured_content["session"], "answer": GOOD}
            )

    result = anyio.run(scenario)
    assert result.is_error and "which this server does not serve" in text_of(result)


# --- prompts and resources --------------------------------------------------------------------


def test_skill_md_is_a_prompt_and_the_routing_table_a_resource(app: Path) -> None:
    async def scenario() -> tuple[Any, ...]:
        async with legacy_stdio(app) as session:
            prompts = await session.list_prompts()
            prompt = await session.get_prompt("demo", {"request": "wave at Bo"})
            resources = await session.list_resources()
            table = await session.read_resource("app-run://demo/routing")
            skill = await session.read_resource("app-run://demo/SKILL.md")
            return prompts, prompt, resources, table, skill

    prompts, prompt, resources, table, skill = anyio.run(scenario)
    assert [p.name for p in prompts.prompts] == ["demo"]
    assert prompts.prompts[0].arguments[0].name == "request"
    text = prompt.messages[0].content.text
    assert "Request: wave at Bo" in text and text.endswith("# Demo\n\nGreet people.\n")
    assert [r.uri for r in resources.resources] == [
        "app-run://demo/routing",
        "app-run://demo/SKILL.md",
    ]
    rows = json.loads(table.contents[0].text)
    assert [r["name"] for r in rows] == ["broken", "greet", "napper", "slow", "stuck"]
    assert skill.contents[0].text == "# Demo\n\nGreet people.\n"


# --- streamable HTTP --------------------------------------------------------------------------


def test_streamable_http_in_both_eras(app: Path, review: Path, runtime_env: Path) -> None:
    asked: list[types.CreateMessageRequestParams] = []
    sample = answers(
        '{"score": "high"}',
        json.dumps(GOOD),
        *(['{"score": "high"}', json.dumps(GOOD)]),
        seen=asked,
    )

    async def scenario(url: str) -> None:
        async with legacy_http(url, sampling_callback=sample) as session:
            greeted = await session.call_tool("demo__greet", {"who": "Ada"})
            assert greeted.structured_content == {"step": "hello", "value": "hi"}
            reviewed = await session.call_tool("llm-review__review", {"topic": "caching"})
            assert reviewed.structured_content == GOOD, text_of(reviewed)
        async with modern_http(url, sampling_callback=sample) as client:
            reviewed = await client.call_tool("llm-review__review", {"topic": "db"})
            assert reviewed.structured_content == GOOD, text_of(reviewed)
            with anyio.CancelScope() as scope:

                async def cancel_when_running() -> None:
                    await eventually(lambda: marker(runtime_env, "stuck", "wait"), "the step")
                    scope.cancel()

                async with anyio.create_task_group() as group:
                    group.start_soon(cancel_when_running)
                    await client.call_tool("demo__stuck", {})
            await eventually(
                lambda: marker(runtime_env, "_destructor", "cleanup"), "the destructor"
            )

    with http_server(app, review) as (url, _):
        anyio.run(scenario, url)
    assert len(asked) == 4
    cleanup = marker(runtime_env, "_destructor", "cleanup")
    assert cleanup is not None and cleanup["env"]["APP_BUSINESS_STATUS"] == "interrupted"


def test_http_refuses_a_foreign_host_header(app: Path) -> None:
    import httpx2

    with http_server(app) as (url, _):
        answer = httpx2.post(
            url,
            headers={
                "Host": "evil.example",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            },
            content=b"{}",
        )
    assert answer.status_code == 421  # DNS-rebinding protection on the loopback address


def test_two_apps_get_prefixed_tool_names(app: Path, review: Path, tmp_path: Path) -> None:
    write_tree(tmp_path / "x", {})

    async def scenario() -> list[str]:
        async with legacy_stdio(app, review) as session:
            return sorted(t.name for t in (await session.list_tools()).tools)

    names = anyio.run(scenario)
    assert "demo__greet" in names and "llm-review__review" in names and "resume" in names


def test_the_docs_client_config_starts_a_working_server(app: Path) -> None:
    """The JSON docs/mcp.md gives Claude Desktop and Cursor, with its paths filled in."""
    import re

    from mcp import StdioServerParameters
    from mcp_client import APP_RUN

    docs = Path(__file__).resolve().parent.parent / "docs" / "mcp.md"
    section = docs.read_text(encoding="utf-8").split("## Register it with a client", 1)[1]
    block = re.search(r"```json\n(.*?)\n```", section, re.S)
    assert block, "the MCP page's client section has no json block"
    [server] = json.loads(block.group(1))["mcpServers"].values()
    assert server["command"].endswith("/bin/app-run")
    args = [a.replace("/abs/path/to/csv-report-app", str(app)) for a in server["args"]]
    params = StdioServerParameters(command=str(APP_RUN), args=args, env=dict(os.environ))

    async def scenario() -> list[str]:
        from mcp import ClientSession, stdio_client

        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return [t.name for t in (await session.list_tools()).tools]

    assert "greet" in anyio.run(scenario)


def test_an_app_whose_skill_md_links_out_has_no_prompt_and_the_others_keep_theirs(
    tmp_path: Path,
) -> None:
    """A SKILL.md that links out of its APP is refused (an attack run read
    ``~/notes/private.md`` through it); the MCP server's prompt list leaves that APP out
    instead of failing for every APP it serves."""
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.mcp.prompts import prompt_specs

    private = tmp_path / "private.md"
    private.write_text("---\nname: x\ndescription: PRIVATE-DECOY\n---\n")
    good = make_app(tmp_path / "good", {"p": [code("s")]})
    bad = make_app(tmp_path / "bad", {"p": [code("s")]})
    (bad / "SKILL.md").unlink(missing_ok=True)
    (bad / "SKILL.md").symlink_to(private)
    specs = prompt_specs([load_app(good), load_app(bad)])
    assert [s.root for s in specs] == [load_app(good).root]
    assert not any("PRIVATE-DECOY" in s.description for s in specs)
