"""A new business pipeline: pipeline.yaml, one file per step, a sample input and answers.

``pipelines/NAME/samples/input.json`` holds a placeholder value for every input and, when the
pipeline has llm steps, ``samples/answers.yaml`` holds one scripted answer per llm step, so

    app-run run APP NAME --input-json pipelines/NAME/samples/input.json \\
        --provider scripted --answers pipelines/NAME/samples/answers.yaml

works as soon as the pipeline is generated.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill2app.scaffold import files, layout, names, render, specs
from skill2app.scaffold.errors import Conflict, UsageError, Where
from skill2app.scaffold.specs import InputSpec, StepSpec
from skill2app.scaffold.step import ANSWERS, step_files

DEFAULT_STEPS = (StepSpec("process"),)


def plan_pipeline(
    app_dir: Path,
    name: str,
    description: str,
    *,
    triggers: Sequence[str] = (),
    inputs: Sequence[InputSpec] = (),
    steps: Sequence[StepSpec] = (),
) -> list[files.Change]:
    """The files of pipeline ``name`` in ``app_dir``; raises before planning anything invalid."""
    names.pipeline_name(name)
    description = names.description(description, what="pipeline description")
    triggers = [_trigger(text) for text in triggers]
    steps = list(steps or DEFAULT_STEPS)
    specs.unique(inputs, "input")
    specs.unique(steps, "step")
    folder = layout.require_app(app_dir) / "pipelines" / name
    context: dict[str, Any] = {
        "pipeline": name,
        "description": description,
        "triggers": triggers,
        "inputs": list(inputs),
        "steps": steps,
    }
    changes = [render.file(folder / "pipeline.yaml", "new/pipeline/pipeline.yaml.j2", **context)]
    for index, step in enumerate(steps):
        previous = steps[index - 1].name if index else None
        changes += step_files(folder, name, step, inputs, previous)
    sample = {item.name: item.sample for item in inputs}
    changes.append(
        render.file(
            folder / "samples/input.json", "new/pipeline/samples/input.json.j2", sample=sample
        )
    )
    if any(step.type == "llm" for step in steps):
        changes.append(
            render.file(folder / ANSWERS, "new/pipeline/samples/answers.yaml.j2", **context)
        )
    return changes


def new_pipeline(
    app_dir: Path,
    name: str,
    description: str,
    *,
    triggers: Sequence[str] = (),
    inputs: Sequence[InputSpec] = (),
    steps: Sequence[StepSpec] = (),
    force: bool = False,
    dry_run: bool = False,
) -> list[files.Change]:
    """Create (or with ``dry_run`` only plan) pipeline ``name``; returns the file changes."""
    changes = plan_pipeline(
        app_dir, name, description, triggers=triggers, inputs=inputs, steps=steps
    )
    existing = app_dir / "pipelines" / name / "pipeline.yaml"
    if existing.exists() and not force:
        raise Conflict(
            f"pipeline {name!r} already exists",
            where=Where(existing),
            hint="pick another name, add steps with `app-new step`, or --force to regenerate it",
        )
    return files.apply(changes, force=force, dry_run=dry_run)


def _trigger(text: str) -> str:
    text = text.strip()
    if not text:
        raise UsageError("a --trigger is empty", hint="give an example request, or drop it")
    return text


def routing_warnings(app_dir: Path, name: str) -> list[str]:
    """What the routing self-test (``runtime.routing.selftest``) says about pipeline ``name``
    in the APP as it is now: its phrases that route elsewhere, others' that route to it, too
    few triggers.  One line each (``<what> (<file>:<line>) — <fix>``)."""
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.errors import AppRunError
    from skill2app.runtime.routing.selftest import routing_selftest

    try:
        found = routing_selftest(load_app(app_dir))
    except AppRunError as exc:
        return [f"routing self-test skipped: {exc.one_line()}"]
    mine = [d for d in found if Path(d.where.file).parent.name == name or f'"{name}"' in d.message]
    return [f"{d.message} ({d.where}) — {d.hint}" if d.hint else str(d.message) for d in mine]
