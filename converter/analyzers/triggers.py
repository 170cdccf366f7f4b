"""Triggers: 5 to 10 requests per pipeline, in the skill's own words and languages.

A pipeline's triggers are gathered from what the skill says about that task, best first:

1. the "Use when ..." situations of the description that name it;
2. example requests the skill quotes ("merge a.pdf and b.pdf", 用户说"查一下我的日程")
   closest to it;
3. the title of the section that documents it, as a task ("Step 2: Edit XML" → "Edit XML"),
   and the first sentence of that section;
4. what the program's own help says the command does, and what a table or list of the
   skill's scripts says a program does ("| `pack.py` | Repack with validation |");
5. its name as words ("create_task" → "create task", the program's "fill_fillable_fields.py"
   → "fill fillable fields");
6. its documented command turned into a request: the task with the values SKILL.md shows
   ("fill fillable fields in.pdf values.json");
7. while a pipeline has fewer than five, those requests with their verb said another way
   ("merge PDFs" → "combine PDFs", "创建任务" → "新建任务") or first ("景点搜索" → "搜索景点":
   ``verbs.variants``), then with their object counted ("create task" → "create a task",
   "list tasks" → "list all tasks", "创建任务" → "创建一个任务": ``asking.counted``), then
   asked as users ask ("help me merge PDFs", "記録する" → "記録して": ``asking.asked_politely``).

Titles lose their numbering ("Step 2:", "步骤 1 —"), a short label ("下游：", "Option A:")
and a warning ("（必须执行）", "高危", "(MANDATORY ...)"); a "Note:" title is no task.

Titles are said as requests ("Accepting Tracked Changes" → "accept tracked changes":
``verbs.imperative``).

Never a title that names no task ("Commands", "命令", "Quick start", "Output"), a negative
condition ("Do NOT use when ...", "不要..."), a phrase with nothing to route on, a program's
path or a value left over from a command ("Edit XML 0"), or one another pipeline claims.
Every language the skill is written in is kept.
"""

from __future__ import annotations

import re

from skill2app.converter.analyzers.asking import (
    asked_politely,
    asks_of,
    conversion_request,
    counted,
    doer_request,
    in_its_domain,
)
from skill2app.converter.analyzers.text import (
    capital,
    first_sentence,
    humanize,
    is_rule,
    strip_markdown,
)
from skill2app.converter.analyzers.verbs import (
    VERBS,
    ZH_VERBS,
    imperative,
    names_an_action,
    on_document,
    variants,
    zh_verb_of,
)
from skill2app.converter.analyzers.when_clauses import VERB_STEMS
from skill2app.converter.analyzers.writing import CJK, has_cjk, has_kana

MIN_TRIGGERS = 5
MAX_TRIGGERS = 10
MAX_LENGTH = 80
# Titles that name a part of the document, not a task.
PART_TITLES = re.compile(
    r"^(?:commands?|usage|how to use|examples?|options?|arguments?|parameters?|flags?|"
    r"output|outputs|returns?|result|results|overview|notes?|quick ?start|reference|"
    r"references|workflow|steps?|instructions|procedure|process|requirements|prerequisites|"
    r"setup|set ?up|installation|install|dependencies|troubleshooting|faq|tips|summary|"
    r"introduction|intro|background|about|details|advanced|next steps|see also|"
    r"best practices|common pitfalls?|guidelines?|rules|when to use|quick reference|"
    r"(?:(?:bundled|helper|utility|available|included)\s+)?(?:scripts?|tools?|programs?|helpers?|"
    r"utilities)|"
    r"命令|用法|使用方法|示例|例子|参数|选项|输出|返回|返回字段说明|概述|说明|注意|注意事项|"
    r"快速开始|参考|工作流程?|流程|步骤|安装|配置|依赖|常见问题|最佳实践|规则|授权|权限)$",
    re.I,
)
# Words that make a title about the document ("Complete Example Workflow", "Verify Output").
PART_WORDS = re.compile(
    r"\b(?:examples?|workflow|overview|reference|tips|faq|troubleshooting|output|"
    r"options|parameters|arguments|pitfalls?|best practices)\b|示例|概述|参数|注意|说明|输出|"
    r"环境|权限|授权",
    re.I,
)
_NUMBERING = re.compile(
    r"^\s*(?:(?:step|phase|part|stage|mode)\s*(?:[a-z][.-]?)?\d+(?:\.\d+)*[a-z]?\s*[:.)\-–—]?|"
    r"(?:scenario|case|use case|example)\s*\d+(?:\.\d+)*(?![A-Za-z0-9])\s*[:.)\-–—]?|"
    r"(?:[A-Za-z][.-])?\d+(?:\.\d+)*[.):]?|"
    r"[a-z][.)]|第\s*[一二三四五六七八九十\d]+\s*[步章节部分]\s*[:：、.]?|"
    r"(?:步骤|阶段)\s*[一二三四五六七八九十\d]+\s*[:：、.)）\-–—]?|"
    # a word that also starts others ("方案一致性", "场景三维") numbers a title only before
    # a separator: "场景3: 重新生成", "例3：导出"
    r"(?:场景|情景|方案|方式|方法|示例|用例|例|ケース|シナリオ)\s*[一二三四五六七八九十\d]+\s*[:：、.)）\-–—])\s*",
    re.I,
)
_NEGATIVE = re.compile(
    r"\b(?:do not|don't|does not|doesn't|not for|never|unless|except|instead of|rather than|"
    r"avoid|no need|not needed|out of scope|should not|shouldn't|must not|cannot|can't|"
    r"when not to|not to use)\b|"
    r"不要|不能|禁止|不得|不适用|而不是|勿|无需|不需要|除非",
    re.I,
)
_QUOTED = re.compile(
    r"\"([^\"\n]{4,120})\"|“([^”\n]{2,120})”|「([^」\n]{2,120})」"
    r"|(?<![\w'])'([^'\n]{4,120})'(?![\w'])"
)
# What tells that a quote is something a user says (right before the quote).
_REQUEST_CUES = re.compile(
    r"(?:\b(?:user|users|someone|people|they|you)\s+(?:says?|asks?|types?|writes?|might say|"
    r"requests?)|\brequests?\s+(?:like|such as)|\bsay(?:ing)?|用户(?:说|问|输入|要求|请求)|"
    r"示例请求)\s*[:：,，]?\s*(?:\(|（)?$",
    re.I,
)
# "e.g." and "例如" also cite text that is no request ("例如“使用 Python 3 编写”").
_EXAMPLE_CUES = re.compile(r"(?:\be\.g\.,?|\bfor example,?|例如|比如)\s*[:：]?\s*$", re.I)
# A quote on its own reads as a request when it asks or speaks as the user.
_ASKING = re.compile(
    r"[?？]\s*$|^(?:i|i'm|i'd|we|my|can you|could you|please|help|how do i|let's|make|create|"
    r"find|show|give|turn|convert|fix|check|add|remove|send|get|list|write|draft)\b|"
    r"^(?:帮我|请|我想|我要|给我|把|查|看看|能不能|可以)",
    re.I,
)
_CODE_LIKE = re.compile(
    r"^[\w./-]+\.\w{1,5}$|[{}<>=$@]|\[[^\]]*\]|^--?\w|^\w+\(|^https?://|^[A-Z_]{3,}$|"
    r"\b\w+_\w+\b"
)


# A short label before the task in a title ("下游：", "方式一：", "Option A:", "Upstream:").
_LABEL = re.compile(rf"^((?:[{CJK}]{{1,4}}|[A-Za-z]+(?: [A-Z0-9])?)\s*[:：])\s*(\S.{{3,}})$")
_NOTE = re.compile(
    r"(?:notes?|tips?|warning|important|caution|nb|注意|提示|警告|重要|说明|"
    r"correct|wrong|right|good|bad|正确|错误|推荐|不推荐)$",  # "✅ 正确：...": how to call it
    re.I,
)
# A remark on how something turns out, not a request: "一次 API 调用即可完成", "默认自动创建会议群"
# ("设置默认日历" is a request).
_REMARK = re.compile(r"即可|就可以|就能|默认(?:自动|会|为|是|就)")
# A warning said after the task ("高危", "(MANDATORY IF USING FORMULAS)", "(必须执行)").
_WARNING = re.compile(
    r"\s*[(（](?:[^()（）]*\b(?:MANDATORY|REQUIRED|IMPORTANT|CRITICAL)\b|必须|必需|高危|危险|重要)"
    r"[^()（）]*[)）]|\s+(?:高危|危险操作|慎用)$|\s+[—–-]+\s*(?:MANDATORY|REQUIRED|IMPORTANT|CRITICAL)$"
)


def is_negative(text: str) -> bool:
    return bool(_NEGATIVE.search(text))


def title_text(title: str) -> str:
    """A section title without Markdown, numbering, parenthesised remarks or emoji; "" when
    it names a part of the document, a rule or a flag, not a task."""
    text = strip_markdown(title).lstrip("# ")
    text = BRACKETED.sub(" ", text).strip()
    text = _NUMBERING.sub("", text).strip(" :：-–—")
    text = re.sub(r"[#*`]+|[\u2600-\u27bf\U0001f300-\U0001faff]\ufe0f?", "", text).strip()
    text = _WARNING.sub("", text).strip()  # "覆盖写入 ⚠️ 高危": the task, not the warning
    labelled = _LABEL.match(text)  # "下游：提取文本后写入新文档", "Option A: Convert ..."
    if labelled and _NOTE.match(labelled.group(1).rstrip(" :：")):
        return ""  # "Note: ...", "注意：...": a remark, not a task
    text = labelled.group(2).strip() if labelled else text
    if not text or PART_TITLES.match(text) or PART_WORDS.search(text) or is_negative(text):
        return ""
    if "--" in text or is_rule(text):  # "单选字段必须传 --property": a rule about a flag
        return ""
    if labels_the_code(text):  # "Merge command (Step 5)": a label of the code below
        return ""
    return text


# A parenthesised remark ("(Step 5)", "（可选）").
BRACKETED = re.compile(r"\s*[(（][^()（）]*[)）]\s*")
# What a title or lead-in ends with when it may only name the code below it.
_CODE_WORDS = re.compile(
    r"\b(?:commands?|usage|syntax|examples?|snippets?|invocation)$|(?:用法|示例)$", re.I
)


def labels_the_code(text: str) -> bool:
    """Whether a title or lead-in only names the code below it ("Merge command", "Basic
    usage", "调用示例"), not a task ("check disk usage", "list available commands",
    "validate YAML syntax": an action with an object of its own)."""
    if not _CODE_WORDS.search(text):
        return False
    return has_cjk(text) or len(text.split()) <= 2 or not names_an_action(text)


def as_task(title: str) -> str:
    """A section title as a task a user asks for (``title_text``, then ``imperative``:
    "Accepting Tracked Changes" → "accept tracked changes") when it names an action and has
    enough to route on; "" for a topic ("Local STDIO Server", "provider 兼容性")."""
    text = title_text(title)
    if not text:
        return ""
    if not worth(text) or not names_an_action(text):  # "HTTP", "the state machine"
        return ""
    return imperative(text)


def worth(phrase: str) -> bool:
    """Enough to route on: two words of three letters, one word of four that is no acronym,
    or three CJK characters."""
    if has_cjk(phrase):
        latin = len(re.findall(r"[A-Za-z]{2,}", phrase))
        return len(re.findall(f"[{CJK}]", phrase)) + 2 * latin >= 3
    words = re.findall(r"[A-Za-z]{3,}", phrase)
    return len(words) >= 2 or bool(re.fullmatch(r"\s*[A-Za-z][a-z]{3,}\s*", phrase))


def clean(phrase: str) -> str:
    """A candidate as a trigger: Markdown and quotes off, one line, no final full stop;
    "" when it is too long, negative or has nothing to route on."""
    text = strip_markdown(phrase).strip(" \"'“”「」:：;；,，").rstrip(".。!！")
    text = _WARNING.sub("", text).strip()
    if len(text) > 4 * MAX_LENGTH:
        return ""  # before any pattern: a candidate is short
    text = _UNCLOSED.sub("", text).strip()  # "PDD / SDD files (pdd": the remark cut short
    if text.count('"') % 2 or len(re.findall(r"(?<!\w)'|'(?!\w)", text)) % 2:
        text = re.sub(r"\"|(?<!\w)'|'(?!\w)", "", text)  # a quote cut in half: "of 'Word doc"
    if not text or len(text) > MAX_LENGTH or is_negative(text) or not worth(text):
        return ""
    if text.lower() in VERBS:  # "format", "validate": a verb alone asks for nothing
        return ""
    if _ONLY_A_PROGRAM.match(text):  # "run the script": says which program, not which task
        return ""
    if _ONLY_A_PRONOUN.match(text):  # "create one": the object is said elsewhere
        return ""
    if text.count(" / ") >= 2 or _only_a_list(text):  # "太大 / 太长 / 精简", "png/jpg/gif/bmp 等"
        return ""  # keywords or formats listed, not a request
    # "scripts/x.py", "Edit XML 0", "manipulate Word documents (", "一次调用即可完成"
    if _JUNK.search(text) or _REMARK.search(text) or _FRAGMENT.search(text):
        return ""
    return text


# A bracket opened and never closed, with what follows it (no bracket: linear on any text);
# four or more words joined by slashes, none of them a file name (a list of formats).
_UNCLOSED = re.compile(r"[(（\[][^()（）\[\]]*$")
_SLASHED = re.compile(r"[^\s/.]+(?:/[^\s/.]+){3,}")


def _only_a_list(text: str) -> bool:
    """Whether ``text`` is a slash list and no request around it ("png/jpg/jpeg/bmp 等常见图片
    格式"; not "convert png/jpg/webp/gif images", nor the path "open src/app/main/index.ts")."""
    listed = _SLASHED.search(text)
    if listed is None or text[listed.end() : listed.end() + 1] in ("/", "."):
        return False  # a path: `src/app/main/index.ts`
    if text[listed.start() - 1 : listed.start()] in ("/", "."):
        return False
    rest = (text[: listed.start()] + text[listed.end() :]).strip()
    return not rest or not names_an_action(rest)


# A request whose only object is a program, whatever it does ("run the script", "help me
# execute this command").
_ONLY_A_PROGRAM = re.compile(
    r"^(?:help me |please )?(?:run|execute|start|launch|call|use|invoke)\s+(?:the|this|a|that)?\s*"
    r"(?:script|command|program|tool|helper|cli|utility)s?(?:\s+(?:directly|manually|yourself))?$"
    r"|^(?:直接|手动)?(?:运行|执行|调用)(?:该|这个|此)?(?:脚本|命令|程序|工具)$",
    re.I,
)


# A verb whose only object stands for a thing said before ("create one", "add some more");
# "explain that" asks about what the user shows, and stays.
_ONLY_A_PRONOUN = re.compile(
    r"^(?:help me |please )?[a-z]+(?:\s+(?:one|some|more|another|again))+$", re.I
)


# Part of a sentence, not a request: cut after a word that needs more ("package the skill
# and present the", "extracting content from") or opening mid-sentence ("whether in
# Python", "by run status", "also emit a JPEG tier").
_FRAGMENT = re.compile(
    r"^(?!(?i:what|which|who|whom|whose|where|when|why|how)\b)(?:.*\s(?:the|a|an|of|from|and|"
    r"or|by|into|as|than|its|their|your|whether)|(?i:whether|and|or|but|by|also|with|than|"
    r"because|so that|such as)\s.*)$"
)  # a question may end on a preposition: "where is this from"


# A path of the skill, a command-line value left over ("Edit XML 0"), an open bracket at the end.
_JUNK = re.compile(
    r"(?:^|\s)[\w.-]*/[\w./-]*\.(?:py|js|mjs|cjs|ts|sh|rb|go)\b"  # scripts/x.py
    r"|\s\d+\s+[A-Z][a-z]|\b(?:[A-Z]{2,}|[A-Z][a-z]+)\s\d+$"  # "Edit XML 0"
    r"|\b(?:comment|item|row|line|page|index|entry)\s0$"  # "reply to comment 0"
    r"|[(\[（]\s*$|^[^(]*\)|\+\s"  # "documents (", "a plan + code"
    r"|(?i:^(?:use|invoke|trigger|load)\s+this\s+skill\b|^this\s+skill\b)"  # the skill's
    r"|^(?:使用|调用)?(?:本|该|此)技能"  # own words of itself
)


def quoted_requests(lines: list[str]) -> list[tuple[int, str]]:
    """(index of the line, text) of requests a document quotes as what a user says: quoted
    text of two words or more on a line that cues it ("users say", "e.g.", "例如", a list
    item that is only a quote), never code or a file name."""
    found = []
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        only_quote = bool(
            re.fullmatch(r"\s*(?:[-*+>]|\d+[.)])?\s*[\"“「'].+[\"”」']\s*[,.;]?", line)
        )
        for match in _QUOTED.finditer(line):
            text = next(g for g in match.groups() if g).strip()
            before = line[: match.start()]
            cued = bool(_REQUEST_CUES.search(before))
            asking = bool(_ASKING.search(text)) and (only_quote or _EXAMPLE_CUES.search(before))
            asking = asking or (only_quote and text[:1].islower())  # '- "merge these PDFs"'
            if not (cued or asking):
                continue
            if _CODE_LIKE.search(text) or not worth(text) or is_negative(text):
                continue
            found.append((index, text))
    return found


def label_phrase(label: str) -> str:
    """``create_task`` → ``create task``; "" when it is one word."""
    phrase = humanize(label)
    return phrase if len(phrase.split()) > 1 or has_cjk(phrase) else ""


def usage_request(phrase: str, examples: list[str]) -> str:
    """The documented command as a request: the task with the values it is shown with."""
    values = [v for v in examples if v and len(v) <= 40 and "\n" not in v][:3]
    if not phrase or not values:
        return ""
    text = f"{phrase} {' '.join(values)}"
    return text if len(text) <= MAX_LENGTH else ""


def pick(candidates: list[str], taken: set[str], limit: int = MAX_TRIGGERS) -> list[str]:
    """The first ``limit`` usable candidates, without duplicates (case, spacing and final
    punctuation aside) or phrases in ``taken`` (another pipeline's).  One English word or
    hyphenated name is no request ("capture", "limitations", "wrong": 62 of 3,287 triggers
    of the corpus were); a word of a language written without spaces (Thai) may be one."""
    chosen: list[str] = []
    seen = set(taken)
    for candidate in candidates:
        text = clean(candidate)
        key = trigger_key(text)
        if re.fullmatch(r"[A-Za-z][\w-]*", text, re.A):  # a word or a name ("pdf-merge")
            continue
        if text and key not in seen and not _TEMPLATE.search(text):  # "fill in {{ x }}"
            seen.add(key)
            chosen.append(text)
        if len(chosen) >= limit:
            break
    return chosen


_TEMPLATE = re.compile(r"\{\{|\}\}|\{%|\$\{")  # a template's placeholder: no one asks so


def trigger_key(text: str) -> str:
    """When two triggers are the same one: case, spacing and punctuation aside."""
    return re.sub(r"[\s\W_]+", " ", text.casefold()).strip()


def more_requests(
    triggers: list[str], language: str, skill: str = "", description: str = "", domain: str = ""
) -> list[str]:
    """Candidates for a pipeline short of five, in the skill's language: its requests with
    the verb said another way, and said of the document a file-type skill works on ("extract
    tables from a PDF": ``verbs.on_document``).  Never its description again: the router
    scores the description already, and a copy as a trigger doubles its weight against the
    siblings ("summarise the numeric columns of a CSV file" drew "what columns are in
    orders.csv?" to csv-stats); only its action and object ("Render a single shot via the
    configured provider" → "render a single shot": ``asking.asks_of``), or, when that is
    the whole description, the description said another way ("Calculate and interpret
    financial ratios" → "compute and interpret financial ratios", never itself); a name that
    calls its program a doer as what it does ("ratio calculator" → "calculate ratio").
    (Measured on the 220 corpus skills: pipelines with five triggers 61.4 → 62.0 %, the
    self-test 85.0 → 85.6 %; the first sentence of the program's own section and its title
    as further triggers were tried and dropped: the self-test fell to 83.5 %.)  The words are
    English and Chinese: a skill in another language (Japanese, say), or a Chinese skill's
    pipeline with no Chinese request (a program named in English), has its English requests
    said another way; a Japanese request (one with kana) is asked politely whatever the
    skill's language ("記録する" → "記録して").  A Chinese request names its object as
    the skill's description (``domain``) does ("禁用任务" → "禁用定时任务":
    ``asking.in_its_domain``)."""
    chinese = language == "zh" and any(has_cjk(t) for t in triggers)  # else its English ones
    mine = [t for t in triggers if has_cjk(t) == chinese]
    asked = [] if chinese else asks_of(description)
    # a name that calls the program a doer, or its verb last: "ratio calculator" →
    # "calculate ratio", "kobo login add" → "add kobo login"; "epub to markdown" → "convert
    # epub to markdown"
    asked += [
        d
        for t in mine
        if not chinese and (not names_an_action(t) or _verb_last(t))
        for d in [*doer_request(t), *conversion_request(t)]
    ]
    mine += asked
    # the description said another way, never again as it is ("Calculate and interpret
    # financial ratios" → "compute and interpret financial ratios")
    unsaid = [] if chinese or asked else asks_of(description, 1, whole=True)
    of_document = [o for t in mine if not chinese and (o := on_document(t, skill))]
    other_words = variants([*mine, *unsaid])
    counts = [c for t in [*mine, *unsaid, *other_words] for c in counted(t)]
    japanese = [t for t in triggers if has_kana(t) or (language == "ja" and has_cjk(t))]
    polite = [p for t in japanese for p in asked_politely(t, "ja")]
    polite += [p for t in mine for p in asked_politely(t, language)]  # not the description
    domains = [d for t in [*mine, *other_words] if chinese for d in in_its_domain(t, domain)]
    return [*asked, *other_words, *domains, *of_document, *counts, *polite]


def _verb_last(name: str) -> bool:
    """Whether a name of a few plain words has its one verb last ("kobo login add"; not
    "set up incremental sync", "text chat, code")."""
    words = name.lower().split()
    plain = 2 <= len(words) <= 4 and all(re.fullmatch(r"[a-z0-9-]+", w) for w in words)
    others = VERBS | VERB_STEMS | _NOT_NAMING
    return plain and words[-1] in VERBS and not any(w in others for w in words[:-1])


# Words of a sentence, not of a name: "experiment has already run".
_NOT_NAMING = frozenset("has have had is are was were be been already not up down out".split())


def in_language(triggers: list[str], language: str) -> int:
    """How many of ``triggers`` are in the skill's language (by script: Chinese and Japanese
    are written in CJK characters, the others not)."""
    return sum(has_cjk(t) == (language in CJK_LANGUAGES) for t in triggers)


CJK_LANGUAGES = ("zh", "ja")


def first_of(text: str) -> str:
    """The first sentence of ``text`` when it is short enough to be a request."""
    sentence = first_sentence(text)
    return sentence if 0 < len(sentence) <= MAX_LENGTH else ""


INSTRUCTION = re.compile(
    r"^(?:(?:tell|ask|once|after|before|if|when|while|note|make sure|remember|always|never|"
    r"do not|don't|you|run|use|call|see|read|first|then|next|finally|important|warning|"
    r"execute|follow|perform|"
    r"critical|it|this|that)\b|请|注意|先|然后|首先|如果|若|必须|确认|确保|务必)",
    re.I,
)


AGENT_WORDS = re.compile(
    r"\(?\b(?:run|use|call|execute|with|using|via)\s+(?:this|the following|the|these)\s+"
    r"(?:script|command|program|tool|helper)s?\b.*$|\([^()]*\bdirectory[^()]*\)|"
    r"\bfrom this file's directory\b.*$",
    re.I,
)


# A purpose clause introducing a command: "To bundle the React app into a single HTML file:".
_PURPOSE = re.compile(r"^to\s+([a-z]+\s+[^:：]{3,}?)\s*[:：]", re.I)


def describing(prose: str) -> str:
    """The first sentence of a section when it says what the task does ("Finds overlapping
    boxes before a form is filled"), not what the agent must do ("Tell the user: ...",
    "Once all runs are done") or how to run it (a command, a path)."""
    sentence = AGENT_WORDS.sub("", first_sentence(prose)).strip(" ,:;")
    purpose = _PURPOSE.match(sentence)  # "To bundle the app into one HTML file: This ..."
    sentence = capital(purpose.group(1)) if purpose else sentence
    label = re.match(r"([^:：]{1,40})[:：]\s*(\S.*)", sentence)  # "Merge command (Step 5): ..."
    if label and labels_the_code(BRACKETED.sub(" ", label.group(1)).strip()):
        sentence = capital(label.group(2))
    if not sentence or len(sentence) > 120 or INSTRUCTION.match(sentence):
        return ""
    if re.search(r"[/`<>{}]|\b(?:python3?|node|bash)\s", sentence) or is_negative(sentence):
        return ""
    return sentence


# -- actions in Chinese --------------------------------------------------------------------

_NOUN_SUFFIX = re.compile(r"(?:操作|管理|相关|命令|功能|列表|接口)$")
_ACRONYM = re.compile(r"\b(?:CRUD|API|CLI|SDK)\b")


def verb_and_object(label: str) -> tuple[str, str]:
    """``create_task`` → ("create", "task"); ``list_tasks`` → ("list", "task")."""
    words = humanize(label).lower().split()
    if len(words) < 2:
        return (words[0] if words else "", "")
    noun = " ".join(words[1:])
    return words[0], re.sub(r"(?<=[a-z])s$", "", noun) if not noun.endswith("ss") else noun


def zh_nouns(title: str) -> list[str]:
    """The Chinese nouns a section title names: "评论与子任务" → 评论, 子任务; "数据表操作" →
    数据表; none when the title is not Chinese."""
    text = _ACRONYM.sub("", title_text(title))  # "日程 CRUD" names 日程
    parts = [_NOUN_SUFFIX.sub("", p.strip()) for p in re.split(r"与|和|、|及|/|以及", text)]
    nouns = [p for p in parts if p and re.fullmatch(f"[{CJK}]+", p)]
    return nouns if len(nouns) == len(parts) else []


def zh_action_phrases(label: str, nouns: dict[str, str]) -> list[str]:
    """The action in Chinese: its verb from ``ZH_VERBS``, its object as the skill names it
    (``nouns``: English object → the skill's Chinese noun): "创建任务", "新建任务"."""
    verb, obj = verb_and_object(label)
    if verb not in ZH_VERBS or not obj or obj not in nouns or zh_verb_of(nouns[obj]):
        return []  # "回复消息" is the action already, not the noun of one
    space = " " if nouns[obj].isascii() else ""  # "导出 PDF", as the skill writes it
    return [f"{zh}{space}{nouns[obj]}" for zh in ZH_VERBS[verb]]


def align_nouns(objects: list[str], nouns: list[str]) -> dict[str, str]:
    """English objects (in the order a section first shows them) → the section title's
    Chinese nouns: the one noun is the most shown object's; several are taken in order when
    there are as many objects."""
    if not objects or not nouns:
        return {}
    distinct = list(dict.fromkeys(objects))
    if len(nouns) == 1:
        primary = max(distinct, key=lambda o: (objects.count(o), -distinct.index(o)))
        return {primary: nouns[0]}
    return dict(zip(distinct, nouns, strict=True)) if len(distinct) == len(nouns) else {}
