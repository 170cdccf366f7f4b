"""What a run produces: the outcome of each phase and of the whole run, and its exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.runtime.errors import AppRunError, Interrupted

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONSTRUCTOR = 4
EXIT_DESTRUCTOR = 5
EXIT_NEEDS_LLM = 6
EXIT_NEEDS_ROUTE = 8  # unsure: the caller picks a pipeline from a short list (ask.py)
EXIT_NEEDS_INPUT = 9  # routed, but required inputs are missing (ask.py)


@dataclass
class Position:
    """Where a run stands; saved in a session while an llm step waits for the host's answer."""

    phase: str = "constructor"  # constructor | business
    step: int = 0  # index of the next step in that phase's pipeline
    outputs: dict[str, Any] = field(default_factory=dict)  # that phase's finished steps
    attempts: list[list[str]] = field(default_factory=list)  # rejected answers' errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "step": self.step,
            "outputs": self.outputs,
            "attempts": self.attempts,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Position:
        return cls(
            phase=str(data["phase"]),
            step=int(data["step"]),
            outputs=dict(data["outputs"]),
            attempts=[list(a) for a in data["attempts"]],
        )


@dataclass
class Pause:
    """An llm step waiting for the host agent's answer (no provider configured)."""

    session: str
    pipeline: str
    step: str
    prompt: str
    schema: dict[str, Any] | None
    tier: str
    attempt: int
    max_attempts: int
    errors: list[str] = field(default_factory=list)  # why the previous answer was rejected
    # `resume` and `abandon` as they work pasted: set when the session is saved (delegation.save)
    commands: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "needs_llm",
            "session": self.session,
            "pipeline": self.pipeline,
            "step": self.step,
            "prompt": self.prompt,
            "schema": self.schema,
            "tier": self.tier,
            "attempt": self.attempt,
            "max_attempts": self.max_attempts,
            "errors": self.errors,
            **self.commands,
        }


@dataclass
class PhaseResult:
    phase: str  # constructor | business | destructor
    pipeline: str
    status: str  # succeeded | failed | interrupted | paused
    output: Any = None
    error: AppRunError | None = None
    steps: list[str] = field(default_factory=list)  # the steps that finished
    # When paused: {"index": step index, "prompt": rendered prompt, "schema": ... or None}
    pending: dict[str, Any] | None = None

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
    # succeeded | failed | constructor_failed | destructor_failed | interrupted | needs_llm
    status: str
    output: Any = None
    constructor: PhaseResult | None = None
    business: PhaseResult | None = None
    destructor: PhaseResult | None = None
    record: Path | None = None
    pause: Pause | None = None
    position: Position | None = None  # where to resume, when paused
    signal: int | None = None  # a SIGINT/SIGTERM held off while the destructor ran
    record_error: str | None = None  # why the run record is incomplete (e.g. the disk is full)
    free_text: dict[str, str] = field(default_factory=dict)  # input -> how the request filled it

    @property
    def exit_code(self) -> int:
        if self.signal is not None:
            return 128 + self.signal
        return self._outcome_code()

    @property
    def error(self) -> AppRunError | None:
        for phase in (self.constructor, self.business, self.destructor):
            if phase is not None and phase.error is not None:
                return phase.error
        return None

    def _outcome_code(self) -> int:
        for phase in (self.constructor, self.business):
            if phase is not None and isinstance(phase.error, Interrupted):
                return phase.error.exit_code
        return {
            "succeeded": EXIT_OK,
            "constructor_failed": EXIT_CONSTRUCTOR,
            "destructor_failed": EXIT_DESTRUCTOR,
            "needs_llm": EXIT_NEEDS_LLM,
        }.get(self.status, EXIT_FAILED)

    def to_dict(self) -> dict[str, Any]:
        extra = {"free_text": self.free_text} if self.free_text else {}
        if self.pause is not None:
            return {**self.pause.to_dict(), "run_id": self.run_id, "app": self.app, **extra}
        phases = {"constructor": self.constructor, "destructor": self.destructor}
        data = {
            "status": self.status,
            "run_id": self.run_id,
            "app": self.app,
            "pipeline": self.pipeline,
            "output": self.output,
            "error": error_dict(self.business.error if self.business else self.error),
            **{k: (v.to_dict() if v else None) for k, v in phases.items()},
            "record": str(self.record) if self.record else None,
        }
        if self.record_error:
            data["record_error"] = self.record_error
        return {**data, **extra}


def error_dict(error: AppRunError | None) -> dict[str, Any] | None:
    if error is None:
        return None
    data: dict[str, Any] = {"type": type(error).__name__, "message": error.message}
    if error.where is not None:
        data["where"] = str(error.where)
    if error.hint:
        data["hint"] = error.hint
    for attr in ("step", "command", "returncode", "stderr_tail"):
        value = getattr(error, attr, None)
        if value not in (None, ""):
            data[attr] = value
    diagnostics = getattr(error, "diagnostics", None)  # CheckFailed: each with file:line
    if diagnostics:
        data["diagnostics"] = [d.to_dict() for d in diagnostics]
        first = data["diagnostics"][0]
        data.setdefault("where", f"{first['file']}:{first['line']}")
    attempts = getattr(error, "attempts", None)
    if attempts:
        data["attempts"] = [{"attempt": a.number, "errors": a.errors} for a in attempts]
    return data
