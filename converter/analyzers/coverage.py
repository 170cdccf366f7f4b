"""The tasks SKILL.md shows, and whether a plan accounts for each of them.

A task is a section of SKILL.md, titled as a task (not "Overview" or "Quick start": see
``triggers.title_text``), whose own text holds runnable code (a fenced block of Python, shell
or JavaScript) or a command running one of the skill's programs.  The section is the
innermost one around the code, so "## Python libraries" with "### Merge PDFs" and "### Split
a PDF" below it shows two tasks.

An analyst's plan accounts for a task when a pipeline's ``source`` or a ``skill_mode`` entry's
``where`` names a line of it or the heading of a section around it ("## Creating documents"
stands for its "### Tables" and "### Images"), or a pipeline runs a program the section runs.
The analyst is shown the list before it answers (``brief``), and what its plan leaves out is
in the report: judges of converted skills found missing tasks the commonest reason an author
would not ship an APP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skill2app.converter.analyzers.document import own_range
from skill2app.converter.analyzers.triggers import title_text
from skill2app.converter.plan.model import CodeStep

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.plan.model import Plan

RUNNABLE = frozenset(
    {"python", "py", "python3", "bash", "sh", "shell", "console", "zsh", "js", "javascript",
     "node", "mjs", "ts", "typescript"}
)  # fmt: skip

_SETUP = re.compile(
    r"^(?:\$\s*)?(?:export|set|setx|cd|source|\.|(?:sudo\s+)?(?:apt(?:-get)?|brew|yum|dnf|apk)\s+"
    r"(?:install|add)|(?:uv\s+)?pip3?\s+install|python3?\s+-m\s+pip\s+install|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:i|install|add)|npx\s+\S+\s+init|conda\s+install|"
    r"go\s+install|cargo\s+install|gem\s+install)\b"
)


@dataclass(frozen=True)
class Task:
    title: str
    line: int
    end_line: int
    shows: str  # "python code at line 54", "runs scripts/fill.py at line 80"
    programs: frozenset[str]  # the skill's programs the section runs

    def cite(self, path: str = "SKILL.md") -> str:
        return f'{path}:{self.line}-{self.end_line} "{self.title}" ({self.shows})'


def shown_tasks(inventory: Inventory) -> list[Task]:
    """The tasks SKILL.md shows, in document order."""
    doc = inventory.skill
    evidence: dict[int, list[str]] = {}
    programs: dict[int, set[str]] = {}
    for block in doc.code_blocks:
        if block.language in RUNNABLE and block.section >= 0 and not _setup_only(block.text):
            evidence.setdefault(block.section, []).append(
                f"{block.language} code at line {block.line}"
            )
    for program in inventory.programs:
        for inv in program.invocations:
            index = doc.section_of(inv.line) if inv.file == doc.path else -1
            if index >= 0:
                evidence.setdefault(index, []).append(f"runs {program.path} at line {inv.line}")
                programs.setdefault(index, set()).add(program.path)
    tasks = []
    for index in sorted(evidence):
        section = doc.sections[index]
        title = title_text(section.title)
        if title:
            end = own_range(doc, index)[1]
            shown = "; ".join(dict.fromkeys(evidence[index]))
            tasks.append(Task(title, section.line, end, shown, frozenset(programs.get(index, ()))))
    return tasks


def unaccounted(plan: Plan, inventory: Inventory) -> list[Task]:
    """The tasks of SKILL.md that no pipeline and no skill_mode entry of ``plan`` names."""
    doc = inventory.skill
    lines = [cited(p.source, doc.path) for p in plan.pipelines]
    lines += [cited(item.where, doc.path) for item in plan.skill_mode]
    run = {s.program for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)}
    heads = {s.line: s.end_line for s in doc.sections}
    missing = []
    for task in shown_tasks(inventory):
        named = any(
            task.line <= line <= task.end_line or line <= task.line <= heads.get(line, -1)
            for line in lines
            if line
        )
        if not (named or task.programs & run):
            missing.append(task)
    return missing


def cited(where: str, doc_path: str = "SKILL.md") -> int:
    """The line of ``doc_path`` that a ``file:line`` names (0 for another file or none)."""
    file, _, line = (where or "").rpartition(":")
    same = file.rsplit("/", 1)[-1] == doc_path.rsplit("/", 1)[-1]
    return int(line) if same and line.isdigit() else 0


def _setup_only(code: str) -> bool:
    """Whether a block only prepares (installs, sets variables, changes folder): no task."""
    lines = [line.strip() for line in code.splitlines()]
    return all(_SETUP.match(line) for line in lines if line and not line.startswith("#"))
