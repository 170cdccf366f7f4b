"""Verbs: the actions users ask for, in English and Chinese, and the forms titles give them.

A section title names a task the way a document does ("Accepting Tracked Changes", "Text
Extraction", "Validation"); a user asks with the verb ("accept tracked changes", "extract
text", "validate").  ``imperative`` turns the one into the other for the verbs of ``VERBS``
and leaves every other title as it is.  ``variants`` says a request with its verb another way
("merge PDFs" → "combine PDFs", "创建任务" → "新建任务").
"""

from __future__ import annotations

import re
from functools import cache

from skill2app.converter.analyzers.writing import has_cjk

# How else people ask for a common action: "combine these PDFs" for "merge PDFs".
VERB_SYNONYMS = {
    "merge": ("combine", "join"), "combine": ("merge",), "split": ("separate", "break up"),
    "extract": ("pull", "get"), "rotate": ("turn",), "convert": ("turn", "change", "transform"),
    "create": ("make", "add"), "make": ("create",), "generate": ("create", "make", "produce"),
    "build": ("make", "create"), "add": ("insert",), "fill": ("complete", "fill in"),
    "remove": ("delete", "strip"), "delete": ("remove",), "check": ("verify", "inspect"),
    "validate": ("check", "verify"), "verify": ("check",), "list": ("show", "view"),
    "show": ("list",), "find": ("look up", "search for"), "search": ("find", "look up"),
    "edit": ("change", "modify"), "update": ("change", "modify", "edit"), "modify": ("change",),
    "read": ("open",), "download": ("fetch", "save"), "upload": ("send",),
    "send": ("post",), "summarize": ("sum up",), "summarise": ("sum up",),
    "analyze": ("look at", "examine"), "analyse": ("look at", "examine"), "fix": ("repair",),
    "install": ("set up",), "package": ("bundle",), "recalculate": ("recompute",),
    "schedule": ("book", "set up"), "cancel": ("call off",), "draft": ("write",),
    "review": ("go over", "look over"), "test": ("check",), "inspect": ("look at", "examine"),
    "encrypt": ("password-protect",), "decrypt": ("unlock",), "compress": ("shrink",),
    "resize": ("scale",), "render": ("draw", "produce"), "export": ("save",), "import": ("load",),
    "unpack": ("extract", "open up"), "pack": ("repack", "zip up"), "accept": ("approve",),
    "evaluate": ("assess", "score"), "grade": ("score",), "aggregate": ("combine",),
    "compare": ("diff",), "translate": ("convert",), "reply": ("respond",),
    "copy": ("duplicate",), "move": ("relocate",), "rename": ("retitle",),
    "get": ("fetch", "retrieve"), "fetch": ("get", "retrieve"),
    "query": ("search", "look up", "find"),
    "lookup": ("find", "look up"), "log": ("record",), "record": ("log",),
    "notify": ("alert",), "prune": ("clean up", "trim"), "clean": ("clean up", "tidy"),
    "estimate": ("calculate",), "calculate": ("work out",), "scan": ("check",),
    "publish": ("post",), "share": ("send",), "enable": ("turn on",), "disable": ("turn off",),
    "start": ("launch",), "stop": ("halt",), "plan": ("map out",),
    "run": ("execute", "start"), "scaffold": ("set up", "create"), "stitch": ("assemble", "join"),
    "assemble": ("put together", "build"),
    "compile": ("build",), "monitor": ("watch", "track"), "track": ("monitor",),
    "view": ("show",), "print": ("show", "display"), "display": ("show",),
    "wipe": ("clear", "clean out"), "clear": ("wipe", "empty"),
    "open": ("view",), "save": ("store",), "upgrade": ("update",),
    "diff": ("compare",), "profile": ("analyze", "measure"), "lint": ("check",),
    "measure": ("count",), "count": ("measure",),
    "compute": ("calculate", "work out"), "detect": ("find", "spot"), "gather": ("collect",),
    "collect": ("gather",), "bundle": ("package",), "customize": ("tailor", "adapt"),
    "configure": ("set up",), "initialize": ("set up",), "init": ("set up",),
    "sync": ("synchronize",), "deploy": ("ship",), "parse": ("read",),
    "sort": ("order",), "audit": ("review", "check"), "describe": ("explain",),
    "explain": ("describe",), "optimize": ("improve", "tune"), "improve": ("refine",),
    "append": ("add",), "migrate": ("move",), "process": ("handle",),
    "identify": ("find",), "classify": ("categorize",), "plot": ("chart", "graph"),
    "visualize": ("chart", "plot"), "retrieve": ("get", "fetch"), "diagnose": ("troubleshoot",),
    "rewrite": ("rephrase",), "explore": ("browse",), "score": ("rate",),
    "resolve": ("fix",), "restore": ("recover",),
    "transcode": ("convert",), "organize": ("sort",),
    "interpret": ("read",), "segment": ("split",),
}  # fmt: skip
# The actions of tasks, beyond those with synonyms: what a title's gerund or noun may name.
_MORE_VERBS = (
    "annotate apply approve archive assign audit authenticate benchmark calculate chart clean "
    "clone close collect comment commit compile complete configure connect count crop debug "
    "deploy design detect display draw filter format gather highlight improve init initialize "
    "insert launch lint load log measure migrate monitor open optimize organize parse patch "
    "plan plot post prepare preview print process publish push rank record redact refactor "
    "reject release remind replace reset restore run save scan score scrape serve share sign "
    "sort start stop submit sync tag track transcribe transform trim unzip upgrade view "
    "visualize watermark write zip invite join notify query get fetch identify synthesize "
    "order select group rank match map link compute estimate stitch scaffold describe "
    "explain generate transcode encode decode resolve lookup prune restore backup trace "
    "profile alert ping pull push clone install uninstall configure authorize approve deny "
    "classify categorize detect recognize translate answer respond reply mention tag "
    "annotate split shrink compress expand list show hide enable disable handle manage "
    "create summarise organise analyse optimise visualise categorise append prepend revert "
    "snapshot rollback undo redo assemble emit retrieve wipe clear execute correlate suggest "
    "segment anonymize align interpret diagnose humanize rewrite produce examine separate "
    "bump recompute duplicate enforce explore deduplicate normalize normalise"
).split()
VERBS = frozenset([*VERB_SYNONYMS, *_MORE_VERBS])
# Nouns made from a verb that titles use ("Validation", "Data analysis").
VERB_NOUNS = {
    "validation": "validate", "conversion": "convert", "extraction": "extract",
    "creation": "create", "generation": "generate", "installation": "install",
    "analysis": "analyze", "comparison": "compare", "translation": "translate",
    "compression": "compress", "encryption": "encrypt", "decryption": "decrypt",
    "rotation": "rotate", "deletion": "delete", "insertion": "insert", "removal": "remove",
    "submission": "submit", "transcription": "transcribe", "summarization": "summarize",
    "verification": "verify", "inspection": "inspect", "calculation": "calculate",
    "recalculation": "recalculate", "configuration": "configure", "deployment": "deploy",
    "migration": "migrate", "optimization": "optimize", "evaluation": "evaluate",
    "aggregation": "aggregate", "visualization": "visualize", "detection": "detect",
    "annotation": "annotate", "redaction": "redact", "publication": "publish",
    "authentication": "authenticate",
}  # fmt: skip
# Words before a title's action that make it no plain "<object> <action>" ("Try Structure
# Extraction First", "How Validation Works").
NOT_OBJECT = frozenset(
    "a an the of to for with and or how why what when where try using use your my this that "
    "is are be about after before during".split()
)


@cache
def _forms() -> dict[str, str]:
    """Every gerund and noun of ``VERBS`` → the verb: "splitting" and "creating" and
    "validation" → "split", "create", "validate"."""
    forms = dict(VERB_NOUNS)
    for verb in VERBS:
        if " " in verb:
            continue
        if verb.endswith("ie"):
            stems = [verb[:-2] + "y"]
        elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
            stems = [verb[:-1]]
        else:
            stems = [verb, verb + verb[-1]]  # "splitting" and "editing" alike
        for stem in stems:
            forms.setdefault(stem + "ing", verb)
    return forms


def verb_of(word: str) -> str:
    """The verb a title word names: itself when it is one, its gerund's or noun's verb, ""."""
    low = word.lower()
    return low if low in VERBS else _forms().get(low, "")


def names_file(request: str) -> bool:
    """Whether a request names a file ("rotate pages input.pdf"): said once, as the skill
    shows it, never in other words."""
    return bool(re.search(r"\w\.\w{2,4}\b", request))


def sentence_case(phrase: str) -> str:
    """A title's capitalised words as a person types them ("extract Tables" → "extract
    tables"); acronyms and names with capitals inside (PDF, GitHub) stay."""
    return re.sub(r"\b([A-Z])([a-z]+)\b", lambda m: m.group(1).lower() + m.group(2), phrase)


def _joined_gerunds(words: list[str], listed: bool) -> list[str]:
    """The words after a title's first action with the gerunds listed beside it said as
    verbs too ("Running and evaluating test cases" → "run and evaluate test cases";
    "Reading, writing and merging PDFs"; ``listed``: the first action ends with a comma)."""
    out = list(words)
    for index, word in enumerate(words):
        before = words[index - 1] if index else ""
        joined = (
            before.lower() in ("and", "or", "&") or before.endswith(",") or (index == 0 and listed)
        )
        if word.lower() in ("and", "or", "&") and index in (0, 1):
            continue
        bare = word.rstrip(",")
        verb = verb_of(bare) if joined and bare.lower().endswith("ing") else ""
        if not verb:
            break
        out[index] = verb + word[len(bare) :]
    return out


def imperative(title: str) -> str:
    """A task title as a user asks for it: "Accepting Tracked Changes" → "accept tracked
    changes", "Text Extraction with pdfplumber" → "extract text with pdfplumber", "Validation"
    → "validate"; a title with no action of ``VERBS`` in those places, in sentence case."""
    if has_cjk(title):
        return title
    words = title.split()
    if not words:
        return ""
    verb = verb_of(words[0].rstrip(","))
    if verb:
        rest = _joined_gerunds(words[1:], words[0].endswith(","))
        if rest and rest[0].lower() == "of" and words[0].lower() in VERB_NOUNS:
            rest = rest[1:]  # "Validation of forms" → "validate forms"
        comma = "," if words[0].endswith(",") else ""
        return sentence_case(" ".join([verb + comma, *rest]))
    for index, word in enumerate(words[1:4], start=1):
        verb = verb_of(word) if word.lower() not in VERBS else ""
        before = words[:index]
        if verb and not any(w.lower() in NOT_OBJECT or verb_of(w) for w in before):
            return sentence_case(" ".join([verb, *before, *words[index + 1 :]]))
    return sentence_case(title)


# The thing a skill named for a file type works on, as a user names it.
_DOCUMENTS = {
    "pdf": "a PDF", "docx": "a Word document", "doc": "a Word document",
    "xlsx": "a spreadsheet", "xls": "a spreadsheet", "pptx": "a slide deck",
    "csv": "a CSV file", "gif": "a GIF", "svg": "an SVG", "epub": "an ebook",
}  # fmt: skip
# The word that puts that thing after a request's verb: "extract tables from a PDF".
_PREPOSITIONS = {
    **dict.fromkeys("extract pull get read remove delete strip".split(), "from"),
    **dict.fromkeys("add insert put append".split(), "to"),
    **dict.fromkeys(
        "rotate fill complete find search replace edit change modify check verify validate "
        "count highlight redact sign crop".split(),
        "in",
    ),
}


def on_document(request: str, skill: str) -> str:
    """``request`` said of the document a file-type skill works on ("extract tables" →
    "extract tables from a PDF" in the pdf skill); "" when the skill is named for no file
    type, the verb takes no such object or the request names a file already."""
    document = _DOCUMENTS.get(skill.lower(), "")
    words = request.split()
    preposition = _PREPOSITIONS.get(words[0].lower(), "") if len(words) >= 2 else ""
    if not document or not preposition or has_cjk(request):
        return ""
    if names_file(request) or re.search(rf"\b{re.escape(skill)}s?\b", request, re.I):
        return ""  # "split PDF", "rotate pages input.pdf"
    return f"{request} {preposition} {document}"


# -- Chinese ---------------------------------------------------------------------------------

# The verbs of common command actions, as a Chinese user asks for them.
ZH_VERBS = {
    "create": ("创建", "新建"), "new": ("新建",), "list": ("列出", "查看所有"),
    "get": ("获取", "查看"), "show": ("查看",), "view": ("查看",), "read": ("读取", "查看"),
    "fetch": ("获取",),
    "update": ("更新", "修改"), "edit": ("编辑", "修改"), "modify": ("修改",), "set": ("设置",),
    "delete": ("删除",), "remove": ("移除", "删除"), "rm": ("删除",), "add": ("添加",),
    "insert": ("插入",), "append": ("追加",), "search": ("搜索", "查找"), "find": ("查找",),
    "query": ("查询",), "send": ("发送",), "reply": ("回复",), "download": ("下载",),
    "upload": ("上传",), "move": ("移动",), "copy": ("复制",), "export": ("导出",),
    "import": ("导入",), "share": ("分享",), "cancel": ("取消",), "complete": ("完成",),
    "rename": ("重命名",), "check": ("检查",), "validate": ("校验",), "convert": ("转换",),
    "merge": ("合并",), "split": ("拆分",), "extract": ("提取",), "fill": ("填写",),
    "analyze": ("分析",), "summarize": ("总结",), "translate": ("翻译",), "archive": ("归档",),
    "sync": ("同步",), "invite": ("邀请",), "join": ("加入",), "schedule": ("安排",),
}  # fmt: skip
# How else a Chinese user says a request's leading verb: "新建任务" for "创建任务".
ZH_SYNONYMS = {
    "创建": ("新建", "新增"), "新建": ("创建", "新增"), "获取": ("查看", "查询"),
    "查看": ("获取", "查询"),
    "列出": ("查看所有", "显示"), "读取": ("查看", "获取"), "查询": ("查看", "查找", "搜索"),
    "搜索": ("查找", "搜"), "查找": ("搜索", "找"), "删除": ("移除", "删掉"),
    "移除": ("删除", "去掉"),
    "更新": ("修改", "编辑"), "修改": ("更新", "编辑"), "编辑": ("修改",), "发送": ("发", "发出"),
    "回复": ("答复",), "追加": ("添加",), "添加": ("加", "增加"), "复制": ("拷贝",),
    "移动": ("挪动",), "导出": ("下载",), "上传": ("传",), "写入": ("填入",),
    "提取": ("抽取",), "转换": ("转成",), "合并": ("合成",), "拆分": ("分割",),
    "生成": ("制作",), "启用": ("开启", "打开"), "禁用": ("停用", "关闭"), "清理": ("清除", "清空"),
    "验证": ("校验",), "校验": ("验证",), "检查": ("核对",), "接收": ("收取", "查收"),
    "执行": ("运行", "触发"), "运行": ("执行",), "设置": ("配置",), "取消": ("撤销",),
    "规划": ("计划",), "分析": ("解析",), "下载": ("保存",), "重置": ("重设",),
    "总结": ("概括",), "导入": ("载入",), "分享": ("共享",),
}  # fmt: skip
ZH_LEADS = sorted({v for verbs in ZH_VERBS.values() for v in verbs} | set(ZH_SYNONYMS), key=len)


# Chinese actions titles name beyond those of ``ZH_VERBS``.
_ZH_ACTIONS = (
    "统计 汇总 生成 计算 整理 比较 制作 撰写 编写 写 查 看 找 订 预约 提醒 通知 审批 预览 打印 "
    "转 发 建 改 删 读 存 分享 授权 登录 安装 部署 运行 执行 测试 识别 评估 审核 记录 规划 "
    "接收 检查 获取 下载 上传 导出 导入 分析 翻译 画 取消 更新 添加 列出 设置 同步 转换 合并 "
    "拆分 压缩 提取 搜索 总结 回复 播放 启用 禁用 暂停 恢复 检索 筛选 排序 核对 核验 验证 判断"
).split()


# Japanese verbal nouns: a request ends with one ("ログを分析"), a title names a task with one
# ("AI臭診断", "Before/After比較"), a user asks with its te-form ("分析して").
JA_ACTIONS = (
    "分析 検索 作成 変換 生成 確認 記録 承認 却下 削除 追加 更新 取得 登録 出力 集計 抽出 整形 "
    "翻訳 要約 修正 検証 実行 比較 送信 保存 設定 表示 判定 計算 評価 最適化 置換 診断 調査 監査 "
    "整理 添削 校正 一括承認 リライト"
).split()


# A Japanese title ends with its verbal noun ("AI臭診断", "Before/After比較", "ログを分析する");
# in a Chinese one such a word may be a noun's first half ("表示方法", "保存位置").
_JA_ENDS = re.compile(f"(?:{'|'.join(map(re.escape, JA_ACTIONS))})(?:する|して)?$")


# Two-character actions a Chinese request may end with ("骑行路线规划"), beyond ``ZH_LEADS``.
_ZH_ENDS = sorted({*ZH_LEADS, *(a for a in _ZH_ACTIONS if len(a) == 2)}, key=len, reverse=True)


_POLITE = re.compile(r"^(?:帮我|请|我想|我要|给我)")


def names_an_action(title: str) -> bool:
    """Whether a title says what is done ("accept tracked changes", "Data analysis", "创建任务",
    "按关键词搜索用户"), or is one word naming a task ("Agenda"), not only what it is about
    ("the state machine", "provider 兼容性")."""
    if has_cjk(title):  # a one-character verb only leads ("查天气"; not 建 in "编排建议")
        asked = _POLITE.sub("", title)
        return any(
            verb in title if len(verb) > 1 else asked.startswith(verb)
            for verb in (*ZH_LEADS, *_ZH_ACTIONS)
        ) or bool(_JA_ENDS.search(title))
    words = title.split()
    one_task = len(words) == 1 and re.fullmatch(r"[A-Z]?[a-z]{3,}", title)  # "Agenda"
    return bool(one_task) or any(verb_of(word.strip(",.:;()")) for word in words)


def zh_verb_of(phrase: str, leads: list[str] | None = None) -> str:
    """The Chinese verb ``phrase`` opens with ("创建任务" → "创建"), or "": the longest of
    ``leads`` (shortest first; ``ZH_LEADS`` by default)."""
    return next((v for v in reversed(leads or ZH_LEADS) if phrase.startswith(v)), "")


# -- the same request in other words ---------------------------------------------------------


def variants(triggers: list[str]) -> list[str]:
    """The requests of ``triggers`` with their verb said another way: "merge PDFs" →
    "combine PDFs", "join PDFs"; "创建任务" → "新建任务".  A request naming the example's
    files is said once."""
    found: list[str] = []
    for trigger in triggers:
        words = trigger.split()
        if has_cjk(trigger):
            lead = zh_verb_of(trigger)
            rest = trigger[len(lead) :]
            found += [_joined(other, rest) for other in ZH_SYNONYMS.get(lead, ()) if rest]
            found += _verb_first(trigger) if not lead else []
            asked = "" if lead else _after_manner(trigger)
            found += [asked, *variants([asked])] if asked else []
            continue
        if len(words) < 2 or names_file(trigger):
            continue  # "check" alone asks for nothing
        last = words[-1].lower()
        named = len(words) == 2 and re.fullmatch(r"[a-z][a-z-]*[a-z]", words[0])  # "space create"
        modifier = words[0] in DETERMINERS | VERBS | NOT_OBJECTS
        if named and last in ACTIONS and not modifier:
            words = [last, *words[:-1]]  # "storyboard compile" → "compile storyboard"
            found.append(" ".join(words))
        if words[1].lower() in _PREPOSITIONS_AFTER:
            continue  # "convert with AI": no object, and "turn with AI" says nothing
        if words[1].lower() in _PARTICLES:  # a phrasal verb means something else: "check
            lead = f"{words[0].lower()} {words[1].lower()}"  # out the branch" is no verifying
            said = _PHRASAL_SYNONYMS.get(lead, ()) if len(words) > 2 else ()  # "fill out": none
            found += [" ".join([o, *words[2:]]) for o in said]
            continue
        for other in VERB_SYNONYMS.get(words[0].lower(), ()):
            found.append(" ".join([other, *words[1:]]))
    return found


# The particle of a phrasal verb, and the phrasal verbs said another way.
_PARTICLES = frozenset("up out off over down back".split())
_PHRASAL_SYNONYMS = {"fill out": ("complete",), "look up": ("find",), "clean up": ("tidy",)}


# Words after a verb that show it has no object of its own ("convert with AI").
_PREPOSITIONS_AFTER = frozenset("with to into from for in on by via using".split())


# Words before a verb that make no object of it: a manner ("dry run", "cold start") or the
# tool that does it ("git commit", "npm install", "docker build").
NOT_OBJECTS = frozenset(
    "dry cold warm hot quick fast slow full partial spell batch bulk git npm pnpm yarn pip uv "
    "cargo go brew apt docker kubectl gh make".split()
)


# Verbs that are nouns at the end of a name ("pushover lookup", "route map"): never moved.
_NOUNS_TOO = frozenset(
    "lookup setup login backup cleanup map plan match order group link record profile design "
    "format log test sort track trace alert comment tag review share post scan score view "
    "query answer reply print release process".split()
)
# Verbs that are actions wherever they stand (not "log", "map", "order": ``_NOUNS_TOO``).
ACTIONS = VERBS - _NOUNS_TOO


# How a Chinese request says the way it is done before its verb: "按 user_id 精确查询指定用户".
_MANNER = re.compile(r"^(?:按|通过|根据|使用|用(?!户)|从)")


def _after_manner(trigger: str) -> str:
    """The action of a Chinese request that says how first, from its last verb on ("按 user_id
    精确查询指定用户" → "查询指定用户", "按创建时间查询任务" → "查询任务": 创建 is part of a
    noun there); "" for any other request."""
    if not _MANNER.match(trigger):
        return ""
    for at in range(len(trigger) - 3, 0, -1):
        lead = zh_verb_of(trigger[at:])
        rest = trigger[at + len(lead) :]  # what is acted on; "…图片后" says when
        acted_on = re.fullmatch(r"[\u4e00-\u9fff]{2,}", rest) and rest[-1] not in "后时前的"
        if len(lead) >= 2 and acted_on and not zh_verb_of(rest):
            return trigger[at:]
    return ""


def _verb_first(trigger: str) -> list[str]:
    """A Chinese request that names its object first ("骑行路线规划", "景点搜索") said verb
    first, as users also ask ("规划骑行路线", "搜索景点"), with that verb's synonyms."""
    verb = next((v for v in _ZH_ENDS if trigger.endswith(v)), "")
    head = trigger[: -len(verb)] if verb else ""
    if len(verb) < 2 or not re.fullmatch(r"[\u4e00-\u9fff]{2,}", head):
        return []
    return [f"{verb}{head}", *(f"{other}{head}" for other in ZH_SYNONYMS.get(verb, ()))]


def _joined(verb: str, rest: str) -> str:
    """``verb`` before ``rest`` without saying their shared part twice ("查看所有" +
    "所有知识空间" → "查看所有知识空间")."""
    shared = next(
        (k for k in range(min(len(verb), len(rest)), 0, -1) if verb.endswith(rest[:k])), 0
    )
    return verb + rest[shared:]


# Words that already count or point at a request's object ("create a task", "list my tasks").
DETERMINERS = frozenset(
    "a an the all my our your this these those some every each any new one".split()
)
