"""The tasks SKILL.md shows, and whether a plan accounts for each (converter/analyzers/coverage).

A section titled as a task whose own text has runnable code or runs a program is a task; setup
blocks (installs, exports) and parts of the document ("Quick start") are not.  A plan accounts
for a task by a pipeline's source or a skill_mode entry's where on a line of it or on the
heading of a section around it, or by a pipeline running the program the section runs.  The
analyst is shown the list, the report lists what a plan leaves out, and the heuristic analyzer
leaves those tasks to Skill mode by name.
"""

from __future__ import annotations

from pathlib import Path

from skill2app.converter.analyzers.brief import analyst_prompt, material_for
from skill2app.converter.analyzers.coverage import shown_tasks, unaccounted
from skill2app.converter.analyzers.heuristic import SHOWN_ONLY, analyze
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.model import CodeStep, Pipeline, Plan, SkillModeItem
from skill2app.converter.verify.report import Report

SKILL = """\
---
name: pdf-kit
description: Work with PDF files. Use when someone wants to merge, split or rotate PDFs.
---

# PDF kit

## Setup

```bash
pip install pypdf
export PDF_HOME=/tmp/pdfs
```

## Quick start

```python
print("hello")
```

## Merge PDFs

```python
from pypdf import PdfWriter
writer = PdfWriter()
```

## Python library

### Split a PDF

```python
from pypdf import PdfReader
```

### Rotate pages

```python
page.rotate(90)
```

## Fill a form

```bash
python scripts/fill.py form.pdf values.json out.pdf
```
"""


def _skill(tmp_path: Path) -> Path:
    skill = tmp_path / "pdf-kit"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (skill / "scripts" / "fill.py").write_text(
        "import argparse\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('form')\np.add_argument('values')\np.add_argument('out')\n"
        "p.parse_args()\n",
        encoding="utf-8",
    )
    return skill


def _line(title: str) -> int:
    return next(i for i, text in enumerate(SKILL.splitlines(), 1) if text.endswith(title))


def test_tasks_are_sections_with_code_or_a_program_not_setup_or_document_parts(
    tmp_path: Path,
) -> None:
    inventory = build_inventory(_skill(tmp_path))
    tasks = shown_tasks(inventory)
    assert [t.title for t in tasks] == ["Merge PDFs", "Split a PDF", "Rotate pages", "Fill a form"]
    assert tasks[0].line == _line("## Merge PDFs")
    assert tasks[3].programs == {"scripts/fill.py"}
    assert "runs scripts/fill.py" in tasks[3].shows


def test_a_plan_accounts_by_source_by_a_heading_around_or_by_the_program(tmp_path: Path) -> None:
    inventory = build_inventory(_skill(tmp_path))
    plan = Plan("pdf-kit", "PDF", analyzer="host")
    assert [t.title for t in unaccounted(plan, inventory)] == [
        "Merge PDFs", "Split a PDF", "Rotate pages", "Fill a form",
    ]  # fmt: skip
    plan.pipelines.append(Pipeline("merge", "Merge", source=f"SKILL.md:{_line('## Merge PDFs')}"))
    fill = CodeStep("fill", program="scripts/fill.py")
    plan.pipelines.append(Pipeline("fill", "Fill", steps=[fill]))  # no source: the program
    assert [t.title for t in unaccounted(plan, inventory)] == ["Split a PDF", "Rotate pages"]
    around = f"SKILL.md:{_line('## Python library')}"
    plan.skill_mode.append(SkillModeItem("Python library", "judgement", around))
    assert unaccounted(plan, inventory) == []
    plan.skill_mode[-1].where = f"SKILL.md:{_line('## Python library') + 1}"  # no heading
    assert [t.title for t in unaccounted(plan, inventory)] == ["Split a PDF", "Rotate pages"]


def test_the_analyst_is_shown_the_tasks_and_the_report_lists_what_is_left_out(
    tmp_path: Path,
) -> None:
    inventory = build_inventory(_skill(tmp_path))
    prompt = analyst_prompt(material_for(inventory, "pipelines: []\n"), "pipelines: []\n")
    listed = prompt.split("## The tasks SKILL.md shows", 1)[1].split("## The heuristic", 1)[0]
    assert f"SKILL.md:{_line('## Merge PDFs')}-" in listed and '"Rotate pages"' in listed
    assert "Quick start" not in listed and "Setup" not in listed
    plan = Plan("pdf-kit", "PDF", analyzer="host")
    report = Report.from_plan(plan, inventory, skill="pdf-kit", mode="out")
    assert len(report.unaccounted) == 4 and report.to_dict()["unaccounted"][0].startswith(
        f"SKILL.md:{_line('## Merge PDFs')}-"
    )
    assert any(line.startswith("Tasks SKILL.md shows") for line in report.human_lines())


def test_the_heuristic_leaves_the_tasks_it_makes_no_pipeline_for_to_skill_mode_by_name(
    tmp_path: Path,
) -> None:
    inventory = build_inventory(_skill(tmp_path))
    plan = analyze(inventory)
    assert unaccounted(plan, inventory) == []
    named = {item.topic for item in plan.skill_mode if item.reason == SHOWN_ONLY}
    made = {p.source for p in plan.pipelines}
    for task in shown_tasks(inventory):
        assert task.title in named or any(
            task.line <= int(s.rpartition(":")[2] or 0) <= task.end_line for s in made
        ) or task.programs & {s.program for p in plan.pipelines for s in p.steps
                              if isinstance(s, CodeStep)}  # fmt: skip
