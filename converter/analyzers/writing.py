"""Writing systems: whether a text is written in CJK characters, or in Japanese kana.

The lowest module of the analyzers: the text and verb helpers both ask it.
"""

from __future__ import annotations

import re

CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"


def has_kana(text: str) -> bool:
    """Whether ``text`` has hiragana or katakana: Japanese, whatever the skill's language."""
    return bool(re.search(r"[\u3040-\u30ff]", text))


def has_cjk(text: str) -> bool:
    return bool(re.search(rf"[{CJK}]", text))
