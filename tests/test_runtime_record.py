"""Run records: every run appends JSONL events under APP_RUN_HOME/runs/; `app-run log` shows them.
Secrets never reach a record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import assert_run, code, invoke, make_app

from skill2app.runtime.records.record import read_events

pytestmark = pytest.mark.usefixtures("runtime_env")

SECRET = "s3cr3t-value-do-not-log"


@pytest.fixture
def app(tmp_path: Path) -> Path:
    return make_app(
        tmp_path / "app",
        {
            "_constructor": [code("prepare")],
            "hello": [code("first"), code("second", "ok", "done")],
            "broken": [code("first"), code("boom", "fail")],
            "_destructor": [code("cleanup")],
        },
    )


def run(app: Path, pipeline: str = "hello") -> dict:
    return json.loads(invoke("run", app, pipeline, "--json").stdout)


def test_events_in_order(app: Path) -> None:
    data, events = assert_run(
        invoke("run", app, "hello", "--json"),
        status="succeeded",
        ran=["_constructor/prepare", "hello/first", "hello/second", "_destructor/cleanup"],
    )
    summary = [
        (e["event"], e.get("phase") or e.get("pipeline"), e.get("step"), e.get("status"))
        for e in events
    ]
    assert summary == [
        ("run_start", "hello", None, None),
        ("phase_start", "constructor", None, None),
        ("step_start", "_constructor", "prepare", None),
        ("step_end", "_constructor", "prepare", "succeeded"),
        ("phase_end", "constructor", None, "succeeded"),
        ("phase_start", "business", None, None),
        ("step_start", "hello", "first", None),
        ("step_end", "hello", "first", "succeeded"),
        ("step_start", "hello", "second", None),
        ("step_end", "hello", "second", "succeeded"),
        ("phase_end", "business", None, "succeeded"),
        ("phase_start", "destructor", None, None),
        ("step_start", "_destructor", "cleanup", None),
        ("step_end", "_destructor", "cleanup", "succeeded"),
        ("phase_end", "destructor", None, "succeeded"),
        ("run_end", None, None, "succeeded"),
    ]
    start = events[0]
    assert start["run_id"] == data["run_id"] and start["app"] == str(app)
    assert (start["inputs"], start["provider"]) == ({}, "none")
    assert Path(data["record"]) == Path(data["record"]).parent / f"{data['run_id']}.jsonl"
    assert all(isinstance(e["time"], float) for e in events)
    assert events[-1]["exit_code"] == 0 and events[-1]["error"] is None


def test_a_failed_step_is_recorded_with_its_error(app: Path) -> None:
    data = run(app, "broken")
    end = next(
        e
        for e in read_events(Path(data["record"]))
        if e.get("step") == "boom" and e["event"] == "step_end"
    )
    assert end["status"] == "failed"
    assert end["error"]["message"] == "step exited with 3"
    assert end["error"]["stderr_tail"] == "boom failed on purpose"
    assert end["error"]["returncode"] == 3


def test_every_run_gets_its_own_record(app: Path, app_run_home: Path) -> None:
    first, second = run(app), run(app, "broken")
    assert first["run_id"] != second["run_id"]
    assert sorted(p.name for p in (app_run_home / "runs").iterdir()) == sorted(
        f"{d['run_id']}.jsonl" for d in (first, second)
    )
    assert re.fullmatch(r"\d{8}T\d{6}-hello-[0-9a-f]{6}", first["run_id"])


def test_secret_looking_inputs_are_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + SECRET)  # default provider: anthropic
    declared = {
        "api_key": "string",
        "github_token": "string",
        "db_password": "string",
        "client_secret": "string",
        "auth_header": "string",
        "user": "string",
        "author": "string",  # not a secret, though it starts like auth_header
    }
    app = make_app(tmp_path / "app", {"deploy": {"input": declared, "steps": [code("go")]}})
    public = ("user", "author")
    args = [f"{k}={SECRET}" for k in declared if k not in public] + ["user=ann", "author=bo"]
    result = invoke("run", app, "deploy", "--json", *[a for kv in args for a in ("-i", kv)])
    data, events = assert_run(result, status="succeeded", ran=["deploy/go"])
    hidden = {k: "***" for k in declared if k not in public}
    assert events[0]["inputs"] == {**hidden, "user": "ann", "author": "bo"}
    assert events[0]["provider"] == "anthropic"
    assert SECRET not in Path(data["record"]).read_text()


def test_secrets_a_failing_step_prints_stay_out_of_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step that echoes its token (from the environment or an input) to stderr and fails:
    the error, stderr tail included, is recorded, printed and returned — the secret values
    are not."""
    monkeypatch.setenv("DEPLOY_TOKEN", "tok-" + SECRET)
    leak = (
        "import json, os, sys\n"
        "token = json.load(sys.stdin)['input']['api_key']\n"
        'sys.exit(f\'auth failed with {os.environ["DEPLOY_TOKEN"]} and "{token}"\')\n'
    )
    app = make_app(
        tmp_path / "app",
        {"deploy": {"input": {"api_key": "string"}, "steps": [code("go")]}},
        files={"pipelines/deploy/steps/step.py": leak},
    )
    result = invoke("run", app, "deploy", "--json", "-i", f"api_key=key-{SECRET}")
    error = "SubprocessError: step exited with 1"
    data, _ = assert_run(result, status="failed", ran=["deploy/go"], error=error)
    record = Path(data["record"]).read_text()
    assert 'auth failed with *** and \\"***\\"' in record  # escaped quotes survive
    assert SECRET not in record
    assert SECRET not in result.stdout  # the --json result an agent reads
    human = invoke("run", app, "deploy", "-i", f"api_key=key-{SECRET}")
    assert "auth failed with *** and" in human.stderr and SECRET not in human.stderr


# --- app-run log ----------------------------------------------------------------------------


def normalise(text: str) -> str:
    return re.sub(r"\d+\.\d\ds", "N.NNs", text)


def test_log_shows_the_newest_run(app: Path) -> None:
    run(app)
    data = run(app, "broken")
    result = invoke("log")
    assert result.exit_code == 0
    assert normalise(result.stdout) == (
        f"run {data['run_id']}: broken in {app} (provider none)\n"
        "  constructor: _constructor\n"
        "    prepare: succeeded in N.NNs\n"
        "  business: broken\n"
        "    first: succeeded in N.NNs\n"
        "    boom: failed in N.NNs\n"
        "      error: step exited with 3\n"
        "  destructor: _destructor\n"
        "    cleanup: succeeded in N.NNs\n"
        "  => failed (exit 1)\n"
    )


def test_log_by_id_prefix_and_as_json(app: Path) -> None:
    first = run(app)
    run(app, "broken")
    shown = invoke("log", first["run_id"][:-2])
    assert shown.exit_code == 0 and shown.stdout.startswith(f"run {first['run_id']}: hello")
    as_json = invoke("log", first["run_id"], "--json")
    assert json.loads(as_json.stdout) == read_events(Path(first["record"]))


def test_log_list(app: Path) -> None:
    runs = [run(app), run(app, "broken")]
    listed = invoke("log", "--list")
    assert listed.exit_code == 0
    assert sorted(listed.stdout.splitlines()) == sorted(
        [f"{runs[0]['run_id']}  succeeded", f"{runs[1]['run_id']}  failed"]
    )
    rows = json.loads(invoke("log", "--list", "--json").stdout)
    assert sorted(rows, key=lambda r: r["run"]) == sorted(
        [
            {"run": runs[0]["run_id"], "pipeline": "hello", "app": str(app), "status": "succeeded"},
            {"run": runs[1]["run_id"], "pipeline": "broken", "app": str(app), "status": "failed"},
        ],
        key=lambda r: r["run"],
    )


def test_log_errors_exit_2(app: Path, app_run_home: Path) -> None:
    none = invoke("log")
    assert (none.exit_code, none.stderr) == (
        2,
        f"Error: no run records in {app_run_home / 'runs'} — run a pipeline first\n",
    )
    run(app)
    unknown = invoke("log", "zzz")
    assert (unknown.exit_code, unknown.stderr) == (
        2,
        "Error: no run matching 'zzz' — see the ids with `app-run log --list`\n",
    )


def test_a_record_cut_short_still_reads(app: Path) -> None:
    data = run(app)
    record = Path(data["record"])
    lines = record.read_text().splitlines()
    record.write_text("\n".join(lines[:-1]) + '\n{"event": "run_e')  # killed mid-write
    events = read_events(record)
    assert events[-1]["event"] == "phase_end"
    shown = invoke("log", data["run_id"])
    assert shown.stdout.endswith("  => unfinished (app-run was killed or is still running)\n")
    listed = json.loads(invoke("log", "--list", "--json").stdout)
    assert listed[0]["status"] == "unfinished"
