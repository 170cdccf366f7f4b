"""Situations: what a skill says it is for, as the requests a user makes.

Two places say it: the "Use when ..." clauses of the description (``text.use_when_phrases``)
and the items of a "When to Use" section ("- User wants to generate a QR code from a URL",
"- Searching for specific papers on Google Scholar", "- 用户想查询天气").  An item is said as
a request: who asks is left out ("User wants to", "You're", "用户想"), a gerund becomes the
verb ("Searching for" → "search for"), and what follows a routing note ("→ Phase D", "— see
the other skill") or a colon is dropped.  A "When NOT to use" section lists what the skill is
not for: never read here.
"""

from __future__ import annotations

import re

from skill2app.converter.analyzers.document import own_range, prose_lines
from skill2app.converter.analyzers.text import (
    WHEN_TITLES,
    strip_markdown,
    unique,
    use_when_phrases,
)
from skill2app.converter.analyzers.triggers import clean, is_negative
from skill2app.converter.analyzers.verbs import imperative, names_an_action
from skill2app.converter.inventory.skill import SkillDoc

MAX_ITEMS = 20  # per skill: a longer list is a catalogue, its first items are enough
_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.+)$")
_WHO = re.compile(
    r"^(?:when\s+)?(?:(?:the\s+)?users?|you|someone|they)(?:'re|'d like|\s+are|\s+is)?\s*"
    r"(?:wants?|needs?|asks?|requests?|would like|is asking|are asking|provides?|mentions?|"
    r"says?|tries|trying|requires?|has|have|is|are)?\s*(?:to\s+|for\s+|about\s+)?",
    re.I,
)
_ZH_WHO = re.compile(r"^(?:当)?用户(?:想要|想|要|需要|希望|请求|询问|提到|说|提供)?")
_PLACEHOLDER = re.compile(r"\[[^\]]*\]|<[^>\s]+>|\{[^}]+\}")
_NOTE = re.compile(r"\s+(?:→|->|=>|—|–|-)\s+.*$|\s*[:：;；].*$")


def situations(doc: SkillDoc) -> list[str]:
    """The description's "Use when" clauses, then the items of its "When to Use" sections."""
    return unique([*use_when_phrases(doc.frontmatter.description), *when_items(doc)])


def when_items(doc: SkillDoc) -> list[str]:
    """The items of the sections titled "When to Use" ("使用场景"), said as requests."""
    found: list[str] = []
    for index, section in enumerate(doc.sections):
        title = strip_markdown(section.title).lstrip("# ")
        if not WHEN_TITLES.search(title) or is_negative(title):
            continue
        for _line, text in prose_lines(doc, *own_range(doc, index)):
            match = _ITEM.match(text)
            request = as_request(match.group(1)) if match else ""
            if request:
                found.append(request)
    return unique(found, MAX_ITEMS)


def as_request(item: str) -> str:
    """One item of a "When to Use" list as a request; "" when it names no task (a keyword
    list, a remark) or says what the skill is not for."""
    text = strip_markdown(item)
    if is_negative(text) or _PLACEHOLDER.search(text):  # "your read on [person]?"
        return ""
    # examples in brackets go ("(Sharpe, max_drawdown, ...)"); a name stays ("(vCard)")
    text = re.sub(
        r"\s*[(（](?:[^()（）]*[,，、]|[^()（）]*\s[^()（）]*\s)[^()（）]*[)）]", "", text
    )
    text = _NOTE.sub("", text).strip(" .。,，")
    text = _ZH_WHO.sub("", text) if re.match(r"^(?:当)?用户", text) else _WHO.sub("", text)
    text = text.strip(" .。,，")
    if not text or not names_an_action(text):
        return ""
    return clean(imperative(text))
