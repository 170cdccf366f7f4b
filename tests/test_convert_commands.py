"""The heuristic analyzer makes pipelines of the tasks SKILL.md shows as one tool command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import invoke, write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.convert import Options, convert
from skill2app.converter.inventory.model import build_inventory

pytestmark = pytest.mark.usefixtures("runtime_env")

SKILL_MD = """\
---
name: jsonkit
description: Tidy and check JSON files. Use when a JSON file needs tidying or its text read.
---

# JSON kit

## Reading

```bash
# Format a JSON file
python -m json.tool data.json

# Format it sorted
python -m json.tool --sort-keys data.json
```

## Save a tidy copy

```bash
python -m json.tool messy.json output.json
```

## Report

```bash
# Convert the report
rendertool report.docx
# Count its pages
pdfinfo report.pdf
```

## Extract text

```bash
# Extract text
textgrab-not-installed-here notes.pdf out.txt
```

## Other lines

```bash
# Search it
grepper data.json | head -5
# Unlock it
pdfunlock --password=hunter2 locked.pdf
# Check it with our script
python scripts/check.py data.json
# List the files
lister
```
"""

CHECK_PY = """\
import sys
print("ok", sys.argv[1:])
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "jsonkit", {"SKILL.md": SKILL_MD, "scripts/check.py": CHECK_PY})


def _commands(skill: Path) -> dict:
    plan = analyze(build_inventory(skill))
    return {
        p.name: p
        for p in plan.pipelines
        if p.steps
        and "subprocess.run" in (p.steps[0].to_dict().get("write") or {}).get("source", "")
    }


def test_one_tool_command_under_a_task_becomes_a_pipeline(skill: Path) -> None:
    found = _commands(skill)
    # not: "Format it sorted" (its verb is a pipeline already), "Count its pages" (it
    # reads the PDF the line above makes), a pipe, a password, an install, the skill's own
    # script (a pipeline of its own), a command that reads no file
    assert sorted(found) == [
        "convert-the-report",
        "extract-text",
        "format-a-json-file",
        "save-a-tidy-copy",
    ]
    pretty = found["format-a-json-file"]
    assert pretty.description == "Format a JSON file with json.tool"
    assert [i.to_dict() for i in pretty.input] == [
        {"name": "json_file", "type": "string", "required": True,
         "description": "File to read (e.g. data.json)"},
    ]  # fmt: skip
    assert pretty.sample.input == {"json_file": "samples/data.json"}
    assert pretty.source == "SKILL.md:12"  # the command's line
    assert "format a json file data.json" in [t.lower() for t in pretty.triggers]
    tidy = found["save-a-tidy-copy"]  # the section's title: the block's one command
    assert [(i.name, i.required, i.default) for i in tidy.input] == [
        ("json_file", True, None),
        ("output_path", False, "output.json"),
    ]


def test_the_command_pipelines_run_and_a_missing_tool_is_said(skill: Path, tmp_path: Path) -> None:
    report = convert(Options(skill_dir=skill, out=tmp_path / "app", smoke=True))
    assert report.ok, report.human_lines()
    smoke = {(r.pipeline, r.status) for r in report.verification.smoke}
    assert ("format-a-json-file", "passed") in smoke
    # the tool is not installed here: its stand-in records the command line the step runs
    (extract,) = [r for r in report.verification.smoke if r.pipeline == "extract-text"]
    assert extract.status == "traced"
    assert [c.line() for c in extract.calls] == [
        "textgrab-not-installed-here pipelines/extract-text/samples/one-page.pdf out.txt"
    ]
    app = tmp_path / "app"
    data = tmp_path / "in.json"
    data.write_text('{"b": 1, "a": [1, 2]}', encoding="utf-8")
    out = tmp_path / "tidy.json"
    done = invoke("run", app, "save-a-tidy-copy", "-i", f"json_file={data}", "-i",
                  f"output_path={out}", "-q")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == {"b": 1, "a": [1, 2]}
    assert json.loads(done.stdout)["written"] == [str(out)]
    done = invoke("run", app, "extract-text", "-i", f"pdf_file={data}", "-q")
    assert done.exit_code != 0
    assert "needs the program textgrab-not-installed-here" in done.stderr


def test_a_media_file_after_i_is_read_and_the_last_file_is_written(tmp_path: Path) -> None:
    """ffmpeg-expert (judge, round 21): `ffmpeg -i input.mp4 ... output.gif` read a literal
    input.mp4 and took output.gif for the file to read; a thumbnail after the inputs given by
    -i is what ffmpeg writes; a file after --download is written, not read (bailian-cli)."""
    md = (
        "---\nname: media\ndescription: Edit media with ffmpeg.\n---\n\n# Media\n\n"
        "## Make a GIF\n\n```bash\nffmpeg -i input.mp4 -t 5 -vf fps=10 output.gif\n```\n\n"
        "## Extract a Thumbnail\n\n```bash\nffmpeg -ss 5 -i clip.mov -frames:v 1 thumb.jpg\n```\n\n"
        "## Fetch a Video\n\n```bash\nmediatool get --prompt sunset --download sunset.mp4\n```\n\n"
        "## Convert a Talk to MP3\n\n```bash\nffmpeg -i talk.mp4 -vn talk.mp3\n```\n"
    )
    root = write_tree(tmp_path, {"SKILL.md": md})
    found = {p.name: p for p in analyze(build_inventory(root)).pipelines}
    assert sorted(found) == ["convert-a-talk-to-mp3", "extract-a-thumbnail", "make-a-gif"]
    audio = [(i.name, i.required, i.default) for i in found["convert-a-talk-to-mp3"].input]
    assert audio == [("video_file", True, None), ("output_path", False, "talk.mp3")]
    gif = [(i.name, i.required, i.default) for i in found["make-a-gif"].input]
    assert gif == [("video_file", True, None), ("output_path", False, "output.gif")]
    thumb = [(i.name, i.required, i.default) for i in found["extract-a-thumbnail"].input]
    assert thumb == [("video_file", True, None), ("output_path", False, "thumb.jpg")]


def test_a_task_titled_in_japanese_names_its_tool_in_brackets(tmp_path: Path) -> None:
    """ffmpeg-expert (inventory, round 21): "MP3で抽出 with ffmpeg" mixed two languages."""
    md = (
        "---\nname: media\ndescription: ffmpeg で動画を編集する。\n---\n\n# メディア\n\n"
        "## MP3で抽出\n\n```bash\nffmpeg -i input.mp4 -vn output.mp3\n```\n"
    )
    root = write_tree(tmp_path, {"SKILL.md": md})
    (pipeline,) = analyze(build_inventory(root)).pipelines
    assert pipeline.description == "MP3で抽出（ffmpeg）"
