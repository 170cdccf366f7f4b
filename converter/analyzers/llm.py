"""The llm analyzer: the reasoning tier, through an API, is the analyst; app-convert judges.

One call per attempt, on the reasoning tier with extended thinking, with the prompt the host
analyst gets too (``brief``: the task, what a good APP is, the plan format, the inventory and
documents, the heuristic draft) and the plan's JSON Schema in the system prompt.  The answer is
judged by ``loop.evaluate`` (schema, the skill, a rendered and verified copy: check, smoke,
...); on problems the next attempt lists them, up to ``max_attempts``.  A plan that passes is
shown back once when the skill's own requests do not all land on a pipeline (the review, as
the host analyst gets it); a changed plan that then fails leaves the verified one standing.

The provider is app-run's (``runtime.config``): Anthropic when ANTHROPIC_API_KEY is set, or any
provider it configures; the models and max_tokens of the reasoning tier from its configuration.
The request is named ``_convert/analyze``, so a scripted provider (APP_RUN_PROVIDER=scripted)
replays answers kept under that key.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from skill2app.converter.analyzers.analysis import Analysis, Progress
from skill2app.converter.analyzers.brief import analyst_prompt, material_for, review_prompt
from skill2app.converter.analyzers.host import draft_of
from skill2app.converter.analyzers.llm_prompt import BUDGET_TOKENS
from skill2app.converter.analyzers.loop import (
    MAX_ATTEMPTS,
    Verdict,
    evaluate,
    is_keep,
    parse_answer,
    review_failed,
    shown,
)
from skill2app.converter.errors import AnalyzerError, EmptyAnswer
from skill2app.converter.plan.file import plan_schema, plan_to_yaml
from skill2app.converter.plan.model import Plan

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.providers.base import LlmResponse, Provider

PIPELINE, STEP = "_convert", "analyze"  # how the request is named (scripted answers, records)
SHOWN_ERRORS = 5  # problems per attempt named in the final error


def system_prompt() -> str:
    schema = json.dumps(plan_schema(), ensure_ascii=False, indent=1)
    return (
        "You are the analyst of app-convert: you turn an Agent Skill into an APP plan. "
        "Answer with the plan only, as one JSON object that validates against this JSON "
        f"Schema:\n```json\n{schema}\n```"
    )


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
    readme: str = "README.md",
    review: bool = True,
) -> Analysis:
    """Ask the reasoning tier for a plan, up to ``max_attempts`` times until it passes its
    checks and its rendered APP passes verification.  ``provider`` and ``config`` default to
    app-run's configuration; ``progress`` gets a line before and after each call."""
    config, provider = _setup(provider, config)
    draft = draft_of(inventory)
    material = material_for(inventory, draft, budget_tokens)
    model = config.model_for("reasoning")
    usage = {"input_tokens": 0, "output_tokens": 0}
    failures: list[list[str]] = []
    for attempt in range(1, max_attempts + 1):
        _tell(progress, f"analysing {material.skill} with {model} (attempt {attempt})…")
        prompt = analyst_prompt(
            material,
            draft,
            problems=shown(failures[-1]) if failures else None,
            attempt=attempt,
            max_attempts=max_attempts,
        )
        response = _ask(provider, config, prompt, attempt)
        for key in usage:
            usage[key] += int(response.usage.get(key, 0))
        verdict = _judge(response, inventory, readme, progress)
        _tell(progress, _outcome(attempt, response.usage, verdict.problems))
        if verdict.ok and verdict.plan is not None:
            notes: list[str] = []
            if review and verdict.to_review:
                ask = _Reviewer(provider, config, inventory, readme, progress, usage, attempt + 1)
                verdict, notes = ask.review(verdict, material.skill)
            assert verdict.plan is not None
            if material.summarised:
                verdict.plan.notes.append(material.note(budget_tokens))
            return Analysis(
                verdict.plan,
                usage,
                attempt,
                response.model or model,
                files=verdict.files,
                verification=verdict.verification,
                notes=notes,
                requests=verdict.requests,
            )
        failures.append(verdict.problems)
    raise AnalyzerError(
        f"the model's plan failed its checks {len(failures)} times: {_listing(failures)}",
        hint="run again, or use --analyzer heuristic and edit its plan",
    )


class _Reviewer:
    """One more call after a plan passed: the review (``brief.review_prompt``)."""

    def __init__(
        self,
        provider: Provider,
        config: Config,
        inventory: Inventory,
        readme: str,
        progress: Progress | None,
        usage: dict[str, int],
        attempt: int,
    ) -> None:
        self.provider, self.config, self.inventory = provider, config, inventory
        self.readme, self.progress, self.usage, self.attempt = readme, progress, usage, attempt

    def review(self, verdict: Verdict, skill: str) -> tuple[Verdict, list[str]]:
        """The reviewed plan's verdict, or ``verdict`` with a note when the change failed."""
        assert verdict.plan is not None
        count = len(verdict.requests.findings)
        checked = verdict.verification
        ran = len(checked.calls) if checked is not None else 0
        wrong = len(checked.routing.misrouted) if checked is not None else 0
        _tell(
            self.progress,
            f"review: {count} of the skill's requests land off a pipeline, {wrong} of the "
            f"plan's own phrases are matched to another pipeline, {ran} command lines ran "
            "through stand-ins",
        )
        prompt = review_prompt(
            skill, plan_to_yaml(verdict.plan), verdict.requests, verdict.verification
        )
        response = _ask(self.provider, self.config, prompt, self.attempt)
        for key in self.usage:
            self.usage[key] += int(response.usage.get(key, 0))
        if is_keep(_answer(response)[0]):
            _tell(self.progress, "review: the model keeps its plan")
            return verdict, []
        judged = _judge(response, self.inventory, self.readme, self.progress)
        if judged.ok and judged.plan is not None:
            _tell(self.progress, _outcome(self.attempt, response.usage, []))
            return judged, []
        note = review_failed(judged.problems)
        _tell(self.progress, note)
        return verdict, [note]


def _answer(response: LlmResponse) -> tuple[Any, str]:
    """(the document the model answered, "") or (None, what is wrong with it)."""
    if response.data is not None:
        return response.data, ""
    try:
        return parse_answer(response.text or "")
    except EmptyAnswer:
        return None, "the answer is empty: answer with the plan as one JSON object"


def _judge(
    response: LlmResponse, inventory: Inventory, readme: str, progress: Progress | None
) -> Verdict:
    answer, problem = _answer(response)
    if problem:
        return Verdict(None, [problem])
    return evaluate(answer, inventory, analyzer="llm", readme=readme, progress=progress)


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
        schema=None,
        max_tokens=config.max_tokens.get("reasoning", 32_000),
        thinking=True,
        system=system_prompt(),
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
