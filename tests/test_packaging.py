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
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
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
        env={
            "PYTHONPATH": str(target),
            "PATH": "/usr/bin:/bin",
            "APP_RUN_HOME": str(cwd / "h"),
            "HOME": str(cwd),
        },
        capture_output=True,
        text=True,
    )


def test_wheel_carries_schema_and_templates(installed: Path) -> None:
    assert (installed / "runtime" / "schemas" / "pipeline.schema.json").is_file()
    assert any((installed / "templates").rglob("*.j2")), "templates/ missing from the wheel"


def command(module: str, *args: str) -> str:
    """Python code that runs ``module``'s console entry point with ``args``."""
    return f"import sys; sys.argv={['cmd', *args]!r}; from {module} import main; main()"


def test_installed_app_run_uses_the_wheel(installed: Path, tmp_path: Path) -> None:
    code = "import sys, runtime; print(runtime.__file__, file=sys.stderr);" + command(
        "runtime.cli", "schema"
    )
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert str(installed) in done.stderr
    assert json.loads(done.stdout)["title"].startswith("APP pipeline.yaml")


def test_installed_app_run_checks_the_example(installed: Path, tmp_path: Path) -> None:
    example = str(ROOT / "examples" / "code-review")
    done = run_installed(installed, command("runtime.cli", "check", example), tmp_path)
    assert done.returncode == 0, done.stderr


def test_installed_app_run_routes_with_both_models(installed: Path, tmp_path: Path) -> None:
    assert (installed / "runtime" / "routing" / "model" / "model.safetensors").is_file()
    example = str(ROOT / "examples" / "code-review")
    args = ("route", example, "审查代码", "--json")  # "review code": its triggers are English
    done = run_installed(installed, command("runtime.cli", *args), tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pipeline"] == "code-review"
    assert list((tmp_path / "h" / "cache" / "models").glob("usem3-*/meta.json"))


def test_installed_app_new_renders_from_packaged_templates(installed: Path, tmp_path: Path) -> None:
    made = run_installed(installed, command("scaffold.cli", "app", "demo-app"), tmp_path)
    assert made.returncode == 0, made.stderr
    added = run_installed(
        installed,
        command("scaffold.cli", "pipeline", "demo-app", "hello", "--description", "Say hello"),
        tmp_path,
    )
    assert added.returncode == 0, added.stderr
    checked = run_installed(installed, command("runtime.cli", "check", "demo-app"), tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert (tmp_path / "demo-app" / "pipelines" / "hello" / "pipeline.yaml").is_file()


def test_installed_app_convert_converts_an_example(installed: Path, tmp_path: Path) -> None:
    assert any((installed / "converter").rglob("*.schema.json")), "plan schema missing"
    entry_points = next(installed.glob("skill2app-*.dist-info")) / "entry_points.txt"
    assert "app-convert = converter.cli:main" in entry_points.read_text("utf-8")
    skill = str(ROOT / "examples" / "skills" / "csv-report")
    done = run_installed(
        installed, command("converter.cli", skill, "--out", "app", "--smoke"), tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "Smoke test: 4 of 4 steps passed" in done.stderr
    checked = run_installed(installed, command("runtime.cli", "check", "app"), tmp_path)
    assert checked.returncode == 0, checked.stderr
