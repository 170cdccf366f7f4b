"""The routing benchmark's llm-using rows (benchmarks/routing/run.py): the hybrid ceiling runs the
real hybrid decision path with an oracle, and a provider's failures are counted or stop it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.routing import RouteEntry

HERE = Path(__file__).resolve().parents[1] / "benchmarks" / "routing"


@pytest.fixture(scope="module")
def run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("routing_benchmark_run", HERE / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
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
        ("can you sort out the money for the broken thing", "refund"),
        ("what is the capital of Peru", None),
    ]
    return [Request("shop", text, expected, "paraphrase") for text, expected in texts]


def test_the_ceiling_uses_the_real_hybrid_path(run: ModuleType) -> None:
    rows = run.with_llm(TABLE, requests(run), "all", run.Oracle(), "oracle", ("hybrid",))
    ceiling = rows["hybrid ceiling"]
    assert ceiling["threshold"] == "a perfect LLM"
    # embedded is sure of the first two (no LLM call); the oracle settles the two in the band
    assert ceiling["margin"].startswith("2 LLM calls (0 failed)")
    assert (ceiling["top1"], ceiling["wrong"], ceiling["nomatch_recall"]) == (1.0, 0.0, 1.0)


class Failing:
    name = "failing"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def complete(self, request: object) -> object:
        raise self.error


def test_provider_errors_are_counted_and_a_missing_provider_stops(run: ModuleType) -> None:
    rows = run.with_llm(TABLE, requests(run), "all", Failing(ProviderError("boom")), "m", ("llm",))
    assert "(4 failed)" in rows["llm"]["margin"] and rows["llm"]["top1"] == 0.0
    with pytest.raises(SystemExit, match="no key"):
        run.with_llm(
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
