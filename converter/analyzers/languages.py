"""The languages a skill is written in, and its actions asked for in Japanese.

A skill written in English may also be written in Chinese or Japanese (its examples, its
tables of status words, its "会議準備"): users then ask in either, and each pipeline needs
requests in both.  ``languages_of`` reads SKILL.md's prose (not its code) for them.  An
action named in English (``generate_agenda``, ``add``) is asked for in Japanese as its object,
in the skill's own word, and the verbal noun of its verb: "アジェンダを生成".
"""

from __future__ import annotations

import re
from functools import lru_cache

from skill2app.converter.analyzers.glossary import singular
from skill2app.converter.analyzers.triggers import verb_and_object
from skill2app.converter.inventory.model import Inventory

_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
MIN_KANA = 20  # a few quoted words ("返信した") are no Japanese text to ask in
MIN_HAN = 30

# The verbal nouns a Japanese user asks for common command actions with ("…を作成して").
JA_VERBS = {
    "create": ("作成",), "new": ("作成",), "make": ("作成",), "generate": ("生成", "作成"),
    "list": ("一覧表示",), "show": ("表示",), "view": ("表示",), "get": ("取得",),
    "fetch": ("取得",), "update": ("更新",), "edit": ("編集",), "modify": ("修正",),
    "fix": ("修正",), "delete": ("削除",), "remove": ("削除",), "add": ("追加",),
    "register": ("登録",), "search": ("検索",), "find": ("検索",), "send": ("送信",),
    "export": ("出力", "エクスポート"), "import": ("インポート",), "check": ("確認", "チェック"),
    "validate": ("検証",), "verify": ("検証",), "convert": ("変換",), "merge": ("結合",),
    "split": ("分割",), "extract": ("抽出",), "analyze": ("分析",), "summarize": ("要約",),
    "translate": ("翻訳",), "calculate": ("計算",), "compare": ("比較",), "record": ("記録",),
    "save": ("保存",), "set": ("設定",), "configure": ("設定",), "init": ("初期化",),
    "initialize": ("初期化",), "prepare": ("準備",), "review": ("レビュー",),
    "format": ("整形",), "diagnose": ("診断",), "audit": ("監査",), "evaluate": ("評価",),
    "optimize": ("最適化",), "aggregate": ("集計",), "download": ("ダウンロード",),
    "upload": ("アップロード",), "track": ("追跡",), "approve": ("承認",),
}  # fmt: skip

# The usual Japanese words for the objects of tool actions; one counts only where the skill
# itself uses it twice (a meeting skill says 会議 and アジェンダ).
JA_NOUNS = {
    "file": ("ファイル",), "image": ("画像",), "video": ("動画",), "audio": ("音声",),
    "document": ("ドキュメント", "文書"), "doc": ("ドキュメント",),
    "report": ("レポート", "報告書"),
    "summary": ("サマリー", "要約"), "meeting": ("会議",), "agenda": ("アジェンダ", "議題"),
    "minute": ("議事録",), "task": ("タスク",), "action item": ("アクションアイテム",),
    "item": ("アイテム", "項目"), "status": ("ステータス", "状態"), "log": ("ログ",),
    "template": ("テンプレート",), "decision log": ("決定事項ログ", "決定ログ"),
    "decision": ("決定事項",), "state": ("状態",), "config": ("設定",), "setting": ("設定",),
    "plan": ("計画",), "schedule": ("スケジュール",), "project": ("プロジェクト",),
    "email": ("メール",), "mail": ("メール",), "message": ("メッセージ",), "page": ("ページ",),
    "table": ("表", "テーブル"), "chart": ("グラフ", "チャート"), "graph": ("グラフ",),
    "data": ("データ",), "list": ("リスト", "一覧"), "note": ("メモ", "ノート"),
    "comment": ("コメント",), "user": ("ユーザー",), "issue": ("課題", "イシュー"),
    "risk": ("リスク",), "estimate": ("見積もり", "見積"), "budget": ("予算",),
    "cost": ("コスト",), "kpi": ("KPI",), "shift": ("シフト",), "network": ("ネットワーク",),
    "reference": ("参考資料", "資料"), "material": ("資料",), "package": ("パッケージ",),
    "slide": ("スライド",), "text": ("テキスト", "文章"), "subtitle": ("字幕",),
}  # fmt: skip
_MIN_USES = 2
# "Decision Log / 決定事項ログ", "Agenda Items / 議題"; "議事録 (minutes)": a noun, katakana
# and kanji (a clause with hiragana, "設定ファイルを作成します (optional)", is none)
_NOUN = "[\u30a0-\u30ff\u4e00-\u9fff]{2,12}"
_EN_JA = re.compile(rf"\b((?:[A-Za-z]+ ){{0,3}}[A-Za-z]+) ?/ ?({_NOUN})(?![\u3040-\u309f])")
_JA_EN = re.compile(
    rf"(?<![\u3040-\u309f])({_NOUN})\s*[（(]\s*((?:[A-Za-z]+ ){{0,3}}[A-Za-z]+)\s*[)）]"
)
_ARTICLES = frozenset({"the", "a", "an"})

__all__ = ["JA_VERBS", "ja_action_phrases", "ja_nouns", "languages_of"]


def languages_of(inventory: Inventory) -> tuple[str, ...]:
    """The skill's language, then the others its SKILL.md's prose is written in (the lines
    outside the code blocks the inventory's Markdown scan found)."""
    skill = inventory.skill
    lines = enumerate(skill.body_lines, skill.body_line)
    prose = "\n".join(text for number, text in lines if number not in skill.code_lines)
    return _written_in(inventory.language, prose)


@lru_cache(maxsize=8)
def _written_in(language: str, prose: str) -> tuple[str, ...]:
    kana, han = len(_KANA.findall(prose)), len(_HAN.findall(prose))
    found = [language]
    if kana >= MIN_KANA:
        found.append("ja")
    elif han >= MIN_HAN and language != "ja" and kana * 20 < han:  # kanji with no kana: zh
        found.append("zh")
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=4)
def ja_nouns(text: str) -> dict[str, str]:
    """English object (lower case, singular) → the Japanese noun ``text`` pairs it with
    ("Decision Log / 決定事項ログ"), else the usual word for it that ``text`` uses at least
    twice.  Shared: read it, never change it."""
    found: dict[str, str] = {}
    pairs = [(m.group(1), m.group(2)) for m in _EN_JA.finditer(text)]
    pairs += [(m.group(2), m.group(1)) for m in _JA_EN.finditer(text)]
    for english, noun in pairs:  # "Update the Decision Log": its last words name the noun,
        words = english.lower().split()  # "decision log", never "log" alone
        for start in range(len(words)):
            alone = start == len(words) - 1 and start > 0 and words[start - 1] not in _ARTICLES
            if words[start] not in _ARTICLES and not alone:
                found.setdefault(singular(" ".join(words[start:])), noun)
    for word, nouns in JA_NOUNS.items():
        count, _rank, noun = max((text.count(n), -rank, n) for rank, n in enumerate(nouns))
        if count >= _MIN_USES:
            found.setdefault(singular(word), noun)
    return found


def ja_action_phrases(label: str, nouns: dict[str, str]) -> list[str]:
    """The action in Japanese, its object as the skill names it: "generate_agenda" →
    "アジェンダを生成"; none when its verb or its object has no Japanese here."""
    verb, obj = verb_and_object(label)
    noun = nouns.get(obj) or _each_word(obj, nouns)
    if verb not in JA_VERBS or not noun:
        return []
    return [f"{noun}を{ja}" for ja in JA_VERBS[verb]]


def _each_word(obj: str, nouns: dict[str, str]) -> str:
    """ "meeting agenda" → 会議 + アジェンダ, when each word has its noun."""
    parts = [nouns.get(singular(w), "") for w in obj.split()]
    return "".join(parts) if len(parts) > 1 and all(parts) else ""
