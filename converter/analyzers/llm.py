"""The llm analyzer: the reasoning tier proposes the plan; the plan's checks keep it honest.

One call per attempt, on the reasoning tier with extended thinking, asking for the plan in
structured output (``ANSWER_SCHEMA``).  The prompt (``llm_prompt``) holds the conversion rules,
what each part of the plan means, the inventory and the skill's documents, summarised when they
are too large.  The answer is turned into a plan mapping, validated against the plan's JSON
Schema and ``check_plan`` (programs, subcommands and flags exist, values fit choices, names are
unique, references resolve); on problems the next attempt lists them with the previous answer.
The answer's form and its way back to a plan are in ``llm_answer``.

The provider is app-run's (``runtime.config``): Anthropic when ANTHROPIC_API_KEY is set, the
models and max_tokens of the reasoning tier from its configuration.  The request is named
``_convert/analyze``, so a scripted provider (APP_RUN_PROVIDER=scripted) replays answers kept
under that key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skill2app.converter.analyzers.analysis import Analysis, Progress
from skill2app.converter.analyzers.llm_answer import ANSWER_SCHEMA, accept
from skill2app.converter.analyzers.llm_prompt import BUDGET_TOKENS, SYSTEM, gather, user_prompt
from skill2app.converter.errors import AnalyzerError
from skill2app.converter.plan.model import Plan

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.providers.base import LlmResponse, Provider

MAX_ATTEMPTS = 3
PIPELINE, STEP = "_convert", "analyze"  # how the request is named (scripted answers, records)
SHOWN_ERRORS = 5  # problems per attempt named in the final error


def analyze(inventory: Inventory, **options: Any) -> Plan:
    """The plan the model proposes for ``inventory``; ``options`` as ``analyze_with_usage``."""
    return analyze_with_usage(inventory, **options).plan


def analyze_with_usage(
    inventory: Inventory,
    *,
    provider: Provider | None = None,
    config: Config | None = None,
    progress: Progress | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    budget_tokens: int = BUDGET_TOKENS,
) -> Analysis:
    """Ask the reasoning tier for a plan, up to ``max_attempts`` times until it passes its
    checks.  ``provider`` and ``config`` default to app-run's configuration (an Anthropic key in
    ANTHROPIC_API_KEY); ``progress`` gets one line before and one after each call."""
    config, provider = _setup(provider, config)
    material = gather(inventory, budget_tokens)
    model = config.model_for("reasoning")
    usage = {"input_tokens": 0, "output_tokens": 0}
    failures: list[list[str]] = []
    previous: Any = None
    for attempt in range(1, max_attempts + 1):
        _tell(progress, f"analysing {material.skill} with {model} (attempt {attempt})…")
        prompt = user_prompt(
            material, problems=failures[-1] if failures else None, previous=previous
        )
        response = _ask(provider, config, prompt, attempt)
        for key in usage:
            usage[key] += int(response.usage.get(key, 0))
        answer = _answer(response)
        plan, errors = accept(answer, inventory)
        _tell(progress, _outcome(attempt, response.usage, errors))
        if plan is not None and not errors:
            if material.summarised:
                plan.notes.append(material.note(budget_tokens))
            return Analysis(plan, usage, attempt, response.model or model)
        failures.append(errors)
        previous = answer if answer is not None else response.text
    raise AnalyzerError(
        f"the model's plan failed its checks {len(failures)} times: {_listing(failures)}",
        hint="run again, or use --analyzer heuristic and edit its plan",
    )


def _setup(provider: Provider | None, config: Config | None) -> tuple[Config, Provider]:
    from skill2app.runtime.app.config import load_config
    from skill2app.runtime.errors import AppRunError
    from skill2app.runtime.providers import make_provider

    try:
        config = config if config is not None else load_config(None)
        provider = provider if provider is not None else make_provider(config)
    except AppRunError as exc:
        raise AnalyzerError(
            exc.message, where=exc.where, hint=exc.hint or "check app-run's configuration"
        ) from exc
    if provider is None:
        raise _no_model()
    return config, provider


def _no_model() -> AnalyzerError:
    return AnalyzerError(
        "the llm analyzer needs a model, and no Anthropic API key is configured",
        hint="set ANTHROPIC_API_KEY, or use --analyzer heuristic",
    )


def _ask(provider: Provider, config: Config, prompt: str, attempt: int) -> LlmResponse:
    from skill2app.runtime.errors import AppRunError, ProviderNotConfigured
    from skill2app.runtime.providers.base import LlmRequest

    request = LlmRequest(
        prompt=prompt,
        tier="reasoning",
        model=config.model_for("reasoning"),
        schema=ANSWER_SCHEMA,
        max_tokens=config.max_tokens.get("reasoning", 32_000),
        thinking=True,
        system=SYSTEM,
        pipeline=PIPELINE,
        step=STEP,
        attempt=attempt,
    )
    try:
        return provider.complete(request)
    except ProviderNotConfigured as exc:
        raise _no_model() from exc
    except AppRunError as exc:
        raise AnalyzerError(
            f"asking the model failed: {exc.message}", where=exc.where, hint=exc.hint
        ) from exc


def _answer(response: LlmResponse) -> Any:
    if response.data is not None:
        return response.data
    from skill2app.runtime.providers.anthropic import parse_json_answer  # the SDK stays unimported

    return parse_json_answer(response.text)


def _tell(progress: Progress | None, message: str) -> None:
    if progress is not None:
        progress(message)


def _outcome(attempt: int, usage: dict[str, int], errors: list[str]) -> str:
    tokens = (
        f"{usage.get('input_tokens', 0):,} input + {usage.get('output_tokens', 0):,} output tokens"
    )
    if not errors:
        return f"attempt {attempt}: plan accepted ({tokens})"
    return f"attempt {attempt}: {len(errors)} problem(s) in the plan ({tokens})"


def _listing(failures: list[list[str]]) -> str:
    parts = []
    for number, errors in enumerate(failures, start=1):
        shown = "; ".join(errors[:SHOWN_ERRORS])
        more = f" (+{len(errors) - SHOWN_ERRORS} more)" if len(errors) > SHOWN_ERRORS else ""
        parts.append(f"attempt {number}: {shown}{more}")
    return " | ".join(parts)
