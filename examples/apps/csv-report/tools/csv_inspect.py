#!/usr/bin/env python3
"""Look inside a CSV file: its columns, or a sample of its rows."""

from __future__ import annotations

import argparse
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the skill folder
from _csvio import read_rows  # noqa: E402


def columns(args: argparse.Namespace) -> dict:
    header, _rows = read_rows(args.path)
    return {"columns": header}


def sample(args: argparse.Namespace) -> dict:
    header, rows = read_rows(args.path)
    picked = []
    for row in rows:
        if len(picked) >= args.rows:
            break
        picked.append(row)
    return {"columns": header, "rows": picked}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    cols = commands.add_parser("columns", help="list the column names")
    cols.add_argument("path", help="CSV file")
    cols.set_defaults(run=columns)
    rows = commands.add_parser("sample", help="print the first rows as JSON")
    rows.add_argument("path", help="CSV file")
    rows.add_argument("--rows", type=int, default=5, help="how many rows")
    rows.set_defaults(run=sample)
    args = parser.parse_args(argv)
    json.dump(args.run(args), sys.stdout, indent=2, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
