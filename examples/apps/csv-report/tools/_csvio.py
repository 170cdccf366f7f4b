"""Shared CSV reading for the csv-report tools (a module, not a program)."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path


def read_rows(path: str, delimiter: str = ",") -> tuple[list[str], Iterator[dict[str, str]]]:
    """The header and an iterator over the rows of ``path`` ("-" reads stdin)."""
    handle = sys.stdin if path == "-" else Path(path).open(newline="", encoding="utf-8")
    reader = csv.DictReader(handle, delimiter=delimiter)
    header = list(reader.fieldnames or [])
    return header, iter(reader)


def number(text: str) -> float | None:
    """``text`` as a number, or None when it is not one."""
    try:
        return float(text.replace(",", "")) if text.strip() else None
    except ValueError:
        return None
