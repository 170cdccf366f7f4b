"""Text helpers for the heuristic analyzer, for English and CJK text alike.

Triggers and rules are taken from the skill's own words (section titles, description clauses,
bullets), so they stay in the skill's language; these helpers only cut and compare text.
"""

from __future__ import annotations

import re
import sys
import unicodedata

from skill2app.converter.analyzers.writing import CJK, has_cjk
from skill2app.runtime.run.template import PLACEHOLDER

_WORD = re.compile(rf"[A-Za-z0-9]+|[{CJK}]+")
# Words that make a sentence a rule ("never", "must", "不要", "必ず"), not a task.
MODAL = re.compile(
    r"\b(?:never|always|must|do not|don't|avoid|only|keep|no more than|at most)\b"
    r"|不要|必须|避免|禁止|务必|保持|不得|不超过|只能"
    r"|必ず|してはいけない|しないこと|推測せず|厳守|避ける",  # Japanese
    re.I,
)
RULE_TITLES = re.compile(
    r"rule|guideline|constraint|convention|principle|style|do's|don'ts|"
    r"规则|规范|约束|注意|原则|要求|守则|ルール|規約|制約|原則|注意事項",
    re.I,
)
_REASONING = re.compile(
    r"\b(?:judge|decide|evaluate|assess|review|audit|compliance|security|risk|diagnose)\w*"
    r"|判断|评估|审查|审核|风险|合规|安全",
    re.I,
)
_LITE = re.compile(
    r"\b(?:classify|categori[sz]e|extract|format|translate|convert|tag|label)\w*"
    r"|分类|提取|格式化|翻译|转换|标注",
    re.I,
)
EXAMPLE_TITLES = re.compile(r"example|sample|示例|例子|范例", re.I)
# What a person does once, before the skill is used: never a pipeline of its own.
SETUP_TITLES = re.compile(
    r"\b(?:set ?up|install(?:ation|ing)?|prerequisites?|requirements|getting started|"
    r"configur(?:e|ation|ing)|credentials?|authenticat\w*|api keys?|troubleshoot\w*)\b|"
    r"安装|配置|准备工作|前置条件|环境准备|凭据|认证",
    re.I,
)
GENERIC_TITLES = re.compile(
    r"^(?:workflow|steps?|usage|how to use|process|procedure|instructions|quick ?start|"
    r"工作流程?|流程|步骤|用法|使用方法)$",
    re.I,
)


# Letters NFKD does not decompose into an ASCII base letter.
_TRANSLITERATE = str.maketrans(
    {"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
     "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "Th",
     "ı": "i"}
)  # fmt: skip


def ascii_fold(text: str) -> str:
    """``text`` in ASCII letters: accents dropped (NFKD), ``ß`` → ``ss``, ``æ`` → ``ae``, ...;
    letters with no ASCII form (CJK) are left out."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_TRANSLITERATE))
    return decomposed.encode("ascii", "ignore").decode()


def ascii_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", ascii_fold(text).lower())


def slug(text: str, limit: int = 5) -> str:
    """Lowercase-hyphen name from the ASCII words of ``text``, from its first word with a
    letter ("指定位置から1フレーム抽出" has no name: not "1"); "" when it has none."""
    words = ascii_words(text)
    start = next((i for i, word in enumerate(words) if re.search("[a-z]", word)), len(words))
    return "-".join(words[start:][:limit])


def snake(text: str, limit: int = 4) -> str:
    """snake_case identifier from the ASCII words of ``text``; "" when it has none."""
    name = "_".join(ascii_words(text)[:limit])
    return f"s_{name}" if name[:1].isdigit() else name


def strip_markdown(text: str) -> str:
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*|__([^_]+)__", lambda m: m.group(1) or m.group(2), text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    return " ".join(text.split())


_ENUMERATOR = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+", re.M)
_ITEM_START = re.compile(r"\n(?=\s*(?:\d+[.)]|[-*+])\s)")


# A sentence ends at . ! ? before a space (not inside "data.csv"), or at 。！？; a dash
# between words ends a description's first part.  A semicolon does not end a sentence.
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\s+-\s+|\s+—\s+")


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (Markdown removed, list markers such as "1." too),
    without its final full stop, or a colon or semicolon it ends with.  A list item ends
    a sentence: "1. Count the words:" then "2. Tell ..." gives "Count the words"."""
    for item in _ITEM_START.split(text):
        plain = strip_markdown(_ENUMERATOR.sub("", item))
        for part in _SENTENCE_SPLIT.split(plain):
            if part.strip(" .。;；:："):
                return part.strip().rstrip(".。;；:：,，").rstrip()
    return ""


STOP_WORDS = frozenset(
    "with from when that this into them then than what will each your have also only over some "
    "such used uses using user users asks want wants need needs file files make makes "
    "the and for but not you all any can are was has its our out use via per who how why".split()
)


# Short forms skills use in names and titles, by the word a request spells out.
SHORT_FORMS = {
    "stats": "statistics", "stat": "statistics", "info": "information", "config": "configuration",
    "conf": "configuration", "doc": "document", "docs": "documents", "repo": "repository",
    "repos": "repositories", "img": "image", "imgs": "images", "msg": "message",
    "msgs": "messages", "auth": "authorization", "dir": "directory", "dirs": "directories",
    "env": "environment", "eval": "evaluation", "evals": "evaluations", "pr": "pull request",
    "prs": "pull requests", "ci": "continuous integration", "db": "database", "calc": "calculate",
    "gen": "generate", "del": "delete", "rm": "remove", "ls": "list", "mv": "move",
    "cp": "copy", "tmpl": "template", "pkg": "package", "lib": "library", "txt": "text",
}  # fmt: skip


def capital(text: str) -> str:
    """``text`` with its first letter upper case, as a description starts."""
    return text[:1].upper() + text[1:]


def keys(text: str) -> set[str]:
    """Comparison keys: 5-letter stems of English words (3+ letters, short forms spelled
    out: "stats" is "statistics"), CJK bigrams."""
    found: set[str] = set()
    for word in _WORD.findall(text.lower()):
        if has_cjk(word):
            found.update(word[i : i + 2] for i in range(max(1, len(word) - 1)))
            continue
        for part in SHORT_FORMS.get(word, word).split():
            if len(part) >= 3 and part not in STOP_WORDS:
                found.add(part[:5])
    return found


def overlap(phrase: str, topic: set[str]) -> float:
    """Shared keys; a CJK bigram counts half (one shared bigram is too often chance)."""
    shared = keys(phrase) & topic
    cjk = sum(1 for k in shared if has_cjk(k))
    return len(shared) - cjk + cjk / 2


def unique(items: list[str], limit: int = 0) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = item.casefold().strip()
        if item.strip() and key not in seen:
            seen.add(key)
            out.append(item.strip())
    return out[:limit] if limit else out


def step_name(name: str) -> str:
    """``name``, or ``run_<name>`` when Python's standard library has a module of that name: a
    step is written as steps/<name>.py, which would hide it from the steps beside it
    (``scripts/profile.py``'s step, ``json``)."""
    return f"run_{name}" if name in sys.stdlib_module_names else name


def free_name(name: str, taken: set[str]) -> str:
    """``name``, else the first of ``name_2``, ``name_3`` … not in ``taken``."""
    found, number = name, 2
    while found in taken:
        found, number = f"{name}_{number}", number + 1
    return found


def is_rule(text: str) -> bool:
    return bool(MODAL.search(text))


def tier_for(text: str) -> str:
    if _REASONING.search(text):
        return "reasoning"
    if _LITE.search(text):
        return "lite"
    return "standard"


def humanize(identifier: str) -> str:
    """``create_event`` → ``create event``."""
    return " ".join(re.split(r"[_\-\s]+", identifier)).strip()


def skill_braces(prompt: str, steps: set[str]) -> str:
    """A prompt with each ``{{...}}`` that names no input and no step of its pipeline — the
    skill's own template placeholders, copied with its text (devcontainer-setup's
    ``{{PROJECT_NAME}}``) — spaced apart as ``{ {PROJECT_NAME} }``, so that app-run does not
    read it as a reference (round 35: the plan check refused it, and the skill's one
    pipeline was left to Skill mode)."""

    def literal(found: re.Match[str]) -> str:
        inner = found.group(1)
        head = inner.split(".", 1)[0]
        known = head in ("input", "steps") or head in steps  # `{{steps.x.output}}` too
        return found.group(0) if known else "{ {" + inner + "} }"

    return PLACEHOLDER.sub(literal, prompt)
