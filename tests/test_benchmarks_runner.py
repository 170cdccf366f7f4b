"""The runner benchmark (benchmarks/runner/) runs and returns what its README describes.

A smoke test on a tiny plan: no timing is asserted, only that every part ran and produced
its keys.  The figures themselves come from `python benchmarks/runner/run.py`.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parents[1] / "benchmarks" / "runner"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"runner_benchmark_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)  # run.py puts its folder on sys.path for its siblings
    return module


@pytest.fixture(scope="module")
def run() -> ModuleType:
    return load("run")


def test_loop_gives_each_step_every_previous_output(tmp_path: Path) -> None:
    names = (
        "import json, sys; seen = sorted(json.load(sys.stdin)['steps']); "
        "print(json.dumps({'output': seen}))"
    )
    plan = {
        "cwd": str(tmp_path),
        "input": {"x": 1},
        "steps": [{"name": f"s{i}", "argv": [sys.executable, "-c", names]} for i in (1, 2, 3)],
    }
    output, piped = load("loop").run(plan)
    assert output == ["s1", "s2"]
    assert piped > 0


def test_tiny_plan_produces_every_key(run: ModuleType, tmp_path: Path) -> None:
    plan = run.Plan(
        "tiny",
        chain_steps=(2, 3, 5),
        chain_repetitions=1,
        cold_repetitions=1,
        wide_pipelines=3,
        volume_sizes_mb=(0.01,),
        volume_steps=(1, 2, 5, 10),
        volume_repetitions=1,
        warmup=False,
    )
    results = run.benchmark(plan, tmp_path)

    parts = {"plan", "skipped", "overhead", "cold_start", "volume", "volume_needs"}
    parts |= {"machine", "targets"}
    assert set(results) == parts
    assert {"cpus", "python", "load_start", "load_end", "versions"} <= set(results["machine"])

    variants = results["overhead"]["variants"]
    assert "python" in variants and set(variants) | set(results["skipped"]) >= {"c", "python"}
    for variant in variants.values():
        assert [row["steps"] for row in variant["rows"]] == [2, 3, 5]
        assert {"runner", "loop", "ratio", "extra_ms"} <= set(variant["rows"][0])
        assert variant["marginal_ms_per_step"] is not None

    cold = results["cold_start"]
    assert len(cold["rows"]) == 9 and {"median_s", "min_s", "peak_mb"} <= set(cold["rows"][0])
    assert {"run_ms", "met", "heavy_imports", "top_imports"} <= set(cold)
    assert cold["top_imports"], "python -X importtime gave nothing to parse"

    volume, needs = results["volume"], results["volume_needs"]
    for part in (volume, needs):
        assert [(r["size_mb"], r["steps"]) for r in part["rows"]] == [
            (0.01, n) for n in (1, 2, 5, 10)
        ]
        assert set(part["growth"]) == {
            "runner_seconds",
            "runner_peak_mb",
            "loop_seconds",
            "loop_peak_mb",
        }
    assert volume["fit"]["runner"]["seconds"] is not None  # one size: `needs` rows are collinear
    # all previous outputs: 45 outputs piped into 10 steps; only the previous one: 9
    assert volume["rows"][-1]["piped_mb"] > 4 * needs["rows"][-1]["piped_mb"] > 0

    assert all({"name", "value", "unit", "met"} == set(t) for t in results["targets"])
    json.dumps(results)  # --json prints it
    text = load("report").render(results)
    assert "1. runner overhead" in text and "2. cold start" in text and "3. data volume" in text
    assert "3b. data volume" in text
