"""Data passing between code steps (spec 4.1): the exact stdin a step gets, the environment it
can rely on, and what happens when a step breaks the ``{"output": ...}`` contract."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from helpers import APPS, assert_run, code, invoke, make_app, marker

pytestmark = pytest.mark.usefixtures("runtime_env")

DATA_APP = APPS / "data-passing"
INPUTS = {
    "text": "Ann {{first.output}}",
    "count": 2,
    "ratio": 0.5,
    "flag": True,
    "items": ["a", 2],
    "meta": {"k": [1, None]},
}
FIRST_OUTPUT = {
    "greeting": "Hello, Ann {{first.output}}",
    "double": 4,
    "first_item": "a",
    "unicode": "žluťoučký kůň",
}


def run_data_app(*extra: str):
    return invoke(
        "run",
        DATA_APP,
        "pass",
        "-i",
        "text=Ann {{first.output}}",
        "-i",
        "count=2",
        "-i",
        "ratio=0.5",
        "-i",
        "flag=true",
        "-i",
        'items=["a", 2]',
        "-i",
        'meta={"k": [1, null]}',
        *extra,
    )


def test_each_step_gets_input_and_every_earlier_output_on_stdin(runtime_env: Path) -> None:
    data, _ = assert_run(
        run_data_app("--json"), status="succeeded", ran=["pass/first", "pass/second"]
    )
    first = json.loads(marker(runtime_env, "pass", "first")["stdin"])
    second = json.loads(marker(runtime_env, "pass", "second")["stdin"])
    assert first == {"input": INPUTS, "steps": {}}
    assert second == {"input": INPUTS, "steps": {"first": {"output": FIRST_OUTPUT}}}
    assert list(second) == ["input", "steps"]
    # `output: first` picks the pipeline's output; the last step's is not it.
    assert data["output"] == FIRST_OUTPUT


def test_human_output_is_the_output_step_json_on_stdout() -> None:
    result = run_data_app("--quiet")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == json.dumps(FIRST_OUTPUT, ensure_ascii=False, indent=2) + "\n"
    assert result.stderr == ""


def test_steps_find_the_app_pipeline_and_tools_dirs_in_the_environment(runtime_env: Path) -> None:
    data = json.loads(run_data_app("--json").stdout)
    seen = marker(runtime_env, "pass", "second")
    pipeline_dir = DATA_APP / "pipelines" / "pass"
    assert seen["cwd"] == str(pipeline_dir)
    env = seen["env"]
    work_dir = Path(env.pop("APP_WORK_DIR"))
    assert work_dir.name.startswith(f"app-run-{data['run_id']}-")
    assert {k: env[k] for k in env if k not in ("APP_RUN_HOME", "APP_TEST_MARKERS")} == {
        "APP_ROOT": str(DATA_APP),
        "APP_PIPELINE_DIR": str(pipeline_dir),
        "APP_TOOLS_DIR": str(DATA_APP / "tools"),
        "APP_PIPELINE": "pass",
        "APP_STEP": "second",
        "APP_RUN_ID": data["run_id"],
        "APP_BUSINESS_PIPELINE": "pass",
        "APP_CALLER_CWD": os.getcwd(),
    }


def test_relative_app_dir_gives_steps_absolute_paths(
    runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(APPS)
    result = invoke("run", "data-passing", "pass", "--input-json", "-", input=json.dumps(INPUTS))
    assert result.exit_code == 0, result.stderr
    env = marker(runtime_env, "pass", "first")["env"]
    assert env["APP_ROOT"] == str(DATA_APP)
    assert env["APP_PIPELINE_DIR"] == str(DATA_APP / "pipelines" / "pass")


# --- a step that breaks the contract fails with its name, exit code/signal and stderr ----------


def broken(tmp_path: Path, action: str) -> Path:
    return make_app(tmp_path / "app", {"hello": [code("first"), code("broken", action), code("x")]})


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("fail", "SubprocessError: step exited with 3"),
        ("nojson", "OutputError: stdout is not JSON (Expecting value): 'all done!'"),
        ("nooutput", 'OutputError: stdout JSON has no "output" key'),
        ("hang-up", "SubprocessError: step killed by SIGHUP"),
    ],
)
def test_a_broken_step_fails_the_pipeline(tmp_path: Path, action: str, expected: str) -> None:
    app = broken(tmp_path, action)
    if action == "hang-up":
        kill_self = "import os, signal\nos.kill(os.getpid(), signal.SIGHUP)\n"
        (app / "pipelines/hello/steps/hang_up.py").write_text(kill_self)
        pipeline = app / "pipelines/hello/pipeline.yaml"
        pipeline.write_text(
            pipeline.read_text().replace("steps/step.py hang-up", "steps/hang_up.py")
        )
    data, _ = assert_run(
        invoke("run", app, "hello", "--json"),
        status="failed",
        ran=["hello/first", "hello/broken"],
        error=expected,
    )
    error = data["error"]
    assert error["step"] == "broken"
    assert error["where"] == f"{app / 'pipelines/hello/pipeline.yaml'}:7"
    if action == "fail":
        assert (error["returncode"], error["stderr_tail"]) == (3, "broken failed on purpose")
        assert error["command"] == "python3 steps/step.py fail"
    if action == "hang-up":
        assert error["returncode"] == -signal.SIGHUP


TALKY = "import sys\nprint('hi')\nprint('oops', file=sys.stderr)\n"


def test_non_json_stdout_shows_the_stderr_in_the_hint(tmp_path: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {"hello": [{"name": "talky", "type": "code", "command": "python3 steps/talky.py"}]},
        {"pipelines/hello/steps/talky.py": TALKY},
    )
    result = invoke("run", app, "hello", "--quiet")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: business failed — step 'talky': stdout is not JSON (Expecting value): 'hi' "
        f"({app / 'pipelines/hello/pipeline.yaml'}:4) — print exactly one JSON object "
        '{"output": ...}; send logs to stderr (stderr: oops)\n'
    )


def test_empty_stdout_is_an_error(tmp_path: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {"hello": [{"name": "mute", "type": "code", "command": "python3 -c pass"}]},
    )
    assert_run(
        invoke("run", app, "hello", "--json"),
        status="failed",
        ran=["hello/mute"],
        error="OutputError: printed nothing on stdout",
    )


def test_a_step_program_that_does_not_exist(tmp_path: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {"hello": [{"name": "ghost", "type": "code", "command": "no-such-program --flag"}]},
    )
    check = invoke("check", app)
    assert check.exit_code == 0  # only a warning: PATH may differ where it runs
    assert "warning: program 'no-such-program' is not on PATH" in check.stderr
    data, _ = assert_run(
        invoke("run", app, "hello", "--json"),
        status="failed",
        ran=["hello/ghost"],
        error="SubprocessError: program 'no-such-program' not found",
    )
    assert data["error"]["hint"] == "install it, put it on PATH, or fix the command"


def test_stderr_of_a_good_step_stays_out_of_its_output(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": [code("noisy", "noisy", "42")]})
    data, _ = assert_run(
        invoke("run", app, "hello", "--json"), status="succeeded", ran=["hello/noisy"]
    )
    assert data["output"] == "42"


def test_a_step_that_ignores_a_large_stdin_still_succeeds(tmp_path: Path) -> None:
    deaf = {"name": "deaf", "type": "code", "command": 'python3 -c "print(\'{\\"output\\": 1}\')"'}
    app = make_app(tmp_path / "app", {"hello": {"input": {"blob": "string"}, "steps": [deaf]}})
    blob = tmp_path / "blob.json"
    blob.write_text(json.dumps({"blob": "x" * 300_000}))  # several times a pipe's buffer
    result = invoke("run", app, "hello", "--input-json", blob, "--json")
    data, _ = assert_run(result, status="succeeded", ran=["hello/deaf"])
    assert data["output"] == 1


def test_needs_limits_the_earlier_outputs_a_step_gets(tmp_path: Path, runtime_env: Path) -> None:
    """`needs` (app-run extension): only the listed outputs; `needs: []` none; no key, all."""
    app = make_app(
        tmp_path / "app",
        {
            "chain": [
                code("a", value="A"),
                code("b", value="B"),
                code("c", value="C", needs=["b"]),
                code("d", value="D", needs=[]),
                code("e", value="E"),
            ]
        },
    )
    result = invoke("run", app, "chain", "--json")
    assert result.exit_code == 0, result.stderr

    def got(step: str) -> list[str]:
        return list(json.loads(marker(runtime_env, "chain", step)["stdin"])["steps"])

    assert [got(s) for s in "cde"] == [["b"], [], ["a", "b", "c", "d"]]
