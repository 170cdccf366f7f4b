"""Everything app-new can generate passes `app-run check` and runs on its sample input at once
(llm steps through the scripted provider and the generated samples/answers.yaml)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_scaffold_cli import run as app_new
from test_scaffold_golden import CASES

REPO = Path(__file__).resolve().parents[1]
APP_RUN = [sys.executable, "-c", "import sys; from skill2app.runtime.cli import main; main()"]

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def app_run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*APP_RUN, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def apps_under(root: Path) -> list[Path]:
    return sorted(path.parent for path in root.rglob("SKILL.md"))


def business_pipelines(app: Path) -> list[str]:
    return sorted(
        path.parent.name
        for path in (app / "pipelines").glob("*/pipeline.yaml")
        if not path.parent.name.startswith("_")
    )


def check_and_run_everything(app: Path) -> None:
    checked = app_run("check", app, cwd=app)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for name in business_pipelines(app):
        samples = app / "pipelines" / name / "samples"
        args: list[str | Path] = ["run", app, name, "--input-json", samples / "input.json"]
        if (samples / "answers.yaml").exists():
            args += ["--provider", "scripted", "--answers", samples / "answers.yaml"]
        done = app_run(*args, cwd=app)
        assert done.returncode == 0, f"{name}: {done.stdout}{done.stderr}"
        assert json.loads(done.stdout) is not None


@needs_node
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_golden_case_checks_and_runs(case: str, tmp_path: Path, runtime_env: Path) -> None:
    CASES[case](tmp_path)
    for app in apps_under(tmp_path):
        check_and_run_everything(app)


@needs_node
def test_an_app_grown_with_every_command_checks_and_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime_env: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    commands = [
        ["app", "grown", "--description", "Grown by every app-new command."],
        [
            "pipeline",
            "grown",
            "first",
            "--description",
            "First",
            "--input",
            "text",
            "--input",
            "count:integer",
            "--step",
            "summarize:llm:lite",
            "--step",
            "count:code:bash",
        ],
        ["pipeline", "grown", "second", "--description", "Second", "--trigger", "do it"],
        ["step", "grown", "first", "shout", "--type", "code", "--lang", "node"],
        [
            "step",
            "grown",
            "first",
            "judge",
            "--type",
            "llm",
            "--tier",
            "reasoning",
            "--after",
            "summarize",
        ],
        ["step", "grown", "second", "refine", "--type", "llm", "--after", "process"],
        ["step", "grown", "second", "finish", "--type", "code", "--lang", "python"],
        ["constructor", "grown"],
        ["destructor", "grown"],
        ["step", "grown", "_constructor", "prepare", "--type", "code", "--lang", "bash"],
    ]
    for args in commands:
        result = app_new(*args)
        assert result.exit_code == 0, f"{args}: {result.output}"
    check_and_run_everything(tmp_path / "grown")
    output = json.loads(
        app_run(
            "run",
            "grown",
            "second",
            "--input-json",
            "grown/pipelines/second/samples/input.json",
            "--provider",
            "scripted",
            "--answers",
            "grown/pipelines/second/samples/answers.yaml",
            cwd=tmp_path,
        ).stdout
    )
    assert output["step"] == "finish" and output["placeholder"] is True
    assert output["previous"] == {
        "summary": "Placeholder answer of step refine: replace it with a realistic one"
    }


def test_generated_python_is_ruff_clean(tmp_path: Path) -> None:
    pytest.importorskip("ruff", reason="ruff is a test extra")
    for build in CASES.values():
        build(tmp_path / build.__name__)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--config",
            str(REPO / "pyproject.toml"),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_bash_stub_works_without_jq(tmp_path: Path) -> None:
    CASES["pipeline-all-kinds"](tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, target in (
        ("bash", shutil.which("bash")),
        ("cat", shutil.which("cat")),
        ("python3", sys.executable),
    ):
        assert target
        (bindir / name).symlink_to(target)
    folder = tmp_path / "demo/pipelines/code-review"
    payload = {"input": {"repo": "o/ü", "pr_number": 7}, "steps": {}}
    done = subprocess.run(
        [str(bindir / "bash"), "steps/fetch_diff.sh"],
        cwd=folder,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(bindir)},
        check=True,
    )
    assert json.loads(done.stdout) == {
        "output": {"step": "fetch_diff", "placeholder": True, "input": payload["input"]}
    }


def test_a_failing_validation_makes_the_llm_step_retry_and_fail(
    tmp_path: Path, runtime_env: Path
) -> None:
    """The validate stub is wired in: an empty summary is rejected on every attempt."""
    CASES["pipeline-llm-first"](tmp_path)
    app = tmp_path / "demo"
    answers = app / "pipelines/classify/samples/answers.yaml"
    answers.write_text("answers:\n  classify/label:\n" + '    - summary: " "\n' * 3)
    done = app_run(
        "run",
        app,
        "classify",
        "--input-json",
        app / "pipelines/classify/samples/input.json",
        "--provider",
        "scripted",
        "--answers",
        answers,
        cwd=app,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "`summary` is empty" in done.stderr


def test_llm_steps_also_run_through_host_delegation(tmp_path: Path, runtime_env: Path) -> None:
    """No provider: the run pauses at the llm step (exit 6) and resumes with the host's answer."""
    CASES["pipeline-llm-first"](tmp_path)
    app = tmp_path / "demo"
    sample = app / "pipelines/classify/samples/input.json"
    paused = app_run("run", app, "classify", "--input-json", sample, "--provider", "none", cwd=app)
    assert paused.returncode == 6, paused.stdout + paused.stderr
    pause = json.loads(paused.stdout)
    assert pause["step"] == "label"
    assert "ticket: example ticket\n" in pause["prompt"]  # wired to {{input.ticket}}
    answer = tmp_path / "answer.json"
    answer.write_text('{"summary": "billing"}')
    done = app_run("resume", pause["session"], "--answer", answer, cwd=app)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["previous"] == {"summary": "billing"}


@needs_node
@pytest.mark.parametrize("lang", ["python", "bash", "node"])
def test_steps_added_to_a_hand_written_pipeline_read_hyphenated_names(
    tmp_path: Path, runtime_env: Path, lang: str
) -> None:
    """app-run allows `fetch-diff` and `pr-number`; the stubs must reach them too."""
    app = tmp_path / "hand"
    folder = app / "pipelines/p"
    (folder / "steps").mkdir(parents=True)
    (app / "SKILL.md").write_text("---\nname: hand\ndescription: Hand written.\n---\n")
    (folder / "pipeline.yaml").write_text(
        "name: p\ndescription: Hand written\ninput:\n  pr-number: integer\nsteps:\n"
        "  - name: fetch-diff\n    type: code\n    command: python3 steps/fetch.py\n"
    )
    (folder / "steps/fetch.py").write_text(
        "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'output': {'files': 2}}))\n"
    )
    result = app_new("step", str(app), "p", "count", "--type", "code", "--lang", lang)
    assert result.exit_code == 0, result.output
    done = app_run("run", app, "p", "--input", "pr-number=3", cwd=app)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == {
        "step": "count",
        "placeholder": True,
        "input": {"pr-number": 3},
        "previous": {"files": 2},
    }
