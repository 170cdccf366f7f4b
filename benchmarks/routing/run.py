"""Routing benchmark: accuracy, no-match precision/recall and latency of the routers.

    python benchmarks/routing/run.py              # report on TEST with the shipped defaults
    python benchmarks/routing/run.py --json       # the same as JSON on stdout
    python benchmarks/routing/run.py --calibrate  # search threshold/margin/lexical weight on DEV

Strategies: ``embedded`` (runtime.routing.EmbeddedRouter, its shipped defaults), the ``bm25``
baseline (bm25.py, threshold and margin calibrated on DEV in this same run), and ``hybrid
ceiling``: the real hybrid decision path (runtime.router.decide) with an oracle for an LLM that
is always right when the labelled pipeline is on the shortlist it is offered, so the most hybrid
can reach with a perfect model.  ``--provider local|anthropic [--model M]`` adds measured
``llm`` and ``hybrid`` rows with that provider (needs the model, or a key).

Metrics over in-scope requests: ``top1`` = routed to the expected pipeline (no match counts
as a miss); ``ranked_top1`` = expected pipeline ranked first, threshold ignored; ``wrong`` =
routed to another pipeline.  Over decisions: ``nomatch_precision`` = share of no-match
answers that were out of scope; ``nomatch_recall`` = share of out-of-scope requests answered
no match.  Latency: one ``route()`` call per request, after warm-up, on one core.
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bm25 import Bm25Router  # noqa: E402
from dataset import KINDS, Request, load_requests, load_tables  # noqa: E402
from latency import latency, percentile  # noqa: E402

from skill2app.runtime.routing import Candidate, EmbeddedRouter, RouteDecision, RouteEntry  # noqa: E402
from skill2app.runtime.routing.models import embedded as embedded_module  # noqa: E402

# Calibration: among settings with DEV no-match recall >= RECALL_TARGET, the best DEV
# top1 - wrong.  A wrong pipeline costs more than a no match (Skill mode still serves it), so
# a right route must not be bought with a wrong one.
RECALL_TARGET = 0.9
THRESHOLDS = [round(0.2 + 0.01 * i, 2) for i in range(61)]
MARGINS = [0.0, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08]
LEXICAL_WEIGHTS = [0.5, 0.6, 0.7, 0.8, 1.0]
CJK_WEIGHTS = [0.6, 0.8, 1.0, 1.2]
SENTENCE_SHARES = [0.3, 0.5, 0.7, 1.0]
SUPPORTS = [0.0, 0.25, 0.375, 0.5]  # share of a pipeline's second-best phrase in its score


@dataclass(frozen=True)
class Ranked:
    request: Request
    first: Candidate
    second: Candidate | None

    def decide(self, threshold: float, margin: float) -> str | None:
        if self.first.score < threshold:
            return None
        if self.second is not None and self.first.score - self.second.score < margin:
            return None
        return self.first.pipeline


def rank_all(requests: Sequence[Request], routers: dict[str, object]) -> list[Ranked]:
    out = []
    for request in requests:
        ranked = routers[request.app].candidates(request.text)  # type: ignore[attr-defined]
        out.append(Ranked(request, ranked[0], ranked[1] if len(ranked) > 1 else None))
    return out


def metrics(rows: Sequence[tuple[Request, str | None, str]]) -> dict[str, object]:
    """rows: (request, routed pipeline or None, first-ranked pipeline)."""
    inscope = [r for r in rows if r[0].expected is not None]
    oos = [r for r in rows if r[0].expected is None]
    nomatch = [r for r in rows if r[1] is None]
    hit = sum(r[1] == r[0].expected for r in inscope)
    by_kind = {}
    for kind in KINDS:
        of_kind = [r for r in rows if r[0].kind == kind]
        ok = sum((r[1] is None) if kind == "oos" else (r[1] == r[0].expected) for r in of_kind)
        by_kind[kind] = f"{ok}/{len(of_kind)}"
    return {
        "n": len(rows),
        "in_scope": len(inscope),
        "out_of_scope": len(oos),
        "top1": _ratio(hit, len(inscope)),
        "ranked_top1": _ratio(sum(r[2] == r[0].expected for r in inscope), len(inscope)),
        "wrong": _ratio(sum(r[1] not in (None, r[0].expected) for r in inscope), len(inscope)),
        "nomatch_precision": _ratio(sum(r[0].expected is None for r in nomatch), len(nomatch)),
        "nomatch_recall": _ratio(sum(r[1] is None for r in oos), len(oos)),
        "by_kind": by_kind,
    }


def _ratio(num: int, den: int) -> float:
    return round(num / den, 4) if den else 0.0


def objective(m: dict[str, Any]) -> tuple[bool, float, float]:
    """What calibration maximises: no-match recall on target first, then top1 - wrong."""
    recall, top1, wrong = (float(m[k]) for k in ("nomatch_recall", "top1", "wrong"))
    return (recall >= RECALL_TARGET, top1 - wrong, recall)


def calibrate(
    ranked: Sequence[Ranked],
    thresholds: Sequence[float] = THRESHOLDS,
    margins: Sequence[float] = MARGINS,
) -> tuple[float, float, dict[str, object]]:
    """Best (threshold, margin) on these rows: max top1 - wrong with no-match recall >= target."""
    best: tuple[tuple[float, float, float], float, float, dict[str, object]] | None = None
    for threshold in thresholds:
        for margin in margins:
            rows = [(r.request, r.decide(threshold, margin), r.first.pipeline) for r in ranked]
            m = metrics(rows)
            key = objective(m)
            if best is None or key > best[0]:
                best = (key, threshold, margin, m)
    assert best is not None
    return best[1], best[2], best[3]


def embedded_routers(tables: dict[str, list[RouteEntry]], **kw: float) -> dict[str, object]:
    return {app: EmbeddedRouter(entries, **kw) for app, entries in tables.items()}


def run_calibration(tables: dict[str, list[RouteEntry]], requests: list[Request]) -> dict:
    dev = [r for r in requests if r.split == "dev"]
    test = [r for r in requests if r.split == "test"]
    results = []
    for weight, cjk_weight, share, support in itertools.product(
        LEXICAL_WEIGHTS, CJK_WEIGHTS, SENTENCE_SHARES, SUPPORTS
    ):
        routers = embedded_routers(
            tables,
            lexical_weight=weight,
            cjk_weight=cjk_weight,
            sentence_share=share,
            support=support,
        )
        threshold, margin, dev_metrics = calibrate(rank_all(dev, routers))
        results.append(
            {
                "lexical_weight": weight,
                "cjk_weight": cjk_weight,
                "sentence_share": share,
                "support": support,
                "threshold": threshold,
                "margin": margin,
                "dev": dev_metrics,
            }
        )
    best = max(results, key=lambda r: objective(r["dev"]))
    routers = embedded_routers(
        tables,
        lexical_weight=best["lexical_weight"],
        cjk_weight=best["cjk_weight"],
        sentence_share=best["sentence_share"],
        support=best["support"],
    )
    test_rows = [
        (r.request, r.decide(best["threshold"], best["margin"]), r.first.pipeline)
        for r in rank_all(test, routers)
    ]
    return {"grid": results, "chosen": best, "test_with_chosen": metrics(test_rows)}


def evaluate(tables: dict[str, list[RouteEntry]], requests: list[Request], split: str) -> dict:
    chosen = [r for r in requests if split == "all" or r.split == split]
    dev = [r for r in requests if r.split == "dev"]
    embedded = embedded_routers(tables)
    rows = []
    for request in chosen:
        decision = embedded[request.app].route(request.text)  # the real decision path
        rows.append((request, decision.pipeline, decision.candidates[0].pipeline))
    bm25 = {app: Bm25Router(entries) for app, entries in tables.items()}
    dev_ranked = rank_all(dev, bm25)
    top = max(r.first.score for r in dev_ranked)  # BM25 scores are unbounded: scale the grid
    threshold, margin, _ = calibrate(
        dev_ranked,
        [round(top * i / 100, 3) for i in range(101)],
        [round(top * m, 3) for m in MARGINS],
    )
    bm25_rows = [
        (r.request, r.decide(threshold, margin), r.first.pipeline) for r in rank_all(chosen, bm25)
    ]
    return {
        "embedded": {
            **metrics(rows),
            "by_app": _by_app(rows, tables),
            "threshold": embedded_module.DEFAULT_THRESHOLD,
            "margin": embedded_module.DEFAULT_MARGIN,
            "lexical_weight": embedded_module.DEFAULT_LEXICAL_WEIGHT,
            "cjk_weight": embedded_module.DEFAULT_CJK_WEIGHT,
            "sentence_share": embedded_module.DEFAULT_SENTENCE_SHARE,
            "support": embedded_module.DEFAULT_SUPPORT,
        },
        "bm25": {
            **metrics(bm25_rows),
            "by_app": _by_app(bm25_rows, tables),
            "threshold": threshold,
            "margin": margin,
        },
    }


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
    routers = embedded_routers(tables)
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
                    embedded=routers[request.app],  # type: ignore[arg-type]
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
            "threshold": label,
            "margin": f"{calls[0]} LLM calls ({len(failures)} failed), "
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


def report(result: dict) -> str:
    lines = [f"routing benchmark - split {result['split']}, python {result['python']}", ""]
    head = f"{'strategy':10} {'top1':>6} {'ranked':>6} {'wrong':>6} {'nm-prec':>7} {'nm-rec':>6}"
    lines += [head + "  by kind (paraphrase typo zh lang oos)"]
    for name, m in result["accuracy"].items():
        kinds = " ".join(m["by_kind"][k] for k in KINDS)
        lines.append(
            f"{name:10} {m['top1']:6.3f} {m['ranked_top1']:6.3f} {m['wrong']:6.3f} "
            f"{m['nomatch_precision']:7.3f} {m['nomatch_recall']:6.3f}  {kinds}"
        )
        lines.append(
            f"{'':10} threshold {m['threshold']} margin {m['margin']}, "
            f"{m['in_scope']} in scope + {m['out_of_scope']} out of scope"
        )
        for app, a in m["by_app"].items():
            lines.append(
                f"{'':10} {app:26} top1 {a['top1']:.3f}  wrong {a['wrong']:.3f}  "
                f"nm-prec {a['nomatch_precision']:.3f}  nm-rec {a['nomatch_recall']:.3f}  "
                f"({a['in_scope']}+{a['out_of_scope']})"
            )
    lat = result["latency"]
    lines += [
        "",
        f"embedded cold start (fresh process: import, model load, 100-pipeline table, one "
        f"request): {lat['cold_start_ms']['embedded']} ms "
        f"(first ever, writing the model copy: {lat['cold_start_ms']['embedded_first_ever']} ms)",
        f"model load alone: static {lat['model_load_ms']['static']} ms, sentence encoder "
        f"{lat['model_load_ms']['sentence']} ms (from its copy)",
    ]
    for key, per in result["latency"].items():
        if key.endswith("_pipelines"):
            for name, t in per.items():
                lines.append(
                    f"{key:14} {name:9} p50 {t['p50_ms']:6.3f} ms  p95 {t['p95_ms']:6.3f} ms"
                    f"  (cpu p50 {t['cpu_p50_ms']:.3f}, p95 {t['cpu_p95_ms']:.3f});"
                    f" table built in {t['build_ms']} ms"
                )
    emb, base = result["accuracy"]["embedded"], result["accuracy"]["bm25"]
    lines.append("")
    lines.append(
        f"embedded / bm25: top1 x{emb['top1'] / max(base['top1'], 1e-9):.2f}, "
        f"no-match recall x{emb['nomatch_recall'] / max(base['nomatch_recall'], 1e-9):.2f}"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser.add_argument("--calibrate", action="store_true", help="search defaults on DEV")
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument(
        "--provider",
        choices=("local", "anthropic"),
        help="also measure the llm and hybrid strategies with this provider",
    )
    parser.add_argument(
        "--model",
        help="model for --provider (default: gemma3-270m for local, the lite tier's for anthropic)",
    )
    args = parser.parse_args(argv)
    tables = load_tables()
    requests = load_requests(tables)
    if args.calibrate:
        result = run_calibration(tables, requests)
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    result = {
        "split": args.split,
        "python": platform.python_version(),
        "requests": {s: sum(r.split == s for r in requests) for s in ("dev", "test")},
        "accuracy": evaluate(tables, requests, args.split),
    }
    ceiling = with_llm(tables, requests, args.split, Oracle(), "oracle", ("hybrid",))
    result["accuracy"].update(ceiling)
    if args.provider:
        from skill2app.runtime.app.config import DEFAULT_MODELS, Config
        from skill2app.runtime.app.model import TIERS
        from skill2app.runtime.providers import make_provider

        model = args.model or (
            "gemma3-270m" if args.provider == "local" else DEFAULT_MODELS["lite"]
        )
        config = Config(provider=args.provider, models=dict.fromkeys(TIERS, model))
        provider = make_provider(config)
        result["accuracy"].update(with_llm(tables, requests, args.split, provider, model))
    result |= {
        "latency": latency(tables, [r.text for r in requests]),
    }
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
