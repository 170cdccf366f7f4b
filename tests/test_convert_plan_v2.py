"""Plan version 2: written steps, data flow between steps, exit codes with meaning, llm steps
with real schemas and rules, samples — checked, rendered and run by app-run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import invoke, write_tree

from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import load_plan, plan_from_dict, plan_to_yaml
from skill2app.converter.render.render import render_app
from skill2app.converter.render.write import write_app

pytestmark = pytest.mark.usefixtures("runtime_env")

FIND_PY = '''\
"""Find the words of a list in a text file: JSON {"found": [...]}; exit 1 when some are found
(like grep), 0 when none, 2 on an error."""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("--word", action="append", required=True)
args = parser.parse_args()
try:
    text = open(args.file, encoding="utf-8").read()
except OSError as exc:
    print(f"cannot read {args.file}: {exc.strerror}", file=sys.stderr)
    sys.exit(2)
found = [w for w in args.word if w in text]
print(json.dumps({"found": found}))
sys.exit(1 if found else 0)
'''

SKILL = {
    "SKILL.md": (
        "---\nname: words\ndescription: Find banned words in a text. Use when checking a draft."
        "\n---\n\n# Words\n\n```bash\npython3 scripts/find.py draft.txt --word foo --word bar"
        "\n```\n"
    ),
    "scripts/find.py": FIND_PY,
}

LIST_WORDS = """\
import json
import sys

payload = json.load(sys.stdin)
words = [w.strip() for w in payload["input"]["banned"].split(",") if w.strip()]
print(json.dumps({"output": {"words": words, "count": len(words)}}))
"""


def plan_data(**changes: Any) -> dict[str, Any]:
    check_step: dict[str, Any] = {
        "name": "find",
        "type": "code",
        "program": "scripts/find.py",
        "args": [
            {"from": "input.file"},
            {"flag": "--word", "from": "steps.list_words.output.words"},
        ],
        "stdout": "json",
        "ok_exit_codes": [0, 1],
        "output": {"found": "array"},
    }
    pipeline = {
        "name": "find-banned-words",
        "description": "Tell which banned words a text file contains, and how to reword them",
        "triggers": ["which banned words are in draft.txt", "check my draft for banned words"],
        "input": [
            {"name": "file", "type": "string", "required": True, "description": "Text file"},
            {
                "name": "banned",
                "type": "string",
                "required": False,
                "default": "foo,bar",
                "description": "Comma-separated words",
            },
        ],
        "steps": [
            {
                "name": "list_words",
                "type": "code",
                "write": {"language": "python", "source": LIST_WORDS},
                "output": {"words": "array", "count": "integer"},
            },
            check_step,
            {
                "name": "advise",
                "type": "llm",
                "model": "lite",
                "prompt": "Found: {{steps.find.output.found}}. Suggest rewordings.",
                "schema": {
                    "type": "object",
                    "required": ["advice"],
                    "properties": {
                        "advice": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["word", "instead"],
                                "properties": {
                                    "word": {"type": "string"},
                                    "instead": {"type": "string"},
                                },
                            },
                        }
                    },
                },
                "rules": [
                    {
                        "check": "subset",
                        "field": "advice[].word",
                        "of": "steps.find.output.found",
                        "message": "advise only on words that were found",
                    },
                    {"check": "count", "field": "advice", "equals": "steps.find.output.found"},
                    "Be kind.",
                ],
            },
        ],
        "sample": {
            "input": {"file": "draft.txt"},
            "answers": {
                "advise": {
                    "advice": [
                        {"word": "foo", "instead": "thing"},
                        {"word": "bar", "instead": "pub"},
                    ]
                }
            },
        },
    }
    pipeline.update(changes)
    return {
        "plan_version": 2,
        "app": {"name": "words", "description": "Find banned words in a text."},
        "analyzer": "host",
        "pipelines": [pipeline],
        "constructor": {"needed": False, "checks": []},
        "destructor": {"needed": False, "actions": []},
        "skill_mode": [],
    }


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "words", SKILL)
    (root / "draft.txt").write_text("a foo walks into a bar\n", encoding="utf-8")
    return root


def test_a_v2_plan_fits_the_skill(skill: Path) -> None:
    assert check_plan(plan_from_dict(plan_data()), build_inventory(skill)) == []


def test_it_round_trips_through_yaml(skill: Path, tmp_path: Path) -> None:
    plan = plan_from_dict(plan_data())
    path = tmp_path / "plan.yaml"
    path.write_text(plan_to_yaml(plan), encoding="utf-8")
    assert load_plan(path).to_dict() == plan.to_dict()


def edit(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    node: Any = data["pipelines"][0]
    *parents, last = path.split(".")
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if value is DELETE:
        del node[int(last) if last.isdigit() else last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return data


DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "expected_error"),
    [
        (
            "steps.1.args.1.from",
            "steps.list_words.output.names",
            "pipelines[0].steps[1].args[1]: 'list_words.output.names': step list_words has no "
            "output field 'names' (declared: count, words)",
        ),
        (
            "steps.1.args.1.from",
            "steps.advise.output.advice",
            "pipelines[0].steps[1].args[1]: 'advise.output.advice' names no earlier step "
            "(earlier: list_words)",
        ),
        (
            "steps.0.output",
            DELETE,
            "pipelines[0].steps[1].args[1]: 'list_words.output.words': step list_words has no "
            "output field 'words' (declared: none)",
        ),
        (
            "steps.2.prompt",
            "Found: {{steps.find.output.lines}}",
            "pipelines[0].steps[2].prompt: 'find.output.lines': step find has no output field "
            "'lines' (declared: exit_code, found, stderr)",
        ),
        (
            "steps.2.rules.0.of",
            "steps.find.output.missing",
            "pipelines[0].steps[2].rules[0].of: 'find.output.missing': step find has no output "
            "field 'missing' (declared: exit_code, found, stderr)",
        ),
        (
            "steps.2.rules.0.field",
            "advice[].term",
            "pipelines[0].steps[2].rules[0]: 'advice[].term': the schema of step advise has no "
            "field 'term' (has: instead, word)",
        ),
        (
            "steps.2.rules.1",
            {"check": "pattern", "field": "advice[].word"},
            "pipelines[0].steps[2].rules[1]: check pattern needs pattern",
        ),
        (
            "steps.0.write.source",
            "import json\nprint(json.dumps({'output': 1})\n",
            "pipelines[0].steps[0].write.source: line 2: does not compile: '(' was never closed",
        ),
        (  # round 36: error paths calling a fail() nobody defined
            "steps.0.write.source",
            "import json, sys\n\ndef main():\n    if not sys.argv:\n        fail('no words')\n"
            "    print(json.dumps({'output': {'words': [], 'count': 0}}))\n",
            "pipelines[0].steps[0].write.source: line 5: name 'fail' is never defined (a "
            "NameError when that line runs): define it, import it or fix its spelling",
        ),
        (  # round 35: a .mjs step calling require(), which every run crashed on
            "steps.0.write",
            {"language": "node", "source": "import fs from 'fs';\nconst p = require('path');\n"},
            "pipelines[0].steps[0].write.source: line 2: require() in an ES module (it uses "
            "import or export, so it runs as .mjs, where require is not defined): import it "
            "instead",
        ),
        (
            "steps.1.ok_exit_codes",
            [1, 2],
            "pipelines[0].steps[1].ok_exit_codes: list 0 too (success is a result as well)",
        ),
        (
            "sample.input",
            {"banned": "x"},
            "pipelines[0].sample.input: required input 'file' has no sample value",
        ),
        (
            "sample.answers.advise",
            {"advice": "none"},
            "pipelines[0].sample.answers.advise: 'none' is not of type 'array'",
        ),
    ],
)
def test_the_plan_check_finds(skill: Path, path: str, value: Any, expected_error: str) -> None:
    errors = check_plan(plan_from_dict(edit(plan_data(), path, value)), build_inventory(skill))
    assert expected_error in errors, errors


def render_into(skill: Path, data: dict[str, Any]) -> Path:
    files = render_app(plan_from_dict(data), build_inventory(skill))
    return write_app(skill, files, out=skill.parent / "app", force=False).root


def test_render_writes_the_written_step_and_long_form_inputs(skill: Path) -> None:
    app = render_into(skill, plan_data())
    base = app / "pipelines/find-banned-words"
    written = (base / "steps/list_words.py").read_text(encoding="utf-8")
    assert written.startswith("#!/usr/bin/env python3\n# Step `list_words`")
    assert written.endswith(LIST_WORDS)
    doc = yaml.safe_load((base / "pipeline.yaml").read_text(encoding="utf-8"))
    assert doc["steps"][0] == {
        "name": "list_words", "type": "code", "command": "python3 steps/list_words.py"
    }  # fmt: skip
    assert doc["input"] == {
        "file": {"type": "string", "description": "Text file"},
        "banned": {"type": "string", "default": "foo,bar", "description": "Comma-separated words"},
    }
    assert doc["steps"][2]["prompt"].startswith("Found: {{find.output.found}}")
    validate = (base / "steps/validate_advise.py").read_text(encoding="utf-8")
    assert "Be kind." not in validate  # prose stays in the prompt, not a check that cannot fail
    assert json.loads((base / "samples/input.json").read_text()) == {"file": "draft.txt"}


def test_the_rendered_app_runs_through_the_data_flow(skill: Path) -> None:
    app = render_into(skill, plan_data(output="find"))
    assert invoke("check", app).exit_code == 0
    base = app / "pipelines/find-banned-words/samples"
    done = invoke(
        "run", app, "find-banned-words", "-i", f"file={skill / 'draft.txt'}", "--provider",
        "scripted", "--answers", base / "answers.yaml", "--json",
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    # the words the written step listed reached find.py; its exit status 1 is a result
    assert json.loads(done.stdout)["output"] == {
        "found": ["foo", "bar"],
        "exit_code": 1,
        "stderr": "",
    }


def test_an_exit_status_not_listed_still_fails_the_step(skill: Path) -> None:
    app = render_into(skill, plan_data())
    done = invoke("run", app, "find-banned-words", "-i", "file=/nonexistent/draft.txt", "--json")
    assert done.exit_code == 1
    assert "cannot read /nonexistent/draft.txt" in json.dumps(json.loads(done.stdout)["error"])


@pytest.mark.parametrize(
    ("answer", "errors"),
    [
        ({"advice": [{"word": "foo", "instead": "x"}, {"word": "bar", "instead": "y"}]}, []),
        (
            {"advice": [{"word": "baz", "instead": "x"}, {"word": "foo", "instead": "y"}]},
            [
                'advise only on words that were found (output.advice[].word: "baz" is not '
                "among steps.find.output.found)"
            ],
        ),
        (
            {"advice": [{"word": "foo", "instead": "x"}]},
            ["output.advice has 1 items; 2 are expected"],
        ),
    ],
)
def test_the_validate_script_cross_checks_earlier_outputs(
    skill: Path, answer: dict[str, Any], errors: list[str]
) -> None:
    import subprocess
    import sys

    app = render_into(skill, plan_data())
    script = app / "pipelines/find-banned-words/steps/validate_advise.py"
    payload = {
        "output": answer,
        "input": {"file": "draft.txt"},
        "steps": {"find": {"output": {"found": ["foo", "bar"], "exit_code": 1}}},
    }
    done = subprocess.run(
        [sys.executable, str(script)], input=json.dumps(payload), capture_output=True, text=True
    )
    verdict = json.loads(done.stdout)
    assert verdict.get("errors", []) == errors
    assert done.returncode == (1 if errors else 0)


def test_an_object_covers_its_keys_and_a_count_may_be_a_number(skill: Path) -> None:
    """Round 29: values keyed by name were compared whole to the list of names, and a count
    against an earlier step's integer counted that integer as one item: both scripts rejected
    every correct answer."""
    import subprocess
    import sys

    data = plan_data()
    advise = data["pipelines"][0]["steps"][2]
    advise["schema"]["properties"]["values"] = {"type": "object"}
    advise["rules"] = [
        {"check": "covers", "field": "values", "of": "steps.find.output.found"},
        {"check": "count", "field": "advice", "equals": "steps.list_words.output.count"},
        # through a list: one item found is that item, not its two keys (review)
        {"check": "count", "field": "advice[]", "equals": "steps.find.output.found"},
        {"check": "equals", "field": "total", "to": "steps.list_words.output.count"},
    ]
    advise["schema"]["properties"]["total"] = {"type": "integer"}
    advise_answer = {"advice": [{"word": "foo", "instead": "x"}, {"word": "bar", "instead": "y"}]}
    data["pipelines"][0]["sample"]["answers"]["advise"] = advise_answer | {
        "values": {"foo": "x", "bar": "y"}
    }
    assert check_plan(plan_from_dict(data), build_inventory(skill)) == []
    script = render_into(skill, data) / "pipelines/find-banned-words/steps/validate_advise.py"

    def verdict(answer: dict[str, Any]) -> list[str]:
        payload = {
            "output": answer,
            "steps": {
                "list_words": {"output": {"words": ["foo", "bar"], "count": 2}},
                "find": {"output": {"found": ["foo", "bar"], "exit_code": 1}},
            },
        }
        done = subprocess.run(
            [sys.executable, str(script)],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            check=False,
        )
        return json.loads(done.stdout).get("errors", [])

    assert verdict(advise_answer | {"values": {"foo": "x", "bar": "y"}, "total": 2}) == []
    one = {"advice": [{"word": "foo", "instead": "x"}], "values": {"foo": "x", "bar": "y"}}
    assert verdict(one | {"total": 2}) == [
        "output.advice has 1 items; 2 are expected",
        "output.advice[] has 1 items; 2 are expected",
    ]
    assert verdict({"advice": advise_answer["advice"][:1], "values": {"foo": "x"}, "total": 2}) == [
        'output.values: "bar" is missing; it is in steps.find.output.found',
        "output.advice has 1 items; 2 are expected",
        "output.advice[] has 1 items; 2 are expected",
    ]
    # a newcomer's trial: one value each side is shown as that value, not a list of one
    assert verdict(advise_answer | {"values": {"foo": "x", "bar": "y"}, "total": 3}) == [
        "output.total is 3, not steps.list_words.output.count (2)"
    ]


def test_a_version_1_plan_is_still_read(tmp_path: Path) -> None:
    data = plan_data()
    data["plan_version"] = 1
    pipeline = data["pipelines"][0]
    pipeline["steps"] = [
        pipeline["steps"][1]
        | {"args": [{"from": "input.file"}, {"flag": "--word", "value": "foo"}]}
    ]
    del pipeline["steps"][0]["ok_exit_codes"], pipeline["steps"][0]["output"], pipeline["sample"]
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    plan = load_plan(path)
    assert plan.pipelines[0].steps[0].to_dict()["program"] == "scripts/find.py"


def test_a_sample_naming_a_fixture_gets_the_file_and_app_run_test_reads_it(skill: Path) -> None:
    data = plan_data(output="find")
    data["pipelines"][0]["sample"] = {
        "input": {"file": "samples/text.txt", "banned": "export,Friday"},
        "answers": {"advise": {"advice": [{"word": "export", "instead": "release"},
                                          {"word": "Friday", "instead": "end of week"}]}},
    }  # fmt: skip
    app = render_into(skill, data)
    samples = app / "pipelines/find-banned-words/samples"
    assert (samples / "text.txt").read_bytes().startswith(b"Meeting notes")
    assert json.loads((samples / "input.json").read_text()) == {
        "file": "pipelines/find-banned-words/samples/text.txt",
        "banned": "export,Friday",
    }
    done = invoke("test", app, "--update")  # run from anywhere: samples are the APP's
    assert done.exit_code == 0, done.stderr
    expected = json.loads((samples / "expected.json").read_text())
    assert expected == {"found": ["export", "Friday"], "exit_code": 1, "stderr": ""}


@pytest.mark.parametrize(
    "source",
    [
        "import os\nprint(os.sep, __file__, len([x for x in 'ab']))\n",
        "def f(a, *rest, k=1, **kw):\n    global g\n    g = a\n    return g, rest, kw, k\n",
        "try:\n    pass\nexcept OSError as exc:\n    print(exc)\nwith open('x') as fh:\n    fh\n",
        "match 1:\n    case {'a': v, **others}:\n        print(v, others)\n    case [*items]:\n"
        "        print(items)\n",
        "from json import *\nprint(dumps(1))\n",  # a star import: not checked
        "if (n := 3) > 2:\n    print(n)\nclass C:\n    pass\nC()\n",
        "class D(dict):\n    def f(self):\n        return super().keys(), __class__\n",
    ],
)
def test_every_name_a_working_step_reads_is_defined(source: str) -> None:
    from skill2app.converter.plan.names import undefined_names

    assert undefined_names(source) == []


def test_an_input_named_like_a_folder_that_holds_an_id_or_a_link_is_refused(
    skill: Path,
) -> None:
    """Round 47's gdrive-access: the Drive folder's id went to an input named `folder`, which
    app-run makes a path from the caller's folder (<cwd>/1wqqqv...); descriptions that only
    mention ids or links around a real folder pass."""
    data = plan_data()
    folder = {
        "name": "folder",
        "type": "string",
        "required": False,
        "description": "the Drive folder: its link (https://drive.google.com/...) or its ID",
    }
    data["pipelines"][0]["input"].append(folder)  # fmt: skip
    errors = check_plan(plan_from_dict(data), build_inventory(skill))
    assert any("'folder' is named like a local folder" in e and "folder_id" in e for e in errors)
    for fine in (
        "the design folder, holding tokens.json",
        "folder to save the subtitle files (<id>.<lang>.srt) in",
        "the site folder whose URL you want",
        "the playbook folder, used when target is a clause id",
    ):
        folder["description"] = fine
        errors = check_plan(plan_from_dict(data), build_inventory(skill))
        assert not any("named like a local folder" in e for e in errors), fine
    data["analyzer"] = "heuristic"  # the draft's names are the flags'
    folder["description"] = "the Drive folder: its link or its ID"
    assert not any(
        "named like a local" in e for e in check_plan(plan_from_dict(data), build_inventory(skill))
    )
