"""Routing latency: one `route()` call per request after warm-up, and a fresh process's cold
start (import, model loads, a 100-pipeline table, one request), for the embedded router and
the BM25 baseline.  Used by run.py."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bm25 import Bm25Router
from dataset import load_tables

from skill2app.runtime.routing import EmbeddedRouter, RouteEntry
from skill2app.runtime.routing.models.encoder import load_encoder
from skill2app.runtime.routing.models.sentence import load_sentence_encoder

LATENCY_TABLES = {"10": "devflow", "30": "shopdesk", "100": "workhub"}


def latency(tables: dict[str, list[RouteEntry]], texts: list[str]) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as folder:
        models = Path(folder)
        first, again = _cold_start_ms(models), _cold_start_ms(models)
        load_encoder.cache_clear()
        load_sentence_encoder.cache_clear()
        start = time.perf_counter()
        load_encoder()
        static_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        load_sentence_encoder(models)
        sentence_ms = (time.perf_counter() - start) * 1000
        out: dict[str, dict] = {
            "cold_start_ms": {"embedded": again, "embedded_first_ever": first},
            "model_load_ms": {"static": round(static_ms, 1), "sentence": round(sentence_ms, 1)},
        }
        builders: dict[str, Callable[[list[RouteEntry]], object]] = {
            "embedded": lambda entries: EmbeddedRouter(entries, cache_dir=models),
            "bm25": Bm25Router,
        }
        for size, app in LATENCY_TABLES.items():
            for name, build in builders.items():
                start = time.perf_counter()
                router = build(tables[app])
                built_ms = (time.perf_counter() - start) * 1000
                call: Callable[[str], object] = getattr(router, "route", None) or (
                    router.candidates  # type: ignore[attr-defined]
                )
                out.setdefault(f"{size}_pipelines", {})[name] = {
                    "build_ms": round(built_ms, 1),
                    **_time_calls(call, texts),
                }
    return out


_COLD_START = """
import json, sys, time
from pathlib import Path
start = time.perf_counter()
from skill2app.runtime.routing import EmbeddedRouter, RouteEntry
entries = [RouteEntry(**e) for e in json.loads(sys.stdin.read())]
models = Path(sys.argv[1])
EmbeddedRouter(entries, cache_dir=models).route("book a flight to Berlin")
print((time.perf_counter() - start) * 1000)
"""


def _cold_start_ms(models: Path) -> float:
    """A fresh process: import skill2app.runtime.routing, load the models, embed 100
    pipelines, route once.

    ``models`` is the sentence encoder's cache folder: the first process ever writes the
    model's plain copy there (as `app-run` does under APP_RUN_HOME), later ones load it.
    """
    entries = [
        {"name": e.name, "description": e.description, "triggers": list(e.triggers)}
        for e in load_tables()[LATENCY_TABLES["100"]]
    ]
    done = subprocess.run(
        [sys.executable, "-c", _COLD_START, str(models)],
        input=json.dumps(entries),
        capture_output=True,
        text=True,
        check=True,
    )
    return round(float(done.stdout), 1)


def _time_calls(call: Callable[[str], object], texts: list[str]) -> dict[str, float]:
    """Wall-clock and CPU p50/p95 of one call per text, the median of 3 passes.

    On a shared 2-core machine a busy neighbour preempts the process for a scheduler slice
    (~4-8 ms) now and then; the CPU-time figures do not count that wait.
    """
    for text in texts[:20]:
        call(text)
    passes = []
    for _ in range(3):
        wall, cpu = [], []
        for text in texts:
            start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
            call(text)
            cpu.append((time.process_time_ns() - start_cpu) / 1e6)
            wall.append((time.perf_counter_ns() - start) / 1e6)
        passes.append(
            [percentile(wall, 50), percentile(wall, 95), percentile(cpu, 50), percentile(cpu, 95)]
        )
    keys = ("p50_ms", "p95_ms", "cpu_p50_ms", "cpu_p95_ms")
    return {k: round(statistics.median(p[i] for p in passes), 3) for i, k in enumerate(keys)}


def percentile(samples: list[float], percent: int) -> float:
    return statistics.quantiles(samples, n=100)[percent - 1]
