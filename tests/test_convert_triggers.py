"""app-convert on real skills: triggers and descriptions in the skill's own words.

Minimal skills built from dicts reproduce each defect class: section titles taken as
triggers as they are ("Step 2: Edit XML", "命令"), a "Do NOT trigger when ..." clause taken
as a trigger, Chinese skills getting English-only triggers, descriptions reading "Run
scripts/x.py", example requests the skill quotes ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.analyzers.languages import ja_action_phrases
from skill2app.converter.analyzers.text import slug
from skill2app.converter.analyzers.triggers import (
    MAX_TRIGGERS,
    align_nouns,
    as_task,
    clean,
    describing,
    in_language,
    more_requests,
    pick,
    quoted_requests,
    title_text,
)
from skill2app.converter.analyzers.verbs import imperative
from skill2app.converter.analyzers.when_clauses import quoted_only, use_when_phrases
from skill2app.converter.analyzers.writing import has_kana
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.inventory.programs.scripts import leading_comment
from skill2app.converter.plan.model import Plan


def plan_of(root: Path, files: dict[str, Any]) -> Plan:
    return analyze(build_inventory(write_tree(root, files)))


@pytest.mark.parametrize(
    ("title", "task"),
    [
        ("Step 2: Edit XML", "edit XML"),
        ("### Step P.4: Verify Checkpoint", "verify checkpoint"),  # implement-plan-preflight
        ("Phase 1.2 - Build the graph", "build the graph"),
        ("### 场景3: 重新生成所有摘要", "重新生成所有摘要"),  # tool-document-summarizer (round 25)
        ("Scenario 2: Merge PDFs", "merge PDFs"),
        # the reviewer's: a number that starts a word is no numbering
        ("方案一致性检查", "方案一致性检查"),
        ("用例二次校验", "用例二次校验"),
        ("Case 2FA setup", ""),
        # statistical-analyst: "### Mode 1 — Analyze ..." named a pipeline mode-1-analyze-...
        ("Mode 1 — Analyze Experiment Results (A/B Test)", "analyze experiment results"),
        ("Model 3 Settings", ""),
        ("### B.1: Convert PDF to Images", "convert PDF to images"),
        ("4. Validate Bounding Boxes", "validate bounding boxes"),
        ("Accepting Tracked Changes", "accept tracked changes"),
        ("Text Extraction with pdfplumber", "extract text with pdfplumber"),
        ("Validation", "validate"),
        ("Try Structure Extraction First", "try structure extraction first"),
        ("HTTP", ""),
        ("获取表格信息（info）", "获取表格信息"),
        ("第二步：导出文件", "导出文件"),
        ("命令", ""),
        ("Commands", ""),
        ("Quick start", ""),
        ("Complete Example Workflow", ""),
        ("单选 / 多选字段 必须传 --property", ""),
        ("Do not use for scanned forms", ""),
        ("接收最新邮件", "接收最新邮件"),
        ("检查新邮件（最近 N 天）", "检查新邮件"),
        # feishu-docx-download: "## 步骤 1 — 下载文件" gave the trigger "步骤 1 — 下载文件"
        ("步骤 1 — 下载文件", "下载文件"),
        ("步骤 2 — 提取文本（必须执行）", "提取文本"),
        ("下游：提取文本后写入新文档", "提取文本后写入新文档"),
        ("Option A: Convert the file", "convert the file"),
        ("Note: convert it first", ""),
        ("覆盖写入（write）⚠️ 高危", "覆盖写入"),
        # gating (round 44): "## Scripts" gave "scripts python3 calibrate.py"
        ("Scripts", ""),
        ("Helper Scripts", ""),
        ("Tools", ""),
    ],
)
def test_a_title_is_a_task_or_nothing(title: str, task: str) -> None:
    assert as_task(title) == task


def test_use_when_clauses_never_take_a_negative_condition() -> None:
    description = (
        "Use this skill whenever the user wants to merge PDFs. This includes splitting "
        "PDFs apart and rotating pages. Do NOT trigger when the deliverable is a Word "
        "document or an HTML report."
    )
    assert use_when_phrases(description) == [
        "merge PDFs",
        "splitting PDFs apart",
        "rotating pages",
    ]
    assert use_when_phrases("飞书任务管理。支持任务清单、评论、子任务。") == ["任务清单", "子任务"]


def test_a_list_that_goes_on_over_semicolons_gives_every_item_and_no_concession() -> None:
    """A description's "This includes: a; b; c." was read to its first semicolon; "mentions
    "book," "ebook,"" became the request "mention book, ebook"; "regardless of what they plan"
    a situation."""
    description = (
        "Use this skill any time a .epub file is involved. This includes: creating e-books; "
        "reading or extracting text from any .epub file (even if the text is used elsewhere); "
        "combining or splitting chapter files. Trigger whenever the user mentions "
        '"book," "ebook," "table of contents," or references a .epub filename, regardless '
        "of what they plan to do with it afterward. Never edit the original file; work on "
        "a copy."
    )
    assert use_when_phrases(description) == [
        "a .epub file is involved",
        "creating e-books",
        "reading text from any .epub file",
        "extracting text from any .epub file",
        "combining chapter files",
        "splitting chapter files",
        "table of contents",  # a quoted phrase said; "book" alone is a word, no request
        "reference a .epub filename",
    ]
    # the list ends where its sentence does, and at a clause that says what not to do
    assert use_when_phrases("This includes: merging PDFs; rotating pages. Then stop.") == [
        "merging PDFs",
        "rotating pages",
    ]
    assert use_when_phrases("This includes: merging PDFs; never delete the originals; x y.") == [
        "merging PDFs"
    ]


def test_verbs_as_alternatives_bracketed_translations_and_what_is_asked_of_a_given_link() -> None:
    """ "switch/upgrade/rollback the model (切换模型/换模型)" was one English trigger and the
    Chinese requests were dropped as examples; "gives a kdocs.cn or processon link and asks to
    scrape, save, 扒下来 without logging in or saving it" gave "give a kdocs.cn" and "saving it"."""
    description = (
        "Switch an OpenClaw model. Use whenever the user wants to switch/upgrade/rollback the "
        "OpenClaw model (切换模型/换模型/ 升级模型), or says the OpenClaw/龙虾 bot's model is "
        "misconfigured."
    )
    assert use_when_phrases(description) == [
        "switch the OpenClaw model",
        "upgrade the OpenClaw model",
        "rollback the OpenClaw model",
        "say the OpenClaw/龙虾 bot's model is misconfigured",  # two CJK, words enough beside
        "切换模型",
        "换模型",
        "升级模型",
    ]
    assert use_when_phrases(
        "Archive docs. Use when a user gives a kdocs.cn link and asks to scrape, save, "
        "扒下来, 归档, or 转 Markdown without logging in or saving the document to an account."
    ) == ["scrape a kdocs.cn link", "save a kdocs.cn link", "扒下来"]
    # nouns written as alternatives stay; a Chinese sentence's own brackets are no translations
    assert use_when_phrases("Use when pulling text/tables from PDFs.") == [
        "pulling text/tables from PDFs"
    ]
    asked = use_when_phrases("当用户查询天气（例如“北京天气”、“明天下雨吗”）时使用")
    assert "北京天气" not in asked


def test_a_use_when_list_of_quoted_requests_gives_each_and_an_item_of_them_none() -> None:
    """ai-text-humanizer (round 19): "Use when: 「AIっぽい文章を直して」「AI臭を消して」
    "humanize this text"" was one 140-character item, dropped; download-gemini-images'
    "..., renaming them in order" was a trigger that names nothing."""
    description = (
        "AIテキストを人間らしくリライトする。Use when: 「AIっぽい文章を直して」「AI臭を消して」 "
        '"make this sound more human", "humanize this text". 6つのパターンを検出。'
    )
    assert use_when_phrases(description) == [
        "AIっぽい文章を直して",
        "AI臭を消して",
        "make this sound more human",
        "humanize this text",
    ]
    gemini = (
        "Download images from a Gemini chat. Use when the task needs opening Gemini image "
        "lightboxes, downloading the larger image files, renaming them in order, and "
        "producing a ZIP archive."
    )
    assert "renaming them in order" not in use_when_phrases(gemini)
    assert "producing a ZIP archive" in use_when_phrases(gemini)
    assert use_when_phrases(
        "Use when the user asks to make it shorter, or translate the draft."
    ) == [
        "make it shorter",  # "it" is the user's text: a request of its own
        "translate the draft",
    ]
    assert quoted_only('the user says "merge" or "join" and wants a report') == []
    assert quoted_only('"merge", "join" or "combine"') == ["merge", "join", "combine"]
    # personal-write-humanizer (round 20): "用于“去 AI 味”“说人话”“润色中文”等请求"
    assert quoted_only("“去 AI 味”“说人话”“润色中文”等请求") == ["去 AI 味", "说人话", "润色中文"]
    assert quoted_only('"merge these", "split that", etc.') == ["merge these", "split that"]
    assert quoted_only("“去 AI 味”“说人话”等请求与其他") == []


def test_quoted_requests_are_what_users_say() -> None:
    lines = [
        'For example, the user asks "is the new version actually better?" and waits.',
        '- "merge these two PDFs into one"',
        '- "Skill adds 13s average execution time"',  # a quoted note, not a request
        "例如“使用 Python 3 编写”。",  # an example of text, not a request
        "用户说“帮我查一下明天的日程”时，先调用 agenda。",
        "I've opened the results in your browser. There are two tabs —'Outputs'.",
    ]
    assert [text for _i, text in quoted_requests(lines)] == [
        "is the new version actually better?",
        "merge these two PDFs into one",
        "帮我查一下明天的日程",
    ]


def test_pick_dedupes_cleans_and_stops_at_ten() -> None:
    candidates = ["Merge PDFs.", "merge pdfs", "a", "Do not merge scanned files", "x" * 90]
    candidates += [f"merge batch number {i}" for i in range(20)]
    chosen = pick(candidates, {"merge batch number 0"})
    assert chosen[0] == "Merge PDFs"
    assert len(chosen) == MAX_TRIGGERS
    assert "merge pdfs" not in chosen and "merge batch number 0" not in chosen
    # xlsx: "**Recalculate formulas (MANDATORY IF USING FORMULAS)**" is the task and a warning
    assert pick(
        ["Recalculate formulas (MANDATORY IF USING FORMULAS)", "recalculate formulas"], set()
    ) == ["Recalculate formulas"]
    # a skill in Russian: its triggers count as in its language (not as Chinese ones would)
    assert in_language(["создать задачу", "create task"], "ru") == 2
    assert in_language(["创建任务", "create task"], "zh") == 1
    # goal-prompt (round 12): "format", "create", "write" alone route on nothing; nor one
    # word that names a topic ("Agenda", "capture", "limitations"); Chinese words may
    assert pick(["format", "create", "Agenda", "format a goal prompt", "议程安排"], set()) == [
        "format a goal prompt",
        "议程安排",
    ]
    # uipath-planner: "Audit loop — MANDATORY", a title's warning after a dash
    assert pick(["Audit loop — MANDATORY"], set()) == ["Audit loop"]
    # xlsx: its description's first sentence speaks of the skill, not as a user asks
    assert pick(["Use this skill any time a sheet is the input", "本技能用于记账"], set()) == []


def test_nouns_of_a_chinese_title_align_with_the_actions_shown() -> None:
    assert align_nouns(["comment", "comment", "subtask"], ["评论", "子任务"]) == {
        "comment": "评论",
        "subtask": "子任务",
    }
    assert align_nouns(["task", "task", "task member"], ["任务"]) == {"task": "任务"}
    assert align_nouns(["a", "b", "c"], ["甲", "乙"]) == {}


CHINESE = {
    "SKILL.md": "---\nname: todo\ndescription: 飞书任务管理。支持任务清单、评论。用户要求创建或"
    "查看任务清单时使用。Do not use for calendars.\n---\n# todo\n\n## 命令\n\n"
    "所有命令都需要 `--open-id`。\n\n## 任务清单\n\n```bash\n"
    'node ./todo.js --action create_tasklist --summary "清单名"\n'
    "node ./todo.js --action list_tasklists\n```\n\n## 评论\n\n```bash\n"
    'node ./todo.js --action create_comment --task-id ID --content "内容"\n```\n',
    "todo.js": (
        "const a = process.argv.slice(2); const r = {};\n"
        "for (let i = 0; i < a.length; i++) { switch (a[i]) {\n"
        "  case '--action': r.action = a[++i]; break;\n"
        "  case '--summary': r.summary = a[++i]; break;\n"
        "  case '--task-id': r.task = a[++i]; break;\n"
        "  case '--content': r.content = a[++i]; break;\n} }\n"
        "switch (r.action) { case 'create_tasklist': break; case 'list_tasklists': break;\n"
        "  case 'create_comment': break; }\n"
    ),
}


def test_a_chinese_skill_gets_chinese_triggers(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, CHINESE)
    triggers = {p.name: p.triggers for p in plan.pipelines}
    assert triggers["todo-create-tasklist"][:2] == ["创建任务清单", "新建任务清单"]
    assert "列出任务清单" in triggers["todo-list-tasklists"]
    assert triggers["todo-create-comment"][:2] == ["创建评论", "新建评论"]
    every = [t for ts in triggers.values() for t in ts]
    assert "命令" not in every and "任务清单" not in every[:1]
    assert not any("calendar" in t for t in every)


def test_titles_and_negatives_never_become_triggers(tmp_path: Path) -> None:
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: office\ndescription: Edit Word files. Use when the user "
            "wants to add comments to a document. Do NOT trigger when the deliverable is "
            "a spreadsheet.\n---\n# Office\n\n## Step 2: Add comments\n\n"
            "Add a comment to the unpacked document with this script:\n\n```bash\n"
            "python scripts/comment.py unpacked/ 0 hello\n```\n\n## Commands\n\n"
            "```bash\npython scripts/pack.py unpacked/ out.docx\n```\n",
            "scripts/comment.py": "import sys\nprint(sys.argv)\n",
            "scripts/pack.py": '"""Pack a folder into a .docx file."""\nimport sys\n',
        },
    )
    comment, pack = plan.pipelines
    assert comment.triggers[0] == "add comments"  # "Step 2:" dropped
    assert "add comments to a document" in comment.triggers
    assert "Add a comment to the unpacked document" in comment.triggers
    every = comment.triggers + pack.triggers
    assert not any(t.startswith(("Step", "Commands")) or "spreadsheet" in t for t in every)
    assert pack.description == "Pack a folder into a .docx file."
    assert not any(p.description.startswith("Run ") for p in plan.pipelines)
    assert comment.description == "Add a comment to the unpacked document"


def test_a_lead_in_naming_the_code_is_no_trigger(tmp_path: Path) -> None:
    """Round 31's semgrep: "**Merge command (Step 5):**" above the merge command became the
    trigger "Merge command (Step 5)"."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: scans\ndescription: Scan code and merge the results.\n---\n"
            "# Scans\n\n**Merge command (Step 5):**\n\n```bash\npython scripts/merge.py "
            "raw/ out.sarif\n```\n\nMerge the SARIF files (all of them):\n\n```bash\n"
            "python scripts/merge.py raw/ all.sarif\n```\n",
            "scripts/merge.py": "import sys\nprint(sys.argv)\n",
        },
    )
    triggers = plan.pipelines[0].triggers
    assert triggers and not any("command" in t.lower() or "(" in t for t in triggers), triggers
    assert plan.pipelines[0].description == "Merge the SARIF files (all of them)"


def test_a_quoted_request_goes_to_its_pipeline(tmp_path: Path) -> None:
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: pdfs\ndescription: Work with PDF files.\n---\n# PDFs\n\n"
            '## Merge\n\nWhen the user says "combine report.pdf and annex.pdf into one", '
            "run:\n\n```bash\npython scripts/merge.py a.pdf b.pdf\n```\n\n## Split\n\n"
            "```bash\npython scripts/split.py a.pdf\n```\n\n"
            '- "split the handbook into single pages"\n',
            "scripts/merge.py": "import sys\nprint(sys.argv)\n",
            "scripts/split.py": "import sys\nprint(sys.argv)\n",
        },
    )
    merge, split = plan.pipelines
    assert "combine report.pdf and annex.pdf into one" in merge.triggers
    assert "split the handbook into single pages" in split.triggers


def test_the_comment_above_a_command_names_its_task(tmp_path: Path) -> None:
    """One code block of commented commands ("# 发送带附件" above `mail.py send ...`): each
    comment is the skill's own words for the command under it."""
    mail = (
        "import argparse\np = argparse.ArgumentParser()\nsub = p.add_subparsers(dest='c')\n"
        "s = sub.add_parser('send', help='发送邮件')\ns.add_argument('--to', required=True)\n"
        "s.add_argument('--attach', nargs='+')\n"
        "r = sub.add_parser('receive', help='接收邮件')\nr.add_argument('--limit', type=int)\n"
        "p.parse_args()\n"
    )
    block = (
        "```bash\n# 发送带附件\npython3 scripts/mail.py send --to a@b.cn --attach r.pdf\n\n"
        "# 接收最新邮件\npython3 scripts/mail.py receive --limit 5\n```\n"
    )
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: mail\ndescription: 收发邮件。\n---\n# 邮件\n\n" + block,
            "scripts/mail.py": mail,
        },
    )
    triggers = {p.name: p.triggers for p in plan.pipelines}
    assert "发送带附件" in triggers["mail-send"]
    assert "接收最新邮件" in triggers["mail-receive"]


def test_no_trigger_from_a_condition_comment_or_a_sentence_about_the_program(
    tmp_path: Path,
) -> None:
    """modelstudio spark-video and cc-skills verbatim-audit-notify (DEV): the comment above
    a command said when to run it ("# if ACCEPT — promote this version to winner", "# check
    lore.md exists; if not") and the prose before another said what the program does
    ("`pushover-prune` handles this"): all three became triggers.  A header that names its
    file first ("render_shot.py — render one shot") gave "Render_shot.py — render one
    shot" as the description."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": (
                "---\nname: demo\ndescription: Makes videos.\n---\n# Demo\n\n## Review\n\n"
                "```bash\n# if ACCEPT — promote this version to winner\n"
                "python scripts/render_shot.py --shot S01\n```\n\n## Lore\n\n```bash\n"
                "# check lore.md exists; if not\npython scripts/scaffold.py --kind lore\n```\n\n"
                "## Retention\n\nOld days are pruned: pushover-prune handles this, "
                "dry-run by default:\n\n```bash\nbash scripts/pushover-prune.sh --days 30\n```\n"
            ),
            "scripts/render_shot.py": (
                '"""render_shot.py — render one shot with the configured provider."""\n'
                "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument('--shot')\np.parse_args()\n"
            ),
            "scripts/scaffold.py": (
                "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument('--kind')\np.parse_args()\n"
            ),
            "scripts/pushover-prune.sh": "#!/bin/bash\n# Prune old audit days.\necho '{}'\n",
        },
    )
    triggers = [t for p in plan.pipelines for t in p.triggers]
    assert not [t for t in triggers if "if " in t or "handles this" in t], triggers
    render = next(p for p in plan.pipelines if p.steps[0].program == "scripts/render_shot.py")
    assert render.description.startswith("Render one shot"), render.description


def test_a_chinese_skill_asks_for_an_english_named_action_with_its_own_nouns(
    tmp_path: Path,
) -> None:
    """feishu-task (DEV): ``add_followers`` got only the trigger "add followers" and the
    description "Add followers — Feishu task management via user OAuth." (the program's
    English header) in a skill written in Chinese, though SKILL.md says "`--followers` 为关注人
    （follower）".  Its own pairings make it "添加关注人", and the description says it in
    the skill's words."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": (
                "---\nname: task\ndescription: 飞书任务管理。支持任务和关注人。\n---\n# 任务\n\n"
                "## 任务\n\n```bash\nnode ./task.js --action create_task --summary 标题\n"
                "node ./task.js --action add_followers --task-id ID --followers ou_y\n```\n\n"
                "`--followers` 为关注人（follower），`--members` 为执行人（assignee）。\n"
            ),
            "task.js": (
                "/**\n * task: Feishu task management via user OAuth.\n */\n"
                "const argv = process.argv.slice(2); const r = {};\n"
                "for (let i = 0; i < argv.length; i++) {\n  switch (argv[i]) {\n"
                "    case '--action': r.action = argv[++i]; break;\n"
                "    case '--summary': r.summary = argv[++i]; break;\n"
                "    case '--task-id': r.taskId = argv[++i]; break;\n"
                "    case '--followers': r.followers = argv[++i]; break;\n"
                "  }\n}\nconsole.log(JSON.stringify(r));\n"
            ),
        },
    )
    followers = next(p for p in plan.pipelines if p.name.endswith("add-followers"))
    assert "添加关注人" in followers.triggers
    assert followers.description == "添加关注人"  # the action: its skill is every sibling's


def test_an_english_skill_also_written_in_japanese_gets_its_actions_asked_in_japanese(
    tmp_path: Path,
) -> None:
    """shift-planner, japanese-enterprise-doc-formatter (tuned): skills whose prose is also
    Japanese had pipelines with English requests only.  An action whose object the skill names
    in Japanese ("Agenda / アジェンダ") is asked for with its verbal noun; one whose object has
    no Japanese word here (budget) is not, nor is any when the skill pairs only two words."""
    skill_md = (
        "---\nname: meeting\ndescription: Prepare meeting documents. Use when the user "
        "prepares a meeting.\n---\n# Meeting\n\n会議の準備を手伝います。会議のアジェンダと"
        "議事録のテンプレートを作ります。日本語と英語の両方で使えます。\n\n"
        "**Agenda / アジェンダ**: the topics of the meeting.\n\n"
        "## Generate the agenda\n\n"
        "```bash\npython3 scripts/prep.py generate-agenda --title T\n```\n"
        "## Create the budget sheet\n\n"
        "```bash\npython3 scripts/prep.py create-budget --title T\n```\n"
    )
    prep = (
        "import argparse\np = argparse.ArgumentParser()\ns = p.add_subparsers(dest='cmd')\n"
        "for name in ('generate-agenda', 'create-budget'):\n"
        "    s.add_parser(name).add_argument('--title')\nprint(p.parse_args().cmd)\n"
    )
    plan = plan_of(tmp_path, {"SKILL.md": skill_md, "scripts/prep.py": prep})
    agenda = next(p for p in plan.pipelines if p.name.endswith("agenda"))
    assert "アジェンダを生成" in agenda.triggers, agenda.triggers
    budget = next(p for p in plan.pipelines if p.name.endswith("budget"))
    assert not [t for t in budget.triggers if has_kana(t)], budget.triggers  # 予算 never said

    english = skill_md.replace(
        "会議の準備を手伝います。会議のアジェンダと議事録のテンプレートを作ります。"
        "日本語と英語の両方で使えます。",
        "",
    )
    plan = plan_of(tmp_path / "en", {"SKILL.md": english, "scripts/prep.py": prep})
    assert not [t for p in plan.pipelines for t in p.triggers if has_kana(t)]  # two words only


CALENDAR_JS = (
    "const argv = process.argv.slice(2); const r = {};\n"
    "for (let i = 0; i < argv.length; i++) {\n  switch (argv[i]) {\n"
    "    case '--action': r.action = argv[++i]; break;\n"
    "    case '--summary': r.summary = argv[++i]; break;\n"
    "    case '--event-id': r.eventId = argv[++i]; break;\n"
    "    case '--attendees': r.attendees = argv[++i]; break;\n"
    "  }\n}\nconsole.log(JSON.stringify(r));\n"
)


def test_an_english_named_action_takes_the_chinese_word_the_skill_uses(tmp_path: Path) -> None:
    """feishu-calendar (TEST): ``create_event`` in "## 日程 CRUD" was asked for only as
    "create event", described "Create event — 飞书日历与日程管理": the title's "CRUD" hid its
    noun, and the skill pairs 日程 with no English word.  The title names 日程 once "CRUD" is
    set aside; an object no title names takes the usual Chinese word the skill itself uses
    (参会人, not 与会者, which it never says)."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": (
                "---\nname: cal\ndescription: 飞书日历与日程管理。\n---\n# cal\n\n"
                "## 日程 CRUD\n\n```bash\nnode ./cal.js --action create_event --summary 早会\n"
                "node ./cal.js --action delete_event --event-id ID\n```\n\n"
                "创建日程前先确认参会人。\n\n```bash\n"
                "node ./cal.js --action add_attendees --event-id ID --attendees ou_y\n```\n\n"
                "参会人用 open_id 表示。\n"
            ),
            "cal.js": CALENDAR_JS,
        },
    )
    by_name = {p.name.removeprefix("cal-"): p for p in plan.pipelines}
    assert by_name["create-event"].description == "创建日程"
    assert {"创建日程", "新建日程"} <= set(by_name["create-event"].triggers)
    assert "删除日程" in by_name["delete-event"].triggers
    assert "添加参会人" in by_name["add-attendees"].triggers
    assert not [t for p in plan.pipelines for t in p.triggers if "与会者" in t or "事件" in t]


def test_an_english_named_program_of_a_chinese_skill_keeps_the_latin_noun(
    tmp_path: Path,
) -> None:
    """shawnshi/tool-web-slide: `scripts/export-pdf.mjs` on a Chinese line ("用户要求 PDF 时")
    had only English triggers ("export pdf", ...); the skill keeps "PDF" in Latin letters in
    its Chinese, so it is asked for as "导出 PDF" too, and its English name stays beside it."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": (
                "---\nname: slides\ndescription: 将内容构建为单页 HTML 幻灯片。\n---\n# 幻灯片\n\n"
                "## 交付\n\n用户要求 PDF 时导出：\n\n"
                "```bash\nnode scripts/export-pdf.mjs index.html out.pdf\n```\n"
            ),
            "scripts/export-pdf.mjs": (
                "const [input, output] = process.argv.slice(2);\n"
                "console.log(JSON.stringify({input, output}));\n"
            ),
        },
    )
    triggers = next(p.triggers for p in plan.pipelines if "pdf" in p.name)
    assert {"导出 PDF", "帮我导出 PDF"} <= set(triggers)
    assert "export pdf" in triggers


def test_words_kept_in_latin_amid_chinese_or_japanese() -> None:
    from skill2app.converter.analyzers.glossary import kept_in_latin

    text = "用户要求 PDF 时导出。生成HTML幻灯片，`scripts/x.py` 和 vault（只建）。PDFを出力する"
    assert kept_in_latin(text) == {"pdf": "PDF", "html": "HTML", "vault": "vault"}
    assert kept_in_latin("Export the PDF, then the HTML.") == {}


@pytest.mark.parametrize(
    ("title", "task"),
    [  # feishu-create-doc, feishu-meeting-minutes (judge, round 6): SKILL.md's words, no tasks
        ("## 与其他技能的编排建议", ""),  # 建 of 建议 is no verb: a one-character verb leads
        ("# ✅ 正确：创建时一次性传入内容", ""),  # how to call it right, not a task
        ("## 查天气", "查天气"),
        ("## 帮我画一只猫", "帮我画一只猫"),
    ],
)
def test_chinese_titles_that_only_look_like_tasks(title: str, task: str) -> None:
    assert as_task(title) == task


def test_a_remark_on_how_it_turns_out_is_no_trigger() -> None:
    """feishu-create-doc (judge, round 6): "一次 API 调用即可完成" (it takes one API call)."""
    assert clean("一次 API 调用即可完成") == ""
    assert clean("重复会议 — 默认自动创建会议群") == ""
    assert clean("创建会议群") == "创建会议群"
    assert clean("设置默认日历") == "设置默认日历"


def test_a_purpose_clause_before_a_command_is_what_it_does() -> None:
    """web-artifacts-builder (judge, round 6): the description was "To bundle the React app
    into a single HTML artifact: This creates bundle.html"."""
    prose = "To bundle the React app into a single HTML artifact:\n\nThis creates `bundle.html`."
    assert describing(prose) == "Bundle the React app into a single HTML artifact"


def test_the_comment_on_set_e_is_no_header() -> None:
    """web-artifacts-builder (judge, round 6): init-artifact.sh was described "Exit on error",
    its comment on ``set -e``; a header right above ``set -e`` stays one."""
    assert leading_comment("#!/bin/bash\n\n# Exit on error\nset -e\nnode -v\n", "#") == ""
    header = "#!/bin/bash\n# Create a worktree for a branch.\nset -euo pipefail\n"
    assert leading_comment(header, "#") == "Create a worktree for a branch."
    both = "#!/bin/bash\n# Create a worktree.\n#\n# Fail fast\nset -e\n"
    assert leading_comment(both, "#") == "Create a worktree."


def test_a_header_for_a_tool_or_written_as_fields_says_what_the_program_does(
    tmp_path: Path,
) -> None:
    """wix-app (round 33): scan-a11y-code.cjs was described "Oxlint-disable no-console
    preserve-caught-error", its lint directive; agent-browser (round 34): capture-workflow.sh
    was "Template: Content Capture Workflow Purpose: Extract content ... Usage: ./capture-
    workflow.sh <url> [output-dir]", a header of fields run together."""
    lint = "#!/usr/bin/env node\n'use strict';\n\n// oxlint-disable no-console\n\nconst a = 1;\n"
    assert leading_comment(lint, "//") == ""
    fields = (
        "#!/bin/bash\n# Template: Content Capture Workflow\n"
        "# Purpose: Extract content from web pages (text, screenshots, PDF)\n"
        "# Usage: ./capture-workflow.sh <url> [output-dir]\n#\n# Outputs:\n#   - page.pdf\n"
        'set -e\nagent-browser open "$1"\n'
    )
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: web\ndescription: Browse.\n---\n# Web\n\n"
            "```bash\nbash templates/capture-workflow.sh https://example.com out\n```\n",
            "templates/capture-workflow.sh": fields,
        },
    )
    described = plan.pipelines[0].description
    assert described == "Extract content from web pages (text, screenshots, PDF)"
    # the title line and the usage line of an unlabelled header are apart, too
    from skill2app.converter.inventory.programs.interface import first_paragraph

    assert first_paragraph("Merge PDFs.\nUsage: merge.sh a b\nMore") == "Merge PDFs."
    assert first_paragraph("Usage: merge.sh a b -- merge PDFs\nInto one") == (
        "Usage: merge.sh a b -- merge PDFs Into one"
    )


def test_a_use_when_noun_after_a_gerund_item_is_its_second_object() -> None:
    """financial-analyst (round 31): "constructing financial projections and forecasts" gave
    the trigger "forecasts", a word alone."""
    from skill2app.converter.analyzers.when_clauses import use_when_phrases

    said = (
        "Use when assessing budget variances, or constructing financial projections and forecasts."
    )
    assert use_when_phrases(said) == [
        "assessing budget variances",
        "constructing financial projections",
        "constructing forecasts",
    ]
    # a lone noun before a gerund item stays a word of the list
    assert use_when_phrases("Use for statistics, charts or exporting data.") == [
        "statistics",
        "charts",
        "exporting data",
    ]


def test_a_table_of_scripts_says_what_each_does(tmp_path: Path) -> None:
    """pptx's editing.md: "| `pack.py` | Repack with validation |" is the skill's own words
    for the task of pack.py; a list item ("- `clean.py` - Remove orphaned files") too."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: decks\ndescription: Edit slide decks.\n---\n# Decks\n\n"
            "| Script | Purpose |\n|---|---|\n| `pack.py` | Repack with validation |\n"
            "| `scripts/thumbnail.py` | Create visual grid of slides (needs Pillow) |\n"
            "| `other.py` | Quota monitor: hits the API |\n\n"
            "- `clean.py` - Remove orphaned files, then check\n\n"
            "```bash\npython scripts/pack.py unpacked/ out.pptx\n"
            "python scripts/thumbnail.py deck.pptx\npython scripts/clean.py unpacked/\n```\n",
            "scripts/pack.py": "import sys\nprint(sys.argv)\n",
            "scripts/thumbnail.py": "import sys\nprint(sys.argv)\n",
            "scripts/clean.py": "import sys\nprint(sys.argv)\n",
        },
    )
    triggers = {p.name: p.triggers for p in plan.pipelines}
    assert "repack with validation" in triggers["pack"]
    assert "create visual grid of slides" in triggers["thumbnail"]  # cut at its remark
    assert "remove orphaned files" in triggers["clean"]  # cut at its first clause
    assert not any("quota" in t.lower() for ts in triggers.values() for t in ts)


def test_a_lone_english_request_of_a_chinese_skill_gets_a_second(tmp_path: Path) -> None:
    """Alone in its language, "create tasklist" has nothing of its own to reach: the routing
    self-test sent it to a sibling that shares its object."""
    plan = plan_of(tmp_path, CHINESE)
    triggers = {p.name: p.triggers for p in plan.pipelines}
    assert "create a tasklist" in triggers["todo-create-tasklist"]
    assert "list all tasklists" in triggers["todo-list-tasklists"]
    assert all(len(ts) <= MAX_TRIGGERS for ts in triggers.values())


def test_a_phrase_cut_out_of_a_sentence_is_no_trigger() -> None:
    """anthropics skill-creator / docx, mcp-builder, cc-skills mlflow: list items and
    sentence halves became triggers ("package the skill and present the", "extracting
    content from", "whether in Python", "by run status", "reply to comment 0")."""
    assert clean("package the skill and present the") == ""
    assert clean("extracting content from") == ""
    assert clean("whether in Python") == ""
    assert clean("by run status") == ""
    assert clean("also emit a full-resolution JPEG tier") == ""
    assert clean("reply to comment 0") == ""
    assert clean("log in to the dashboard") == "log in to the dashboard"
    assert clean("turn on notifications") == "turn on notifications"
    assert clean("show top 10 stories") == "show top 10 stories"
    # questions and a last word that is a value are requests (second read of 22db248)
    for kept in ("which tests failed", "what is this for", "where is this from", "explain that"):
        assert clean(kept) == kept
    assert clean("sum column A") == "sum column A"


def test_a_list_of_formats_or_a_cut_remark_is_no_trigger() -> None:
    """feishu-image-ocr, uipath-planner (the inventory over every set): a slash list of
    formats, and a remark cut off at its open bracket, became triggers."""
    assert clean("png/jpg/jpeg/bmp/gif/webp/tiff 等常见图片格式") == ""
    assert clean("PDD / SDD files (pdd") == "PDD / SDD files"
    assert clean("measure latency/bandwidth/jitter") == "measure latency/bandwidth/jitter"
    assert clean("convert docs/report.md to PDF") == "convert docs/report.md to PDF"
    assert (
        clean("merge a.pdf and b.pdf (keep bookmarks)") == "merge a.pdf and b.pdf (keep bookmarks)"
    )
    # a list inside a request, and a path, stay (review of this change)
    assert clean("convert png/jpg/webp/gif images") == "convert png/jpg/webp/gif images"
    assert clean("open docs/guide/intro/index.md") == "open docs/guide/intro/index.md"
    assert clean("open /usr/local/share/app") == "open /usr/local/share/app"
    assert clean("(" * 30_000 + ")") == ""  # bounded: no pattern sees a long candidate


@pytest.mark.parametrize(
    ("title", "task"),
    [
        ("Merge command (Step 5)", ""),
        ("Basic usage", ""),
        ("调用示例", ""),
        ("check disk usage", "check disk usage"),
        ("Validate YAML syntax", "validate YAML syntax"),
        ("List available commands", "list available commands"),
    ],
)
def test_a_title_naming_the_code_is_no_task_but_a_task_about_it_is(title: str, task: str) -> None:
    assert as_task(title) == task
    assert clean("scale the deployment to 0") == "scale the deployment to 0"


@pytest.mark.parametrize(
    ("request_", "text", "asked"),
    [
        ("禁用任务", "定时任务管理。创建、查看、修改、删除定时任务", ["禁用定时任务"]),
        ("创建任务", "飞书任务管理。支持任务 CRUD、任务清单", ["创建飞书任务"]),
        ("查询订单", "帮你查询用户的订单", []),  # 户的 is no word
        ("删除文件", "本地的文件", []),
        ("导出报表", "生成日报表", []),  # 成日: cut across words
        ("发送消息", "在群消息中", []),
        ("发送消息", "发送群消息", []),  # 送群 straddles 发送
        ("重置任务会话", "管理任务会话数据", []),  # 管理 is a verb, no domain
    ],
)
def test_a_chinese_request_in_the_skills_own_domain_word(
    request_: str, text: str, asked: list[str]
) -> None:
    """cron-manager: "帮我禁用任务" went to enable-task; "禁用定时任务" stays with its task."""
    from skill2app.converter.analyzers.asking import in_its_domain

    assert in_its_domain(request_, text) == asked


@pytest.mark.parametrize(
    ("title", "action"),
    [
        ("AI臭診断", True),  # ai-text-humanizer's "Workflow 1: AI臭診断"
        ("Before/After比較", True),
        ("ログを分析する", True),
        ("表示方法", False),  # a Chinese noun that opens with a Japanese verbal noun
        ("保存位置", False),
        ("判定标准", False),
    ],
)
def test_a_japanese_verbal_noun_names_an_action_at_the_end(title: str, action: bool) -> None:
    from skill2app.converter.analyzers.verbs import names_an_action

    assert names_an_action(title) is action


def test_a_name_starts_with_a_letter() -> None:
    """ffmpeg-expert (judge, round 21): "指定位置から1フレーム抽出" named a pipeline `1`, which
    app-run check rejects (`name: 1` is no string)."""
    assert slug("指定位置から1フレーム抽出") == ""
    assert slug("2024 report builder") == "report-builder"
    assert slug("Step 2: Edit XML") == "step-2-edit-xml"


def test_a_request_naming_only_a_program_is_no_trigger() -> None:
    for junk in ("run the script", "help me execute the script", "use this tool", "call the CLI"):
        assert clean(junk) == "", junk
    assert clean("run the lint script") == "run the lint script"  # it says which task
    assert clean("start the server") == "start the server"


def test_a_japanese_request_is_asked_politely_in_an_english_skill_too() -> None:
    """ba0918/ledger is written in English, its subcommands described in Japanese: each had
    one trigger, as no variant was made for a Japanese phrase of a skill not in Japanese."""
    more = more_requests(["人間の OK 回答を AGREED として記録する"], "en")
    assert more == [
        "人間の OK 回答を AGREED として記録して",
        "人間の OK 回答を AGREED として記録してください",
    ]
    assert more_requests(["创建任务"], "en") == []  # Chinese: no kana, no Japanese forms


def test_japanese_situations_of_a_description() -> None:
    """flutter-xcodegen-ios (round 24): "「xcodegen に移行」「Flavor を増やす」では必ず使う" named
    its requests, and the heuristic had none."""
    description = (
        "Flutter の ios/ を XcodeGen 構成へ移行する。「xcodegen に移行」"
        "「iOS Flavor を xcodegen で」 「Flavor を増やす」では必ず使う。Pods は扱わない。"
    )
    assert use_when_phrases(description) == [
        "xcodegen に移行",
        "iOS Flavor を xcodegen で",
        "Flavor を増やす",
    ]
    assert use_when_phrases("ログを分析したいときに使う。") == ["ログを分析したい"]


def test_a_skill_of_steps_and_no_runnable_program_gets_an_llm_pipeline(tmp_path: Path) -> None:
    """flutter-xcodegen-ios (round 24): its only program is run by another tool and its
    Japanese SKILL.md has numbered steps but no rule the heuristic read: no pipeline at all."""
    md = (
        "---\nname: migrate\ndescription: ios/ を XcodeGen 構成へ移行する。"
        "「xcodegen に移行」「Flavor を増やす」では必ず使う。\n---\n# 移行\n\n## 作業手順\n\n"
        "1. 必須入力が揃っているか確認する\n2. テンプレを ios/ へコピーする\n"
        "3. プレースホルダを実値に置換する\n"
    )
    root = write_tree(tmp_path / "migrate", {"SKILL.md": md, "assets/post.sh": "#!/bin/sh\n"})
    (pipeline,) = analyze(build_inventory(root)).pipelines
    assert pipeline.source == "SKILL.md:7"  # the steps' section
    assert "xcodegen に移行" in pipeline.triggers
    step = pipeline.steps[0]
    assert "2. テンプレを ios/ へコピーする" in step.prompt


def test_keywords_and_features_are_no_requests() -> None:
    """The reviewer's: quoted one-word keywords after "Triggers:" are no requests (a phrase
    is), and a "Supports" list keeps its tasks ("converting file types", "exporting to other
    formats") while a feature ("run modes") goes."""
    from skill2app.converter.analyzers.situations import listed_in_description
    from skill2app.converter.analyzers.when_clauses import use_when_phrases

    listed = 'Fill forms. Triggers: "pdf", "acroform", "fill a PDF form", "填写表单".'
    assert listed_in_description(listed) == ["fill a PDF form", "填写表单"]
    supports = "Supports converting file types, exporting to other formats and run modes."
    assert use_when_phrases(supports) == ["converting file types", "exporting to other formats"]


def test_a_chinese_list_of_requests_loses_who_asks_and_its_etc() -> None:
    """hit-customer-analyst (round 26's frozen inventory): "用于用户提出客户尽调、…、现网厂商核验
    等请求" gave the triggers "用户提出客户尽调" and "现网厂商核验等请求"."""
    from skill2app.converter.analyzers.when_clauses import use_when_phrases

    said = use_when_phrases(
        "研究医院。用于用户提出客户尽调、拜访准备、现网厂商核验等请求；不用于私人信息。"
    )
    assert said == ["客户尽调", "拜访准备", "现网厂商核验"]
    # the reviewer's: 等 ending a word, and 用户 starting one, stay
    assert use_when_phrases("用于检查两个配置是否相等。") == ["检查两个配置是否相等"]
    assert use_when_phrases("用于用户画像分析、用户分群。") == ["用户画像分析", "用户分群"]


def test_a_collections_triggers_list_after_a_dash_gives_its_phrases() -> None:
    """cc-skills writes "TRIGGERS - a, b, c." in its descriptions (disk-hygiene of round 26):
    its phrases are situations; a one-word keyword ("mathml") is not."""
    from skill2app.converter.analyzers.situations import listed_in_description

    description = (
        "Read an arXiv paper. TRIGGERS - read this paper, extract formulas from a paper, "
        "mathml, e-print. Then more."
    )
    assert listed_in_description(description) == [
        "read this paper",
        "extract formulas from a paper",
    ]
    assert listed_in_description("It triggers - sometimes, often.") == []  # the convention only
    dotted = "X. TRIGGERS - summarize README.md files, read this paper. More."
    assert listed_in_description(dotted) == ["summarize README.md files", "read this paper"]


def test_one_quoted_request_said_to_stand_for_its_kind_is_the_request() -> None:
    # ashare-news-fetcher: "也适用于“帮我看看 000001 最近有什么消息”这类口语化请求" gave the
    # whole tail, quote marks and "这类口语化请求" included, as a trigger
    description = "抓取个股新闻。也适用于“帮我看看 000001 最近有什么消息”这类口语化请求。"
    assert use_when_phrases(description) == ["帮我看看 000001 最近有什么消息"]
    assert quoted_only("“帮我看看最近的消息”之类的请求") == ["帮我看看最近的消息"]
    assert quoted_only("“帮我看看最近的消息”和别的") == []  # something else is said too
    assert quoted_only("“合并”") == []  # one quote alone: not said to be a request


def test_running_a_program_directly_and_a_pronoun_object_are_no_triggers() -> None:
    # "### 方式 2：直接运行脚本" (how to run it, numbered by 方式) and "create one"
    assert title_text("### 方式 2：直接运行脚本") == "直接运行脚本"
    assert title_text("### 方法一：合并文件") == "合并文件"
    assert title_text("方法论") == "方法论"  # 方法 starting a word is no numbering
    for said in (
        "直接运行脚本",
        "执行该命令",
        "run script directly",
        "run the script manually",
        "create one",
        "add some more",
    ):
        assert clean(said) == "", said
    for kept in ("run tests directly", "create one task", "explain that", "合并文件"):
        assert clean(kept) == kept


def test_listed_gerunds_numbered_steps_keyword_lists_and_kinds_of_requests() -> None:
    # skill-creator: "Running and evaluating test cases" gave "run and evaluating test cases"
    assert imperative("Running and evaluating test cases") == "run and evaluate test cases"
    assert imperative("Reading, writing and merging PDFs") == "read, write and merge PDFs"
    assert imperative("Creating building blocks") == "create building blocks"  # no list
    # feishu-meeting-minutes: "第 4 步：执行转写" kept its numbering
    assert title_text("### 第 4 步：执行转写") == "执行转写"
    # claude-md-progressive-disclosurer: "太大 / 太长 / 精简 / 瘦身" is keywords
    assert clean("太大 / 太长 / 精简 / 瘦身") == ""
    assert clean("merge / split PDFs") == "merge / split PDFs"  # one alternative: a request
    # pharma-daily-report: "…等口语化请求" closes a list of requests, it is not one
    said = use_when_phrases("当用户说看一下医药板块、给飞书发一份医药数据等口语化请求时使用")
    assert said[-1] == "给飞书发一份医药数据"


def test_quoted_requests_the_user_says_are_the_requests() -> None:
    """empirical-prompt-tuning (FRESH35): 'Use when the user says "empirical-prompt-tuning",
    "prompt tuning", ...' gave the trigger "say empirical-prompt-tuning"; baoyu's 'Use when
    user mentions "发布公众号", "post to wechat"' the same way."""
    assert use_when_phrases(
        'Tune prompts. Use when the user says "empirical-prompt-tuning", "prompt tuning", or '
        '"I want to harden this skill". It is a sister skill.'
    ) == ["empirical-prompt-tuning", "prompt tuning", "I want to harden this skill"]
    assert use_when_phrases('Post. Use when user mentions "发布公众号", or "post to wechat".') == [
        "发布公众号",
        "post to wechat",
    ]


def test_the_last_words_after_a_clause_are_its_objects_not_requests() -> None:
    """seeing-images (FRESH35): "Also use when the image-to-svg skill needs ground truth about
    colors, shapes, or boundaries" gave the triggers "shapes" and "boundaries"; a word of a
    list before a longer item still stands on its own."""
    said = use_when_phrases(
        "Vision tools. Use when comparing image regions. Also use when the image-to-svg skill "
        "needs ground truth about colors, shapes, or boundaries."
    )
    assert "shapes" not in said and "boundaries" not in said
    assert "charts" in use_when_phrases(
        "Charts. Use when asked for statistics, charts or exporting data."
    )
    # a verb's objects still stand: "convert Word documents, spreadsheets, or presentations"
    assert use_when_phrases(
        "Docs. Use when the user needs to convert Word documents, spreadsheets, or presentations."
    )[-2:] == ["spreadsheets", "presentations"]


def test_a_template_placeholder_is_no_trigger() -> None:
    """page-template (FRESH34): "fill in {{ placeholders }}" was a trigger of build-nav."""
    assert pick(["fill in {{ placeholders }}", "add a page", "render ${name}"], set()) == [
        "add a page"
    ]


def test_the_skills_situations_no_path_claims_go_to_the_pipeline_named_like_it(
    tmp_path: Path,
) -> None:
    """goal-loop: its workflow pipeline, named goal-loop, had the one trigger "goal loop":
    the description's requests ("run it until all tests are green", ...) matched no program's
    words, and an unmentioned test program kept the workflow from being the skill's whole.
    A keyword among them ("goal") is still no trigger."""
    md = (
        "---\nname: fix-loop\ndescription: A loop that repeats fixes until a check passes. "
        'Use when the user says "run it until all tests are green", "fix it until there are '
        'zero lint errors", "goal", or "keep going until the build passes".\n---\n# Fix Loop\n\n'
        "## Steps\n\n1. Lock the check files:\n\n```bash\n"
        "python3 scripts/loop.py lock tests/ --out manifest.json\n```\n\n"
        "2. Run the check, then verify nothing changed:\n\n```bash\n"
        "python3 scripts/loop.py verify manifest.json\n```\n\n"
        "3. If it fails, decide what to fix and repeat.\n"
    )
    program = (
        'import argparse\np = argparse.ArgumentParser()\ns = p.add_subparsers(dest="cmd")\n'
        'a = s.add_parser("lock")\na.add_argument("paths", nargs="+")\n'
        'a.add_argument("--out", required=True)\nb = s.add_parser("verify")\n'
        'b.add_argument("manifest")\nargs = p.parse_args()\nprint("{}")\n'
    )
    test = 'import unittest\nfrom loop import x\nif __name__ == "__main__":\n    unittest.main()\n'
    files = {"SKILL.md": md, "scripts/loop.py": program, "scripts/test_loop.py": test}
    (pipeline,) = plan_of(tmp_path / "fix-loop", files).pipelines
    assert pipeline.name == "fix-loop"
    assert pipeline.triggers[1:4] == [
        "run it until all tests are green",
        "fix it until there are zero lint errors",
        "keep going until the build passes",
    ]
    assert "goal" not in pipeline.triggers
    assert len(pipeline.triggers) >= 5


def test_a_situation_to_adopt_asks_for_something() -> None:
    from skill2app.converter.analyzers.claims import _a_request

    assert _a_request("walk me through the implementation plan")
    assert _a_request("发布公众号")
    for keyword in ("footnotes", "burnout detection", 'failing" an "error', "standup", ""):
        assert not _a_request(keyword), keyword


def test_when_sections_in_japanese_and_chinese(tmp_path: Path) -> None:
    """markdown-search (eaglesakura): "## いつ使うか" listed when the skill is for, and its
    one pipeline had its long description as its only trigger; "## いつ使わないか" is not."""
    from skill2app.converter.analyzers.situations import when_items
    from skill2app.converter.inventory.skill import read_skill_md

    md = (
        "---\nname: md-search\ndescription: Markdown を段階的に検索する\n---\n# 検索\n\n"
        "## いつ使うか\n\n* 「どこに書いてあるか」を探すとき\n"
        "* 大きな md の構造を把握したいとき\n\n"
        "## いつ使わないか\n\n* 文書を新規作成するとき\n\n## 典型场景\n\n- 查找相关文档\n"
    )
    root = write_tree(tmp_path / "md-search", {"SKILL.md": md})
    items = when_items(read_skill_md(root / "SKILL.md"))
    assert any("構造を把握したい" in item for item in items)
    assert not any("新規作成" in item for item in items)
    negative = md.replace("いつ使わないか", "いつ使うべきでないか")
    root = write_tree(tmp_path / "md-search-2", {"SKILL.md": negative})
    assert not any("新規作成" in item for item in when_items(read_skill_md(root / "SKILL.md")))
    assert "查找相关文档" in items


def test_a_listed_situation_that_quotes_the_user_is_the_quote() -> None:
    """scenario-war-room (FRESH36, frozen facts): "Use when facing complex risk scenarios, ...,
    or when the user asks 'what if X AND Y both happen?'" gave the trigger "the user asks
    'what if X AND Y both happen?" (its quote cut in half)."""
    description = (
        "What-if modeling. Use when facing complex risk scenarios, strategic decisions with "
        "major downside, or when the user asks 'what if X AND Y both happen?'"
    )
    assert use_when_phrases(description)[-1] == "what if X AND Y both happen?"
    said = use_when_phrases('Tool. Use when the user says "fix my build" or needs a report.')
    assert said[0] == "fix my build"


def test_a_file_name_does_not_end_a_situation_and_single_quotes_list_requests() -> None:
    """skill-interface-audit: '... says "skill-interface-audit", "audit the interfaces", ...,
    "audit SKILL.md", or ...' was cut at "SKILL." and gave 'say skill-interface-audit';
    daily-meeting-update's "Use when user says 'daily', 'standup', ..., or 'team sync'" gave
    "user says 'daily'" and quoted fragments."""
    audit = use_when_phrases(
        'Audit skills. Use when the user says "audit the interfaces", "audit SKILL.md", or '
        '"check the API specification". It emits findings.'
    )
    assert audit == ["audit the interfaces", "audit SKILL.md", "check the API specification"]
    standup = use_when_phrases(
        "Standup generator. Use when user says 'standup', 'what did I do yesterday', or "
        "'team sync'. Pulls activity from GitHub."
    )
    assert standup == ["standup", "what did I do yesterday", "team sync"]


def test_a_quoted_request_is_not_split_at_its_own_and() -> None:
    """The reviewer's: 'what if rates and prices both rise?' was split at its "and" into two
    halves, each a trigger."""
    said = use_when_phrases(
        "Model. Use when the user asks 'what if rates and prices both rise?', or when the user "
        "asks 'what happens if the supplier and the bank both fail?'"
    )
    assert said == [
        "what if rates and prices both rise?",
        "what happens if the supplier and the bank both fail?",
    ]


def test_what_is_asked_of_a_given_thing_a_manner_and_a_bracket_keep_their_place() -> None:
    """A reviewer's reads of the rules above: a request of its own asked of a given link
    stays as it is; a manner clause ends its own item, not the list; a bracket after a name
    or holding a note is no request; "includes" inside a sentence opens no list."""
    assert use_when_phrases(
        "Use when a user gives a YouTube link and asks to download the video or extract the audio."
    ) == ["download the video", "extract the audio"]
    assert use_when_phrases(
        "Use when the user wants to resize images without losing quality, convert image "
        "formats, or add watermarks."
    ) == ["resize images without losing quality", "convert image formats", "add watermarks"]
    assert use_when_phrases(
        "Use when the user wants to delete a model (不支持批量删除), post notes to Xiaohongshu "
        "(小红书) or switch the model (切换模型/换模型)."
    ) == ["delete a model", "post notes to Xiaohongshu", "switch the model", "切换模型", "换模型"]
    said = use_when_phrases("Each report includes the title; the author list; the DOI.")
    assert "the author list" not in said


def test_a_name_of_two_places_is_no_conversion_and_a_hyphenated_name_no_trigger() -> None:
    assert more_requests(["login to portal"], "en") == []
    assert more_requests(["back to top"], "en") == []
    assert pick(["pdf-merge", "merge two PDFs"], set()) == ["merge two PDFs"]


def test_the_languages_and_japanese_nouns_a_skill_is_read_for() -> None:
    """The reviewer's of 2026-12-04: a Japanese skill in kanji with few kana got Chinese
    requests too; "Update the Decision Log / 決定事項ログ" paired the whole clause, never
    "decision log"; a clause with hiragana was taken for a noun; `status` never matched."""
    from skill2app.converter.analyzers.languages import _written_in, ja_nouns

    kanji = "---\ndescription: 議事録を作成\n---\n# 会議議事録作成\n" + "議事録会議作成管理" * 10
    assert _written_in("ja", kanji) == ("ja",)
    assert _written_in("en", "A table:\n" + "議事録会議作成管理" * 10) == ("en", "zh")
    nouns = ja_nouns(
        "Update the Decision Log / 決定事項ログ\nWrite the Agenda / アジェンダ\n"
        "設定ファイルを作成します (optional)\nステータス、ステータス"
    )
    assert nouns["decision log"] == "決定事項ログ" and nouns["agenda"] == "アジェンダ"
    assert "log" not in nouns and "optional" not in nouns  # no one word of a pair, no clause
    assert ja_action_phrases("show-status", nouns) == ["ステータスを表示"]


def test_a_command_a_program_runs_after_a_double_dash_is_no_value_of_a_request(
    tmp_path: Path,
) -> None:
    """gating's mutate.py runs the gate it is given after ``--``: "mutate python3" and
    "mutate pytest" were its triggers (round 44's judge)."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: gating\ndescription: Test gates.\n---\n# Gating\n\n"
            "## Mutation testing\n\n```bash\npython3 scripts/mutate.py --target codec.py "
            "-- python3 calibrate.py\npython3 scripts/mutate.py --target grid.py -- pytest -q"
            "\n```\n",
            "scripts/mutate.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--target')\np.add_argument('cmd', nargs=argparse.REMAINDER)\n"
            "p.parse_args()\n",
        },
    )
    every = [t for p in plan.pipelines for t in p.triggers]
    assert every and not any(w in t for t in every for w in ("python3", "pytest", "calibrate"))


def test_the_same_action_of_two_programs_says_whose_it_is(tmp_path: Path) -> None:
    """A reviewer's: with an action's description the action alone, drive.py's and
    calendar.py's `list` were both "List", and the self-test sent each to the other."""
    program = (
        '"""{about}"""\nimport argparse\np = argparse.ArgumentParser(description="{about}")\n'
        's = p.add_subparsers(dest="cmd")\ns.add_parser("list")\ns.add_parser("get")\n'
        "p.parse_args()\n"
    )
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": "---\nname: g\ndescription: Google tools.\n---\n# G\n\n"
            "```bash\npython3 scripts/drive.py list\npython3 scripts/drive.py get\n"
            "python3 scripts/calendar.py list\npython3 scripts/calendar.py get\n```\n",
            "scripts/drive.py": program.format(about="Google Drive from the command line."),
            "scripts/calendar.py": program.format(about="Google Calendar events."),
        },
    )
    descriptions = [p.description for p in plan.pipelines if "list" in p.name]
    assert len(descriptions) == 2 and len(set(descriptions)) == 2, descriptions
    assert any("Drive" in d for d in descriptions) and any("Calendar" in d for d in descriptions)


def test_a_bare_word_description_says_whose_it_is(tmp_path: Path) -> None:
    """Round 48's judge: blackboard.py's subcommands were described "Init", "Status", "Ready";
    65 of the corpus's 809 pipelines had such a description.  The program's name tells
    them apart (what it is for, said after each, drew the siblings together in the
    self-test); a generic name (main.js) says what the skill does, never its "Use when"."""
    program = (
        "import argparse\np = argparse.ArgumentParser(description='Strategy Blackboard State "
        "Machine')\ns = p.add_subparsers(dest='cmd')\ns.add_parser('init')\n"
        "s.add_parser('status')\np.parse_args()\n"
    )
    plan = plan_of(
        tmp_path / "a",
        {
            "SKILL.md": "---\nname: b\ndescription: Strategy work.\n---\n# B\n\n"
            "```bash\npython3 scripts/blackboard.py init\npython3 scripts/blackboard.py status"
            "\n```\n",
            "scripts/blackboard.py": program,
        },
    )
    described = {p.name: p.description for p in plan.pipelines}
    assert described["blackboard-init"] == "Init (blackboard)"
    assert described["blackboard-status"] == "Status (blackboard)"
    # a description its program's name already says is not said twice (it was "Compliance
    # check (compliance check)")
    plan = plan_of(
        tmp_path / "d",
        {
            "SKILL.md": "---\nname: c\ndescription: Strategy work.\n---\n# C\n\n"
            "## Compliance check\n\n```bash\npython3 scripts/compliance_check.py draft.md\n```\n",
            "scripts/compliance_check.py": "import sys\nprint(open(sys.argv[1]).read())\n",
        },
    )
    (pipeline,) = plan.pipelines
    assert pipeline.description == "Compliance check"
    main = {
        "scripts/main.js": "const a = process.argv.slice(2);\nif (a[0] === 'main') "
        "console.log(a[1]);\n",
    }
    for folder, description in (
        ("b", "Fetch any URL and convert it to Markdown. Use when asked to save a page."),
        ("c", "Use this skill when the user asks to save a page. Fetch any URL as Markdown."),
    ):
        plan = plan_of(
            tmp_path / folder,
            {
                "SKILL.md": f"---\nname: u\ndescription: {description}\n---\n# U\n\n"
                "```bash\nnode scripts/main.js main <url>\n```\n",
                **main,
            },
        )
        (pipeline,) = plan.pipelines
        assert pipeline.description.startswith("Main — Fetch any URL"), pipeline.description
    # a description that only says when to use the skill is not said; a name of no word
    # that compares (`gh`) is named all the same
    plan = plan_of(
        tmp_path / "e",
        {
            "SKILL.md": "---\nname: u\ndescription: Use this skill when a page is asked for."
            "\n---\n# U\n\n```bash\nnode scripts/main.js main <url>\n```\n",
            **main,
        },
    )
    assert [p.description for p in plan.pipelines] == ["Main"]
    plan = plan_of(
        tmp_path / "f",
        {
            "SKILL.md": "---\nname: g\ndescription: GitHub.\n---\n# G\n\n```bash\n"
            "python3 scripts/gh.py status\n```\n",
            "scripts/gh.py": "import argparse\np = argparse.ArgumentParser()\n"
            "s = p.add_subparsers(dest='cmd')\ns.add_parser('status')\np.parse_args()\n",
        },
    )
    assert [p.description for p in plan.pipelines] == ["Status (gh)"]
