#!/usr/bin/env python3
"""Keep the rows of a CSV file that match every --where COLUMN=VALUE condition."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the skill folder
from _csvio import read_rows  # noqa: E402


def condition(text: str) -> tuple[str, str]:
    column, sep, value = text.partition("=")
    if not sep or not column:
        raise argparse.ArgumentTypeError(f"expected COLUMN=VALUE, got {text!r}")
    return column, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", help="CSV file to read ('-' for stdin)")
    parser.add_argument("--where", action="append", type=condition, default=[],
                        help="COLUMN=VALUE; repeat to require several")
    parser.add_argument("--invert", action="store_true", help="keep the rows that do NOT match")
    parser.add_argument("--limit", type=int, help="stop after this many rows")
    parser.add_argument("--output", help="write the rows to this CSV file instead of stdout")
    args = parser.parse_args(argv)

    header, rows = read_rows(args.path)
    out = Path(args.output).open("w", newline="", encoding="utf-8") if args.output else sys.stdout
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    kept = 0
    for row in rows:
        match = all(row.get(column) == value for column, value in args.where)
        if match != args.invert:
            writer.writerow(row)
            kept += 1
            if args.limit is not None and kept >= args.limit:
                break
    if args.output:
        out.close()
        print(f"wrote {kept} rows to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
