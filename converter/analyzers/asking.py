"""Asking: how users ask for an action, said of a request or a description.

``asks_of`` reads a description's action and object as a short request ("Render a single
shot via the configured provider" → "render a single shot"), also when the description names
its program as a doer ("Pushover notification sender" → "send pushover notification":
``agent_verb``); ``counted`` says a request with its object counted ("create task" → "create
a task", "创建任务" → "创建一个任务"); ``asked_politely`` as users also ask ("help me merge
PDFs", "記録する" → "記録して").  The verbs themselves are ``verbs.py``'s.
"""

from __future__ import annotations

import re

from skill2app.converter.analyzers.text import has_cjk
from skill2app.converter.analyzers.verbs import (
    ACTIONS,
    DETERMINERS,
    JA_ACTIONS,
    NOT_OBJECT,
    NOT_OBJECTS,
    VERB_NOUNS,
    VERBS,
    ZH_LEADS,
    ZH_SYNONYMS,
    names_an_action,
    names_file,
    sentence_case,
    zh_verb_of,
)

# Where a description's action and object end: "Render a single shot via the provider".
_OBJECT_END = re.compile(  # from the start of a run of spaces only: linear on long runs
    r"(?<!\s)(?:\s+(?:via|with|using|through|from|into|onto|for|by|in|on|at|when|so|and then|"
    r"then|after|before|without|while|until|if|unless)\s"
    r"|\s*[,;:(—–]|\s+-\s)",
    re.I,
)


def asked_of(description: str) -> str:
    """A description's action and object as a short request ("Render a single shot via the
    configured provider" → "render a single shot", "Verify spark-video runtime dependencies.
    Exit 0 = ready" → "verify spark-video runtime dependencies"); "" when it opens with no
    verb, or would be the whole description again (the router reads that already)."""
    return next(iter(asks_of(description)), "")


# Nouns in -er/-or that name no doer of a task verb ("MCP server" serves nothing a user asks).
_NOT_DOERS = frozenset(
    "server computer starter poster charter shower planter order number folder user layer "
    "cover header marker power water container border corner error other after later "
    "monitor filter answer register letter matter paper".split()
)
# What a program is called after what it does: "Excel Formula Recalculation Script".
_TOOL_NOUNS = frozenset("script tool helper utility program cli wrapper".split())
# A word that says what something is like, not what it is: "Monthly", "Enhanced", "UUID-linked",
# "Deterministic" (not "feed", "Drive", "table" or "journal").
_QUALITY = re.compile(r"\w{2}(?:[^e]ed|ly|istic)$", re.I)


def agent_verb(word: str) -> str:
    """The verb of ``VERBS`` an agent noun names, the noun for who does it: "sender" →
    "send", "pruner" → "prune", "validator" → "validate", "scanner" → "scan"; "" for any
    other word."""
    low = word.lower()
    if not low.endswith(("er", "or")) or len(low) < 5 or low in _NOT_DOERS:
        return ""
    stem = low[:-2]
    stems = [stem, stem[:-1]] if stem[-1] == stem[-2] else [stem]  # "logger", "scanner"
    return next((v for base in stems for v in (base, base + "e") if v in VERBS), "")


def doer_request(name: str) -> list[str]:
    """A name that calls its program a doer as the request for what it does: "ratio
    calculator" → "calculate ratio", "tree visualization" → "visualize tree"."""
    return _agentive(name, "")


# A name that says what becomes what: "epub to markdown", "sdd to docx".
_FORMAT_TO_FORMAT = re.compile(r"^([\w.+-]{2,15}) to ([\w.+-]{2,15})$", re.I)
# What documents and media are turned into: one side of such a name must be one.
FORMATS = frozenset(
    "pdf docx doc md markdown html htm csv tsv json jsonl xlsx xls epub txt text png jpg jpeg "
    "svg gif webp heic mp3 mp4 wav m4a ogg mov yaml yml xml latex tex pptx ppt rtf odt ods "
    "srt vtt ics vcf zip parquet sql mermaid drawio".split()
)


def conversion_request(name: str) -> list[str]:
    """A name that says what file type is turned into what as the request to convert it:
    "epub to markdown" → "convert epub to markdown"; none for a name that opens with its verb
    ("merge to PDF") or names no file type ("login to portal", "back to top")."""
    said = _FORMAT_TO_FORMAT.match(name.strip())
    if said is None or said.group(1).lower() in VERBS:
        return []
    if not {said.group(1).lower(), said.group(2).lower()} & FORMATS:
        return []
    return [f"convert {said.group(1)} to {said.group(2)}"]


def _agentive(name: str, rest: str) -> list[str]:
    """A description that names its program as a doer ("Monthly quota monitor for the
    notify skill", "A parser for Burp files", "Pushover notification sender") as the
    request for what it does: "monitor quota", "parse Burp files", "send Pushover
    notification"; none for any other sentence.  ``name``: the sentence up to where its
    object ends (``_OBJECT_END``), ``rest``: what follows ("for Burp files")."""
    words = name.split()
    words = words[1:] if words and words[0].lower() in ("a", "an", "the") else words
    if words and words[-1].lower() in _TOOL_NOUNS:  # "Excel Formula Recalculation Script"
        words = words[:-1]
    if not 1 <= len(words) <= 5 or not re.fullmatch(r"[A-Za-z]+", words[-1]):
        return []
    last = words[-1].lower()
    verb = last if len(words) > 1 and last in ACTIONS else ""  # not "Error log"
    verb = verb or agent_verb(last) or VERB_NOUNS.get(last, "")
    if not verb or any(w.lower() in NOT_OBJECT | NOT_OBJECTS for w in words[:-1]):
        return []  # "How validation works", "Git commit"
    after = re.match(r"\s+for\s+(?:the\s+|a\s+|an\s+)?(.+)", rest)
    target = _OBJECT_END.split(after.group(1))[0].split() if after else []
    # what the name says before it, its qualities left out ("Monthly quota monitor": "monitor
    # quota"); else what it works on ("A parser for Burp files": "parse Burp files"), never
    # whom or why ("Report generator for managers", "Counter for cost estimation")
    named = [w for w in words[:-1] if not _QUALITY.search(w)]
    if not named and target and re.search(r"ing$", target[0]):
        target = []
    obj = named or target
    return [sentence_case(" ".join([verb, *obj]))] if 1 <= len(obj) <= 4 else []


def asks_of(description: str, limit: int = 2, *, whole: bool = False) -> list[str]:
    """``asked_of`` for each sentence of a description's first lines that opens with a verb,
    up to ``limit`` ("Profile a CLAUDE.md. Lists the longest lines" → "profile a CLAUDE.md",
    "list the longest lines"), or whose first names its program as a doer ("Notification
    sender" → "send notification": ``_agentive``); ``whole``: also the whole description
    when it is one such request ("Calculate and interpret financial ratios")."""
    if has_cjk(description):
        return []
    found: list[str] = []
    everything = description.strip().rstrip(".")
    said = 0  # sentences read: after the first, only one saying what the program does
    for line in description.strip().split("\n")[:3]:  # a title line may come first
        for sentence in re.split(r"(?<=[a-z0-9])\.\s", line):
            sentence = sentence.rstrip(". ")
            end = _OBJECT_END.search(sentence)
            asked = sentence[: end.start()] if end else sentence
            words = asked.split()
            verb = _base(words[0]) if words else ""
            said += 1
            if not verb and said == 1 and (doer := _agentive(asked, sentence[len(asked) :])):
                found += doer  # "Pushover notification sender": "send pushover notification"
                if len(found) >= limit:
                    return found
                continue
            # "Lists the longest lines" says what it does; "Run setup.sh first" is an order
            if said > 1 and verb and verb == words[0].lower():
                continue
            if not verb or not 2 <= len(words) <= 6:
                continue
            if re.fullmatch(r"\w+(?:ed|ly)|a|an|the|all|and|or|of", words[-1], re.I):
                continue  # "Extract a filtered, sorted CSV": the object is cut short
            if asked.strip().rstrip(".") == everything and not whole:
                continue
            found.append(sentence_case(" ".join([verb, *words[1:]])))
            if len(found) >= limit:
                return found
    return found


def _base(word: str) -> str:
    """The verb of ``VERBS`` a word is, said by a person ("Recalculates" → "recalculate")."""
    low = word.lower()
    if low in VERBS or not low.endswith("s"):
        return low if low in VERBS else ""
    return next((s for s in (low[:-1], low[:-2], low[:-3] + "y") if s in VERBS), "")


# Verbs that bring a thing into being: "create a task", "创建一个任务".
_MAKING = frozenset("create make add generate build draft write new schedule book scaffold".split())
_ZH_MAKING = ("创建", "新建", "新增", "添加", "生成")
# Verbs whose plural object may be "all" of them: "list all tasks", "merge all PDFs".
_ALL_OF = frozenset(
    "list show view merge combine accept reject delete remove extract export download upload "
    "recalculate recompute check validate verify convert compress summarise summarize count "
    "fill clean prune archive sync back translate rename move copy".split()
)


def counted(request: str) -> list[str]:
    """``request`` with its object counted, as users also ask: "create task" → "create a
    task", "list tasks" → "list all tasks" and "list the tasks", "compile storyboard" →
    "compile the storyboard"; "创建任务" → "创建一个任务" and "帮我创建一个任务",
    "删除任务" → "帮我删除任务", "导出 PDF" → "帮我导出 PDF".  None for a request that names a
    file, counts its object already, does not open with a verb and its object, or whose verb
    takes no "a"/"all" ("filter rows" is no "filter all rows")."""
    if has_cjk(request):
        lead = zh_verb_of(request, _ZH_ANY_LEADS)
        rest = request[len(lead) :]
        latin = re.fullmatch(r" ?[A-Za-z][A-Za-z0-9]{1,15}", rest)  # "导出 PDF"
        chinese = re.fullmatch(r"[\u4e00-\u9fff]{2,12}", rest)
        if not lead or not (chinese or latin) or rest[0] in _ZH_COUNTED:
            return []  # "创建一个任务", "添加到日历", "创建并发送文档", "生成中"
        if lead not in _ZH_MAKING:
            return [f"帮我{request}"]  # "帮我删除任务"
        return [f"{lead}一个{rest}", f"帮我{lead}一个{rest}"]
    words = request.split()
    if not 2 <= len(words) <= 5 or names_file(request) or words[0].lower() not in VERBS:
        return []
    if words[1].lower() in _NO_OBJECT or not re.fullmatch(r"[A-Za-z][\w-]*", words[1]):
        return []  # "create a task", "check with editframe", "preview what would be removed"
    if words[1].lower() in _PHRASAL:
        return []  # "fill out PDF forms": no "fill all out"
    verb = words[0].lower()
    ends = next((i for i, w in enumerate(words) if i > 1 and w.lower() in _PARTICLES), None)
    noun = words[(ends or len(words)) - 1]  # "convert PDF to images" counts "PDF"
    if noun.lower() in _UNCOUNTED:
        return []  # "write code", "check status"
    # "compile the storyboard": what is acted on exists already (a thing made does not: no
    # "create the task"); not a phrasal verb's ("zip up a directory"), a program's ("install
    # pandoc", "run whispers") or an object counted already, nor an adjective alone
    # ("detect pattern-based")
    bare = not {w.lower() for w in words[1:]} & (DETERMINERS | _PHRASAL)
    named = verb in _RUNS or re.search(r"(?:-based|ing|ed)$", words[-1])
    the = [" ".join([words[0], "the", *words[1:]])] if bare and not named else []
    the = [] if verb in _MAKING else the
    if re.fullmatch(r"[A-Za-z]*[a-z]s|[A-Z]+s", noun) and not noun.endswith(_NOT_PLURAL):
        return [*([" ".join([words[0], "all", *words[1:]])] if verb in _ALL_OF else []), *the]
    first = words[1]
    if verb not in _MAKING or first.isupper() or first[0].lower() in "uh":
        return the  # "an URL", "a hour", "an user": unsure of the article, none
    article = "an" if first[0].lower() in "aeio" else "a"
    return [" ".join([words[0], article, *words[1:]])]


# Words a description says before a noun that are no domain ("管理任务会话", "支持任务 CRUD").
_NO_DOMAIN = frozenset(
    "管理 支持 用于 进行 可以 需要 使用 通过 包括 以及 提供 所有 相关 当前 指定".split()
)


def in_its_domain(request: str, text: str) -> list[str]:
    """A Chinese ``request`` with its object named as the skill's ``text`` names it: "禁用任务"
    of a skill whose description says "定时任务" → "禁用定时任务" (the dense models take "帮我禁用
    任务" for "启用任务"; the domain word keeps the request with its own task).  The two
    characters before the object in ``text`` are the domain's word when they are no verb
    ("删除定时任务": 定时; not "管理任务": 管理)."""
    lead = zh_verb_of(request, _ZH_ANY_LEADS)
    rest = request[len(lead) :]
    if not lead or not re.fullmatch(r"[\u4e00-\u9fff]{2,6}", rest):
        return []
    found: list[str] = []
    for match in re.finditer(rf"([\u4e00-\u9fff]{{2}})(?={re.escape(rest)})", text):
        word, before = match.group(1), text[: match.start()]
        if word in found or word in _NO_DOMAIN or set(word) & _ZH_JOINS:
            continue  # "用户的订单": 户的 is no word
        if zh_verb_of(word, _ZH_ANY_LEADS) or names_an_action(word):
            continue
        starts = not re.search(r"[\u4e00-\u9fff]$", before) or any(
            before.endswith(lead) for lead in _ZH_ANY_LEADS
        )  # a word starts there: after no Chinese, or after a verb ("删除定时任务")
        straddles = any(  # "发送群消息": 送群 is the end of 发送 and a start
            before.endswith(lead[:-1]) and word.startswith(lead[-1])
            for lead in _ZH_ANY_LEADS
            if len(lead) > 1
        )
        if starts and not straddles:
            found.append(word)
    return [f"{lead}{word}{rest}" for word in found[:2]]


# Characters that join words, never part of a domain word before a noun.
_ZH_JOINS = frozenset("的地得之在了和与及或把被给向从对将为于")


# Japanese requests end in a verb's dictionary form ("記録する") or a verbal noun
# ("ログを分析"); a user asks with the te-form ("記録して", "分析してください").
_JA_VERBAL = re.compile(
    f"(?:{'|'.join(map(re.escape, sorted(JA_ACTIONS, key=len, reverse=True)))})$"
)


def asked_politely(request: str, language: str) -> list[str]:
    """``request`` as a user also asks for it: "help me merge PDFs" (a request that opens
    with a verb, English); "記録して", "ログを分析してください" (Japanese, from "記録する",
    "ログを分析"); none otherwise (Chinese has ``counted``'s "帮我")."""
    if language == "ja" and has_cjk(request):
        stem = request[:-2] if request.endswith("する") else request
        verbal = _JA_VERBAL.search(request)
        if stem == request and (not verbal or request[: verbal.start()].endswith("の")):
            return []  # "ログの一覧", "ログの分析" (a noun of it: no "ログの分析して")
        return [f"{stem}して", f"{stem}してください"]
    words = request.split()
    if has_cjk(request) or not 2 <= len(words) <= 6 or words[0].lower() not in ACTIONS:
        return []  # "pushover quota"; "log files" (a noun first)
    if words[1].lower() in ("me", "my", "of", "notes"):
        return []  # "show me the logs", "list of tasks", "release notes"
    return [f"help me {words[0].lower()} {' '.join(words[1:])}"]


# What, after a Chinese verb, counts its object already or is no object: numbers and
# quantifiers, prepositions, "and".
_ZH_COUNTED = "一二两三四五几多每所全各到给在并和与及成向从把被"
# Every Chinese verb a request may open with, ``ZH_SYNONYMS``' own too ("清空任务会话消息").
_ZH_ANY_LEADS = sorted(
    {*ZH_LEADS, *(v for others in ZH_SYNONYMS.values() for v in others)}, key=len
)
# Particles of a phrasal verb ("zip up", "clean out"), and verbs whose object is a program.
_PHRASAL = frozenset("up out off over down back".split())
_RUNS = frozenset("run install execute launch start use uninstall".split())
# Words after a request's object: "convert PDF to images" counts "PDF", not "images".
_PARTICLES = frozenset("to from into in on with for by of as".split())
# Words after a verb that are no object to count.
_NO_OBJECT = (
    DETERMINERS
    | _PARTICLES
    | frozenset(
        "what which who how why and or that if it them me us him her something everything one "
        "ones".split()
    )
)
# Nouns not counted ("write code"), and singular endings that look plural ("status").
_UNCOUNTED = frozenset(
    "code sense data information feedback content text work help progress software music news "
    "status analysis canvas".split()
)
_NOT_PLURAL = ("ss", "us", "is", "as")
