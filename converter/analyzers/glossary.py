"""Glossary: the Chinese noun a Chinese skill gives an English word it also uses.

A Chinese skill names its flags and the things its actions work on in English
(``--followers``, ``add_followers``) and says in Chinese what they are: "`--followers` 为关注人
（follower）", "| `--members` | 负责人（assignee）open_id |".  Those pairs let an action
named in English be asked for in the skill's language: ``add_followers`` → "添加关注人".
A skill that pairs nothing still names its things in Chinese ("日程" all through a calendar
skill): ``common_nouns`` offers the usual Chinese words for common English objects and keeps
those the skill itself uses.  A word the skill keeps in Latin letters in the middle of its
Chinese or Japanese ("用户要求 PDF 时", "HTML 幻灯片") is its own noun there: ``kept_in_latin``
("export-pdf" → "导出 PDF").
"""

from __future__ import annotations

import re
from functools import lru_cache

from skill2app.converter.analyzers.writing import CJK

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


# The usual Chinese words for the objects of tool actions, most common first; one counts only
# when the skill's own text uses it (event: a calendar skill says 日程, a log skill 事件).
COMMON_NOUNS = {
    "event": ("日程", "事件", "活动"), "calendar": ("日历",), "attendee": ("参会人", "参与者",
    "参与人", "与会者"), "meeting": ("会议",), "task": ("任务",), "subtask": ("子任务",),
    "tasklist": ("任务清单",), "comment": ("评论",), "message": ("消息",), "reply": ("回复",),
    "doc": ("文档",), "document": ("文档",), "file": ("文件",), "folder": ("文件夹",),
    "user": ("用户",), "member": ("成员",), "chat": ("群聊", "会话", "群"), "group": ("群组",
    "群"), "sheet": ("工作表", "表格"), "spreadsheet": ("电子表格", "表格"), "record": ("记录",),
    "field": ("字段",), "table": ("数据表", "表格"), "view": ("视图",), "row": ("行",),
    "node": ("节点",), "space": ("知识空间", "空间"), "wiki": ("知识库",), "page": ("页面",),
    "block": ("块",), "image": ("图片", "图像"), "video": ("视频",), "audio": ("音频",),
    "reminder": ("提醒",), "contact": ("联系人",), "department": ("部门",),
    "permission": ("权限",), "attachment": ("附件",), "link": ("链接",), "tag": ("标签",),
    "label": ("标签",), "project": ("项目",), "note": ("笔记",), "email": ("邮件",),
    "mail": ("邮件",), "job": ("任务",), "schedule": ("日程",), "follower": ("关注人",),
    "weather": ("天气",), "forecast": ("预报",), "news": ("新闻",), "source": ("来源",),
    "category": ("分类",), "route": ("路线",), "place": ("地点",), "branch": ("分支",),
    "skill": ("技能",), "plan": ("计划",), "freebusy": ("忙闲",), "primary": ("主日历",),
    "card": ("卡片",), "bot": ("机器人",), "app": ("应用",), "report": ("报告",),
    "minute": ("纪要",), "transcript": ("转写",), "template": ("模板",), "order": ("订单",),
}  # fmt: skip
_MIN_USES = 2  # a word said once may be a passing mention
# A Latin word between two CJK characters or CJK punctuation, a space or none on each side
# ("要求 PDF 时", "的HTML幻灯片", "vault（只建"): never one inside a code span or a path.
_CJK_AROUND = f"{CJK}\u3000-\u303f\uff01-\uff5e"
_LATIN_AMID = re.compile(
    rf"(?<=[{_CJK_AROUND}])[ ]?([A-Za-z][A-Za-z0-9]{{1,15}})[ ]?(?=[{_CJK_AROUND}])"
)


@lru_cache(maxsize=4)
def kept_in_latin(text: str) -> dict[str, str]:
    """English word (lower case, singular) → the word as ``text`` writes it amid Chinese or
    Japanese ("PDF" for pdf in "用户要求 PDF 时"): a noun the skill does not translate.  The
    way it is written most wins.  Shared: read it, never change it."""
    seen: dict[str, dict[str, int]] = {}
    for match in _LATIN_AMID.finditer(text[:MAX_TEXT]):
        word = match.group(1)
        forms = seen.setdefault(singular(word), {})
        forms[word] = forms.get(word, 0) + 1
    return {key: max(forms, key=lambda f: (forms[f], f)) for key, forms in seen.items()}


@lru_cache(maxsize=4)
def common_nouns(text: str) -> dict[str, str]:
    """English object → the Chinese word for it that ``text`` uses most (``COMMON_NOUNS``;
    the first listed when two are used as often), for the objects whose words it uses at
    least twice.  Shared: read it, never change it."""
    text = text[:MAX_TEXT]
    found: dict[str, str] = {}
    for word, nouns in COMMON_NOUNS.items():
        used = [(text.count(noun), -rank, noun) for rank, noun in enumerate(nouns)]
        count, _rank, noun = max(used)
        if count >= _MIN_USES:
            found[word] = noun
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
