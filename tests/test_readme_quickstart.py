"""The README's quick start, run as written: its `app-convert` and `app-run` commands, taken
from the README itself, as console scripts in subprocesses (the output folder moved into a
temporary folder). The install part (`pip install .`) is what tests/test_packaging.py covers."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def quick_start_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)\n```", section, re.S)
    assert block, "the quick start has no bash block"
    commands = [shlex.split(part) for part in block.group(1).split(" && ")]
    return [argv for argv in commands if argv[0] in ("app-convert", "app-run")]


def test_the_quick_start_converts_the_bundled_skill_and_answers_the_request(
    tmp_path: Path,
) -> None:
    commands = quick_start_commands()
    assert [argv[0] for argv in commands] == ["app-convert", "app-run"]
    moved = tmp_path / "csv-report-app"
    env = {**os.environ, "APP_RUN_HOME": str(tmp_path / "home"), "ANTHROPIC_API_KEY": ""}
    env.pop("APP_RUN_PROVIDER", None)
    results = []
    for argv in commands:
        argv = [
            str(BIN / argv[0]),
            *(a.replace("/tmp/csv-report-app", str(moved)) for a in argv[1:]),
        ]
        results.append(subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True))
    convert, ask = results
    assert convert.returncode == 0, convert.stderr
    assert "Smoke test: 4 of 4 steps passed" in convert.stderr
    assert ask.returncode == 0, ask.stderr
    assert "csv-stats" in ask.stderr
    output = json.loads(ask.stdout)
    assert output["rows"] == 5
    assert output["columns"]["revenue"]["max"] == 301.25
