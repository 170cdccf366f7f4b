"""llm steps (spec 4.2) with the scripted provider: rendering, JSON Schema then the validate
script, retries that carry the errors into the next prompt, and every attempt's errors when the
retries run out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import APPS, assert_run, code, invoke, make_app, marker

from skill2app.runtime.app.config import Config
from skill2app.runtime.app.model import load_app
from skill2app.runtime.providers.base import LlmRequest, LlmResponse
from skill2app.runtime.providers.scripted import ScriptedProvider
from skill2app.runtime.records.record import read_events
from skill2app.runtime.run.runner import start

pytestmark = pytest.mark.usefixtures("runtime_env")

LLM_APP = APPS / "llm-review"
ANSWERS = LLM_APP / "answers"
FACTS = {"files": ["cache.py", "db.py"], "topic": "caching"}
NOT_JSON = "the answer is not JSON (Expecting value at line 1)"
SCHEMA_ERRORS = [
    "(root): 'summary' is a required property",
    "score: 'high' is not of type 'integer'",
]
VALIDATE_ERRORS = ["score 42 is above 10", "the summary does not mention cache.py"]


def review(answers: str, *args: str):
    return invoke(
        "run",
        LLM_APP,
        "review",
        "-i",
        "topic=caching",
        "--provider",
        "scripted",
        "--answers",
        ANSWERS / answers,
        "--json",
        *args,
    )


class Recording:
    """A provider that remembers every request and lets the scripted one answer."""

    name = "recording"

    def __init__(self, inner: ScriptedProvider) -> None:
        self.inner = inner
        self.requests: list[LlmRequest] = []

    def complete(self, request: LlmRequest) -> LlmResponse:
        self.requests.append(request)
        return self.inner.complete(request)


def run_in_process(inputs: dict[str, Any], answers: str, home: Path) -> tuple[Any, Recording]:
    provider = Recording(ScriptedProvider.from_file(ANSWERS / answers))
    config = Config(provider="scripted", models={"lite": "tiny-model", "standard": "mid-model"})
    result = start(load_app(LLM_APP), "review", inputs, config=config, provider=provider, home=home)
    return result, provider


# --- retries -----------------------------------------------------------------------------


def test_each_kind_of_bad_answer_is_retried_until_a_good_one(app_run_home: Path) -> None:
    data, events = assert_run(
        review("recover.yaml"), status="succeeded", ran=["review/collect", "review/judge"]
    )
    assert data["output"] == {"score": 7, "summary": "cache.py needs a TTL"}
    retries = [(e["attempt"], e["errors"]) for e in events if e["event"] == "step_retry"]
    assert retries == [(1, [NOT_JSON]), (2, SCHEMA_ERRORS), (3, VALIDATE_ERRORS)]
    judge_end = [e for e in events if e["event"] == "step_end" and e["step"] == "judge"]
    assert judge_end[0]["retries"] == 3


def test_exhausted_retries_fail_the_step_with_every_attempts_errors() -> None:
    data, events = assert_run(
        review("exhausted.yaml"),
        status="failed",
        ran=["review/collect", "review/judge"],
        error="AttemptsExhausted: no valid answer after 4 attempts — attempt 1: " + NOT_JSON,
    )
    assert data["error"]["step"] == "judge"
    assert data["error"]["attempts"] == [
        {"attempt": 1, "errors": [NOT_JSON]},
        {"attempt": 2, "errors": SCHEMA_ERRORS},
        {"attempt": 3, "errors": VALIDATE_ERRORS},
        {
            "attempt": 4,
            "errors": ["(root): Additional properties are not allowed ('extra' was unexpected)"],
        },
    ]
    assert data["error"]["hint"] == "tighten the prompt, relax the schema, or raise retry:"
    assert [e["attempt"] for e in events if e["event"] == "step_retry"] == [1, 2, 3, 4]


def test_the_record_counts_the_retries_of_an_exhausted_step() -> None:
    _, events = assert_run(
        review("exhausted.yaml"),
        status="failed",
        ran=["review/collect", "review/judge"],
        error="AttemptsExhausted",
    )
    judge_end = next(e for e in events if e["event"] == "step_end" and e["step"] == "judge")
    assert judge_end["retries"] == 3


SIMPLE_SCHEMA = {"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}


def simple_app(tmp_path: Path, answers: list[Any], **step: Any) -> tuple[Path, Path]:
    judge = {"name": "judge", "type": "llm", "prompt": "Answer.", "schema": "s.json", **step}
    app = make_app(
        tmp_path / "app",
        {"ask": [judge]},
        {
            "pipelines/ask/s.json": json.dumps(SIMPLE_SCHEMA),
            "answers.yaml": {"answers": {"ask/judge": answers}},
        },
    )
    return app, app / "answers.yaml"


def run_simple(app: Path, answers: Path):
    return invoke("run", app, "ask", "--provider", "scripted", "--answers", answers, "--json")


BAD = {"ok": "yes"}
BAD_ERROR = "ok: 'yes' is not of type 'boolean'"


def test_retry_defaults_to_2_so_three_attempts(tmp_path: Path) -> None:
    app, answers = simple_app(tmp_path, [BAD, BAD, {"ok": True}])
    _, events = assert_run(run_simple(app, answers), status="succeeded", ran=["ask/judge"])
    assert next(e for e in events if e["event"] == "step_end")["retries"] == 2

    app, answers = simple_app(tmp_path / "again", [BAD, BAD, BAD, {"ok": True}])
    data, _ = assert_run(
        run_simple(app, answers),
        status="failed",
        ran=["ask/judge"],
        error="AttemptsExhausted: no valid answer after 3 attempts",
    )
    assert data["error"]["attempts"] == [{"attempt": n, "errors": [BAD_ERROR]} for n in (1, 2, 3)]


def test_retry_0_means_one_attempt(tmp_path: Path) -> None:
    app, answers = simple_app(tmp_path, [BAD, {"ok": True}], retry=0)
    data, _ = assert_run(
        run_simple(app, answers),
        status="failed",
        ran=["ask/judge"],
        error="AttemptsExhausted: no valid answer after 1 attempts",
    )
    assert len(data["error"]["attempts"]) == 1


def test_a_fenced_json_answer_is_accepted(tmp_path: Path) -> None:
    app, answers = simple_app(tmp_path, [{"$text": '```json\n{"ok": false}\n```'}])
    data, _ = assert_run(run_simple(app, answers), status="succeeded", ran=["ask/judge"])
    assert data["output"] == {"ok": False}


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('Here it is:\n```json\n{"a": 1}```', '{"a": 1}'),  # closed right after the brace
        ('```\n{"a": 1}\n```\nDone.', '{"a": 1}'),  # words after the fence
        ("```yaml\na: 1\n", "a: 1"),  # cut off before its closing fence
        ('{"code": "```py\\nx\\n```"}', '{"code": "```py\\nx\\n```"}'),  # JSON: as it is
        ("plain words", "plain words"),
    ],
)
def test_unfenced_takes_the_document_out_of_its_fence(text: str, body: str) -> None:
    from skill2app.runtime.run.fence import unfenced

    assert unfenced(text) == body


def test_a_reviewers_answers_read_as_their_authors_meant() -> None:
    """A fenced answer followed by a usage block, and a YAML plan holding a fence in one of
    its strings, are read whole (closing at the last fence read the first as "not JSON";
    taking any fence read the second as its inner block)."""
    from skill2app.converter.analyzers.loop import parse_answer
    from skill2app.runtime.run.fence import read_answer

    two = 'Plan:\n```json\n{"a": 1}\n```\nThen run:\n```bash\napp-convert resume S\n```\n'
    assert read_answer(two, json.loads) == {"a": 1}
    assert parse_answer(two) == ({"a": 1}, "")
    inner = "name: p\nprompt: |\n  Answer like this:\n  ```bash\n  ls\n  ```\nsteps: []\n"
    assert parse_answer(inner)[0] == {
        "name": "p",
        "prompt": "Answer like this:\n```bash\nls\n```\n",
        "steps": [],
    }
    fenced_inner = "```yaml\n" + inner + "```\n"
    assert parse_answer(fenced_inner)[0]["steps"] == []
    assert parse_answer("```\n" + "`" * 200_000 + "\n")[0] is None  # bounded, no hang


def test_without_a_schema_the_text_is_the_output(tmp_path: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {"ask": [code("facts", "ok", "x"), {"name": "say", "type": "llm", "prompt": "Hi"}]},
        {"answers.yaml": {"answers": {"say": [{"$text": "Hello there"}]}}},
    )
    data, _ = assert_run(
        invoke(
            "run", app, "ask", "--provider", "scripted", "--answers", app / "answers.yaml", "--json"
        ),
        status="succeeded",
        ran=["ask/facts", "ask/say"],
    )
    assert data["output"] == "Hello there"


def test_running_out_of_scripted_answers_fails_the_step(tmp_path: Path) -> None:
    app, answers = simple_app(tmp_path, [BAD])
    data, _ = assert_run(
        run_simple(app, answers),
        status="failed",
        ran=["ask/judge"],
        error=f"ProviderError: scripted answers for ask/judge ran out after 1 in {answers}",
    )


# --- the validate script ---------------------------------------------------------------------


def test_a_crashing_validate_script_fails_the_step_without_retrying() -> None:
    result = invoke(
        "run",
        LLM_APP,
        "crash",
        "--provider",
        "scripted",
        "--answers",
        ANSWERS / "crash.yaml",
        "--json",
    )
    data, events = assert_run(
        result,
        status="failed",
        ran=["crash/judge"],
        error="SubprocessError: validate script exited with 2",
    )
    assert data["error"]["stderr_tail"] == "Traceback (most recent call last):\nKeyError: 'verdict'"
    assert data["error"]["command"] == "python3 steps/crash.py"
    assert not [e for e in events if e["event"] == "step_retry"]


def test_the_validate_script_gets_output_input_and_steps(runtime_env: Path) -> None:
    review("recover.yaml")
    calls = [json.loads(line) for line in (runtime_env / "validate.jsonl").read_text().splitlines()]
    # Attempts 1 and 2 never reach it: not JSON, then not matching the schema.
    assert calls == [
        {
            "input": {"topic": "caching"},
            "steps": {"collect": {"output": FACTS}},
            "output": {"score": 42, "summary": "looks fine"},
        },
        {
            "input": {"topic": "caching"},
            "steps": {"collect": {"output": FACTS}},
            "output": {"score": 7, "summary": "cache.py needs a TTL"},
        },
    ]


# --- what the provider is asked ---------------------------------------------------------------


def test_the_prompt_is_rendered_and_retries_carry_the_errors(app_run_home: Path) -> None:
    result, provider = run_in_process({"topic": "caching"}, "recover.yaml", app_run_home)
    assert result.status == "succeeded"
    first = provider.requests[0]
    facts = json.dumps(FACTS, indent=2)
    assert first.prompt == (
        f"Review the change about caching.\nFacts: {facts}\nFirst file: cache.py\n"
    )
    assert (first.tier, first.model, first.attempt) == ("lite", "tiny-model", 1)
    assert (first.pipeline, first.step) == ("review", "judge")
    schema = json.loads((LLM_APP / "pipelines/review/schemas/judge.json").read_text())
    assert first.schema == schema and first.thinking is False
    feedback = [r.prompt[len(first.prompt) :] for r in provider.requests[1:]]
    assert feedback == [
        "\n\nYour previous answer was rejected for these reasons:\n"
        f"{''.join(f'- {e}' + chr(10) for e in errors)}"
        "Answer again, fixing every point above."
        for errors in ([NOT_JSON], SCHEMA_ERRORS, VALIDATE_ERRORS)
    ]
    assert [r.attempt for r in provider.requests] == [1, 2, 3, 4]


def test_an_input_that_looks_like_a_placeholder_stays_literal(app_run_home: Path) -> None:
    result, provider = run_in_process({"topic": "{{collect.output}}"}, "recover.yaml", app_run_home)
    assert provider.requests[0].prompt.startswith("Review the change about {{collect.output}}.\n")


# --- no provider ---------------------------------------------------------------------------


def test_no_provider_names_anthropic_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    result = invoke("run", LLM_APP, "review", "-i", "topic=x", "--no-delegate", "--quiet")
    assert result.exit_code == 2  # nothing ran
    assert result.stderr == (
        "Error: llm step 'judge' of review needs an LLM provider and none is configured "
        f"({LLM_APP / 'pipelines/review/pipeline.yaml'}:9) — set ANTHROPIC_API_KEY, or run with "
        "--provider scripted --answers FILE, or drop --no-delegate\n"
    )


def test_an_llm_step_in_the_destructor_needs_a_provider_before_anything_runs(
    tmp_path: Path, runtime_env: Path
) -> None:
    app = make_app(
        tmp_path / "app",
        {
            "hello": [code("work", "ok", "done")],
            "_destructor": [{"name": "summarise", "type": "llm", "prompt": "Summarise."}],
        },
    )
    result = invoke(
        "run", app, "hello", "--json"
    )  # delegation is on, but a destructor never pauses
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["type"] == "ProviderNotConfigured"
    assert "llm step 'summarise' of _destructor needs an LLM provider" in result.stderr
    assert "ANTHROPIC_API_KEY" in result.stderr
    assert marker(runtime_env, "hello", "work") is None  # nothing ran


@pytest.mark.parametrize(
    ("args", "expected_error"),
    [
        (
            ["--provider", "scripted"],
            "Error: the scripted provider needs an answers file — pass --answers FILE or set "
            "answers: in app-run.yaml\n",
        ),
        (
            ["--provider", "scripted", "--answers", "/nonexistent/answers.yaml"],
            "Error: scripted answers file /nonexistent/answers.yaml not found — "
            "pass --answers FILE\n",
        ),
        (
            ["--provider", "bogus"],
            "Error: --provider 'bogus' is not a provider — use one of anthropic, openai, local, "
            "scripted, none\n",
        ),
    ],
)
def test_provider_configuration_errors_exit_2_before_anything_runs(
    args: list[str], expected_error: str, runtime_env: Path, app_run_home: Path
) -> None:
    result = invoke("run", LLM_APP, "review", "-i", "topic=x", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected_error)
    assert marker(runtime_env, "review", "collect") is None
    assert not (app_run_home / "runs").exists()


def test_the_record_of_an_llm_run_keeps_no_prompt_or_answer(app_run_home: Path) -> None:
    data = json.loads(review("recover.yaml").stdout)
    text = Path(data["record"]).read_text()
    assert "cache.py needs a TTL" not in text and "Review the change" not in text
    assert read_events(Path(data["record"]))[0]["provider"] == "scripted"


def test_a_broken_answers_file_is_a_usage_error_with_its_line(tmp_path: Path) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text("answers:\n  review/judge:\n    - {score: 1\n")
    result = invoke(
        "run", LLM_APP, "review", "-i", "topic=x", "--provider", "scripted", "--answers", answers
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: invalid YAML: ")
    assert f"({answers}:4)" in result.stderr
