"""app-convert on real skills: what a pipeline lacks is said in one line.

The constructor's warnings were computed and never shown where they mattered, and a step
failing on a missing dependency printed a 20-line traceback.  Now a required check names the
pipeline that needs it and what to install; a warning only the documents give is for Skill
mode; and the adapter turns "No module named ..." into one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import write_tree

from skill2app.converter.convert import Options, convert

HEAD = "---\nname: demo\ndescription: Does things.\n---\n# Demo\n\n"


def converted(tmp_path: Path) -> Path:
    write_tree(
        tmp_path / "skill",
        {
            "SKILL.md": HEAD + "## Pages\n\n```bash\npython3 scripts/pages.py in.pdf\n```\n\n"
            "## Words\n\n```bash\npython3 scripts/words.py notes.txt\n```\n\n"
            "## Other tools\n\n```bash\nmade-up-viewer-xyz --check in.pdf\n```\n",
            "scripts/pages.py": (
                "import sys, subprocess\nsubprocess.run(['not-a-real-tool-xyz', sys.argv[1]])\n"
            ),
            "scripts/words.py": (
                "import sys\nmodule = __import__('not_installed_' + 'module_xyz')\n"
                "print(len(open(sys.argv[1]).read().split()))\n"
            ),
        },
    )
    convert(Options(tmp_path / "skill", out=tmp_path / "app", analyzer="heuristic"))
    return tmp_path / "app"


def run_step(app: Path, path: str, business: str, payload: dict) -> subprocess.CompletedProcess:
    env = {**os.environ, "APP_ROOT": str(app), "APP_BUSINESS_PIPELINE": business}
    return subprocess.run(
        [sys.executable, str(app / path)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=app,
        check=False,
    )


def test_a_missing_program_stops_only_the_pipeline_that_needs_it(tmp_path: Path) -> None:
    app = converted(tmp_path)
    check = "pipelines/_constructor/steps/check_environment.py"
    pages = run_step(app, check, "pages", {})
    assert pages.returncode == 1
    assert pages.stderr.strip().splitlines() == [
        "check_environment: the program 'not-a-real-tool-xyz' is not on PATH: install it "
        "(needed by pages: seen in scripts/pages.py)"
    ]
    words = run_step(app, check, "words", {})
    assert words.returncode == 0, words.stderr
    assert json.loads(words.stdout)["output"]["warnings"] == []  # qpdf: for Skill mode only
    skill_mode = run_step(app, check, "_skill", {})
    assert skill_mode.returncode == 1  # Skill mode may run any program
    if (
        "qpdf" not in os.environ.get("PATH", "")
        and subprocess.run(
            ["sh", "-c", "command -v qpdf"], capture_output=True, check=False
        ).returncode
    ):
        assert "check_environment: warning: the program 'qpdf'" in skill_mode.stderr


def test_a_step_missing_a_module_says_so_in_one_line(tmp_path: Path) -> None:
    app = converted(tmp_path)
    (tmp_path / "notes.txt").write_text("a b c\n")
    done = run_step(
        app,
        "pipelines/words/steps/words.py",
        "words",
        {"input": {"file": str(tmp_path / "notes.txt")}},
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "scripts/words.py needs the Python package not_installed_module_xyz"
    ]
