#!/usr/bin/env python3
"""Render grouped release notes (JSON) as a Markdown section.

The input is {"version": "...", "sections": {"Features": [...], "Fixes": [...], ...}}; empty
sections are left out. Writes to --output, or prints when it is not given.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ORDER = ("Features", "Fixes", "Other")
MAX_LINE = 100


def render(notes: dict, version: str, date: str | None) -> str:
    title = f"## {version}" + (f" ({date})" if date else "")
    parts = [title]
    sections = notes.get("sections", {})
    for name in [*ORDER, *sorted(set(sections) - set(ORDER))]:
        items = sections.get(name) or []
        if items:
            parts.append(f"\n### {name}\n")
            parts.extend(f"- {item}" for item in items)
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--input", required=True, help="notes JSON file ('-' for stdin)")
    parser.add_argument("--version", required=True, help="version being released")
    parser.add_argument("--date", help="release date, YYYY-MM-DD")
    parser.add_argument("--output", help="Markdown file to write (default: print)")
    args = parser.parse_args(argv)
    raw = sys.stdin.read() if args.input == "-" else Path(args.input).read_text(encoding="utf-8")
    text = render(json.loads(raw), args.version, args.date)
    too_long = [line for line in text.splitlines() if len(line) > MAX_LINE]
    if too_long:
        print(f"warning: {len(too_long)} line(s) over {MAX_LINE} characters", file=sys.stderr)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
