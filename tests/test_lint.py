"""The code stays clean: ruff on everything, mypy on the packages (config in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["runtime", "scaffold", "converter", "templates"]


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True)


def test_ruff() -> None:
    done = run("ruff", "check", *PACKAGES, "tests", "benchmarks", "examples")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy() -> None:
    done = run("mypy", *PACKAGES)
    assert done.returncode == 0, done.stdout + done.stderr
