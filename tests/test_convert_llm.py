"""The llm analyzer, offline: the real AnthropicProvider against a mocked HTTP layer.

Every answer is a recorded-style Messages API stream (thinking calls stream): a thinking block,
then a text block holding the plan as JSON.  The plans are the heuristic golden plans of the
examples (tests/golden/convert/*/plan.yaml), some in the all-fields form models often write,
some broken on purpose.  The prompt is the one the host analyst gets (``brief``); every answer
is judged by rendering and verifying it (smoke included) before it is accepted.
"""

from __future__ import annotations

import copy
import json
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml

from skill2app.converter.analyzers import get_analyzer
from skill2app.converter.analyzers.brief import GUIDE
from skill2app.converter.analyzers.llm import Analysis, analyze, analyze_with_usage, system_prompt
from skill2app.converter.analyzers.llm_answer import accept, plan_data
from skill2app.converter.analyzers.llm_prompt import BUDGET_TOKENS, estimate_tokens, gather
from skill2app.converter.errors import AnalyzerError
from skill2app.converter.inventory.model import Inventory, build_inventory
from skill2app.converter.plan.file import plan_from_dict
from skill2app.runtime.app.config import DEFAULT_MAX_TOKENS, DEFAULT_MODELS, Config
from skill2app.runtime.providers.anthropic import AnthropicProvider
from skill2app.runtime.providers.scripted import ScriptedProvider

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "skills"
GOLDEN = Path(__file__).resolve().parent / "golden" / "convert"
SKILLS = sorted(p.name for p in GOLDEN.iterdir() if (p / "plan.yaml").is_file())
MODEL = "claude-opus-4-7"  # takes adaptive thinking
CONFIG = Config(
    provider="anthropic",
    models=DEFAULT_MODELS | {"reasoning": MODEL},
    max_tokens=dict(DEFAULT_MAX_TOKENS),
)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the mocked transport answers; a real connection fails the test."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


# -- a fake Messages API -----------------------------------------------------------------------


class Api:
    """Records every request; answers with the given responses in order."""

    def __init__(self, *responses: httpx2.Response) -> None:
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        assert request.url == "https://api.anthropic.com/v1/messages"
        return self.responses.pop(0)

    def body(self, index: int = -1) -> dict[str, Any]:
        return json.loads(self.requests[index].content)

    def prompt(self, index: int = -1) -> str:
        content: str = self.body(index)["messages"][0]["content"]
        return content


def provider(api: Api) -> AnthropicProvider:
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    return AnthropicProvider(api_key="test-key", http_client=client, max_retries=0)


def stream(answer: Any, usage: tuple[int, int] = (1200, 800), stop: str = "end_turn") -> Any:
    """The SSE body of a thinking call: a thinking block, then the answer as a text block."""
    text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    start = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking",
                                                                      "thinking": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": "calendar.js has three actions."}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "text_delta", "text": text[: len(text) // 2]}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "text_delta", "text": text[len(text) // 2 :]}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
         "usage": {"output_tokens": usage[1]}},
        {"type": "message_stop"},
    ]  # fmt: skip
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(
        200, content=body.encode(), headers={"content-type": "text/event-stream; charset=utf-8"}
    )


# -- plans in the answer's form ----------------------------------------------------------------


def golden(skill: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((GOLDEN / skill / "plan.yaml").read_text("utf-8"))
    return data


def to_answer(plan: dict[str, Any]) -> dict[str, Any]:
    """A plan mapping as the model answers it: every field present, schemas as JSON text."""
    con, des = plan["constructor"], plan["destructor"]
    return {
        "app": {"language": ""} | plan["app"],
        "pipelines": [
            {"output": "", "source": ""}
            | p
            | {"input": [_input(i) for i in p["input"]], "steps": [_step(s) for s in p["steps"]]}
            for p in plan["pipelines"]
        ],
        "constructor": {"reason": ""}
        | con
        | {"checks": [{"why": "", "where": []} | c for c in con["checks"]]},
        "destructor": {"reason": ""}
        | des
        | {"actions": [{"paths": [], "where": ""} | a for a in des["actions"]]},
        "skill_mode": [{"where": ""} | s for s in plan["skill_mode"]],
        "notes": plan.get("notes", []),
    }


def _input(item: dict[str, Any]) -> dict[str, Any]:
    return {"description": "", "enum": [], "default": None} | item


def _step(step: dict[str, Any]) -> dict[str, Any]:
    blank = {"program": "", "subcommand": "", "args": [], "stdout": "text", "prompt": ""}
    blank |= {"stdin": {"from": "", "as": "text"}}
    blank |= {"model": "standard", "schema": "", "rules": [], "retry": 0}
    args = [
        {"flag": "", "value": None, "from": "", "as": "value"} | a for a in step.get("args", [])
    ]
    schema = json.dumps(step["schema"]) if "schema" in step else ""
    return blank | step | {"args": args, "schema": schema}


def expected(plan: dict[str, Any]) -> dict[str, Any]:
    """What the analyzer returns for ``plan``: the same plan, made by the llm analyzer."""
    return plan_from_dict(plan | {"analyzer": "llm"}).to_dict()


def calendar_plan() -> dict[str, Any]:
    """The heuristic plan of team-calendar, with the sample an analyst gives the cancel
    pipeline (the event the create pipeline made before it: the smoke run shares state) and
    a trigger of the agenda that the router sends to list-events (the plan is reviewed)."""
    plan = golden("team-calendar")
    plan["plan_version"] = 2
    plan["pipelines"][2]["sample"] = {"input": {"id": "evt-1"}}
    plan["pipelines"][3]["triggers"].append("list the events of today")
    return plan


def calendar_answer() -> dict[str, Any]:
    return to_answer(calendar_plan())


def with_location(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` with a flag calendar.js does not accept."""
    broken = copy.deepcopy(answer)
    broken["pipelines"][0]["steps"][0]["args"].append(
        {"flag": "--location", "value": "Room 4", "from": "", "as": "value"}
    )
    return broken


@pytest.fixture(scope="module")
def calendar() -> Inventory:
    return build_inventory(EXAMPLES / "team-calendar")


# -- the all-fields form ----------------------------------------------------------------------


@pytest.mark.parametrize("skill", SKILLS)
def test_a_plan_in_the_all_fields_form_reads_as_the_plan_it_means(skill: str) -> None:
    data, errors = plan_data(to_answer(golden(skill)), "en")
    assert errors == []
    assert plan_from_dict(data).to_dict() == expected(golden(skill))


def test_the_registry_returns_the_llm_analyzer() -> None:
    assert get_analyzer("llm") is analyze


# -- accepted on the first attempt -------------------------------------------------------------


def test_a_valid_plan_is_accepted_on_the_first_attempt(calendar: Inventory) -> None:
    # a trigger of the plan draws requests to a sibling: the plan is shown back once (the
    # review), and the model keeps it
    api = Api(stream(calendar_answer()), stream({"keep": True}, usage=(300, 20)))
    said: list[str] = []
    result = analyze_with_usage(
        calendar, provider=provider(api), config=CONFIG, progress=said.append
    )

    assert isinstance(result, Analysis)
    assert result.plan.to_dict() == expected(calendar_plan())
    assert (result.attempts, result.model) == (1, MODEL)
    assert result.usage == {"input_tokens": 1500, "output_tokens": 820}
    assert said[0] == f"analysing team-calendar with {MODEL} (attempt 1)…"
    assert "verifying the plan's 4 pipelines in a temporary copy" in said
    assert "smoke: calendar-create-event/create_event" in said  # judged by running it
    assert "attempt 1: plan accepted (1,200 input + 800 output tokens)" in said
    assert said[-1] == "review: the model keeps its plan"
    review = api.prompt(1)
    assert "## Your own phrases that run the wrong pipeline" in review
    assert re.search(
        r'- (?:trigger|description) ".+" of `[\w-]+` → `[\w-]+` \(0\.\d\d against', review
    )
    assert result.verification is not None and result.verification.smoke_ran
    assert {f.path for f in result.files} >= {"pipelines/agenda/pipeline.yaml", "README.md"}
    body = api.body(0)
    assert body["model"] == MODEL
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS["reasoning"]
    assert body["thinking"] == {"type": "adaptive"}
    assert body["stream"] is True
    assert "output_config" not in body  # the plan schema is in the system prompt, as the host's
    assert body["system"] == system_prompt()
    assert '"plan_version"' in body["system"]
    prompt = api.prompt(0)
    assert prompt.startswith(GUIDE)  # the host analyst's prompt
    assert "## The heuristic draft plan (offline, by rules): improve it" in prompt
    skill_md = (EXAMPLES / "team-calendar" / "SKILL.md").read_text("utf-8")
    for number, line in enumerate(skill_md.splitlines(), start=1):
        assert f"{number:>5}| {line}" in prompt  # all of SKILL.md, with line numbers
    shown = prompt.split("<inventory>\n", 1)[1].split("\n</inventory>", 1)[0]
    assert json.loads(shown) == calendar.to_dict()  # the whole inventory
    assert "summarised" not in prompt and "not accepted" not in prompt


def test_analyze_returns_the_plan(calendar: Inventory) -> None:
    api = Api(stream(calendar_answer()), stream({"keep": True}))  # the review: kept
    plan = analyze(calendar, provider=provider(api), config=CONFIG)
    assert plan.analyzer == "llm"
    assert [p.name for p in plan.pipelines] == [
        "calendar-create-event",
        "calendar-list-events",
        "calendar-cancel-event",
        "agenda",
    ]


# -- repaired on retry -------------------------------------------------------------------------


def test_a_plan_with_an_unknown_flag_is_repaired_on_retry(calendar: Inventory) -> None:
    api = Api(
        stream(with_location(calendar_answer()), usage=(1000, 700)),
        stream(calendar_answer(), usage=(1900, 650)),
        stream({"keep": True}, usage=(100, 5)),  # the review
    )
    said: list[str] = []
    result = analyze_with_usage(
        calendar, provider=provider(api), config=CONFIG, progress=said.append
    )

    assert result.plan.to_dict() == expected(calendar_plan())
    assert result.attempts == 2
    assert result.usage == {"input_tokens": 3000, "output_tokens": 1355}
    assert len(api.requests) == 3
    problem = "pipelines[0].steps[0].args[6]: scripts/calendar.js has no flag --location"
    assert problem not in api.prompt(0)
    retry = api.prompt(1)
    assert "## Attempt 2 of 3: your previous plan was not accepted" in retry
    assert f"\n- {problem}\n" in retry
    assert [line for line in said if line.startswith(("analysing", "attempt"))] == [
        f"analysing team-calendar with {MODEL} (attempt 1)…",
        "attempt 1: 1 problem(s) in the plan (1,000 input + 700 output tokens)",
        f"analysing team-calendar with {MODEL} (attempt 2)…",
        "attempt 2: plan accepted (1,900 input + 650 output tokens)",
    ]


def test_every_attempt_invalid_names_the_problems_of_each(calendar: Inventory) -> None:
    unknown = calendar_answer()
    unknown["pipelines"][3]["steps"][0]["program"] = "scripts/missing.sh"
    api = Api(stream(with_location(calendar_answer())), stream(unknown), stream("not JSON"))
    with pytest.raises(AnalyzerError) as caught:
        analyze(calendar, provider=provider(api), config=CONFIG)

    assert len(api.requests) == 3
    message = caught.value.message
    assert message.startswith("the model's plan failed its checks 3 times: attempt 1: ")
    assert "attempt 1: pipelines[0].steps[0].args[6]: scripts/calendar.js has no flag" in message
    assert "attempt 2: pipelines[3].steps[0].program: the skill has no program" in message
    assert "attempt 3: the answer is not JSON" in message
    assert "--analyzer heuristic" in caught.value.hint


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(answer: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = answer
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return change


@pytest.mark.parametrize(
    ("skill", "change", "expected_error"),
    [
        (
            "team-calendar",
            _set("pipelines.0.steps.0.args.1.from", "input.title"),
            "pipelines[0].steps[0].args[1]: 'input.title' names no declared input",
        ),
        (
            "team-calendar",
            _set("pipelines.1.name", "calendar-create-event"),
            "pipelines[1].name: 'calendar-create-event' is also pipeline 0",
        ),
        (
            "team-calendar",
            _set("pipelines.0.steps.0.args.0.value", "move_event"),
            "pipelines[0].steps[0].args[0]: 'move_event' is not one of --action",
        ),
        (
            "team-calendar",
            _set("pipelines.0.name", "Create Event"),
            "pipelines[0].name: 'Create Event' does not match",
        ),
        (
            "team-calendar",
            _set("pipelines", "none"),
            "pipelines: 'none' is not of type 'array'",
        ),
        (
            "release-notes",
            _set("pipelines.0.steps.1.schema", "{type: object"),
            "pipelines[0].steps[1].schema: not JSON text",
        ),
        (
            "release-notes",
            _set("pipelines.0.steps.1.prompt", "Group {{collect.output}}"),
            "pipelines[0].steps[1].prompt: 'collect.output' names no earlier step",
        ),
    ],
)
def test_malformed_answers(skill: str, change: Any, expected_error: str) -> None:
    answer = to_answer(golden(skill))
    change(answer)
    plan, errors = accept(answer, build_inventory(EXAMPLES / skill))
    assert any(e.startswith(expected_error) for e in errors), errors


# -- large skills are summarised, never cut off ------------------------------------------------

TOOL = '''\
"""Run the tool."""
import argparse

parser = argparse.ArgumentParser(description="Run the tool on one input.")
parser.add_argument("--mode", choices=["fast", "slow"], required=True)
parser.add_argument("--input", required=True)
parser.parse_args()
'''


def big_skill(root: Path) -> Path:
    """SKILL.md of about 80k tokens and a reference of about 75k, with invocations in both."""
    words = "The tool reads the input and writes a careful report about what it found there. "
    parts = ["---", "name: big-tool", "description: Run the tool. Use when a report is due.", "---"]
    parts += ["", "# Big tool", "", "Intro paragraph of the whole skill.", ""]
    for n in range(100):
        parts += [f"## Topic {n}", "", f"First paragraph {n}. " + words * 8, ""]
        parts += [f"Second paragraph {n}. " + words * 10, "", words * 12, ""]
        if n % 10 == 0:
            parts += ["```bash", f"python3 scripts/tool.py --mode fast --input in{n}.txt", "```"]
            parts += [""]
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "tool.py").write_text(TOOL, encoding="utf-8")
    (root / "SKILL.md").write_text("\n".join(parts) + "\n", encoding="utf-8")
    ref = ["# Reference", ""]
    for n in range(200):
        ref += [f"## Entry {n}", "", f"Entry body {n}. " + words * 18, ""]
    ref += ["## Slow runs", "", "```bash", "python3 scripts/tool.py --mode slow --input all", "```"]
    (root / "references").mkdir()
    (root / "references" / "huge.md").write_text("\n".join(ref) + "\n", encoding="utf-8")
    return root


BIG_PLAN = {
    "app": {"name": "big-tool", "description": "Run the tool.", "language": "en"},
    "pipelines": [
        {
            "name": "run-tool",
            "description": "Run the tool on one input.",
            "triggers": ["Run the tool"],
            "input": [{"name": "input", "type": "string", "required": True}],
            "steps": [
                {
                    "name": "run",
                    "type": "code",
                    "program": "scripts/tool.py",
                    "args": [
                        {"flag": "--mode", "value": "fast"},
                        {"flag": "--input", "from": "input.input"},
                    ],
                    "stdout": "text",
                }
            ],
            "source": "SKILL.md:14",
        }
    ],
    "constructor": {"needed": False, "checks": []},
    "destructor": {"needed": False, "actions": []},
    "skill_mode": [],
}


def test_a_large_skill_is_summarised_to_fit_the_budget(tmp_path: Path) -> None:
    inventory = build_inventory(big_skill(tmp_path / "big-tool"))
    full = gather(inventory, budget=10**9)
    assert full.tokens > 2 * BUDGET_TOKENS and not full.summarised
    api = Api(stream(to_answer(BIG_PLAN | {"analyzer": "llm"})))
    plan = analyze(inventory, provider=provider(api), config=CONFIG)

    prompt = api.prompt()
    assert estimate_tokens(prompt) <= BUDGET_TOKENS
    for n in range(0, 100, 10):  # every fenced invocation, in SKILL.md and in the reference
        assert f"| python3 scripts/tool.py --mode fast --input in{n}.txt\n" in prompt
    assert "| python3 scripts/tool.py --mode slow --input all\n" in prompt
    for n in range(100):  # every heading and first paragraph; no later paragraph
        assert f"| ## Topic {n}\n" in prompt
        assert f"| First paragraph {n}. " in prompt
        assert f"Second paragraph {n}." not in prompt
    assert "| ## Entry 199\n" in prompt and "Entry body" not in prompt
    assert "| Intro paragraph of the whole skill.\n" in prompt
    assert "⋮ (lines " in prompt
    assert (
        '<document path="references/huge.md" summarised="headings and program invocations">'
        in prompt
    )
    assert "The skill is too large to show in full" in prompt
    (note,) = [n for n in plan.notes if "budget" in n]
    assert f"budget of {BUDGET_TOKENS:,}" in note
    assert "references/huge.md to its headings and program invocations" in note
    assert "the inventory's programs to their command lines" in note
    assert "SKILL.md to its frontmatter, headings, the first paragraph of each section" in note


def test_summarising_stops_as_soon_as_the_skill_fits(tmp_path: Path) -> None:
    inventory = build_inventory(big_skill(tmp_path / "big-tool"))
    material = gather(inventory, budget=90_000)  # the reference alone has to go
    assert [s.split(" to ")[0] for s in material.summarised] == ["references/huge.md"]
    assert material.documents[0].summary == ""  # SKILL.md in full
    assert len(material.documents[0].kept) == material.documents[0].total


# -- no model ----------------------------------------------------------------------------------


def test_without_a_key_the_error_names_anthropic_api_key(
    calendar: Inventory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AnalyzerError) as caught:
        analyze(calendar)  # app-run's configuration: no key, so no provider
    assert "ANTHROPIC_API_KEY" in caught.value.hint
    assert "--analyzer heuristic" in caught.value.hint

    with pytest.raises(AnalyzerError) as caught:  # configured, but the key is missing
        analyze(calendar, provider=AnthropicProvider(), config=CONFIG)
    assert "ANTHROPIC_API_KEY" in str(caught.value)


def test_an_api_error_becomes_an_analyzer_error(calendar: Inventory) -> None:
    body = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    api = Api(httpx2.Response(401, json=body))
    with pytest.raises(AnalyzerError, match=r"asking the model failed: .*key is rejected \(401\)"):
        analyze(calendar, provider=provider(api), config=CONFIG)


# -- the scripted provider ---------------------------------------------------------------------


def test_scripted_answers_in_plan_form_are_accepted_too(calendar: Inventory) -> None:
    plan = calendar_plan()
    broken = copy.deepcopy(plan)
    broken["pipelines"][2]["steps"][0]["args"][1]["flag"] = "--event"
    answers = [{"$text": "Sure! Here is"}, broken, plan, {"keep": True}]  # then the review
    scripted = ScriptedProvider({"_convert/analyze": answers})
    result = analyze_with_usage(calendar, provider=scripted, config=Config())

    assert result.plan.to_dict() == expected(plan)
    assert result.attempts == 3
    assert result.usage == {"input_tokens": 0, "output_tokens": 0}
    assert result.model == DEFAULT_MODELS["reasoning"]


def test_a_plan_that_runs_a_program_without_its_piped_data_is_sent_back(tmp_path: Path) -> None:
    skill = tmp_path / "piped"
    (skill / "tools").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: piped\ndescription: Read data.\n---\n"
        "```bash\ncat data.json | python3 tools/get.py --path user.name\n```\n",
        encoding="utf-8",
    )
    (skill / "tools" / "get.py").write_text(
        "import argparse, sys\np = argparse.ArgumentParser()\n"
        "p.add_argument('--path')\np.parse_args()\nprint(sys.stdin.read())\n",
        encoding="utf-8",
    )
    (skill / "data.json").write_text('{"user": {"name": "Ada"}}\n', encoding="utf-8")
    inventory = build_inventory(skill)
    good = get_analyzer("heuristic")(inventory).to_dict()
    assert good["pipelines"][0]["steps"][0]["stdin"] == {"from": "input.input_file", "as": "file"}
    no_stdin = copy.deepcopy(good)
    del no_stdin["pipelines"][0]["steps"][0]["stdin"]  # the answer says {"from": "", ...}: none
    answers = [to_answer(no_stdin), to_answer(good)]
    assert answers[0]["pipelines"][0]["steps"][0]["stdin"] == {"from": "", "as": "text"}
    scripted = ScriptedProvider({"_convert/analyze": answers})
    said: list[str] = []
    result = analyze_with_usage(inventory, provider=scripted, config=Config(), progress=said.append)

    assert result.attempts == 2
    assert result.plan.to_dict() == expected(good)
    assert any("attempt 1: 1 problem(s)" in line for line in said), said
    assert "stdin" in GUIDE and "Skill mode" in GUIDE
    summarised = gather(inventory, budget=1).inventory["programs"][0]  # every stage applied
    assert summarised["stdin"] == [{"at": "SKILL.md:6", "kind": "file", "value": "data.json"}]


@pytest.mark.parametrize(
    ("topic", "reason", "added"),
    [
        ("没有任何管道匹配的请求", "由 Runner 回退到未改动的 SKILL.md（APP spec §1）", False),
        ("Anything else", "the Runner falls back to SKILL.md", False),
        ("Custom formats", "the model follows SKILL.md in Skill mode", True),
    ],
)
def test_the_fallback_entry_is_added_once_in_any_language(
    calendar: Inventory, topic: str, reason: str, added: bool
) -> None:
    """countbot news (round 5): the analyst's own Chinese "no pipeline matches → SKILL.md"
    entry was followed by app-convert's English one, saying it twice."""
    answer = calendar_answer()
    answer["skill_mode"] = [{"topic": topic, "reason": reason, "where": ""}]
    plan, problems = accept(answer, calendar)
    assert plan is not None and not problems
    topics = [item.topic for item in plan.skill_mode]
    assert topics == [topic, "Requests no pipeline matches"] if added else [topic]
