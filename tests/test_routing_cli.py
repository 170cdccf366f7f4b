"""`app-run route`, `app-run APP "request"` (ask), Skill-mode fallback and --agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from helpers import code, invoke, make_app, marker

from skill2app.runtime.cli import shorthand
from skill2app.runtime.routing import RouteDecision

SKILL_MD = """---
name: office-helper
description: Helps with invoices, meeting notes and translations.
---
# Office helper
Use tools/count.py to count words.
"""


@pytest.fixture
def app(tmp_path: Path, runtime_env: Path) -> Path:
    return make_app(
        tmp_path / "office",
        {
            "_constructor": [code("setup")],
            "invoice": {
                "description": "Create an invoice for a customer with an amount in euros",
                "triggers": ["bill a customer", "make an invoice", "invoice ACME for 200 euros"],
                "input": {"customer": "string", "amount": "number"},
                "steps": [code("make", "ok", "invoice")],
            },
            "meeting-notes": {
                "description": "Summarise meeting notes into decisions and action items",
                "triggers": ["summarise these meeting notes", "what did we decide in the meeting"],
                "steps": [code("summary")],
            },
            "translate": {
                "description": "Translate a text into Chinese",
                "triggers": ["翻译成中文", "把这段话翻译成中文", "translate to Chinese"],
                "steps": [code("translate")],
            },
            "_destructor": [code("cleanup")],
        },
        files={"SKILL.md": SKILL_MD, "tools/count.py": "print('count')\n"},
    )


def route(app: Path, text: str, *extra: str) -> dict:
    result = invoke("route", app, text, "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("please bill customer Globex for 120 euros", "invoice"),
        ("what were the action items from today's meeting?", "meeting-notes"),
        ("请把这句话翻译成中文", "translate"),
        ("book me a flight to Lisbon next Tuesday", None),
        ("what is the capital of Peru", None),
    ],
)
def test_route_decides_or_says_no_match(app: Path, text: str, expected: str | None) -> None:
    decision = route(app, text)
    assert decision["pipeline"] == expected
    assert decision["strategy"] == "embedded"
    assert set(decision) == {"pipeline", "decision", "score", "strategy", "reason", "candidates"}
    assert decision["decision"] == ("match" if expected else "no_match")
    assert decision["candidates"] and decision["reason"]


def test_route_human_output_names_choice_and_runners_up(app: Path) -> None:
    result = invoke("route", app, "make an invoice for Initech, amount 99")
    assert result.exit_code == 0
    first, why, *rest = result.stdout.splitlines()
    assert first.startswith("invoice  score ") and first.endswith("[embedded]")
    assert why.startswith("  why: ") and rest


def test_ask_routes_extracts_inputs_and_runs(app: Path, runtime_env: Path) -> None:
    result = invoke("ask", app, "invoice customer=Globex amount=120.5", "--json")
    assert result.exit_code == 0, result.stderr
    stdin = json.loads(marker(runtime_env, "invoice", "make")["stdin"])
    assert stdin["input"] == {"customer": "Globex", "amount": 120.5}
    assert marker(runtime_env, "_destructor", "cleanup") is not None
    lines = result.stderr.splitlines()  # where it went is said before the steps run
    assert lines[0].startswith("→ invoice (embedded, score ")
    assert any(line.startswith("  invoice/make: ok") for line in lines[1:])


def test_ask_asks_for_missing_inputs_before_running(app: Path, runtime_env: Path) -> None:
    result = invoke("ask", app, "make an invoice please")
    assert result.exit_code == 9, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "needs_input" and data["missing"]["required"] == [
        "customer",
        "amount",
    ]
    assert "Missing inputs for 'invoice': customer, amount" in result.stderr
    assert marker(runtime_env, "_constructor", "setup") is None


def test_no_match_falls_back_to_skill_mode(app: Path, runtime_env: Path) -> None:
    result = invoke("ask", app, "book me a flight to Lisbon")
    assert result.exit_code == 7
    data = json.loads(result.stdout)
    assert data["mode"] == "skill" and data["status"] == "no_match"
    assert data["skill_md"] == str(app.resolve() / "SKILL.md")
    assert data["frontmatter"]["name"] == "office-helper" and data["warnings"] == []
    assert [p["path"] for p in data["programs"]] == ["tools/count.py"]
    assert data["routing"]["pipeline"] is None
    assert marker(runtime_env, "_constructor", "setup") is None  # the host carries on


@pytest.mark.parametrize(
    ("skill_md", "expected_warning"),
    [
        (
            b"---\nname: [broken\n---\n# Office helper\n",
            "SKILL.md's frontmatter is not valid YAML: expected ',' or ']', but got '<stream end>'"
            " ({skill}:2) — fix the YAML",
        ),
        (
            b"---\nname: office-helper\n# no closing line\n",
            "SKILL.md's frontmatter has no closing --- ({skill}:1) — end it with a line ---",
        ),
        (
            b"---\n- a list\n---\n",
            "SKILL.md's frontmatter is not a mapping ({skill}:2) — write it as name: ... and "
            "description: ... lines",
        ),
        (
            b"---\nname: caf\xe9\n---\n",
            "SKILL.md is not UTF-8 text (byte 13) ({skill}:2) — convert it to UTF-8 (its other "
            "bytes are shown as \ufffd)",
        ),
    ],
    ids=["bad-yaml", "unclosed", "not-a-mapping", "not-utf8"],
)
def test_a_broken_skill_md_is_said_by_skill_mode_and_check(
    app: Path, skill_md: bytes, expected_warning: str
) -> None:
    """SKILL.md is the fallback, so a broken one does not stop anything: but it is said, with
    its line, where the host agent and the author will see it."""
    skill = app.resolve() / "SKILL.md"
    skill.write_bytes(skill_md)
    expected = expected_warning.format(skill=skill)
    result = invoke("ask", app, "book me a flight to Lisbon")
    assert result.exit_code == 7
    data = json.loads(result.stdout)
    assert data["skill_md"] == str(skill)
    assert data["frontmatter"] == ({"name": "caf\ufffd"} if b"\xe9" in skill_md else {})
    (warning,) = data["warnings"]
    assert (warning["level"], warning["file"]) == ("warning", str(skill))
    assert f"Warning: {expected}\n" in result.stderr
    checked = invoke("check", app)
    assert checked.exit_code == 0 and f"warning: {expected}\n" in checked.stderr


def test_agent_without_provider_says_what_to_set(app: Path) -> None:
    result = invoke("ask", app, "book me a flight to Lisbon", "--agent")
    assert result.exit_code == 2  # a setup error: nothing ran
    assert "--agent needs an LLM provider" in result.stderr


def test_agent_runs_skill_mode_inside_the_lifecycle(
    app: Path, tmp_path: Path, runtime_env: Path
) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text(
        yaml.safe_dump(
            {
                "answers": {
                    "_agent": [
                        {
                            "content": [
                                {"type": "tool_use", "name": "tools_count", "input": {"args": []}}
                            ],
                            "stop_reason": "tool_use",
                        },
                        {
                            "content": [{"type": "text", "text": "I cannot book flights."}],
                            "stop_reason": "end_turn",
                        },
                    ]
                }
            }
        )
    )
    result = invoke(
        "ask",
        app,
        "book me a flight to Lisbon",
        "--agent",
        "--provider",
        "scripted",
        "--answers",
        answers,
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["mode"] == "skill" and data["status"] == "succeeded"
    assert data["answer"] == "I cannot book flights." and data["turns"] == 2
    setup = marker(runtime_env, "_constructor", "setup")
    assert json.loads(setup["stdin"])["input"] == {"request": "book me a flight to Lisbon"}
    cleanup = marker(runtime_env, "_destructor", "cleanup")
    assert cleanup["env"]["APP_BUSINESS_PIPELINE"] == "_skill"
    assert cleanup["env"]["APP_BUSINESS_STATUS"] == "succeeded"


def scripted(tmp_path: Path, answers: list) -> Path:
    path = tmp_path / "route-answers.yaml"
    path.write_text(yaml.safe_dump({"answers": {"_router/route": answers}}))
    return path


def test_llm_strategy_checks_the_answer_against_real_names(app: Path, tmp_path: Path) -> None:
    answers = scripted(
        tmp_path,
        [{"pipeline": "invoicing", "reason": "typo"}, {"pipeline": "invoice", "reason": "billing"}],
    )
    decision = route(
        app, "bill them", "--strategy", "llm", "--provider", "scripted", "--answers", str(answers)
    )
    assert (decision["pipeline"], decision["strategy"]) == ("invoice", "llm")
    assert decision["reason"] == "billing"


def test_llm_strategy_gives_no_match_after_two_invalid_answers(app: Path, tmp_path: Path) -> None:
    answers = scripted(tmp_path, ["nonsense", {"pipeline": "nope", "reason": ""}])
    decision = route(
        app, "x", "--strategy", "llm", "--provider", "scripted", "--answers", str(answers)
    )
    assert decision["pipeline"] is None and "no valid answer" in decision["reason"]


def test_llm_strategy_without_provider_is_a_clear_error(app: Path) -> None:
    result = invoke("route", app, "x", "--strategy", "llm")
    assert result.exit_code == 2 and "llm routing needs an LLM provider" in result.stderr


def test_hybrid_does_not_call_the_llm_when_embedded_is_sure(app: Path, tmp_path: Path) -> None:
    answers = scripted(tmp_path, [])  # any LLM call would fail: no answers
    for text, expected in [
        ("make an invoice for ACME, 200 euros", "invoice"),
        ("what is the capital of Peru", None),
    ]:
        decision = route(
            app, text, "--strategy", "hybrid", "--provider", "scripted", "--answers", str(answers)
        )
        assert decision["pipeline"] == expected and decision["strategy"] == "hybrid"


@pytest.mark.parametrize("outcome", ["match", "no_match"])
def test_hybrid_asks_the_llm_only_when_embedded_is_unsure(outcome: str) -> None:
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.routing import Candidate, RouteEntry
    from skill2app.runtime.routing.router import decide

    entries = [RouteEntry("a", "first", ()), RouteEntry("b", "second", ())]
    ranked = (Candidate("a", 0.5, ""), Candidate("b", 0.3, ""))

    class Sure:
        def route(self, request: str) -> RouteDecision:
            pipeline = "a" if outcome == "match" else None
            return RouteDecision(pipeline, 0.5, "embedded", ranked, "", outcome)

    provider = Recording({"pipeline": "b", "reason": "never asked"})
    decision = decide(
        entries, "x", strategy="hybrid", config=Config(), provider=provider, embedded=Sure()
    )  # type: ignore[arg-type]
    assert decision.decision == outcome and provider.asked == []


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["APPDIR", "do it"], ["ask", "APPDIR", "do it"]),
        (["--debug", "APPDIR", "do it"], ["--debug", "ask", "APPDIR", "do it"]),
        (["run", "APPDIR", "p"], ["run", "APPDIR", "p"]),
        (["not-a-dir", "x"], ["ask", "not-a-dir", "x"]),  # load_app: "does not exist"
    ],
)
def test_shorthand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list, expected: list
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "APPDIR").mkdir()
    assert shorthand(argv) == expected


def test_console_script_shorthand_routes(app: Path) -> None:
    import shutil
    import subprocess

    exe = shutil.which("app-run")
    assert exe, "the app-run console script is installed with the package"
    done = subprocess.run(
        [exe, str(app), "what is the capital of Peru"], capture_output=True, text=True
    )
    assert done.returncode == 7 and json.loads(done.stdout)["mode"] == "skill"


class Recording:
    """A provider that keeps every request and gives the same structured answer."""

    name = "recording"

    def __init__(self, answer: dict) -> None:
        self.answer = answer
        self.asked: list = []

    def complete(self, request: object) -> object:
        from skill2app.runtime.providers.base import LlmResponse

        self.asked.append(request)
        return LlmResponse(text="", data=self.answer)


def test_llm_routing_asks_for_a_short_answer() -> None:
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.routing import RouteEntry
    from skill2app.runtime.routing.router import llm_route

    provider = Recording({"pipeline": "invoice", "reason": "bill"})
    entries = [RouteEntry("invoice", "Issue an invoice", ("bill them",))]
    decision = llm_route(entries, "bill ACME", Config(), provider)
    assert decision.pipeline == "invoice"
    (request,) = provider.asked
    # a rambling model is cut off early: the lite tier's 4096 tokens are not for a name
    assert request.max_tokens == 256
    assert request.schema is not None
    assert request.schema["properties"]["reason"]["maxLength"] == 200


def test_hybrid_lets_the_llm_choose_among_the_embedded_shortlist() -> None:
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.routing import Candidate, RouteDecision, RouteEntry
    from skill2app.runtime.routing.router import decide

    entries = [RouteEntry(f"p{i}", f"pipeline number {i}", ()) for i in range(8)]
    close = tuple(Candidate(f"p{i}", round(0.4 - i / 100, 2), "") for i in (6, 2, 4))

    class Unsure:  # an embedded router that hands over a short list
        def route(self, request: str) -> RouteDecision:
            return RouteDecision(None, 0.4, "embedded", close, "unsure", "unsure")

    provider = Recording({"pipeline": "p2", "reason": "fits"})
    decision = decide(
        entries, "x", strategy="hybrid", config=Config(), provider=provider, embedded=Unsure()
    )  # type: ignore[arg-type]
    assert (decision.pipeline, decision.strategy) == ("p2", "hybrid")
    # embedded's scores and runners-up stay, the chosen one first
    assert [(c.pipeline, c.score) for c in decision.candidates] == [
        ("p2", 0.38),
        ("p6", 0.34),
        ("p4", 0.36),
    ]
    assert decision.score == 0.38 and decision.decision == "match" and decision.confirmed
    assert "the LLM chose it from embedded's short list of 3" in decision.reason
    (request,) = provider.asked
    assert request.schema is not None
    assert request.schema["properties"]["pipeline"]["enum"] == ["p6", "p2", "p4", None]
    assert "- p6:" in request.prompt and "- p0:" not in request.prompt


def test_a_pipeline_that_cannot_be_read_stops_routing_and_list_says_so(
    app: Path, runtime_env: Path
) -> None:
    """A broken pipeline.yaml might be the one the request is for: routing to a sibling (or to
    Skill mode) would hide it, so route and ask stop with its file:line; list shows the row."""
    path = app / "pipelines" / "invoice" / "pipeline.yaml"
    path.write_text(path.read_text() + "input: [\n")
    for command in ("route", "ask"):
        result = invoke(command, app, "summarise these meeting notes please")
        assert result.exit_code == 3, (command, result.stderr)
        assert "pipeline 'invoice' cannot be read" in result.stderr
        assert "invoice/pipeline.yaml:" in result.stderr and "Traceback" not in result.stderr
    assert marker(runtime_env, "meeting-notes", "summary") is None
    error = json.loads(invoke("route", app, "summarise these notes", "--json").stdout)["error"]
    assert error["message"].startswith("pipeline 'invoice' cannot be read, so no request can be")
    assert str(path) not in error["message"] and error["where"].startswith(f"{path}:")
    assert error["hint"].startswith("fix the YAML")
    listed = invoke("list", app, "--json")
    assert listed.exit_code == 3
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["invoice"]["error"] and not rows["meeting-notes"].get("error")
    assert "invoice/pipeline.yaml:" in listed.stderr


@pytest.mark.parametrize(
    ("answer", "pipeline", "reason"),
    [
        ({"pipeline": None, "reason": "none fits"}, None, "the LLM found none"),
        ({"bad": 1}, None, "router model gave no valid answer"),  # embedded's own decision
    ],
)
def test_hybrid_keeps_embedded_scores_when_the_llm_declines_or_fails(
    answer: dict, pipeline: str | None, reason: str
) -> None:
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.routing import Candidate, RouteDecision, RouteEntry
    from skill2app.runtime.routing.router import decide

    entries = [RouteEntry("a", "first", ()), RouteEntry("b", "second", ())]
    close = (Candidate("a", 0.41, ""), Candidate("b", 0.3, ""))

    class Unsure:
        def route(self, request: str) -> RouteDecision:
            return RouteDecision(None, 0.41, "embedded", close, "unsure", "unsure")

    decision = decide(
        entries,
        "x",
        strategy="hybrid",
        config=Config(),
        provider=Recording(answer),
        embedded=Unsure(),
    )  # type: ignore[arg-type]
    assert (decision.pipeline, decision.score, decision.candidates) == (pipeline, 0.41, close)
    assert reason in decision.reason


@pytest.mark.parametrize("command", ["route", "ask"])
def test_an_empty_request_is_a_usage_error(app: Path, command: str) -> None:
    result = invoke(command, app, "   ")
    assert result.exit_code == 2 and "the request is empty" in result.stderr


def test_skill_mode_without_a_skill_md_does_not_say_to_follow_it(
    tmp_path: Path, runtime_env: Path
) -> None:
    bare = make_app(
        tmp_path / "bare",
        {"invoice": {"description": "Create an invoice", "steps": [code("make")]}},
    )
    (bare / "SKILL.md").unlink(missing_ok=True)
    result = invoke("ask", bare, "what is the capital of Peru")
    assert result.exit_code == 7
    assert json.loads(result.stdout)["skill_md"] is None
    assert result.stderr.rstrip().endswith("Skill mode — the APP has no SKILL.md")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "pipeline.yaml is empty"),
        ("- a\n", "pipeline.yaml is a list, not a mapping"),
        ("name: invoice\nsteps: []\n", "pipeline.yaml has no description"),
        ('name: invoice\ndescription: Bill\ntriggers: "bill them"\n', "triggers is not a list"),
    ],
)
def test_a_pipeline_routing_cannot_read_stops_it(app: Path, text: str, problem: str) -> None:
    (app / "pipelines" / "invoice" / "pipeline.yaml").write_text(text)
    for command in ("route", "list"):
        result = invoke(
            command, app, *(["summarise these meeting notes"] if command == "route" else [])
        )
        assert result.exit_code == 3, (command, result.stderr)
        assert problem in result.stderr and "invoice/pipeline.yaml" in result.stderr


def test_hybrid_keeps_embedded_answer_when_the_provider_fails() -> None:
    """An unreachable LLM (network down, no credit) does not turn an uncertain route into an
    error: hybrid answers as embedded, and says why."""
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.errors import ProviderError
    from skill2app.runtime.routing import Candidate, RouteDecision, RouteEntry
    from skill2app.runtime.routing.router import decide

    entries = [RouteEntry("a", "first", ()), RouteEntry("b", "second", ())]
    close = (Candidate("a", 0.47, ""), Candidate("b", 0.3, ""))

    class Unsure:
        def route(self, request: str) -> RouteDecision:
            return RouteDecision(None, 0.47, "embedded", close, "unsure: a or b", "unsure")

    class Down:
        name = "down"

        def complete(self, request: object) -> object:
            raise ProviderError("cannot reach the API: connection refused")

    decision = decide(
        entries, "x", strategy="hybrid", config=Config(), provider=Down(), embedded=Unsure()
    )  # type: ignore[arg-type]
    assert (decision.pipeline, decision.strategy, decision.candidates) == (None, "hybrid", close)
    assert decision.decision == "unsure"  # handed to the caller, as embedded would
    assert "the LLM failed: cannot reach the API: connection refused" in decision.reason
