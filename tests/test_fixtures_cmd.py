"""`app-run test`: pipelines run on their samples/ and compared with samples/expected.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import code, invoke, make_app


@pytest.fixture
def app(tmp_path: Path, runtime_env: Path) -> Path:
    return make_app(
        tmp_path / "app",
        {
            "greet": {"input": {"who": "string"}, "steps": [code("hello", "ok", "hi")]},
            "untested": [code("x")],
            "judged": {"steps": [{"name": "judge", "type": "llm", "prompt": "Judge."}]},
        },
        files={
            "pipelines/greet/samples/input.json": '{"who": "ann"}',
            "pipelines/judged/samples/input.json": "{}",
            "pipelines/judged/samples/answers.yaml": "answers:\n  judged/judge: [{ok: true}]\n",
        },
    )


def results(result) -> dict[str, dict]:
    return {r["pipeline"]: r for r in json.loads(result.stdout)}


def test_runs_each_pipeline_on_its_samples(app: Path) -> None:
    result = invoke("test", app, "--json")
    assert result.exit_code == 0, result.stderr
    got = results(result)
    assert {k: v["status"] for k, v in got.items()} == {
        "greet": "passed",
        "judged": "passed",
        "untested": "skipped",
    }


def test_quiet_by_default_verbose_shows_progress(app: Path) -> None:
    assert invoke("test", app, "greet").stderr == ""
    verbose = invoke("test", app, "greet", "--verbose")
    assert verbose.exit_code == 0 and "hello" in verbose.stderr


def test_update_then_compare_then_detect_a_change(app: Path) -> None:
    assert invoke("test", app, "greet", "--update").exit_code == 0
    expected = app / "pipelines/greet/samples/expected.json"
    assert json.loads(expected.read_text()) == {"step": "hello", "value": "hi"}
    ok = invoke("test", app, "greet")
    assert ok.exit_code == 0 and ok.stdout.endswith("1 passed, 0 failed\n")
    expected.write_text('{"step": "hello", "value": "bye"}')
    changed = invoke("test", app, "greet")
    assert changed.exit_code == 1
    assert 'output.value: expected "bye", got "hi" (accept it with --update)' in changed.stdout


def test_llm_step_without_recorded_answers_fails_not_pauses(app: Path) -> None:
    (app / "pipelines/judged/samples/answers.yaml").unlink()
    result = invoke("test", app, "judged", "--json")
    assert result.exit_code == 1
    assert "needs an LLM provider" in results(result)["judged"]["detail"]


def test_unknown_pipeline_is_a_usage_error(app: Path) -> None:
    result = invoke("test", app, "nope")
    assert result.exit_code == 2 and "no pipeline named 'nope'" in result.stderr


def test_a_failing_constructor_is_named_with_its_reason(tmp_path: Path, runtime_env: Path) -> None:
    """Not just "step exited with 1": which phase, and what the program said last."""
    check = (
        "import sys\nprint('warning: jq is missing', file=sys.stderr)\n"
        "sys.exit(\"the Python package 'pypdf' is not installed: pip install pypdf\")\n"
    )
    app = make_app(
        tmp_path / "app",
        {
            "greet": {"input": {"who": "string"}, "steps": [code("hello")]},
            "_constructor": [{"name": "check", "type": "code", "command": "python3 check.py"}],
        },
        files={
            "pipelines/greet/samples/input.json": '{"who": "ann"}',
            "pipelines/_constructor/check.py": check,
        },
    )
    detail = results(invoke("test", app, "--json"))["greet"]["detail"]
    assert detail.startswith("constructor failed: step exited with 1")
    assert detail.endswith("— the Python package 'pypdf' is not installed: pip install pypdf")
