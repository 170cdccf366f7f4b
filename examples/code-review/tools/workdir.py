#!/usr/bin/env python3
"""The run's work directory: the one place the lifecycle and business pipelines share state.

A business step never sees the constructor's output (its stdin holds only its own pipeline's
steps), so every pipeline derives the same path from what they all get, ``APP_RUN_ID``::

    ${TMPDIR:-/tmp}/app-run-code-review/<APP_RUN_ID>/      this run's files
    ${TMPDIR:-/tmp}/app-run-code-review/runs.log           one line per run (the destructor)

``_destructor/steps/cleanup.sh`` computes the same path in bash.  Run as a program it prints
the path for the current ``APP_RUN_ID``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

SAFE_RUN_ID = re.compile(r"^[A-Za-z0-9._-]+$")


def base_dir() -> Path:
    return Path(os.environ.get("TMPDIR") or "/tmp") / "app-run-code-review"


def work_dir() -> Path:
    run_id = os.environ.get("APP_RUN_ID", "")
    if not SAFE_RUN_ID.match(run_id) or run_id in (".", ".."):
        raise RuntimeError(f"APP_RUN_ID {run_id!r} is missing or unusable: run this via app-run")
    return base_dir() / run_id


if __name__ == "__main__":
    try:
        print(work_dir())
    except RuntimeError as exc:
        print(f"workdir: {exc}", file=sys.stderr)
        sys.exit(1)
