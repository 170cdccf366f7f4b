"""Steps: the files one step needs, and adding a step to an existing pipeline.

A code step gets a stub (Python, Bash or Node) that honours the stdin/stdout contract.  An llm
step gets a prompt wired to the previous step's output (in pipeline.yaml), a JSON Schema
stub, a validate script stub and a scripted answer in samples/answers.yaml, so the pipeline
still runs with ``--provider scripted``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill2app.scaffold import files, layout, names, render, roundtrip, specs
from skill2app.scaffold.errors import BadFile, UsageError, Where
from skill2app.scaffold.specs import InputSpec, StepSpec

ANSWERS = "samples/answers.yaml"


def step_files(
    pipeline_dir: Path,
    pipeline: str,
    step: StepSpec,
    inputs: Sequence[InputSpec],
    previous: str | None,
) -> list[files.Change]:
    """The stub (code) or the schema and validate stub (llm) of ``step``."""
    context: dict[str, Any] = {
        "pipeline": pipeline,
        "step": step,
        "inputs": inputs,
        "previous": previous,
    }
    if step.type == "code":
        suffix = specs.LANGS[step.lang][0]
        template = f"new/step/code{suffix}.j2"
        return [render.file(pipeline_dir / step.script, template, executable=True, **context)]
    return [
        render.file(pipeline_dir / step.schema, "new/step/schema.json.j2", **context),
        render.file(
            pipeline_dir / step.validate, "new/step/validate.py.j2", executable=True, **context
        ),
    ]


def entry(pipeline: str, step: StepSpec, inputs: Sequence[InputSpec], previous: str | None) -> str:
    """The YAML of ``step`` as one item of a ``steps:`` list."""
    context = {"pipeline": pipeline, "step": step, "inputs": inputs, "previous": previous}
    return render.render("new/pipeline/step.yaml.j2", **context)


def answer(pipeline: str, step: StepSpec) -> str:
    """The scripted answer of llm ``step`` as a one-key YAML mapping."""
    return render.render("new/step/answer.yaml.j2", pipeline=pipeline, step=step)


def plan_step(
    app_dir: Path,
    pipeline: str,
    step: StepSpec,
    *,
    after: str | None = None,
) -> list[files.Change]:
    """Add ``step`` to ``pipeline`` of ``app_dir``: edit pipeline.yaml, write the step's files."""
    if after is not None and not names.EXISTING_NAME.fullmatch(after):
        raise UsageError(  # the user's argument, not pipeline.yaml, is wrong
            f"--after {after!r} is not a step name",
            hint="name an existing step of the pipeline (see its pipeline.yaml)",
        )
    path = layout.pipeline_file(app_dir, pipeline)
    doc = roundtrip.load(path, list_key="steps", kind="pipeline.yaml")
    step_names = roundtrip.step_names(doc)
    previous = after if after is not None else (step_names[-1] if step_names else None)
    if previous is not None:
        _existing(previous, "step name", doc)
    inputs = _inputs(doc)
    last = step_names[-1] if step_names else None
    roundtrip.insert_step(doc, entry(pipeline, step, inputs, previous), after=after)
    if last is not None and previous == last and doc.data.get("output") == last:
        # `output:` named the last step (app-convert writes it out): the new last step's
        # result is the pipeline's now, as it is when `output:` is left to its default
        doc.data["output"] = step.name
    changes = step_files(path.parent, pipeline, step, inputs, previous)
    changes.append(files.edited_file(path, doc.text, doc.dump()))
    if step.type == "llm":
        changes += _answers(path.parent, pipeline, step)
    return changes


def new_step(
    app_dir: Path,
    pipeline: str,
    step: StepSpec,
    *,
    after: str | None = None,
    force: bool = False,
    dry_run: bool = False,
) -> list[files.Change]:
    """Add ``step`` (see ``specs.step``) to an existing pipeline; returns the file changes."""
    changes = plan_step(app_dir, pipeline, step, after=after)
    return files.apply(changes, force=force, dry_run=dry_run)


def _inputs(doc: roundtrip.Document) -> list[InputSpec]:
    declared = doc.data.get("input") or {}
    if not hasattr(declared, "items"):
        return []
    inputs = []
    for name, type_ in declared.items():
        item = InputSpec(_existing(name, "input", doc), str(type_))
        if specs.base_type(item.type) not in specs.INPUT_TYPES:
            raise BadFile(
                f"input {item.name!r} in pipeline.yaml has the unknown type {item.type!r}",
                where=Where(doc.path),
                hint="use one of: " + ", ".join(specs.INPUT_TYPES),
            )
        inputs.append(item)
    return inputs


def _existing(name: object, what: str, doc: roundtrip.Document) -> str:
    """A name read from the user's pipeline.yaml, which generated code is about to use."""
    text = str(name)
    if not names.EXISTING_NAME.fullmatch(text):
        raise BadFile(
            f"{what} {text!r} in pipeline.yaml is not valid",
            where=Where(doc.path),
            hint="fix it (`app-run check` says how), then run app-new again",
        )
    return text


def _answers(pipeline_dir: Path, pipeline: str, step: StepSpec) -> list[files.Change]:
    path = pipeline_dir / ANSWERS
    if not path.exists():
        template = "new/pipeline/samples/answers.yaml.j2"
        return [render.file(path, template, pipeline=pipeline, steps=[step])]
    doc = roundtrip.load(path, list_key="answers", kind=ANSWERS)
    if not roundtrip.add_mapping_entry(doc, "answers", answer(pipeline, step)):
        return []
    return [files.edited_file(path, doc.text, doc.dump())]
