"""What a tool call does, on its worker thread: run a pipeline with its lifecycle (as `app-run
run` does), or resume / abandon a run paused for an answer (as `app-run resume` / `abandon`).

Each call has its own run: its own run id, APP_WORK_DIR, run record and provider object (a
scripted provider's answers are replayed from the start for each call).  The llm steps are
answered by the client's model when it can sample (``ClientModel``), else by the configured
provider, else the run pauses (host delegation) and the result says how to ``resume``.
Progress: one step more done per finished step, out of all the steps of the constructor, the
pipeline and the destructor.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from skill2app.runtime.app.config import load_config, state_home
from skill2app.runtime.app.model import CONSTRUCTOR, DESTRUCTOR, load_app
from skill2app.runtime.errors import UsageError
from skill2app.runtime.host import delegation
from skill2app.runtime.host.session import existing, parse
from skill2app.runtime.mcp.bridge import Call, Progress
from skill2app.runtime.mcp.catalog import ToolSpec
from skill2app.runtime.mcp.sampling import ClientModel, Stoppable
from skill2app.runtime.providers import make_provider
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.records.display import progress_lines
from skill2app.runtime.records.result import Position, RunResult
from skill2app.runtime.run.runner import begin


@dataclass(frozen=True)
class Settings:
    """How the server answers llm steps (from `app-run mcp`'s flags)."""

    provider: str | None = None  # --provider (else the APP's config)
    answers: str | None = None  # --answers (the scripted provider)
    sampling: bool = True  # ask the client's model when it can sample
    sampling_timeout: float = 300.0  # seconds a run waits for the client's answer


class Steps:
    """A run's progress: the listener its record calls, posting Progress to the call."""

    def __init__(self, call: Call, total: int = 0) -> None:
        self.call = call
        self.total = total
        self.done = 0

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("event") != "step_end":
            return
        self.done += 1
        lines = progress_lines(event)
        message = lines[0].strip() if lines else ""
        self.call.post(Progress(self.done, max(self.total, self.done), message))


def run_pipeline(
    call: Call, tool: ToolSpec, arguments: dict[str, Any], settings: Settings, samples: bool
) -> RunResult:
    """Run ``tool``'s pipeline with ``arguments`` as its inputs; a pause is kept as a session."""
    home = state_home()
    app = load_app(tool.app_root)
    config = load_config(app.root, provider=settings.provider, answers=settings.answers)
    llm: Provider | None
    if samples:
        llm, config = ClientModel(call), replace(config, provider=ClientModel.name)
    else:
        configured = make_provider(config)
        llm = Stoppable(configured, call.stop) if configured is not None else None
    steps = Steps(call)
    run = begin(
        app,
        tool.pipeline,
        dict(arguments),
        config=config,
        provider=llm,
        home=home,
        listener=steps,
        delegate=True,
    )
    lifecycle = [app.pipeline(n) for n in (CONSTRUCTOR, DESTRUCTOR) if app.has(n)]
    steps.total = len(run.pipeline.steps) + sum(len(p.steps) for p in lifecycle)
    result = run.advance(Position())
    if result.pause is not None:
        result = delegation.save(home, result, run)
    return result


def resume(call: Call, arguments: dict[str, Any], served: list[Path]) -> RunResult:
    """The `resume` tool: the answer to a paused llm step, checked as a provider's would be."""
    home = state_home()
    session = _session(arguments, home, served)
    answer = arguments.get("answer")
    if answer is None:
        raise UsageError("no answer given", hint='call resume with {"session": ..., "answer": ...}')
    text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    return delegation.resume(home, session, text, listener=Steps(call))


def abandon(call: Call, arguments: dict[str, Any], served: list[Path]) -> RunResult:
    """The `abandon` tool: give up on a paused run (its destructor runs, as after a failure)."""
    home = state_home()
    return delegation.abandon(home, _session(arguments, home, served), listener=Steps(call))


def _session(arguments: dict[str, Any], home: Path, served: list[Path]) -> str:
    """The session named in ``arguments``, if it is a run of an APP this server serves."""
    session = arguments.get("session")
    if not isinstance(session, str) or not session:
        raise UsageError("no session given", hint="pass the `session` of the paused run")
    path = existing(home, session)
    try:
        app = Path(str(parse(path).get("app")))
    except (OSError, ValueError):
        return session  # unreadable: resume/abandon say so, in their words
    if app not in served:
        raise UsageError(
            f"session {session!r} is a run of {app}, which this server does not serve",
            hint="resume it with `app-run resume`, or from the server that serves that APP",
        )
    return session
