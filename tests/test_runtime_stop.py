"""A run on a worker thread (an `app-run mcp` tool call) stopped by its ``Stop``: no signal
reaches such a thread, so the Stop stands in for SIGTERM — the running step's process group is
killed, nothing more starts, the destructor still runs to its end, and the record says so."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import alive, code, group_members, make_app, marker, wait_for

from skill2app.runtime.app.config import load_config
from skill2app.runtime.app.model import load_app
from skill2app.runtime.records.record import read_events
from skill2app.runtime.records.result import RunResult
from skill2app.runtime.run.interrupts import Stop, active_stop, interrupts, stoppable
from skill2app.runtime.run.runner import start

pytestmark = pytest.mark.usefixtures("runtime_env")


def run_on_thread(app: Path, stop: Stop, home: Path) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}

    def work() -> None:
        with stoppable(stop):
            loaded = load_app(app)
            box["result"] = start(
                loaded, "slow", {}, config=load_config(loaded.root), provider=None, home=home
            )

    thread = threading.Thread(target=work)
    thread.start()
    return thread, box


def lifecycle_app(root: Path, destructor: list[dict]) -> Path:
    return make_app(
        root,
        {
            "slow": [code("first"), code("wait", "hang"), code("never")],
            "_destructor": destructor,
        },
    )


def test_a_stop_kills_the_running_step_and_the_destructor_still_runs(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app = lifecycle_app(tmp_path / "app", [code("cleanup", "nap", "0.3")])
    stop = Stop()
    thread, box = run_on_thread(app, stop, app_run_home)
    wait_for(lambda: marker(runtime_env, "slow", "wait") is not None, "the hanging step")
    seen = marker(runtime_env, "slow", "wait")
    assert seen is not None
    stop.fire()
    thread.join(30)
    assert not thread.is_alive()
    result: RunResult = box["result"]
    assert result.status == "interrupted" and result.exit_code == 143
    assert "interrupted by SIGTERM" in result.business.error.one_line()  # type: ignore[union-attr]
    assert group_members(seen["pgid"]) == [] and not alive(seen["grandchild"])
    assert marker(runtime_env, "slow", "never") is None
    cleanup = marker(runtime_env, "_destructor", "cleanup")
    assert cleanup is not None and cleanup["env"]["APP_BUSINESS_STATUS"] == "interrupted"
    assert result.destructor is not None and result.destructor.status == "succeeded"
    events = read_events(result.record)  # type: ignore[arg-type]
    assert events[-1]["event"] == "run_end" and events[-1]["status"] == "interrupted"
    stop.close()


def test_a_stop_while_the_destructor_runs_lets_it_finish(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app = make_app(tmp_path / "app", {"slow": [code("first")], "_destructor": [code("d", "nap")]})
    stop = Stop()
    thread, box = run_on_thread(app, stop, app_run_home)
    wait_for(lambda: marker(runtime_env, "_destructor", "d") is not None, "the destructor")
    stop.fire()
    thread.join(30)
    result: RunResult = box["result"]
    assert result.destructor is not None and result.destructor.status == "succeeded"
    assert result.status == "succeeded" and result.signal == 15  # told to stop, said so
    assert result.exit_code == 143


def test_a_stop_fired_before_the_run_starts_runs_nothing(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app = lifecycle_app(tmp_path / "app", [code("cleanup")])
    stop = Stop()
    stop.fire()
    thread, box = run_on_thread(app, stop, app_run_home)
    thread.join(30)
    result: RunResult = box["result"]
    assert result.status == "interrupted"
    assert marker(runtime_env, "slow", "first") is None
    assert marker(runtime_env, "_destructor", "cleanup") is not None


def test_nested_blocks_hold_the_stop_as_signals_are_held() -> None:
    stop = Stop()
    box: dict[str, Any] = {}

    def work() -> None:
        with stoppable(stop), interrupts() as outer:
            outer.hold = True
            box["outer"] = active_stop()
            with interrupts():
                box["inner"] = active_stop()
            box["after"] = active_stop()
        box["outside"] = active_stop()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(5)
    assert box == {"outer": None, "inner": stop, "after": None, "outside": None}
    stop.close()
