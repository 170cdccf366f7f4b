"""Sections, fenced code blocks and inline code spans of a Markdown body.

Small and forgiving rather than complete CommonMark: ATX and setext headings, fences of
backticks or tildes at any indentation (list items indent them), unclosed fences run to the end.
Line numbers are file lines: the caller passes the file line of the first body line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A section saying when the skill is for ("When to Use", "使用场景", "いつ使うか"): its "use" is
# the skill's.  ("いつ使わないか", "いつ使うべきでないか": when not to, is none.)
WHEN_TITLES = re.compile(
    r"^when (?:to|should)\b|何时使用|使用场景|适用场景|典型场景|调用场景|"
    r"いつ使う(?:か|べきか)?\s*$|使うタイミング|使用タイミング",
    re.I,
)


@dataclass(frozen=True)
class Section:
    level: int
    title: str
    line: int
    end_line: int  # last line before the next heading of the same or a higher level
    body: str  # text up to the next heading of any level


@dataclass(frozen=True)
class CodeBlock:
    language: str  # first word of the info string, lowercased; "" when none
    line: int  # line of the opening fence
    text: str
    section: int  # index into SkillDoc.sections of the innermost heading above; -1 if none


@dataclass(frozen=True)
class InlineCode:
    text: str
    line: int
    section: int


_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
# An ATX heading's opening: its hashes, then a space, a tab or the line's end.  The title and
# an optional closing run of hashes are cut in code (``atx_heading``): the one regular
# expression that did both (a lazy title before optional spaces) took 2.4 s on a heading line
# of 20,000 spaces.
_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_INLINE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_LIST_OR_BLOCK = re.compile(r"^\s*([-*+>|]|\d+[.)])(\s|$)")


@dataclass
class _Fence:
    char: str
    size: int
    indent: int
    line: int
    language: str
    text: list[str] = field(default_factory=list)


def scan_markdown(
    lines: list[str], first_line: int, warnings: list[str], file: str
) -> tuple[list[Section], list[CodeBlock], list[InlineCode]]:
    headings: list[tuple[int, str, int, int]] = []  # (level, title, line, last heading line)
    fences: list[_Fence] = []
    inline: list[tuple[str, int]] = []
    fence: _Fence | None = None
    for offset, line in enumerate(lines):
        lineno = first_line + offset
        if fence is not None:
            if _closes(line, fence):
                fences.append(fence)
                fence = None
            else:
                fence.text.append(_dedent(line, fence.indent))
            continue
        match = _FENCE_OPEN.match(line)
        if match and not (match["fence"][0] == "`" and "`" in match["info"]):
            info = match["info"].strip()
            language = info.split()[0].lower().strip("{}.") if info else ""
            indent = len(match["indent"].expandtabs(4))
            fence = _Fence(match["fence"][0], len(match["fence"]), indent, lineno, language)
            continue
        previous = lines[offset - 1] if offset else ""
        heading = _heading(line, previous)
        if heading is not None:
            level, title = heading
            if title is None:  # setext: the title is the previous line
                if inline and inline[-1][1] == lineno - 1:
                    inline = [span for span in inline if span[1] != lineno - 1]
                headings.append((level, previous.strip(), lineno - 1, lineno))
            else:
                headings.append((level, title, lineno, lineno))
            continue
        inline.extend((m.group(2).strip(), lineno) for m in _INLINE.finditer(line))
    if fence is not None:
        warnings.append(f"{file}:{fence.line}: code fence is never closed")
        fences.append(fence)
    return _assemble(lines, first_line, headings, fences, inline)


def _closes(line: str, fence: _Fence) -> bool:
    stripped = line.strip()
    return len(stripped) >= fence.size and set(stripped) == {fence.char}


def _dedent(line: str, indent: int) -> str:
    expanded = line.expandtabs(4)
    strip = min(indent, len(expanded) - len(expanded.lstrip(" ")))
    return expanded[strip:]


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line (``## Title ##``: a closing run of hashes after
    a space is no part of the title; a title of hashes alone stays), None for any other line.
    Linear in the line's length."""
    opening = _ATX_OPEN.match(line)
    if opening is None:
        return None
    title = line[opening.end() :].strip(" \t")
    bare = title.rstrip("#")
    if bare != title and bare and bare[-1] in " \t":
        title = bare.rstrip(" \t")
    return len(opening[1]), title.strip()


def _heading(line: str, previous: str) -> tuple[int, str | None] | None:
    """(level, title) of an ATX heading; (level, None) when ``line`` underlines a setext one."""
    atx = atx_heading(line)
    if atx is not None:
        return atx
    if (
        _SETEXT.match(line)
        and previous.strip()
        and not _LIST_OR_BLOCK.match(previous)
        and atx_heading(previous) is None
        and not _FENCE_OPEN.match(previous)
        and not _SETEXT.match(previous)
    ):
        return (1 if line.strip()[0] == "=" else 2), None
    return None


def _assemble(
    lines: list[str],
    first_line: int,
    headings: list[tuple[int, str, int, int]],
    fences: list[_Fence],
    inline: list[tuple[str, int]],
) -> tuple[list[Section], list[CodeBlock], list[InlineCode]]:
    last_line = first_line + len(lines) - 1
    sections: list[Section] = []
    for i, (level, title, line, last_heading_line) in enumerate(headings):
        later = headings[i + 1 :]
        next_any = later[0][2] if later else last_line + 1
        end = next((h[2] - 1 for h in later if h[0] <= level), last_line)
        body = "\n".join(lines[last_heading_line + 1 - first_line : next_any - first_line])
        sections.append(Section(level, title, line, end, body.strip("\n")))

    def owner(line: int) -> int:
        return max((i for i, h in enumerate(headings) if h[2] < line), default=-1)

    blocks = [CodeBlock(f.language, f.line, "\n".join(f.text), owner(f.line)) for f in fences]
    spans = [InlineCode(text, line, owner(line)) for text, line in inline if text]
    return sections, blocks, spans
