"""Running the steps of one phase (constructor, business pipeline or destructor) in order.

A step's error is returned, never raised, so the lifecycle (``runner``) always decides what runs
next; every step start and end, and the phase's end, goes to the run record through
``ctx.emit``.  With ``can_pause``, an llm step with no provider pauses the phase (host
delegation) instead of failing it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from skill2app.runtime.app.model import Step
from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.errors import AppRunError, Interrupted, SignalReceived, StepError
from skill2app.runtime.records.result import PhaseResult, error_dict
from skill2app.runtime.run.steps import StepContext, StepOutcome, run_code_step

T = TypeVar("T")


def run_phase(
    phase: str, ctx: StepContext, *, start: int = 0, can_pause: bool = False
) -> PhaseResult:
    pipeline = ctx.pipeline
    result = PhaseResult(phase, pipeline.name, "succeeded", steps=list(ctx.outputs))
    if start == 0:
        ctx.emit({"event": "phase_start", "phase": phase, "pipeline": pipeline.name})
    for index in range(start, len(pipeline.steps)):
        step = pipeline.steps[index]
        if can_pause and phase != "destructor" and step.type == "llm" and ctx.provider is None:
            error = _pause_at(ctx, step, index, result)
            if error is None:
                return result
        else:
            error = run_step(ctx, step)
        if error is not None:
            result.status = "interrupted" if isinstance(error, Interrupted) else "failed"
            result.error = error
            break
        result.steps.append(step.name)
        if ctx.checkpoint is not None:
            ctx.checkpoint(index + 1, ctx.outputs)
    else:
        result.output = ctx.outputs.get(pipeline.output)
    emit_phase_end(ctx, result)
    return result


def _pause_at(ctx: StepContext, step: Step, index: int, result: PhaseResult) -> AppRunError | None:
    try:
        from skill2app.runtime.run.llm_step import (
            pending_prompt,  # only runs with llm steps need it
        )

        prompt, schema = pending_prompt(ctx, step, [])
    except AppRunError as exc:
        exc.where = exc.where or ctx.pipeline.where(step)
        return exc
    result.status = "paused"
    result.pending = {"index": index, "prompt": prompt, "schema": schema, "outputs": ctx.outputs}
    ctx.emit({"event": "step_pause", "pipeline": ctx.pipeline.name, "step": step.name})
    return None


def emit_phase_end(ctx: StepContext, result: PhaseResult) -> None:
    ctx.emit(phase_end_event(result))


def phase_end_event(result: PhaseResult) -> dict[str, Any]:
    return {
        "event": "phase_end",
        "phase": result.phase,
        "pipeline": result.pipeline,
        "status": result.status,
        "error": error_dict(result.error),
    }


def run_step(ctx: StepContext, step: Step) -> AppRunError | None:
    """Run one step, storing its output; return the error instead of raising it."""
    ctx.emit(
        {"event": "step_start", "pipeline": ctx.pipeline.name, "step": step.name, "type": step.type}
    )
    started = time.monotonic()
    outcome, error = guarded(ctx, step, lambda: _execute(ctx, step))
    if outcome is not None:
        ctx.outputs[step.name] = outcome.output
    step_end(ctx, step, started, outcome, error)
    return error


def _execute(ctx: StepContext, step: Step) -> StepOutcome:
    if step.type == "llm":
        from skill2app.runtime.run.llm_step import run_llm_step  # a code-only run never imports it

        return run_llm_step(ctx, step)
    return run_code_step(ctx, step)


def guarded(
    ctx: StepContext, step: Step, call: Callable[[], T]
) -> tuple[T | None, AppRunError | None]:
    """``call()``'s value, or what it raised as an error of ``step``: an interrupt of app-run
    becomes Interrupted, and a bug a StepError, so whoever runs the step (the runner, or
    `resume` checking a host's answer) decides what runs next — the destructor included."""
    error: AppRunError
    try:
        return call(), None
    except AppRunError as exc:
        error = exc
    except SignalReceived as stop:
        error = Interrupted(stop.signum)
    except Exception as exc:  # a bug must not skip the destructor
        error = StepError(
            f"internal error: {exc!r}", step=step.name, hint="rerun with --debug and report it"
        )
        error.__cause__ = exc
    error.where = error.where or ctx.pipeline.where(step)
    error.step = error.step or step.name
    hide_secrets(error, ctx.scrubber)
    return None, error


def hide_secrets(error: AppRunError, scrubber: Scrubber) -> None:
    """A step's error is printed, returned as JSON (to an agent's context), kept in a session
    and recorded: secret values it quotes (a token in a stderr line, a validate script's
    errors) are blanked once, here."""
    error.message = scrubber.text(error.message)
    error.hint = scrubber.text(error.hint)
    if getattr(error, "stderr_tail", ""):
        error.stderr_tail = scrubber.text(error.stderr_tail)  # type: ignore[attr-defined]
    for attempt in getattr(error, "attempts", None) or []:
        attempt.errors = [scrubber.text(e) for e in attempt.errors]
        attempt.raw = scrubber.text(attempt.raw)


def step_end(
    ctx: StepContext,
    step: Step,
    started: float,
    outcome: StepOutcome | None,
    error: AppRunError | None,
) -> None:
    ctx.emit(
        {
            "event": "step_end",
            "pipeline": ctx.pipeline.name,
            "step": step.name,
            "status": "succeeded" if error is None else "failed",
            "seconds": round(time.monotonic() - started, 3),
            "retries": outcome.retries if outcome else _retries_of(error),
            "usage": outcome.usage if outcome else {},
            "error": error_dict(error),
        }
    )


def _retries_of(error: AppRunError | None) -> int:
    """A step that ran out of attempts retried once less than it tried."""
    attempts = getattr(error, "attempts", None) or []
    return max(len(attempts) - 1, 0)
