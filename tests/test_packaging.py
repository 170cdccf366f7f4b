"""The package works installed from its wheel, not only from the checkout.

Builds the wheel, installs it (no dependencies) into a fresh virtual environment, and runs the
three console scripts from there with the checkout off sys.path; the dependencies come from the
test environment's site-packages on PYTHONPATH (where .pth files, so the editable install of the
checkout, are not read).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of a clean copy of the checkout: a build/ folder left by an earlier build
    would carry files the sources no longer have."""
    source = tmp_path_factory.mktemp("src") / "skill2app"
    skip = shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
    )
    shutil.copytree(ROOT, source, ignore=skip)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(source)],
        check=True,
    )  # fmt: skip
    return next(dist.glob("skill2app-*.whl"))


@pytest.fixture(scope="module")
def env(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with only the wheel installed into it."""
    target = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", str(wheel)],
        check=True,
    )  # fmt: skip
    return target


def site_packages(env: Path) -> Path:
    return next((env / "lib").glob("python3*/site-packages"))


def run(env: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A console script of the fresh environment, dependencies from this test environment."""
    deps = sysconfig.get_paths()["purelib"]
    return subprocess.run(
        [str(env / "bin" / argv[0]), *argv[1:]],
        cwd=cwd,
        env={
            "PYTHONPATH": deps,
            "PATH": f"{env / 'bin'}:/usr/bin:/bin",
            "APP_RUN_HOME": str(cwd / "h"),
            "HOME": str(cwd),
        },
        capture_output=True,
        text=True,
    )


def test_the_wheel_installs_one_import_name(env: Path) -> None:
    names = {p.name for p in site_packages(env).iterdir()} - {"__pycache__", "_virtualenv.py"}
    installed = {n for n in names if not n.endswith((".dist-info", ".pth"))}
    assert installed == {"skill2app"}, installed
    top_level = next(site_packages(env).glob("skill2app-*.dist-info")) / "RECORD"
    roots = {line.split("/", 1)[0] for line in top_level.read_text("utf-8").splitlines()}
    assert {r for r in roots if not r.endswith(".dist-info") and r != ".."} == {"skill2app"}


def test_every_package_folder_is_listed_in_pyproject() -> None:
    """A new subpackage must be added to [tool.setuptools] packages, or the wheel lacks it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        "skill2app." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("runtime", "converter", "scaffold", "templates")
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found == listed


def test_wheel_carries_schemas_templates_and_models(env: Path) -> None:
    package = site_packages(env) / "skill2app"
    assert (package / "runtime" / "schemas" / "pipeline.schema.json").is_file()
    assert any((package / "templates").rglob("*.j2")), "templates/ missing from the wheel"
    assert (package / "runtime" / "routing" / "models" / "static" / "model.safetensors").is_file()
    assert any((package / "converter").rglob("*.schema.json")), "plan schema missing"
    # every file of the four folders is in the wheel (a glob that misses dotfiles did once)
    for top in ("runtime", "converter", "scaffold", "templates"):
        repo = {
            p.relative_to(ROOT / top)
            for p in (ROOT / top).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        wheel = {
            p.relative_to(package / top)
            for p in (package / top).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        assert repo == wheel, (top, repo ^ wheel)


@pytest.mark.parametrize("script", ["app-run", "app-new", "app-convert"])
def test_every_command_has_the_one_version(env: Path, tmp_path: Path, script: str) -> None:
    from skill2app.runtime import __version__

    done = run(env, [script, "--version"], tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, f"{script} {__version__}"), done.stderr


def test_installed_app_run_uses_the_wheel(env: Path, tmp_path: Path) -> None:
    done = run(env, ["app-run", "schema", "--path"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(site_packages(env)))
    schema = run(env, ["app-run", "schema"], tmp_path)
    assert json.loads(schema.stdout)["title"].startswith("APP pipeline.yaml")


def test_installed_app_run_checks_the_example(env: Path, tmp_path: Path) -> None:
    done = run(env, ["app-run", "check", str(ROOT / "examples" / "code-review")], tmp_path)
    assert done.returncode == 0, done.stderr


def test_installed_app_run_routes_with_both_models(env: Path, tmp_path: Path) -> None:
    example = str(ROOT / "examples" / "code-review")
    done = run(env, ["app-run", "route", example, "审查代码", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr  # "review code": its triggers are English
    assert json.loads(done.stdout)["pipeline"] == "code-review"
    assert list((tmp_path / "h" / "cache" / "models").glob("usem3-*/meta.json"))


def test_installed_app_new_renders_from_packaged_templates(env: Path, tmp_path: Path) -> None:
    made = run(env, ["app-new", "app", "demo-app"], tmp_path)
    assert made.returncode == 0, made.stderr
    added = run(
        env, ["app-new", "pipeline", "demo-app", "hello", "--description", "Say hello"], tmp_path
    )
    assert added.returncode == 0, added.stderr
    checked = run(env, ["app-run", "check", "demo-app"], tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert (tmp_path / "demo-app" / "pipelines" / "hello" / "pipeline.yaml").is_file()


def test_installed_app_convert_converts_an_example(env: Path, tmp_path: Path) -> None:
    skill = str(ROOT / "examples" / "skills" / "csv-report")
    done = run(env, ["app-convert", skill, "--out", "app", "--smoke"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Smoke test: 4 of 4 steps passed" in done.stderr
    checked = run(env, ["app-run", "check", "app"], tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_no_module_imports_in_a_circle() -> None:
    """Every import inside the package, at any depth (functions, TYPE_CHECKING blocks too),
    points one way: no two modules reach each other."""
    graph = import_graph()
    cycles = strongly_connected(graph)
    assert cycles == [], cycles


def import_graph() -> dict[str, set[str]]:
    import ast

    modules: dict[str, Path] = {}
    for top in ("runtime", "converter", "scaffold", "templates"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules["skill2app." + ".".join(parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets.add(node.module)
                targets.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively; only the components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_environment_has_no_stale_top_level_packages() -> None:
    """The checkout's folders are not importable under their own names from an installed
    environment: only skill2app is (guards against a leftover old-style install)."""
    names = ("runtime", "converter", "scaffold")
    code = f"import importlib.util as u; print([n for n in {names!r} if u.find_spec(n)])"
    done = subprocess.run(
        [sys.executable, "-P", "-c", code], cwd="/", capture_output=True, text=True,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
    )  # fmt: skip
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
