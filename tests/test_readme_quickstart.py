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


def test_the_reference_pipeline_yaml_passes_check(tmp_path: Path) -> None:
    """The README's annotated pipeline.yaml is a valid pipeline, `needs:` and all."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("A pipeline.yaml, for reference", 1)[1]
    block = re.search(r"```yaml\n(.*?)\n```", section, re.S)
    assert block, "the reference has no yaml block"
    folder = tmp_path / "app" / "pipelines" / "count"
    for rel, content in {
        "pipeline.yaml": block.group(1) + "\n",
        "steps/count.py": "print('{\"output\": 1}')\n",
        "steps/validate_summarise.py": "print('{\"valid\": true}')\n",
        "schemas/summarise.json": '{"type": "object"}\n',
    }.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(content, encoding="utf-8")
    (tmp_path / "app" / "SKILL.md").write_text("# app\n", encoding="utf-8")
    done = subprocess.run(
        [str(BIN / "app-run"), "check", str(tmp_path / "app")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "0 errors, 0 warnings" in done.stderr
