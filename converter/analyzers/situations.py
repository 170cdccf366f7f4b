"""Situations: what a skill says it is for, as the requests a user makes.

Two places say it: the "Use when ..." clauses of the description (``when_clauses.use_when_phrases``)
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
from skill2app.converter.analyzers.text import has_cjk, strip_markdown, unique
from skill2app.converter.analyzers.triggers import clean, is_negative
from skill2app.converter.analyzers.verbs import imperative, names_an_action
from skill2app.converter.analyzers.when_clauses import quoted_only, use_when_phrases
from skill2app.converter.inventory.markdown import WHEN_TITLES
from skill2app.converter.inventory.skill import SkillDoc

MAX_ITEMS = 20  # per skill: a longer list is a catalogue, its first items are enough
_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.+)$")
_WHO = re.compile(
    r"^(?:when\s+)?(?:(?:the\s+)?users?|you|someone|they)\b(?:'re|'d like|\s+are|\s+is)?\s*"
    r"(?:wants?|needs?|asks?|requests?|would like|is asking|are asking|provides?|mentions?|"
    r"says?|tries|trying|requires?|has|have|is|are)?\s*(?:to\s+|for\s+|about\s+)?",
    re.I,
)
_ZH_WHO = re.compile(r"^(?:当)?用户(?:想要|想|要|需要|希望|请求|询问|提到|说|提供)?")
_PLACEHOLDER = re.compile(r"\[[^\]]*\]|<[^>\s]+>|\{[^}]+\}")
_NOTE = re.compile(r"\s+(?:→|->|=>|—|–|-)\s+.*$|\s*[:：;；].*$")


def a_task(clause: str) -> bool:
    """Whether a situation names a task in words enough to route ("write a failing test";
    not "routing" or "Node/TypeScript", pieces of a list)."""
    if has_cjk(clause):
        return len(clause) >= 4
    return len(clause.split()) >= 3 and clause[:1].isalpha()


def situations(doc: SkillDoc) -> list[str]:
    """The description's "Use when" clauses and the items it lists under a "when" label,
    then the items of its "When to Use" sections."""
    description = doc.frontmatter.description
    return unique(
        [*use_when_phrases(description), *listed_in_description(description), *when_items(doc)]
    )


# A description's label over a list of the requests it is for: "触发场景（命中任一即读本
# skill）：", "Use it when:", "Triggers:" (its lines are joined: the items follow on one line).
_LABEL = re.compile(
    r"(?:触发(?:场景|条件|词)|使用场景|适用场景|何时使用|when to use|use (?:it |this skill )?when|"
    r"triggers?(?: on)?|トリガー|使用タイミング)[^：:。.]{0,30}[：:]",
    re.I,
)
_DASH = re.compile(r"(?:^|\s)[-*•]\s+")
_QUOTED = re.compile(r"[「“\"]([^」”\"]{2,80})[」”\"]")
_EXAMPLE = re.compile(
    r"[（(](?:如|例如|比如|e\.g\.,?|eg|for example,?)\s*[「“\"]([^」”\"]{1,120})[」”\"]", re.I
)
MAX_ITEM = 400  # characters of one listed item read: a longer one is prose, not a request


def listed_in_description(description: str) -> list[str]:
    """The items of a list right after a "when" label in the description: the example it
    quotes (「XX 行业 Top N」（如「医药行业今天的 Top 10 标的」） → the example), else the request
    it quotes, else its first sentence said as a request."""
    label = _LABEL.search(description)
    if label is None:
        return _trigger_list(description)
    quotes = _QUOTES_AHEAD.match(description[label.end() :])
    if quotes:  # 'Triggers: "migrate", "rename cycles to plans".'
        quoted = [c for q in quoted_only(quotes.group(1)) if (c := clean(q))]
        return [q for q in quoted if has_cjk(q) or " " in q]  # "acroform": a keyword
    before, *items = _DASH.split(description[label.end() :])
    if before.strip():
        return []  # no list right after the label
    found: list[str] = []
    for listed in items:
        # the list ends with a sentence's end: what follows is prose, or another list
        # ("Do not use for: - …", "不要用于：- …")
        item, *after = _SENTENCE_END.split(listed.strip(), maxsplit=1)
        item = item[:MAX_ITEM]
        said = _EXAMPLE.search(item) or _QUOTED.match(item)
        if said is not None:
            request = re.sub(r"X{2,}\s*", "", said.group(1)).strip()
            request = re.sub(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", "", request)
            # "最近一周 / 一个月": either is asked ("最近一周或一个月")
            request = re.sub(r"\s*/\s*", "或" if has_cjk(request) else " or ", request)
        else:
            request = as_request(item)
        found += [request] if request and not is_negative(request) else []
        if after and after[0].strip():
            break
    return unique(found, MAX_ITEMS)


# Quoted requests right after the label, one after another ("「A」「B」", '"a", "b" or "c"').
_QUOTES_AHEAD = re.compile(
    r"\s*((?:(?:「[^」]{1,80}」|“[^”]{1,80}”|\"[^\"]{1,80}\")[\s,，、;；/|]*(?:(?:or|and|或|或者)\s*)?)"
    r"{2,12})",
    re.I,
)
# "TRIGGERS - read this paper, get the paper, arxiv paper." (a collection's own convention):
# the phrases of the list up to its sentence's end.
_TRIGGER_LIST = re.compile(r"\bTRIGGERS?\s+[-–—]\s+((?:[^.。\n]|\.(?=\S)){1,600})")


def _trigger_list(description: str) -> list[str]:
    """The phrases of a "TRIGGERS - a, b, c." list that say a request (two words or more, or
    Chinese): "cleanup" or "mathml" alone is a keyword."""
    listed = _TRIGGER_LIST.search(description)
    if listed is None:
        return []
    phrases = [clean(p) for p in re.split(r"\s*[,，、;；]\s*", listed.group(1))]
    return unique([p for p in phrases if p and (has_cjk(p) or " " in p)], MAX_ITEMS)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")


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
    tail = text[-MAX_ITEM:]
    japanese = _JA_WHEN.search(tail)  # "…を把握したいとき": what is wanted then
    if japanese:
        text = re.sub("[「」]", "", tail[: japanese.start()])  # "「どこに」を探す"
        return clean(text) if _JA_VERB_END.search(text) else ""
    if not text or not names_an_action(text) or not (has_cjk(text) or " " in text):
        return ""  # one word ("claude" of "`claude: command not found`") is a keyword
    return clean(imperative(text))


# A Japanese item said as a time ("…したいとき", "…する場合に"), and a phrase ending as a
# verb does (dictionary form, "-たい", "-して"): "構造を把握したい", "「どこに」を探す".
_JA_WHEN = re.compile(r"(?<=[\u3040-\u309f])(?:とき|時|場合|際)(?:に|は|には)?$")
_JA_VERB_END = re.compile(r"(?:たい|して|[うくぐすつぬぶむる])$")
