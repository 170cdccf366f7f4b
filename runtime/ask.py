"""A run request from the command line turned into a RunResult.

Gathers what a command needs — the loaded APP, its config, the provider, the inputs from
``--input``/``--input-json`` (or, after routing, from the request) — and hands them to the
router, the runner and host delegation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.app.cache import cached_table
from skill2app.runtime.app.config import Config, load_config, state_home
from skill2app.runtime.app.model import App, load_app
from skill2app.runtime.errors import ProviderNotConfigured, UsageError
from skill2app.runtime.providers import make_provider
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.records.result import Position, RunResult
from skill2app.runtime.run.inputs import caller_path, parse_pairs, read_input_json
from skill2app.runtime.run.runner import begin, checked


def gather_inputs(
    declared: dict[str, str], pairs: list[str], input_json: str | None, stdin_text: str | None
) -> dict[str, Any]:
    """``--input-json`` first, then each ``--input key=value`` on top; relative paths made
    absolute from where app-run was started (``caller_path``)."""
    values: dict[str, Any] = {}
    if input_json:
        given = read_input_json(input_json, stdin_text)
        values.update({k: caller_path(k, v, named_only=True) for k, v in given.items()})
    values.update({k: caller_path(k, v) for k, v in parse_pairs(pairs, declared).items()})
    return values


def execute(
    app_dir: Path,
    pipeline: str,
    *,
    pairs: list[str],
    input_json: str | None = None,
    stdin_text: str | None = None,
    provider: str | None = None,
    answers: str | None = None,
    listener: Callable[[dict[str, Any]], None] | None = None,
    delegate: bool = True,
) -> RunResult:
    """Run ``pipeline``; with no provider and ``delegate``, llm steps pause for the host."""
    app = load_app(app_dir)
    declared = checked(app, pipeline, state_home()).inputs
    inputs = gather_inputs(declared, pairs, input_json, stdin_text)
    config = load_config(app.root, provider=provider, answers=answers)
    return _run(app, pipeline, inputs, config, make_provider(config), listener, delegate)


def _run(
    app: App,
    pipeline: str,
    inputs: dict[str, Any],
    config: Config,
    llm: Provider | None,
    listener: Callable[[dict[str, Any]], None] | None,
    delegate: bool,
) -> RunResult:
    """Run from the constructor on; a run paused for the host agent is kept as a session."""
    home = state_home()
    run = begin(
        app,
        pipeline,
        inputs,
        config=config,
        provider=llm,
        home=home,
        listener=listener,
        delegate=delegate,
    )
    result = run.advance(Position())
    if result.pause is not None:
        from skill2app.runtime.host.delegation import save  # only a paused run needs it

        return save(home, result, run)
    return result


@dataclass
class Answer:
    """What `app-run APP "request"` did: ran a pipeline, or fell back to Skill mode."""

    decision: dict[str, Any]
    run: RunResult | None = None
    fallback: dict[str, Any] | None = None  # Skill mode handed to the host agent
    agent: dict[str, Any] | None = None  # Skill mode run by app-run's own agent loop


def listing(app_dir: Path) -> list[dict[str, Any]]:
    """`app-run list`: the routing table."""
    app = load_app(app_dir)
    return cached_table(app, state_home())


def _said(request: str) -> None:
    if not request.strip():
        raise UsageError(
            "the request is empty", hint='say what you want: app-run APP_DIR "summarise sales.csv"'
        )


def decide(
    app_dir: Path, request: str, *, strategy: str | None, provider: str | None, answers: str | None
) -> dict[str, Any]:
    """`app-run route`: the routing decision only."""
    from skill2app.runtime.routing.router import decision_dict, route

    _said(request)
    app = load_app(app_dir)
    cached_table(app, state_home())  # what routing reads, unparsed if unchanged
    config = load_config(app.root, provider=provider, answers=answers, routing=strategy)
    return decision_dict(
        route(app, request, strategy=config.routing, config=config, provider=make_provider(config))
    )


def ask(
    app_dir: Path,
    request: str,
    *,
    pairs: list[str],
    input_json: str | None = None,
    stdin_text: str | None = None,
    strategy: str | None = None,
    provider: str | None = None,
    answers: str | None = None,
    listener: Callable[[dict[str, Any]], None] | None = None,
    delegate: bool = True,
    agent: bool = False,
    max_turns: int = 12,
) -> Answer:
    """Route ``request``, fill the pipeline's inputs, run it — or fall back to Skill mode."""
    from skill2app.runtime.host.skill_mode import fallback, run_with_agent
    from skill2app.runtime.routing.extraction import extract_inputs
    from skill2app.runtime.routing.router import decision_dict, route

    _said(request)
    app = load_app(app_dir)
    cached_table(app, state_home())
    config = load_config(app.root, provider=provider, answers=answers, routing=strategy)
    llm = make_provider(config)
    decision = route(app, request, strategy=config.routing, config=config, provider=llm)
    summary = decision_dict(decision)
    if decision.pipeline is None and agent:
        if llm is None:
            raise ProviderNotConfigured(
                "--agent needs an LLM provider and none is configured",
                hint="set ANTHROPIC_API_KEY, or drop --agent to hand Skill mode to your agent",
            )
        done = run_with_agent(
            app,
            request,
            config=config,
            provider=llm,
            home=state_home(),
            listener=listener,
            max_turns=max_turns,
        )
        return Answer(summary, agent={**done, "routing": summary})
    if decision.pipeline is None:
        return Answer(summary, fallback=fallback(app, request, summary))
    declared = checked(app, decision.pipeline, state_home()).inputs
    explicit = gather_inputs(declared, pairs, input_json, stdin_text)
    inputs = extract_inputs(request, declared, explicit, provider=llm, config=config)
    if listener is not None:  # before the run's own progress
        listener({"event": "routed", **summary})
    run = _run(app, decision.pipeline, inputs, config, llm, listener, delegate)
    return Answer(summary, run=run)
