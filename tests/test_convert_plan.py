"""app-convert, first half: the conversion plan, its schema and checks, the heuristic analyzer.

Goldens: tests/golden/convert/<skill>/plan.yaml, regenerated only with UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import copy
import os
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import write_tree

from skill2app.converter.analyzers import default_analyzer, get_analyzer
from skill2app.converter.analyzers.caller import calling_agent
from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.analyzers.when_clauses import use_when_phrases
from skill2app.converter.errors import PlanError, UsageError
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import (
    dump_plan,
    format_path,
    load_plan,
    plan_from_dict,
    plan_to_yaml,
    schema_errors,
)
from skill2app.converter.plan.model import (
    Check,
    CodeStep,
    LlmStep,
    Pipeline,
    Plan,
    Written,
)
from skill2app.converter.plan.samples import sample_inputs
from skill2app.converter.render.checks import constructor_checks

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "skills"
GOLDEN = Path(__file__).resolve().parent / "golden" / "convert"
SKILLS = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").is_file())
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """The heuristic analyzer never touches the network."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


# -- the heuristic plans of the examples ----------------------------------------------------


@pytest.mark.parametrize("skill", SKILLS)
def test_example_plan_golden(skill: str) -> None:
    inventory = build_inventory(EXAMPLES / skill)
    plan = analyze(inventory)
    assert check_plan(plan, inventory) == []
    text = plan_to_yaml(plan)
    golden = GOLDEN / skill / "plan.yaml"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.is_file(), f"missing golden {golden}; run with UPDATE_GOLDEN=1 to create it"
    assert text == golden.read_text(encoding="utf-8")
    assert plan_to_yaml(analyze(build_inventory(EXAMPLES / skill))) == text  # deterministic


@pytest.mark.parametrize("skill", SKILLS)
def test_plan_round_trip(skill: str, tmp_path: Path) -> None:
    inventory = build_inventory(EXAMPLES / skill)
    plan = analyze(inventory)
    dump_plan(plan, tmp_path / "plan.yaml")
    loaded = load_plan(tmp_path / "plan.yaml")
    assert loaded.to_dict() == plan.to_dict()
    assert check_plan(loaded, inventory) == []


def test_yaml_has_no_aliases() -> None:
    schema = {"type": "object"}
    steps = [LlmStep("a", "x", schema=schema), LlmStep("b", "{{a.output}}", schema=schema)]
    plan = Plan("demo", "d", pipelines=[Pipeline("demo", "d", ["t"], [], list(steps))])
    text = plan_to_yaml(plan)
    assert "&id" not in text and "*id" not in text
    assert plan_from_dict(yaml.safe_load(text)).to_dict() == plan.to_dict()


def test_example_plans_in_brief() -> None:
    """The shapes the examples are there to show."""
    plans = {s: analyze(build_inventory(EXAMPLES / s)) for s in SKILLS}
    calendar = plans["team-calendar"]
    assert [p.name for p in calendar.pipelines] == [
        "calendar-create-event",
        "calendar-list-events",
        "calendar-cancel-event",
        "agenda",
    ]
    create = calendar.pipelines[0]
    assert create.steps[0].to_dict()["args"][0] == {"flag": "--action", "value": "create_event"}
    assert calendar.constructor.needed
    assert [(c.kind, c.name) for c in calendar.constructor.checks] == [
        ("binary", "node"),
        ("env", "TEAM_CALENDAR_FILE"),
    ]
    notes = plans["release-notes"].pipelines
    assert [(s.name, s.type) for s in notes[0].steps] == [
        ("collect_commits", "code"),
        ("group_the_commits", "llm"),
        ("render_notes", "code"),
        ("read_the_rendered", "llm"),
    ]
    render = notes[0].steps[2].to_dict()
    assert {"flag": "--input", "from": "group_the_commits.output", "as": "file"} in render["args"]
    prose = plans["tech-writing-zh"]
    assert prose.pipelines[0].triggers == [
        "润色文档",
        "按规范改写",
        "检查中文排版",
        "核对中文排版",
        "帮我检查中文排版",
    ]
    assert prose.language == "zh"
    weekly = plans["weekly-report"].pipelines
    assert [p.triggers[0] for p in weekly] == ["检查日志格式", "统计工时", "导出 CSV"]
    # a "Use when" clause several paths match goes to the one whose subcommand it names
    csv = {p.name: p.triggers for p in plans["csv-report"].pipelines}
    clause = "a quick look at the columns of a CSV file"
    assert [name for name, triggers in csv.items() if clause in triggers] == ["csv-inspect-columns"]


@pytest.mark.parametrize(
    ("description", "phrases"),
    [
        (  # verbs that share one object each get it
            "Use when someone asks to schedule, list or cancel a team event or wants today's "
            "agenda.",
            ["schedule a team event", "list a team event", "cancel a team event", "today's agenda"],
        ),
        (
            "Use when creating, editing or deleting files.",
            ["creating files", "editing files", "deleting files"],
        ),
        (  # a noun of a list stays; a lone word that is the whole clause does not
            "Use for statistics, a filtered extract or a quick look.",
            ["statistics", "a filtered extract", "a quick look"],
        ),
        (  # nouns before a gerund's object are not its verbs
            "Use when the user asks for statistics, charts or exporting data.",
            ["statistics", "charts", "exporting data"],
        ),
        (
            "Use for invoices, receipts or monthly budget reports.",
            ["invoices", "receipts", "monthly budget reports"],
        ),
        ("Use when debugging.", []),
        ("Use when it or a PR is slow.", ["a PR is slow"]),
        (
            "用户要求润色文档、按规范改写或检查中文排版时使用。",
            ["润色文档", "按规范改写", "检查中文排版"],
        ),
    ],
)
def test_use_when_clauses(description: str, phrases: list[str]) -> None:
    assert use_when_phrases(description) == phrases


# -- the heuristic on other shapes ----------------------------------------------------------

SKILL = "---\nname: demo\ndescription: Demo things. Use when the user asks to add notes.\n---\n"


def test_shell_dispatch_and_unshown_paths(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\n## Add a note\n```bash\nbash scripts/notes.sh add "
            '--title "Buy milk"\n```\n## Tidy\nKeep notes short.\n',
            "scripts/notes.sh": (
                '#!/bin/bash\n# Notes in a file.\ncmd="$1"; shift\nwhile [ $# -gt 0 ]; do\n'
                '  case "$1" in\n    --title) title="$2"; shift 2 ;;\n  esac\ndone\n'
                'case "$cmd" in\n  add) echo add ;;\n  rm) echo rm ;;\nesac\n'
            ),
            "scripts/hidden.sh": "#!/bin/bash\necho hi\n",
        },
    )
    inventory = build_inventory(tmp_path)
    plan = analyze(inventory)
    assert check_plan(plan, inventory) == []
    (pipeline,) = plan.pipelines
    assert pipeline.name == "notes-add"
    assert pipeline.triggers == [
        "add a note",
        "add notes",
        "insert a note",
        "insert notes",
        "insert the notes",
    ]
    assert pipeline.steps[0].to_dict() == {
        "name": "add",
        "type": "code",
        "program": "scripts/notes.sh",
        "subcommand": "add",
        "args": [{"flag": "--title", "from": "input.title"}],
        "stdout": "text",
    }
    assert [(i.name, i.required, i.description) for i in pipeline.input] == [
        ("title", True, "e.g. Buy milk")
    ]
    kept = [(k.topic, k.where) for k in plan.skill_mode]
    assert kept == [
        ("Tidy", "SKILL.md:10"),
        ("scripts/notes.sh rm", "scripts/notes.sh"),
        ("scripts/hidden.sh", "scripts/hidden.sh"),
        ("Requests no pipeline matches", ""),
    ]


def test_commands_shown_in_another_file(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\nFor forms, read FORMS.md.\n",
            "FORMS.md": "# Forms\n\nCheck: `python scripts/fields.py <input.pdf> <fields.json>`\n",
            "scripts/fields.py": "import sys\nif __name__ == '__main__':\n    print(sys.argv)\n",
        },
    )
    inventory = build_inventory(tmp_path)
    plan = analyze(inventory)
    assert check_plan(plan, inventory) == []
    (pipeline,) = plan.pipelines
    assert (pipeline.name, pipeline.source) == ("fields", "FORMS.md:3")
    assert [(i.name, i.type, i.required) for i in pipeline.input] == [
        ("input_pdf", "string", True),
        ("fields_json", "string", True),
    ]
    assert [a.to_dict() for a in pipeline.steps[0].args] == [  # type: ignore[union-attr]
        {"from": "input.input_pdf"},
        {"from": "input.fields_json"},
    ]


def test_untidy_skill(tmp_path: Path) -> None:
    """BOM, CRLF, a name that is not ASCII, odd program names, broken and binary files."""
    skill = tmp_path / "s"
    write_tree(
        skill,
        {
            "scripts/脚本.py": (
                "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument('--Mode', dest='Mode', choices=['fast', 'slow'])\np.parse_args()\n"
            ),
            "scripts/broken.py": "def broken(:\n",
            "bin/tool.sh": '#!/bin/sh\ncase "$1" in\n go) echo go;;\n stop) echo stop;;\nesac\n',
        },
    )
    (skill / "SKILL.md").write_bytes(
        "\ufeff---\r\nname: 周报工具\r\ndescription: 整理周报。\r\n---\r\n# 标题\r\n```bash\r\n"
        "python3 scripts/脚本.py --Mode fast\r\npython3 scripts/broken.py\r\n./bin/tool.sh go\r\n"
        "```\r\n".encode()
    )
    (skill / "scripts" / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (skill / "scripts" / "link.py").symlink_to("/etc/hostname")
    inventory = build_inventory(skill)
    plan = analyze(inventory)
    assert check_plan(plan, inventory) == []
    assert plan.app_name == "s"
    assert [(p.name, p.triggers) for p in plan.pipelines] == [
        ("s-1", ["脚本"]),  # never "Run scripts/脚本.py": the program's name in words
        ("broken", ["broken"]),
        ("tool-go", ["tool go"]),
    ]
    assert plan.pipelines[0].input[0].name == "mode"
    assert [(k.topic, k.reason) for k in plan.skill_mode][0] == (
        "bin/tool.sh stop",
        "SKILL.md never shows this action, so its arguments are unknown",
    )
    assert "scripts/link.py" not in [f.path for f in inventory.files]


def test_prose_without_rules_stays_in_skill_mode(tmp_path: Path) -> None:
    write_tree(tmp_path, {"SKILL.md": SKILL + "# Demo\n## Tone\nBe friendly.\n"})
    plan = analyze(build_inventory(tmp_path))
    assert plan.pipelines == []
    assert [k.topic for k in plan.skill_mode] == ["Tone", "Requests no pipeline matches"]


def test_cleanup_means_destructor(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"SKILL.md": SKILL + "# Demo\nAfterwards, clean up the temporary files in /tmp/demo.\n"},
    )
    destructor = analyze(build_inventory(tmp_path)).destructor
    assert destructor.needed
    assert destructor.actions[0].to_dict() == {
        "kind": "custom",
        "description": "Afterwards, clean up the temporary files in /tmp/demo.",
        "where": "SKILL.md:6",
    }


def test_what_real_skills_write_is_read_as_meant(tmp_path: Path) -> None:
    """From real skills (porkbun-dns, bluesky): a numbered "Use when (1) ..., (2) ..." list
    with examples in parentheses; a numbered setup list a person follows once; a script named
    cleanup.py and a "Content Cleanup" section, which are a feature, not a destructor."""
    skill_md = (
        "---\nname: dns\ndescription: DNS tool. Use when (1) managing DNS records (A, AAAA, MX),"
        " (2) listing domains, or (3) bulk exporting records.\n---\n# DNS\n"
        "## Setup\n### API Credentials\n1. Log into your account\n2. Generate an API key\n"
        "3. Configure it:\n```bash\npython scripts/configure.py\n```\n"
        "## Records\n```bash\npython scripts/dns.py list example.com\n```\n"
        "## Content Cleanup\n- `scripts/cleanup.py` - bulk delete old records\n"
        "- **Export Before Delete**: back up data before any cleanup\n"
        "```bash\npython scripts/cleanup.py --before 2023-01-01\n```\n"
    )
    script = "import sys\nif __name__ == '__main__':\n    print(sys.argv)\n"
    write_tree(
        tmp_path,
        {
            "SKILL.md": skill_md,
            "scripts/configure.py": script,
            "scripts/dns.py": script,
            "scripts/cleanup.py": script,
        },
    )
    plan = analyze(build_inventory(tmp_path))
    names = [p.name for p in plan.pipelines]
    assert "api-credentials" not in names  # the setup list is no workflow pipeline
    triggers = {t for p in plan.pipelines for t in p.triggers}
    assert {"managing DNS records", "listing domains", "bulk exporting records"} & triggers
    assert not any("(" in t for t in triggers), triggers
    assert all(p.description not in ("1", "") for p in plan.pipelines)
    assert not plan.destructor.needed


def test_a_usage_line_is_no_description(tmp_path: Path) -> None:
    """pdf skill: docstrings that only say "Usage: x.py [fields.json]"."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL
            + "# Demo\n## Check boxes\nFinds overlapping boxes before a form is filled.\n"
            + "```bash\npython scripts/check.py fields.json\n```\n"
            + "## Render\n```bash\npython scripts/render.py in.pdf\n```\n",
            "scripts/check.py": (
                '"""Usage: check.py [fields.json]"""\nimport sys\nprint(sys.argv)\n'
            ),
            "scripts/render.py": (
                '"""Usage: render.py PDF\n\nRenders each page as a PNG."""\nimport sys\n'
                "print(sys.argv)\n"
            ),
        },
    )
    plan = analyze(build_inventory(tmp_path))
    assert {p.name: p.description for p in plan.pipelines} == {
        "check": "Finds overlapping boxes before a form is filled",
        "render": "Renders each page as a PNG.",
    }


NAMED = {
    "SKILL.md": SKILL + "# Demo\n## Word count\n```bash\nbash scripts/count.sh article.txt\n```\n"
    "## Slow requests\nPipe the log into the slow-request filter; it prints the slow ones.\n"
    "```bash\nbash scripts/slow.sh --ms 500 access.log\n```\n"
    "## Words\n```bash\nbash scripts/words.sh notes/today.md\n```\n"
    "## Greeting\n```bash\npython3 scripts/grüß.py --name Ana\n```\n"
    "## Thumbnails\n```bash\npython3 scripts/thumb.py --width 800 photo.png\n```\n",
    "scripts/count.sh": "#!/usr/bin/env bash\n# 用法: count.sh FILE 输出字数和句子数 (JSON)\n"
    'wc -w "$1"\n',
    "scripts/slow.sh": '#!/usr/bin/env bash\nawk -v ms="$2" \'$NF > ms\' "$3"\n',
    "scripts/words.sh": '#!/usr/bin/env bash\necho "Usage: words.sh FILE - count the words"\n',
    "scripts/grüß.py": (
        '"""Greet someone."""\nimport argparse\np = argparse.ArgumentParser()\n'
        'p.add_argument("--name", required=True)\nprint(p.parse_args().name)\n'
    ),
    "scripts/thumb.py": (
        '"""Make a thumbnail of an image."""\nimport argparse\np = argparse.ArgumentParser()\n'
        'p.add_argument("image")\np.add_argument("--width", type=int, default=640)\n'
        "print(p.parse_args())\n"
    ),
}


def test_names_and_descriptions_come_from_the_skills_words_not_its_examples(
    tmp_path: Path,
) -> None:
    """A positional is named by the usage line (FILE), else by what it is (a file), never
    after the example value (article_txt); a usage line's own words describe the program; a
    sentence goes on past a semicolon; ß is ss; a sample takes the value SKILL.md shows."""
    write_tree(tmp_path, NAMED)
    inventory = build_inventory(tmp_path)
    plan = analyze(inventory)
    assert check_plan(plan, inventory) == []
    got = {
        p.name: (p.description, [i.name for i in p.input], p.steps[0].name) for p in plan.pipelines
    }
    assert got == {
        "count": ("输出字数和句子数 (JSON)", ["file"], "count"),
        "slow": (
            "Pipe the log into the slow-request filter; it prints the slow ones",
            ["ms", "file"],  # `--ms 500 access.log`: the script reads "$2" and "$3"
            "slow",
        ),
        "words": ("Count the words", ["file"], "words"),
        "gruss": ("Greet someone.", ["name"], "gruss"),
        "thumb": ("Make a thumbnail of an image.", ["image", "width"], "thumb"),
    }
    thumb = plan.pipeline("thumb")
    assert thumb is not None
    # photo.png is no file of the skill: a real PNG of that name is made beside the samples
    assert sample_inputs(thumb, []) == {"image": "pipelines/thumb/samples/photo.png", "width": 800}


DROPPED_USES = {
    "SKILL.md": SKILL + "# Flow\n## Shout and count\n\n"
    "1. Upper-case the notes and count the words:\n\n"
    "   ```bash\n   cat notes.txt | python3 scripts/upper.py | python3 scripts/wc.py\n   ```\n\n"
    "2. Tell the user how many words there were, in one sentence.\n\n"
    "## Fetch and count\n\n1. Fetch the page and count:\n\n"
    "   ```bash\n   curl -s https://example.com/p.txt | python3 scripts/wc.py\n   ```\n\n"
    "2. Report the count.\n\n"
    "## Summarise records\n```bash\ncat data.json | python3 scripts/summ.py\n```\n"
    "## Summarise remote records\n```bash\ncurl https://example.com/d.json | "
    "python3 scripts/summ.py\n```\n"
    "## Count the upper-cased words\n```bash\npython3 scripts/upper.py < notes.txt | "
    "python3 scripts/summ.py\n```\n",
    "scripts/upper.py": "import sys\nprint(sys.stdin.read().upper())\n",
    "scripts/wc.py": "import sys\nprint(len(sys.stdin.read().split()))\n",
    "scripts/summ.py": "import json, sys\nprint(json.load(sys.stdin))\n",
}


def test_every_use_no_pipeline_runs_has_one_skill_mode_entry(tmp_path: Path) -> None:
    """QA (flow, textkit): a pipe a workflow pipeline reproduces is no Skill-mode entry; a
    use dropped from a pipeline (curl-fed, or fed by another program outside a workflow) is
    one, named by its section; a description stops at the end of its list item."""
    write_tree(tmp_path, DROPPED_USES)
    inventory = build_inventory(tmp_path)
    plan = analyze(inventory)
    assert check_plan(plan, inventory) == []
    flow = plan.pipelines[0]
    assert (flow.name, flow.description) == (
        "shout-and-count",
        "Upper-case the notes and count the words",
    )
    assert "Upper-case the notes and count the words" in flow.triggers
    assert [p.name for p in plan.pipelines] == ["shout-and-count", "upper", "summ"]
    assert [(k.topic, k.where, k.reason.split(" into it")[0]) for k in plan.skill_mode] == [
        ("Fetch and count", "SKILL.md:21", "SKILL.md pipes the output of `curl -s "
         "https://example.com/p.txt`"),
        ("Summarise remote records", "SKILL.md:32", "SKILL.md pipes the output of `curl "
         "https://example.com/d.json`"),
        ("Count the upper-cased words", "SKILL.md:36", "SKILL.md pipes the output of "
         "`scripts/upper.py`"),
        ("Requests no pipeline matches", "", "the Runner falls back to SKILL.md, which stays "
         "unchanged (APP spec §1, §7 step 3)"),
    ]  # fmt: skip


def test_a_pipe_of_three_programs_runs_in_the_order_of_the_line(tmp_path: Path) -> None:
    """Review: the steps were ordered by program name, so `z | m | a` read a's input from a
    step not yet run and the workflow went to Skill mode."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Flow\n## Fetch and tidy\n\n"
            "1. Fetch, tidy and shorten the page:\n\n   ```bash\n   python3 scripts/z_fetch.py "
            "--url https://example.com | python3 scripts/m_mid.py | python3 scripts/a_last.py"
            "\n   ```\n\n2. Tell the user what the page says, in one sentence.\n",
            "scripts/z_fetch.py": "import sys\nprint(sys.argv)\n",
            "scripts/m_mid.py": "import sys\nprint(sys.stdin.read())\n",
            "scripts/a_last.py": "import sys\nprint(sys.stdin.read()[:10])\n",
        },
    )
    inventory = build_inventory(tmp_path)
    plan = analyze(inventory)
    assert check_plan(plan, inventory) == []
    assert [k.topic for k in plan.skill_mode] == ["Requests no pipeline matches"]
    flow = plan.pipelines[0]
    fed = [getattr(s, "stdin", None) for s in flow.steps]
    assert [(s.name, f.ref if f else None) for s, f in zip(flow.steps, fed, strict=True)] == [
        ("z_fetch", None),
        ("m_mid", "z_fetch.output.stdout"),
        ("a_last", "m_mid.output.stdout"),
        ("tell_the_user", None),
    ]


def test_samples_keep_the_data_skill_md_feeds_exactly(tmp_path: Path) -> None:
    """A JSON object echoed into a program is a value, not a `{placeholder}`; a heredoc's
    body is the sample; a flag value's trailing space survives (QA: all three became
    "example" or lost the space, and --smoke failed on them)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\n## Records\n"
            '```bash\necho \'{"a": 1, "b": 2}\' | python3 scripts/summ.py\n```\n'
            '## Heredoc\n```bash\npython3 scripts/count.py <<EOF\n{"a": 1,\n "b": 2}\nEOF\n```\n'
            '## Prefix\n```bash\npython3 scripts/upper.py --prefix ">> " < notes.txt\n```\n'
            "## Template\n```bash\necho '{input}' | python3 scripts/tpl.py\n```\n",
            "scripts/summ.py": "import json, sys\nprint(json.load(sys.stdin))\n",
            "scripts/count.py": "import sys\nprint(len(sys.stdin.read()))\n",
            "scripts/upper.py": "import argparse, sys\np = argparse.ArgumentParser()\n"
            "p.add_argument('--prefix', default='')\np.parse_args()\n",
            "scripts/tpl.py": "import sys\nprint(sys.stdin.read())\n",
            "notes.txt": "hi\n",
        },
    )
    plan = analyze(build_inventory(tmp_path))
    samples = {p.name: sample_inputs(p, ["notes.txt"]) for p in plan.pipelines}
    assert samples == {
        "summ": {"input_text": '{"a": 1, "b": 2}'},
        "count": {"input_text": '{"a": 1, "b": 2}'},  # JSON: one line, the same value
        "upper": {"prefix": ">> ", "input_file": "notes.txt"},
        "tpl": {"input_text": "example"},  # a placeholder is no sample
    }


def test_a_description_never_ends_in_a_semicolon_or_colon(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\n## Slow requests\nPipe the log into the filter;\n"
            "```bash\nbash scripts/slow.sh --ms 500\n```\n## Fast ones\nTo list the fast ones:\n"
            "```bash\nbash scripts/fast.sh --ms 5\n```\n",
            "scripts/slow.sh": "#!/usr/bin/env bash\necho slow\n",
            "scripts/fast.sh": "#!/usr/bin/env bash\necho fast\n",
        },
    )
    plan = analyze(build_inventory(tmp_path))
    assert [p.description for p in plan.pipelines] == [
        "Pipe the log into the filter",
        "To list the fast ones",
    ]


def test_a_programs_interpreter_is_a_need_of_the_pipelines_running_it(tmp_path: Path) -> None:
    """team-calendar: `node` runs scripts/cal.js (its #! line, its extension), so the check
    applies to the pipeline running it, not only to the one whose shell script calls node;
    a #! line naming another interpreter makes that one a need.  A plan whose check names
    only SKILL.md (an llm plan) is scoped the same way, from the inventory."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\n## List\n```bash\nnode scripts/cal.js --days 3\n```\n"
            "## Agenda\n```bash\nbash scripts/agenda.sh\n```\n"
            "## Fit\n```bash\n./scripts/fit --n 2\n```\n"
            "## Count\n```bash\npython3 tools/count.py x.txt\n```\n",
            "scripts/cal.js": "#!/usr/bin/env node\nconsole.log(process.argv)\n",
            "scripts/agenda.sh": '#!/usr/bin/env bash\nnode "$(dirname "$0")/cal.js" --days 1\n',
            "scripts/fit": "#!/usr/bin/env julia\nprintln(ARGS)\n",
            "tools/count.py": "import sys\nif __name__ == '__main__':\n    print(sys.argv)\n",
        },
    )
    inventory = build_inventory(tmp_path)
    plan = analyze(inventory)
    assert [p.name for p in plan.pipelines] == ["cal", "agenda", "fit", "count"]
    scoped = {
        c["name"]: (c["where"], c.get("pipelines")) for c in constructor_checks(plan, inventory)
    }
    assert scoped == {
        "node": (["SKILL.md:8", "scripts/agenda.sh:2", "scripts/cal.js:1"], ["agenda", "cal"]),
        "julia": (["SKILL.md:16", "scripts/fit:1"], ["fit"]),
    }
    plan.constructor.checks = [Check("binary", "node", where=["SKILL.md:8"])]
    assert constructor_checks(plan, inventory)[0]["pipelines"] == ["agenda", "cal"]


def test_a_program_run_directly_runs_with_what_its_shebang_names(tmp_path: Path) -> None:
    """`./scripts/dn.ts` with `#!/usr/bin/env deno` got `npx tsx` (from its extension) and an
    npx check: for a program SKILL.md runs directly, the #! line wins over the extension."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\n## Deno\n```bash\n./scripts/dn.ts --x 1\n```\n"
            "## Tsx\n```bash\nnpx tsx scripts/tx.ts\n```\n"
            "## Plain\n```bash\n./scripts/plain.ts\n```\n",
            "scripts/dn.ts": "#!/usr/bin/env -S deno run --allow-read\nconsole.log(1)\n",
            "scripts/tx.ts": "#!/usr/bin/env deno\nconsole.log(2)\n",  # SKILL.md says tsx
            "scripts/plain.ts": "console.log(3)\n",
        },
    )
    for name in ("dn.ts", "plain.ts"):
        (tmp_path / "scripts" / name).chmod(0o755)
    inventory = build_inventory(tmp_path)
    assert {p.path: p.interpreter for p in inventory.programs} == {
        "scripts/dn.ts": "deno run --allow-read",
        "scripts/plain.ts": "npx tsx",
        "scripts/tx.ts": "npx tsx",  # as SKILL.md runs it: npx fetches tsx
    }
    scoped = {
        c["name"]: (c["where"], c.get("pipelines"))
        for c in constructor_checks(analyze(inventory), inventory)
    }
    assert scoped == {
        "deno": (["SKILL.md:8", "scripts/dn.ts:1"], ["dn"]),
        "npx": (["SKILL.md:12", "SKILL.md:16", "scripts/plain.ts", "scripts/tx.ts"],
                ["plain", "tx"]),
    }  # fmt: skip


def test_a_pip_install_and_the_import_it_gives_are_one_check(tmp_path: Path) -> None:
    """`pip install PyYAML` + `import yaml` was a global PyYAML check (stopping the bash
    pipeline that never imports it) and a scoped yaml one: one check now, scoped to the
    pipelines importing it; a package no program imports stays global."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL
            + "# Demo\n## Sync\n```bash\npython3 scripts/sync.py --dest out\n```\n"
            "## Report\n```bash\nbash scripts/report.sh\n```\n"
            "## Setup\n```bash\npip install PyYAML Pillow python_dateutil Requests rich\n```\n",
            "scripts/sync.py": "import argparse\nimport yaml\nimport PIL.Image\n"
            "import dateutil\nimport requests\n"
            "p = argparse.ArgumentParser()\np.add_argument('--dest')\np.parse_args()\n",
            "scripts/report.sh": "#!/usr/bin/env bash\necho report\n",
        },
    )
    inventory = build_inventory(tmp_path)
    found = {
        c["name"]: (c["where"], c.get("pipelines"), c.get("install"))
        for c in constructor_checks(analyze(inventory), inventory)
    }
    assert found == {
        "PIL": (["SKILL.md:16", "scripts/sync.py:3"], ["sync"], "Pillow"),
        "dateutil": (["SKILL.md:16", "scripts/sync.py:4"], ["sync"], "python-dateutil"),
        "requests": (["SKILL.md:16", "scripts/sync.py:5"], ["sync"], None),
        "rich": (["SKILL.md:16"], None, None),
        "yaml": (["SKILL.md:16", "scripts/sync.py:2"], ["sync"], "PyYAML"),
    }
    plan = analyze(inventory)  # an llm plan may name the distribution: scoped the same way
    plan.constructor.checks = [Check("python-package", "PyYAML", where=["SKILL.md:16"])]
    assert constructor_checks(plan, inventory)[0]["pipelines"] == ["sync"]


def test_a_written_step_importing_a_module_of_the_skill_needs_what_the_module_needs(
    tmp_path: Path,
) -> None:
    """slack-gif-creator: the written steps import core.gif_builder (imageio) or only
    core.validators (Pillow); checking a GIF must not stop because imageio is missing."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\nMake GIFs with `core/gif_builder.py`.\n",
            "core/__init__.py": "",
            "core/gif_builder.py": "import imageio\n",
            "core/validators.py": "from PIL import Image\n",
        },
    )
    inventory = build_inventory(tmp_path)

    def written(name: str, module: str) -> Pipeline:
        source = f"import json\nfrom {module} import x\nprint(json.dumps({{'output': 1}}))\n"
        step = CodeStep("run", "", write=Written("python", source))
        return Pipeline(name, name, steps=[step])

    plan = Plan("demo", "demo", analyzer="host")
    plan.pipelines = [written("make", "core.gif_builder"), written("check", "core.validators")]
    plan.constructor.needed = True
    plan.constructor.checks = [
        Check("python-package", "imageio", where=["core/gif_builder.py:1"]),
        Check("python-package", "PIL", where=["core/validators.py:1"]),
    ]
    scoped = {c["name"]: c.get("pipelines") for c in constructor_checks(plan, inventory)}
    assert scoped == {"imageio": ["make"], "PIL": ["check"]}


def test_an_env_var_is_the_need_of_the_written_steps_reading_it(tmp_path: Path) -> None:
    """notion-sdk (round 5): NOTION_TOKEN, read by the skill's check script and by the
    analyst's written steps, was checked only before the pipeline running that script."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": SKILL + "# Demo\n```bash\npython3 scripts/check.py\n```\n",
            "scripts/check.py": "import os\nprint(os.environ['NOTION_TOKEN'])\n",
        },
    )
    inventory = build_inventory(tmp_path)
    reads = "import os, json\nprint(json.dumps({'t': os.environ.get('NOTION_TOKEN')}))\n"
    other = "import json\nprint(json.dumps({'t': 'MY_NOTION_TOKEN_X'}))\n"
    plan = Plan("demo", "demo", analyzer="host")
    plan.pipelines = [
        Pipeline("check", "check", steps=[CodeStep("run", "scripts/check.py")]),
        Pipeline("create", "create", steps=[CodeStep("run", "", write=Written("python", reads))]),
        Pipeline("other", "other", steps=[CodeStep("run", "", write=Written("python", other))]),
    ]
    plan.constructor.needed = True
    plan.constructor.checks = [Check("env", "NOTION_TOKEN", where=["SKILL.md:23"])]
    assert constructor_checks(plan, inventory)[0]["pipelines"] == ["check", "create"]


def test_the_calling_agent_is_found_by_the_variables_agents_set_for_their_commands() -> None:
    assert calling_agent({}) is None
    assert calling_agent({"CLAUDECODE": "1"}) == "Claude Code (CLAUDECODE)"
    assert calling_agent({"CODEX_THREAD_ID": "019d1afb"}) == "Codex (CODEX_THREAD_ID)"
    assert calling_agent({"CURSOR_AGENT": "1"}) == "Cursor's agent (CURSOR_AGENT)"
    assert calling_agent({"AI_AGENT": "devin@1\x1b[31m"}) == "devin@1[31m (AI_AGENT)"
    assert calling_agent({"AGENT": "amp", "CLAUDECODE": "0"}) == "amp (AGENT)"
    # switched off, or an editor's terminal a person types in: no agent
    assert calling_agent({"CLAUDECODE": "0", "AGENT": "false"}) is None
    assert calling_agent({"CURSOR_TRACE_ID": "abc", "TERM_PROGRAM": "vscode"}) is None
    assert calling_agent({"AGENT": "ci-runner-7"}) is None  # a common word, not an agent's


def test_analyzer_registry() -> None:
    assert get_analyzer("heuristic") is analyze
    assert default_analyzer(has_api_key=False) == "heuristic"
    assert default_analyzer(has_api_key=True) == "llm"
    assert default_analyzer(has_api_key=False, agent="Codex (CODEX_THREAD_ID)") == "host"
    assert default_analyzer(has_api_key=True, agent="Codex (CODEX_THREAD_ID)") == "llm"
    from skill2app.converter.analyzers.llm import analyze as analyze_llm

    assert get_analyzer("llm") is analyze_llm
    with pytest.raises(UsageError, match="unknown analyzer"):
        get_analyzer("magic")


# -- the schema rejects bad plans ------------------------------------------------------------


def _valid() -> dict[str, Any]:
    return analyze(build_inventory(EXAMPLES / "release-notes")).to_dict()


def _set(path: str, value: Any) -> Any:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node: Any = data
        for part in parents:
            node = node[part]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value

    return edit


_DELETE = object()


@pytest.mark.parametrize(
    ("edit", "expected_error"),
    [
        pytest.param(_set("plan_version", 3), "plan_version: 3 is not one of [1, 2]", id="version"),
        pytest.param(
            _set("app.name", "Bad_Name"), "app.name: 'Bad_Name' does not match", id="app-name"
        ),
        pytest.param(
            _set("pipelines.0.name", "release notes"),
            "pipelines[0].name: 'release notes' does not match",
            id="pipeline-name",
        ),
        pytest.param(
            _set("pipelines.0.steps.0.name", "Collect-Commits"),
            "pipelines[0].steps[0].name: 'Collect-Commits' does not match",
            id="step-name",
        ),
        pytest.param(
            _set("pipelines.0.input.0.type", "str"),
            "pipelines[0].input[0].type: 'str' is not one of",
            id="input-type",
        ),
        pytest.param(
            _set("pipelines.0.steps.0.args.0.value", "."),
            "pipelines[0].steps[0].args[0]: {'flag': '--repo', 'from': 'input.repo', "
            "'value': '.'} should not be valid",
            id="value-and-from",
        ),
        pytest.param(
            _set("pipelines.0.steps.0.args.0.from", "repo"),
            "pipelines[0].steps[0].args[0].from: 'repo' is not input.<name> or steps.<step>",
            id="bad-reference",
        ),
        pytest.param(
            _set("pipelines.0.steps.1.model", "huge"),
            "pipelines[0].steps[1].model: 'huge' is not one of",
            id="tier",
        ),
        pytest.param(
            _set("pipelines.0.steps.1.shell", "rm -rf /"),
            "pipelines[0].steps[1]: Additional properties are not allowed ('shell'",
            id="unknown-key",
        ),
        pytest.param(
            _set("pipelines.0.steps", []),
            "pipelines[0].steps: [] should be non-empty",
            id="no-steps",
        ),
        pytest.param(
            _set("pipelines.0.steps.0.program", _DELETE),
            "pipelines[0].steps[0]: 'program' is a required property",
            id="no-program",
        ),
        pytest.param(
            _set("constructor.checks.0.kind", "magic"),
            "constructor.checks[0].kind: 'magic' is not one of",
            id="check-kind",
        ),
        pytest.param(
            _set("skill_mode", None), "skill_mode: None is not of type 'array'", id="skill-mode"
        ),
        pytest.param(
            _set("pipelines.0.triggers", ["a", "a"]),
            "pipelines[0].triggers: ['a', 'a'] has non-unique elements",
            id="triggers",
        ),
    ],
)
def test_schema_rejects(edit: Any, expected_error: str) -> None:
    data = _valid()
    assert schema_errors(data) == []
    edit(data)
    messages = [f"{format_path(p)}: {m}" for p, m in schema_errors(data)]
    assert any(m.startswith(expected_error) for m in messages), messages


# -- check_plan: the plan against the skill ------------------------------------------------


def test_a_file_check_spelled_from_the_programs_folder_is_named_from_the_skills(
    tmp_path: Path,
) -> None:
    """azure-provision (round 45): a host checked `../../../lib/browser-forge.mjs`, the path
    as scripts/mint-sp.mjs imports it; the constructor runs the check from the skill's
    folder, where that is one level too high, so every pipeline was blocked where the
    library really was."""
    skill = tmp_path / "plugin" / "skills" / "azure"
    write_tree(
        tmp_path / "plugin",
        {
            "lib/forge.mjs": "export const go = () => 1;\n",
            "skills/azure/SKILL.md": "---\nname: azure\ndescription: Mint.\n---\n# A\n\n"
            "```bash\nnode scripts/mint.mjs\n```\n",
            "skills/azure/scripts/mint.mjs": 'import { go } from "../../../lib/forge.mjs";\n'
            "console.log(go());\n",
        },
    )
    inventory = build_inventory(skill)
    plan = analyze(inventory)
    plan.constructor.needed = True
    wrong = Check("file", "../../../lib/forge.mjs", where=["scripts/mint.mjs:1"])
    plan.constructor.checks = [wrong]
    assert check_plan(plan, inventory) == [
        "constructor.checks[0].name: '../../../lib/forge.mjs' is the path as scripts/mint.mjs "
        "writes it, from its own folder; a check's path is from the skill's folder: "
        "'../../lib/forge.mjs'"
    ]
    plan.constructor.checks = [Check("file", "../../lib/forge.mjs", where=wrong.where)]
    assert check_plan(plan, inventory) == []


def _calendar_plan() -> dict[str, Any]:
    return analyze(build_inventory(EXAMPLES / "team-calendar")).to_dict()


def _args(index: int) -> str:
    return f"pipelines.{index}.steps.0.args"


@pytest.mark.parametrize(
    ("edit", "expected_error"),
    [
        pytest.param(
            _set("pipelines.0.steps.0.program", "scripts/nope.js"),
            "pipelines[0].steps[0].program: the skill has no program 'scripts/nope.js'",
            id="unknown-program",
        ),
        pytest.param(
            _set(_args(0) + ".1.flag", "--subject"),
            "pipelines[0].steps[0].args[1]: scripts/calendar.js has no flag --subject",
            id="unknown-flag",
        ),
        pytest.param(
            _set(_args(0) + ".0.value", "move_event"),
            "pipelines[0].steps[0].args[0]: 'move_event' is not one of --action",
            id="value-not-a-choice",
        ),
        pytest.param(
            _set(_args(0) + ".1.from", "input.title"),
            "pipelines[0].steps[0].args[1]: 'input.title' names no declared input",
            id="undeclared-input",
        ),
        pytest.param(
            _set(_args(0) + ".1.from", "create_event.output"),
            "pipelines[0].steps[0].args[1]: 'create_event.output' names no earlier step",
            id="not-earlier",
        ),
        pytest.param(
            _set("pipelines.1.name", "calendar-create-event"),
            "pipelines[1].name: 'calendar-create-event' is also pipeline 0",
            id="duplicate-pipeline",
        ),
        pytest.param(
            _set("pipelines.0.output", "nothing"),
            "pipelines[0].output: no step named 'nothing'",
            id="output",
        ),
        pytest.param(
            _set("pipelines.1.triggers", ["Create an event"]),
            "pipelines[1].triggers: 'Create an event' also routes to calendar-create-event",
            id="shared-trigger",
        ),
        pytest.param(
            _set("pipelines.3.input.0.enum", ["today", "month"]),
            "pipelines[3].steps[0].args[0]: input range allows 'month', which --range "
            "does not accept",
            id="enum-wider-than-choices",
        ),
        pytest.param(
            _set("pipelines.3.input.0.default", "month"),
            "pipelines[3].input[0].default: 'month' is not one of its enum",
            id="default-not-in-enum",
        ),
        pytest.param(
            _set("pipelines.0.input.2.default", "soon"),
            "pipelines[0].input[2].default: 'soon' is not of type integer",
            id="default-type",
        ),
        pytest.param(
            _set("constructor.checks", []),
            "constructor: needed is true but there are no checks",
            id="constructor-without-checks",
        ),
    ],
)
def test_check_plan_finds(edit: Any, expected_error: str) -> None:
    inventory = build_inventory(EXAMPLES / "team-calendar")
    data = _calendar_plan()
    edit(data)
    errors = check_plan(plan_from_dict(data), inventory)
    assert any(e.startswith(expected_error) for e in errors), errors


@pytest.mark.parametrize(
    ("skill", "edit", "expected_error"),
    [
        pytest.param(
            "csv-report",
            _set("pipelines.2.steps.0.subcommand", "head"),
            "pipelines[2].steps[0].subcommand: tools/csv_inspect.py has no subcommand 'head'",
            id="unknown-subcommand",
        ),
        pytest.param(
            "csv-report",
            _set("pipelines.2.steps.0.subcommand", _DELETE),
            "pipelines[2].steps[0].subcommand: tools/csv_inspect.py needs a subcommand",
            id="missing-subcommand",
        ),
        pytest.param(
            "csv-report",
            _set("pipelines.0.steps.0.args", []),
            "pipelines[0].steps[0]: tools/csv_stats.py requires the positional argument(s) path",
            id="missing-positional",
        ),
        pytest.param(
            "weekly-report",
            _set("pipelines.1.steps.0.args.1", {"flag": "--json"}),
            "pipelines[1].steps[0]: worklog.py requires --week",
            id="missing-required",
        ),
        pytest.param(
            "release-notes",
            _set("pipelines.0.steps.1.prompt", "{{input.nope}}"),
            "pipelines[0].steps[1].prompt: 'input.nope' names no declared input",
            id="prompt-reference",
        ),
        pytest.param(
            "release-notes",
            _set("pipelines.0.steps.1.schema", {"type": "objekt"}),
            "pipelines[0].steps[1].schema: not a valid JSON Schema",
            id="llm-schema",
        ),
        pytest.param(
            "release-notes",
            _set("pipelines.0.steps.3.name", "render_notes"),
            "pipelines[0].steps[3]: step name 'render_notes' is used twice",
            id="duplicate-step",
        ),
        pytest.param(
            "release-notes",
            _set("pipelines.0.input.1.enum", [1, 2]),
            "pipelines[0].input[1].enum: 1 is not of type string",
            id="enum-type",
        ),
        pytest.param(
            "csv-report",
            _set("pipelines.0.steps.0.args.3.value", "xml"),
            "pipelines[0].steps[0].args[3]: 'xml' is not one of --format",
            id="format-choice",
        ),
    ],
)
def test_check_plan_other_skills(skill: str, edit: Any, expected_error: str) -> None:
    inventory = build_inventory(EXAMPLES / skill)
    data = analyze(inventory).to_dict()
    edit(data)
    errors = check_plan(plan_from_dict(data), inventory)
    assert any(e.startswith(expected_error) for e in errors), errors


# -- reading plan files --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected_error", "line"),
    [
        pytest.param("plan_version: 1\napp: [\n", "broken YAML", 3, id="broken-yaml"),
        # an attack by hand: an escape in a plan was an internal error (exit 70)
        pytest.param(
            'plan_version: 2\napp: {name: x, description: "a\x1b]0;pwned\x07"}\n',
            "broken YAML: unacceptable character #x001b",
            2,
            id="control-character",
        ),
        pytest.param(
            "- a\n",
            "the plan does not match its schema: (plan): ['a'] is not of type",
            1,
            id="not-a-mapping",
        ),
    ],
)
def test_load_plan_errors(tmp_path: Path, text: str, expected_error: str, line: int) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PlanError) as caught:
        load_plan(path)
    assert caught.value.message.startswith(expected_error)
    assert caught.value.where is not None and caught.value.where.line == line


def test_load_plan_points_at_the_bad_line(tmp_path: Path) -> None:
    data = _calendar_plan()
    data["pipelines"][1]["steps"][0]["args"][1]["from"] = "from"
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(PlanError) as caught:
        load_plan(path)
    error = caught.value
    assert error.errors == [
        "pipelines[1].steps[0].args[1].from: 'from' is not input.<name> or "
        "steps.<step>.output[.<field>] (lowercase names)"
    ]
    assert error.where is not None
    assert path.read_text(encoding="utf-8").split("\n")[error.where.line - 1].strip() == (
        "from: from"
    )
    assert error.exit_code == 3


def test_edited_plan_is_used(tmp_path: Path) -> None:
    """--plan-only writes the plan; a person edits it; the edited plan is what is read."""
    inventory = build_inventory(EXAMPLES / "team-calendar")
    path = tmp_path / "plan.yaml"
    dump_plan(analyze(inventory), path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["pipelines"] = [p for p in data["pipelines"] if p["name"] != "agenda"]
    data["pipelines"][0]["triggers"].append("book a meeting")
    path.write_text(yaml.safe_dump(copy.deepcopy(data), allow_unicode=True), encoding="utf-8")
    plan = load_plan(path)
    assert [p.name for p in plan.pipelines] == [
        "calendar-create-event",
        "calendar-list-events",
        "calendar-cancel-event",
    ]
    assert plan.pipelines[0].triggers[-1] == "book a meeting"
    assert check_plan(plan, inventory) == []


def test_a_program_documented_in_its_own_section_and_in_a_workflow_keeps_its_title(
    tmp_path: Path,
) -> None:
    """The section that documents one program alone names its pipeline, even when a later
    workflow section runs it beside others."""
    skill = write_tree(
        tmp_path / "edits",
        {
            "SKILL.md": "---\nname: edits\ndescription: Edit files safely.\n---\n"
            "## backup.py — Snapshot & Revert\n\n```bash\npython backup.py snapshot f.py\n```\n"
            "## check.py — Integrity Check\n\n```bash\npython check.py f.py\n```\n"
            "## Workflow\n\n```bash\npython backup.py snapshot f.py\npython check.py f.py\n```\n",
            "backup.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('command', choices=['snapshot', 'revert'])\n"
            "p.add_argument('file')\np.parse_args()\n",
            "check.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('file')\np.parse_args()\n",
        },
    )
    plan = analyze(build_inventory(skill))
    triggers = {p.name: p.triggers for p in plan.pipelines}
    assert "backup.py — snapshot & revert" in triggers["backup"]
    assert "check.py — integrity check" in triggers["check"]


# -- data a program reads on stdin ---------------------------------------------------------

GET_PY = (
    '"""Print a field of the JSON read on stdin."""\nimport argparse, json, sys\n'
    "p = argparse.ArgumentParser()\np.add_argument('--path', required=True)\n"
    "a = p.parse_args()\nprint(json.dumps(json.load(sys.stdin)))\n"
)
PIPED = {
    "SKILL.md": "---\nname: piped\ndescription: Read data. Use when reading data.\n---\n"
    "## Get a field\n\n```bash\ncat data.json | python3 tools/get.py --path user.name\n```\n"
    "## Slow lines\n\n```bash\ncat app.log | bash scripts/slow.sh 500\n```\n"
    "## Count\n\n```bash\npython3 tools/count.py < input.txt\n```\n"
    "## Shout\n\n```bash\necho 'hello world' | python3 tools/shout.py\n```\n"
    "## Remote\n\n```bash\ncurl -s https://example.org/log | python3 tools/remote.py\n```\n",
    "tools/get.py": GET_PY,
    "tools/count.py": '"""Count lines on stdin."""\nimport sys\nprint(len(list(sys.stdin)))\n',
    "tools/shout.py": '"""Shout."""\nimport sys\nprint(sys.stdin.read().upper())\n',
    "tools/remote.py": '"""Parse a log."""\nimport sys\nprint(sys.stdin.read())\n',
    "scripts/slow.sh": "#!/bin/sh\n# Lines slower than $1 ms, read on stdin\nawk -v t=$1 '$NF>t'\n",
    "data.json": '{"user": {"name": "Ann"}}\n',
}


def _feeds(plan: Plan) -> dict[str, Any]:
    """Pipeline -> (its stdin mapping, the input it comes from) for each code step."""
    found: dict[str, Any] = {}
    for pipeline in plan.pipelines:
        for step in pipeline.steps:
            if isinstance(step, CodeStep) and step.stdin is not None:
                name = step.stdin.ref.removeprefix("input.")
                item = next((i for i in pipeline.input if i.name == name), None)
                shown = (item.required, item.description) if item else None
                found[pipeline.name] = (step.stdin.to_dict(), shown)
    return found


def test_data_piped_or_redirected_into_a_program_becomes_a_stdin_input(tmp_path: Path) -> None:
    inventory = build_inventory(write_tree(tmp_path / "piped", PIPED))
    plan = analyze(inventory)
    file_feed = {"from": "input.input_file", "as": "file"}
    assert _feeds(plan) == {
        "get": (
            file_feed,
            (True, "File whose content the program reads on stdin (e.g. data.json)"),
        ),
        "slow": (file_feed, (True, "File whose content the program reads on stdin (e.g. app.log)")),
        "count": (
            file_feed,
            (True, "File whose content the program reads on stdin (e.g. input.txt)"),
        ),
        "shout": (
            {"from": "input.input_text", "as": "text"},
            (True, "Text the program reads on stdin (e.g. hello world)"),
        ),
    }
    assert check_plan(plan, inventory) == []
    assert load_plan_text(plan_to_yaml(plan), tmp_path).to_dict() == plan.to_dict()


def load_plan_text(text: str, tmp_path: Path) -> Plan:
    path = tmp_path / "plan.yaml"
    path.write_text(text, encoding="utf-8")
    return load_plan(path)


def test_data_from_another_commands_output_stays_in_skill_mode(tmp_path: Path) -> None:
    plan = analyze(build_inventory(write_tree(tmp_path / "piped", PIPED)))
    assert "remote" not in [p.name for p in plan.pipelines]
    kept = next(k for k in plan.skill_mode if k.topic == "tools/remote.py")
    assert kept.to_dict() == {
        "topic": "tools/remote.py",
        "reason": "SKILL.md pipes the output of `curl -s https://example.org/log` into it; a "
        "pipeline cannot reproduce that, and the program would run on no data",
        "where": "SKILL.md:28",
    }


def test_a_program_shown_with_and_without_a_pipe_keeps_the_plain_use(tmp_path: Path) -> None:
    skill = write_tree(
        tmp_path / "mixed",
        {
            "SKILL.md": "---\nname: mixed\ndescription: Get data.\n---\n```bash\n"
            "git show HEAD:data.json | python3 tools/get.py --path a\n"
            "python3 tools/get.py --path b < data.json\n```\n",
            "tools/get.py": GET_PY,
        },
    )
    plan = analyze(build_inventory(skill))
    assert _feeds(plan) == {
        "get": (
            {"from": "input.input_file", "as": "file"},
            (True, "File whose content the program reads on stdin (e.g. data.json)"),
        )
    }


def test_a_workflow_pipes_one_program_into_the_next(tmp_path: Path) -> None:
    skill = write_tree(
        tmp_path / "flow",
        {
            "SKILL.md": "---\nname: flow\ndescription: Review logs.\n---\n## Review\n\n"
            "1. Run `python3 tools/fetch.py --since 2d | python3 tools/fmt.py` for the lines.\n"
            "2. Summarise what went wrong.\n\n## Remote review\n\n"
            "1. Run `curl -s https://x.org/log | python3 tools/fmt.py`.\n"
            "2. Summarise what went wrong there.\n",
            "tools/fetch.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--since')\np.add_argument('--format', choices=['json', 'text'])\n"
            "p.parse_args()\nprint('a\\nb')\n",
            "tools/fmt.py": "import sys\nprint(sys.stdin.read().upper())\n",
        },
    )
    inventory = build_inventory(skill)
    plan = analyze(inventory)
    review = plan.pipeline("review")
    assert review is not None
    fetch, fmt = review.steps[0], review.steps[1]
    assert isinstance(fetch, CodeStep) and isinstance(fmt, CodeStep)
    assert (fetch.program, fetch.stdout, [a.flag for a in fetch.args]) == (
        "tools/fetch.py",
        "text",  # no --format json: fmt reads what it prints, as documented
        ["--since"],
    )
    assert fmt.stdin is not None and fmt.stdin.to_dict() == {
        "from": "fetch.output.stdout",
        "as": "text",
    }
    assert plan.pipeline("remote-review") is None
    kept = {k.topic: k.where for k in plan.skill_mode}
    assert kept["Remote review"] == "SKILL.md:12"  # where the pipe is
    assert check_plan(plan, inventory) == []


@pytest.mark.parametrize(
    ("edit", "expected_error"),
    [
        pytest.param(
            lambda step, _inputs: setattr(step, "stdin", None),
            "pipelines[0].steps[0]: SKILL.md feeds tools/get.py its data on stdin (SKILL.md:8), "
            "but the step gives it none: add stdin: {from: input.<name>, as: file}",
            id="missing-stdin",
        ),
        pytest.param(
            lambda step, _inputs: setattr(step.stdin, "ref", "input.nope"),
            "pipelines[0].steps[0].stdin: 'input.nope' names no declared input",
            id="unknown-input",
        ),
        pytest.param(
            lambda _step, inputs: setattr(inputs[-1], "type", "object"),
            "pipelines[0].steps[0].stdin: as file needs the path of a file, but input "
            "input_file is object: make it a string, or use as: text",
            id="file-not-a-string",
        ),
    ],
)
def test_check_plan_finds_stdin_problems(tmp_path: Path, edit: Any, expected_error: str) -> None:
    inventory = build_inventory(write_tree(tmp_path / "piped", PIPED))
    plan = analyze(inventory)
    pipeline = plan.pipelines[0]
    step = pipeline.steps[0]
    assert isinstance(step, CodeStep) and step.program == "tools/get.py"
    edit(step, pipeline.input)
    assert expected_error in check_plan(plan, inventory)


def test_check_plan_asks_for_skill_mode_when_no_step_can_feed_the_program(tmp_path: Path) -> None:
    inventory = build_inventory(write_tree(tmp_path / "piped", PIPED))
    step = CodeStep("remote", "tools/remote.py")
    plan = Plan("piped", "Read data.", pipelines=[Pipeline("remote", "Parse", ["p"], [], [step])])
    assert check_plan(plan, inventory) == [
        "pipelines[0].steps[0]: SKILL.md feeds tools/remote.py its data on stdin (SKILL.md:28), "
        "but the step gives it none: feed it the output of an earlier step (stdin), or leave "
        "this path to Skill mode"
    ]


def test_the_schema_rejects_a_bad_stdin_mapping() -> None:
    data = _valid()
    data["pipelines"][0]["steps"][0]["stdin"] = {"from": "input.repo", "as": "path"}
    messages = [f"{format_path(p)}: {m}" for p, m in schema_errors(data)]
    assert messages == ["pipelines[0].steps[0].stdin.as: 'path' is not one of ['file', 'text']"]


def test_a_workflow_feeds_a_file_an_llm_step_saves_to_the_next_program(tmp_path: Path) -> None:
    skill = write_tree(
        tmp_path / "saved",
        {
            "SKILL.md": "---\nname: saved\ndescription: Apply a plan.\n---\n## Apply\n\n"
            "1. Write the changes as `plan.json`.\n"
            "2. Run `python3 tools/apply.py < plan.json`.\n",
            "tools/apply.py": "import json, sys\nprint(json.load(sys.stdin))\n",
        },
    )
    inventory = build_inventory(skill)
    plan = analyze(inventory)
    pipeline = plan.pipeline("apply")
    assert pipeline is not None
    llm, code = pipeline.steps
    assert isinstance(code, CodeStep) and code.stdin is not None
    assert code.stdin.to_dict() == {"from": f"{llm.name}.output", "as": "text"}
    assert [i.name for i in pipeline.input] == ["request"]
    assert check_plan(plan, inventory) == []


def test_an_array_inputs_enum_is_what_each_item_may_be() -> None:
    """``nargs="+", choices=[...]``: the analyst's ``enum`` on an array input lists the values
    of its items; a default or sample item outside it is an error, a scalar enum is not."""
    inventory = build_inventory(EXAMPLES / "release-notes")
    data = analyze(inventory).to_dict()
    tools = {"name": "tools", "type": "array", "required": False, "enum": ["ruff", "semgrep"]}
    data["pipelines"][0]["input"].append({**tools, "default": ["ruff"]})
    assert not [e for e in check_plan(plan_from_dict(data), inventory) if "input[" in e]
    data["pipelines"][0]["input"][-1]["default"] = ["ruff", "bandit"]
    errors = check_plan(plan_from_dict(data), inventory)
    assert any("default: ['ruff', 'bandit'] is not one of its enum" in e for e in errors), errors


def _only_pipeline(root: Path, files: dict[str, Any]) -> tuple[Pipeline, list[str]]:
    """The one pipeline the heuristic makes of a skill, and its steps' kinds."""
    (pipeline,) = analyze(build_inventory(write_tree(root, files))).pipelines
    return pipeline, [type(step).__name__ for step in pipeline.steps]


def test_a_workflow_step_naming_a_program_runs_it_there(tmp_path: Path) -> None:
    """workspace-count-tokens (round 12): "1. `scripts/count.py` を実行する" was an llm step,
    and the command of the example block under the list ran last, after the steps that were
    to present its report."""
    pipeline, kinds = _only_pipeline(
        tmp_path / "count",
        {
            "SKILL.md": "---\nname: count\ndescription: トークンを数える。\n---\n## 手順\n\n"
            "1. `scripts/count.py` を実行する\n2. 標準出力のレポートをユーザーへ示す\n"
            "3. 概算である旨を一言添える\n\n```bash\npython3 scripts/count.py --root .\n```\n",
            "scripts/count.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--root', action='append')\np.parse_args()\nprint('ok')\n",
        },
    )
    assert kinds == ["CodeStep", "LlmStep"]  # steps 2 and 3: one llm step doing both
    assert pipeline.steps[0].program == "scripts/count.py"


def test_a_step_that_only_names_a_program_keeps_no_command(tmp_path: Path) -> None:
    """A reviewer's case: "1. Make sure the dependencies of `scripts/report.py` are
    installed" runs nothing; the command stays with step 2, whose block shows it."""
    _pipeline, kinds = _only_pipeline(
        tmp_path / "report",
        {
            "SKILL.md": "---\nname: report\ndescription: Reports.\n---\n## Steps\n\n"
            "1. Make sure the dependencies of `scripts/report.py` are installed\n"
            "2. Generate the report:\n\n   ```bash\n   python3 scripts/report.py --input d.csv\n"
            "   ```\n\n3. Summarise the report for the user\n",
            "scripts/report.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--input')\np.parse_args()\nprint('ok')\n",
        },
    )
    assert kinds == ["LlmStep", "CodeStep", "LlmStep"]


def test_a_workflows_steps_heading_takes_its_parents_title(tmp_path: Path) -> None:
    """ai-text-humanizer (round 19): "## Workflow 1: AI臭診断" / "### Steps" and
    "## Workflow 3: Before/After比較" / "### Steps" made two pipelines named after the skill,
    with the same description and no trigger of their own."""
    skill = write_tree(
        tmp_path / "ja",
        {
            "SKILL.md": "---\nname: humanizer\ndescription: 日本語テキストのAI臭を検出する。\n---\n"
            "## Workflow 1: AI臭診断\n\n"
            "テキストを受け取り、パターンの検出とスコアリングを行う。\n\n"
            "### Steps\n\n1. **テキスト受領** — ファイルを受け取る\n"
            "2. `python3 scripts/detect.py <input_file>` を実行する\n"
            "3. レポートを作成する\n\n"
            "## Workflow 3: Before/After比較\n\n元文とリライト文を並べて比較する。\n\n"
            "### Steps\n\n1. **元文のスコア確認** — 結果を使用する\n"
            "2. `python3 scripts/detect.py <rewritten_file>` を実行する\n"
            "3. 差分を説明する\n",
            "scripts/detect.py": "import sys\nprint(open(sys.argv[1]).read()[:10])\n",
        },
    )
    plan = analyze(build_inventory(skill))
    named = {p.name: p for p in plan.pipelines}
    assert set(named) == {"humanizer", "before-after"}  # "AI臭診断" leaves only "ai" for a name
    assert (
        named["humanizer"].description == "テキストを受け取り、パターンの検出とスコアリングを行う"
    )
    assert named["before-after"].description == "元文とリライト文を並べて比較する"
    assert "Before/After比較して" in named["before-after"].triggers


def test_every_llm_step_of_a_workflow_sees_its_inputs_and_the_models_earlier_answer(
    tmp_path: Path,
) -> None:
    """personal-write-humanizer (round 20): the rewrite step saw only the checker's findings,
    never the text to rewrite nor the model's first answer, so it could rewrite nothing."""
    skill = write_tree(
        tmp_path / "rw",
        {
            "SKILL.md": "---\nname: rw\ndescription: Rewrite text so it reads as written by a "
            "person.\n---\n## Workflow\n\n1. Decide the audience and the tone to keep.\n"
            "2. Run `python3 scripts/check.py <text_or_file>` to find machine-like phrases.\n"
            "3. Rewrite the text, keeping every number and name.\n",
            "scripts/check.py": "import sys\nprint(sys.argv[1][:20])\n",
        },
    )
    plan = analyze(build_inventory(skill))
    (pipeline,) = plan.pipelines
    first, *_code, last = pipeline.steps
    assert isinstance(first, LlmStep) and isinstance(last, LlmStep)
    assert "{{input.text_or_file}}" in first.prompt
    assert "{{input.text_or_file}}" in last.prompt
    assert f"{{{{{first.name}.output}}}}" in last.prompt


def test_a_snippet_under_a_numbered_step_is_named_by_its_task(tmp_path: Path) -> None:
    """get-available-resources (round 20): "### Step 2: Read and Apply Recommendations" over a
    Python snippet made the pipeline step-2-read-and-apply, triggered by "step 2: read ..."."""
    skill = write_tree(
        tmp_path / "res",
        {
            "SKILL.md": "---\nname: res\ndescription: Detect resources.\n---\n"
            "### Step 2: Read and Apply Recommendations\n\n```python\nimport json\n"
            "with open('.claude_resources.json') as f:\n    data = json.load(f)\n"
            "print(data['cpu'])\n```\n",
        },
    )
    plan = analyze(build_inventory(skill))
    names = [p.name for p in plan.pipelines]
    assert names and not any(n.startswith("step-2") for n in names)
    assert not any(t.lower().startswith("step 2") for p in plan.pipelines for t in p.triggers)
