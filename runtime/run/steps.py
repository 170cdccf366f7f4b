"""Executing one step of a pipeline: the data-passing contract of spec 4.1.

A code step gets ``{"input": ..., "steps": {"<name>": {"output": ...}}}`` on stdin and must
print ``{"output": ...}``.  Environment variables a step can rely on:

``APP_ROOT`` (the APP folder), ``APP_PIPELINE_DIR`` (this pipeline's folder, also the cwd),
``APP_TOOLS_DIR`` (``<APP_ROOT>/tools``), ``APP_PIPELINE`` and ``APP_STEP`` (names),
``APP_RUN_ID``, ``APP_WORK_DIR`` (a private folder for this run, shared by the constructor, the
business pipeline and the destructor, removed after the destructor), ``APP_CALLER_CWD`` (where
app-run was started: resolve a user's relative paths against it) and
``APP_BUSINESS_PIPELINE`` (the business pipeline's name, in every phase); in the destructor also
``APP_BUSINESS_STATUS`` (succeeded | failed | interrupted) and ``APP_BUSINESS_ERROR``.
``PYTHONDONTWRITEBYTECODE=1`` is set unless already set, so Python steps leave no __pycache__.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from skill2app.runtime.app import numbers
from skill2app.runtime.app.config import Config
from skill2app.runtime.app.model import App, Pipeline, Step
from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.errors import OutputError
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.run.process import NO_SECRETS, failure, run_program, split_command
from skill2app.runtime.run.sandbox import Sandbox

Emit = Callable[[dict[str, Any]], None]


@dataclass
class StepContext:
    """What one pipeline run knows: its inputs and the outputs of the steps done so far."""

    app: App
    pipeline: Pipeline
    inputs: dict[str, Any]
    run_id: str
    config: Config
    provider: Provider | None = None
    emit: Emit = lambda event: None
    extra_env: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    sandbox: Sandbox | None = None  # run the programs in it (app-convert's --smoke)
    # told (next step index, outputs so far) after each finished step (a resumed session)
    checkpoint: Callable[[int, dict[str, Any]], None] | None = None
    _env: dict[str, str] | None = field(default=None, init=False, repr=False)

    @property
    def scrubber(self) -> Scrubber:
        """What blanks this run's secrets (the run record's, when there is one)."""
        found = getattr(self.emit, "scrubber", None)
        return found if isinstance(found, Scrubber) else NO_SECRETS

    def payload(self, step: Step | None = None) -> dict[str, Any]:
        """What a step's program reads on stdin: the inputs and the earlier outputs (only those
        the step ``needs``, when it says)."""
        needs = step.needs if step is not None else None
        outputs = self.outputs.items()
        return {
            "input": self.inputs,
            "steps": {
                name: {"output": out} for name, out in outputs if needs is None or name in needs
            },
        }

    def env(self, step: Step) -> dict[str, str]:
        if self._env is None:  # the same for every step of this pipeline run
            env = dict(os.environ)
            env.setdefault("PYTHONDONTWRITEBYTECODE", "1")  # no __pycache__ left inside the APP
            env.update(
                APP_ROOT=str(self.app.root),
                APP_PIPELINE_DIR=str(self.pipeline.dir.resolve()),  # absolute, like APP_ROOT
                APP_TOOLS_DIR=str(self.app.tools_dir),
                APP_PIPELINE=self.pipeline.name,
                APP_RUN_ID=self.run_id,
            )
            self._env = env
        return {**self._env, "APP_STEP": step.name, **self.extra_env}


@dataclass
class StepOutcome:
    output: Any
    retries: int = 0
    usage: dict[str, int] = field(default_factory=dict)


def run_code_step(ctx: StepContext, step: Step) -> StepOutcome:
    argv = split_command(step.command, step.name)
    completed = run_program(
        argv,
        stdin=json.dumps(ctx.payload(step), ensure_ascii=False),
        cwd=ctx.pipeline.dir,
        env=ctx.env(step),
        timeout=step.timeout,
        step=step.name,
        sandbox=ctx.sandbox,
        scrubber=ctx.scrubber,
    )
    if completed.returncode != 0:
        raise failure(completed, argv, step.name, "step", ctx.scrubber)
    return StepOutcome(parse_output(completed.stdout, completed.stderr, step.name, ctx.scrubber))


def parse_output(stdout: str, stderr: str, step: str, scrubber: Scrubber = NO_SECRETS) -> Any:
    """The ``output`` value of a program's stdout, or OutputError saying what is wrong."""
    text = stdout.strip()
    if not text:
        raise OutputError(
            "printed nothing on stdout",
            step=step,
            hint='print {"output": ...} as JSON' + _stderr_note(stderr, scrubber),
        )
    try:
        data = numbers.loads(text)  # 5,000 digits: a JSONDecodeError like any bad JSON
    except json.JSONDecodeError as exc:
        raise OutputError(
            f"stdout is not JSON ({exc.msg}): {scrubber.tail(text, 200)!r}",
            step=step,
            hint='print exactly one JSON object {"output": ...}; send logs to stderr'
            + _stderr_note(stderr, scrubber),
        ) from None
    except RecursionError:
        raise OutputError(
            "stdout JSON is nested too deeply to read",
            step=step,
            hint="print flatter JSON (a few hundred levels at most)",
        ) from None
    if not isinstance(data, dict) or "output" not in data:
        raise OutputError(
            'stdout JSON has no "output" key',
            step=step,
            hint='wrap the result: {"output": <result>}',
        )
    return data["output"]


def _stderr_note(stderr: str, scrubber: Scrubber) -> str:
    text = scrubber.tail(stderr, 300)
    return f" (stderr: {text})" if text else ""
