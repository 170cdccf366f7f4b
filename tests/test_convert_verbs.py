"""app-convert on real skills: triggers said as users ask, in English and Chinese.

Defect classes reproduced here: section titles kept as a document names a task ("Accepting
Tracked Changes", "Validation", "Text Extraction"), a Chinese action put before a title that
is already one ("回复回复消息", "查看所有所有知识空间"), a verb swapped in a one-word request
("check" for "validate"), a description repeated as a trigger with only its library added
("merge PDFs with pypdf").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.asking import asked_of, asked_politely, asks_of, counted
from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.analyzers.paths import what_it_does
from skill2app.converter.analyzers.triggers import more_requests
from skill2app.converter.analyzers.verbs import (
    imperative,
    names_an_action,
    on_document,
    variants,
)
from skill2app.converter.inventory.model import build_inventory


@pytest.mark.parametrize(
    ("title", "asked"),
    [
        ("Accepting Tracked Changes", "accept tracked changes"),
        ("Splitting PDFs", "split PDFs"),
        ("Creating a new document", "create a new document"),
        ("Validation", "validate"),
        ("Validation of forms", "validate forms"),
        ("Text Extraction with pdfplumber", "extract text with pdfplumber"),
        ("Data analysis with pandas", "analyze data with pandas"),
        ("Form Filling", "fill form"),
        ("Try Structure Extraction First", "try structure extraction first"),
        ("Local STDIO Server", "local STDIO server"),
        ("获取表格信息", "获取表格信息"),
    ],
)
def test_a_title_is_said_with_its_verb(title: str, asked: str) -> None:
    assert imperative(title) == asked


def test_a_title_that_names_no_action_is_a_topic() -> None:
    assert names_an_action("Identifying clauseIds from catalog data")
    assert names_an_action("按关键词搜索用户") and names_an_action("Data analysis with pandas")
    assert names_an_action("统计工时") and names_an_action("Agenda")
    for topic in ("the state machine", "provider 兼容性", "Local STDIO Server", "the rubric"):
        assert not names_an_action(topic), topic


def test_variants_say_the_verb_another_way_in_the_requests_language() -> None:
    assert variants(["merge PDFs", "merge a.pdf b.pdf", "validate"]) == [
        "combine PDFs",
        "join PDFs",
    ]
    assert variants(["创建任务", "列出所有知识空间", "帮我看看"]) == [
        "新建任务",
        "新增任务",
        "查看所有知识空间",
        "显示所有知识空间",
    ]
    # a command's words said verb first (spark-video "storyboard compile", wiki "space
    # create"); never a noun that is also a verb ("pushover lookup") or a phrase's last word
    # ("a filtered extract" is no "extract a filtered")
    assert variants(["storyboard compile", "space create"]) == [
        "compile storyboard",
        "build storyboard",
        "create space",
        "make space",
        "add space",
    ]
    assert variants(["pushover lookup", "a filtered extract"]) == []
    # a manner or a tool before the verb is no object ("dry run" is no "run dry")
    assert variants(["dry run", "docker build", "npm install", "git commit"]) == []
    # a Chinese request that says how first is also asked from its verb on (feishu-search-user)
    assert variants(["按创建时间查询任务"])[0] == "查询任务"  # 创建 is part of 创建时间
    assert variants(["按 user_id 精确查询指定用户", "用户发送图片后"]) == [
        "查询指定用户",
        "查看指定用户",
        "查找指定用户",
        "搜索指定用户",
    ]
    # a request naming its object first is also asked verb first (countbot map)
    assert variants(["骑行路线规划", "景点搜索", "POI搜索"]) == [
        "规划骑行路线",
        "计划骑行路线",
        "搜索景点",
        "查找景点",
        "搜景点",
    ]
    assert variants(["get metric history", "禁用任务"]) == [
        "fetch metric history",
        "retrieve metric history",
        "停用任务",
        "关闭任务",
    ]


def test_more_requests_keep_to_the_skills_language_and_never_repeat_the_description() -> None:
    assert more_requests(["merge PDFs"], "en") == [
        "combine PDFs",
        "join PDFs",
        "merge all PDFs",
        "merge the PDFs",
        "combine all PDFs",
        "combine the PDFs",
        "join the PDFs",
        "help me merge PDFs",
    ]
    assert more_requests(["accept changes"], "en") == [
        "approve changes",
        "accept all changes",
        "accept the changes",
        "approve the changes",
        "help me accept changes",
    ]
    assert more_requests(["extract tables"], "en", "pdf") == [
        "pull tables",
        "get tables",
        "extract tables from a PDF",
        "extract all tables",
        "extract the tables",
        "pull the tables",
        "get the tables",
        "help me extract tables",
    ]
    assert more_requests(["发送消息", "send message"], "zh") == [
        "发消息",
        "发出消息",
        "帮我发送消息",
        "帮我发消息",
        "帮我发出消息",
    ]
    # the description's action and object, never the whole description (spark-video)
    render = "Render a single shot via the configured provider."
    assert more_requests(["render"], "en", description=render) == [
        "render a single shot",
        "draw a single shot",
        "produce a single shot",
        "help me render a single shot",
    ]
    # a description that is one request whole is said in other words, never as it is
    said = more_requests(["validate"], "en", description="Validate Office XML files")
    assert "check office XML files" in said
    # never the description again, nor asked politely ("help me validate office XML files")
    assert not [s for s in said if s.lower().endswith("validate office xml files")]
    # a name that calls its program a doer asks for what it does (financial-analyst)
    assert more_requests(["ratio calculator"], "en")[:2] == ["calculate ratio", "work out ratio"]
    # a subcommand's name with its verb last, and a name that says what becomes what, were
    # one trigger each (kobo-auth's "kobo login add", book-extract's "epub to markdown")
    assert more_requests(["kobo login add"], "en")[:2] == ["add kobo login", "insert kobo login"]
    assert more_requests(["epub to markdown"], "en")[0] == "convert epub to markdown"
    assert more_requests(["merge to PDF"], "en")[0] != "convert merge to PDF"
    # a sentence that ends with its verb is no such name
    assert more_requests(["set up incremental sync"], "en") == []
    assert more_requests(["experiment has already run"], "en") == []


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        ("create task", ["create a task"]),
        ("add event", ["add an event"]),
        ("list tasks", ["list all tasks", "list the tasks"]),
        ("convert PDF to images", ["convert the PDF to images"]),
        ("compile storyboard", ["compile the storyboard"]),  # it exists: not "create the"
        ("deploy with vercel", []),  # no object: no "deploy the with vercel"
        ("check with editframe", []),
        ("filter rows", ["filter the rows"]),  # no "filter all rows"
        ("zip up a directory", []),  # a phrasal verb's object, counted already
        ("run whispers", []),  # a program: no "run the whispers"
        ("detect pattern-based", []),  # an adjective alone
        ("scaffold cast", ["scaffold a cast"]),
        ("add followers", []),  # no "add a followers"
        ("create a task", []),  # counted already
        ("rotate pages input.pdf", []),  # names a file
        ("创建任务", ["创建一个任务", "帮我创建一个任务"]),
        ("删除任务", ["帮我删除任务"]),
        ("骑行路线规划", []),  # no verb first
        # a reviewer's: counted already, no object, an article a guess would get wrong
        ("创建一个任务", []),
        ("新建两个任务", []),
        ("添加到日历", []),
        ("创建并发送文档", []),
        ("生成中", []),
        ("create user", []),
        ("add URL", []),
        ("create hour log", []),
        ("build it", []),
        ("write code", []),
        ("check status", []),
        ("merge us", []),
    ],
)
def test_a_request_is_also_said_with_its_object_counted(request_: str, said: list[str]) -> None:
    assert counted(request_) == said


@pytest.mark.parametrize(
    ("description", "asked"),
    [
        ("Pack a directory into a DOCX, PPTX, or XLSX file", "pack a directory"),
        ("Verify spark-video dependencies. Exit 0 = ready", "verify spark-video dependencies"),
        ("Recalc Script\nRecalculates all formulas in it", "recalculate all formulas"),
        ("Extract a filtered, sorted CSV", ""),  # the object cut short
        ("Monthly quota monitor for the skill", "monitor quota"),  # a doer: what it does
        ("Enhanced extraction script", ""),  # a doer with only a quality: no object
        ("Validate Office XML files", ""),  # the whole description again
        ("创建任务 — 飞书任务管理", ""),
    ],
)  # fmt: skip
def test_a_description_gives_its_action_and_object_as_a_request(
    description: str, asked: str
) -> None:
    assert asked_of(description) == asked


def test_a_request_is_said_of_the_document_a_file_type_skill_works_on() -> None:
    assert on_document("extract tables", "pdf") == "extract tables from a PDF"
    assert on_document("add comments", "docx") == "add comments to a Word document"
    assert on_document("rotate pages", "pdf") == "rotate pages in a PDF"
    assert on_document("split PDFs", "pdf") == ""  # names it already
    assert on_document("rotate pages input.pdf", "pdf") == ""  # names a file
    assert on_document("merge reports", "pdf") == ""  # no object of this verb's
    assert on_document("extract tables", "team-calendar") == ""  # no file type


MESSAGES = {
    "SKILL.md": "---\nname: im\ndescription: 以用户身份发送或回复消息。用户要求发消息时使用。\n"
    "---\n# im\n\n## 发送消息\n\n```bash\n"
    'node ./im.js --action send --chat-id oc_1 --text "你好"\n```\n\n## 回复消息\n\n```bash\n'
    'node ./im.js --action reply --message-id om_1 --text "收到"\n```\n',
    "im.js": (
        "const a = process.argv.slice(2); const r = {};\n"
        "for (let i = 0; i < a.length; i++) { switch (a[i]) {\n"
        "  case '--action': r.action = a[++i]; break;\n"
        "  case '--chat-id': r.chat = a[++i]; break;\n"
        "  case '--message-id': r.message = a[++i]; break;\n"
        "  case '--text': r.text = a[++i]; break;\n} }\n"
        "switch (r.action) { case 'send': break; case 'reply': break; }\n"
    ),
}


def test_a_chinese_title_that_is_an_action_gets_no_second_verb(tmp_path: Path) -> None:
    plan = analyze(build_inventory(write_tree(tmp_path, MESSAGES)))
    triggers = {p.name: p.triggers for p in plan.pipelines}
    every = [t for ts in triggers.values() for t in ts]
    assert not any(t.startswith(("回复回复", "发送发送")) for t in every), every
    assert "回复消息" in triggers["im-reply"] and "答复消息" in triggers["im-reply"]
    assert "发消息" in triggers["im-send"]


def test_each_sentence_of_a_description_that_opens_with_a_verb_is_asked() -> None:
    assert asks_of("Profile a CLAUDE.md before any change. Lists the longest lines.") == [
        "profile a CLAUDE.md",
        "list the longest lines",
    ]
    assert asks_of("Enhanced extraction script. Extracts diagrams from markdown") == [
        "extract diagrams"
    ]
    assert asks_of("按 user_id 查询用户") == []
    assert asks_of("Fetch weather forecasts. Run setup.sh before first use.") == [
        "fetch weather forecasts"
    ]  # an order to the reader is no request


def test_a_chinese_skills_pipeline_without_chinese_requests_has_its_english_ones_expanded() -> None:
    """claude-md-progressive-disclosurer: a Chinese skill whose programs are named in English
    got one trigger a pipeline ("profile claude md"): nothing Chinese to say another way."""
    assert more_requests(["diff versions"], "zh") == [
        "compare versions",
        "diff the versions",
        "compare the versions",
        "help me diff versions",
    ]
    more = more_requests(
        ["profile claude md"], "zh", description="Profile a CLAUDE.md before a change."
    )
    assert more[:2] == ["profile a CLAUDE.md", "analyze claude md"]
    assert more_requests(["创建任务", "profile claude md"], "zh")[0] == "新建任务"


def test_a_description_naming_its_program_as_a_doer_is_asked_for_what_it_does() -> None:
    """cc-skills verbatim-audit-notify: "Retention pruner for pushover-verbatim-notify JSONL
    audit" and "Monthly quota monitor ..." opened with no verb and gave no request."""
    assert asks_of("Retention pruner for pushover JSONL audit") == ["prune retention"]
    assert asks_of("Report generator for managers") == ["generate report"]  # not whom for
    assert asks_of("Verbatim+UUID-linked Pushover notification sender") == [
        "send pushover notification"  # its qualities left out
    ]
    assert asks_of("A parser for Burp files") == ["parse burp files"]
    assert asks_of("Excel Formula Recalculation Script") == ["recalculate excel formula"]
    assert asks_of("The state machine") == []  # no doer
    assert asks_of("Guide for creating MCP servers") == []


def test_requests_are_also_asked_as_users_ask_in_english_and_japanese() -> None:
    assert asked_politely("merge PDFs", "en") == ["help me merge PDFs"]
    assert asked_politely("pushover quota", "en") == []  # no verb first: nothing to ask
    assert asked_politely("人間の回答を記録する", "ja") == [
        "人間の回答を記録して",
        "人間の回答を記録してください",
    ]
    assert asked_politely("ログを分析", "ja") == ["ログを分析して", "ログを分析してください"]
    assert asked_politely("ログの一覧です", "ja") == []  # no verb at the end
    assert asked_politely("ログの一覧", "ja") == []  # a noun, not a verbal one
    assert asked_politely("创建任务", "zh") == []  # Chinese has 帮我 (counted)
    # a Japanese skill's pipeline gets Japanese requests, not only English ones
    assert more_requests(["承認を記録する"], "ja")[:2] == [
        "承認を記録して",
        "承認を記録してください",
    ]


@pytest.mark.parametrize(
    "description",
    [
        "Error log", "User profile", "Purchase order", "Git commit",  # nouns, not actions
        "MCP server for GitHub", "React starter", "Project charter",  # -er, no doer
        "Token counter for cost estimation",  # what it works on, never why
    ],
)  # fmt: skip
def test_a_noun_that_only_looks_like_a_doer_or_an_action_is_no_request(description: str) -> None:
    """Second read of 22db248: "MCP server" became "serve MCP", "Error log" "log error"."""
    asked = asks_of(description)
    assert asked in ([], ["count token"]), asked


def test_a_doers_qualities_are_left_out_but_not_nouns_that_look_like_them() -> None:
    assert asks_of("Google Drive uploader") == ["upload google drive"]
    assert asks_of("RSS feed reader") == ["read RSS feed"]
    assert asks_of("Database table exporter") == ["export database table"]
    assert asks_of("Image processor") == ["process image"]  # -or doers
    assert asks_of("Slack logger") == ["log slack"]  # a doubled consonant
    assert asks_of("Retention pruner for JSONL audit. Prunes old entries", limit=1) == [
        "prune retention"
    ]


def test_polite_forms_only_of_requests_that_open_with_an_action() -> None:
    for request in ("release notes", "log files", "list of tasks", "show me the logs"):
        assert asked_politely(request, "en") == [], request
    assert asked_politely("ログの分析", "ja") == []  # no "ログの分析して"


def test_the_end_of_a_description_is_found_in_linear_time() -> None:
    """``_OBJECT_END`` tried every space of a long run of spaces (18 s for 10 000)."""
    assert asks_of("Retention" + " " * 20000 + "pruner") == ["prune retention"]


def test_the_verbs_of_analysis_and_upkeep_have_other_words_too() -> None:
    """Pipelines stopped at four triggers for want of a synonym (statistical-analyst's
    "compute confidence intervals", code-hardcode-audit's "detect copy-paste"); "write" has
    none: "write the entries as CSV" is no "draft" of them."""
    assert variants(["compute confidence intervals"]) == [
        "calculate confidence intervals",
        "work out confidence intervals",
    ]
    assert variants(["detect copy-paste"]) == ["find copy-paste", "spot copy-paste"]
    assert variants(["write the week's entries as CSV"]) == []


def test_a_phrasal_verbs_particle_stays_with_it() -> None:
    """agent-browser (round 34): "fill out a form" was said "complete out a form"."""
    said = variants(["fill out a form"])
    assert "complete a form" in said and not [s for s in said if " out " in s]


def test_a_phrasal_verb_is_said_another_way_only_as_a_whole() -> None:
    """A reviewer's read: "check out the branch" became "verify the branch", "log out user"
    "record user"; a noun ending in -ing is no gerund ("Spring Boot services, Kotlin")."""
    from skill2app.converter.analyzers.when_clauses import use_when_phrases

    said = variants(["check out the branch", "log out user", "clean up old files"])
    assert said == ["tidy old files"]
    assert "Spring Kotlin" not in use_when_phrases("Use for Spring Boot services, Kotlin.")


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        # epic-design (FRESH43): the usage lines under the title were in the description
        (
            "\n2.5D Asset Inspector\nUsage: python scripts/inspect-assets.py a.png b.jpg ...\n"
            "   or: python scripts/inspect-assets.py path/to/folder/\n\nChecks each image",
            "2.5D Asset Inspector",
        ),
        # ima-copilot (FRESH42): a sentence wrapped in the docstring, one line in the pipeline
        (
            "Fan-out search across all IMA knowledge bases with\nuser-defined priority.",
            "Fan-out search across all IMA knowledge bases with user-defined priority.",
        ),
        ("Usage: count.py FILE  Count the words\n\nMore.", "Count the words"),
        ("Usage: count.py FILE\n\nCount the words of a file.", "Count the words of a file."),
        # the reviewer's: usage lines straight above what it does
        (
            "Usage: x.py FILE\n   or: x.py DIR\nCount the words of a file.",
            "Count the words of a file.",
        ),
        ("Usage: x.py FILE\nUsage: x.py --all\nCount the words.", "Count the words."),
    ],
)
def test_what_a_program_does_is_one_line_without_its_usage(doc: str, said: str) -> None:
    assert what_it_does(doc) == said
