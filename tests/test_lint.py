"""The code stays clean: ruff on everything, mypy on the package (config in pyproject.toml)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["runtime", "scaffold", "converter", "templates"]


def run(
    *argv: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=cwd, capture_output=True, text=True, env=env
    )


def test_ruff() -> None:
    done = run("ruff", "check", *PACKAGES, "tests", "benchmarks", "examples")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format() -> None:
    """Generated code too: examples/apps and the golden APPs are what app-convert writes."""
    done = run("ruff", "format", "--check", *PACKAGES, "tests", "benchmarks", "examples")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy(tmp_path: Path) -> None:
    """mypy cannot follow the editable install's import hook, so it checks ``skill2app`` as a
    folder of links to the repository's top-level packages, as the wheel lays them out."""
    package = tmp_path / "skill2app"
    package.mkdir()
    for name in PACKAGES:
        (package / name).symlink_to(ROOT / name, target_is_directory=True)
    config = str(ROOT / "pyproject.toml")
    env = {**os.environ, "MYPYPATH": str(tmp_path)}
    done = run("mypy", "--config-file", config, "-p", "skill2app", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
