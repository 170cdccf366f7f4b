#!/usr/bin/env python3
"""Summarise the numeric columns of a CSV file.

Prints, for each numeric column, how many values it has and their mean, minimum and maximum.
"""

from __future__ import annotations

import argparse
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the skill folder
from _csvio import number, read_rows  # noqa: E402

FORMATS = ("markdown", "json")


def summarise(path: str, columns: list[str] | None, delimiter: str) -> dict:
    header, rows = read_rows(path, delimiter)
    wanted = columns or header
    missing = [c for c in wanted if c not in header]
    if missing:
        raise SystemExit(f"error: no column named {', '.join(missing)}")
    values: dict[str, list[float]] = {c: [] for c in wanted}
    count = 0
    for row in rows:
        count += 1
        for column in wanted:
            value = number(row.get(column) or "")
            if value is not None:
                values[column].append(value)
    stats = {
        column: {
            "count": len(nums),
            "mean": round(sum(nums) / len(nums), 4),
            "min": min(nums),
            "max": max(nums),
        }
        for column, nums in values.items()
        if nums
    }
    return {"rows": count, "columns": stats}


def as_markdown(summary: dict) -> str:
    lines = [f"Rows: {summary['rows']}", "", "| column | count | mean | min | max |",
             "|---|---|---|---|---|"]
    for column, s in summary["columns"].items():
        lines.append(f"| {column} | {s['count']} | {s['mean']} | {s['min']} | {s['max']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", help="CSV file to read ('-' for stdin)")
    parser.add_argument("--columns", help="comma-separated columns (default: all numeric)")
    parser.add_argument("--format", choices=FORMATS, default="markdown", help="output format")
    parser.add_argument("--delimiter", default=",", help="field separator")
    args = parser.parse_args(argv)
    columns = [c.strip() for c in args.columns.split(",")] if args.columns else None
    summary = summarise(args.path, columns, args.delimiter)
    if args.format == "json":
        json.dump(summary, sys.stdout, indent=2)
        print()
    else:
        print(as_markdown(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
