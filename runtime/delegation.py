"""Host-delegated llm steps ("collaborative mode"): a paused run kept as a session.

With no provider configured, a run pauses at an llm step and is saved under
``<APP_RUN_HOME>/sessions/<id>.json`` (written atomically, mode 0600: it holds the inputs).
The host agent answers the printed prompt; ``resume`` holds that answer to the same checks as a
provider's (JSON Schema, then the validate script), asks again with the errors while retries
remain, and carries the run on. The constructor runs once, at the start; the destructor runs
once, at the real end — or on ``abandon``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .app import CONSTRUCTOR, Pipeline, Step, load_app
from .config import load_config
from .errors import AppRunError, Attempt, StepError, UsageError
from .jsonfile import write_json
from .llm_step import exhausted, judge, load_schema, pending_prompt
from .providers import make_provider
from .record import Recorder, runs_dir
from .result import Pause, Position, RunResult
from .runner import Run, prepare

Listener = Callable[[dict[str, Any]], None] | None
VERSION = 1


def sessions_dir(home: Path) -> Path:
    return home / "sessions"


def save(home: Path, result: RunResult, run: Run) -> None:
    """Keep a paused run so that `resume` can carry it on."""
    assert result.pause is not None and result.position is not None
    data = {
        "version": VERSION,
        "session": result.run_id,
        "status": "paused",
        "app": str(run.app.root),
        "pipeline": result.pipeline,
        "inputs": run.inputs,
        "work_dir": str(run.work_dir) if run.work_dir else None,
        "caller_cwd": run.caller_cwd,
        "position": result.position.to_dict(),
        "pause": result.pause.to_dict(),
        "updated": time.time(),
    }
    _write(sessions_dir(home) / f"{result.run_id}.json", data)


def _write(path: Path, data: dict[str, Any]) -> None:
    write_json(path, data, mode=0o600)  # a session holds the run's inputs


def load(home: Path, session: str) -> dict[str, Any]:
    path = sessions_dir(home) / f"{session}.json"
    if "/" in session or not path.is_file():
        raise UsageError(
            f"no session {session!r}", hint="see open sessions with `app-run sessions`"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        Position.from_dict(data["position"])
        for key, kind in (("app", str), ("pipeline", str), ("inputs", dict)):
            if not isinstance(data[key], kind):
                raise TypeError(f"{key} is not a {kind.__name__}")
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError) as exc:
        raise UsageError(
            f"session {session!r} is corrupt ({type(exc).__name__})",
            hint=f"remove {path} (its destructor cannot be run safely)",
        ) from None
    if data.get("status") != "paused":
        raise UsageError(
            f"session {session!r} already ended ({data.get('status')})",
            hint="start a new run with `app-run run`",
        )
    return data


@contextlib.contextmanager
def _locked(home: Path, session: str) -> Iterator[None]:
    path = sessions_dir(home) / f"{session}.lock"
    with path.open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"session {session!r} is being resumed by another app-run") from None
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                path.unlink()


def _run_of(home: Path, data: dict[str, Any], listener: Listener) -> Run:
    app = load_app(Path(data["app"]))
    pipeline, inputs = prepare(app, data["pipeline"], data["inputs"], home)
    config = load_config(app.root)
    emit = Recorder(runs_dir(home) / f"{data['session']}.jsonl", listener)
    emit.hide(inputs)
    work_dir = _work_dir(data)
    if work_dir is not None:
        work_dir.mkdir(mode=0o700, exist_ok=True)  # gone after a reboot: steps get an empty one
    return Run(
        app,
        pipeline,
        inputs,
        data["session"],
        config,
        make_provider(config),
        emit,
        delegate=True,
        work_dir=work_dir,
        caller_cwd=str(data.get("caller_cwd") or ""),
    )


def _work_dir(data: dict[str, Any]) -> Path | None:
    """The paused run's APP_WORK_DIR, if it is one app-run made for this session."""
    saved = data.get("work_dir")
    if not isinstance(saved, str):
        return None
    path = Path(saved)
    if not (path.is_absolute() and path.name.startswith(f"app-run-{data['session']}-")):
        return None  # a hand-edited session never points app-run at other files
    if path.parent == Path(tempfile.gettempdir()):
        return path
    try:  # made under another TMPDIR: still ours if this user owns it
        return path if path.is_dir() and path.stat().st_uid == os.getuid() else None
    except OSError:
        return None


def _pending_step(data: dict[str, Any], pipeline: Pipeline, position: Position) -> Step:
    """The llm step the session waits on, as long as the pipeline still has it there."""
    waited = (data.get("pause") or {}).get("step")
    steps = pipeline.steps
    step = steps[position.step] if 0 <= position.step < len(steps) else None
    if step is None or step.name != waited or step.type != "llm":
        raise UsageError(
            f"session {data['session']!r} waits on step {waited!r} of {pipeline.name!r}, "
            f"which the pipeline no longer has at that place (it changed since the pause)",
            hint=f"end it with `app-run abandon {data['session']}` and run the pipeline again",
        )
    return step


def resume(home: Path, session: str, answer: str, *, listener: Listener = None) -> RunResult:
    """Check the host's answer for the pending step and carry the run on."""
    data = load(home, session)
    with _locked(home, session):
        try:
            run = _run_of(home, data, listener)
        except AppRunError as exc:  # the APP was moved, deleted or broken since the pause
            exc.hint = f"fix it and resume, or end the session with `app-run abandon {session}`"
            raise
        position = Position.from_dict(data["position"])
        pipeline = run.pipeline if position.phase == "business" else run.app.pipeline(CONSTRUCTOR)
        step = _pending_step(data, pipeline, position)
        ctx = run.context(pipeline, position.outputs, run.shared_env())
        run.emit({"event": "step_answer", "pipeline": pipeline.name, "step": step.name})
        output, errors = judge(
            ctx, step, _answer_value(answer, step.schema), load_schema(ctx, step)
        )
        if errors:
            position.attempts.append(errors)
            run.emit(
                {
                    "event": "step_retry",
                    "step": step.name,
                    "attempt": len(position.attempts),
                    "errors": errors,
                }
            )
            if len(position.attempts) <= step.retry:
                return _ask_again(home, data, run, position, ctx, step)
            tried = [Attempt(n, e) for n, e in enumerate(position.attempts, 1)]
            result = run.advance(position, failure=exhausted(step, tried))
        else:
            position.outputs[step.name] = output
            run.emit(
                {
                    "event": "step_end",
                    "pipeline": pipeline.name,
                    "step": step.name,
                    "status": "succeeded",
                    "seconds": 0,
                    "retries": len(position.attempts),
                    "usage": {},
                    "error": None,
                    "answered_by": "host",
                }
            )
            result = run.advance(Position(position.phase, position.step + 1, position.outputs))
        return _settle(home, data, run, result)


def _answer_value(answer: str, schema: str | None) -> str:
    return answer if schema else answer.rstrip("\n")


def _ask_again(home, data, run: Run, position: Position, ctx, step) -> RunResult:
    prompt, schema = pending_prompt(ctx, step, position.attempts)
    result = RunResult(
        run.run_id,
        run.app.name,
        run.pipeline.name,
        "needs_llm",
        record=run.emit.path,
        position=position,
    )
    result.pause = Pause(
        session=run.run_id,
        pipeline=ctx.pipeline.name,
        step=step.name,
        prompt=prompt,
        schema=schema,
        tier=step.tier,
        attempt=len(position.attempts) + 1,
        max_attempts=step.retry + 1,
        errors=position.attempts[-1],
    )
    save(home, result, run)
    return result


def _settle(home: Path, data: dict[str, Any], run: Run, result: RunResult) -> RunResult:
    if result.pause is not None:
        save(home, result, run)
    else:
        _write(
            sessions_dir(home) / f"{data['session']}.json",
            {**data, "status": result.status, "updated": time.time()},
        )
    return result


def abandon(home: Path, session: str, *, listener: Listener = None) -> RunResult:
    """Give up on a paused run: the business pipeline fails and the destructor runs."""
    data = load(home, session)
    with _locked(home, session):
        try:
            run = _run_of(home, data, listener)
        except AppRunError as exc:  # the APP was moved, deleted or broken since the pause
            _end_without_destructor(home, data)
            error = AppRunError(
                f"session {session!r} ended, but its destructor (if it has one) could not "
                f"run: {exc.message}",
                hint="clean up after the run by hand if the APP needs it",
            )
            error.exit_code = exc.exit_code
            raise error from None
        position = Position.from_dict(data["position"])
        pause = data.get("pause") or {}
        reason = StepError(
            f"abandoned while waiting for an answer to {pause.get('step')!r}",
            step=str(pause.get("step", "")),
        )
        result = run.advance(position, failure=reason)
        _write(
            sessions_dir(home) / f"{session}.json",
            {**data, "status": "abandoned", "updated": time.time()},
        )
        return result


def _end_without_destructor(home: Path, data: dict[str, Any]) -> None:
    work_dir = _work_dir(data)
    if work_dir is not None:
        shutil.rmtree(work_dir, ignore_errors=True)
    _write(
        sessions_dir(home) / f"{data['session']}.json",
        {**data, "status": "abandoned", "destructor": "not run", "updated": time.time()},
    )


def list_sessions(home: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    now = time.time()
    for path in sorted(sessions_dir(home).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            rows.append({"session": path.stem, "status": "corrupt"})
            continue
        rows.append(
            {
                "session": path.stem,
                "status": data.get("status"),
                "app": data.get("app"),
                "pipeline": data.get("pipeline"),
                "step": (data.get("pause") or {}).get("step"),
                "age_hours": round((now - float(data.get("updated", now))) / 3600, 2),
            }
        )
    return rows


def clean(
    home: Path, *, older_than_hours: float, listener: Listener = None
) -> list[dict[str, Any]]:
    """Remove ended sessions, and abandon (destructor included) paused ones older than given."""
    removed = []
    for row in list_sessions(home):
        path = sessions_dir(home) / f"{row['session']}.json"
        if row["status"] == "paused":
            if row["age_hours"] < older_than_hours:
                continue
            try:
                result = abandon(home, row["session"], listener=listener)
                row = {**row, "destructor": result.destructor.status if result.destructor else None}
            except AppRunError as exc:
                row = {**row, "error": exc.message}
        path.unlink(missing_ok=True)
        removed.append(row)
    return removed
