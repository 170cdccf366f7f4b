"""Skill mode: what a request that matches no pipeline falls back to (spec 1, "brain mode").

By default app-run does not improvise: it prints a structured fallback result so that the host
agent (Claude Code and the like) carries on with SKILL.md and the skill's programs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skill2app.runtime.app.config import Config
from skill2app.runtime.app.model import CONSTRUCTOR, DESTRUCTOR, App
from skill2app.runtime.app.skill_md import read_skill_md
from skill2app.runtime.errors import AppRunError, Interrupted, SignalReceived
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.records.record import new_run_id
from skill2app.runtime.records.result import (
    EXIT_CONSTRUCTOR,
    EXIT_DESTRUCTOR,
    EXIT_FAILED,
    EXIT_OK,
    error_dict,
)
from skill2app.runtime.run.interrupts import Held, interrupts
from skill2app.runtime.run.phase import run_phase
from skill2app.runtime.run.runner import new_work_dir, recorder
from skill2app.runtime.run.steps import StepContext

EXIT_SKILL = 7
SKILL = "_skill"  # the "pipeline" name of a Skill-mode run in records and lifecycle env vars
SKILL_EXIT_CODES = {
    "succeeded": EXIT_OK,
    "failed": EXIT_FAILED,
    "interrupted": EXIT_FAILED,
    "destructor_failed": EXIT_DESTRUCTOR,
}


def programs(app: App) -> list[dict[str, Any]]:
    """The skill's programs (the same ones the agent loop exposes as tools)."""
    from skill2app.runtime.host.agent import discover_tools

    return [
        {
            "path": t.relpath,
            "tool": t.name,
            "executable": os.access(t.path, os.X_OK),
            "description": t.description,
        }
        for t in discover_tools(app)
    ]


def fallback(app: App, request: str, decision: dict[str, Any]) -> dict[str, Any]:
    """The structured result that hands the request to the host agent in Skill mode."""
    skill = read_skill_md(app.skill_md)
    return {
        "mode": "skill",
        "status": "no_match",
        "request": request,
        "app": str(app.root),
        "skill_md": str(skill.path) if skill.exists else None,
        "frontmatter": _jsonable(skill.frontmatter),
        "warnings": [w.to_dict() for w in skill.warnings],  # a broken SKILL.md, said
        "programs": programs(app),
        "routing": decision,
        "next": (
            "No pipeline matches this request. Follow SKILL.md to handle it, using the "
            'programs listed; or run `app-run <APP> "<request>" --agent` with a provider.'
            if skill.exists
            else "No pipeline matches and this APP has no SKILL.md to fall back to."
        ),
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def run_with_agent(
    app: App,
    request: str,
    *,
    config: Config,
    provider: Provider,
    home: Path | None,
    listener: Callable[[dict[str, Any]], None] | None = None,
    max_turns: int = 12,
) -> dict[str, Any]:
    """Skill mode run by app-run itself: constructor, the bounded agent loop, destructor.

    The lifecycle pipelines get ``{"request": ...}`` as their input and
    ``APP_BUSINESS_PIPELINE=_skill``.
    """
    run_id = new_run_id("skill")
    emit = recorder(home, run_id, config, listener)
    held = Held()  # until the lifecycle below takes over: a signal leaves nothing behind
    try:
        return _run_with_agent(app, request, config, provider, emit, run_id, held, max_turns)
    finally:
        held.release()


def _run_with_agent(
    app: App,
    request: str,
    config: Config,
    provider: Provider,
    emit: Any,
    run_id: str,
    held: Held,
    max_turns: int,
) -> dict[str, Any]:
    from skill2app.runtime.host.agent import run_agent

    emit.first(
        {
            "event": "run_start",
            "run_id": run_id,
            "app": str(app.root),
            "pipeline": SKILL,
            "provider": config.provider,
        }
    )
    inputs = {"request": request}
    out: dict[str, Any] = {
        "mode": "skill",
        "run_id": run_id,
        "status": "failed",
        "record": str(emit.path) if emit.path else None,
    }
    work_dir = new_work_dir(run_id)
    env = {
        "APP_BUSINESS_PIPELINE": SKILL,
        "APP_WORK_DIR": str(work_dir),
        "APP_CALLER_CWD": os.getcwd(),
    }

    def ctx(name: str, extra: dict[str, str]) -> StepContext:
        return StepContext(app, app.pipeline(name), inputs, run_id, config, provider, emit, extra)

    with interrupts() as signals:
        if held.pending is not None:  # before anything ran: nothing to undo
            shutil.rmtree(work_dir, ignore_errors=True)
            early = Interrupted(held.pending)
            out.update(status="interrupted", exit_code=early.exit_code, error=error_dict(early))
            emit({"event": "run_end", **{k: out[k] for k in ("status", "exit_code", "error")}})
            return out
        if app.has(CONSTRUCTOR):
            constructor = run_phase("constructor", ctx(CONSTRUCTOR, env))
            out["constructor"] = constructor.to_dict()
            if constructor.status != "succeeded":
                shutil.rmtree(work_dir, ignore_errors=True)
                out["status"] = "constructor_failed"
                emit({"event": "run_end", "status": out["status"], "exit_code": EXIT_CONSTRUCTOR})
                return out
        status, error = "succeeded", None
        try:
            result = run_agent(
                app,
                request,
                provider=provider,
                model=config.model_for("standard"),
                max_tokens=config.max_tokens.get("standard", 8192),
                emit=emit,
                max_turns=max_turns,
            )
            out.update(result.to_dict())
        except AppRunError as exc:
            status, error = ("interrupted" if isinstance(exc, Interrupted) else "failed"), exc
            out["error"] = error_dict(exc)
        except SignalReceived as stop:  # e.g. during a model call
            status, error = "interrupted", Interrupted(stop.signum)
            out["error"] = error_dict(error)
        signals.hold = True
        if app.has(DESTRUCTOR):
            outcome = {
                "APP_BUSINESS_STATUS": status,
                "APP_BUSINESS_ERROR": error.one_line() if error else "",
            }
            destructor = run_phase("destructor", ctx(DESTRUCTOR, {**env, **outcome}))
            out["destructor"] = destructor.to_dict()
            if status == "succeeded" and destructor.status != "succeeded":
                status = "destructor_failed"
    shutil.rmtree(work_dir, ignore_errors=True)
    out["status"] = status
    code = error.exit_code if isinstance(error, Interrupted) else SKILL_EXIT_CODES[status]
    out["exit_code"] = code
    emit({"event": "run_end", "status": status, "exit_code": code, "error": out.get("error")})
    return out
