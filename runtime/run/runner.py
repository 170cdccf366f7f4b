"""Running a business pipeline inside its lifecycle (spec 6.2).

1. ``_constructor`` (if present). Failure aborts: the business pipeline never starts, and the
   destructor does not run either (nothing was constructed — the spec's "abort").
2. The business pipeline.
3. ``_destructor`` (if present) — always, like ``finally``: after success, failure, a step
   timeout, and after app-run itself got SIGINT/SIGTERM (further signals are held off while it
   runs). Its failure never masks the business error; both are reported.

Both lifecycle pipelines receive the business pipeline's input as ``input`` and their own steps'
outputs as ``steps``; see ``steps`` for the environment variables that tell them more.

With ``delegate`` (no provider configured), an llm step in the constructor or the business
pipeline pauses the run instead of failing: the result carries a ``Pause`` (prompt, schema)
and the ``Position`` to continue from once the host agent answers (see ``delegation``).
The destructor never pauses; its llm steps need a provider. ``advance`` with a ``failure``
fails the phase paused in without running it (an abandoned session, an answer that failed):
in the constructor, that is a constructor failure like any other — no destructor.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.app.cache import CheckCache
from skill2app.runtime.app.cache import enabled as cache_enabled
from skill2app.runtime.app.config import Config
from skill2app.runtime.app.model import CONSTRUCTOR, DESTRUCTOR, LIFECYCLE, App, Pipeline
from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.errors import (
    AppRunError,
    CheckFailed,
    Interrupted,
    LoadError,
    ProviderNotConfigured,
    SignalReceived,
    UsageError,
)
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.records.display import counted
from skill2app.runtime.records.record import Recorder, new_run_id, redact, runs_dir
from skill2app.runtime.records.result import Pause, PhaseResult, Position, RunResult, error_dict
from skill2app.runtime.run.inputs import complete_inputs
from skill2app.runtime.run.interrupts import Held, interrupts
from skill2app.runtime.run.phase import emit_phase_end, phase_end_event, run_phase
from skill2app.runtime.run.sandbox import Sandbox
from skill2app.runtime.run.steps import StepContext


def prepare(
    app: App, name: str, inputs: dict[str, Any], home: Path | None = None
) -> tuple[Pipeline, dict[str, Any]]:
    """Check everything a run needs before anything runs: the APP files, then the inputs
    (returned complete: ``null`` for each optional one not given)."""
    pipeline = checked(app, name, home)
    return pipeline, complete_inputs(inputs, pipeline.inputs, name, pipeline.input_info)


def checked(app: App, name: str, home: Path | None = None) -> Pipeline:
    """The model of ``name`` once it and the lifecycle pipelines pass `check` (CheckFailed
    otherwise).  With ``home``, an APP unchanged since it last passed is not checked again."""
    if name in LIFECYCLE and app.has(name):
        raise CheckFailed(f"{name} is a lifecycle pipeline; app-run runs it around business ones")
    if not app.has(name) and name not in {folder.name for folder in app.missing}:
        app.document(name)  # raises UsageError naming the pipelines there are
    if name in app.checked:
        return app.pipeline(name)
    names = [n for n in (name, *LIFECYCLE) if app.has(n)]
    cacheable = app.has(name) and cache_enabled()
    store = CheckCache(app, home) if home is not None and cacheable else None
    models = store.load(names) if store is not None else None
    if models is None:
        from skill2app.runtime.app.check import (  # parses and validates: skipped on a cache hit
            check_app,
            errors_in,
        )

        problems = errors_in(check_app(app, only=[name]))
        if problems:
            raise CheckFailed(f"{name}: {counted(len(problems), 'error')} in the APP", problems)
        models = {n: app.pipeline(n) for n in names}
        if store is not None:
            store.save(models)
    app.remember(models)
    app.checked.add(name)
    return models[name]


def checked_alone(app: App, name: str) -> Pipeline | None:
    """The model of lifecycle pipeline ``name`` (None if the APP has none) once it alone
    passes `check`: what ending a paused run needs, whatever became of its other pipelines."""
    if not app.has(name):
        return None
    from skill2app.runtime.app.check import check_document, errors_in

    source = app.source(name)
    if isinstance(source, LoadError):
        raise source
    problems = errors_in(check_document(app, name, source))
    if problems:
        raise CheckFailed(f"{name}: {counted(len(problems), 'error')} in the APP", problems)
    return app.pipeline(name)


def placeholder(app: App, name: str) -> Pipeline:
    """A business pipeline that no longer checks, by name only: enough to fail it unrun."""
    folder = app.root / "pipelines" / name
    return Pipeline(name, "", (), {}, (), "", folder, folder / "pipeline.yaml")


def begin(
    app: App,
    name: str,
    inputs: dict[str, Any],
    *,
    config: Config,
    provider: Provider | None,
    home: Path | None,
    listener: Callable[[dict[str, Any]], None] | None = None,
    delegate: bool = False,
) -> Run:
    """Check ``name`` and its inputs, open its run record; ``run.advance(Position())`` runs it."""
    pipeline, inputs = prepare(app, name, inputs, home)
    if provider is None:
        _need_provider(app, pipeline, delegate)
    run_id = new_run_id(name)
    emit = recorder(home, run_id, config, listener)
    emit.hide(inputs)
    held = Held()  # from the record's first line on, a signal waits for `advance`
    try:
        emit.first(
            {
                "event": "run_start",
                "run_id": run_id,
                "app": str(app.root),
                "pipeline": name,
                "inputs": redact(inputs, config.secrets),
                "provider": config.provider,
            }
        )
        work_dir = new_work_dir(run_id)
    except BaseException:
        held.release()
        raise
    return Run(
        app,
        pipeline,
        inputs,
        run_id,
        config,
        provider,
        emit,
        delegate,
        work_dir=work_dir,
        caller_cwd=os.getcwd(),
        held=held,
    )


def recorder(
    home: Path | None,
    run_id: str,
    config: Config,
    listener: Callable[[dict[str, Any]], None] | None,
) -> Recorder:
    """The run record of ``run_id`` (none without ``home``), blanking this config's secrets."""
    path = runs_dir(home) / f"{run_id}.jsonl" if home is not None else None
    return Recorder(path, listener, scrubber=Scrubber.from_env(config.secrets))


def _need_provider(app: App, pipeline: Pipeline, delegate: bool) -> None:
    """With no provider, an llm step that cannot pause fails before anything runs."""
    phases = [(DESTRUCTOR, False)] + (
        [] if delegate else [(CONSTRUCTOR, True), (pipeline.name, True)]
    )
    for name, _ in phases:
        if not app.has(name):
            continue
        steps = pipeline.steps if name == pipeline.name else app.pipeline(name).steps
        step = next((s for s in steps if s.type == "llm"), None)
        if step is not None:
            raise ProviderNotConfigured(
                f"llm step {step.name!r} of {name} needs an LLM provider and none is configured",
                where=app.pipeline(name).where(step)
                if name != pipeline.name
                else pipeline.where(step),
                hint="set ANTHROPIC_API_KEY, or run with --provider scripted --answers FILE"
                + ("" if delegate or name == DESTRUCTOR else ", or drop --no-delegate"),
            )


def start(app: App, name: str, inputs: dict[str, Any], **kw: Any) -> RunResult:
    """``begin`` then run from the constructor on (a pause is returned, not saved)."""
    return begin(app, name, inputs, **kw).advance(Position())


def new_work_dir(run_id: str) -> Path:
    """A private folder for one run, shared by all its phases (APP_WORK_DIR)."""
    return Path(tempfile.mkdtemp(prefix=f"app-run-{run_id}-"))


def kept_work_dir(run_id: str, saved: object) -> Path | None:
    """The APP_WORK_DIR a paused run saved, if it is one app-run made for that run.  One that
    became a symlink, or is no longer this user's private folder, is refused (UsageError):
    a step would write wherever it leads."""
    if not isinstance(saved, str):
        return None
    path = Path(saved)
    if not (path.is_absolute() and path.name.startswith(f"app-run-{run_id}-")):
        return None  # a hand-edited session never points app-run at other files
    try:
        st = path.lstat()
    except FileNotFoundError:  # gone (a reboot): steps get an empty one again
        return path if path.parent == Path(tempfile.gettempdir()) else None
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not this user's folder"
        raise UsageError(
            f"the run's work folder {path} is {what} now: refused",
            hint="a step would write where it leads; remove it, then resume or abandon again",
        )
    return path


@dataclass
class Run:
    """One run of a business pipeline: everything needed to start it or carry it on."""

    app: App
    pipeline: Pipeline
    inputs: dict[str, Any]
    run_id: str
    config: Config
    provider: Provider | None
    emit: Recorder
    delegate: bool = False  # pause at llm steps when there is no provider
    work_dir: Path | None = None  # APP_WORK_DIR: made at start, removed at the real end
    caller_cwd: str = ""  # APP_CALLER_CWD: where app-run was started
    # Told, durably, where the run stands after each finished step and before the destructor
    # (a resumed session saves it: killed, it goes on from there rather than from the pause).
    checkpoint: Callable[[Position, PhaseResult | None], None] | None = None
    held: Held | None = None  # signals noted since `begin`, until `advance` takes over
    sandbox: Sandbox | None = None  # run the programs in it (`app-run test --sandbox`)

    def advance(
        self,
        position: Position,
        failure: AppRunError | None = None,
        business: PhaseResult | None = None,
    ) -> RunResult:
        """Run on from ``position``; ``failure`` fails the current phase without running it.
        At the ``destructor`` position (``business``: how the business pipeline ended) only
        the destructor is left to run.  A signal that came before (after ``begin``) ends the
        run here, as interrupted, before anything runs."""
        held, self.held = self.held, None
        try:
            if held is not None and held.pending is not None:
                return self._interrupted_early(held.pending)
            return self._advance(position, failure, business)
        finally:
            if held is not None:
                held.release()

    def _interrupted_early(self, signum: int) -> RunResult:
        result = RunResult(
            self.run_id, self.app.name, self.pipeline.name, "interrupted", record=self.emit.path
        )
        error = Interrupted(signum)
        result.business = PhaseResult("business", self.pipeline.name, "interrupted", error=error)
        return self._end(result)

    def shared_env(self) -> dict[str, str]:
        env = {"APP_BUSINESS_PIPELINE": self.pipeline.name, "APP_CALLER_CWD": self.caller_cwd}
        if self.work_dir is not None:
            env["APP_WORK_DIR"] = str(self.work_dir)
        return env

    def context(
        self, pipeline: Pipeline, outputs: dict[str, Any], env: dict[str, str]
    ) -> StepContext:
        return StepContext(
            self.app,
            pipeline,
            self.inputs,
            self.run_id,
            self.config,
            self.provider,
            self.emit,
            {**self.shared_env(), **env},
            dict(outputs),
            sandbox=self.sandbox,
        )

    def _advance(
        self, position: Position, failure: AppRunError | None, business: PhaseResult | None
    ) -> RunResult:
        result = RunResult(
            self.run_id, self.app.name, self.pipeline.name, "failed", record=self.emit.path
        )
        if position.phase == "destructor":
            with interrupts() as signals:
                result.business = business or PhaseResult("business", self.pipeline.name, "failed")
                return self._finish(result, signals)
        with interrupts() as signals:
            # a failure at a constructor-phase pause fails the constructor even if it is gone
            constructing = self.app.has(CONSTRUCTOR) or failure is not None
            if position.phase == "constructor" and constructing:
                result.constructor = self._phase("constructor", CONSTRUCTOR, position, failure)
                failure = None
                if result.constructor.status == "paused":
                    signals.hold = True
                    return self._paused(result, result.constructor)
                if result.constructor.status != "succeeded":
                    interrupted = isinstance(result.constructor.error, Interrupted)
                    result.status = "interrupted" if interrupted else "constructor_failed"
                    signals.hold = True  # the record's end is written whatever comes now
                    return self._end(result)
                position = Position("business")
            elif self.app.has(CONSTRUCTOR):
                result.constructor = PhaseResult("constructor", CONSTRUCTOR, "succeeded")
            if position.phase == "constructor":
                position = Position("business")
            result.business = self._phase("business", self.pipeline.name, position, failure)
            if result.business.status == "paused":
                signals.hold = True
                return self._paused(result, result.business)
            if self.checkpoint is not None:
                self.checkpoint(Position("destructor"), result.business)
            return self._finish(result, signals)

    def _finish(self, result: RunResult, signals: Any) -> RunResult:
        """The destructor (held off from signals), then the run's end."""
        assert result.business is not None
        # printed, returned to an agent, written to expected.json: never a secret's value
        result.output = self.emit.scrubber.value(result.business.output)
        signals.hold = True
        if self.app.has(DESTRUCTOR):
            env = _outcome_env(self.pipeline.name, result.business)
            ctx = self.context(self.app.pipeline(DESTRUCTOR), {}, env)
            result.destructor = run_phase("destructor", ctx)
        result.status = _status(result.business, result.destructor)
        result.signal = signals.pending  # app-run was told to stop: say so in its exit code
        return self._end(result)

    def _phase(
        self, phase: str, name: str, position: Position, failure: AppRunError | None
    ) -> PhaseResult:
        if failure is not None:  # nothing of it runs: its model is not needed (nor checked)
            result = PhaseResult(phase, name, "failed", error=failure, steps=list(position.outputs))
            self.emit(phase_end_event(result))
            return result
        pipeline = self.pipeline if phase == "business" else self.app.pipeline(name)
        ctx = self.context(
            pipeline, position.outputs, {"APP_BUSINESS_PIPELINE": self.pipeline.name}
        )
        if self.checkpoint is not None:
            told = self.checkpoint
            ctx.checkpoint = lambda index, outputs: told(
                Position(phase, index, dict(outputs)), None
            )
        try:
            return run_phase(phase, ctx, start=position.step, can_pause=self.delegate)
        except SignalReceived as stop:  # a signal between steps rather than inside one
            error = Interrupted(stop.signum)
            result = PhaseResult(phase, name, "interrupted", error=error, steps=list(ctx.outputs))
            emit_phase_end(ctx, result)
            return result

    def _paused(self, result: RunResult, phase: PhaseResult) -> RunResult:
        assert phase.pending is not None
        pipeline = self.pipeline if phase.phase == "business" else self.app.pipeline(CONSTRUCTOR)
        step = pipeline.steps[phase.pending["index"]]
        result.status = "needs_llm"
        result.position = Position(phase.phase, phase.pending["index"], phase.pending["outputs"])
        result.pause = Pause(
            session=self.run_id,
            pipeline=pipeline.name,
            step=step.name,
            prompt=phase.pending["prompt"],
            schema=phase.pending["schema"],
            tier=step.tier,
            attempt=1,
            max_attempts=step.retry + 1,
        )
        self.emit({"event": "run_pause", "phase": phase.phase, "step": step.name})
        return result

    def _end(self, result: RunResult) -> RunResult:
        if self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)
        self.emit(
            {
                "event": "run_end",
                "status": result.status,
                "exit_code": result.exit_code,
                "error": error_dict(result.error),
            }
        )
        if self.emit.failure is not None:
            record, why = self.emit.path, self.emit.failure
            result.record_error = f"the run record {record} is incomplete: {why}"
        return result


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
