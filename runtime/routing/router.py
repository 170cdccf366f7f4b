"""Routing a request to one business pipeline, or to none (spec 6.1, step 2).

Strategies:

- ``embedded`` (default): offline multilingual sentence and static embeddings + a lexical
  index (``runtime.routing``); no LLM call, milliseconds.  It answers ``match``, ``no_match``
  or ``unsure`` with a short list (``decision.py``), which the caller chooses from.
- ``llm``: the spec's lite-tier classification — every description and trigger in one prompt,
  a structured answer checked against the real pipeline names.
- ``hybrid``: embedded's ``match`` and ``no_match`` stand; when it is ``unsure``, the LLM
  chooses among its short list, or none.

The requests confirmed for a pipeline before (``memory.py``) are part of the table embedded
routes over, unless ``learn: false``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from skill2app.runtime.app.cache import enabled as cache_enabled
from skill2app.runtime.app.config import STRATEGIES, Config, state_home
from skill2app.runtime.app.model import App, routing_table
from skill2app.runtime.errors import (
    LoadError,
    ProviderError,
    ProviderNotConfigured,
    UsageError,
    Where,
)
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.routing import MATCH, UNSURE, Candidate, RouteDecision, RouteEntry
from skill2app.runtime.run.llm_step import ask_lite

if TYPE_CHECKING:
    from skill2app.runtime.routing import EmbeddedRouter

# The routing answer is a name and a short reason: a model that rambles on is cut off here
# instead of writing up to the lite tier's max_tokens (minutes on a local model).
REASON_CHARS = 200  # checked like the rest of the answer; the prompt asks for a short one
ROUTE_TOKENS = 256

PROMPT = """You route a user's request to ONE pipeline of an application, or to none.

Pipelines (name: description; example requests):
{table}

Request: {request}

Choose the pipeline whose description fits the request. If none fits, choose null: a wrong
pipeline is worse than none. Answer as JSON: {{"pipeline": <name or null>, "reason": "<short>"}}."""


def routing_entries(
    app: App, learned: dict[str, tuple[str, ...]] | None = None
) -> list[RouteEntry]:
    """The table routing reads (with each pipeline's ``learned`` requests); a pipeline that
    cannot be read stops it (it may be the one the request is for, and a sibling would be run
    in its place)."""
    table = routing_table(app)
    for row in table:
        if row.get("error"):
            raise LoadError(
                f"pipeline {row['name']!r} cannot be read, so no request can be routed: "
                f"{row.get('problem', row['error'])}",
                where=Where(row["file"], row["line"]) if row.get("file") else None,
                hint=row.get("hint", ""),
            )
    learned = learned or {}
    return [
        RouteEntry(
            row["name"],
            row["description"],
            tuple(row["triggers"]),
            learned.get(row["name"], ()),
        )
        for row in table
    ]


def learned_examples(app: App, config: Config) -> dict[str, tuple[str, ...]]:
    """The requests confirmed for each pipeline of ``app`` (none with ``learn: false``)."""
    if not config.learn:
        return {}
    from skill2app.runtime.routing.memory import Memory

    return Memory(state_home(), app.root).learned(app.business_names())


def route(
    app: App, request: str, *, strategy: str, config: Config, provider: Provider | None
) -> RouteDecision:
    entries = routing_entries(app, learned_examples(app, config))
    return decide(entries, request, strategy=strategy, config=config, provider=provider)


def decide(
    entries: list[RouteEntry],
    request: str,
    *,
    strategy: str,
    config: Config,
    provider: Provider | None,
    embedded: EmbeddedRouter | None = None,
) -> RouteDecision:
    """Route ``request`` over ``entries`` (``embedded``: an already built router for them)."""
    if strategy not in STRATEGIES:
        raise UsageError(
            f"unknown routing strategy {strategy!r}", hint=f"use {', '.join(STRATEGIES)}"
        )
    if not entries:
        return RouteDecision(None, 0.0, strategy, (), "the APP has no business pipelines")
    if strategy == "llm":
        return llm_route(entries, request, config, _need(provider, "llm routing"))
    if embedded is None:
        from skill2app.runtime.routing import EmbeddedRouter

        models = state_home() / "cache" / "models" if cache_enabled() else None
        embedded = EmbeddedRouter(entries, cache_dir=models)
    decision = embedded.route(request)
    if strategy == "embedded" or decision.decision != UNSURE:
        return _as(decision, strategy)
    if provider is None:
        return _as(decision, "hybrid", note="no provider to settle it")
    # The LLM settles it among the embedded router's short list (the right pipeline is on it for
    # ~95 % of benchmarks/routing's unsure in-scope requests): a short prompt, and an answer
    # that cannot wander off to a pipeline nothing in the request resembles.
    by_name = {e.name: e for e in entries}
    shortlist = [by_name[c.pipeline] for c in decision.candidates if c.pipeline in by_name]
    try:
        settled = llm_route(shortlist or entries, request, config, provider)
    except ProviderError as exc:  # unreachable, out of credit, ...: embedded's answer stands
        return _as(decision, "hybrid", note=f"the LLM failed: {exc.message}")
    return _settled(decision, settled)


def _settled(embedded: RouteDecision, llm: RouteDecision) -> RouteDecision:
    """Hybrid's answer: the LLM's choice, shown with embedded's scores and runners-up (the
    chosen one first); embedded's own decision when the LLM gave no valid answer."""
    if llm.reason.startswith(NO_VALID_ANSWER):
        return _as(embedded, "hybrid", note=llm.reason)
    shortlist = f"embedded's short list of {len(embedded.candidates)}"
    if llm.pipeline is None:
        reason = f"no match: the LLM found none of {shortlist} fits ({llm.reason})"
        return RouteDecision(None, embedded.score, "hybrid", embedded.candidates, reason)
    chosen = [c for c in embedded.candidates if c.pipeline == llm.pipeline]
    others = [c for c in embedded.candidates if c.pipeline != llm.pipeline]
    score = chosen[0].score if chosen else embedded.score
    reason = f'matched "{llm.pipeline}": the LLM chose it from {shortlist} ({llm.reason})'
    candidates = (*chosen, *others)
    return RouteDecision(llm.pipeline, score, "hybrid", candidates, reason, MATCH, confirmed=True)


NO_VALID_ANSWER = "the router model gave no valid answer"


def _as(decision: RouteDecision, strategy: str, note: str = "") -> RouteDecision:
    reason = f"{decision.reason} ({note})" if note else decision.reason
    return RouteDecision(
        decision.pipeline,
        decision.score,
        strategy,
        decision.candidates,
        reason,
        decision.decision,
        decision.confirmed,
    )


def _need(provider: Provider | None, what: str) -> Provider:
    if provider is None:
        raise ProviderNotConfigured(
            f"{what} needs an LLM provider and none is configured",
            hint="set ANTHROPIC_API_KEY, pass --provider scripted --answers FILE, "
            "or use --strategy embedded",
        )
    return provider


def llm_route(
    entries: list[RouteEntry], request: str, config: Config, provider: Provider
) -> RouteDecision:
    names = [e.name for e in entries]
    schema: dict[str, Any] = {
        "type": "object",
        "required": ["pipeline", "reason"],
        "properties": {
            "pipeline": {"enum": [*names, None]},
            "reason": {"type": "string", "maxLength": REASON_CHARS},
        },
        "additionalProperties": False,
    }
    prompt = PROMPT.format(table=_table(entries), request=request)
    value, errors = ask_lite(
        provider, config, prompt, schema, "route", attempts=2, max_tokens=ROUTE_TOKENS
    )
    if not errors:
        chosen = value["pipeline"]
        candidates = (Candidate(chosen, 1.0, value["reason"]),) if chosen else ()
        return RouteDecision(chosen, 1.0 if chosen else 0.0, "llm", candidates, value["reason"])
    return RouteDecision(None, 0.0, "llm", (), f"{NO_VALID_ANSWER}: {errors}")


def _table(entries: list[RouteEntry]) -> str:
    lines = []
    for e in entries:
        lines.append(f"- {e.name}: {e.description}")
        if e.triggers:
            lines.append(f"  examples: {json.dumps(list(e.triggers), ensure_ascii=False)}")
    return "\n".join(lines)


def decision_dict(decision: RouteDecision, app: App | None = None) -> dict[str, Any]:
    """The decision as `route --json` prints it; with ``app``, each candidate's description and
    inputs (as JSON Schema) too, from the routing table."""
    from skill2app.runtime.routing.schema import input_schema, row_declaration

    rows = {row["name"]: row for row in (routing_table(app) if app is not None else [])}
    candidates = []
    for c in decision.candidates:
        item: dict[str, Any] = {"pipeline": c.pipeline, "score": round(c.score, 4), "why": c.why}
        if c.pipeline in rows:
            item["description"] = rows[c.pipeline]["description"]
            item["input"] = input_schema(*row_declaration(rows[c.pipeline].get("input")))
        candidates.append(item)
    return {
        "pipeline": decision.pipeline,
        "decision": decision.decision,
        "score": round(decision.score, 4),
        "strategy": decision.strategy,
        "reason": decision.reason,
        "candidates": candidates,
    }
