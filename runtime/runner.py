"""Running a business pipeline inside its lifecycle (spec 6.2).

1. ``_constructor`` (if present). Failure aborts: the business pipeline never starts, and the
   destructor does not run either (nothing was constructed — the spec's "abort").
2. The business pipeline.
3. ``_destructor`` (if present) — always, like ``finally``: after success, failure, a step
   timeout, and after app-run itself got SIGINT/SIGTERM (further signals are held off while it
   runs). Its failure never masks the business error; both are reported.

Both lifecycle pipelines receive the business pipeline's input as ``input`` and their own steps'
outputs as ``steps``; see ``steps`` for the environment variables that tell them more.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .app import CONSTRUCTOR, DESTRUCTOR, App, Pipeline, Step
from .check import check_app, errors_in
from .config import Config
from .errors import AppRunError, CheckFailed, Interrupted, StepError
from .inputs import check_inputs
from .llm_step import run_llm_step
from .providers.base import Provider
from .record import Recorder, new_run_id, redact, runs_dir
from .steps import StepContext, StepOutcome, run_code_step

EXIT_OK, EXIT_FAILED, EXIT_CONSTRUCTOR, EXIT_DESTRUCTOR = 0, 1, 4, 5


@dataclass
class PhaseResult:
    phase: str  # constructor | business | destructor
    pipeline: str
    status: str  # succeeded | failed | interrupted
    output: Any = None
    error: AppRunError | None = None
    steps: list[str] = field(default_factory=list)  # the steps that finished

    def to_dict(self) -> dict[str, Any]:
        return {
            "pipeline": self.pipeline,
            "status": self.status,
            "error": error_dict(self.error),
            "steps": self.steps,
        }


@dataclass
class RunResult:
    run_id: str
    app: str
    pipeline: str
    status: str  # succeeded | failed | constructor_failed | destructor_failed | interrupted
    output: Any = None
    constructor: PhaseResult | None = None
    business: PhaseResult | None = None
    destructor: PhaseResult | None = None
    record: Path | None = None

    @property
    def error(self) -> AppRunError | None:
        for phase in (self.constructor, self.business, self.destructor):
            if phase is not None and phase.error is not None:
                return phase.error
        return None

    @property
    def exit_code(self) -> int:
        interrupted = next(
            (
                p.error
                for p in (self.constructor, self.business)
                if p and isinstance(p.error, Interrupted)
            ),
            None,
        )
        if interrupted is not None:
            return interrupted.exit_code
        return {
            "succeeded": EXIT_OK,
            "constructor_failed": EXIT_CONSTRUCTOR,
            "destructor_failed": EXIT_DESTRUCTOR,
        }.get(self.status, EXIT_FAILED)

    def to_dict(self) -> dict[str, Any]:
        phases = {"constructor": self.constructor, "destructor": self.destructor}
        return {
            "status": self.status,
            "run_id": self.run_id,
            "app": self.app,
            "pipeline": self.pipeline,
            "output": self.output,
            "error": error_dict(self.business.error if self.business else self.error),
            **{k: (v.to_dict() if v else None) for k, v in phases.items()},
            "record": str(self.record) if self.record else None,
        }


def error_dict(error: AppRunError | None) -> dict[str, Any] | None:
    if error is None:
        return None
    data: dict[str, Any] = {"type": type(error).__name__, "message": error.message}
    if error.hint:
        data["hint"] = error.hint
    for attr in ("step", "command", "returncode", "stderr_tail"):
        value = getattr(error, attr, None)
        if value not in (None, ""):
            data[attr] = value
    attempts = getattr(error, "attempts", None)
    if attempts:
        data["attempts"] = [{"attempt": a.number, "errors": a.errors} for a in attempts]
    return data


def prepare(app: App, name: str, inputs: dict[str, Any]) -> Pipeline:
    """Check everything a run needs before anything runs: the APP files, then the inputs."""
    problems = errors_in(check_app(app, only=[name]))
    if problems:
        raise CheckFailed(f"{name}: {len(problems)} error(s) in the APP", problems)
    pipeline = app.pipeline(name)
    if pipeline.is_lifecycle:
        raise CheckFailed(f"{name} is a lifecycle pipeline; app-run runs it around business ones")
    check_inputs(inputs, pipeline.inputs, name)
    return pipeline


def run_app(
    app: App,
    name: str,
    inputs: dict[str, Any],
    *,
    config: Config,
    provider: Provider | None,
    home: Path | None,
    listener: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    pipeline = prepare(app, name, inputs)
    run_id = new_run_id(name)
    record = runs_dir(home) / f"{run_id}.jsonl" if home is not None else None
    emit = Recorder(record, listener)
    result = RunResult(run_id, app.name, name, "failed", record=record)
    started = time.monotonic()
    emit(
        {
            "event": "run_start",
            "run_id": run_id,
            "app": str(app.root),
            "pipeline": name,
            "inputs": redact(inputs),
            "provider": config.provider,
        }
    )

    def context(p: Pipeline, extra: dict[str, str]) -> StepContext:
        return StepContext(app, p, inputs, run_id, config, provider, emit, extra)

    with _signals_raise() as signals:
        business_env = {"APP_BUSINESS_PIPELINE": name}
        if app.has(CONSTRUCTOR):
            result.constructor = _guarded(
                "constructor", context(app.pipeline(CONSTRUCTOR), business_env)
            )
        if result.constructor and result.constructor.status != "succeeded":
            result.status = "constructor_failed"
            if isinstance(result.constructor.error, Interrupted):
                result.status = "interrupted"
        else:
            result.business = _guarded("business", context(pipeline, business_env))
            result.output = result.business.output
            signals.hold = True
            if app.has(DESTRUCTOR):
                result.destructor = run_phase(
                    "destructor",
                    context(app.pipeline(DESTRUCTOR), _outcome_env(name, result.business)),
                )
            result.status = _status(result.business, result.destructor)
    emit(
        {
            "event": "run_end",
            "status": result.status,
            "exit_code": result.exit_code,
            "seconds": round(time.monotonic() - started, 3),
            "error": error_dict(result.error),
        }
    )
    return result


def _guarded(phase: str, ctx: StepContext) -> PhaseResult:
    """run_phase, also when a signal lands between steps rather than inside one."""
    try:
        return run_phase(phase, ctx)
    except Interrupted as exc:
        return PhaseResult(
            phase, ctx.pipeline.name, "interrupted", error=exc, steps=list(ctx.outputs)
        )


def _outcome_env(name: str, business: PhaseResult) -> dict[str, str]:
    return {
        "APP_BUSINESS_PIPELINE": name,
        "APP_BUSINESS_STATUS": business.status,
        "APP_BUSINESS_ERROR": business.error.one_line() if business.error else "",
    }


def _status(business: PhaseResult, destructor: PhaseResult | None) -> str:
    if business.status != "succeeded":
        return business.status
    if destructor is not None and destructor.status != "succeeded":
        return "destructor_failed"
    return "succeeded"


def run_phase(phase: str, ctx: StepContext) -> PhaseResult:
    pipeline = ctx.pipeline
    result = PhaseResult(phase, pipeline.name, "succeeded")
    ctx.emit({"event": "phase_start", "phase": phase, "pipeline": pipeline.name})
    for step in pipeline.steps:
        error = run_step(ctx, step)
        if error is not None:
            result.status = "interrupted" if isinstance(error, Interrupted) else "failed"
            result.error = error
            break
        result.steps.append(step.name)
    else:
        result.output = ctx.outputs.get(pipeline.output)
    ctx.emit(
        {
            "event": "phase_end",
            "phase": phase,
            "pipeline": pipeline.name,
            "status": result.status,
            "error": error_dict(result.error),
        }
    )
    return result


def run_step(ctx: StepContext, step: Step) -> AppRunError | None:
    """Run one step, storing its output; return the error instead of raising it."""
    ctx.emit(
        {"event": "step_start", "pipeline": ctx.pipeline.name, "step": step.name, "type": step.type}
    )
    started = time.monotonic()
    outcome: StepOutcome | None = None
    error: AppRunError | None = None
    try:
        outcome = run_llm_step(ctx, step) if step.type == "llm" else run_code_step(ctx, step)
        ctx.outputs[step.name] = outcome.output
    except AppRunError as exc:
        error = exc
    except Exception as exc:  # a bug must not skip the destructor
        error = StepError(
            f"internal error: {exc!r}", step=step.name, hint="rerun with --debug and report it"
        )
        error.__cause__ = exc
    if error is not None and error.where is None:
        error.where = ctx.pipeline.where(step)
    ctx.emit(
        {
            "event": "step_end",
            "pipeline": ctx.pipeline.name,
            "step": step.name,
            "status": "succeeded" if error is None else "failed",
            "seconds": round(time.monotonic() - started, 3),
            "retries": outcome.retries if outcome else getattr(error, "retries", 0),
            "usage": outcome.usage if outcome else {},
            "error": error_dict(error),
        }
    )
    return error


class _Signals:
    """SIGINT/SIGTERM raise Interrupted; once ``hold`` is set they are noted, not raised."""

    def __init__(self) -> None:
        self.hold = False
        self.pending: int | None = None

    def handler(self, signum: int, frame: object) -> None:
        if self.hold:
            self.pending = signum
            return
        raise Interrupted(signum)


@contextmanager
def _signals_raise() -> Iterator[_Signals]:
    signals = _Signals()
    if threading.current_thread() is not threading.main_thread():
        yield signals
        return
    previous = {s: signal.signal(s, signals.handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield signals
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
