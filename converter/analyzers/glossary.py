"""Glossary: the Chinese noun a Chinese skill gives an English word it also uses.

A Chinese skill names its flags and the things its actions work on in English
(``--followers``, ``add_followers``) and says in Chinese what they are: "`--followers` 为关注人
（follower）", "| `--members` | 负责人（assignee）open_id |".  Those pairs let an action
named in English be asked for in the skill's language: ``add_followers`` → "添加关注人".
"""

from __future__ import annotations

import re
from functools import lru_cache

from skill2app.converter.analyzers.text import CJK

# "`--followers` 为关注人", "| `--members` | 负责人（assignee）", "`--due`：截止时间"
_FLAG_NOUN = re.compile(
    rf"`--([a-z][a-z0-9-]*)`\s*(?:[|:：]\s*|为|是|表示)\s*([{CJK}]{{2,8}})", re.I
)
# "关注人（follower）", "执行人 (assignee)"
_NOUN_WORD = re.compile(rf"([{CJK}]{{2,8}})\s*[（(]\s*([A-Za-z][A-Za-z ]{{1,30}}?)\s*[)）]")
_LEADS = re.compile(r"^(?:为|是|即|的)")
MAX_TEXT = 200_000


@lru_cache(maxsize=4)  # asked once per action for its triggers and once for its description
def glossary(text: str) -> dict[str, str]:
    """English word (lower case, singular) → the Chinese noun ``text`` pairs it with; the
    first pairing wins.  The result is shared: read it, never change it."""
    found: dict[str, str] = {}
    text = text[:MAX_TEXT]
    for match in _FLAG_NOUN.finditer(text):
        found.setdefault(singular(match.group(1).replace("-", " ")), match.group(2))
    for match in _NOUN_WORD.finditer(text):
        noun = _LEADS.sub("", match.group(1))
        if len(noun) >= 2:
            found.setdefault(singular(match.group(2).lower()), noun)
    return found


def singular(word: str) -> str:
    word = word.strip().lower()
    return re.sub(r"(?<=[a-z])s$", "", word) if not word.endswith("ss") else word


def noun_for(obj: str, words: dict[str, str]) -> str:
    """The Chinese for an action's object ("follower", "task member"): the whole object's
    noun, else each word's in order ("任务" + "执行人"), else ""."""
    if obj in words:
        return words[obj]
    parts = [words.get(singular(w), "") for w in obj.split()]
    return "".join(parts) if len(parts) > 1 and all(parts) else ""
