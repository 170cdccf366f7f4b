"""The routing benchmark (benchmarks/routing): the hybrid ceiling runs the real hybrid decision
path with an oracle, a provider's failures are counted or stop it, the three-outcome metrics
count what they say, and calibration searches the router's own decision path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.routing import RouteEntry

HERE = Path(__file__).resolve().parents[1] / "benchmarks" / "routing"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"routing_benchmark_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run() -> ModuleType:
    module = _module("run")  # puts its folder on sys.path: hybrid, outcomes, dataset
    import hybrid

    module.hybrid = hybrid
    return module


TABLE = {
    "shop": [
        RouteEntry("refund", "Refund an order", ("I want a refund", "refund this order")),
        RouteEntry("track", "Track a parcel", ("where is my parcel", "track my order")),
        RouteEntry("invoice", "Issue an invoice", ("I need an invoice",)),
    ]
}


def requests(run: ModuleType) -> list:
    from dataset import Request  # run.py put its folder on sys.path

    texts = [
        ("I want a refund for my order", "refund"),
        ("where is my parcel now", "track"),
        ("money for the broken thing", "refund"),
        ("what is the capital of Peru", None),
    ]
    return [Request("shop", text, expected, "paraphrase") for text, expected in texts]


def test_the_ceiling_uses_the_real_hybrid_path(run: ModuleType) -> None:
    hybrid = run.hybrid
    rows = hybrid.with_llm(TABLE, requests(run), "all", hybrid.Oracle(), "oracle", ("hybrid",))
    ceiling = rows["hybrid ceiling"]
    assert ceiling["llm"] == "a perfect LLM"
    # embedded is sure of the first two and of the last (no LLM call); the oracle settles the
    # one it is unsure of
    assert ceiling["calls"].startswith("1 LLM calls (0 failed)")
    assert (ceiling["top1"], ceiling["wrong"], ceiling["nomatch_recall"]) == (1.0, 0.0, 1.0)


class Failing:
    name = "failing"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def complete(self, request: object) -> object:
        raise self.error


def test_provider_errors_are_counted_and_a_missing_provider_stops(run: ModuleType) -> None:
    with_llm = run.hybrid.with_llm
    rows = with_llm(TABLE, requests(run), "all", Failing(ProviderError("boom")), "m", ("llm",))
    assert "(4 failed)" in rows["llm"]["calls"] and rows["llm"]["top1"] == 0.0
    with pytest.raises(SystemExit, match="no key"):
        with_llm(
            TABLE, requests(run), "all", Failing(ProviderNotConfigured("no key")), "m", ("llm",)
        )


def test_the_converted_apps_benchmark_routes_every_labelled_request(
    run: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """converted.py loads the example APPs as app-run does; its labels name real pipelines,
    and what it lists as missed is exactly what was not routed as labelled."""
    import yaml

    monkeypatch.setenv("APP_RUN_HOME", str(tmp_path))
    spec = importlib.util.spec_from_file_location("routing_converted", HERE / "converted.py")
    assert spec is not None and spec.loader is not None
    converted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(converted)
    result = converted.evaluate()
    labelled = yaml.safe_load((HERE / "converted.yaml").read_text(encoding="utf-8"))
    assert set(result["by_app"]) == set(labelled) == {p.name for p in converted.APPS.iterdir()}
    total = sum(len(items) for by in labelled.values() for items in by.values())
    assert result["all"]["n"] == total
    hits = sum(
        int(m["by_kind"][k].split("/")[0]) for m in result["by_app"].values() for k in m["by_kind"]
    )
    assert len(result["misses"]) == total - hits
    assert all(m["routed"] != m["expected"] for m in result["misses"])
    assert "not routed as labelled" in converted.report(result)


def test_the_three_outcome_metrics_count_what_they_say(run: ModuleType) -> None:
    import outcomes
    from dataset import Request

    from skill2app.runtime.routing import Candidate
    from skill2app.runtime.routing.decision import Policy

    def scored(expected: str | None, *ranked: tuple[str, float]) -> object:
        request = Request("shop", f"request {len(ranked)} {expected}", expected, "paraphrase")
        return outcomes.Scored(request, [Candidate(p, s, "") for p, s in ranked])

    rows = [
        scored("a", ("a", 0.9), ("b", 0.2)),  # match, right
        scored("a", ("b", 0.9), ("a", 0.2)),  # match, wrong
        scored("a", ("b", 0.4), ("a", 0.38)),  # unsure, on the list
        scored("c", ("b", 0.4), ("a", 0.38)),  # unsure, not listed (c is not ranked)
        scored("a", ("a", 0.1), ("b", 0.05)),  # no match: lost
        scored(None, ("a", 0.95), ("b", 0.1)),  # out of scope, matched: a wrong match
        scored(None, ("a", 0.3), ("b", 0.29)),  # out of scope, unsure
        scored(None, ("a", 0.1), ("b", 0.09)),  # out of scope, no match
    ]
    m = outcomes.measure(rows, Policy(match_at=0.6, lead_weight=1.0, none_below=0.2))
    assert (m["in_scope"], m["out_of_scope"]) == (5, 3)
    assert (m["coverage"], m["decided"], m["risk"]) == (0.2, 0.4, round(2 / 3, 4))
    assert (m["unsure"], m["short_list_recall"], m["lost"]) == (0.4, 0.5, 0.2)
    assert (m["no_match_recall"], m["no_match_strict"]) == (round(2 / 3, 4), round(1 / 3, 4))
    assert (m["end_to_end"], m["end_to_end_all"]) == (0.4, 0.5)
    policy, calibrated = outcomes.calibrate_policy(rows[:1] + rows[2:5] + rows[6:])
    assert calibrated["risk"] <= outcomes.RISK_TARGET and calibrated["coverage"] == 0.25
