#!/usr/bin/env python3
"""Read a plain-text work log and total the hours of one ISO week.

Each log line is "YYYY-MM-DD project 1.5h what was done"; other lines are ignored.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import re
import sys
from pathlib import Path

LINE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s+(\S+)\s+(\d+(?:\.\d+)?)h\s+(.*)$")


def entries(log: Path, week: str) -> list[dict]:
    year, number = week.split("-W")
    found = []
    for raw in log.read_text(encoding="utf-8").splitlines():
        match = LINE.match(raw.strip())
        if not match:
            continue
        day = dt.date.fromisoformat(match.group(1))
        iso = day.isocalendar()
        if (iso.year, iso.week) == (int(year), int(number)):
            found.append({"date": match.group(1), "project": match.group(2),
                          "hours": float(match.group(3)), "note": match.group(4)})
    return found


def summarize(args: argparse.Namespace) -> int:
    rows = entries(Path(args.log), args.week)
    totals: dict[str, float] = {}
    for row in rows:
        totals[row["project"]] = round(totals.get(row["project"], 0.0) + row["hours"], 1)
    result = {"week": args.week, "hours": totals, "total": round(sum(totals.values()), 1),
              "notes": [f"{r['project']}: {r['note']}" for r in rows]}
    if args.json:
        json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        for project, hours in sorted(totals.items()):
            print(f"{project}\t{hours}")
        print(f"total\t{result['total']}")
    return 0


def export(args: argparse.Namespace) -> int:
    rows = entries(Path(args.log), args.week)
    with Path(args.out).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["date", "project", "hours", "note"])
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summarize", help="total the hours per project")
    summary.add_argument("--log", required=True, help="work log file")
    summary.add_argument("--week", required=True, help="ISO week, e.g. 2025-W23")
    summary.add_argument("--json", action="store_true", help="print JSON")
    summary.set_defaults(run=summarize)
    out = sub.add_parser("export", help="write the week's entries as CSV")
    out.add_argument("--log", required=True, help="work log file")
    out.add_argument("--week", required=True, help="ISO week, e.g. 2025-W23")
    out.add_argument("--out", required=True, help="CSV file to write")
    out.set_defaults(run=export)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
