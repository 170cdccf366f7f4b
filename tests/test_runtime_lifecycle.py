"""The lifecycle of spec 6.2: constructor → business → destructor (like ``finally``).

The 2×2×2 matrix (constructor/business/destructor each ok or failing), a step past its timeout,
and `app-run` itself getting SIGTERM or SIGINT mid-step: the step's whole process group dies and
the destructor still runs.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    Outcome,
    alive,
    assert_run,
    code,
    group_members,
    invoke,
    make_app,
    marker,
    wait_for,
)

from skill2app.runtime.records.record import read_events
from skill2app.runtime.run import process

pytestmark = pytest.mark.usefixtures("runtime_env")

APP_RUN = Path(sys.executable).parent / "app-run"
FAILED_ON_PURPOSE = "SubprocessError: step exited with 3"


def lifecycle_app(root: Path, constructor: str, business: str, destructor: str) -> Path:
    return make_app(
        root,
        {
            "_constructor": [code("prepare", constructor)],
            "hello": [code("first", business), code("second", "ok", "done")],
            "_destructor": [code("cleanup", destructor), code("after")],
        },
    )


@pytest.mark.parametrize("destructor", ["ok", "fail"])
@pytest.mark.parametrize("business", ["ok", "fail"])
@pytest.mark.parametrize("constructor", ["ok", "fail"])
def test_lifecycle_matrix(
    tmp_path: Path, runtime_env: Path, constructor: str, business: str, destructor: str
) -> None:
    app = lifecycle_app(tmp_path / "app", constructor, business, destructor)
    result = invoke("run", app, "hello", "--json")

    if constructor == "fail":
        # The business pipeline never starts, and nothing was constructed to destroy.
        data, _ = assert_run(
            result,
            status="constructor_failed",
            ran=["_constructor/prepare"],
            error=FAILED_ON_PURPOSE,
        )
        assert data["constructor"]["status"] == "failed"
        assert data["error"]["step"] == "prepare"
        assert (data["output"], data["destructor"]) == (None, None)
        assert marker(runtime_env, "hello", "first") is None
        return

    ran = ["_constructor/prepare", "hello/first"]
    ran += ["hello/second"] if business == "ok" else []
    ran += ["_destructor/cleanup"] + (["_destructor/after"] if destructor == "ok" else [])
    if business == "fail":
        status = "failed"  # a failing destructor never masks the business error
    else:
        status = "destructor_failed" if destructor == "fail" else "succeeded"
    error = FAILED_ON_PURPOSE if "fail" in (business, destructor) else None
    data, events = assert_run(result, status=status, ran=ran, error=error)

    assert data["constructor"] == {
        "pipeline": "_constructor",
        "status": "succeeded",
        "error": None,
        "steps": ["prepare"],
    }
    assert data["destructor"]["status"] == ("succeeded" if destructor == "ok" else "failed")
    if destructor == "fail":
        assert data["destructor"]["error"]["step"] == "cleanup"
    if business == "fail":
        assert (data["output"], data["error"]["step"]) == (None, "first")
    else:
        assert data["output"] == {"step": "second", "value": "done"}
        assert data["error"] is None
    env = marker(runtime_env, "_destructor", "cleanup")["env"]
    assert env["APP_BUSINESS_PIPELINE"] == "hello"
    assert env["APP_BUSINESS_STATUS"] == ("succeeded" if business == "ok" else "failed")
    assert ("exited with 3" in env["APP_BUSINESS_ERROR"]) == (business == "fail")
    phases = [(e["phase"], e["status"]) for e in events if e["event"] == "phase_end"]
    assert phases == [
        ("constructor", "succeeded"),
        ("business", "succeeded" if business == "ok" else "failed"),
        ("destructor", "succeeded" if destructor == "ok" else "failed"),
    ]


def test_failures_without_json_name_phase_step_file_line_and_stderr(tmp_path: Path) -> None:
    app = lifecycle_app(tmp_path / "app", "ok", "fail", "fail")
    result = invoke("run", app, "hello", "--quiet")
    assert result.exit_code == 1
    assert result.stdout == ""
    file = app / "pipelines"
    assert result.stderr == (
        f"Error: business failed — step 'first': step exited with 3 "
        f"({file / 'hello/pipeline.yaml'}:4)\n"
        "  stderr:\n"
        "  | first failed on purpose\n"
        f"Error: destructor failed — step 'cleanup': step exited with 3 "
        f"({file / '_destructor/pipeline.yaml'}:4)\n"
        "  stderr:\n"
        "  | cleanup failed on purpose\n"
    )


def test_destructor_failure_still_prints_the_business_output(tmp_path: Path) -> None:
    app = lifecycle_app(tmp_path / "app", "ok", "ok", "fail")
    result = invoke("run", app, "hello", "--quiet")
    assert result.exit_code == 5
    assert json.loads(result.stdout) == {"step": "second", "value": "done"}
    assert result.stderr.startswith("Error: destructor failed — step 'cleanup': step exited with 3")


def test_no_lifecycle_pipelines_runs_the_business_pipeline_alone(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": [code("first"), code("second", "ok", "x")]})
    data, _ = assert_run(
        invoke("run", app, "hello", "--json"),
        status="succeeded",
        ran=["hello/first", "hello/second"],
    )
    assert (data["constructor"], data["destructor"]) == (None, None)
    assert data["output"] == {"step": "second", "value": "x"}


def test_progress_goes_to_stderr_and_output_alone_to_stdout(tmp_path: Path) -> None:
    app = lifecycle_app(tmp_path / "app", "ok", "ok", "ok")
    result = invoke("run", app, "hello")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"step": "second", "value": "done"}
    progress = [line.split(" (")[0] for line in result.stderr.splitlines()]
    assert progress == [
        "· constructor",
        "  _constructor/prepare: ok",
        "  hello/first: ok",
        "  hello/second: ok",
        "· destructor",
        "  _destructor/cleanup: ok",
        "  _destructor/after: ok",
    ]


# --- a step past its timeout --------------------------------------------------------------


def test_step_timeout_kills_the_whole_process_group(tmp_path: Path, runtime_env: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {
            "hello": [code("slow", "hang", timeout=1), code("never")],
            "_destructor": [code("cleanup")],
        },
    )
    result = invoke("run", app, "hello", "--json")
    data, _ = assert_run(
        result,
        status="failed",
        ran=["hello/slow", "_destructor/cleanup"],
        error="StepTimeout: timed out after 1s",
    )
    assert data["error"]["step"] == "slow"
    assert data["error"]["hint"] == "raise the step's timeout: or make the program faster"
    slow = marker(runtime_env, "hello", "slow")
    assert slow["pgid"] == slow["pid"]  # the step leads its own process group
    wait_for(lambda: not alive(slow["grandchild"]), "the step's grandchild to die", limit=10)
    assert group_members(slow["pgid"]) == []
    env = marker(runtime_env, "_destructor", "cleanup")["env"]
    assert env["APP_BUSINESS_STATUS"] == "failed"
    assert "timed out after 1s" in env["APP_BUSINESS_ERROR"]


def test_a_step_ignoring_sigterm_is_killed_after_the_grace(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "GRACE_SECONDS", 0.2)
    stubborn = (
        "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ignoring SIGTERM', file=sys.stderr, flush=True); time.sleep(60)"
    )
    app = make_app(
        tmp_path / "app",
        {
            "hello": [
                {
                    "name": "stubborn",
                    "type": "code",
                    "command": "python3 steps/stubborn.py",
                    "timeout": 1,
                }
            ]
        },
        {"pipelines/hello/steps/stubborn.py": stubborn.replace("; ", "\n") + "\n"},
    )
    data, _ = assert_run(
        invoke("run", app, "hello", "--json"),
        status="failed",
        ran=["hello/stubborn"],
        error="StepTimeout: timed out after 1s",
    )
    assert data["error"]["returncode"] == -signal.SIGKILL
    assert data["error"]["stderr_tail"] == "ignoring SIGTERM"


# --- app-run itself interrupted -------------------------------------------------------------


@pytest.mark.parametrize(
    ("signum", "exit_code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["TERM", "INT"]
)
def test_signal_mid_step_kills_the_step_and_runs_the_destructor(
    tmp_path: Path, runtime_env: Path, signum: int, exit_code: int
) -> None:
    app = make_app(
        tmp_path / "app",
        {
            "_constructor": [code("prepare")],
            "hello": [code("slow", "hang"), code("never")],
            "_destructor": [code("cleanup")],
        },
    )
    proc = subprocess.Popen(
        [APP_RUN, "run", app, "hello", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: marker(runtime_env, "hello", "slow") is not None, "the step to start")
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    name = signal.Signals(signum).name
    data, _ = assert_run(
        Outcome(proc.returncode, stdout, stderr),
        status="interrupted",
        ran=["_constructor/prepare", "hello/slow", "_destructor/cleanup"],
        error=f"Interrupted: interrupted by {name}",
        exit_code=exit_code,
    )
    assert data["destructor"]["status"] == "succeeded"
    assert marker(runtime_env, "_destructor", "cleanup")["env"]["APP_BUSINESS_STATUS"] == (
        "interrupted"
    )
    slow = marker(runtime_env, "hello", "slow")
    wait_for(lambda: not group_members(slow["pgid"]), "the step's process group to be gone", 10)
    assert not alive(slow["grandchild"])


def test_a_signal_held_during_the_destructor_is_still_reported(
    tmp_path: Path, runtime_env: Path
) -> None:
    app = make_app(
        tmp_path / "app", {"hello": [code("work")], "_destructor": [code("cleanup", "nap", "1")]}
    )
    proc = subprocess.Popen(
        [APP_RUN, "run", app, "hello", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: marker(runtime_env, "_destructor", "cleanup") is not None, "cleanup")
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    events = read_events(Path(json.loads(stdout)["record"]))
    cleanup = [e for e in events if e["event"] == "step_end" and e["step"] == "cleanup"]
    assert cleanup[0]["status"] == "succeeded"  # the destructor is never cut short
    assert proc.returncode == 143
    assert stderr.splitlines()[-1] == (
        "Stopped by SIGTERM while the destructor ran: it was let finish (exit 143)"
    )
