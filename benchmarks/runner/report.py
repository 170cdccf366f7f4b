"""The results as text: one table per benchmark, then every target, met or missed."""

from __future__ import annotations

from typing import Any


def render(results: dict[str, Any]) -> str:
    lines = header(results)
    if "overhead" in results:
        lines += ["", *overhead_lines(results["overhead"], results.get("skipped", {}))]
    if "cold_start" in results:
        lines += ["", *cold_lines(results["cold_start"])]
    if "volume" in results:
        lines += ["", *volume_lines(results["volume"], "3")]
    if "volume_needs" in results:
        lines += ["", *volume_lines(results["volume_needs"], "3b")]
    lines += ["", "targets"]
    for t in results["targets"]:
        verdict = "met" if t["met"] else "MISSED"
        lines.append(f"  {t['name']:<44} {t['value']:>9.2f} {t['unit']:<8} {verdict}")
    return "\n".join(lines) + "\n"


def header(results: dict[str, Any]) -> list[str]:
    m = results["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items())
    return [
        f"app-run runner benchmark - {results['plan']['name']} run",
        f"machine: {m['system']}, {m['cpus']} CPUs ({m['cpu']}), Python {m['python']}",
        f"load average: {_load(m['load_start'])} at start, {_load(m['load_end'])} at the end",
        f"versions: {versions}",
        f"peak memory is never below {m['peak_floor_mb']:.1f} MB, this process's own (measure.py)",
    ]


def _load(values: list[float]) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:9.1f}"


def overhead_lines(data: dict[str, Any], skipped: dict[str, str]) -> list[str]:
    lines = [
        "1. runner overhead: `app-run run APP chain` vs loop.py, same steps "
        f"(ms, median of {data['repetitions']}; parse+check = load_app + check_app in-process)",
        f"{'step':<8}{'steps':>6}{'app-run':>10}{'loop':>10}{'ratio':>8}{'app-run - loop':>16}"
        f"{'cpu app-run':>13}{'cpu loop':>10}{'parse+check':>13}",
    ]
    for name, variant in data["variants"].items():
        for row in variant["rows"]:
            lines.append(
                f"{name:<8}{row['steps']:>6}{_ms(row['runner']['median_s']):>10}"
                f"{_ms(row['loop']['median_s']):>10}{row['ratio']:>8.2f}{row['extra_ms']:>16.1f}"
                f"{_ms(row['runner']['cpu_s']):>13}{_ms(row['loop']['cpu_s']):>10}"
                f"{row['load_check_ms']:>13.1f}"
            )
    for name, why in skipped.items():
        lines.append(f"{name:<8} skipped: {why}")
    steps = data["steps"]
    if len(steps) >= 2:
        mid, big = steps[-2], steps[-1]
        lines.append(
            f"marginal cost of one more step, ((app-run{big} - app-run{mid}) - "
            f"(loop{big} - loop{mid})) / {big - mid}:"
        )
    for name, variant in data["variants"].items():
        if variant["marginal_ms_per_step"] is not None:
            lines.append(
                f"  {name:<8}{variant['marginal_ms_per_step']:7.2f} ms/step (fastest runs: "
                f"{variant['marginal_min_ms_per_step']:.2f}, CPU time: "
                f"{variant['marginal_cpu_ms_per_step']:.2f}); app-run "
                f"{variant['runner_ms_per_step']:.2f}, loop {variant['loop_ms_per_step']:.2f} "
                f"ms/step; parsing + checking pipeline.yaml "
                f"{variant['load_check_ms_per_step']:.2f} ms/step of it"
            )
    ref = data["reference"]
    lines.append(
        f"reference: the spec authors' Node runner {ref['node_runner_ms']['50']:.0f} ms at 50 "
        f"steps, {ref['node_runner_ms']['200']:.0f} ms at 200; a naive Python runner "
        f"~{ref['naive_python_ms_per_step']} ms per added step"
    )
    return lines


def cold_lines(data: dict[str, Any]) -> list[str]:
    lines = [
        f"2. cold start (ms over {data['repetitions']} runs; step: {data['step']})",
        f"{'command':<44}{'median':>9}{'min':>9}{'max':>9}{'cpu':>9}{'peak MB':>9}",
    ]
    for row in data["rows"]:
        lines.append(
            f"{row['command']:<44}{_ms(row['median_s'])}{_ms(row['min_s'])}"
            f"{_ms(row['max_s'])}{_ms(row['cpu_s'])}{row['peak_mb']:>9.1f}"
        )
    lines.append("heavy modules a code-only run imports (first importer; project frame):")
    for module, where in data["heavy_imports"].items():
        lines.append(f"  {module:<12} {where['imported_by']}; {where['project_frame']}")
    if not data["heavy_imports"]:
        lines.append("  none")
    if data["met"]:
        lines.append(f"code-only run {data['run_ms']:.0f} ms <= {data['target_run_ms']:.0f} ms")
    else:
        lines.append(
            f"code-only run {data['run_ms']:.0f} ms > {data['target_run_ms']:.0f} ms; "
            "costliest top-level imports (python -X importtime, cumulative ms):"
        )
        for item in data["top_imports"]:
            lines.append(f"  {item['module']:<40}{item['ms']:>8.1f}")
    return lines


def volume_lines(data: dict[str, Any], number: str) -> list[str]:
    lines = [
        f"{number}. data volume: each step prints SIZE MB, {data['passing']} on stdin "
        f"(median of {data['repetitions']})",
        f"{'MB':>5}{'steps':>6}{'made MB':>9}{'piped MB':>10}{'app-run s':>11}{'loop s':>9}"
        f"{'ratio':>7}{'app-run MB':>12}{'loop MB':>9}",
    ]
    for r in data["rows"]:
        lines.append(
            f"{r['size_mb']:>5g}{r['steps']:>6}{r['produced_mb']:>9g}{r['piped_mb']:>10.1f}"
            f"{r['runner']['median_s']:>11.3f}{r['loop']['median_s']:>9.3f}{r['ratio']:>7.2f}"
            f"{r['runner']['peak_mb']:>12.1f}{r['loop']['peak_mb']:>9.1f}"
        )
    lines.append("fit: value = fixed + a * MB made + b * MB piped (b carries steps^2 * size)")
    for who, label in (("runner", "app-run"), ("loop", "loop")):
        for metric, unit in (("seconds", "ms"), ("peak_mb", "MB")):
            f = data["fit"][who][metric]
            if f is None:
                continue
            scale = 1000 if unit == "ms" else 1
            lines.append(
                f"  {label:<8}{'time' if unit == 'ms' else 'peak':<5} fixed "
                f"{f['fixed'] * scale:8.1f} {unit}, a {f['per_mb_produced'] * scale:7.2f} "
                f"{unit}/MB, b {f['per_mb_piped'] * scale:7.2f} {unit}/MB; "
                f"piped share of the largest run {f['piped_share_of_largest']:.0%}"
            )
    g, share = data["growth"], data["quadratic_share"]

    def shown(who: str, metric: str) -> str:
        value = share[who][metric]
        return (
            f"{g[f'{who}_{metric}']} ({value:.0%} in steps^2 x size)"
            if value is not None
            else "unknown"
        )

    lines.append(
        f"growth: app-run time {shown('runner', 'seconds')}, peak memory "
        f"{shown('runner', 'peak_mb')}; loop time {shown('loop', 'seconds')}, peak memory "
        f"{shown('loop', 'peak_mb')}"
    )
    return lines
