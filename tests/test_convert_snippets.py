"""The heuristic analyzer makes pipelines of the tasks SKILL.md shows as Python snippets."""

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
name: texts
description: Count and join text files. Use when joining notes or counting their lines.
---

# Texts

## Quick Start

```python
data = open("notes.txt").read()
```

## Join text files

```python
import pathlib

parts = []
for name in ["monday.txt", "tuesday.txt"]:
    parts.append(pathlib.Path(name).read_text())
with open("week.txt", "w") as out:
    out.write("\\n".join(parts))
```

## Count lines

```python
lines = pathlib.Path("report.txt").read_text().splitlines()
print(f"{len(lines)} lines")
```

## Log in

```python
session = login("me", password="hunter2", url="config.json")
```

## Undefined helper

```python
print(summarise("report.txt"))
```

## Editing a table

```python
import csv

rows = list(csv.reader(open("existing.csv")))
rows[0][0] = "New Value"
table = {"total": 0}
table["total"] = 42
csv.writer(open("modified.csv", "w")).writerows(rows)
```
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "texts", {"SKILL.md": SKILL_MD})


def test_runnable_snippets_that_read_files_become_pipelines(skill: Path) -> None:
    plan = analyze(build_inventory(skill))
    snippets = {p.name: p for p in plan.pipelines if p.steps and p.steps[0].to_dict().get("write")}
    # not: Quick Start (generic), Log in (a password in the code), Undefined helper (summarise),
    # Editing a table (it writes the example's "New Value" and 42 into the user's file)
    assert sorted(snippets) == ["count-lines", "join-text-files"]
    join = snippets["join-text-files"]
    assert [i.to_dict() for i in join.input] == [
        {"name": "names", "type": "array", "required": True,
         "description": "Files to read, in order (e.g. monday.txt, tuesday.txt)"},
        {"name": "output_path", "type": "string", "required": False,
         "description": "File to write (e.g. week.txt)", "default": "week.txt"},
    ]  # fmt: skip
    assert join.sample.input == {"names": ["samples/text.txt", "samples/text.txt"]}
    count = snippets["count-lines"]
    source = count.steps[0].to_dict()["write"]["source"]
    assert "import pathlib" in source  # taken from the join example's imports
    assert count.description == "Count lines"


def test_the_snippet_pipelines_run_and_pass_their_smoke_run(skill: Path, tmp_path: Path) -> None:
    report = convert(Options(skill_dir=skill, out=tmp_path / "app", smoke=True))
    assert report.ok, report.human_lines()
    app = tmp_path / "app"
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("three\n", encoding="utf-8")
    done = invoke("run", app, "count-lines", "-i", f"text_file={tmp_path / 'a.txt'}", "-q")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout) == {"printed": "2 lines\n", "written": []}
    names = json.dumps([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")])
    out = tmp_path / "both.txt"
    done = invoke("run", app, "join-text-files", "-i", f"names={names}", "-i",
                  f"output_path={out}", "-q")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert out.read_text(encoding="utf-8") == "one\ntwo\n\nthree\n"


def test_a_snippet_under_a_negative_title_is_no_pipeline(tmp_path: Path) -> None:
    """interpreting-culture-index (fresh3): a JSON-loading snippet sat under "## When NOT to
    Use" (its own heading was an XML tag) and became a pipeline named when-not-to-use."""
    skill = write_tree(
        tmp_path / "ci",
        {
            "SKILL.md": "---\nname: ci\ndescription: Reads profiles.\n---\n# CI\n\n"
            "## When NOT to Use\n\n- For clinical assessments\n\n<input_formats>\n\n"
            '```python\nimport json\nwith open("profile.json") as f:\n'
            "    data = json.load(f)\nprint(data)\n```\n\n"
            "## Count lines\n\n"
            '```python\nwith open("notes.txt") as f:\n    print(len(f.readlines()))\n```\n',
        },
    )
    names = [p.name for p in analyze(build_inventory(skill)).pipelines]
    assert "when-not-to-use" not in names
    assert "count-lines" in names


def test_a_written_step_reads_the_skills_own_file_from_the_app_folder_only(
    tmp_path: Path,
) -> None:
    """exploratory-data-analysis (round 23's judge): a snippet reading
    `references/formats.md` failed outside the APP folder; it is read from the APP folder
    when the caller's has none, and a path that climbs out of the APP folder is not."""
    import json as json_module
    import os
    import subprocess
    import sys
    from types import SimpleNamespace

    from skill2app.converter.analyzers.snippets import reading

    app = tmp_path / "app"
    (app / "references").mkdir(parents=True)
    (app / "references" / "formats.md").write_text("### .pdb\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    step = app / "pipelines" / "p" / "steps" / "s.py"
    step.parent.mkdir(parents=True)
    item = SimpleNamespace(name="doc", value="references/formats.md", writes=False)
    lines = ["import json", "import os", "import sys", *reading([item]), "print(json.dumps(doc))"]
    step.write_text("\n".join(lines) + "\n")
    caller = tmp_path / "caller"
    caller.mkdir()
    env = {**os.environ, "APP_CALLER_CWD": str(caller), "APP_ROOT": str(app)}

    def run(path: str) -> str:
        payload = json_module.dumps({"input": {"doc": path}})
        done = subprocess.run(
            [sys.executable, str(step)], input=payload, capture_output=True, text=True, env=env
        )
        return json_module.loads(done.stdout)

    assert run("references/formats.md") == str(app / "references" / "formats.md")
    assert run(str(caller / "references" / "formats.md")) == str(app / "references/formats.md")
    assert run("references/../../outside.txt") == "references/../../outside.txt"  # not found


def test_advice_stand_in_values_and_a_task_shown_twice_make_no_more_pipelines(
    tmp_path: Path,
) -> None:
    """markitdown (round 27): twelve pipelines, one per snippet: "Handle Errors Gracefully"
    under "## Best Practices", "Python API" under "## Quick Start", an Azure example whose
    endpoint was the literal "<document_intelligence_endpoint>", and "Extract Tables" beside
    "Extract Data from Excel" (the same call on the same kind of file)."""
    convert_block = (
        "```python\nfrom markitdown import MarkItDown\nmd = MarkItDown()\n"
        'r = md.convert("{f}")\nprint(r.text_content)\n```\n'
    )
    skill = write_tree(
        tmp_path / "md",
        {
            "SKILL.md": "---\nname: md\ndescription: Converts files to Markdown.\n---\n# MD\n\n"
            "## Quick Start\n\n### Python API\n\n" + convert_block.format(f="a.pdf") + "\n"
            "## Use cases\n\n### Convert papers\n\n" + convert_block.format(f="paper.pdf") + "\n"
            "### Extract data from Excel\n\n" + convert_block.format(f="data.xlsx") + "\n"
            "### Extract tables\n\n" + convert_block.format(f="tables.xlsx") + "\n"
            "### Azure\n\n"
            "```python\nfrom markitdown import MarkItDown\n"
            'md = MarkItDown(docintel_endpoint="<document_intelligence_endpoint>")\n'
            'print(md.convert("scan.pdf").text_content)\n```\n\n'
            "## Best Practices\n\n### Handle errors gracefully\n\n"
            "```python\nfrom markitdown import MarkItDown\nmd = MarkItDown()\ntry:\n"
            '    print(md.convert("x.docx").text_content)\nexcept Exception as e:\n'
            "    print(e)\n```\n",
        },
    )
    pipelines = {p.name: p for p in analyze(build_inventory(skill)).pipelines}
    assert set(pipelines) == {"convert-papers", "extract-data-from-excel"}
    assert "extract tables" in pipelines["extract-data-from-excel"].triggers  # said of it too


def test_no_verb_said_another_way_without_its_object() -> None:
    from skill2app.converter.analyzers.verbs import variants

    # markitdown (round 27): "turn with ai", "change batch"
    assert variants(["convert with ai", "batch convert"]) == []
    assert variants(["merge PDFs"]) == ["combine PDFs", "join PDFs"]


def test_different_tasks_with_the_same_calls_stay_apart(tmp_path: Path) -> None:
    """A reviewer's read of the markitdown rule: "Extract the First Page" makes Merge's calls
    on PDFs, "Count Pages" Read Metadata's; a title naming another action is another task.
    A printed sentence with "your" in it is no stand-in value, the skill's own title
    ("# Performance PDF Toolkit") advises nothing, and "Performance Testing" holds tasks."""
    write = "writer = PdfWriter()\n"
    block = "```python\nfrom pypdf import PdfReader, PdfWriter\n{}```\n"
    sections = {
        "Merge PDFs": 'r = PdfReader("a.pdf")\n' + write + "writer.add_page(r.pages[0])\n"
        'writer.write(open("merged.pdf", "wb"))\n',
        "Extract the First Page": 'r = PdfReader("report.pdf")\n'
        + write
        + 'writer.add_page(r.pages[0])\nwriter.write(open("first.pdf", "wb"))\n',
        "Read Metadata": 'r = PdfReader("document.pdf")\nprint(r.metadata)\n',
        "Count Pages": 'r = PdfReader("document.pdf")\nprint(len(r.pages))\n',
        "Report Progress": 'r = PdfReader("big.pdf")\n'
        'print("Reading your document, this may take a while")\n',
    }
    body = "".join(f"## {t}\n\n{block.format(code)}\n" for t, code in sections.items())
    body += "## Performance Testing\n\n### Time a read\n\n"
    body += block.format('r = PdfReader("big.pdf")\nprint(len(r.pages))\n')
    skill = write_tree(
        tmp_path / "pdfmini",
        {
            "SKILL.md": "---\nname: pdfmini\ndescription: PDF tools.\n---\n"
            "# Performance PDF Toolkit\n\n" + body
        },
    )
    names = {p.name for p in analyze(build_inventory(skill)).pipelines}
    assert names == {
        "merge-pdfs",
        "extract-the-first-page",
        "read-metadata",
        "count-pages",
        "report-progress",
        "time-a-read",
    }


def test_one_file_an_example_reads_twice_is_one_input(tmp_path: Path) -> None:
    """image-to-svg: a block calling `image_to_svg("photo.jpg", ...)` four times made the
    inputs image_file, photo_file, photo_file_3 and photo_file_4, all the same photo."""
    skill = write_tree(
        tmp_path / "stats",
        {
            "SKILL.md": "---\nname: stats\ndescription: Text statistics.\n---\n# Stats\n\n"
            "## Count words and lines\n\n```python\nimport pathlib\n\n"
            'print(len(pathlib.Path("notes.txt").read_text().split()))\n'
            'print(len(pathlib.Path("notes.txt").read_text().splitlines()))\n'
            'print(len(pathlib.Path("other.txt").read_text()))\n```\n'
        },
    )
    (pipeline,) = analyze(build_inventory(skill)).pipelines
    names = [i.name for i in pipeline.input]
    assert sorted(names) == ["notes_file", "text_file"]  # two files, two inputs
    notes = next(f.name for f in pipeline.input if "notes.txt" in (f.description or ""))
    (step,) = pipeline.steps
    source = step.write.source
    assert source.count(f"INPUT.get({notes!r})") == 1
    assert source.count(f"pathlib.Path({notes})") == 2
