"""How well the triggers app-convert writes route: the converted example APPs, shipped settings.

run.py measures the router on hand-written routing tables.  This measures the converter's side:
the APPs in examples/apps/ (the tests keep them identical to a fresh offline conversion of
examples/skills/) are loaded the way ``app-run`` loads them, and the labelled requests in
converted.yaml are routed with the embedded router's shipped defaults (nothing is calibrated on
them).  It prints the metrics per APP and every request that was not routed as labelled.

    python benchmarks/routing/converted.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dataset import HERE, Request, load_requests  # noqa: E402
from twoway import metrics  # noqa: E402

from skill2app.runtime.app.model import load_app  # noqa: E402
from skill2app.runtime.routing import EmbeddedRouter, RouteEntry  # noqa: E402
from skill2app.runtime.routing.router import routing_entries  # noqa: E402

APPS = HERE.parents[1] / "examples" / "apps"


def converted_tables(root: Path = APPS) -> dict[str, list[RouteEntry]]:
    """Each example APP's routing table, as the Runner collects it."""
    return {path.name: routing_entries(load_app(path)) for path in sorted(root.iterdir())}


def evaluate(root: Path = APPS) -> dict[str, object]:
    tables = converted_tables(root)
    requests = load_requests(tables, name="converted.yaml")
    routers = {app: EmbeddedRouter(entries) for app, entries in tables.items()}
    rows: list[tuple[Request, str | None, str]] = []
    misses = []
    for request in requests:
        decision = routers[request.app].route(request.text)
        first = decision.candidates[0].pipeline if decision.candidates else ""
        rows.append((request, decision.pipeline, first))
        if decision.pipeline != request.expected:
            misses.append(
                {
                    "app": request.app,
                    "request": request.text,
                    "expected": request.expected,
                    "routed": decision.pipeline,
                    "why": decision.reason,
                }
            )
    return {
        "all": metrics(rows),
        "by_app": {app: metrics([r for r in rows if r[0].app == app]) for app in tables},
        "pipelines": {app: len(entries) for app, entries in tables.items()},
        "misses": misses,
    }


def report(result: dict) -> str:
    lines = ["converted example APPs - embedded router, shipped settings", ""]
    head = f"{'app':18} {'top1':>6} {'ranked':>6} {'wrong':>6} {'nm-rec':>6}  by kind"
    lines.append(head)
    for app, m in [*result["by_app"].items(), ("all", result["all"])]:
        kinds = " ".join(f"{k}:{v}" for k, v in m["by_kind"].items() if not v.endswith("/0"))
        label = f"{app} ({result['pipelines'][app]})" if app in result["pipelines"] else app
        lines.append(
            f"{label:18} {m['top1']:6.3f} {m['ranked_top1']:6.3f} {m['wrong']:6.3f} "
            f"{m['nomatch_recall']:6.3f}  {kinds}"
        )
    lines += ["", f"not routed as labelled ({len(result['misses'])}):"]
    for miss in result["misses"]:
        lines.append(
            f"  {miss['app']}: {miss['request']!r} -> {miss['routed']} "
            f"(expected {miss['expected']}); {miss['why']}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = evaluate()
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
