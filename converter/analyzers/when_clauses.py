"""When clauses: the situations a skill's description says it is for, as requests.

``use_when_phrases`` reads the clauses after "Use when ...", "This includes: ...", "...时使用"
or "…ときに使う": who asks is left out ("the user wants to"), a list is split into its items
(never inside a quote), verbs that share an object get it ("creating, editing or deleting
files"), verbs written as alternatives become one request each, a Chinese request in
brackets after an English one is one of its own, and what is not a situation goes: a
negative condition, a concession ("regardless of ..."), a manner ("without ..."), a word.
"""

from __future__ import annotations

import re

from skill2app.converter.analyzers.text import (
    MODAL,
    STOP_WORDS,
    ascii_words,
    strip_markdown,
    unique,
)
from skill2app.converter.analyzers.verbs import VERBS, names_an_action
from skill2app.converter.analyzers.writing import CJK, has_cjk

# A clause ends at . ! ? ; (or a quote closed after it) before a space or the end ("SKILL.md"
# goes on), or at 。！？；.
_CLAUSE_SPLIT = re.compile(
    r"(?:(?<=[.!?;])|(?<=[.!?;][\"'”’)]))(?:\s+|$)|(?<=[。！？；])\s*|\s+-\s+|\s+—\s+"
)
_LIST_SPLIT = re.compile(r",\s*|;\s*|\s+or\s+|\s+and\s+|[，、；]|或者?|以及")
_USE_WHEN = re.compile(
    r"(?:\b(?:use|invoke|trigger)s?\s+(?:this\s+)?(?:skill\s+)?|\b(?:should\s+)?be\s+used\s+)"
    r"(?:especially\s+)?(?:when(?:ever)?|for|if|any ?time)\b\s*(?P<en>.+)$"
    r"|\b(?:this includes|includes|including|supports|triggers (?:include|on)|activates? on)"
    r"\s*:?\s*(?P<list>.+)$"
    r"|(?:当|在)?(?:用户)?(?:要求|需要|想要|想|请求|让你)?(?P<zh>[^。；]+?)时(?:使用|调用)"
    r"|(?:支持|用于|适用于)(?P<zhlist>[^。；]+)"
    # Japanese: "「A」「B」では必ず使う", "…ときに使う", "…場合に使用する"
    r"|(?P<jaquoted>(?:「[^」]{2,80}」\s*){1,12})(?:では|で|と言われたら)(?:必ず)?(?:使う|使用する|呼ぶ)"
    r"|(?P<ja>[^。、]{2,80}?)(?:とき|時|場合)に(?:は)?(?:必ず)?(?:使う|使用する|呼ぶ)",
    re.I,
)
MAX_CLAUSE = 2000  # characters of one sentence of a description read for its situations
_NEGATED = re.compile(r"(?:\bnot|n['’]t|\bnever|不要|不|勿)\s*$", re.I)
_ASKS = re.compile(
    r"^(?:the\s+user|someone|a\s+user|users?|you)\s+(?:asks?|wants?|needs?|requests?)"
    r"(?:\s+(?:for|to))?\s+|^(?:the\s+user|a\s+user|users|someone)\s+(?=\w+s\b)",
    re.I,
)


def use_when_phrases(description: str) -> list[str]:
    """The situations a description lists after "Use when ..." / "...时使用"."""
    phrases: list[str] = []
    clauses = _CLAUSE_SPLIT.split(strip_markdown(description))
    skip = 0  # clauses read already as more items of a list
    for at, sentence in enumerate(clauses):
        if at < skip:
            continue
        sentence = sentence[:MAX_CLAUSE]  # _USE_WHEN's Chinese branch is quadratic in length
        match = _USE_WHEN.search(sentence)
        if not match or _NEGATED.search(sentence[: match.start()]):
            continue  # "Do NOT trigger when ...": a situation the skill is not for
        groups = ("en", "list", "zh", "zhlist", "jaquoted", "ja")
        tail = next((match.group(g) for g in groups if match.group(g)), "").strip().rstrip(".。")
        opens = match.group("list") and _OPENS_LIST.match(sentence)
        if opens and tail.endswith(";"):  # "This includes: a; b; c." (not "It includes x;")
            more = _list_goes_on(clauses[at + 1 :])
            tail, skip = "; ".join([tail.rstrip(";"), *more]), at + 1 + len(more)
        asked = quoted_only(_SAYS.sub("", tail))  # 'the user says "a", "b"': a, b
        if asked:  # "Use when: 「AIっぽい文章を直して」「AI臭を消して」 "humanize this text""
            phrases.extend(asked)
            continue
        tail = _ZH_ASKED.sub("", _ZH_ETC.sub("", tail))  # "用户提出A、B等请求": A, B
        if re.search("[、，,]", tail):  # "A、B等": a list's "etc."; not 相等, 平等
            tail = tail.removesuffix("等")
        third = bool(_DOES.match(tail))  # "the user reports a bug, describes …": said as asked
        tail = _ASKS.sub("", tail)
        tail = re.sub(r"\((?:\d+|[a-z])\)\s*", "", tail)  # "(1) managing ..., (2) listing"
        translated = _translations(tail)  # "switch the model (切换模型/换模型)": the Chinese
        tail = re.sub(r"\s*[(（][^()（）]*[)）]", "", tail)  # "(A, AAAA, MX)": examples, not items
        given = _GIVEN.match(tail)
        if given:  # "gives a kdocs.cn link and asks to scrape, save, 扒下来": each asked of it
            phrases.extend(_asked_of_given(given.group("what"), given.group("asks")))
            phrases.extend(translated)
            continue
        items = _items([t for p in _split_outside_quotes(tail) for t in _mentioned(_tidy(p))])
        if match.group("list") and _SUPPORTS.match(match.group(0)):
            # "supports check and run modes": a feature; "converting file formats": a task
            items = [i for i in items if not _FEATURE.search(i) or _GERUND.match(i)]
        asked = [_as_asked(item) if third else item for item in items]
        phrases.extend(each for item in asked for each in _each_verb(item))
        phrases.extend(translated)
    return unique(phrases)


# What the user gives, then what they ask done with it: "gives a kdocs.cn link and asks to
# scrape, save, download, 扒下来 or 归档".
_GIVEN = re.compile(
    r"^(?:gives?|provides?|pastes?|shares?|sends?|uploads?)\s+(?P<what>\S.{2,120}?)\s+and\s+"
    r"(?:asks?|wants?)\s+(?:you\s+|for\s+it\s+)?to\s+(?P<asks>.+)$",
    re.I,
)
# How a task is to be done, after it: "without logging in or saving it" (its "or" splits
# nothing: ``_split_outside_quotes``).
_MANNER = re.compile(r"\s+without\s+.*$", re.I)


def _asked_of_given(what: str, asks: str) -> list[str]:
    """What is asked of what the user gives: a bare verb with it ("scrape a kdocs.cn link"),
    a request of its own as it is ("download the video"), one in Chinese or Japanese as it
    is said ("扒下来"); how it is to be done ("without logging in") left out."""
    found = []
    for part in (_MANNER.sub("", _tidy(p)) for p in _split_outside_quotes(asks)):
        if part.lower() in VERBS:
            found.append(f"{part} {what}")
        elif _worth(part) and (has_cjk(part) or names_an_action(part)):
            found.append(part)
    return found


# Verbs written as alternatives: "switch/upgrade/rollback the OpenClaw model".
_VERB_ALTERNATIVES = re.compile(r"^([a-z]{2,15}(?:/[a-z]{2,15}){1,4})\s+(\S.*)$", re.I)


def _each_verb(item: str) -> list[str]:
    """An item whose verb is written as alternatives, once per verb ("switch/upgrade the
    model" → "switch the model", "upgrade the model"); ``item`` otherwise ("text/tables from
    PDFs" names things, not verbs)."""
    said = _VERB_ALTERNATIVES.match(item)
    verbs = said.group(1).split("/") if said else []
    if said is None or not any(v.lower() in VERBS or _doing(v) for v in verbs):
        return [item]
    return [f"{verb} {said.group(2)}" for verb in verbs]


# Requests in Chinese or Japanese given in brackets after an English one: "switch the
# OpenClaw model (切换模型/换模型/升级模型)".
_BRACKETED = re.compile(r"[(（]([^()（）]{2,120})[)）]")


def _translations(tail: str) -> list[str]:
    """The CJK requests an English tail gives in brackets, each on its own: only after an
    English request (a Chinese sentence's own brackets hold examples and notes), not after a
    name ("Xiaohongshu (小红书)"), and not a note on it ("(不支持批量删除)")."""
    found = []
    for bracket in _BRACKETED.finditer(tail):
        before = tail[max(0, bracket.start() - 60) : bracket.start()]
        item = re.split(r"[,;，；、]|\bor\b", before)[-1].strip()
        words = item.split()
        if has_cjk(item) or len(words) < 2 or not has_cjk(bracket.group(1)):
            continue
        if words[-1][:1].isupper():  # "Xiaohongshu (小红书)": the name said in Chinese
            continue
        parts = re.split(r"\s*[/、，,;；|]\s*|\s+or\s+|或者?", bracket.group(1))
        found += [
            part
            for part in (p.strip() for p in parts)
            if has_cjk(part) and _worth(part) and not _NOTE.match(part)
        ]
    return found


# What a bracket says about an item, not a request for it: "不支持…", "需要登录", "例如…".
_NOTE = re.compile(r"^(?:不|没有|无需|需要|须|必须|仅|只|支持|例如|比如|如|即|包括|含|注)")


MAX_LIST_CLAUSES = 12  # clauses after "This includes: ...;" read as more of its items
# A clause that opens with what the skill covers: "This includes:", "Includes:", "Supports:".
_OPENS_LIST = re.compile(r"^\s*(?:this (?:skill )?(?:includes|covers)|includes|supports)\s*:", re.I)


def _list_goes_on(after: list[str]) -> list[str]:
    """The clauses that go on a list a clause opened and ended with ";" ("This includes:
    creating decks; reading, parsing or extracting text from any .pptx file; editing ...;
    combining slides."), up to the one that ends its sentence; none that says something else
    (a new "use when", what not to do)."""
    more: list[str] = []
    for clause in after[:MAX_LIST_CLAUSES]:
        text = clause[:MAX_CLAUSE].strip()
        if not text or _USE_WHEN.search(text) or MODAL.search(text) or _NEGATED.search(text):
            break
        more.append(text.rstrip(";.。"))
        if not text.endswith(";"):
            break
    return more


# An item that only says the user mentions words ('mentions "deck," "slides," or
# "presentation"'): its quoted requests, or nothing when they are mere words.
_MENTIONS = re.compile(r"^(?:mentions?|says?|types?|uses? the words?)\s+(?=[「“\"'])", re.I)


def _mentioned(part: str) -> list[str]:
    """``part``, or the quoted requests of two words or more it says the user mentions."""
    said = _MENTIONS.match(part)
    if said is None:
        return [part]
    quotes = (next(g for g in m.groups() if g) for m in _QUOTE.finditer(part[said.end() :]))
    return [quote for quote in map(_unpunctuated, quotes) if _worth(quote)]


def _unpunctuated(quote: str) -> str:
    """A quote without the punctuation of the sentence around it ("deck," → "deck")."""
    return quote.strip().rstrip(",.;:，。；：").strip()


# "Supports ..." lists what the program can do; an item that names a kind of thing it offers
# ("run modes", "PDF formats") is a feature, not a request.
_SUPPORTS = re.compile(r"\bsupports\b", re.I)
_FEATURE = re.compile(
    r"\b(?:modes?|formats?|options?|flags?|languages?|types?|versions?|platforms?|backends?)$",
    re.I,
)
# Who asks, before a Chinese list of requests, and "etc. requests" after it.
_ZH_ASKED = re.compile(r"^(?:当)?用户(?:提出|要求|需要|想要|想|请求|询问|进行|发起)的?")
_ZH_ETC = re.compile(r"(?:等|之类的?)[\u4e00-\u9fff]{0,4}?(?:请求|需求|场景|任务|问题|情况)$")
_GERUND = re.compile(r"^[a-z]+ing\b", re.I)
_QUOTE = re.compile(
    r"「([^」]{2,80})」|“([^”]{2,80})”|\"([^\"]{2,80})\"|(?<!\w)'([^'\n]{2,80})'(?!\w)"
)
# What may stand between the quoted requests of a list: commas, "or", spaces.
_BETWEEN = re.compile(r"^[\s,，、;；:：/|]*(?:(?:or|and|或|或者)[\s,，、]*)?$", re.I)


# What may end such a list: "…等请求", "…之类的需求", ", etc.".
_ETC = re.compile(
    r"^[\s,，、]*(?:(?:等|之类)的?(?:请求|场景|需求|问题|情况|任务)?|etc\.?|and so on)[\s。.]*$",
    re.I,
)


def quoted_only(tail: str) -> list[str]:
    """The requests of a tail that is nothing but quoted requests ("「A」「B」 "c", "d""), in
    order; [] when anything else is said beside them."""
    found: list[str] = []
    at = 0
    for match in _QUOTE.finditer(tail):
        if not _BETWEEN.match(tail[at : match.start()]):
            return []
        found.append(_unpunctuated(next(g for g in match.groups() if g)))
        at = match.end()
    rest = tail[at:]
    if len(found) == 1 and _OF_THIS_KIND.match(rest):  # "“帮我看看…”这类口语化请求"
        return found
    return found if len(found) >= 2 and (_BETWEEN.match(rest) or _ETC.match(rest)) else []


# A quote said to be an example of the requests meant: "“帮我看看最近的消息”这类口语化请求".
_OF_THIS_KIND = re.compile(
    r"^\s*(?:等|之类|这类|此类|这样的|这种|类似的?)[\u4e00-\u9fff]{0,4}?"
    r"(?:请求|需求|问题|说法|提问|表达)[\s。.]*$"
)


_DOES = re.compile(r"(?:the\s+user|a\s+user|users|someone)\s+(?!asks\b)[a-z]+s\b", re.I)
# Who says the quoted requests that follow: 'the user says "a", "b"', 'user mentions "x"'.
_SAYS = re.compile(
    r"^(?:(?:the|a)\s+)?(?:user|users|someone)\s+(?:says?|mentions?|types?|writes?|asks?)"
    r"(?:\s+(?:for|about))?\s*:?\s*(?=[「“\"'])",
    re.I,
)


def _as_asked(item: str) -> str:
    """ "reports a bug" → "report a bug": what the user does, as the user asks for it (only a
    verb known to be said of a user: "always reports", "status reports" stay)."""
    first, _, rest = item.partition(" ")
    verb = _SAID_OF_USER.get(first.lower())
    return f"{verb} {rest}" if verb and rest else item


# Verbs a description says of the user ("when the user reports …, describes …, has …").
_SAID_OF_USER = {
    word + ("es" if word.endswith(("sh", "ch", "x", "ss")) else "s"): word
    for word in (
        "report describe say mention want need provide share paste upload request encounter "
        "hit see get run type give send notice show fix find ask write create edit update "
        "review open reference work start build deploy add change use debug analyze analyse "
        "compare plan draft submit install set configure convert generate check import "
        "export search wonder complain question discuss explore investigate mean"
    ).split()
} | {"has": "have", "does": "do", "goes": "go", "tries": "try", "verifies": "verify"}


_DETERMINER = frozenset(
    "a an the any some my your their his her its our this that these those each every all "
    "one new".split()
)


def _items(parts: list[str]) -> list[str]:
    """The routable items of one listed tail.  Verbs that share the next item's object get it
    ("schedule, list or cancel a team event" -> "schedule a team event", ...; "creating,
    editing or deleting files" -> "creating files", ...); a lone noun of a list ("statistics,
    charts or exporting data") stays as it is; other single words are dropped."""
    items: list[str] = []
    waiting: list[str] = []  # single words before the item that may complete them
    doing = ""  # the verb of the item before them, when it is a gerund ("constructing")
    # the item before them ends with a preposition's object ("ground truth about colors"):
    # the single words after it are more of its objects, no requests
    governed = False
    for index, part in enumerate([*parts, ""]):
        words = part.split()
        if len(words) == 1 and not has_cjk(part):
            waiting.append(part)
            continue
        if waiting and _shares_object(waiting, words):
            items += [f"{verb} {' '.join(words[1:])}" for verb in waiting]
        elif waiting and doing and not any(_doing(w) for w in waiting):
            # "constructing financial projections and forecasts": "constructing forecasts"
            items += [
                f"{doing} {w}" for w in waiting if len(w) >= 4 and w.lower() not in STOP_WORDS
            ]
        elif len(parts) > 1 and not (governed and not part):  # a word of a list on its own
            items += [w for w in waiting if len(w) >= 5 and w.lower() not in STOP_WORDS]
        waiting = []
        if words:
            governed = len(words) >= 3 and words[-2].lower() in _PREPOSITIONS
        anaphoric = index > 0 and _ANAPHORIC.match(part)
        items += [part] if _worth(part) and not anaphoric and not _CONCESSIVE.match(part) else []
        doing = words[0] if len(words) > 1 and _doing(words[0]) else ""
    return items


_PREPOSITIONS = frozenset("about of for with on in into to from like between".split())


def _doing(word: str) -> bool:
    """Whether ``word`` is a verb's -ing form ("constructing", "building"), not a noun
    ending so ("Spring", "string", "meeting"): its stem is a verb of ``VERB_STEMS``."""
    low = word.lower()
    if not re.fullmatch(r"[a-z]{3,}ing", low):
        return False
    stem = low[:-3]
    stems = {stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem}
    return bool(stems & VERB_STEMS)


# Verbs whose -ing form opens a situation ("constructing forecasts"): the routing verbs'.
VERB_STEMS = frozenset(
    "analyze analyse assess audit build calculate check compare compile construct convert "
    "create debug deploy design draft edit estimate evaluate export extract fetch fill find "
    "fix format generate import inspect install list make manage merge migrate monitor "
    "optimize parse plan prepare process publish read record refactor render report review "
    "run scan schedule search send set split summarize sync test track transcribe translate "
    "update upload validate verify write".split()
)


# A clause that says what does not matter ("regardless of what they plan to do with it"):
# no situation.
_CONCESSIVE = re.compile(
    r"^(?:regardless|irrespective|no matter|even (?:if|when|though)|whether or not)\b", re.I
)


# An item after the first whose object is an earlier item's ("..., downloading the images,
# renaming them in order"): no request on its own ("make it shorter" is: it is the user's text).
_ANAPHORIC = re.compile(r"^\w+\s+(?:them|they)\b", re.I)


def _shares_object(waiting: list[str], words: list[str]) -> bool:
    """Whether the lone words before ``words`` are verbs of its object: it reads VERB
    DETERMINER ... ("cancel a team event"), or they and its first word are all gerunds
    ("creating, editing or deleting files").  Nouns ("charts, exporting data") are not."""
    if len(words) < 2 or words[0].lower() in _DETERMINER:
        return False
    if words[1].lower() in _DETERMINER:
        return True
    return all(w.lower().endswith("ing") for w in [*waiting, words[0]])


# A quoted span whose commas and "and"s are the request's own ('what if rates and prices rise?').
_QUOTED_SPAN = re.compile(
    r"(?<!\w)'[^'\n]{2,120}'(?!\w)|\"[^\"\n]{2,120}\"|“[^”\n]{1,120}”|「[^」\n]{1,120}」"
)


# A manner clause up to the next item: "without logging in or saving the document".
_MANNER_SPAN = re.compile(r"\bwithout\s[^,;，；\x00]{1,200}", re.I)


def _split_outside_quotes(tail: str) -> list[str]:
    """``_LIST_SPLIT``'s parts of ``tail``, never inside a quoted span or a manner clause."""
    spans: list[str] = []

    def hide(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    masked = _QUOTED_SPAN.sub(hide, tail.replace("\x00", ""))
    masked = _MANNER_SPAN.sub(hide, masked)  # "without logging in or saving it" is one
    return [
        re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], part)
        for part in _LIST_SPLIT.split(masked)
    ]


def _tidy(part: str) -> str:
    part = re.sub(r"^(?:(?:and|or|then|but|when)\s+)+", "", part.strip(), flags=re.I)
    said = _SAID_QUOTE.match(part)  # "the user asks 'what if X AND Y both happen?'"
    if said:
        return next(g for g in said.groups() if g).strip()
    if _QUOTED_SPAN.fullmatch(part.rstrip(".。")):  # the quote alone (who asks said before)
        return part.rstrip(".。")[1:-1].strip()
    part = re.sub(r"^(?:wants?|needs?|asks?(?:\s+for)?)\s+(?:to\s+)?", "", part, flags=re.I)
    return part.rstrip(".。").strip()


# One item that is a request quoted as the user's: the quote is the request.
_SAID_QUOTE = re.compile(
    r"^(?:(?:(?:the|a)\s+)?(?:user|users|someone)\s+)?(?:says?|asks?|types?|writes?)\s*[:,]?\s*"
    r"(?:'([^'\n]{4,120})'|\"([^\"\n]{4,120})\"|“([^”\n]{2,120})”|「([^」\n]{2,120})」)"
    r"[.。]?$",
    re.I,
)


def _worth(phrase: str) -> bool:
    """Long enough to route on: two words, or three CJK characters ("the OpenClaw/龙虾 bot's
    model is misconfigured" has words enough beside its two)."""
    if has_cjk(phrase) and len(re.findall(rf"[{CJK}]", phrase)) >= 3:
        return True
    return len(ascii_words(phrase)) >= 2
