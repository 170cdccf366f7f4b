"""examples/code-review, run exactly as its README says: the `app-run` console script in a
subprocess, from the repository root, with the recorded answers (no network).

Also the content rules of its validate script and the robustness of its diff parser, each
through the program itself, as app-run runs them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from skill2app.runtime.records.record import read_events

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "code-review"
PIPELINE = EXAMPLE / "pipelines" / "code-review"
ANSWERS = "examples/code-review/samples/answers.yaml"
README_COMMAND = [
    "run",
    "examples/code-review",
    "code-review",
    "--input",
    "diff_file=examples/code-review/samples/sample.diff",
    "--provider",
    "scripted",
    "--answers",
    ANSWERS,
]
SUMMARY = {
    "verdict": "changes requested",
    "score": 39,  # 100 - 25 (1 critical) - 30 (3 major) - 6 (2 minor)
    "files_changed": 3,
    "lines_added": 42,
    "lines_removed": 4,
    "issues": {"critical": 1, "major": 3, "minor": 2, "info": 1},
}
FIRST_REJECTION = [
    "analysed 2 files but the diff changes 3: missing tests/test_users.py",
    "web/static/cart.js finding 1: line 42 is outside the changed hunks (lines 4-21); "
    "cite a line inside them or use null",
]


def app_run_program() -> str:
    beside = Path(sys.executable).with_name("app-run")
    found = str(beside) if beside.exists() else shutil.which("app-run")
    assert found, "the app-run console script is not installed (pip install -e .)"
    return found


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user's shell with the venv active, run records in tmp_path/home, TMPDIR in tmp_path."""
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("APP_RUN_")}
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a newcomer's machine: caches get written
    env.update(
        APP_RUN_HOME=str(tmp_path / "home"),
        TMPDIR=str(tmp_path / "tmp"),
        PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
    )
    return env


def app_run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [app_run_program(), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def tree(root: Path) -> dict[str, str]:
    """Every file and folder under root with a hash of its content."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"
        for p in sorted(root.rglob("*"))
    }


def run_record(env: dict[str, str]) -> list[dict[str, Any]]:
    records = sorted((Path(env["APP_RUN_HOME"]) / "runs").glob("*.jsonl"))
    assert len(records) == 1, records
    return read_events(records[0])


def test_readme_command_reviews_the_sample_diff(env: dict[str, str]) -> None:
    before = tree(EXAMPLE)
    result = app_run(README_COMMAND, env)
    assert result.returncode == 0, result.stderr

    output = json.loads(result.stdout)
    assert {k: v for k, v in output["summary"].items() if k != "overview"} == SUMMARY
    assert "open to SQL injection" in output["summary"]["overview"]
    assert [line.split(" — ")[0].split() for line in output["findings"]] == [
        ["critical", "app/users.py:25"],
        ["major", "app/users.py:30"],
        ["major", "web/static/cart.js:9"],
        ["major", "web/static/cart.js:18"],
        ["minor", "app/users.py:36"],
        ["minor", "tests/test_users.py:10"],
        ["info", "tests/test_users.py"],
    ]
    report = output["report"]
    # app-run made diff_file absolute; fetch_diff shows it from where app-run was started
    title = "# Code review: examples/code-review/samples/sample.diff\n\n"
    assert report.startswith(f"{title}**Changes requested** — ")
    for row in (
        "score 39/100 · 3 files · +42 −4 lines · 7 issues (1 critical, 3 major, 2 minor, 1 info)",
        "| `app/users.py` | modified | +21 −0 | 1 critical, 1 major, 1 minor |",
        "| `tests/test_users.py` | added | +10 −0 | 1 minor, 1 info |",
        "| `web/static/cart.js` | modified | +11 −4 | 2 major |",
        "- **critical** · line 25 — SQL injection:",
        "- **info** · whole file — No test covers `load_preferences`",
    ):
        assert row in report
    assert (
        "↻ analyze_files attempt 1 rejected:\n"
        "      - analysed 2 files but the diff changes 3: missing tests/test_users.py\n"
    ) in result.stderr
    assert "code-review/analyze_files: ok (" in result.stderr and ", 1 retry)" in result.stderr

    events = run_record(env)
    started = [f"{e['pipeline']}/{e['step']}" for e in events if e["event"] == "step_start"]
    assert started == [
        "_constructor/check_tools",
        "_constructor/check_diff",
        "_constructor/make_workdir",
        "code-review/fetch_diff",
        "code-review/analyze_files",
        "code-review/calc_stats",
        "code-review/gen_report",
        "_destructor/cleanup",
    ]
    retries = [e for e in events if e["event"] == "step_retry"]
    assert [(e["step"], e["attempt"], e["errors"]) for e in retries] == [
        ("analyze_files", 1, FIRST_REJECTION)
    ]
    analyze_end = next(
        e for e in events if e["event"] == "step_end" and e["step"] == "analyze_files"
    )
    assert (analyze_end["status"], analyze_end["retries"]) == ("succeeded", 1)
    assert events[-1]["status"] == "succeeded"

    # The destructor removed the work dir the constructor made, and logged the run.
    base = Path(env["TMPDIR"]) / "app-run-code-review"
    assert sorted(p.name for p in base.iterdir()) == ["runs.log"]
    run_id = events[0]["run_id"]
    log = (base / "runs.log").read_text().splitlines()
    assert [line.split("\t")[1:] for line in log] == [
        [run_id, "code-review", "succeeded", "removed", ""]
    ]

    assert tree(EXAMPLE) == before, "the run wrote inside examples/code-review"


def test_check_passes_without_warnings(env: dict[str, str]) -> None:
    result = app_run(["check", "examples/code-review"], env)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "examples/code-review: ok (0 errors, 0 warnings)"


def test_missing_diff_fails_in_the_constructor(env: dict[str, str]) -> None:
    """A relative --input diff_file is looked up from where app-run was started."""
    args = [a.replace("samples/sample.diff", "samples/missing.diff") for a in README_COMMAND]
    result = app_run(args, env)
    assert result.returncode == 4, result.stderr
    assert result.stdout == ""
    assert "Error: constructor failed — step 'check_diff'" in result.stderr
    assert f"looked for {EXAMPLE}/samples/missing.diff" in result.stderr

    events = run_record(env)
    started = [f"{e['pipeline']}/{e['step']}" for e in events if e["event"] == "step_start"]
    assert started == ["_constructor/check_tools", "_constructor/check_diff"]
    assert [e["phase"] for e in events if e["event"] == "phase_start"] == ["constructor"]
    assert events[-1]["status"] == "constructor_failed"
    # Nothing was constructed, so there is nothing to clean up and no destructor ran.
    assert not (Path(env["TMPDIR"]) / "app-run-code-review").exists()


def test_destructor_cleans_up_after_a_failed_review(env: dict[str, str], tmp_path: Path) -> None:
    """Another diff (absolute path): the recorded answers do not fit it, validation rejects
    them until they run out — and the destructor still removes the work dir and logs it."""
    other = tmp_path / "other.diff"
    other.write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n")
    args = [f"diff_file={other}" if a.startswith("diff_file=") else a for a in README_COMMAND]
    result = app_run(args, env)
    assert result.returncode == 1, result.stderr
    assert "'app/users.py' is not in the diff (changed files: x.py)" in result.stderr
    assert (
        "Error: business failed — step 'analyze_files': "
        "scripted answers for code-review/analyze_files ran out"
    ) in result.stderr
    events = run_record(env)
    assert [e["phase"] for e in events if e["event"] == "phase_end"] == [
        "constructor",
        "business",
        "destructor",
    ]
    base = Path(env["TMPDIR"]) / "app-run-code-review"
    assert sorted(p.name for p in base.iterdir()) == ["runs.log"]
    fields = (base / "runs.log").read_text().rstrip("\n").split("\t")
    assert fields[3:5] == ["failed", "removed"]
    assert fields[5].startswith("scripted answers for code-review/analyze_files ran out after 2")


# --- the validate script -----------------------------------------------------------------


def sample_files() -> list[dict[str, Any]]:
    """fetch_diff's `files` for the sample diff, from the parser tool the step uses."""
    result = subprocess.run(
        [sys.executable, "tools/diffparse.py", "samples/sample.diff"],
        cwd=EXAMPLE,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)["files"]


def recorded(attempt: int) -> dict[str, Any]:
    answers = yaml.safe_load((EXAMPLE / "samples" / "answers.yaml").read_text())
    return answers["answers"]["code-review/analyze_files"][attempt - 1]


def validate(answer: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    payload = {
        "output": answer,
        "input": {"diff_file": "samples/sample.diff"},
        "steps": {"fetch_diff": {"output": {"files": sample_files()}}},
    }
    result = subprocess.run(
        [sys.executable, "steps/validate_analysis.py"],
        cwd=PIPELINE,
        env={**os.environ, "APP_TOOLS_DIR": str(EXAMPLE / "tools")},
        input=json.dumps(payload),
        capture_output=True,
        text=True,
    )
    return result.returncode, json.loads(result.stdout)


def _set(path: list[Any], value: Any) -> Any:
    def change(answer: dict[str, Any]) -> None:
        target: Any = answer
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "expected_error"),
    [
        (None, None),
        (_set(["files", 0, "findings", 0, "line"], None), None),
        (_set(["files", 0, "file"], "app/other.py"), "'app/other.py' is not in the diff"),
        (
            lambda a: a["files"].append(a["files"][0]),
            "app/users.py is analysed 2 times; give it one entry",
        ),
        (
            lambda a: a["files"].pop(),
            "analysed 2 files but the diff changes 3: missing web/static/cart.js",
        ),
        (
            _set(["files", 0, "findings", 0, "line"], 12),
            "app/users.py finding 1: line 12 is outside the changed hunks (lines 1-6, 16-38)",
        ),
        (_set(["files", 1, "findings", 0, "message"], "  "), "tests/test_users.py finding 1: "),
        (_set(["files", 2, "findings", 1, "suggestion"], ""), "web/static/cart.js finding 2: "),
        (_set(["summary"], "\n"), "empty summary"),
    ],
)
def test_validate_script(change: Any, expected_error: str | None) -> None:
    answer = recorded(2)
    if change is not None:
        change(answer)
    code, verdict = validate(answer)
    if expected_error is None:
        assert (code, verdict) == (0, {"valid": True, "errors": []})
    else:
        assert code == 1 and verdict["valid"] is False
        assert any(expected_error in e for e in verdict["errors"]), verdict["errors"]


def test_validate_script_rejects_the_first_recorded_answer() -> None:
    assert validate(recorded(1)) == (1, {"valid": False, "errors": FIRST_REJECTION})


# --- the diff parser ---------------------------------------------------------------------

GIT_RENAME_AND_DELETE = """\
diff --git a/old name.py b/new name.py
similarity index 90%
rename from old name.py
rename to new name.py
--- a/old name.py
+++ b/new name.py
@@ -1,2 +1,2 @@
-x = 1
+x = 2
 y = 3
\\ No newline at end of file
diff --git a/gone.js b/gone.js
deleted file mode 100644
--- a/gone.js
+++ /dev/null
@@ -1 +0,0 @@
--- a removed line that looks like a header
"""
PLAIN_DIFF_U = """\
--- src/app.c\t2024-05-01 10:00:00
+++ src/app.c\t2024-05-02 10:00:00
@@ -10,3 +10,4 @@ int main(void)
 a
+b
 c

"""

# `git format-patch` mail: a diffstat before the diff, the signature "-- " after it.
FORMAT_PATCH = """\
From 4b4f27b Mon Sep 17 00:00:00 2001
Subject: [PATCH] change

---
 a.py | 2 +-

diff --git a/a.py b/a.py
--- a/a.py
+++ b/a.py
@@ -1 +1 @@
-a
+b
-- \n2.39.5
"""
PLAIN_DIFF_N = """\
--- old/n.py\t1970-01-01 00:00:00
+++ new/n.py\t2024-05-02 10:00:00
@@ -0,0 +1,2 @@
+a
+b
"""


@pytest.mark.parametrize(
    ("text", "expected", "expected_error"),
    [
        (
            GIT_RENAME_AND_DELETE,
            [
                ("new name.py", "renamed", "Python", 1, 1, [[1, 2]]),
                ("gone.js", "deleted", "JavaScript", 0, 1, []),
            ],
            None,
        ),
        (PLAIN_DIFF_U, [("src/app.c", "modified", "C", 1, 0, [[10, 13]])], None),
        (
            PLAIN_DIFF_U.replace("\n", "\r\n").replace("+b", "+b\f# page break"),
            [("src/app.c", "modified", "C", 1, 0, [[10, 13]])],
            None,
        ),
        (FORMAT_PATCH, [("a.py", "modified", "Python", 1, 1, [[1, 1]])], None),
        (PLAIN_DIFF_N, [("new/n.py", "added", "Python", 2, 0, [[1, 2]])], None),
        (
            GIT_RENAME_AND_DELETE.replace("@@ -1,2 +1,2 @@", "@@ -1 +1 @@"),
            None,
            "comes after its hunk ended",
        ),
        (PLAIN_DIFF_U.replace(" c\n\n", ""), None, "ends inside a hunk"),
        ("just some text\n", None, "no changed files found"),
        ("@@ -1 +1 @@\n-a\n+b\n", None, "hunk before any file header"),
        (GIT_RENAME_AND_DELETE.replace(" y = 3", "?y = 3"), None, "does not fit the hunk"),
    ],
)
def test_diffparse(
    tmp_path: Path, text: str, expected: list[tuple] | None, expected_error: str | None
) -> None:
    diff = tmp_path / "change.diff"
    diff.write_bytes(text.encode("utf-8"))  # byte-exact: CR LF stays CR LF
    result = subprocess.run(
        [sys.executable, str(EXAMPLE / "tools" / "diffparse.py"), str(diff)],
        capture_output=True,
        text=True,
    )
    if expected_error is not None:
        assert result.returncode == 1
        assert expected_error in result.stderr
        return
    assert result.returncode == 0, result.stderr
    files = json.loads(result.stdout)["files"]
    got = [
        (f["path"], f["status"], f["language"], f["added"], f["removed"], f["new_ranges"])
        for f in files
    ]
    assert got == expected
