"""examples/apps/<skill>: the five example skills converted by the heuristic analyzer, checked in.

Re-converting each example skill (``--out``) reproduces its APP exactly (file list, bytes and
executable bits; regenerate with UPDATE_GOLDEN=1), the APP passes ``app-run check`` with no
error, and every pipeline runs with ``app-run run`` in a temporary copy: code-only ones on
their samples, llm ones with the scripted provider and the generated sample answers.  Inputs
that need the outside world (a git repository, a work log, a calendar file) are made in the
temporary folder and override the samples.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.convert import Options, convert
from skill2app.converter.inventory.model import build_inventory
from skill2app.runtime.app.check import check_app, errors_in
from skill2app.runtime.app.model import load_app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "skills"
APPS = ROOT / "examples" / "apps"
SKILLS = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").is_file())
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
WORKLOG = "2025-06-02 proj-a 1.5h fix the export\n2025-06-03 proj-b 2h review\n\n"


def tree(root: Path) -> dict[str, tuple[bytes, bool]]:
    """Every file under ``root`` (caches aside): relative path -> (bytes, executable)."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), bool(p.stat().st_mode & 0o111))
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_every_example_skill_has_a_converted_app() -> None:
    assert SKILLS == [
        "csv-report",
        "release-notes",
        "team-calendar",
        "tech-writing-zh",
        "weekly-report",
    ]
    assert sorted(p.name for p in APPS.iterdir() if p.is_dir()) == SKILLS


@pytest.mark.parametrize("name", SKILLS)
def test_reconverting_reproduces_the_checked_in_app(name: str, tmp_path: Path) -> None:
    if UPDATE:
        shutil.rmtree(APPS / name, ignore_errors=True)
        report = convert(Options(EXAMPLES / name, out=APPS / name, analyzer="heuristic"))
        assert report.ok, report.human_lines()
    report = convert(Options(EXAMPLES / name, out=tmp_path / name, analyzer="heuristic"))
    assert report.ok, report.human_lines()
    got, want = tree(tmp_path / name), tree(APPS / name)
    assert sorted(got) == sorted(want), "file list differs (UPDATE_GOLDEN=1 regenerates)"
    for path in sorted(got):
        assert got[path] == want[path], f"{path} differs (UPDATE_GOLDEN=1 regenerates)"


@pytest.mark.parametrize("name", SKILLS)
def test_checked_in_app_passes_app_run_check(name: str) -> None:
    diagnostics = check_app(load_app(APPS / name))
    assert [d.one_line() for d in errors_in(diagnostics)] == []


# -- running every pipeline --------------------------------------------------------------


def app_run_program() -> str:
    beside = Path(sys.executable).with_name("app-run")
    found = str(beside) if beside.exists() else shutil.which("app-run")
    assert found, "the app-run console script is not installed (pip install -e .)"
    return found


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=Ana", "-c", "user.email=ana@example.com", *args],
        check=True,
        capture_output=True,
    )


def world(name: str, tmp: Path) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """(input overrides by pipeline, extra environment) that the example needs to run."""
    if name == "release-notes":
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        repo = tmp / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        git(repo, "commit", "-q", "--allow-empty", "-m", "chore: start")
        git(repo, "tag", "v1.4.0")
        git(repo, "commit", "-q", "--allow-empty", "-m", "feat: add the export")
        return {"release-notes": {"repo": str(repo)}}, {}
    if name == "team-calendar":
        if shutil.which("node") is None:
            pytest.skip("node is not installed")
        return {"calendar-cancel-event": {"id": "evt-1"}}, {
            "TEAM_CALENDAR_FILE": str(tmp / "calendar.json")
        }
    if name == "weekly-report":
        log = tmp / "worklog.txt"
        log.write_text(WORKLOG, encoding="utf-8")
        return {
            "check-log": {"logfile": str(log)},
            "worklog-summarize": {"log": str(log)},
            "worklog-export": {"log": str(log), "out": str(tmp / "hours.csv")},
        }, {}
    return {}, {}


EXPECTED: dict[str, Any] = {
    "csv-stats": lambda o: o["rows"] == 5 and o["columns"]["units"]["max"] == 7.0,
    "csv-filter": lambda o: o["stdout"].startswith("date,region,status,units,revenue\n"),
    "csv-inspect-columns": lambda o: o["columns"][0] == "date",
    "csv-inspect-sample": lambda o: len(o["rows"]) == 5,
    "calendar-create-event": lambda o: o["created"]["id"] == "evt-1",
    "calendar-list-events": lambda o: [e["id"] for e in o["events"]] == ["evt-1"],
    "calendar-cancel-event": lambda o: o["cancelled"]["summary"] == "Sprint review",
    "agenda": lambda o: o["stdout"].startswith("Agenda "),
    "release-notes": lambda o: o == {"result": "Sample answer of step read_the_rendered"},
    "tech-writing-zh": lambda o: o == {"result": "Sample answer of step apply_guidance"},
    "check-log": lambda o: o == {"stdout": "ok: 3 line(s)\n"},
    "worklog-summarize": lambda o: o["total"] == 3.5 and o["week"] == "2025-W23",
    "worklog-export": lambda o: o["stdout"].startswith("wrote 2 rows to "),
}


@pytest.mark.parametrize("name", SKILLS)
def test_every_pipeline_of_the_converted_app_runs(name: str, tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(APPS / name, app)
    overrides, extra = world(name, tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("APP_", "ANTHROPIC"))}
    env.update(
        extra,
        APP_RUN_HOME=str(tmp_path / "home"),
        PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
    )
    order = [p.name for p in analyze(build_inventory(EXAMPLES / name)).pipelines]
    for pipeline in order:
        samples = app / "pipelines" / pipeline / "samples"
        inputs = json.loads((samples / "input.json").read_text(encoding="utf-8"))
        inputs.update(overrides.get(pipeline, {}))
        (tmp_path / "input.json").write_text(json.dumps(inputs), encoding="utf-8")
        command = [
            app_run_program(),
            "run",
            ".",
            pipeline,
            "--input-json",
            str(tmp_path / "input.json"),
        ]
        if (samples / "answers.yaml").is_file():
            command += ["--provider", "scripted", "--answers", str(samples / "answers.yaml")]
        done = subprocess.run(command, cwd=app, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{pipeline}: {done.stderr}"
        output = json.loads(done.stdout)
        assert EXPECTED[pipeline](output), f"{pipeline}: {output}"
    assert tree(app).keys() >= tree(APPS / name).keys()
