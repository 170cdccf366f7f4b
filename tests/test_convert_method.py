"""app-convert's heuristic: workflows written as sub-headings, and a judgement-led skill's
method as a pipeline (converter/analyzers/method.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.analyzers.situations import situations
from skill2app.converter.analyzers.when_clauses import use_when_phrases
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.model import CodeStep, LlmStep

TRACKER = """\
import argparse, json
p = argparse.ArgumentParser()
sub = p.add_subparsers(dest="cmd", required=True)
parse = sub.add_parser("parse")
parse.add_argument("--input", required=True)
parse.add_argument("--output")
correlate = sub.add_parser("correlate")
correlate.add_argument("--input", required=True)
correlate.add_argument("--output")
report = sub.add_parser("report")
report.add_argument("--input", required=True)
args = p.parse_args()
print(json.dumps({"cmd": args.cmd}))
"""


def _steps_skill(root: Path, second_input: str, third_input: str = "groups.json") -> Path:
    """timezone-aware-event-tracker (round 14): steps under "### Step N" headings, the second
    reading (or not) the file the first saves."""
    return write_tree(
        root,
        {
            "SKILL.md": "---\nname: tracker\ndescription: Track events across timezones.\n---\n"
            "# Tracker\n\n## Workflow\n\n### Step 1: Collect Event Data\n\nGather the logs.\n\n"
            "### Step 2: Parse Events\n\nNormalise the times.\n\n```bash\n"
            "python3 scripts/track.py parse --input events.csv --output normalized.json\n```\n\n"
            "### Step 3: Correlate Events\n\nGroup what happened together.\n\n```bash\n"
            f"python3 scripts/track.py correlate --input {second_input} --output groups.json\n"
            "```\n\n### Step 4: Report\n\n```bash\n"
            f"python3 scripts/track.py report --input {third_input}\n```\n",
            "scripts/track.py": TRACKER,
        },
    )


def test_steps_under_headings_that_hand_a_file_on_are_one_pipeline(tmp_path: Path) -> None:
    """The timezone tracker's judges: "no chained parse->correlate->report path: the user must
    run three pipelines and pass file paths between them"."""
    inventory = build_inventory(_steps_skill(tmp_path / "t", "normalized.json"))
    plan = analyze(inventory)
    chain = next(p for p in plan.pipelines if len(p.steps) > 1)
    assert [s.name for s in chain.steps] == ["parse", "correlate", "report"]  # Step 1 collects
    parse, correlate, report = chain.steps
    assert isinstance(parse, CodeStep) and parse.stdout == "json"  # it prints what it saved
    assert not any(a.flag == "--output" for a in parse.args)
    given = {a.flag: a.to_dict() for a in correlate.args}
    assert given["--input"] == {"flag": "--input", "from": "parse.output", "as": "file"}
    assert {a.flag: a.to_dict() for a in report.args}["--input"]["from"] == "correlate.output"
    assert [i.name for i in chain.input] == ["input"]  # events.csv only
    # each step is a task of its own too, and no step heading is left to Skill mode
    assert len(plan.pipelines) == 4
    assert [k.topic for k in plan.skill_mode if k.topic.startswith("Step")] == [
        "Step 1: Collect Event Data"  # what the user gathers first: guidance for the model
    ]
    assert check_plan(plan, inventory) == []


def test_steps_under_headings_without_a_file_handed_on_are_no_workflow(tmp_path: Path) -> None:
    plan = analyze(build_inventory(_steps_skill(tmp_path / "t", "other.json", "more.json")))
    assert all(len(p.steps) == 1 for p in plan.pipelines)


def test_a_folder_given_to_an_output_flag_is_an_input_not_stdout(tmp_path: Path) -> None:
    """reading-business-cards: ``--out /home/claude/cards_work`` names a folder the program
    fills; the workflow must not drop it as if the output travelled on stdout."""
    skill = write_tree(
        tmp_path / "cards",
        {
            "SKILL.md": "---\nname: cards\ndescription: Read cards.\n---\n## Workflow\n\n"
            "1. Run `python3 scripts/prep.py --input scans/ --out /home/me/cards_work`.\n"
            "2. Check the tiles look right.\n",
            "scripts/prep.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--input')\np.add_argument('--out')\np.parse_args()\n",
        },
    )
    plan = analyze(build_inventory(skill))
    workflow = next(p for p in plan.pipelines if len(p.steps) > 1)
    assert any(a.flag == "--out" for a in workflow.steps[0].args)


BUGS = {
    "SKILL.md": "---\nname: bugs\ndescription: This skill should be used when the user reports "
    "a bug or asks to fix failing code. Enforces a test-first bug fixing workflow.\n---\n"
    "# Test-first bug fixing\n\n## Core workflow\n\n### Phase 1: Reproduce\n\n"
    "1. **Understand the bug** - expected vs actual behaviour\n"
    "2. **Write a failing test** - one test that shows the bug\n\n"
    "### Phase 2: Fix\n\n3. **Fix the code** - never the test\n4. **Report** - with the test\n\n"
    "## Common mistakes\n\n1. Testing the fix instead of the bug\n2. Skipping the suite\n\n"
    "## Scripts\n\n- `scripts/find-tests.sh [directory]` - locate test infrastructure\n",
    "scripts/find-tests.sh": "#!/bin/bash\n# Find test infrastructure\n# Usage: ./find-tests.sh "
    '[directory]\nDIR=${1:-.}\necho "tests in $DIR"\n',
}


def test_a_judgement_led_skill_with_a_survey_program_gets_its_method(tmp_path: Path) -> None:
    """test-first-bugs (round 14): "Only one pipeline, a bare wrapper of find-tests.sh, so the
    skill's actual job ... is missing"."""
    inventory = build_inventory(write_tree(tmp_path / "bugs", BUGS))
    plan = analyze(inventory)
    method = plan.pipeline("bugs")
    assert method is not None
    survey, read, llm, save = method.steps
    assert isinstance(survey, CodeStep) and survey.program == "scripts/find-tests.sh"
    assert (
        isinstance(read, CodeStep)
        and read.written
        and "{{read_files.output.files}}" in (llm.prompt if isinstance(llm, LlmStep) else "")
    )
    assert isinstance(llm, LlmStep) and llm.model == "reasoning"
    assert "Write a failing test" in llm.prompt and "Fix the code" in llm.prompt
    assert "Testing the fix instead" not in llm.prompt  # mistakes are no steps
    assert "{{find_tests.output}}" in llm.prompt and "{{input.request}}" in llm.prompt
    assert llm.schema is not None and llm.schema["required"] == ["summary", "files"]
    assert isinstance(save, CodeStep) and save.written and method.output == "save_files"
    assert method.description == "Enforces a test-first bug fixing workflow"
    assert "report a bug" in method.triggers
    assert {i.name: i.required for i in method.input} == {
        "request": True,
        "directory": False,
        "files": False,
        "out_dir": False,
        "overwrite": False,
    }
    assert not any(k.topic in ("Core workflow", "Phase 1: Reproduce") for k in plan.skill_mode)
    assert check_plan(plan, inventory) == []


def test_a_skill_whose_programs_do_what_it_is_for_gets_no_method(tmp_path: Path) -> None:
    files = dict(BUGS)
    files["SKILL.md"] = files["SKILL.md"].replace(
        "reports a bug or asks to fix failing code", "wants to find tests"
    )
    plan = analyze(build_inventory(write_tree(tmp_path / "bugs", files)))
    assert plan.pipeline("bugs") is None


def _save(tmp_path: Path, files: list[dict[str, str]], overwrite: bool = False) -> dict:
    plan = analyze(build_inventory(write_tree(tmp_path / "bugs", BUGS)))
    method = plan.pipeline("bugs")
    assert method is not None
    save = method.steps[-1]
    assert isinstance(save, CodeStep) and save.write is not None
    program = tmp_path / "save.py"
    program.write_text(save.write.source, encoding="utf-8")
    payload = {
        "input": {"request": "x", "out_dir": "proj", "overwrite": overwrite},
        "steps": {"apply_method": {"output": {"summary": "done", "files": files}}},
    }
    env = {**os.environ, "APP_CALLER_CWD": str(tmp_path / "caller")}
    done = subprocess.run(
        [sys.executable, str(program)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)["output"]


def test_the_method_saves_new_files_under_its_folder_and_keeps_the_rest(tmp_path: Path) -> None:
    (tmp_path / "caller" / "proj").mkdir(parents=True)
    (tmp_path / "caller" / "proj" / "app.py").write_text("old\n")
    out = _save(
        tmp_path,
        [
            {"path": "tests/test_bug.py", "content": "def test_bug(): assert False\n"},
            {"path": "app.py", "content": "new\n"},
            {"path": "../escape.py", "content": "x"},
        ],
    )
    made = tmp_path / "caller" / "proj" / "tests" / "test_bug.py"
    assert out["written"] == [str(made)] and made.read_text().startswith("def test_bug")
    assert (tmp_path / "caller" / "proj" / "app.py").read_text() == "old\n"
    assert [k["path"] for k in out["kept"]] == ["app.py", "../escape.py"]
    assert out["kept"][0]["content"] == "new\n" and out["summary"] == "done"
    assert not (tmp_path / "caller" / "escape.py").exists()
    odd = _save(  # the reviewer's: a file then a path under it, twice the same, the folder
        tmp_path,
        [
            {"path": "f", "content": "1"},
            {"path": "f/g", "content": "2"},
            {"path": "f", "content": "3"},
            {"path": ".", "content": "4"},
            {"path": "a\x00b", "content": "5"},
        ],
    )
    assert odd["written"] == [str(tmp_path / "caller" / "proj" / "f")]
    assert [k["path"] for k in odd["kept"]] == ["f/g", "f", ".", "a\x00b"]
    assert (tmp_path / "caller" / "proj" / "f").read_text() == "1"
    again = _save(tmp_path, [{"path": "app.py", "content": "new\n"}], overwrite=True)
    assert again["kept"] == [] and (tmp_path / "caller" / "proj" / "app.py").read_text() == "new\n"


def test_the_method_reads_the_files_the_request_is_about(tmp_path: Path) -> None:
    """log-debugger (round 15): the method pipeline "never reads a log"."""
    plan = analyze(build_inventory(write_tree(tmp_path / "bugs", BUGS)))
    method = plan.pipeline("bugs")
    assert method is not None
    read = method.step("read_files")
    assert isinstance(read, CodeStep) and read.write is not None
    program = write_tree(
        tmp_path / "caller",
        {"app.log": "ERROR boom\n", "big.log": "x" * 300_000, "proj/a.py": "", "read.py": ""},
    )
    (program / "read.py").write_text(read.write.source, encoding="utf-8")
    with zipfile.ZipFile(program / "paper.docx", "w") as docx:
        docx.writestr("word/document.xml", "<w:p><w:t>Methods</w:t></w:p><w:t>n = 12</w:t>")
    (program / "blob.bin").write_bytes(b"\x00\x01binary")
    (program / "proj" / ".git").mkdir()
    (program / "proj" / ".git" / "HEAD").write_text("ref")
    (program / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
    os.mkfifo(program / "pipe")
    files = ["app.log", "big.log", "proj", "missing.log", "paper.docx", "blob.bin"]
    files += ["broken.docx", "pipe", 5]
    payload = {"input": {"files": files}}
    done = subprocess.run(
        [sys.executable, str(program / "read.py")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "APP_CALLER_CWD": str(program)},
        check=True,
    )
    app_log, big, folder, missing, paper, blob, broken, pipe, number = json.loads(done.stdout)[
        "output"
    ]["files"]
    assert broken == {"path": "broken.docx", "binary": True, "bytes": 14}
    assert pipe == {"path": "pipe", "error": "not a regular file"} and "error" in number
    assert paper["content"] == "Methods n = 12"  # scholar-evaluation: not the zip's bytes
    assert blob == {"path": "blob.bin", "binary": True, "bytes": 8}
    assert app_log == {"path": "app.log", "content": "ERROR boom\n", "truncated": False}
    assert big["truncated"] and len(big["content"]) == 200_000
    assert folder == {"path": "proj", "folder": ["a.py"]}
    assert "error" in missing


def test_should_be_used_when_lists_situations_as_the_user_says_them() -> None:
    description = (
        "This skill should be used when the user reports a bug, describes unexpected "
        "behavior, fixes typos, or asks to fix something. Enforces test-first fixing."
    )
    assert use_when_phrases(description)[:3] == [
        "report a bug",
        "describe unexpected behavior",
        "fix typos",
    ]
    assert use_when_phrases("Use when tables overflow the page")[0] == "tables overflow the page"


def test_a_workflow_giving_a_program_more_positionals_than_it_declares(tmp_path: Path) -> None:
    """An undeclared positional of a workflow's command crashed the heuristic (ValueError in
    ``examples``) instead of becoming an input."""
    skill = write_tree(
        tmp_path / "p",
        {
            "SKILL.md": "---\nname: p\ndescription: Play.\n---\n## Workflow\n\n"
            "1. Run `python3 scripts/play.py intro.cast`.\n2. Describe what it shows.\n",
            "scripts/play.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--speed')\np.parse_args()\n",
        },
    )
    plan = analyze(build_inventory(skill))
    workflow = next(p for p in plan.pipelines if len(p.steps) > 1)
    assert [i.name for i in workflow.input][:1] == ["intro_cast"]


def test_a_descriptions_list_of_requests_under_a_label_gives_situations(tmp_path: Path) -> None:
    """daymade-sector-research (round 15): "触发场景（命中任一即读本 skill）：" over a list of
    quoted requests gave no situation, so its pipelines had triggers like "ann query"."""
    description = (
        "|-\n  A股行业投研工作流。\n\n  触发场景（命中任一即读本 skill）：\n"
        "  - 「XX 行业 Top N」（如「医药行业今天的 Top 10 标的」）\n"
        "  - 「这些标的最近一周 / 一个月发过哪些公告」\n"
        "  - 「判断 XX 行业 / 板块现在的市场情绪怎么样」\n\n  核心能力：东财成分股。"
    )
    skill = write_tree(
        tmp_path / "s",
        {
            "SKILL.md": f"---\nname: s\ndescription: {description}\n---\n# 投研\n\n"
            "## 公告检索\n\n```bash\npython3 scripts/ann.py --codes 600613\n```\n",
            "scripts/ann.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--codes')\np.parse_args()\n",
        },
    )
    inventory = build_inventory(skill)
    assert situations(inventory.skill) == [
        "医药行业今天的 Top 10 标的",
        "这些标的最近一周或一个月发过哪些公告",
        "判断行业或板块现在的市场情绪怎么样",
    ]
    (pipeline,) = analyze(inventory).pipelines
    assert "公告检索" in pipeline.triggers  # 检索 is an action


def test_a_survey_told_what_to_look_at_runs_on_the_document_named(tmp_path: Path) -> None:
    """verifying-claims (round 16): the method pipeline "sees the folder's file names, not
    the bundle" — gather_context.py DOC, which needs the document, was no survey."""
    skill = write_tree(
        tmp_path / "claims",
        {
            "SKILL.md": "---\nname: claims\ndescription: Verify what a document claims about "
            "code. Use when the user asks to check docs against the code.\n---\n# Claims\n\n"
            "## Workflow\n\n1. Gather the claims and the code they name\n"
            "2. Judge each claim PASS or FAIL\n3. Write the drift report\n\n"
            "## Gathering\n\n```bash\npython3 scripts/gather_context.py docs/api.md\n```\n",
            "scripts/gather_context.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('doc')\np.add_argument('--src')\np.parse_args()\n",
        },
    )
    inventory = build_inventory(skill)
    plan = analyze(inventory)
    method = plan.pipeline("claims")
    assert method is not None
    assert [s.name for s in method.steps][:2] == ["gather_context", "read_files"]
    assert {i.name: i.required for i in method.input}["doc"] is True
    assert check_plan(plan, inventory) == []


def test_a_surveys_own_files_input_does_not_drop_the_method(tmp_path: Path) -> None:
    """The reviewer's: a survey taking --files made the method declare `files` twice, and
    the pipeline was left to Skill mode."""
    files = dict(BUGS)
    files["SKILL.md"] = files["SKILL.md"].replace(
        "- `scripts/find-tests.sh [directory]` - locate test infrastructure\n",
        "```bash\npython3 scripts/scan.py --files a.py --out-dir rep\n```\n",
    )
    files["scripts/scan.py"] = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--files')\n"
        "p.add_argument('--out-dir')\np.parse_args()\n"
    )
    inventory = build_inventory(write_tree(tmp_path / "bugs", files))
    plan = analyze(inventory)
    method = plan.pipeline("bugs")
    assert method is not None and method.steps[0].name == "scan"
    names = [i.name for i in method.input]
    assert len(names) == len(set(names)) and {"files", "files_2", "out_dir_2"} <= set(names)
    read = method.step("read_files")
    assert isinstance(read, CodeStep) and read.write and '"files_2"' in read.write.source
    assert check_plan(plan, inventory) == []


def test_a_descriptions_list_ends_where_its_sentence_does() -> None:
    """The reviewer's: the items of a "Do not use for:" list after the list became triggers."""
    from skill2app.converter.analyzers.situations import listed_in_description

    english = (
        'Weather helper. Triggers: - "what is the weather in Paris" - "will it rain '
        'tomorrow". Do not use for: - "write code for me"'
    )
    assert listed_in_description(english) == [
        "what is the weather in Paris",
        "will it rain tomorrow",
    ]
    chinese = "天气。触发场景： - 「北京天气怎么样」 - 「明天会下雨吗」。不要用于：- 「翻译这段话」"
    assert listed_in_description(chinese) == ["北京天气怎么样", "明天会下雨吗"]


def test_the_sections_a_section_sits_under(tmp_path: Path) -> None:
    """``document.ancestors`` follows ``SkillDoc.parents`` (worked out once per document: the
    walk back through every earlier heading made 20,000 headings take 101 s, now 10 s)."""
    from skill2app.converter.analyzers.document import ancestors

    levels = [1, 2, 3, 3, 2, 4, 3, 1, 2, 2, 5]
    body = "".join("#" * level + f" s{i}\n\ntext\n\n" for i, level in enumerate(levels))
    skill = write_tree(tmp_path / "s", {"SKILL.md": "---\nname: s\ndescription: d.\n---\n" + body})
    doc = build_inventory(skill).skill
    assert doc.parents == [-1, 0, 1, 1, 0, 4, 4, -1, 7, 7, 9]
    assert ancestors(doc, 5) == [4, 0] and ancestors(doc, 10) == [9, 7] and ancestors(doc, 0) == []


BRIEF = {
    "SKILL.md": "---\nname: weekly-brief\ndescription: Write the weekly health brief for "
    "management. Use for weekly health briefs and policy digests.\n---\n# Weekly brief\n\n"
    "## Workflow\n\n1. Collect the week's news from the sources\n2. Write the brief with "
    "sources\n3. Save it as brief.md\n\n## Check\n\n```bash\npython3 scripts/validate_weekly_brief"
    ".py --file brief.md\n```\n",
    "scripts/validate_weekly_brief.py": "import argparse\np = argparse.ArgumentParser()\n"
    "p.add_argument('--file', required=True)\np.parse_args()\n",
}


def test_a_checker_named_like_the_skill_is_not_what_the_skill_is_for(tmp_path: Path) -> None:
    """hit-weekly-brief (round 16): its one program validates a brief, and took every "use
    for" situation, so requests to write a brief went to the validator and the writing was
    left to Skill mode."""
    plan = analyze(build_inventory(write_tree(tmp_path / "weekly-brief", BRIEF)))
    checker = plan.pipeline("validate-weekly-brief")
    method = plan.pipeline("weekly-brief")
    assert checker is not None and method is not None
    assert "weekly health briefs" not in checker.triggers
    assert "weekly health briefs" in method.triggers
    assert "apply_method" in [s.name for s in method.steps]


def test_a_gate_or_a_grader_is_not_what_the_skill_is_for(tmp_path: Path) -> None:
    """academic-paper-reader, legal-issue-spot (round 21): a style gate and a grader, each
    the skill's one program, took the skill's reading requests ("读论文")."""
    for stem in ("paper_audit_gate", "grade_brief"):
        files = {**BRIEF, f"scripts/{stem}.py": BRIEF["scripts/validate_weekly_brief.py"]}
        del files["scripts/validate_weekly_brief.py"]
        files["SKILL.md"] = files["SKILL.md"].replace("validate_weekly_brief", stem)
        plan = analyze(build_inventory(write_tree(tmp_path / stem / "weekly-brief", files)))
        checker = plan.pipeline(stem.replace("_", "-"))
        assert checker is not None and "weekly health briefs" not in checker.triggers


DRAW = {
    "SKILL.md": "---\nname: draw\ndescription: Draw cards to decide. Use when the user says "
    "'you pick'.\n---\n# Draw\n\n## Quick Start\n\n1. Run the drawing script:\n   ```bash\n"
    "   python3 {baseDir}/scripts/draw.py\n   ```\n\n2. Each card has a `file` path relative to "
    "`{baseDir}/`\n\n3. For faster reads, use `--content`:\n   ```bash\n"
    "   python3 {baseDir}/scripts/draw.py --content\n   ```\n\n4. Interpret the spread using "
    "[{baseDir}/references/GUIDE.md]({baseDir}/references/GUIDE.md)\n\n5. Apply the reading to "
    "the task at hand\n\n## Rules\n\n- **Never fake a draw.** If the script fails, say so\n"
    "  and stop.\n",
    "scripts/draw.py": "import argparse, json\np = argparse.ArgumentParser()\n"
    "p.add_argument('--content', action='store_true')\np.parse_args()\n"
    "print(json.dumps({'cards': [1]}))\n",
    "references/GUIDE.md": "# Guide\n\nRead the cards as a story.\n",
}


def test_judgement_steps_in_a_row_are_one_step_that_sees_the_task_and_the_guides(
    tmp_path: Path,
) -> None:
    """let-fate-decide (round 17): each numbered step was an llm step of its own (four in a
    chain) with no input for the user's task, `{baseDir}` paths left as they were, the guide
    they name never read, a rule cut at its line break, and the draw run twice because step 3
    shows the same command with one more switch."""
    root = write_tree(tmp_path / "draw", DRAW)
    plan = analyze(build_inventory(root))
    pipeline = plan.pipeline("draw")
    assert pipeline is not None
    assert [s.name for s in pipeline.steps] == ["draw", "read_guides", "apply_steps"]
    llm = pipeline.steps[-1]
    assert isinstance(llm, LlmStep) and llm.model == "reasoning"
    assert "{baseDir}" not in llm.prompt and "references/GUIDE.md" in llm.prompt
    assert "relative to the skill's folder" in llm.prompt
    assert "{{input.request}}" in llm.prompt and "{{draw.output}}" in llm.prompt
    assert "{{read_guides.output.files}}" in llm.prompt
    assert "If the script fails, say so and stop." in llm.prompt  # the rule's second line
    assert [i.name for i in pipeline.input] == ["request"]
    reader = pipeline.steps[1]
    assert isinstance(reader, CodeStep) and reader.write is not None
    program = tmp_path / "read.py"
    program.write_text(reader.write.source, encoding="utf-8")

    def read() -> dict:
        done = subprocess.run(
            [sys.executable, str(program)],
            input=json.dumps({"input": {"request": "x"}, "steps": {}}),
            capture_output=True,
            text=True,
            env={**os.environ, "APP_ROOT": str(root)},
            check=True,
        )
        (guide,) = json.loads(done.stdout)["output"]["files"]
        return guide

    guide = read()
    assert guide["path"] == "references/GUIDE.md" and "as a story" in guide["content"]
    (tmp_path / "outside.md").write_text("secret", encoding="utf-8")
    (root / "references" / "GUIDE.md").unlink()
    (root / "references" / "GUIDE.md").symlink_to(tmp_path / "outside.md")
    assert read() == {"path": "references/GUIDE.md", "error": "outside the APP"}


def test_a_list_of_things_over_its_checker_is_no_workflow(tmp_path: Path) -> None:
    """japanese-enterprise-doc-formatter (round 17): the thirteen sections a document needs
    ("1. 件名 (Subject)") above the checker's command became thirteen llm steps."""
    root = write_tree(
        tmp_path / "doc",
        {
            "SKILL.md": "---\nname: doc\ndescription: Format documents.\n---\n# Doc\n\n"
            "## Workflow\n\n### Step 2: Validate\n\nRequired sections:\n1. 件名 (Subject)\n"
            "2. 起案日 (Draft Date)\n3. Risks\n\n"
            "```bash\npython3 scripts/check.py --input d.md\n```\n",
            "scripts/check.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--input', required=True)\np.parse_args()\n",
        },
    )
    plan = analyze(build_inventory(root))
    assert not [s for p in plan.pipelines for s in p.steps if isinstance(s, LlmStep)]


def test_a_step_running_a_program_shown_above_the_list_runs_it_there(tmp_path: Path) -> None:
    """codebase-onboarding (round 17): "1. Run `scripts/analyzer.py` against the target
    repository" with the command in a quick start above; the steps after it (fill the
    template) were left to Skill mode and the analyzer, named like the skill, took every
    situation."""
    root = write_tree(
        tmp_path / "onboarding",
        {
            "SKILL.md": "---\nname: onboarding\ndescription: Write onboarding docs. Use when "
            "preparing handoff documentation.\n---\n# Onboarding\n\n## Quick Start\n\n```bash\n"
            "python3 scripts/analyzer.py /path/to/repo\n```\n\n## Workflow\n\n1. Run "
            "`scripts/analyzer.py` against the target repository.\n2. Capture the key signals.\n"
            "3. Fill the template in `references/template.md`.\n",
            "scripts/analyzer.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('path')\np.parse_args()\n",
            "references/template.md": "# Template\n",
        },
    )
    plan = analyze(build_inventory(root))
    workflow = plan.pipeline("onboarding")
    assert workflow is not None
    names = [s.name for s in workflow.steps]
    assert names == ["analyzer", "read_guides", "apply_steps", "save_files"]
    assert "preparing handoff documentation" in workflow.triggers
    assert {i.name: i.required for i in workflow.input} == {
        "path": True,
        "request": False,
        "out_dir": False,
        "overwrite": False,
    }
    llm = workflow.steps[2]
    assert isinstance(llm, LlmStep) and llm.schema is not None
    assert llm.schema["required"] == ["summary", "files"]  # filling the template makes a file
    assert check_plan(plan, build_inventory(root)) == []


def test_examples_of_one_call_in_a_step_run_it_once(tmp_path: Path) -> None:
    """deploy-to-vercel (round 18): step 3 shows its fallback script three ways ("# Deploy
    current directory", "# Deploy specific project", "# Deploy existing tarball"); the
    workflow ran the upload three times."""
    root = write_tree(
        tmp_path / "deploy",
        {
            "SKILL.md": "---\nname: deploy\ndescription: Deploy a site.\n---\n# Deploy\n\n"
            "## Steps\n\n1. Decide whether the project is ready to deploy.\n\n2. Deploy it:\n"
            "   ```bash\n   # Deploy current directory\n   bash resources/deploy.sh\n\n"
            "   # Deploy specific project\n   bash resources/deploy.sh /path/to/project\n\n"
            "   # Deploy existing tarball\n   bash resources/deploy.sh /path/to/project.tgz\n"
            "   ```\n\n3. Tell the user the preview URL.\n",
            "resources/deploy.sh": '#!/bin/bash\nTARGET="${1:-.}"\necho "{\\"url\\": 1}"\n',
        },
    )
    plan = analyze(build_inventory(root))
    runs = [
        s for p in plan.pipelines for s in p.steps
        if isinstance(s, CodeStep) and s.program == "resources/deploy.sh"
    ]  # fmt: skip
    workflow = plan.pipeline("deploy")
    assert workflow is not None
    assert [s.name for s in workflow.steps] == ["decide_whether_the", "deploy", "tell_the_user"]
    assert len([s for s in workflow.steps if s in runs]) == 1
    (path,) = [i for i in workflow.input if i.name not in ("request",)]
    assert not path.required  # one example deploys the current folder


def _kinds(root: Path, files: dict[str, str]) -> dict[str, list[str]]:
    plan = analyze(build_inventory(write_tree(root, files)))
    return {p.name: [type(s).__name__[0] for s in p.steps] for p in plan.pipelines}


def test_the_reviewers_workflow_cases(tmp_path: Path) -> None:
    """A reviewer's second read of the workflow changes: a call with another value is a call
    of its own (`--action close --id 42` after `--action list`); a tip that says to run a
    program again is no workflow; a Japanese step list (結果を確認する) is steps, not names;
    a guide linked as `./references/x.md` is read."""
    tickets = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--action')\n"
    tickets += "p.add_argument('--id')\np.parse_args()\n"
    got = _kinds(
        tmp_path / "api",
        {
            "SKILL.md": "---\nname: api\ndescription: Manage tickets.\n---\n# T\n\n## Workflow\n\n"
            "1. List open tickets:\n   ```bash\n   python3 scripts/tickets.py --action list\n"
            "   ```\n2. Pick the ticket the user means\n3. Close it:\n   ```bash\n"
            "   python3 scripts/tickets.py --action close --id 42\n   ```\n",
            "scripts/tickets.py": tickets,
        },
    )
    assert got["api"] == ["C", "L", "C"]
    fetch = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('url')\np.parse_args()\n"
    )
    got = _kinds(
        tmp_path / "fetch",
        {
            "SKILL.md": "---\nname: fetch\ndescription: Fetch pages.\n---\n# F\n\n## Usage\n\n"
            "```bash\npython3 scripts/fetch.py https://example.org\n```\n\n## Tips\n\n"
            "1. If you get a timeout, run `scripts/fetch.py` again later\n"
            "2. Sites behind a login cannot be fetched\n",
            "scripts/fetch.py": fetch,
        },
    )
    assert list(got.values()) == [["C"]]
    check = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--input')\n"
    got = _kinds(
        tmp_path / "ja",
        {
            "SKILL.md": "---\nname: ja\ndescription: 検査する。\n---\n# 検査\n\n## 手順\n\n"
            "1. `scripts/check.py` を実行する\n2. 結果を確認する\n3. 問題を修正する\n\n"
            "```bash\npython3 scripts/check.py --input a.md\n```\n",
            "scripts/check.py": check + "p.parse_args()\n",
        },
    )
    assert ["C", "L"] in got.values()
    got = _kinds(
        tmp_path / "guide",
        {
            "SKILL.md": "---\nname: guide\ndescription: Write posts.\n---\n# P\n\n## Workflow\n\n"
            "1. Gather facts:\n   ```bash\n   python3 scripts/facts.py --input x\n   ```\n"
            "2. Write the post following [the guide](./references/style.md)\n",
            "scripts/facts.py": check + "p.parse_args()\n",
            "references/style.md": "# Style\n",
        },
    )
    assert got["guide"] == ["C", "C", "L"]  # facts, read_guides, the post


AUDIT_PY = (
    "import argparse\np = argparse.ArgumentParser()\np.add_argument('--file', required=True)\n"
    "p.add_argument('--monitor', action='store_true')\np.parse_args()\n"
)
AUDIT = {
    "SKILL.md": "---\nname: audit\ndescription: Audit a dataset.\n---\n# Audit\n\n"
    "## Entry Points\n\n### Mode 1 — Full Audit (New Dataset)\n\n"
    "Use when the user brings a dataset nobody has assessed yet.\n\n"
    "1. **Profile** — Run `profile.py` to get shape and types; it does not modify the file\n"
    "2. **Missing Values** — Run `missing.py` to classify missingness\n"
    "3. **Score & Report** — Assign a quality score and produce the remediation plan\n\n"
    "### Mode 3 — Monitoring\n\n1. Generate thresholds from `profile.py --monitor`\n"
    "2. Schedule the checks\n\n## Tools\n\n```bash\npython3 scripts/profile.py --file data.csv\n"
    "python3 scripts/missing.py --file data.csv\n```\n",
    "scripts/profile.py": AUDIT_PY,
    "scripts/missing.py": AUDIT_PY,
}


def test_each_step_saying_to_run_a_program_runs_it_and_the_model_sees_every_output(
    tmp_path: Path,
) -> None:
    """data-quality-auditor (round 21): only the first "Run `x.py`" step ran its program (as
    a prose mention showed it, with --monitor); the model was told to "run" the others, and
    saw only the last output.  A program named like a standard module gets a step name that
    is not one."""
    plan = analyze(build_inventory(write_tree(tmp_path / "audit", AUDIT)))
    audit = plan.pipeline("full-audit")
    assert audit is not None
    assert [s.type for s in audit.steps] == ["code", "code", "llm"]
    profile, missing, review = audit.steps
    assert isinstance(profile, CodeStep) and isinstance(missing, CodeStep)
    assert (profile.program, missing.program) == ("scripts/profile.py", "scripts/missing.py")
    assert all(a.flag != "--monitor" for a in profile.args)
    assert "{{run_profile.output}}" in review.prompt and "{{missing.output}}" in review.prompt
    # steps/profile.py would hide Python's profile module: the pipeline was dropped for it
    assert profile.name == "run_profile"
    assert "brings a dataset nobody has assessed yet" in audit.triggers  # its own words


ANALYZE_PY = "import sys, json\nprint(json.dumps({'fields': [sys.argv[1]]}))\n"
CHARTS_MD = (
    "---\nname: charts\ndescription: Make charts from data.\n---\n# Charts\n\n"
    "## Primary Workflow: Data Upload → Chart Explorer\n\n"
    "Execute this sequence when user uploads data without specifying chart type:\n\n"
    "### 1. Analyze Data Structure\n\n```bash\n"
    "python /mnt/skills/charts/scripts/analyze.py /mnt/user-data/uploads/<filename>\n```\n\n"
    "### 2. Select Meaningful Charts\n\nPick five charts the data supports.\n\n"
    "## {several}\n\n### 1. Profile\n\n```bash\npython scripts/analyze.py data.csv\n```\n\n"
    "### 2. Review\n\nRead the profile.\n"
)


def test_numbered_sub_headings_of_one_workflow_are_its_steps(tmp_path: Path) -> None:
    """charting-vega-lite (round 21): "### 1. Analyze Data Structure" under "## Primary
    Workflow: ..." was no workflow, so no pipeline ever made a chart; its command's
    `uploads/<filename>` was read as a redirection from the file `filename>`.  "Key
    Workflows" over numbered sub-headings lists several tasks, not the steps of one."""
    files = {
        "SKILL.md": CHARTS_MD.format(several="Key Workflows"),
        "scripts/analyze.py": ANALYZE_PY,
    }
    plan = analyze(build_inventory(write_tree(tmp_path / "charts", files)))
    explorer = plan.pipeline("data-upload-chart-explorer")
    assert explorer is not None
    assert [s.type for s in explorer.steps] == ["code", "llm"]
    run = explorer.steps[0]
    assert isinstance(run, CodeStep) and run.stdin is None
    assert len([i for i in explorer.input if i.required]) == 1  # the uploaded file
    assert explorer.description == "Data Upload → Chart Explorer"  # not "Execute this ..."
    assert not any(len(p.steps) > 1 for p in plan.pipelines if p is not explorer)


def test_a_step_forbidding_a_program_does_not_run_it(tmp_path: Path) -> None:
    """A second read: "3. Never run `purge.py` without confirmation" ran purge every time."""
    files = {
        **AUDIT,
        "SKILL.md": AUDIT["SKILL.md"]
        .replace(
            "3. **Score & Report**", "3. Never run `purge.py` without confirmation\n4. **Score"
        )
        .replace("```\n", "python3 scripts/purge.py --file data.csv\n```\n"),
        "scripts/purge.py": AUDIT_PY,
    }
    plan = analyze(build_inventory(write_tree(tmp_path / "audit", files)))
    audit = plan.pipeline("full-audit")
    assert audit is not None
    programs = [s.program for s in audit.steps if isinstance(s, CodeStep)]
    assert "scripts/purge.py" not in programs and len(programs) == 2


def test_numbered_alternatives_under_usage_are_no_workflow(tmp_path: Path) -> None:
    """A second read: "## Usage" over "### 1. Summarize a CSV", "### 2. Compare two CSVs",
    "### 3. Review the numbers" made one pipeline needing every file of both."""
    md = (
        "---\nname: csv\ndescription: Analyze CSV files.\n---\n# CSV\n\n## Usage\n\n"
        "### 1. Summarize a CSV\n\n```bash\npython3 scripts/profile.py --file data.csv\n```\n\n"
        "### 2. Compare Two CSV Files\n\n```bash\npython3 scripts/missing.py --file old.csv\n"
        "```\n\n### 3. Review the Numbers\n\nRead what the tools printed.\n"
    )
    files = {"SKILL.md": md, "scripts/profile.py": AUDIT_PY, "scripts/missing.py": AUDIT_PY}
    plan = analyze(build_inventory(write_tree(tmp_path / "csv", files)))
    assert plan.pipelines and all(len(p.steps) == 1 for p in plan.pipelines)


def test_an_option_before_the_subcommand_is_the_programs(tmp_path: Path) -> None:
    """A second read: `logs.py --verbose scan server.log` (--verbose on the parent parser)
    was taken for a flag the program does not declare, and the workflow was dropped."""
    logs = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--verbose', "
        "action='store_true')\nsub = p.add_subparsers(dest='cmd')\nscan = sub.add_parser('scan')\n"
        "scan.add_argument('file')\np.parse_args()\n"
    )
    md = (
        "---\nname: logs\ndescription: Find errors in logs.\n---\n# Logs\n\n## Workflow\n\n"
        "### Step 1: Scan the Log\n\n```bash\npython3 scripts/logs.py --verbose scan server.log\n"
        "```\n\n### Step 2: Explain the Errors\n\nTell the user what caused each error.\n"
    )
    plan = analyze(
        build_inventory(write_tree(tmp_path / "logs", {"SKILL.md": md, "scripts/logs.py": logs}))
    )
    assert any([s.type for s in p.steps] == ["code", "llm"] for p in plan.pipelines)


REVIEW = (
    "---\nname: code-review\ndescription: Review a pull request. Use when the user asks for a "
    "code review of a diff.\n---\n# Code review\n\n1. Read the diff.\n2. Look for bugs.\n"
    "3. Write the review.\n\n## Output Format\n\n```markdown\n# Review of {title}\n## Summary\n"
    "## Findings\n### [Finding 1]\n## Verdict\n```\n"
)


def test_a_documented_report_format_is_the_answers_schema_and_checks(tmp_path: Path) -> None:
    """Rounds 22-24's judges: "replace the {result: string} schemas".  A skill that shows its
    report's sections gets an answer {"report": Markdown} and a check per section; the
    placeholders ("{title}", "[Finding 1]") are none; the sample answer passes the checks."""
    plan = analyze(build_inventory(write_tree(tmp_path / "s", {"SKILL.md": REVIEW})))
    (pipeline,) = plan.pipelines
    (step,) = pipeline.steps
    assert isinstance(step, LlmStep) and step.schema is not None
    assert list(step.schema["properties"]) == ["report"]
    checks = [r for r in step.rules if isinstance(r, dict)]
    assert len(checks) == 3  # Summary, Findings, Verdict
    sample = step.schema["properties"]["report"]["examples"][0]
    assert all(re.search(c["pattern"], sample) for c in checks)
    assert not re.search(checks[0]["pattern"], "## Findings\n## Verdict")  # it can fail
    without = REVIEW.split("## Output Format")[0]
    plan = analyze(build_inventory(write_tree(tmp_path / "t", {"SKILL.md": without})))
    assert list(plan.pipelines[0].steps[0].schema["properties"]) == ["result"]


def test_a_report_sections_title_is_matched_as_written(tmp_path: Path) -> None:
    """A title with the characters of a regular expression ("Cost ($)+", "a|b") is checked as
    its text, and a sentence set as a heading is no section."""
    skill = REVIEW.replace("## Verdict\n", "## Cost ($)+\n## a|b\n## " + "word " * 40 + "\n")
    plan = analyze(build_inventory(write_tree(tmp_path / "s", {"SKILL.md": skill})))
    step = plan.pipelines[0].steps[0]
    assert isinstance(step, LlmStep)
    checks = [r["pattern"] for r in step.rules if isinstance(r, dict)]
    assert len(checks) == 4  # Summary, Findings, Cost ($)+, a|b
    assert re.search(checks[2], "## Cost ($)+\n") and not re.search(checks[2], "## Cost $$\n")
    assert not re.search(checks[3], "## a\n")


HEAD_REVIEW = REVIEW.split("## Output Format")[0]


@pytest.mark.parametrize(
    ("section", "titles"),
    [  # the reviewer's second read
        ("## Output\n\n```markdown\n## Summary\n## Verdict\n```\n", []),  # a bare "Output"
        (  # a program's output, shown
            "## Output Format\n\nThe script prints a Markdown report:\n\n```markdown\n"
            "# Dependency audit\n## Outdated packages\n## Vulnerable packages\n```\n",
            [],
        ),
        (  # a script's comments are no headings
            "## Output Format\n\n```\n# Fetch the data first\ncurl -s x.json > d.json\n"
            "# Then render the chart\npython3 render.py d.json\n```\n",
            [],
        ),
        (  # alternatives: no single format
            "## Output Format\n\nFor a bug:\n\n```markdown\n## Cause\n## Fix\n```\n\n"
            "For a feature:\n\n```markdown\n## Goal\n## Design\n```\n",
            [],
        ),
        (  # emphasis, a closing hash run, a section the report may leave out
            "## Output Format\n\n```markdown\n## **Summary** ##\n## Risks\n"
            "## Breaking changes (if any)\n```\n",
            ["Summary", "Risks"],
        ),
    ],
)
def test_which_blocks_are_a_report_format(tmp_path: Path, section: str, titles: list) -> None:
    from skill2app.converter.analyzers.report_format import report_format, report_rules

    inventory = build_inventory(write_tree(tmp_path / "s", {"SKILL.md": HEAD_REVIEW + section}))
    form = report_format(inventory.skill)
    assert (list(form.headings) if form else []) == titles
    if form:
        rules = report_rules(form)
        assert re.search(rules[0]["pattern"], "## **Summary**\n")  # copied with its emphasis
        assert "Summary" in rules[0]["message"]


def test_a_heading_of_many_spaces_is_read_in_linear_time() -> None:
    """The reviewer's: a lazy title before a run of spaces was cubic (8,000 spaces: 420 s)."""
    from skill2app.converter.analyzers.report_format import _headings

    assert _headings("# x" + " " * 200_000 + "y\n## b") == ["x y", "b"]


@pytest.mark.parametrize(
    ("sentence", "gated"),
    [
        ("只有用户明确要求修改源文件元数据时，才运行 `scripts/apply.py`。", True),
        ("Run `scripts/apply.py` only after the user confirms the plan.", True),
        ("`scripts/apply.py` requires explicit approval before it writes.", True),
        ("Run `scripts/apply.py` to write the metadata.", False),
        ("Ask the user for approval. Then run `scripts/apply.py`.", False),  # another sentence
        # the reviewer's second read: a program named before "if", and checks, not approvals
        ("Only run `scripts/apply.py` if the user explicitly asks.", True),
        ("`scripts/apply.py` requires permission to read the source folder.", False),
        ("运行 `scripts/apply.py` 前需要确认输入文件存在。", False),
        ("`scripts/apply.py` 需要授权令牌。", False),
        ("ファイルの存在を確認してから `scripts/apply.py` を実行。", False),
        ("Wait until confirmation emails arrive, then run `scripts/apply.py`.", False),
        # a dry run named in one clause, the approval of another command in the next
        ("先运行 `python scripts/apply.py clean` 查看候选；确认后才使用 `clean --apply`。", False),
        # list items are pieces of their own
        (
            "- `scripts/apply.py` writes the files\n- the cleaner (requires user confirmation)",
            False,
        ),
    ],
)
def test_a_program_run_only_with_approval_is_left_to_skill_mode(
    tmp_path: Path, sentence: str, gated: bool
) -> None:
    """tool-document-summarizer (round 25's judge gave 1): the heuristic made write-back
    pipelines a request could run with no stop for the approval the skill asks.  A program a
    sentence of SKILL.md says runs only with approval is left to Skill mode, with the reason;
    the others still get their pipelines."""
    skill = (
        "---\nname: s\ndescription: Summarise documents.\n---\n# S\n\n"
        "Extract text:\n\n```bash\npython3 scripts/extract.py doc.pdf\n```\n\n"
        f"## Write-back\n\n{sentence}\n\n```bash\npython3 scripts/apply.py meta.json\n```\n"
    )
    program = "import sys\nprint(sys.argv)\n"
    files = {"SKILL.md": skill, "scripts/extract.py": program, "scripts/apply.py": program}
    plan = analyze(build_inventory(write_tree(tmp_path / "s", files)))
    run = {s.program for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)}
    assert "scripts/extract.py" in run
    assert ("scripts/apply.py" not in run) == gated
    kept = [k for k in plan.skill_mode if k.topic == "scripts/apply.py"]
    assert bool(kept and "approval" in kept[0].reason) == gated


def test_steps_naming_a_program_left_for_approval_are_still_the_method(tmp_path: Path) -> None:
    """tool-document-summarizer: its Procedure runs the write-back program, which the skill
    runs only with approval; that program leaving to Skill mode must not take the method
    pipeline with it (a numbered list that runs a program is no method otherwise)."""
    skill = (
        "---\nname: s\ndescription: Summarise documents. Use when the user asks to summarise "
        "a report.\n---\n# S\n\n## Procedure\n\n1. Read the documents.\n"
        "2. Summarise each one with its sources.\n"
        "3. Write back with `python3 scripts/apply.py meta.json` when asked.\n\n"
        "## Write-back\n\nOnly run `scripts/apply.py` if the user explicitly asks.\n\n"
        "## Extract\n\n```bash\npython3 scripts/extract.py doc.pdf\n```\n"
    )
    program = "import sys\nprint(sys.argv)\n"
    files = {"SKILL.md": skill, "scripts/apply.py": program, "scripts/extract.py": program}
    plan = analyze(build_inventory(write_tree(tmp_path / "s", files)))
    steps = [s for p in plan.pipelines for s in p.steps]
    assert not any(isinstance(s, CodeStep) and s.program == "scripts/apply.py" for s in steps)
    assert any(isinstance(s, LlmStep) and "Summarise each one" in s.prompt for s in steps)


CLEANER_PY = """import argparse, json
parser = argparse.ArgumentParser(description="Find stale temporary files.")
parser.add_argument("--root", default=".", help="Folder to scan")
parser.add_argument("--max-age", default="7d", help="Age threshold")
parser.add_argument("--apply", action="store_true", help="Delete what was found")
args = parser.parse_args()
print(json.dumps({"candidates": [], "applied": args.apply}))
"""


def test_a_flag_the_skill_adds_only_after_approval_is_never_passed(tmp_path: Path) -> None:
    """mentat-dream-cycle (round 30, judged 2): "`garbage_collector.py` 默认只预览，只有用户确认
    最终清单后才允许增加 `--apply`"; the heuristic's pipeline took `apply=true` and deleted
    files with no list and no stop.  The flag leaves; the preview stays a pipeline."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: tidy\ndescription: 清理临时文件。\n---\n# Tidy\n\n"
            "## 预览清理\n\n`scripts/cleaner.py` 默认只预览，只有用户确认最终清单后才允许增加 "
            "`--apply`。\n\n```bash\npython3 scripts/cleaner.py --root /tmp/x --max-age 3d\n"
            "python3 scripts/cleaner.py --root /tmp/x --apply\n```\n",
            "scripts/cleaner.py": CLEANER_PY,
        },
    )
    plan = analyze(build_inventory(root))
    steps = [s for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)]
    assert any(s.program == "scripts/cleaner.py" for s in steps)  # the preview runs
    assert not [a for s in steps for a in s.args if a.flag == "--apply"]
    assert not [i for p in plan.pipelines for i in p.input if i.name == "apply"]
    assert any(k.topic == "scripts/cleaner.py --apply" for k in plan.skill_mode)


DRIVE_JS = """const args = process.argv.slice(2);
function get(name) { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; }
const action = get('--action');
const confirmDelete = args.includes('--confirm-delete');
const folder = get('--folder-token');
const token = get('--file-token');
const out = get('--output-path');
if (action === 'list') console.log(JSON.stringify({items: [], folder}));
else if (action === 'download') console.log(JSON.stringify({token, out}));
else if (action === 'delete')
  console.log(JSON.stringify(confirmDelete ? {deleted: token} : {error: 'confirmation_required'}));
"""


def test_commands_listed_under_bold_labels_and_a_flag_added_once_confirmed(
    tmp_path: Path,
) -> None:
    """feishu-drive (FRESH41): its actions are set out as "- **列出文件夹内容**" above each
    block, no heading each: the pipelines were described "List", "Download" with English
    triggers in a Chinese skill; and "得到明确口头确认后，再追加 `--confirm-delete`" names no
    program (drive.js and its twin drive.mjs have the flag): the delete pipeline passed it
    from an input."""
    skill = "---\nname: drive\ndescription: 访问飞书云盘。\n---\n# drive\n\n## 命令\n\n"
    skill += "- **列出文件夹内容**\n\n```bash\nnode ./drive.js --action list --folder-token T\n"
    skill += "```\n\n"
    skill += "- **下载文件**\n\n保存到本地：\n\n```bash\nnode ./drive.js --action download "
    skill += "--file-token F --output-path a.docx\n```\n\n- **删除文件（异步任务）**\n\n"
    skill += "须先查看文件信息，向用户展示并得到**明确口头确认**后，"
    skill += "再追加 `--confirm-delete` 执行删除。\n\n"
    skill += "```bash\nnode ./drive.js --action delete --file-token F --confirm-delete\n```\n"
    root = write_tree(tmp_path, {"SKILL.md": skill, "drive.js": DRIVE_JS, "drive.mjs": DRIVE_JS})
    plan = analyze(build_inventory(root))
    described = {p.name: p.description for p in plan.pipelines}
    assert "列出文件夹内容" in described.values() and "下载文件" in described.values()
    listing = next(p for p in plan.pipelines if p.description == "列出文件夹内容")
    assert "列出文件夹内容" in listing.triggers
    steps = [s for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)]
    assert any("delete" in str(s.to_dict()) for s in steps)  # the delete path still previews
    assert not [a for s in steps for a in s.args if a.flag == "--confirm-delete"]
    assert any(k.topic == "drive.js --confirm-delete" for k in plan.skill_mode)


def test_a_switch_named_in_another_section_gates_nothing(tmp_path: Path) -> None:
    """The reviewer's: "add `--force` only after the user confirms" about a git push names
    no program; sync.py's own --force (re-download) in another section stays."""
    sync = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--repo')\n"
        "p.add_argument('--force', action='store_true')\np.parse_args()\n"
    )
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: s\ndescription: Sync.\n---\n# S\n\n## Sync\n\n"
            "```bash\npython scripts/sync.py --repo R --force\n```\n\n## Publishing\n\n"
            "Commit and push with git. If the push is rejected, add `--force` only after the "
            "user confirms.\n",
            "scripts/sync.py": sync,
        },
    )
    plan = analyze(build_inventory(root))
    assert not any("--force" in k.topic for k in plan.skill_mode)


def test_one_word_bold_labels_and_comments_in_blocks(tmp_path: Path) -> None:
    """The reviewer's: "**Good:**"/"**Bad:**" above examples named every pipeline "Good"; a
    `# comment` inside a block cut the section and shifted the labels."""
    cal = (
        "import argparse\np = argparse.ArgumentParser(description='Manage calendar events.')\n"
        "p.add_argument('--action', choices=['create', 'list'])\np.add_argument('--title')\n"
        "p.parse_args()\n"
    )
    skill = "---\nname: cal\ndescription: Calendar.\n---\n# Cal\n\n## Commands\n\n"
    for label, action in (("Good:", "create"), ("Bad:", "list")):
        skill += f"**{label}**\n\n```bash\npython scripts/cal.py --action {action}\n```\n\n"
    skill += "## More\n\n"
    for label, action in (("Add an event", "create"), ("Show the events", "list")):
        skill += f"- **{label}**\n\n```bash\n# needs a token\n"
        skill += f"python scripts/cal.py --action {action} --title T\n```\n\n"
    root = write_tree(tmp_path, {"SKILL.md": skill, "scripts/cal.py": cal})
    described = {p.description.split(" — ")[0] for p in analyze(build_inventory(root)).pipelines}
    assert not described & {"Good", "Bad", "Needs a token"}
    assert {"Add an event", "Show the events"} <= described


PUBLISH_PY = """import argparse
parser = argparse.ArgumentParser(description="Publish the post.")
parser.add_argument("--dry-run", action="store_true", help="Preview only")
parser.add_argument("--channel", default="blog", help="Where to post")
parser.add_argument("--root", default=".", help="Folder")
parser.add_argument("--apply", action="store_true", help="Really do it")
parser.parse_args()
"""


@pytest.mark.parametrize(
    ("text", "programs", "flags"),
    [
        # a reviewer's: a flag shown in the sentence is not the flag approved
        (
            "Preview with `scripts/publish.py --dry-run`, and run `scripts/publish.py` for "
            "real only after the user confirms.",
            {"scripts/publish.py"},
            set(),
        ),
        (
            "Only run `scripts/publish.py --channel twitter` after the user confirms.",
            {"scripts/publish.py"},
            set(),
        ),
        (  # a check by the user is no approval
            "用户确认文件存在后，运行 `scripts/publish.py`。",
            set(),
            set(),
        ),
        (
            "`scripts/publish.py` 默认只预览，只有用户确认最终清单后才允许增加 `--apply`。",
            set(),
            {("scripts/publish.py", "--apply")},
        ),
    ],
)
def test_only_a_switch_added_after_approval_is_a_gated_flag(
    tmp_path: Path, text: str, programs: set, flags: set
) -> None:
    from skill2app.converter.analyzers.consent import gated_flags, gated_programs

    root = write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: pub\ndescription: Publish posts.\n---\n# Pub\n\n" + text + "\n",
            "scripts/publish.py": PUBLISH_PY,
        },
    )
    inventory = build_inventory(root)
    assert set(gated_programs(inventory)) == programs
    assert set(gated_flags(inventory)) == flags


def test_the_skills_own_template_placeholders_are_no_references(tmp_path: Path) -> None:
    """devcontainer-setup (round 35): SKILL.md's `{{PROJECT_NAME}}` went into the method's
    prompt, the plan check took it for a reference to nothing, and the skill's only pipeline
    was left to Skill mode (the heuristic APP had none: its 1)."""
    files = dict(BUGS)
    files["SKILL.md"] = files["SKILL.md"].replace(
        "2. **Write a failing test** - one test that shows the bug",
        "2. **Write a failing test** - one test named `test_{{BUG_ID}}` that shows the bug",
    )
    inventory = build_inventory(write_tree(tmp_path / "bugs", files))
    plan = analyze(inventory)
    method = plan.pipeline("bugs")
    assert method is not None, plan.skill_mode
    prompt = next(s.prompt for s in method.steps if isinstance(s, LlmStep))
    assert "{ {BUG_ID} }" in prompt and "{{input.request}}" in prompt
    assert check_plan(plan, inventory) == []
