"""Skill mode's agent loop: tool discovery, the loop's bounds, and what goes back to the model.

The fixture APP has ``tools/count.py`` (a word count of stdin or of a file) and
``scripts/slow.sh`` (sleeps); the scripted provider replays the assistant's turns from the
``_agent`` answers and keeps every conversation it was given.
"""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from skill2app.runtime.app.model import App, load_app
from skill2app.runtime.errors import ProviderError
from skill2app.runtime.host.agent import INPUT_SCHEMA, AgentTool, discover_tools, run_agent
from skill2app.runtime.providers.anthropic import AnthropicProvider
from skill2app.runtime.providers.scripted import ScriptedProvider
from skill2app.runtime.records.record import Recorder, read_events

SKILL = "# Word counter\n\nCount words with the tools.\n"
COUNT = '''#!/usr/bin/env python3
"""Count the words of a file, or of standard input."""
import argparse
import sys

parser = argparse.ArgumentParser()
parser.add_argument("file", nargs="?")
parser.add_argument("--prefix", default="")
args = parser.parse_args()
text = open(args.file).read() if args.file else sys.stdin.read()
print("counted", file=sys.stderr)
print(f"{args.prefix}{len(text.split())}")
'''
SLOW = """#!/usr/bin/env bash
# Sleep for a while.
echo "usage: slow.sh SECONDS" >&2
sleep "${1:-30}"
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def app(tmp_path: Path, runtime_env: Path) -> App:
    root = tmp_path / "counter"
    write(
        root,
        {
            "SKILL.md": SKILL,
            "pipelines/.keep": "",
            "tools/count.py": COUNT,
            "scripts/slow.sh": SLOW,
            "notes/three.txt": "alpha beta gamma\n",
        },
    )
    return load_app(root)


def use(name: str, tool_id: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def scripted(tmp_path: Path, turns: list[dict[str, Any]]) -> ScriptedProvider:
    answers = tmp_path / "answers.yaml"
    answers.write_text(json.dumps({"answers": {"_agent": turns}}), encoding="utf-8")
    return ScriptedProvider.from_file(answers)


def agent(app: App, provider: Any, record: Path, **kw: Any) -> Any:
    return run_agent(
        app,
        "How many words?",
        provider=provider,
        model="claude-sonnet-4-6",
        max_tokens=1024,
        emit=Recorder(record),
        **kw,
    )


def results_sent(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user message of a conversation."""
    last = conversation[-1]
    assert last["role"] == "user"
    return list(last["content"])


# --- the loop ---------------------------------------------------------------------------------


def test_tool_round_trips_then_answer(app: App, tmp_path: Path) -> None:
    provider = scripted(
        tmp_path,
        [
            {
                "content": [
                    text("Counting."),
                    use("tools_count", "t1", args=["--prefix", "words: "], stdin="one two three"),
                    use("tools_count", "t2", args=["notes/three.txt"]),
                ],
                "stop_reason": "tool_use",
            },
            {"content": [use("tools_wordle", "t3", args=[])], "stop_reason": "tool_use"},
            {"content": [text("There are "), text("3 words.")], "stop_reason": "end_turn"},
        ],
    )
    record = tmp_path / "run.jsonl"
    result = agent(app, provider, record)

    assert result.answer == "There are 3 words."
    assert (result.turns, result.stop_reason) == (3, "end_turn")
    assert [c.name for c in result.tool_calls] == ["tools_count", "tools_count", "tools_wordle"]
    assert [c.exit_code for c in result.tool_calls] == [0, 0, None]
    assert [c.is_error for c in result.tool_calls] == [False, False, True]

    first, second, third = provider.conversations
    assert first == [{"role": "user", "content": "How many words?"}]
    assert second[1]["content"][1]["name"] == "tools_count"  # the assistant turn went back
    counted, from_file = results_sent(second)
    assert counted == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "exit code: 0\nstdout:\nwords: 3\n\nstderr (tail):\ncounted",
    }
    assert from_file["tool_use_id"] == "t2"  # cwd is the APP folder: the relative path works
    assert from_file["content"].startswith("exit code: 0\nstdout:\n3\n")
    [unknown] = results_sent(third)
    assert unknown["is_error"] is True and unknown["tool_use_id"] == "t3"
    assert unknown["content"] == (
        "error: there is no tool named 'tools_wordle'; the tools are: tools_count, scripts_slow"
    )


def test_run_record_has_each_turn_and_call_but_no_tool_data(app: App, tmp_path: Path) -> None:
    secret = "hunter2 is the password"
    provider = scripted(
        tmp_path,
        [
            {"content": [use("tools_count", "t1", args=["-"], stdin=secret)]},
            {"content": [text("Four words.")]},
        ],
    )
    record = tmp_path / "run.jsonl"
    agent(app, provider, record)

    events = [{k: v for k, v in e.items() if k != "time"} for e in read_events(record)]
    assert [e["event"] for e in events] == ["agent_turn", "agent_tool", "agent_turn"]
    assert events[0] == {
        "event": "agent_turn",
        "turn": 1,
        "stop_reason": "tool_use",
        "tool_calls": [{"name": "tools_count", "args": ["-"]}],
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    assert events[1]["name"] == "tools_count" and events[1]["exit_code"] != 0
    assert isinstance(events[1]["seconds"], float)
    assert events[2]["stop_reason"] == "end_turn" and events[2]["tool_calls"] == []
    assert "hunter2" not in record.read_text(encoding="utf-8")


def test_turn_limit(app: App, tmp_path: Path) -> None:
    again = {"content": [text("Once more."), use("tools_count", "t", stdin="a b")]}
    provider = scripted(tmp_path, [again] * 5)
    result = agent(app, provider, tmp_path / "run.jsonl", max_turns=3)

    assert (result.turns, result.stop_reason, result.answer) == (3, "turn_limit", "Once more.")
    assert provider.used["_agent"] == 3
    assert len(result.tool_calls) == 2  # the last turn's call is not run: nobody would read it
    events = read_events(tmp_path / "run.jsonl")
    assert [e["turn"] for e in events if e["event"] == "agent_turn"] == [1, 2, 3]


def test_tool_timeout_kills_and_the_loop_goes_on(app: App, tmp_path: Path) -> None:
    provider = scripted(
        tmp_path,
        [
            {"content": [use("scripts_slow", "s1", args=["30"])], "stop_reason": "tool_use"},
            {"content": [text("It was too slow.")], "stop_reason": "end_turn"},
        ],
    )
    started = time.monotonic()
    result = agent(app, provider, tmp_path / "run.jsonl", tool_timeout=1)

    assert time.monotonic() - started < 10
    assert (result.answer, result.turns) == ("It was too slow.", 2)
    [timed_out] = results_sent(provider.conversations[1])
    assert timed_out["is_error"] is True
    assert timed_out["content"].startswith("error: scripts/slow.sh timed out after 1s")
    assert result.tool_calls[0].is_error and result.tool_calls[0].seconds >= 1


@pytest.mark.parametrize(
    ("tool_input", "expected_error"),
    [
        ({"args": "--prefix x"}, "`args` must be an array of strings"),
        ({"args": [{"a": 1}]}, "every item of `args` must be a string"),
        ({"stdin": 3}, "`stdin` must be a string"),
    ],
)
def test_bad_tool_input_is_an_error_result(
    app: App, tmp_path: Path, tool_input: dict[str, Any], expected_error: str
) -> None:
    provider = scripted(
        tmp_path,
        [
            {"content": [use("tools_count", "b1", **tool_input)]},
            {"content": [text("ok")]},
        ],
    )
    agent(app, provider, tmp_path / "run.jsonl")
    [bad] = results_sent(provider.conversations[1])
    assert bad["is_error"] is True and expected_error in bad["content"]


def test_system_prompt_and_tools_sent(app: App, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    class Spy:
        name = "spy"

        def converse(self, **kw: Any) -> dict[str, Any]:
            seen.update(kw)
            return {"content": [text("done")], "stop_reason": "end_turn", "usage": {}}

    agent(app, Spy(), tmp_path / "run.jsonl", max_turns=4, tool_timeout=5)
    assert seen["system"].startswith(SKILL.rstrip() + "\n\nThe tools you can call are")
    assert "at most 4 turns" in seen["system"] and "after 5 seconds" in seen["system"]
    assert [t["name"] for t in seen["tools"]] == ["tools_count", "scripts_slow"]
    assert seen["tools"][0]["description"] == "Count the words of a file, or of standard input."
    assert seen["tools"][0]["input_schema"] == INPUT_SCHEMA


def test_provider_without_converse(app: App, tmp_path: Path) -> None:
    class Plain:
        name = "plain"

    with pytest.raises(ProviderError) as caught:
        agent(app, Plain(), tmp_path / "run.jsonl")
    assert caught.value.message == "the plain provider cannot run the agent loop"


def test_scripted_agent_answers_run_out(app: App, tmp_path: Path) -> None:
    provider = scripted(tmp_path, [{"content": [use("tools_count", "t", stdin="x")]}])
    with pytest.raises(ProviderError, match="scripted answers for _agent ran out after 1"):
        agent(app, provider, tmp_path / "run.jsonl")


# --- discovery --------------------------------------------------------------------------------


def test_discovery_names_and_skips(app: App) -> None:
    root = app.root
    write(
        root,
        {
            "tools/README.md": "# Tools\n",
            "tools/data.json": "{}",
            "tools/notes.txt": "notes",
            "tools/.hidden.py": "",
            "tools/_private.py": "",
            "tools/__pycache__/count.cpython-311.pyc": "",
            "tools/count.sh": "# Count with wc.\nwc -w\n",
            "tools/my tool.js": "// Does a thing.\n// Second line.\nconsole.log(1)\n",
            "tools/plain-file": "not a program",
            "tools/lib/helper.py": "print(1)\n",
            "tools/lib/deeper/too_deep.py": "",
            "scripts/run-me": "#!/bin/sh\necho 'Usage: run-me NAME' >&2\n",
            "calendar.js": "// List the calendar's events.\nconsole.log(1)\n",  # beside SKILL.md
            "notes.md": "# not a program\n",
        },
    )
    (root / "scripts/run-me").chmod(0o755)
    mode = (root / "tools/plain-file").stat().st_mode
    assert not mode & stat.S_IXUSR

    tools = {t.name: t for t in discover_tools(app)}
    assert list(tools) == [
        "tools_count",
        "tools_count_2",
        "tools_lib_helper",
        "tools_my_tool",
        "scripts_run-me",
        "scripts_slow",
        "calendar",
    ]
    assert tools["calendar"].relpath == "calendar.js"
    assert tools["tools_count_2"].relpath == "tools/count.sh"
    assert tools["tools_count_2"].description == "Count with wc."
    assert tools["tools_my_tool"].description == "Does a thing.\nSecond line."
    assert tools["tools_lib_helper"].description == "Run tools/lib/helper.py"
    assert tools["scripts_run-me"].description == "Usage: run-me NAME"
    assert tools["scripts_slow"].description == "Sleep for a while.\nusage: slow.sh SECONDS"
    assert tools["scripts_run-me"].argv(["x"]) == [str(root / "scripts/run-me"), "x"]
    assert tools["tools_count_2"].argv([]) == ["bash", str(root / "tools/count.sh")]


def test_long_names_stay_unique_and_valid(tmp_path: Path) -> None:
    root = tmp_path / "app"
    stem = "x" * 80
    write(root, {"pipelines/.keep": "", f"tools/{stem}.py": "", f"tools/{stem}.sh": ""})
    names = [t.name for t in discover_tools(load_app(root))]
    assert names == ["tools_" + "x" * 58, "tools_" + "x" * 56 + "_2"]
    assert all(len(n) <= 64 for n in names)


def test_no_tool_folders(tmp_path: Path) -> None:
    write(tmp_path / "bare", {"pipelines/.keep": ""})
    assert discover_tools(load_app(tmp_path / "bare")) == []


def test_description_is_bounded(tmp_path: Path) -> None:
    root = tmp_path / "app"
    write(root, {"pipelines/.keep": "", "tools/long.py": '"""' + "word " * 200 + '"""\n'})
    [tool] = discover_tools(load_app(root))
    assert isinstance(tool, AgentTool) and len(tool.description) == 400


# --- the Anthropic provider, through the SDK against a mocked Messages API --------------------


def test_anthropic_tool_round_trip(app: App, tmp_path: Path) -> None:
    bodies: list[dict[str, Any]] = []
    replies = [
        ([text("Let me count."), use("tools_count", "toolu_01", stdin="a b c d")], "tool_use"),
        ([text("Four words.")], "end_turn"),
    ]

    def api(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        content, stop = replies[len(bodies) - 1]
        message = {
            "id": f"msg_{len(bodies)}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }
        return httpx2.Response(200, json=message)

    client = httpx2.Client(transport=httpx2.MockTransport(api))
    provider = AnthropicProvider(api_key="test-key", http_client=client, max_retries=0)
    result = agent(app, provider, tmp_path / "run.jsonl")

    assert (result.answer, result.turns, result.stop_reason) == ("Four words.", 2, "end_turn")
    assert result.usage == {"input_tokens": 200, "output_tokens": 40}
    first, second = bodies
    assert first["system"].startswith("# Word counter")
    assert [t["name"] for t in first["tools"]] == ["tools_count", "scripts_slow"]
    assert first["messages"] == [{"role": "user", "content": "How many words?"}]
    assert second["messages"][1] == {"role": "assistant", "content": replies[0][0]}
    assert second["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01",
                "content": "exit code: 0\nstdout:\n4\n\nstderr (tail):\ncounted",
            }
        ],
    }
