"""Data volume: every step prints an output of SIZE MB and gets all previous outputs on stdin.

Step k of a chain reads the k-1 outputs before it, so a chain of n steps pipes about
SIZE * n(n-1)/2 bytes into its steps (the spec's "steps: outputs from all completed preceding
steps") while it only produces SIZE * n.  Both app-run and loop.py are timed, and the peak
memory of each is taken (``measure``).  A least-squares fit of

    time (or peak memory) = fixed + a * MB produced + b * MB piped

says which term carries the cost.  With ``previous_only`` every step ``needs`` only the step
before it (app-run's `needs`, and the same in loop.py), so the bytes piped grow like the bytes
produced.

Growth is judged the same way for both: a fit of

    value = fixed + a * (steps * MB) + q * (steps^2 * MB)

and the share of the q term in the largest run: at 50 % or more the growth is quadratic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from measure import MB, interleaved, summarize
from workloads import Bench, Program, write_chain


def measure_volume(
    bench: Bench,
    program: Program,
    sizes_mb: Sequence[float],
    steps: Sequence[int],
    repetitions: int,
    previous_only: bool = False,
) -> dict[str, Any]:
    rows = []
    for size in sizes_mb:
        nbytes = int(size * MB)
        for count in steps:
            label = f"{program.name}-{size:g}mb-{count}" + ("-needs" if previous_only else "")
            argvs = [(*program.argv, str(nbytes))] * count
            chain = write_chain(bench.workdir / "volume", label, argvs, previous_only)
            commands = {"runner": bench.run_command(chain), "loop": bench.loop_command(chain)}
            samples = interleaved(commands, repetitions, env=bench.env, warmup=bench.warmup)
            for name, runs in samples.items():
                if runs[0].stdout_bytes < nbytes:
                    raise RuntimeError(f"{name} printed {runs[0].stdout_bytes} bytes, not {nbytes}")
            piped = json.loads(samples["loop"][0].stderr.strip().splitlines()[-1])["stdin_bytes"]
            runner, loop = summarize(samples["runner"]), summarize(samples["loop"])
            rows.append(
                {
                    "size_mb": size,
                    "steps": count,
                    "produced_mb": round(size * count, 3),
                    "piped_mb": round(piped / MB, 3),
                    "runner": runner.to_dict(),
                    "loop": loop.to_dict(),
                    "ratio": round(runner.median / loop.median, 3),
                }
            )
    fits = {
        who: {
            "seconds": fit(rows, lambda r, w=who: r[w]["median_s"]),
            "peak_mb": fit(rows, lambda r, w=who: r[w]["peak_mb"]),
        }
        for who in ("runner", "loop")
    }
    shape = {
        who: {
            "seconds": quadratic_share(rows, lambda r, w=who: r[w]["median_s"]),
            "peak_mb": quadratic_share(rows, lambda r, w=who: r[w]["peak_mb"]),
        }
        for who in ("runner", "loop")
    }
    return {
        "program": " ".join(program.argv) + " BYTES",
        "passing": "the previous output (needs)" if previous_only else "all previous outputs",
        "repetitions": repetitions,
        "rows": rows,
        "fit": fits,
        "quadratic_share": shape,
        "growth": {
            f"{who}_{metric}": growth(share)
            for who, by in shape.items()
            for metric, share in by.items()
        },
    }


def quadratic_share(rows: list[dict[str, Any]], value: Any) -> float | None:
    """value ~ fixed + a * steps*MB + q * steps^2*MB: the q term's share of the largest run."""
    if len(rows) < 4:
        return None
    design = [[1.0, r["steps"] * r["size_mb"], r["steps"] ** 2 * r["size_mb"]] for r in rows]
    coefficients = least_squares(design, [float(value(r)) for r in rows])
    if coefficients is None:
        return None
    _, linear, square = coefficients
    largest = max(rows, key=lambda r: r["steps"] ** 2 * r["size_mb"])
    linear_part = abs(linear * largest["steps"] * largest["size_mb"])
    square_part = abs(square * largest["steps"] ** 2 * largest["size_mb"])
    total = linear_part + square_part
    return round(square_part / total, 3) if total else 0.0


def growth(share: float | None) -> str:
    """quadratic: most of the largest run's cost grows with steps^2 * size."""
    if share is None:
        return "unknown"
    return "quadratic" if share >= 0.5 else "linear"


def fit(rows: list[dict[str, Any]], value: Any) -> dict[str, float] | None:
    """value ~ fixed + per_mb_produced * produced + per_mb_piped * piped, least squares; and
    the share of the piped term in the largest run (0: linear in steps, ~1: quadratic)."""
    if len(rows) < 4:
        return None
    design = [[1.0, r["produced_mb"], r["piped_mb"]] for r in rows]
    coefficients = least_squares(design, [float(value(r)) for r in rows])
    if coefficients is None:
        return None
    fixed, produced, piped = coefficients
    largest = max(rows, key=lambda r: r["piped_mb"])
    linear_part = abs(produced * largest["produced_mb"])
    piped_part = abs(piped * largest["piped_mb"])
    variable = linear_part + piped_part
    return {
        "fixed": round(fixed, 4),
        "per_mb_produced": round(produced, 5),
        "per_mb_piped": round(piped, 5),
        "piped_share_of_largest": round(piped_part / variable, 3) if variable else 0.0,
    }


def least_squares(design: list[list[float]], observed: list[float]) -> list[float] | None:
    """Solve the normal equations (X^T X) b = X^T y by Gauss-Jordan elimination; None if
    singular.  (No numpy: the benchmark process stays small, see measure.py.)"""
    n = len(design[0])
    matrix = [
        [sum(row[i] * row[j] for row in design) for j in range(n)]
        + [sum(row[i] * y for row, y in zip(design, observed, strict=True))]
        for i in range(n)
    ]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(matrix[r][col]))
        if abs(matrix[pivot][col]) < 1e-12:
            return None
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        for r in range(n):
            if r != col:
                factor = matrix[r][col] / matrix[col][col]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[col], strict=True)]
    return [matrix[i][n] / matrix[i][i] for i in range(n)]
