"""Executing an llm step (spec 4.2): render, ask, check structure, check content, retry.

``judge`` is the check of one answer (JSON parsing, JSON Schema, then the validate script); it
is shared by every source of answers, so a host agent's answer is held to the same rules.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from skill2app.runtime.app import numbers
from skill2app.runtime.app.config import Config
from skill2app.runtime.app.model import Step
from skill2app.runtime.errors import (
    Attempt,
    AttemptsExhausted,
    OutputError,
    ProviderNotConfigured,
    StepError,
    SubprocessError,
)
from skill2app.runtime.providers.base import LlmRequest, LlmResponse, Provider
from skill2app.runtime.run.fence import read_answer
from skill2app.runtime.run.process import failure, run_program, split_command
from skill2app.runtime.run.steps import StepContext, StepOutcome
from skill2app.runtime.run.template import render

INTERPRETERS = {".py": "python3", ".sh": "bash", ".bash": "bash", ".js": "node", ".mjs": "node"}


def run_llm_step(ctx: StepContext, step: Step) -> StepOutcome:
    if ctx.provider is None:
        raise ProviderNotConfigured(
            f"llm step {step.name!r} needs an LLM provider and none is configured",
            hint="set ANTHROPIC_API_KEY, or run with --provider scripted --answers FILE",
        )
    prompt = render(step.prompt, ctx.inputs, ctx.outputs, step.name)
    schema = load_schema(ctx, step)
    attempts: list[Attempt] = []
    usage: dict[str, int] = {}
    for number in range(1, step.retry + 2):
        response = ctx.provider.complete(request_for(ctx, step, prompt, schema, attempts))
        for key, value in response.usage.items():
            usage[key] = usage.get(key, 0) + value
        output, errors = judge(ctx, step, answer_of(response), schema)
        if not errors:
            return StepOutcome(output, retries=number - 1, usage=usage)
        attempts.append(Attempt(number, errors, raw=response.text[:2000]))
        ctx.emit({"event": "step_retry", "step": step.name, "attempt": number, "errors": errors})
    raise exhausted(step, attempts)


def pending_prompt(
    ctx: StepContext, step: Step, attempts: list[list[str]]
) -> tuple[str, dict | None]:
    """The prompt and schema a host agent must answer for ``step`` (host delegation): printed
    and kept in the session, so scrubbed of secrets."""
    prompt = render(step.prompt, ctx.inputs, ctx.outputs, step.name)
    tried = [Attempt(number, errors) for number, errors in enumerate(attempts, 1)]
    return ctx.scrubber.known(with_feedback(prompt, tried)), load_schema(ctx, step)


def exhausted(step: Step, attempts: list[Attempt]) -> AttemptsExhausted:
    listing = "; ".join(f"attempt {a.number}: {' / '.join(a.errors)}" for a in attempts)
    return AttemptsExhausted(
        f"no valid answer after {len(attempts)} attempts — {listing}",
        step=step.name,
        attempts=attempts,
        hint="tighten the prompt, relax the schema, or raise retry:",
    )


def request_for(
    ctx: StepContext, step: Step, prompt: str, schema: dict | None, attempts: list[Attempt]
) -> LlmRequest:
    return LlmRequest(
        prompt=ctx.scrubber.known(with_feedback(prompt, attempts)),  # a model never sees one
        tier=step.tier,
        model=ctx.config.model_for(step.tier),
        schema=schema,
        max_tokens=ctx.config.max_tokens.get(step.tier, 8192),
        thinking=step.tier == "reasoning",
        pipeline=ctx.pipeline.name,
        step=step.name,
        attempt=len(attempts) + 1,
    )


def with_feedback(prompt: str, attempts: list[Attempt]) -> str:
    """The prompt for the next attempt: the original plus why the last answer was rejected."""
    if not attempts:
        return prompt
    errors = "\n".join(f"- {e}" for e in attempts[-1].errors)
    return (
        f"{prompt}\n\nYour previous answer was rejected for these reasons:\n{errors}\n"
        "Answer again, fixing every point above."
    )


def answer_of(response: LlmResponse) -> Any:
    """Structured data if the provider gave it, else the text."""
    return response.data if response.data is not None else response.text


def load_schema(ctx: StepContext, step: Step) -> dict | None:
    """The step's JSON Schema; `check` vetted the file, but a step may have changed it since."""
    if not step.schema:
        return None
    try:
        schema = numbers.loads((ctx.pipeline.dir / step.schema).read_text(encoding="utf-8"))
    except OSError as exc:
        why = exc.strerror or str(exc)
    except ValueError as exc:  # not JSON, or not UTF-8
        why = f"not valid JSON ({exc})"
    else:
        return schema
    raise StepError(
        f"cannot read schema file {step.schema!r}: {why}",
        step=step.name,
        hint="restore it (did an earlier step change or delete it?); `app-run check` checks it",
    )


def judge(ctx: StepContext, step: Step, answer: Any, schema: dict | None) -> tuple[Any, list[str]]:
    """(output, errors): errors empty means the answer is accepted as the step's output.
    The errors are scrubbed of secrets: they go into the retry prompt, progress, records."""
    try:
        output, errors = _judge(ctx, step, answer, schema)
    except RecursionError:
        output, errors = None, ["the answer is nested too deeply to check (flatten it)"]
    return output, [ctx.scrubber.text(e) for e in errors]


def _judge(ctx: StepContext, step: Step, answer: Any, schema: dict | None) -> tuple[Any, list[str]]:
    if isinstance(answer, str) and not answer.strip():
        return None, ["the answer is empty"]
    output = answer
    if schema is not None:
        output, errors = parse_json(answer)
        if errors:
            return None, errors
        base = ctx.pipeline.dir / step.schema if step.schema else None
        errors = schema_errors(output, schema, base, ctx.app.root, step.name)
        if errors:
            return None, errors
    if step.validate:
        errors = run_validate(ctx, step, output)
        if errors:
            return None, errors
    return output, []


def parse_json(answer: Any) -> tuple[Any, list[str]]:
    if not isinstance(answer, str):
        return answer, []
    try:
        return read_answer(answer, numbers.loads), []
    except json.JSONDecodeError as exc:
        return None, [f"the answer is not JSON ({exc.msg} at line {exc.lineno})"]
    except RecursionError:
        return None, ["the answer is JSON nested too deeply to read (flatten it)"]


def schema_errors(
    value: Any, schema: dict, base: Path | None = None, root: Path | None = None, step: str = ""
) -> list[str]:
    """Why ``value`` does not match ``schema``.  A ``$ref`` resolves only to a file inside
    ``root`` (the APP) next to ``base`` (the schema file); nothing is ever fetched."""
    from jsonschema import validators
    from referencing.exceptions import Unresolvable

    from skill2app.runtime.app.references import local_registry

    cls = validators.validator_for(schema)
    if base is not None and root is not None:
        validator = cls(schema, registry=local_registry(base, root))
    else:
        validator = cls(schema)
    try:
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except Unresolvable as exc:
        raise StepError(
            f"schema $ref cannot be resolved: {exc}",
            step=step,
            hint="refer only to files inside the APP, by a relative path; `app-run check` "
            "checks every $ref",
        ) from None
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in errors[:20]
    ]


def validate_argv(ctx: StepContext, step: Step) -> list[str]:
    """``validate: steps/check.py`` runs through its interpreter; a full command runs as is."""
    argv = split_command(str(step.validate), step.name)
    if len(argv) == 1:
        interpreter = INTERPRETERS.get(Path(argv[0]).suffix)
        if interpreter == "python3" and shutil.which("python3") is None:
            interpreter = sys.executable
        if interpreter:
            argv = [interpreter, argv[0]]
    return argv


def run_validate(ctx: StepContext, step: Step, output: Any) -> list[str]:
    payload = {**ctx.payload(step), "output": output}
    argv = validate_argv(ctx, step)
    try:
        completed = run_program(
            argv,
            stdin=json.dumps(payload, ensure_ascii=False),
            cwd=ctx.pipeline.dir,
            env=ctx.env(step),
            timeout=step.timeout,
            step=step.name,
            sandbox=ctx.sandbox,
            scrubber=ctx.scrubber,
        )
    except SubprocessError as exc:  # say it was the validate script, not the step's call
        exc.message = f"validate script: {exc.message}"
        raise
    try:
        verdict = numbers.loads(completed.stdout.strip() or "null")
    except (json.JSONDecodeError, RecursionError):
        verdict = None
    if not isinstance(verdict, dict) or "valid" not in verdict:
        if completed.returncode != 0:
            raise failure(completed, argv, step.name, "validate script", ctx.scrubber)
        raise OutputError(
            'validate script did not print {"valid": true|false, "errors": [...]}',
            step=step.name,
            hint="print the verdict as JSON on stdout",
        )
    if verdict["valid"] is True and completed.returncode == 0:
        return []
    errors = verdict.get("errors") or []
    if not isinstance(errors, list):
        errors = [errors]
    return [str(e) for e in errors] or ["the validate script rejected the answer (no details)"]


def ask_lite(
    provider: Provider,
    config: Config,
    prompt: str,
    schema: dict[str, Any],
    step: str,
    attempts: int = 1,
    max_tokens: int | None = None,
) -> tuple[Any, list[str]]:
    """One structured lite-tier question of app-run's own (routing, input extraction):
    (answer, []) when it matches ``schema``, else (None, errors) after ``attempts`` tries."""
    limit = config.max_tokens.get("lite", 4096)
    limit = min(limit, max_tokens) if max_tokens else limit
    errors: list[str] = []
    for attempt in range(1, attempts + 1):
        text = prompt if not errors else f"{prompt}\n\nYour last answer was invalid: {errors}"
        response = provider.complete(
            LlmRequest(
                prompt=text,
                tier="lite",
                model=config.model_for("lite"),
                schema=schema,
                max_tokens=limit,
                pipeline="_router",
                step=step,
                attempt=attempt,
            )
        )
        value, errors = parse_json(answer_of(response))
        errors = errors or schema_errors(value, schema)
        if not errors:
            return value, []
    return None, errors
