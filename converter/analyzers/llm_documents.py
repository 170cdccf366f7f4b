"""The skill's Markdown documents as the llm analyzer shows them: numbered lines, and outlines.

``read_documents`` reads SKILL.md and the other ``.md`` files with every line; ``outline``
keeps a document's headings (and, if asked, each section's first paragraph) and every line and
fenced block that runs one of the skill's programs, marking what it leaves out in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from skill2app.converter.inventory.markdown import CodeBlock, Section, scan_markdown

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory

MAX_DOCUMENTS = 50
MAX_DOCUMENT_BYTES = 4_000_000  # larger Markdown files are listed, not read
_FENCE = re.compile(r"^\s*(```|~~~)")
_SETEXT_RULE = re.compile(r"^ {0,3}(=+|-+)\s*$")


@dataclass(frozen=True)
class Document:
    """A Markdown file of the skill as the model sees it: the lines kept, by file line."""

    path: str
    total: int  # lines in the file
    kept: tuple[tuple[int, str], ...]
    summary: str = ""  # "" when complete, else what was kept

    def render(self) -> str:
        head = f'<document path="{self.path}"'
        head += f' summarised="{self.summary}">' if self.summary else ">"
        out, previous = [head], 0
        for number, text in self.kept:
            if number != previous + 1:
                out.append(_gap(previous + 1, number - 1))
            out.append(f"{number:>5}| {text}")
            previous = number
        if previous < self.total:
            out.append(_gap(previous + 1, self.total))
        out.append("</document>")
        return "\n".join(out)


def _gap(first: int, last: int) -> str:
    span = f"line {first}" if first == last else f"lines {first}-{last}"
    return f"    ⋮ ({span} left out)"


def read_documents(inventory: Inventory) -> list[Document]:
    """SKILL.md, then the other Markdown files the skill holds as context, every line kept."""
    skill_md = inventory.skill.path
    paths = [
        f.path for f in inventory.files if f.role == "context" and f.path.lower().endswith(".md")
    ]
    out = []
    for rel in [skill_md, *[p for p in paths if p != skill_md][:MAX_DOCUMENTS]]:
        lines = _read_lines(inventory.root / rel)
        if lines is None:
            out.append(Document(rel, 0, (), f"not read: larger than {MAX_DOCUMENT_BYTES} bytes"))
        else:
            out.append(Document(rel, len(lines), tuple(enumerate(lines, start=1))))
    return out


def _read_lines(path: Path) -> list[str] | None:
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline ends the last line; it does not start another
    return lines


def outline(inventory: Inventory, doc: Document, *, paragraphs: bool) -> Document:
    """``doc`` reduced to its headings (and first paragraphs) and every program invocation."""
    if not doc.kept:
        return doc
    lines = dict(_all_lines(inventory, doc))
    sections, blocks = _structure(inventory, doc.path, [lines[n] for n in sorted(lines)])
    keep: set[int] = set()
    if doc.path == inventory.skill.path:
        keep |= set(range(1, inventory.skill.frontmatter.end_line + 1))
    runs = {inv.line for p in inventory.programs for inv in p.invocations if inv.file == doc.path}
    keep |= runs
    for block in blocks:
        last = block.line + block.text.count("\n") + 2  # the closing fence
        if any(block.line < line <= last for line in runs):
            keep |= set(range(block.line, last + 1))
    body = inventory.skill.body_line if doc.path == inventory.skill.path else 1
    starts = [(body - 1, body), *[(s.line, s.line + 1) for s in sections]]
    for index, (heading, start) in enumerate(starts):
        keep.add(heading)
        end = starts[index + 1][0] - 1 if index + 1 < len(starts) else doc.total
        if paragraphs:
            keep |= _first_paragraph(lines, start, end)
    keep |= {n + d for n in keep for d in (-1, 1) if not lines.get(n + d, "x").strip()}
    kept = tuple((n, lines[n]) for n in sorted(keep) if n in lines)
    what = "headings, first paragraphs and program invocations" if paragraphs else ""
    return replace(doc, kept=kept, summary=what or "headings and program invocations")


def _all_lines(inventory: Inventory, doc: Document) -> tuple[tuple[int, str], ...]:
    """Every line of ``doc``, also when an earlier stage already left some out."""
    if len(doc.kept) == doc.total:
        return doc.kept
    lines = _read_lines(inventory.root / doc.path) or []
    return tuple(enumerate(lines, start=1))


def _structure(
    inventory: Inventory, path: str, lines: list[str]
) -> tuple[list[Section], list[CodeBlock]]:
    if path == inventory.skill.path:  # already parsed, frontmatter and all
        return inventory.skill.sections, inventory.skill.code_blocks
    sections, blocks, _inline = scan_markdown(lines, 1, [], path)
    return sections, blocks


def _first_paragraph(lines: dict[int, str], start: int, end: int) -> set[int]:
    """The lines of the first paragraph between ``start`` and ``end`` (none if code comes first)."""
    found: set[int] = set()
    number = start
    if number <= end and _SETEXT_RULE.match(lines.get(number, "")):
        found.add(number)  # the underline of a setext heading
        number += 1
    while number <= end and not lines.get(number, "").strip():
        number += 1
    while number <= end and lines.get(number, "").strip() and not _FENCE.match(lines[number]):
        found.add(number)
        number += 1
    return found
