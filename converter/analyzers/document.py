"""Where things are in SKILL.md: a section's own lines and prose, list items, rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skill2app.converter.analyzers.text import RULE_TITLES, is_rule, strip_markdown
from skill2app.converter.inventory.invocations import Invocation
from skill2app.converter.inventory.skill import SkillDoc

_ORDERED = re.compile(r"^\s{0,3}(\d+)[.)]\s+(.*)$")
# "Step 2: Parse events", "Phase 1 - Reproduce", "ステップ2：…", "步骤 2：…", "第2步 …"
_STEP_NUMBER = r"(?:step|phase|stage|ステップ|步骤|阶段)\s*(\d+)|第\s*(\d+)\s*[步阶]段?"
_AFTER_NUMBER = r"\s*(?:[:：.)\-–—]\s*|\s+|$)(.*)$"  # the title after it
_STEP_TITLE = re.compile(rf"^(?:{_STEP_NUMBER}){_AFTER_NUMBER}", re.I)
# ... or numbered as a step of its section: "1. Analyze Data Structure", "2) Plan".
_NUMBERED_TITLE = re.compile(rf"^(?:{_STEP_NUMBER}|(\d+)[.)]){_AFTER_NUMBER}", re.I)
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+(.*)$")


@dataclass
class Item:
    """One item of an ordered list, with the invocations written inside it."""

    number: int
    line: int
    end_line: int
    text: str  # the item's prose without Markdown, code blocks left out
    raw: str = ""  # the same with Markdown (inline code) kept
    invocations: list[Invocation] = field(default_factory=list)
    heading: bool = False  # a step written as a sub-heading (``### Step 2: Parse``)


def own_range(doc: SkillDoc, index: int) -> tuple[int, int]:
    """First and last file line of a section's own text (up to the next heading of any level)."""
    section = doc.sections[index]
    if index + 1 < len(doc.sections):
        return section.line + 1, doc.sections[index + 1].line - 1
    return section.line + 1, doc.body_line + len(doc.body_lines) - 1


def prose_lines(doc: SkillDoc, start: int, end: int) -> list[tuple[int, str]]:
    """(file line, text) of the non-code lines between ``start`` and ``end``."""
    all_lines = doc.body_lines
    skip = doc.code_lines
    out = []
    for line in range(start, end + 1):
        offset = line - doc.body_line
        if 0 <= offset < len(all_lines) and line not in skip:
            out.append((line, all_lines[offset]))
    return out


def section_prose(doc: SkillDoc, index: int) -> str:
    start, end = own_range(doc, index)
    return "\n".join(text for _line, text in prose_lines(doc, start, end)).strip()


def ordered_items(doc: SkillDoc, index: int) -> list[Item]:
    """The items of the ordered list(s) in a section's own text."""
    start, end = own_range(doc, index)
    items: list[Item] = []
    for line, text in prose_lines(doc, start, end):
        match = _ORDERED.match(text)
        if match:
            if items:
                items[-1].end_line = line - 1
            items.append(Item(int(match.group(1)), line, end, match.group(2).strip()))
        elif items and text.strip() and (text.startswith((" ", "\t"))):
            items[-1].text += " " + text.strip()
        elif items and text.strip() and not text.startswith((" ", "\t")):
            items[-1].end_line = line - 1
            break
    for item in items:
        item.raw = item.text
        item.text = strip_markdown(item.text)
    return items


def ancestors(doc: SkillDoc, index: int) -> list[int]:
    """The sections section ``index`` sits under, innermost first."""
    found = []
    at = doc.parents[index]
    while at != -1:
        found.append(at)
        at = doc.parents[at]
    return found


def headed_items(doc: SkillDoc, index: int, numbered: bool = False) -> list[Item]:
    """The steps of a section written as sub-headings (``### Step 1: Parse``; with
    ``numbered``, ``### 1. Analyze Data`` too), in order: each is an item spanning its
    sub-heading's whole text.  Empty unless there are two or more, all at one heading level."""
    parent = doc.sections[index]
    steps = []
    pattern = _NUMBERED_TITLE if numbered else _STEP_TITLE
    for at in range(index + 1, len(doc.sections)):
        if doc.sections[at].level <= parent.level:
            break
        match = pattern.match(doc.sections[at].title.strip())
        if match is not None and ancestors(doc, at)[0] == index:  # its own, not deeper ones
            steps.append((at, match))
    if len(steps) < 2 or len({doc.sections[at].level for at, _m in steps}) > 1:
        return []
    items = []
    for at, match in steps:
        section = doc.sections[at]
        *numbers, title = match.groups()
        title = title.strip()
        paragraphs = section_prose(doc, at).split("\n\n")
        prose = next((p.strip() for p in paragraphs if _is_prose(p)), "")
        raw = f"{title}: {' '.join(prose.split())}" if title and prose else title or prose
        number = int(next(n for n in numbers if n))
        items.append(
            Item(number, section.line, section.end_line, strip_markdown(raw), raw, heading=True)
        )
    return items


def _is_prose(paragraph: str) -> bool:
    text = paragraph.strip()
    return bool(text) and not text.startswith(("|", "-", "*", ">", "<"))


def collect_rules(doc: SkillDoc) -> list[tuple[str, int]]:
    """(rule, line): bullets of rule-like sections, and bullets that say never/always/must."""
    rules: list[tuple[str, int]] = []
    for index, section in enumerate(doc.sections):
        start, end = own_range(doc, index)
        rule_section = bool(RULE_TITLES.search(section.title))
        bullets: list[tuple[str, int]] = []  # each with its indented continuation lines
        for line, text in prose_lines(doc, start, end):
            match = _BULLET.match(text)
            if match:
                bullets.append((match.group(1), line))
            elif bullets and bullets[-1][0] and text.strip() and text[:1] in (" ", "\t"):
                bullets[-1] = (f"{bullets[-1][0]} {text.strip()}", bullets[-1][1])
            elif bullets and text.strip():
                bullets.append(("", line))  # prose between: a bullet after it starts anew
        for text, line in bullets:
            if text and (rule_section or is_rule(text)):
                rules.append((strip_markdown(text), line))
    return rules
