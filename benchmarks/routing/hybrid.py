"""The llm-using strategies, measured through the real routing path (``router.decide``):
``hybrid`` settles what embedded is unsure of with an LLM.  With ``Oracle`` in the LLM's place
— always right when the labelled pipeline is on the short list it is offered, null otherwise —
it is the ceiling of hybrid: the most it can reach with a perfect model.  With a provider
(``run.py --provider local|anthropic``) it is a measurement."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from dataset import Request
from latency import percentile
from twoway import metrics

from skill2app.runtime.routing import EmbeddedRouter, RouteDecision, RouteEntry


class Oracle:
    """A perfect LLM for the ceiling row: it answers the labelled pipeline when the prompt
    offers it, and null otherwise (an out-of-scope request, or a shortlist that missed)."""

    name = "oracle"

    def __init__(self) -> None:
        self.expected: str | None = None

    def complete(self, request: Any) -> Any:
        from skill2app.runtime.providers.base import LlmResponse

        offered = request.schema["properties"]["pipeline"]["enum"]
        pick = self.expected if self.expected in offered else None
        return LlmResponse(text="", data={"pipeline": pick, "reason": "the label"})


def with_llm(
    tables: dict[str, list[RouteEntry]],
    requests: list[Request],
    split: str,
    provider: Any,
    model: str,
    strategies: Sequence[str] = ("llm", "hybrid"),
    routers: dict[str, EmbeddedRouter] | None = None,
) -> dict[str, dict]:
    """Rows for the llm-using strategies: runtime.router.decide with ``provider``, request by
    request (the row is named ``<strategy>`` or, for the oracle, ``<strategy> ceiling``)."""
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.app.model import TIERS
    from skill2app.runtime.errors import AppRunError, ProviderNotConfigured
    from skill2app.runtime.routing.router import decide

    config = Config(provider="none", models=dict.fromkeys(TIERS, model))
    label = "a perfect LLM" if isinstance(provider, Oracle) else f"{provider.name}:{model}"
    calls = [0]
    complete = provider.complete

    def counted(request: Any) -> Any:
        calls[0] += 1
        return complete(request)

    provider.complete = counted
    chosen = [r for r in requests if split == "all" or r.split == split]
    routers = routers or {app: EmbeddedRouter(entries) for app, entries in tables.items()}
    out: dict[str, dict] = {}
    for strategy in strategies:
        calls[0] = 0
        rows, seconds, failures = [], [], []
        for request in chosen:
            if isinstance(provider, Oracle):
                provider.expected = request.expected
            start = time.perf_counter()
            try:
                decision = decide(
                    tables[request.app],
                    request.text,
                    strategy=strategy,
                    config=config,
                    provider=provider,
                    embedded=routers[request.app],
                )
            except ProviderNotConfigured as exc:  # no key, no model: nothing to measure
                raise SystemExit(f"error: {exc.message} — {exc.hint}") from None
            except AppRunError as exc:  # e.g. a prompt too long for a local model: a no match
                failures.append(exc.message)
                decision = RouteDecision(None, 0.0, strategy, (), exc.message)
            seconds.append(time.perf_counter() - start)
            first = decision.candidates[0].pipeline if decision.candidates else None
            rows.append((request, decision.pipeline, first or ""))
        row = f"{strategy} ceiling" if isinstance(provider, Oracle) else strategy
        out[row] = {
            **metrics(rows),
            "by_app": _by_app(rows, tables),
            "llm": label,
            "calls": f"{calls[0]} LLM calls ({len(failures)} failed), "
            f"p50 {percentile(seconds, 50) * 1000:.0f} ms/request",
        }
    return out


def _by_app(
    rows: Sequence[tuple[Request, str | None, str]], tables: dict[str, list[RouteEntry]]
) -> dict[str, dict[str, object]]:
    keys = ("top1", "wrong", "nomatch_precision", "nomatch_recall", "in_scope", "out_of_scope")
    out = {}
    for app, entries in sorted(tables.items(), key=lambda item: len(item[1])):
        m = metrics([r for r in rows if r[0].app == app])
        out[f"{app} ({len(entries)} pipelines)"] = {k: m[k] for k in keys}
    return out
