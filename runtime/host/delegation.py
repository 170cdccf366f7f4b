"""Host-delegated llm steps ("collaborative mode"): pause, resume, abandon, clean.

With no provider configured, a run pauses at an llm step and is kept as a session (``session``).
The host agent answers the printed prompt; ``resume`` holds that answer to the same checks as a
provider's (JSON Schema, then the validate script), asks again with the errors while retries
remain, and carries the run on. The constructor runs once, at the start; the destructor runs
once, at the real end — or on ``abandon``, unless the pause was in the constructor (then, as
after any constructor failure, the business pipeline never ran and the destructor does not).

A session is acted on under its lock and read once that is held, so two app-runs never carry
on or end the same session, and `sessions --clean` skips one in use.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from skill2app.runtime.app.config import load_config
from skill2app.runtime.app.model import CONSTRUCTOR, DESTRUCTOR, App, Pipeline, Step, load_app
from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.errors import (
    AppRunError,
    Attempt,
    AttemptsExhausted,
    Interrupted,
    LoadError,
    SignalReceived,
    StepError,
    UsageError,
)
from skill2app.runtime.host.session import (
    OPEN,
    VERSION,
    close,
    existing,
    held,
    host_commands,
    is_bound,
    load,
    locked,
    parse,
    refuse_unbound,
    row_of,
    session_files,
    session_path,
    sessions_dir,
    write,
)
from skill2app.runtime.jsonfile import lock
from skill2app.runtime.providers import make_provider
from skill2app.runtime.records.result import (
    Pause,
    PhaseResult,
    Position,
    RunResult,
    error_dict,
)
from skill2app.runtime.run.interrupts import interrupts
from skill2app.runtime.run.llm_step import exhausted, judge, load_schema, pending_prompt
from skill2app.runtime.run.phase import guarded
from skill2app.runtime.run.runner import (
    Run,
    checked,
    checked_alone,
    kept_work_dir,
    placeholder,
    prepare,
    recorder,
)
from skill2app.runtime.run.steps import StepContext

Listener = Callable[[dict[str, Any]], None] | None


def save(home: Path, result: RunResult, run: Run) -> RunResult:
    """Keep a paused run so that `resume` can carry it on; the result to report.

    A paused run that cannot be kept (APP_RUN_HOME unwritable, disk full) cannot go on: the
    step it waits on fails there and then, the destructor runs as after any failure, and
    that failed run's result is returned instead."""
    assert result.pause is not None and result.position is not None
    result.pause = replace(result.pause, commands=host_commands(result.run_id, home))
    position = result.position.to_dict()
    # the saved outputs: a step may have printed a secret (a resumed run gets `***` instead)
    position["outputs"] = run.emit.scrubber.value(position["outputs"])
    data = {
        "version": VERSION,
        "session": result.run_id,
        "status": "paused",
        "app": str(run.app.root),
        "pipeline": result.pipeline,
        "inputs": run.inputs,
        "work_dir": str(run.work_dir) if run.work_dir else None,
        "caller_cwd": run.caller_cwd,
        "position": position,
        "pause": result.pause.to_dict(),
        "updated": time.time(),
    }
    path = session_path(home, result.run_id)
    try:
        write(path, data)
    except OSError as exc:
        error = StepError(
            f"cannot keep the paused run as a session: {exc.strerror or exc} "
            f"({exc.filename or path})",
            step=result.pause.step,
            hint="make APP_RUN_HOME a writable folder with free space, and run it again",
        )
        failed = run.advance(result.position, failure=error)
        close(path, {**data, "status": failed.status})  # a resumed one must not run again
        return failed
    return result


# --- resume ---------------------------------------------------------------------------------


def resume(home: Path, session: str, answer: str, *, listener: Listener = None) -> RunResult:
    """Check the host's answer for the pending step and carry the run on.

    The answer is held to a provider's rules: rejected (schema, validate verdict) -> asked
    again while retries remain; a validate script that crashes fails the step (destructor
    included). Interrupted while checking it, the session stays paused."""
    existing(home, session)
    if not answer.strip():
        command = host_commands(session, home)["resume"]
        raise UsageError("the answer is empty", hint=f"write it to stdin: {command} < FILE")
    with interrupts() as signals, locked(home, session):
        try:
            data = load(home, session)
            refuse_unbound(home, data, _abandon_command(home, session))
            if data["status"] == "running":  # a resume was killed after taking its answer
                run = _run_for(home, data, listener)
                signals.hold = True
                return _carry_on(home, data, run)
            run, position, ctx, step = _pending(home, data, listener)
            run.emit({"event": "step_answer", "pipeline": ctx.pipeline.name, "step": step.name})
            output, errors, failure = _checked(ctx, step, answer)
            asked = None
            if failure is None and errors:
                asked, failure = _after_rejection(run, ctx, step, position, errors)
        except SignalReceived as stop:
            raise _still_paused(Interrupted(stop.signum), home, session) from None
        except Interrupted as stop:  # while the validate script ran
            raise _still_paused(stop, home, session) from None
        signals.hold = True  # from here the session is written: let that finish
        if asked is not None:
            return _ask_again(home, run, position, ctx, step, asked)
        if failure is None:
            position.outputs[step.name] = output
        _step_end(run, ctx, step, position, failure)
        if failure is not None:
            result = run.advance(position, failure=failure)
        else:
            after = Position(position.phase, position.step + 1, position.outputs)
            assert run.checkpoint is not None
            run.checkpoint(after, None)  # the answer is taken: never asked for again
            result = run.advance(after)
        return _settle(home, data, run, result)


def _run_for(home: Path, data: dict[str, Any], listener: Listener) -> Run:
    """The run of a session, to carry on (its APP must still pass `check`)."""
    try:
        app = load_app(Path(data["app"]))
        pipeline, inputs = prepare(app, data["pipeline"], data["inputs"], home)
        return _run_of(home, data, app, pipeline, inputs, listener)
    except AppRunError as exc:  # the APP was moved, deleted or broken since the pause
        command = _abandon_command(home, data["session"])
        exc.hint = f"fix it and resume, or end the session with `{command}`"
        raise


def _carry_on(home: Path, data: dict[str, Any], run: Run) -> RunResult:
    """Go on from the last step a killed resume finished (the destructor, if that is all that
    was left), never running a finished step or phase again."""
    position = Position.from_dict(data["position"])
    result = run.advance(position, business=_business_of(data, run))
    return _settle(home, data, run, result)


def _business_of(data: dict[str, Any], run: Run) -> PhaseResult | None:
    """How the business pipeline ended, as a checkpoint before the destructor saved it."""
    saved = data.get("business")
    if not isinstance(saved, dict):
        return None
    error = saved.get("error")
    failure = AppRunError(str(error)) if error else None
    status = str(saved.get("status") or "failed")
    return PhaseResult("business", run.pipeline.name, status, saved.get("output"), failure)


def _checkpointer(
    home: Path, data: dict[str, Any], scrubber: Scrubber
) -> Callable[[Position, PhaseResult | None], None]:
    """Saves, after each finished step and before the destructor, where the run stands: a
    resume killed on the way is carried on from there by the next one.  The outputs saved are
    scrubbed of secrets, as in ``save``."""
    path = session_path(home, data["session"])

    def save_position(position: Position, business: PhaseResult | None) -> None:
        kept = position.to_dict()
        kept["outputs"] = scrubber.value(kept["outputs"])
        saved = {
            **data,
            "status": "running",
            "position": kept,
            "updated": time.time(),
        }
        if business is not None:
            saved["business"] = {
                "status": business.status,
                "output": scrubber.value(business.output),
                "error": business.error.one_line() if business.error else None,
            }
        try:
            write(path, saved)
        except OSError:
            pass  # not kept: a resume killed now would run the tail again, nothing worse

    return save_position


def _pending(
    home: Path, data: dict[str, Any], listener: Listener
) -> tuple[Run, Position, StepContext, Step]:
    """The paused run, where it stands, and the llm step it waits on."""
    run = _run_for(home, data, listener)
    app = run.app
    position = Position.from_dict(data["position"])
    waited = run.pipeline if position.phase == "business" else None
    if waited is None and app.has(CONSTRUCTOR):
        waited = app.pipeline(CONSTRUCTOR)
    step = _pending_step(home, data, waited, position)
    assert waited is not None
    return run, position, run.context(waited, position.outputs, run.shared_env()), step


def _run_of(
    home: Path,
    data: dict[str, Any],
    app: App,
    pipeline: Pipeline,
    inputs: dict[str, Any],
    listener: Listener,
) -> Run:
    config = load_config(app.root)
    emit = recorder(home, data["session"], config, listener)
    emit.hide(inputs)
    work_dir = kept_work_dir(data["session"], data.get("work_dir"))
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
        checkpoint=_checkpointer(home, data, emit.scrubber),
    )


def _pending_step(
    home: Path, data: dict[str, Any], pipeline: Pipeline | None, position: Position
) -> Step:
    """The llm step the session waits on, as long as the pipeline still has it there."""
    waited = data["pause"]["step"]
    steps = pipeline.steps if pipeline is not None else ()
    step = steps[position.step] if position.step < len(steps) else None
    if pipeline is None or step is None or step.name != waited or step.type != "llm":
        name = pipeline.name if pipeline is not None else CONSTRUCTOR
        raise UsageError(
            f"session {data['session']!r} waits on step {waited!r} of {name!r}, which the APP "
            f"no longer has at that place (it changed since the pause)",
            hint=f"end it with `{_abandon_command(home, data['session'])}` and run the pipeline "
            "again",
        )
    return step


def _checked(
    ctx: StepContext, step: Step, answer: str
) -> tuple[Any, list[str], AppRunError | None]:
    """(output, errors, failure): errors reject the answer; a failure (the validate script
    crashed or printed no verdict, the schema file is gone) fails the step; an interrupt is
    raised (the session stays paused)."""
    value = answer if step.schema else answer.rstrip("\n")
    verdict, failure = guarded(ctx, step, lambda: judge(ctx, step, value, load_schema(ctx, step)))
    if isinstance(failure, Interrupted):
        raise failure
    if verdict is None:
        return None, [], failure
    return verdict[0], verdict[1], None


def _after_rejection(
    run: Run, ctx: StepContext, step: Step, position: Position, errors: list[str]
) -> tuple[tuple[str, dict | None] | None, AppRunError | None]:
    """The next prompt while retries remain, else the step's failure."""
    position.attempts.append(errors)
    attempt = len(position.attempts)
    run.emit({"event": "step_retry", "step": step.name, "attempt": attempt, "errors": errors})
    if attempt > step.retry:
        return None, exhausted(step, [Attempt(n, e) for n, e in enumerate(position.attempts, 1)])
    asked, failure = guarded(ctx, step, lambda: pending_prompt(ctx, step, position.attempts))
    if isinstance(failure, Interrupted):
        raise failure
    return asked, failure


def _still_paused(error: Interrupted, home: Path, session: str) -> Interrupted:
    error.step = ""
    error.where = None
    error.hint = (
        f"session {session!r} is still paused: resume it again, "
        f"or end it with `{_abandon_command(home, session)}`"
    )
    return error


def _abandon_command(home: Path, session: str) -> str:
    """The `abandon` command for ``session``, as it works pasted (``session.host_commands``)."""
    return host_commands(session, home)["abandon"]


def _step_end(
    run: Run, ctx: StepContext, step: Step, position: Position, error: AppRunError | None
) -> None:
    tried = len(position.attempts)  # the rejected answers, and the last if it ran out
    run.emit(
        {
            "event": "step_end",
            "pipeline": ctx.pipeline.name,
            "step": step.name,
            "status": "succeeded" if error is None else "failed",
            "seconds": 0,
            "retries": tried - 1 if isinstance(error, AttemptsExhausted) else tried,
            "usage": {},
            "error": error_dict(error),
            "answered_by": "host",
        }
    )


def _ask_again(
    home: Path,
    run: Run,
    position: Position,
    ctx: StepContext,
    step: Step,
    asked: tuple[str, dict | None],
) -> RunResult:
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
        prompt=asked[0],
        schema=asked[1],
        tier=step.tier,
        attempt=len(position.attempts) + 1,
        max_attempts=step.retry + 1,
        errors=position.attempts[-1],
    )
    return save(home, result, run)


def _settle(home: Path, data: dict[str, Any], run: Run, result: RunResult) -> RunResult:
    if result.pause is not None:
        return save(home, result, run)
    close(session_path(home, data["session"]), {**data, "status": result.status})
    return result


# --- abandon and clean ----------------------------------------------------------------------


def abandon(home: Path, session: str, *, listener: Listener = None) -> RunResult:
    """Give up on a paused run: the phase it paused in fails, then the destructor runs — unless
    that was the constructor (as after any constructor failure: no destructor)."""
    existing(home, session)
    with locked(home, session):
        return _abandon(home, load(home, session), listener)


def _abandon(home: Path, data: dict[str, Any], listener: Listener) -> RunResult:
    session = data["session"]
    position = Position.from_dict(data["position"])
    unbound = not is_bound(sessions_dir(home), data) and Path(data["app"]).exists()
    if unbound:  # names an APP it was not started with: nothing of that APP runs
        why = LoadError(f"it names an APP it was not started with ({data['app']})")
        raise _ended_unrun(home, data, position, why)
    with interrupts() as signals:
        try:
            run = _ending_run(home, data, position, listener)
        except SignalReceived as stop:
            raise _still_paused(Interrupted(stop.signum), home, session) from None
        step = data["pause"]["step"]
        if data["status"] == "running":
            reason = StepError("abandoned after a resume was cut off", step=step)
        else:
            reason = StepError(f"abandoned while waiting for an answer to {step!r}", step=step)
        signals.hold = True  # the destructor and the session's end are not cut short
        run.checkpoint = None  # abandoning ends it whatever happens: nothing to go on from
        result = run.advance(position, failure=reason, business=_business_of(data, run))
        close(session_path(home, session), {**data, "status": "abandoned"})
    return result


def _ending_run(home: Path, data: dict[str, Any], position: Position, listener: Listener) -> Run:
    """The paused run, to end it. Only what will run must pass `check`: the destructor, and
    only after a pause in the business pipeline (which may itself have broken since)."""
    try:
        app = load_app(Path(data["app"]))
    except LoadError as exc:  # moved or deleted: its destructor with it
        raise _ended_unrun(home, data, position, exc) from None
    try:
        if position.phase in ("business", "destructor"):
            checked_alone(app, DESTRUCTOR)
        try:
            pipeline = checked(app, data["pipeline"], home)
        except AppRunError:
            pipeline = placeholder(app, data["pipeline"])
        return _run_of(home, data, app, pipeline, data["inputs"], listener)
    except AppRunError as exc:  # fixable where it is: the session is kept for that
        exc.message = f"session {data['session']!r} was not ended: {exc.message}"
        exc.hint = f"fix that, then end it with `{_abandon_command(home, data['session'])}` again"
        raise


def _ended_unrun(
    home: Path, data: dict[str, Any], position: Position, cause: AppRunError
) -> AppRunError:
    work_dir = kept_work_dir(data["session"], data.get("work_dir"))
    if work_dir is not None:
        shutil.rmtree(work_dir, ignore_errors=True)
    path = session_path(home, data["session"])
    close(path, {**data, "status": "abandoned", "destructor": "not run"})
    why = (
        "its destructor (if it has one) could not run"
        if position.phase in ("business", "destructor")
        else "no destructor was due (its constructor had not finished)"
    )
    error = AppRunError(
        f"session {data['session']!r} ended, but {why}: {cause.message}",
        hint="clean up after the run by hand if the APP needs it",
    )
    error.exit_code = cause.exit_code
    return error


def clean(
    home: Path, *, older_than_hours: float, listener: Listener = None
) -> list[dict[str, Any]]:
    """Remove ended and corrupt sessions, and abandon then remove paused ones older than given.
    A session another app-run holds is skipped. One row per session acted on, "action" saying
    what was done (removed, kept, skipped); a session that fails does not stop the others."""
    rows = []
    for path in session_files(home):
        try:
            row = _clean_one(home, path, older_than_hours, listener)
        except Interrupted:
            raise
        except Exception as exc:  # noqa: BLE001 - what was done to the others is still told
            message = exc.message if isinstance(exc, AppRunError) else f"internal error: {exc!r}"
            row = {"session": path.stem, "status": "unknown", "action": "kept", "error": message}
        if row is not None:
            rows.append(row)
    for path in sorted(sessions_dir(home).glob("*.lock")):  # left by a killed app-run
        with lock(path):
            pass  # removed unless another app-run holds it
    return rows


def _clean_one(
    home: Path, path: Path, older_than_hours: float, listener: Listener
) -> dict[str, Any] | None:
    with held(home, path.stem) as mine:
        row = row_of(path, time.time())
        if row is None or (row["status"] in OPEN and row["age_hours"] < older_than_hours):
            return None
        if not mine:
            return {**row, "action": "skipped", "reason": "in use by another app-run"}
        if row["status"] in OPEN:
            try:
                result = _abandon(home, parse(path), listener)
                row["destructor"] = result.destructor.status if result.destructor else None
            except Interrupted:
                raise
            except AppRunError as exc:
                row["error"] = exc.message
                if (row_of(path, time.time()) or {}).get("status") in OPEN:
                    return {**row, "action": "kept"}  # not ended: `abandon` said why
        path.unlink(missing_ok=True)
        return {**row, "action": "removed"}
