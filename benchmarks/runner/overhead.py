"""Runner overhead: `app-run run APP chain` against loop.py on chains of minimal steps.

Both are started as fresh processes and run the same step programs with the same stdin
(every previous output), so the difference is what app-run adds: its start-up, the check
before the run, the lifecycle, the run record, process groups, progress lines.  The marginal
cost of one more step takes start-up out::

    ((runner[big] - runner[mid]) - (loop[big] - loop[mid])) / (big - mid)

with big, mid = the two longest chains (200 and 50 steps in a full run).  Part of that cost
grows with the pipeline's length before any step runs: app-run parses pipeline.yaml and checks
it on every run.  ``load_check_ms`` times exactly that (``load_app`` + ``check_app``) inside
one process, imports done, to split the marginal cost in two.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any

from measure import interleaved, summarize
from workloads import Bench, Chain, Program, write_chain

REFERENCE = {
    "node_runner_ms": {"50": 180.0, "200": 440.0},  # the spec authors' Node runner
    "naive_python_ms_per_step": 0.25,
}
TARGET_MARGINAL_MS = 0.5

# Prints the fastest of 5 load_app + check_app of one pipeline, in ms, after a warm-up.
LOAD_CHECK = """
import sys, time
from pathlib import Path
from skill2app.runtime.app.model import load_app
from skill2app.runtime.app.check import check_app
root, name = Path(sys.argv[1]), sys.argv[2]
times = []
for _ in range(6):
    started = time.perf_counter()
    check_app(load_app(root), only=[name])
    times.append(time.perf_counter() - started)
print(min(times[1:]) * 1000)
"""


def measure_overhead(
    bench: Bench, programs: Sequence[Program], steps: Sequence[int], repetitions: int
) -> dict[str, Any]:
    variants = {p.name: measure_program(bench, p, steps, repetitions) for p in programs}
    return {
        "steps": list(steps),
        "repetitions": repetitions,
        "variants": variants,
        "reference": REFERENCE,
        "target_marginal_ms": TARGET_MARGINAL_MS,
    }


def measure_program(
    bench: Bench, program: Program, steps: Sequence[int], repetitions: int
) -> dict[str, Any]:
    rows = []
    for count in steps:
        chain = write_chain(
            bench.workdir / "overhead", f"{program.name}-{count}", [program.argv] * count
        )
        commands = {"runner": bench.run_command(chain), "loop": bench.loop_command(chain)}
        samples = interleaved(commands, repetitions, env=bench.env, warmup=bench.warmup)
        for label, runs in samples.items():
            if json.loads(runs[0].stdout_head) != 1:
                raise RuntimeError(f"{label} printed {runs[0].stdout_head[:200]!r}, not 1")
        runner, loop = summarize(samples["runner"]), summarize(samples["loop"])
        rows.append(
            {
                "steps": count,
                "load_check_ms": load_check_ms(bench, chain),
                "runner": runner.to_dict(),
                "loop": loop.to_dict(),
                "ratio": round(runner.median / loop.median, 3),
                "extra_ms": round((runner.median - loop.median) * 1000, 2),
            }
        )
    return {"program": " ".join(program.argv), "note": program.note, "rows": rows, **marginal(rows)}


def load_check_ms(bench: Bench, chain: Chain) -> float:
    argv = [bench.python, "-c", LOAD_CHECK, str(chain.app), chain.pipeline]
    done = subprocess.run(argv, env=bench.env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"load + check failed: {done.stderr[-2000:]}")
    return round(float(done.stdout), 2)


def marginal(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Per added step, between the two longest chains: app-run, loop.py, their difference from
    the medians, from the fastest runs (other work on the machine only ever adds) and from CPU
    time, and the part of it that is parsing and checking pipeline.yaml."""
    keys = (
        "marginal_ms_per_step",
        "marginal_min_ms_per_step",
        "marginal_cpu_ms_per_step",
        "runner_ms_per_step",
        "loop_ms_per_step",
        "load_check_ms_per_step",
    )
    if len(rows) < 2:
        return dict.fromkeys(keys)
    mid, big = rows[-2], rows[-1]
    added = big["steps"] - mid["steps"]

    def per_step(who: str, stat: str) -> float:
        return (big[who][stat] - mid[who][stat]) * 1000 / added

    def extra(stat: str) -> float:
        return per_step("runner", stat) - per_step("loop", stat)

    runner, loop = per_step("runner", "median_s"), per_step("loop", "median_s")
    load_check = (big["load_check_ms"] - mid["load_check_ms"]) / added
    values = (extra("median_s"), extra("min_s"), extra("cpu_s"), runner, loop, load_check)
    return dict(zip(keys, (round(v, 3) for v in values), strict=True))
