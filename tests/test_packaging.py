"""The package works installed from its wheel, not only from the checkout.

Builds the wheel, unpacks it into a folder on PYTHONPATH (dependencies come from the test
environment), and runs the commands from there with the checkout off sys.path.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(ROOT)],
        check=True,
    )
    wheel = next(dist.glob("skill2app-*.whl"))
    target = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(target)
    return target


def run_installed(target: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-c", code],
        cwd=cwd,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "APP_RUN_HOME": str(cwd / "h"),
             "HOME": str(cwd)},
        capture_output=True,
        text=True,
    )


def test_wheel_carries_schema_and_templates(installed: Path) -> None:
    assert (installed / "runtime" / "schemas" / "pipeline.schema.json").is_file()
    assert any((installed / "templates").rglob("*.j2")), "templates/ missing from the wheel"


def test_installed_app_run_uses_the_wheel(installed: Path, tmp_path: Path) -> None:
    code = (
        "import sys, runtime; print(runtime.__file__, file=sys.stderr);"
        "sys.argv=['app-run','schema']; from runtime.cli import main; main()"
    )
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert str(installed) in done.stderr
    assert json.loads(done.stdout)["title"].startswith("APP pipeline.yaml")


def test_installed_app_run_checks_the_example(installed: Path, tmp_path: Path) -> None:
    example = ROOT / "examples" / "code-review"
    code = f"import sys; sys.argv=['app-run','check',{str(example)!r}]; from runtime.cli import main; main()"
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 0, done.stderr
