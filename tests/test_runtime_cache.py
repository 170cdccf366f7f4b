"""The check cache: an unchanged APP is not checked again; any change to it is."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

import skill2app.runtime.app.cache as cache
import skill2app.runtime.app.check as check

pytestmark = pytest.mark.usefixtures("runtime_env")


def age(root: Path, seconds: float = 60) -> None:
    """Date every file and folder of ``root`` ``seconds`` back: an APP edited a while ago."""
    when = time.time() - seconds
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            os.utime(Path(folder) / name, (when, when))
    os.utime(root, (when, when))


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[list[str] | None]:
    """Every call of check_app (the `only` it got), counted as the runner makes them."""
    calls: list[list[str] | None] = []
    real = check.check_app

    def counting(app, only=None):  # type: ignore[no-untyped-def]
        calls.append(only)
        return real(app, only)

    monkeypatch.setattr("skill2app.runtime.app.check.check_app", counting)
    return calls


def app_with_lifecycle(root: Path) -> Path:
    make_app(
        root,
        {
            "hello": {
                "input": {"who": "string"},
                "steps": [code("greet", value="hi"), code("echo", needs=["greet"], timeout=9)],
                "output": "greet",
            },
            "_constructor": [code("setup")],
            "_destructor": [code("cleanup")],
        },
    )
    age(root)
    return root


def run_ok(app: Path) -> dict:
    result = invoke("run", app, "hello", "--input", "who=Ada", "--json", "-q")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def cache_files(home: Path) -> list[Path]:
    return sorted((home / "cache" / "checked").glob("*.json"))


def test_an_unchanged_app_is_checked_once(tmp_path: Path, checks: list, app_run_home: Path) -> None:
    app = app_with_lifecycle(tmp_path / "app")
    first, second = run_ok(app), run_ok(app)
    assert checks == [["hello"]]  # the second run took the models from the cache
    assert first["output"] == second["output"] == {"step": "greet", "value": "hi"}
    assert second["constructor"]["status"] == second["destructor"]["status"] == "succeeded"
    [stored] = cache_files(app_run_home)
    assert set(json.loads(stored.read_text())["pipelines"]) == {
        "hello",
        "_constructor",
        "_destructor",
    }


def test_cached_models_equal_checked_ones(tmp_path: Path, app_run_home: Path) -> None:
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.run.runner import checked

    app_dir = app_with_lifecycle(tmp_path / "app")
    fresh = checked(load_app(app_dir), "hello", app_run_home)
    again = load_app(app_dir)
    cached = checked(again, "hello", app_run_home)
    assert cached == fresh
    assert again._sources == {}  # nothing was parsed


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(
            lambda app: (app / "pipelines/hello/pipeline.yaml").write_text(
                (app / "pipelines/hello/pipeline.yaml").read_text().replace("hello", "hallo")
            ),
            id="same-size edit of pipeline.yaml",
        ),
        pytest.param(
            lambda app: (app / "pipelines/hello/steps/step.py").unlink(), id="script deleted"
        ),
        pytest.param(
            lambda app: (app / "pipelines/_destructor/pipeline.yaml").write_text("steps: [\n"),
            id="lifecycle pipeline broken",
        ),
    ],
)
def test_any_change_checks_again(tmp_path: Path, checks: list, edit) -> None:  # type: ignore[no-untyped-def]
    app = app_with_lifecycle(tmp_path / "app")
    run_ok(app)
    edit(app)
    result = invoke("run", app, "hello", "--input", "who=Ada", "-q")
    assert result.exit_code == 3, result.stderr
    assert len(checks) == 2
    assert "error" in result.stderr


def test_a_just_edited_app_is_not_cached(tmp_path: Path, checks: list, app_run_home: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": [code("greet")]})  # written just now
    invoke("run", app, "hello", "-q")
    invoke("run", app, "hello", "-q")
    assert len(checks) == 2
    assert cache_files(app_run_home) == []


def test_app_run_no_cache_turns_it_off(
    tmp_path: Path, checks: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_RUN_NO_CACHE", "1")
    app = app_with_lifecycle(tmp_path / "app")
    run_ok(app)
    run_ok(app)
    assert len(checks) == 2


def test_errors_are_reported_on_every_run(tmp_path: Path, checks: list, app_run_home: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": {"steps": [code("greet")], "output": "nope"}})
    age(app)
    for _ in range(2):
        result = invoke("run", app, "hello", "-q")
        assert result.exit_code == 3
        assert "output" in result.stderr
    assert len(checks) == 2
    assert cache_files(app_run_home) == []


def test_a_damaged_cache_file_is_ignored_and_replaced(
    tmp_path: Path, checks: list, app_run_home: Path
) -> None:
    app = app_with_lifecycle(tmp_path / "app")
    run_ok(app)
    [stored] = cache_files(app_run_home)
    entry = json.loads(stored.read_text())
    entry["pipelines"]["hello"]["steps"] = [{"no": "such field"}]
    stored.write_text(json.dumps(entry))
    run_ok(app)
    stored.write_text("{not json")
    run_ok(app)
    run_ok(app)
    assert len(checks) == 3  # the damaged entries were checked again, then cached again


def test_a_big_app_is_not_cached(
    tmp_path: Path, checks: list, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 5)
    app = app_with_lifecycle(tmp_path / "app")
    run_ok(app)
    run_ok(app)
    assert len(checks) == 2
    assert cache_files(app_run_home) == []


def test_an_unwritable_cache_is_no_error(tmp_path: Path, checks: list, app_run_home: Path) -> None:
    app = app_with_lifecycle(tmp_path / "app")
    (app_run_home / "cache").mkdir(parents=True, exist_ok=True)  # it holds models/ already
    (app_run_home / "cache" / "checked").write_text("a file where the folder should be")
    run_ok(app)
    run_ok(app)
    assert len(checks) == 2


def test_skipped_folders_do_not_change_the_fingerprint(tmp_path: Path) -> None:
    app = app_with_lifecycle(tmp_path / "app")
    cached = app / "pipelines" / "hello" / "steps" / "__pycache__"
    cached.mkdir()
    then = time.time() - 60
    os.utime(cached, (then, then))
    os.utime(cached.parent, (then, then))
    before, _ = cache.fingerprint(app)
    (cached / "step.cpython-311.pyc").write_bytes(b"\0")
    os.utime(cached, (then, then))  # what changed is inside __pycache__ only
    assert cache.fingerprint(app)[0] == before
    (cached.parent / "other.py").write_text("")
    assert cache.fingerprint(app)[0] != before


def test_a_symlink_loop_does_not_hang_the_walk(tmp_path: Path) -> None:
    app = app_with_lifecycle(tmp_path / "app")
    (app / "loop").symlink_to(app, target_is_directory=True)
    digest, _ = cache.fingerprint(app)
    assert digest is not None


def test_a_cached_code_only_run_imports_no_parser_checker_or_llm_code(
    tmp_path: Path, app_run_home: Path
) -> None:
    """What makes the everyday run fast: nothing of YAML parsing, validation or llm steps."""
    import subprocess
    import sys

    app = app_with_lifecycle(tmp_path / "app")
    run_ok(app)  # checks and fills the cache
    heavy = (
        "ruamel",
        "jsonschema",
        "skill2app.runtime.app.check",
        "skill2app.runtime.run.llm_step",
        "typer",
        "pydantic",
    )
    probe = (
        "import sys\n"
        "from skill2app.runtime.cli import app_run\n"
        f"code = app_run(['run', {str(app)!r}, 'hello', '-i', 'who=Ada', '-q'])\n"
        f"print(code, sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    env = {**os.environ, "APP_RUN_HOME": str(app_run_home)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr


def test_the_routing_table_is_cached_until_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skill2app.runtime.app.model as app_model

    parsed: list[Path] = []
    real = app_model.load_yaml

    def counting(path: Path):  # type: ignore[no-untyped-def]
        parsed.append(path)
        return real(path)

    monkeypatch.setattr(app_model, "load_yaml", counting)
    app = app_with_lifecycle(tmp_path / "app")
    first = invoke("list", app, "--json")
    assert len(parsed) == 1  # hello; the lifecycle pipelines are not routed to
    second = invoke("list", app, "--json")
    assert (second.stdout, len(parsed)) == (first.stdout, 1)
    route = invoke("route", app, "the hello pipeline", "--json")
    assert route.exit_code == 0 and len(parsed) == 1
    yaml_file = app / "pipelines" / "hello" / "pipeline.yaml"
    yaml_file.write_text(yaml_file.read_text() + "triggers: [say hello to someone]\n")
    third = json.loads(invoke("list", app, "--json").stdout)
    assert third[0]["triggers"] == ["say hello to someone"] and len(parsed) == 2


def test_a_cache_file_others_could_write_is_not_trusted(
    tmp_path: Path, checks: list, app_run_home: Path
) -> None:
    app = app_with_lifecycle(tmp_path / "app")
    run_ok(app)
    [stored] = cache_files(app_run_home)
    assert stored.stat().st_mode & 0o777 == 0o600
    stored.chmod(0o666)
    run_ok(app)
    assert len(checks) == 2  # ignored: checked again (and written back, private)
    assert stored.stat().st_mode & 0o777 == 0o600


def test_stale_entries_are_pruned_when_one_is_written(tmp_path: Path, app_run_home: Path) -> None:
    folder = app_run_home / "cache" / "checked"
    folder.mkdir(parents=True)
    old, recent = folder / "gone-app.json", folder / "other-app.json"
    for path in (old, recent):
        path.write_text("{}")
    long_ago = time.time() - (cache.STALE_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    run_ok(app_with_lifecycle(tmp_path / "app"))
    assert not old.exists() and recent.exists()
    assert len(cache_files(app_run_home)) == 2  # the other APP's and this one's


def test_every_checker_file_exists() -> None:
    """The fingerprint stats the checker's own files: one that moved would never change it."""
    missing = [name for name in cache.CHECKER if not (cache.RUNTIME_DIR / name).is_file()]
    assert missing == []


def test_long_form_inputs_survive_the_cache(tmp_path: Path, app_run_home: Path) -> None:
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.run.runner import checked

    app_dir = make_app(
        tmp_path / "app",
        {
            "hello": {
                "name": "hello",
                "description": "Say hello",
                "input": {
                    "who": {"type": "string", "description": "Whom to greet"},
                    "times": {"type": "integer", "default": 1, "enum": [1, 2, 3]},
                },
                "steps": [code("greet")],
            }
        },
    )
    fresh = checked(load_app(app_dir), "hello", app_run_home)
    cached = checked(load_app(app_dir), "hello", app_run_home)
    assert (
        cached.input_info
        == fresh.input_info
        == {
            "who": {"description": "Whom to greet"},
            "times": {"enum": [1, 2, 3], "default": 1},
        }
    )
    assert cached.inputs == {"who": "string", "times": "integer?"}
