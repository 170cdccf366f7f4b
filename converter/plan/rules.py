"""Content rules of llm steps, turned into checks a validate script can run.

A plan's llm step carries ``rules``: sentences from the skill ("Keep every line under 100
characters.", "每句不超过 40 个字").  ``checks_for`` recognises the ones a program can check
and returns one check per rule; the rest come back as ``manual`` (the prompt still asks for
them, the validate script only names them in a comment).  Check kinds, as the generated
``validate_<step>.py`` implements them over every string in the answer:

``max_line_length``      {"limit": N}: no line longer than N characters
``max_sentence_length``  {"limit": N, "unit": "chars" | "words"}
``forbid_regex``         {"pattern": "..."}: e.g. ticket numbers shaped like OPS-123
``forbid_phrases``       {"phrases": [...]}: quoted phrases the rule says never to use
``cjk_latin_spacing``    a space between CJK characters and Latin letters or digits
``fullwidth_punctuation`` no ASCII , . ; : ? ! right after a CJK character
``manual``               not checkable here
"""

from __future__ import annotations

import re
from typing import Any

_UNDER = r"(?:under|below|less than|fewer than|shorter than)"
_AT_MOST = r"(?:at most|no more than|not more than|maximum of|max\.?|up to)"
_LINE_UNDER = re.compile(rf"\blines?\b.*?\b{_UNDER}\s+(\d+)\s*(?:characters|chars)\b", re.I)
_LINE_MOST = re.compile(rf"\blines?\b.*?\b{_AT_MOST}\s+(\d+)\s*(?:characters|chars)\b", re.I)
_LINE_ZH = re.compile(r"每行(?:不超过|不要超过|最多)\s*(\d+)\s*个?(?:字符|字)")
_SENTENCE_UNDER = re.compile(rf"\bsentences?\b.*?\b{_UNDER}\s+(\d+)\s*words\b", re.I)
_SENTENCE_MOST = re.compile(rf"\bsentences?\b.*?\b{_AT_MOST}\s+(\d+)\s*words\b", re.I)
_SENTENCE_ZH = re.compile(r"每(?:句|个句子)话?(?:不超过|不要超过|最多)\s*(\d+)\s*个?字")
_NEVER = re.compile(
    r"\b(?:never|do not|don't|must not|no)\s+(?:mention|include|use|write|show)\b[^.]*?"
    r"\bsuch as\s+[`'\"]?([A-Za-z0-9][A-Za-z0-9_#./-]*[A-Za-z0-9])",
    re.I,
)
_PHRASE_LEAD = re.compile(
    r"(?:不要使用|不要用|不使用|避免使用|禁止使用|不得使用|never use|avoid|do not use|don't use)",
    re.I,
)
_QUOTED = re.compile(r"“([^”]+)”|「([^」]+)」|\"([^\"]+)\"|'([^']+)'")
_SPACING = re.compile(
    r"(?:中文|汉字).*(?:英文|数字).*空格|空格.*(?:中文|汉字).*(?:英文|数字)"
    r"|space between (?:chinese|cjk)",
    re.I,
)
_FULLWIDTH = re.compile(r"全角.*标点|full-?width punctuation", re.I)


def checks_for(rules: list[str]) -> list[dict[str, Any]]:
    """One check per rule, in order; ``manual`` for rules no program can check."""
    return [check_for(rule) for rule in rules]


def check_for(rule: str) -> dict[str, Any]:
    for finder in (_line_length, _sentence_length, _forbidden, _typography):
        found = finder(rule)
        if found is not None:
            return {**found, "rule": rule}
    return {"kind": "manual", "rule": rule}


def _line_length(rule: str) -> dict[str, Any] | None:
    under = _LINE_UNDER.search(rule)
    if under:
        return {"kind": "max_line_length", "limit": int(under.group(1)) - 1}
    most = _LINE_MOST.search(rule) or _LINE_ZH.search(rule)
    if most:
        return {"kind": "max_line_length", "limit": int(most.group(1))}
    return None


def _sentence_length(rule: str) -> dict[str, Any] | None:
    zh = _SENTENCE_ZH.search(rule)
    if zh:
        return {"kind": "max_sentence_length", "limit": int(zh.group(1)), "unit": "chars"}
    under = _SENTENCE_UNDER.search(rule)
    if under:
        return {"kind": "max_sentence_length", "limit": int(under.group(1)) - 1, "unit": "words"}
    most = _SENTENCE_MOST.search(rule)
    if most:
        return {"kind": "max_sentence_length", "limit": int(most.group(1)), "unit": "words"}
    return None


def _forbidden(rule: str) -> dict[str, Any] | None:
    never = _NEVER.search(rule)
    if never:
        return {"kind": "forbid_regex", "pattern": shape_of(never.group(1))}
    lead = _PHRASE_LEAD.search(rule)
    if lead:
        phrases = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(rule, lead.end())]
        if phrases:
            return {"kind": "forbid_phrases", "phrases": phrases}
    return None


def _typography(rule: str) -> dict[str, Any] | None:
    if _SPACING.search(rule):
        return {"kind": "cjk_latin_spacing"}
    if _FULLWIDTH.search(rule):
        return {"kind": "fullwidth_punctuation"}
    return None


def shape_of(example: str) -> str:
    """A regular expression for words shaped like ``example``: ``OPS-123`` →
    ``\\b[A-Z]{2,}-[0-9]{2,}\\b`` (runs of letters and digits generalised, the rest literal)."""
    parts = []
    for run in re.findall(r"[A-Z]+|[a-z]+|[0-9]+|.", example):
        if run[0].isdigit() or run[0].isalpha():
            chars = "0-9" if run[0].isdigit() else ("A-Z" if run[0].isupper() else "a-z")
            parts.append(f"[{chars}]{{{min(len(run), 2)},}}" if len(run) > 1 else f"[{chars}]+")
        else:
            parts.append(re.escape(run))
    return r"\b" + "".join(parts) + r"\b"
