"""run_program: stdin in, stdout and stderr out, the end seen at once, a timeout that holds —
with the Linux pidfd watch and with the portable communicate() it falls back to."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

import skill2app.runtime.run.process as process
from skill2app.runtime.errors import ConfigError, StepTimeout
from skill2app.runtime.run.process import run_program

PY = sys.executable


@pytest.fixture(params=["pidfd", "communicate"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "pidfd" and process._pidfd(os.getpid()) is None:
        pytest.skip("no pidfd_open on this system")
    if request.param == "communicate":
        monkeypatch.setattr(process, "_pidfd", lambda pid: None)
    return str(request.param)


def run(code: str, stdin: str = "", timeout: float = 10) -> process.Completed:
    return run_program(
        [PY, "-c", code], stdin=stdin, cwd=Path.cwd(), env=dict(os.environ), timeout=timeout
    )


def test_a_big_stdin_echoed_back_does_not_deadlock(mode: str) -> None:
    data = "0123456789abcdef" * (5 * 65536)  # 5 MiB: far more than a pipe holds
    echo = (
        "import sys\nfor chunk in iter(lambda: sys.stdin.read(4096), ''): sys.stdout.write(chunk)"
    )
    done = run(echo, data)
    assert (done.returncode, len(done.stdout), done.stdout == data) == (0, len(data), True)


def test_stdout_stderr_and_exit_code_are_kept_apart(mode: str) -> None:
    done = run("import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)")
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")


def test_a_program_that_ignores_its_stdin(mode: str) -> None:
    done = run("print('done')", "x" * 1_000_000)  # it exits before reading: a broken pipe
    assert (done.returncode, done.stdout) == (0, "done\n")


def test_non_utf8_output_is_replaced_not_fatal(mode: str) -> None:
    done = run("import sys; sys.stdout.buffer.write(b'ok \\xff')")
    assert done.stdout == "ok \ufffd"


def test_closing_stdout_early_still_waits_for_the_end(mode: str) -> None:
    code = "import os, time; print('x', flush=True); os.close(1); time.sleep(0.3)"
    started = time.monotonic()
    done = run(code)
    assert done.returncode == 0 and time.monotonic() - started >= 0.3


def test_a_timeout_kills_the_group_and_keeps_stderr(mode: str) -> None:
    code = "import sys, time; print('working', file=sys.stderr, flush=True); time.sleep(30)"
    started = time.monotonic()
    with pytest.raises(StepTimeout) as caught:
        run(code, timeout=0.5)
    assert time.monotonic() - started < 5
    assert "working" in caught.value.stderr_tail


def test_a_grandchild_left_behind_dies_with_the_program(mode: str, tmp_path: Path) -> None:
    """The program ends but something it started in its group runs on (holding the pipe):
    with pidfd the group is killed as the program ends, and the step is done at once; the
    portable fallback waits for the pipes, and its timeout kills the group."""
    pid_file = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "print('done')"
    )
    started = time.monotonic()
    if mode == "communicate":
        with pytest.raises(StepTimeout):
            run(code, timeout=0.5)
        return
    done = run(code, timeout=20)
    assert (done.returncode, done.stdout) == (0, "done\n")
    assert time.monotonic() - started < 5
    grandchild = int(pid_file.read_text())
    from helpers import alive, wait_for

    wait_for(lambda: not alive(grandchild), "the grandchild to be killed", 5)


def test_a_setsid_daemon_holding_stdout_does_not_hold_the_step(mode: str) -> None:
    """A daemon that left the group (setsid) keeps stdout open and writes later: the step ends
    with what the program printed, moments after it exited, not at the timeout."""
    if mode == "communicate":
        pytest.skip("the portable fallback waits for the pipes to close (documented)")
    code = (
        "import os, sys, time\n"
        "print('{\"output\": 1}', flush=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); time.sleep(3); print('late'); sys.exit()\n"
    )
    started = time.monotonic()
    done = run(code, timeout=30)
    assert time.monotonic() - started < process.AFTER_EXIT_SECONDS + 1.5
    assert (done.returncode, done.stdout) == (0, '{"output": 1}\n')


def test_no_file_descriptor_is_left_open(mode: str) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        run("print(1)", "{}")
    assert len(os.listdir("/proc/self/fd")) == before


def test_stdout_past_the_limit_stops_the_program(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if mode == "communicate":
        pytest.skip("the portable fallback has no output limit (documented)")
    from skill2app.runtime.errors import SubprocessError

    monkeypatch.setenv("APP_RUN_MAX_OUTPUT_MB", "1")
    code = "import sys\nwhile True: sys.stdout.write('x' * 65536)"
    started = time.monotonic()
    with pytest.raises(SubprocessError, match="printed more than 1 MB on stdout") as caught:
        run(code)
    assert time.monotonic() - started < 5
    assert "APP_RUN_MAX_OUTPUT_MB" in caught.value.hint


def test_only_the_tail_of_a_flood_of_stderr_is_kept(mode: str) -> None:
    if mode == "communicate":
        pytest.skip("the portable fallback keeps all of stderr")
    code = (
        "import sys\n"
        "for i in range(2000): sys.stderr.write(f'line {i} ' + 'y' * 1000 + '\\n')\n"
        "print('{\"output\": 1}')"
    )
    done = run(code)
    assert done.returncode == 0 and done.stdout.strip() == '{"output": 1}'
    assert len(done.stderr) <= 2 * process.STDERR_KEEP
    assert done.stderr.rstrip().splitlines()[-1].startswith("line 1999 ")


def test_the_output_limit_can_be_set_or_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_RUN_MAX_OUTPUT_MB", "0.5")
    assert process.max_output_bytes() == 500_000
    monkeypatch.setenv("APP_RUN_MAX_OUTPUT_MB", "0")
    assert process.max_output_bytes() == 0
    monkeypatch.delenv("APP_RUN_MAX_OUTPUT_MB")
    assert process.max_output_bytes() == process.DEFAULT_MAX_OUTPUT_MB * 1_000_000
    for bad in ("lots", "inf", "nan", "-1", "1e308"):
        monkeypatch.setenv("APP_RUN_MAX_OUTPUT_MB", bad)
        with pytest.raises(ConfigError, match="APP_RUN_MAX_OUTPUT_MB"):
            process.max_output_bytes()


def test_a_bad_output_limit_is_a_config_error_before_anything_runs(tmp_path: Path) -> None:
    from helpers import code, invoke, make_app

    app = make_app(tmp_path / "app", {"hello": [code("greet")]})
    for bad in ("lots", "-1", "inf", "nan"):
        os.environ["APP_RUN_MAX_OUTPUT_MB"] = bad
        try:
            result = invoke("run", app, "hello")
        finally:
            del os.environ["APP_RUN_MAX_OUTPUT_MB"]
        assert result.exit_code == 2
        assert result.stderr.startswith(f"Error: APP_RUN_MAX_OUTPUT_MB='{bad}' is not a number")
