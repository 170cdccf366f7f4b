"""Host-delegated llm steps: pause -> resume (good, schema-invalid, validate failure,
retries exhausted) and abandon, with the constructor/destructor run exactly once."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import code, invoke, make_app, marker

from skill2app.runtime.records.record import read_events

SCHEMA = {"type": "object", "required": ["score"], "properties": {"score": {"type": "integer"}}}
VALIDATE = """\
import json, sys
data = json.load(sys.stdin)
ok = data["output"]["score"] <= 10
print(json.dumps({"valid": ok, "errors": [] if ok else ["score must be at most 10"]}))
sys.exit(0 if ok else 1)
"""


@pytest.fixture
def app(tmp_path: Path, runtime_env: Path) -> Path:
    judge = {
        "name": "judge",
        "type": "llm",
        "model": "lite",
        "retry": 1,
        "prompt": "Rate {{greet.output}} for {{input.who}}",
        "schema": "schemas/judge.json",
        "validate": "steps/validate.py",
    }
    return make_app(
        tmp_path / "app",
        {
            "_constructor": [code("setup")],
            "greet": {
                "input": {"who": "string"},
                "steps": [code("greet", "ok", "hi"), judge, code("report")],
            },
            "_destructor": [code("cleanup")],
        },
        files={
            "pipelines/greet/schemas/judge.json": json.dumps(SCHEMA),
            "pipelines/greet/steps/validate.py": VALIDATE,
        },
    )


def start(app: Path) -> dict:
    result = invoke("run", app, "greet", "--input", "who=ann", "--json")
    assert result.exit_code == 6, result.stderr
    return json.loads(result.stdout)


def answer(session: str, text: str) -> tuple[int, dict]:
    result = invoke("resume", session, "--answer", "-", "--json", input=text)
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_pause_prints_prompt_schema_and_resume_command(
    app: Path, runtime_env: Path, app_run_home: Path
) -> None:
    paused = start(app)
    assert paused["status"] == "needs_llm"
    assert paused["step"] == "judge" and paused["tier"] == "lite"
    assert paused["prompt"].startswith('Rate {\n  "step": "greet"') and paused["prompt"].endswith(
        "for ann"
    )
    assert paused["schema"] == SCHEMA
    home = f"APP_RUN_HOME={app_run_home}"
    assert paused["resume"] == f"{home} app-run resume {paused['session']} --answer -"
    assert paused["abandon"] == f"{home} app-run abandon {paused['session']}"
    assert (paused["attempt"], paused["max_attempts"]) == (1, 2)
    assert marker(runtime_env, "_constructor", "setup") is not None
    assert marker(runtime_env, "_destructor", "cleanup") is None  # not before the real end


def test_good_answer_finishes_the_run_and_destructor_runs_once(
    app: Path, runtime_env: Path
) -> None:
    paused = start(app)
    code_, done = answer(paused["session"], '{"score": 7}')
    assert code_ == 0 and done["status"] == "succeeded"
    report_stdin = json.loads(marker(runtime_env, "greet", "report")["stdin"])
    assert report_stdin["steps"]["judge"] == {"output": {"score": 7}}
    events = read_events(Path(done["record"]))
    assert [e["event"] for e in events].count("run_end") == 1
    starts = [f"{e['pipeline']}/{e['step']}" for e in events if e["event"] == "step_start"]
    assert starts == ["_constructor/setup", "greet/greet", "greet/report", "_destructor/cleanup"]
    again = invoke("resume", paused["session"], "--answer", "-", input='{"score": 1}')
    assert again.exit_code == 2 and "already ended (succeeded)" in again.stderr


def test_an_answer_fenced_as_agents_write_it_is_taken(app: Path, runtime_env: Path) -> None:
    """A newcomer's trial: a host agent answered "Here it is:" then ```json, the object and
    the closing fence right after its brace; it was "not JSON" and cost an attempt."""
    paused = start(app)
    code_, done = answer(paused["session"], 'Here it is:\n```json\n{"score": 7}```\n')
    assert code_ == 0 and done["status"] == "succeeded"


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("not json", "the answer is not JSON"),
        ('{"score": "high"}', "score: 'high' is not of type 'integer'"),
        ('{"score": 50}', "score must be at most 10"),
    ],
)
def test_rejected_answer_asks_again_with_errors(app: Path, bad: str, expected: str) -> None:
    paused = start(app)
    code_, again = answer(paused["session"], bad)
    assert code_ == 6 and again["status"] == "needs_llm"
    assert again["attempt"] == 2 and any(expected in e for e in again["errors"])
    assert expected in again["prompt"]  # the errors go into the next prompt
    code_, done = answer(paused["session"], '{"score": 3}')
    assert code_ == 0 and done["output"] == {"step": "report", "value": None}


def test_retries_exhausted_fails_the_step_and_runs_destructor(app: Path, runtime_env: Path) -> None:
    paused = start(app)
    answer(paused["session"], "nope")
    code_, done = answer(paused["session"], '{"score": 99}')
    assert code_ == 1 and done["status"] == "failed"
    assert done["error"]["type"] == "AttemptsExhausted"
    assert [a["attempt"] for a in done["error"]["attempts"]] == [1, 2]
    cleanup = marker(runtime_env, "_destructor", "cleanup")
    assert cleanup["env"]["APP_BUSINESS_STATUS"] == "failed"


def test_abandon_runs_destructor_and_ends_the_session(app: Path, runtime_env: Path) -> None:
    """What was asked for, done: exit 0 and a plain line, not "Error: business failed"."""
    paused = start(app)
    result = invoke("abandon", paused["session"], "--json")
    done = json.loads(result.stdout)
    assert result.exit_code == 0, result.stderr
    assert done["status"] == "abandoned" and done["session"] == paused["session"]
    assert "abandoned" in done["error"]["message"]
    assert result.stderr.endswith(
        f"abandoned {paused['session']}: pipeline 'greet' stopped; the destructor ran\n"
    )
    assert "Error" not in result.stderr
    assert marker(runtime_env, "_destructor", "cleanup")["env"]["APP_BUSINESS_STATUS"] == "failed"
    assert marker(runtime_env, "greet", "report") is None
    assert json.loads(invoke("sessions", "--json").stdout) == []  # paused ones only
    listed = json.loads(invoke("sessions", "--all", "--json").stdout)
    assert [(s["session"], s["status"]) for s in listed] == [(paused["session"], "abandoned")]


def test_unknown_and_corrupt_sessions_are_clear_errors(app_run_home: Path, app: Path) -> None:
    result = invoke("resume", "nope", "--answer", "-", input="{}")
    assert result.exit_code == 2 and "no session 'nope'" in result.stderr
    paused = start(app)
    (app_run_home / "sessions" / f"{paused['session']}.json").write_text("{broken")
    result = invoke("resume", paused["session"], "--answer", "-", input="{}")
    assert result.exit_code == 2 and "is corrupt" in result.stderr


@pytest.mark.parametrize(
    ("command", "name", "expected"),
    [
        ("resume", "a" * 5000, "no session 'aaaa"),
        ("abandon", "a" * 5000, "no session 'aaaa"),
        ("resume", "a" * 300, "no session 'aaaa"),
        ("abandon", "x\x00y", "no session 'x\\x00y'"),
        ("abandon", "../sessions/x", "no session '../sessions/x'"),
        ("log", "a" * 5000, "no run matching 'aaaa"),
        ("log", "/tmp/" + "a" * 300 + "/x.jsonl", "no run matching '/tmp/aaaa"),
    ],
)
def test_an_over_long_or_malformed_name_is_no_session(
    command: str, name: str, expected: str, app: Path
) -> None:
    """A name no file could have is "no session" / "no run" (exit 2), never the file system's
    ENAMETOOLONG as an internal error (exit 70); a long one is quoted by its head."""
    start(app)  # a session and a run record exist
    extra = ["--answer", "-"] if command == "resume" else []
    result = invoke(command, name, *extra, input="{}")
    assert result.exit_code == 2, result.stderr
    assert expected in result.stderr and "internal error" not in result.stderr
    assert len(result.stderr) < 300


def test_clean_abandons_stale_sessions(app: Path, runtime_env: Path) -> None:
    paused = start(app)
    kept = json.loads(invoke("sessions", "--clean", "--json").stdout)
    assert kept == []  # a fresh paused session is not stale
    removed = json.loads(invoke("sessions", "--clean", "--older-than", "0", "--json").stdout)
    assert [r["session"] for r in removed] == [paused["session"]]
    assert removed[0]["destructor"] == "succeeded"
    assert json.loads(invoke("sessions", "--json").stdout) == []


def test_no_delegate_fails_with_what_to_set(app: Path) -> None:
    result = invoke("run", app, "greet", "--input", "who=ann", "--no-delegate")
    assert result.exit_code == 2  # refused before anything runs
    assert "needs an LLM provider" in result.stderr and "ANTHROPIC_API_KEY" in result.stderr


def test_resumed_steps_share_the_run_folder_and_caller_dir_and_it_is_removed(
    app: Path, runtime_env: Path
) -> None:
    """APP_WORK_DIR and APP_CALLER_CWD are the paused run's own; the folder goes at the end."""
    paused = start(app)
    before = marker(runtime_env, "greet", "greet")["env"]
    work_dir = Path(before["APP_WORK_DIR"])
    assert work_dir.is_dir() and before["APP_CALLER_CWD"]
    code_, _done = answer(paused["session"], '{"score": 7}')
    after = marker(runtime_env, "greet", "report")["env"]
    assert code_ == 0
    assert after["APP_WORK_DIR"] == before["APP_WORK_DIR"]
    assert after["APP_CALLER_CWD"] == before["APP_CALLER_CWD"]
    assert marker(runtime_env, "_destructor", "cleanup")["env"]["APP_WORK_DIR"] == str(work_dir)
    assert not work_dir.exists()


def test_abandon_removes_the_run_folder(app: Path, runtime_env: Path) -> None:
    paused = start(app)
    work_dir = Path(marker(runtime_env, "greet", "greet")["env"]["APP_WORK_DIR"])
    assert invoke("abandon", paused["session"]).exit_code == 0
    assert not work_dir.exists()


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda steps: [steps[0], steps[2]], id="the llm step removed"),
        pytest.param(lambda steps: [steps[0], code("judge"), steps[2]], id="now a code step"),
        pytest.param(
            lambda steps: [steps[0], {**steps[1], "name": "rate"}, steps[2]], id="renamed"
        ),
    ],
)
def test_resume_refuses_a_pipeline_changed_since_the_pause(
    app: Path, runtime_env: Path, edit: Any
) -> None:
    paused = start(app)
    path = app / "pipelines" / "greet" / "pipeline.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["steps"] = edit(doc["steps"])
    path.write_text(yaml.safe_dump(doc))
    result = invoke("resume", paused["session"], "--answer", "-", input='{"score": 7}')
    assert result.exit_code == 2, result.stderr
    assert "changed since the pause" in result.stderr and "app-run abandon" in result.stderr
    assert marker(runtime_env, "greet", "report") is None
    assert invoke("abandon", paused["session"]).exit_code == 0  # still ends cleanly
    assert marker(runtime_env, "_destructor", "cleanup") is not None


def test_a_session_whose_app_is_gone_can_be_ended(
    app: Path, app_run_home: Path, runtime_env: Path
) -> None:
    first, second = start(app), start(app)
    work_dir = Path(marker(runtime_env, "greet", "greet")["env"]["APP_WORK_DIR"])
    shutil.rmtree(app)
    resumed = invoke("resume", first["session"], "--answer", "-", input='{"score": 7}')
    assert resumed.exit_code == 3 and f"app-run abandon {first['session']}" in resumed.stderr
    result = invoke("abandon", second["session"])
    assert result.exit_code == 3, result.stderr
    assert "its destructor (if it has one) could not run" in result.stderr
    assert "Traceback" not in result.stderr
    assert not work_dir.exists()  # the second run's folder
    every = json.loads(invoke("sessions", "--all", "--json").stdout)
    listed = {s["session"]: s["status"] for s in every}
    assert listed[second["session"]] == "abandoned"
    cleaned = invoke("sessions", "--clean", "--older-than", "0", "--json")
    assert cleaned.exit_code == 3  # as abandon: a destructor could not run
    removed = {r["session"]: r for r in json.loads(cleaned.stdout)}
    assert set(removed) == {first["session"], second["session"]}
    assert "could not run" in removed[first["session"]]["error"]
    assert json.loads(invoke("sessions", "--json").stdout) == []
    assert list((app_run_home / "sessions").glob("*.lock")) == []


@pytest.mark.parametrize(
    ("key", "value"),
    [("inputs", None), ("app", 7), ("position", {"phase": "business", "step": "x"})],
)
def test_a_hand_edited_session_is_corrupt_not_a_crash(
    app: Path, app_run_home: Path, key: str, value: Any
) -> None:
    paused = start(app)
    path = app_run_home / "sessions" / f"{paused['session']}.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, key: value}))
    result = invoke("resume", paused["session"], "--answer", "-", input='{"score": 7}')
    assert result.exit_code == 2 and "is corrupt" in result.stderr, result.stderr


def test_a_session_pointing_past_the_steps_is_refused(app: Path, app_run_home: Path) -> None:
    paused = start(app)
    path = app_run_home / "sessions" / f"{paused['session']}.json"
    data = json.loads(path.read_text())
    data["position"]["step"] = 99
    path.write_text(json.dumps(data))
    result = invoke("resume", paused["session"], "--answer", "-", input='{"score": 7}')
    assert result.exit_code == 2 and "changed since the pause" in result.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--older-than", "-5", "--clean"], "is not a number of hours ≥ 0"),
        (["--older-than", "nan", "--clean"], "is not a number of hours ≥ 0"),
        (["--older-than", "1"], "--older-than goes with --clean"),
    ],
)
def test_sessions_options_that_make_no_sense_are_refused(
    app_run_home: Path, args: list[str], expected: str
) -> None:
    result = invoke("sessions", *args)
    assert result.exit_code == 2 and expected in result.stderr


def test_sessions_lists_paused_ones_under_a_header_all_lists_every_one(
    app: Path, app_run_home: Path
) -> None:
    paused, ended = start(app), start(app)
    assert invoke("abandon", ended["session"]).exit_code == 0
    (app_run_home / "sessions" / "broken.json").write_text("{")
    listed = invoke("sessions")
    assert listed.exit_code == 0
    width = len(paused["session"])
    assert listed.stdout == (
        f"{'SESSION':{width}}  STATUS  PIPELINE  STEP   AGE\n"
        f"{paused['session']}  paused  greet     judge  0.0h\n"
    )
    assert listed.stderr == "(2 ended or corrupt sessions not shown: --all lists them)\n"
    every = invoke("sessions", "--all").stdout.splitlines()
    assert every[0].split() == ["SESSION", "STATUS", "PIPELINE", "STEP", "AGE"]
    assert sorted(line.split()[1] for line in every[1:]) == ["abandoned", "corrupt", "paused"]
    assert any(
        line.startswith("broken")
        and "(cannot be read: `app-run sessions --clean` removes it)" in line
        for line in every
    )


def test_resume_still_takes_the_old_output_option_with_a_note(app: Path) -> None:
    paused = start(app)
    result = invoke("resume", paused["session"], "-o", "-", input='{"score": 7}')
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith(
        "Note: -o/--output is deprecated: use --answer (the same meaning)\n"
    )
    assert "--output" not in invoke("resume", "--help").stdout  # hidden
    both = invoke("resume", paused["session"], "--answer", "-", "--output", "-", input="{}")
    assert both.exit_code == 2 and "--answer and -o/--output are the same option" in both.stderr


def test_abandon_with_a_failing_destructor_is_exit_5(app: Path) -> None:
    paused = start(app)
    cleanup = app / "pipelines" / "_destructor" / "pipeline.yaml"
    cleanup.write_text(cleanup.read_text().replace("step.py ok", "step.py fail"))
    result = invoke("abandon", paused["session"])
    assert result.exit_code == 5 and "Error: destructor failed" in result.stderr


def test_sessions_says_when_none_is_paused(app_run_home: Path) -> None:
    listed = invoke("sessions")
    assert (listed.exit_code, listed.stdout, listed.stderr) == (0, "", "no paused sessions\n")
    result = invoke("sessions", "--clean", "--all")
    assert result.exit_code == 2 and "--clean looks at every session already" in result.stderr


def test_a_run_folder_made_under_another_tmpdir_is_still_the_runs(
    app: Path, runtime_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resumed from a shell with another TMPDIR: the folder is the run's own (same owner)."""
    paused = start(app)
    work_dir = Path(marker(runtime_env, "greet", "greet")["env"]["APP_WORK_DIR"])
    elsewhere = tmp_path / "other-tmp"
    elsewhere.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    code_, _done = answer(paused["session"], '{"score": 7}')
    assert code_ == 0
    assert marker(runtime_env, "greet", "report")["env"]["APP_WORK_DIR"] == str(work_dir)
    assert not work_dir.exists()
