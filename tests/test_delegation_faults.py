"""Host delegation when things go wrong: a crashing validate script, signals, unsaveable or
corrupt sessions, concurrent app-runs, broken pipelines — the destructor still runs once,
after the business pipeline, and a session is never lost or run twice."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import code, invoke, make_app, marker, wait_for

from skill2app.runtime.host import delegation
from skill2app.runtime.host import session as store
from skill2app.runtime.jsonfile import lock
from skill2app.runtime.records.record import read_events

APP_RUN = Path(sys.executable).parent / "app-run"
SCHEMA = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
VALIDATE = """\
import json, os, signal, sys, time
text = json.load(sys.stdin)["output"]["text"]
if text == "crash":
    sys.exit(3)
if text == "chatty":
    print("looks fine to me")
    sys.exit(0)
if text == "term":
    with open(os.path.join(os.environ["APP_TEST_MARKERS"], "validate.pid"), "w") as fh:
        fh.write(str(os.getpid()))
    os.kill(os.getppid(), signal.SIGTERM)
    time.sleep(30)
ok = text != "bad"
print(json.dumps({"valid": ok, "errors": [] if ok else ["text must not be bad"]}))
"""
JUDGE = {
    "name": "judge",
    "type": "llm",
    "model": "lite",
    "retry": 1,
    "prompt": "Judge {{greet.output}}",
    "schema": "schemas/judge.json",
    "validate": "steps/validate.py",
}


@pytest.fixture
def app(tmp_path: Path, runtime_env: Path) -> Path:
    return make_app(
        tmp_path / "app",
        {
            "_constructor": [code("setup")],
            "flow": [code("greet"), JUDGE, code("report")],
            "_destructor": [code("cleanup")],
        },
        files={
            "pipelines/flow/schemas/judge.json": json.dumps(SCHEMA),
            "pipelines/flow/steps/validate.py": VALIDATE,
        },
    )


def start(app: Path, *args: str) -> str:
    result = invoke("run", app, "flow", "--json", *args)
    assert result.exit_code == 6, result.stderr
    return str(json.loads(result.stdout)["session"])


def answer(session: str, text: str, *args: str) -> tuple[int, dict[str, Any], str]:
    result = invoke("resume", session, "--answer", "-", "--json", *args, input=text)
    return result.exit_code, json.loads(result.stdout or "{}"), result.stderr


def session_file(home: Path, session: str) -> Path:
    return home / "sessions" / f"{session}.json"


def ran(home: Path, session: str, pipeline: str) -> list[str]:
    """The steps of ``pipeline`` that started, in the session's run record."""
    events = read_events(home / "runs" / f"{session}.jsonl")
    return [e["step"] for e in events if e["event"] == "step_start" and e["pipeline"] == pipeline]


# --- the answer is checked exactly like a provider's ---------------------------------------


@pytest.mark.parametrize(
    ("text", "error"), [("crash", "SubprocessError"), ("chatty", "OutputError")]
)
def test_a_failing_validate_script_fails_the_step_as_with_a_provider(
    app: Path, app_run_home: Path, runtime_env: Path, tmp_path: Path, text: str, error: str
) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text(yaml.safe_dump({"answers": {"flow/judge": [{"text": text}]}}))
    provider = invoke("run", app, "flow", "--json", "--provider", "scripted", "--answers", answers)
    session = start(app)
    code_, done, _ = answer(session, json.dumps({"text": text}))
    expected = json.loads(provider.stdout)
    assert (code_, done["status"]) == (provider.exit_code, expected["status"]) == (1, "failed")
    assert done["error"]["type"] == expected["error"]["type"] == error
    assert done["error"]["step"] == "judge"
    assert ran(app_run_home, session, "_destructor") == ["cleanup"]
    assert marker(runtime_env, "_destructor", "cleanup")["env"]["APP_BUSINESS_STATUS"] == "failed"
    assert json.loads(session_file(app_run_home, session).read_text())["status"] == "failed"
    events = read_events(app_run_home / "runs" / f"{session}.jsonl")
    assert events[-1]["event"] == "run_end" and events[-1]["status"] == "failed"


def test_a_bom_in_the_answer_file_is_read_as_on_stdin(app: Path, tmp_path: Path) -> None:
    session = start(app)
    bom = tmp_path / "bom.json"
    bom.write_bytes(b'\xef\xbb\xbf{"text": "fine"}')
    result = invoke("resume", session, "--answer", bom, "--json")
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["status"] == "succeeded"


def test_an_answer_not_utf8_on_stdin_is_a_json_error_too(app: Path) -> None:
    session = start(app)
    result = subprocess.run(
        [APP_RUN, "resume", session, "--answer", "-", "--json"], input=b"\xff", capture_output=True
    )
    assert result.returncode == 2
    error = json.loads(result.stdout)
    assert error["status"] == "error" and "not UTF-8" in error["error"]["message"]


def test_an_empty_answer_uses_up_no_attempt(app: Path, app_run_home: Path) -> None:
    session = start(app)
    result = invoke("resume", session, "--answer", "-", input="  \n")
    assert result.exit_code == 2 and "the answer is empty" in result.stderr
    assert "--answer - < FILE" in result.stderr
    code_, again, _ = answer(session, '{"text": "bad"}')
    assert code_ == 6 and again["attempt"] == 2  # the empty one did not count


def test_sigterm_while_the_answer_is_checked_leaves_the_session_paused(
    app: Path, app_run_home: Path, runtime_env: Path
) -> None:
    session = start(app)
    result = subprocess.run(
        [APP_RUN, "resume", session, "--answer", "-"],
        input=b'{"text": "term"}',
        capture_output=True,
        timeout=20,
    )
    stderr = result.stderr.decode()
    assert result.returncode == 143, stderr
    assert "interrupted by SIGTERM" in stderr and "is still paused" in stderr
    pid = int((runtime_env / "validate.pid").read_text())
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), "the validate script to be killed", 5)
    assert list((app_run_home / "sessions").glob("*.lock")) == []
    assert marker(runtime_env, "_destructor", "cleanup") is None  # not before the real end
    code_, done, _ = answer(session, '{"text": "fine"}')
    assert code_ == 0 and done["status"] == "succeeded"
    assert ran(app_run_home, session, "_destructor") == ["cleanup"]


# --- the resume command ----------------------------------------------------------------------


def test_the_printed_resume_command_works_pasted_anywhere(
    app: Path, app_run_home: Path, tmp_path: Path
) -> None:
    """Not on PATH, another APP_RUN_HOME, a folder with a space: the command says it all."""
    home, bindir = tmp_path / "my home", tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(sys.executable)  # for the steps; app-run is not there
    env = {**os.environ, "APP_RUN_HOME": str(home), "PATH": f"{bindir}:/usr/bin:/bin"}
    paused = subprocess.run(
        [APP_RUN, "run", app, "flow", "--json"], env=env, capture_output=True, text=True
    )
    command = json.loads(paused.stdout)["resume"]
    assert command.startswith(f"APP_RUN_HOME={shlex.quote(str(home))} {APP_RUN} resume ")
    (tmp_path / "answer.json").write_text('{"text": "fine"}')
    env.pop("APP_RUN_HOME")
    done = subprocess.run(
        f"{command} < answer.json", shell=True, cwd=tmp_path, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["step"] == "report"


def test_the_resume_command_is_short_when_it_can_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "app-run").write_text("#!/bin/sh\n")
    (bindir / "app-run").chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(bindir / "app-run"), "run"])
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    monkeypatch.delenv("APP_RUN_HOME")  # the default one
    commands = store.host_commands("s-1", tmp_path / "state" / "app-run")
    assert commands == {"resume": "app-run resume s-1 --answer -", "abandon": "app-run abandon s-1"}


def test_the_pause_said_on_stderr_gives_the_printed_resume_command(
    app: Path, app_run_home: Path
) -> None:
    result = invoke("run", app, "flow")
    assert result.exit_code == 6
    resume = json.loads(result.stdout)["resume"]
    assert resume.endswith(" --answer -")
    assert f"answer with `{resume} < ANSWER.json`" in result.stderr


# --- saving, locking and cleaning sessions ---------------------------------------------------


def test_a_pause_that_cannot_be_saved_fails_the_run_with_its_destructor(
    app: Path, app_run_home: Path, runtime_env: Path
) -> None:
    (app_run_home / "sessions").write_text("")  # a file where the folder should be
    result = invoke("run", app, "flow", "--json")
    done = json.loads(result.stdout)
    assert result.exit_code == 1 and done["status"] == "failed", result.stderr
    assert "cannot keep the paused run as a session" in done["error"]["message"]
    assert done["destructor"]["status"] == "succeeded"
    work_dir = Path(marker(runtime_env, "_destructor", "cleanup")["env"]["APP_WORK_DIR"])
    assert not work_dir.exists()


def test_a_retry_that_cannot_be_saved_ends_the_session_with_its_destructor(
    app: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = start(app)

    def disk_full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "write_json", disk_full)
    code_, done, _ = answer(session, '{"text": "bad"}')
    assert code_ == 1 and "No space left on device" in done["error"]["message"]
    assert ran(app_run_home, session, "_destructor") == ["cleanup"]
    assert not session_file(app_run_home, session).exists()  # it could not be marked ended
    monkeypatch.undo()
    assert invoke("resume", session, "--answer", "-", input="{}").exit_code == 2


def test_a_session_is_read_again_once_locked(
    app: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another resume between this one's first look and its lock: never both carry on."""
    session = start(app)
    load, others = delegation.load, []

    def racing_load(home: Path, name: str) -> dict[str, Any]:
        if not others:
            others.append(invoke("resume", name, "--answer", "-", input='{"text": "fine"}'))
        return load(home, name)

    monkeypatch.setattr(delegation, "load", racing_load)
    this = invoke("resume", session, "--answer", "-", input='{"text": "fine"}')
    assert sorted([this.exit_code, others[0].exit_code]) == [0, 2]
    assert ran(app_run_home, session, "flow") == ["greet", "report"]
    assert ran(app_run_home, session, "_destructor") == ["cleanup"]


def test_clean_skips_a_session_in_use(app: Path, app_run_home: Path, runtime_env: Path) -> None:
    session = start(app)
    (app_run_home / "sessions" / "gone.lock").write_text("")  # left by a killed app-run
    with lock(app_run_home / "sessions" / f"{session}.lock") as held:
        assert held
        result = invoke("sessions", "--clean", "--older-than", "0", "--json")
        assert result.exit_code == 0, result.stderr
        assert [(r["session"], r["action"]) for r in json.loads(result.stdout)] == [
            (session, "skipped")
        ]
        text = invoke("sessions", "--clean", "--older-than", "0").stdout
        assert text.startswith(f"skipped  {session}  paused") and "in use" in text
        assert session_file(app_run_home, session).exists()
        assert marker(runtime_env, "_destructor", "cleanup") is None
    assert list((app_run_home / "sessions").glob("*.lock")) == []
    code_, done, _ = answer(session, '{"text": "fine"}')
    assert code_ == 0 and done["status"] == "succeeded"


CORRUPT = {
    "not utf-8": b"\xff\xfe{}",
    "a list": b"[1]",
    "updated is text": {"updated": "x"},
    "pause is text": {"pause": "x"},
    "no session key": {"session": None},
    "step below 0": {"position": {"phase": "business", "step": -1, "outputs": {}, "attempts": []}},
}


@pytest.mark.parametrize("content", CORRUPT.values(), ids=CORRUPT.keys())
def test_a_corrupt_session_is_listed_refused_and_cleaned(
    app: Path, app_run_home: Path, content: Any
) -> None:
    good = start(app)
    bad = session_file(app_run_home, "bad")
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        data = {**json.loads(session_file(app_run_home, good).read_text()), "session": "bad"}
        bad.write_text(json.dumps({k: v for k, v in {**data, **content}.items() if v is not None}))
    listed = invoke("sessions", "--all", "--json")
    assert listed.exit_code == 0, listed.stderr
    rows = {r["session"]: r for r in json.loads(listed.stdout)}
    assert rows["bad"]["status"] == "corrupt" and rows[good]["status"] == "paused"
    for command in (["resume", "bad", "--answer", "-"], ["abandon", "bad"]):
        result = invoke(*command, input="{}")
        assert result.exit_code == 2 and "session 'bad' is corrupt" in result.stderr
    cleaned = invoke("sessions", "--clean", "--older-than", "0", "--json")
    rows = {r["session"]: r for r in json.loads(cleaned.stdout)}
    assert cleaned.exit_code == 0 and rows[good]["destructor"] == "succeeded"
    assert {r["action"] for r in rows.values()} == {"removed"}
    assert not list((app_run_home / "sessions").iterdir())


def test_clean_tells_all_it_did_when_one_session_fails(
    app: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = sorted([start(app), start(app)])
    abandon = delegation._abandon

    def flaky(home: Path, data: dict[str, Any], listener: Any) -> Any:
        if data["session"] == first:
            raise RuntimeError("boom")
        return abandon(home, data, listener)

    monkeypatch.setattr(delegation, "_abandon", flaky)
    cleaned = invoke("sessions", "--clean", "--older-than", "0", "--json")
    rows = {r["session"]: r for r in json.loads(cleaned.stdout)}
    assert cleaned.exit_code == 3
    assert rows[first]["action"] == "kept" and "RuntimeError('boom')" in rows[first]["error"]
    assert rows[second]["action"] == "removed" and rows[second]["destructor"] == "succeeded"
    assert session_file(app_run_home, first).exists()


# --- abandon: what must run, runs ------------------------------------------------------------


def test_abandon_runs_the_destructor_of_a_broken_business_pipeline(
    app: Path, app_run_home: Path
) -> None:
    session = start(app)
    path = app / "pipelines" / "flow" / "pipeline.yaml"
    path.write_text(path.read_text().replace("model: lite", "model: bogus"))
    result = invoke("abandon", session)
    assert result.exit_code == 0, result.stderr
    assert ran(app_run_home, session, "_destructor") == ["cleanup"]


def test_a_session_whose_destructor_cannot_run_is_kept_to_abandon_later(
    app: Path, app_run_home: Path
) -> None:
    session = start(app)
    path = app / "pipelines" / "_destructor" / "pipeline.yaml"
    good = path.read_text()
    doc = yaml.safe_load(good)
    path.write_text(yaml.safe_dump({**doc, "steps": [*doc["steps"], {"name": "half"}]}))
    result = invoke("abandon", session)
    assert result.exit_code == 3
    assert "was not ended: _destructor: 1 error" in result.stderr
    # the command as it works pasted: with this APP_RUN_HOME (see the resume command's test)
    assert f"`APP_RUN_HOME={app_run_home} app-run abandon {session}` again" in result.stderr
    cleaned = invoke("sessions", "--clean", "--older-than", "0", "--json")
    assert cleaned.exit_code == 3 and json.loads(cleaned.stdout)[0]["action"] == "kept"
    assert json.loads(session_file(app_run_home, session).read_text())["status"] == "paused"
    path.write_text(good)
    assert invoke("abandon", session).exit_code == 0
    assert ran(app_run_home, session, "_destructor") == ["cleanup"]


@pytest.fixture
def ctor_app(tmp_path: Path, runtime_env: Path) -> Path:
    ask = {"name": "ask", "type": "llm", "model": "lite", "prompt": "Say ok"}
    return make_app(
        tmp_path / "ctor-app",
        {
            "_constructor": [code("setup"), ask],
            "flow": [code("report")],
            "_destructor": [code("cleanup")],
        },
    )


def test_abandon_in_the_constructor_is_a_constructor_failure(
    ctor_app: Path, runtime_env: Path
) -> None:
    """As on any constructor failure: no business pipeline, so no destructor (spec 6.2); the
    abandon itself succeeded (exit 0)."""
    session = start(ctor_app)
    result = invoke("abandon", session, "--json")
    assert result.exit_code == 0
    done = json.loads(result.stdout)
    assert done["status"] == "abandoned" and done["constructor"]["status"] == "failed"
    assert result.stderr == (
        f"abandoned {session} in _constructor: the business pipeline never ran, so no "
        "destructor was due\n"
    )
    assert marker(runtime_env, "_destructor", "cleanup") is None
    assert "the destructor does not run." in " ".join(invoke("abandon", "--help").stdout.split())


def test_a_constructor_gone_since_the_pause_points_to_abandon(
    ctor_app: Path, runtime_env: Path
) -> None:
    session = start(ctor_app)
    for path in sorted((ctor_app / "pipelines" / "_constructor").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (ctor_app / "pipelines" / "_constructor").rmdir()
    result = invoke("resume", session, "--answer", "-", input="ok")
    assert result.exit_code == 2 and f"app-run abandon {session}" in result.stderr
    assert "app-run list" not in result.stderr
    assert invoke("abandon", session).exit_code == 0
    assert marker(runtime_env, "_destructor", "cleanup") is None


def test_a_folder_among_the_sessions_is_not_one(app: Path, app_run_home: Path) -> None:
    session = start(app)
    (app_run_home / "sessions" / "odd.json").mkdir()
    listed = invoke("sessions", "--json")
    assert listed.exit_code == 0, listed.stderr
    assert [r["session"] for r in json.loads(listed.stdout)] == [session]
    cleaned = invoke("sessions", "--clean", "--older-than", "0", "--json")
    assert cleaned.exit_code == 0, cleaned.stderr
    assert (app_run_home / "sessions" / "odd.json").is_dir()


def test_a_closed_stdin_is_a_usage_error(app: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = start(app)
    from skill2app.runtime.cli import app_run

    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of `0<&-`
    assert app_run(["resume", session, "--answer", "-"]) == 2
