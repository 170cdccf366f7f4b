"""app-convert, rendering: the generated adapter (argv for every kind of argument, JSON vs text
stdout, exit status), validate scripts from rules, constructor and destructor steps, sample
inputs and answers, and the text helpers that keep generated files parseable."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from skill2app.converter.errors import RenderError
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.model import (
    Action,
    Arg,
    Check,
    CodeStep,
    Constructor,
    Destructor,
    Input,
    LlmStep,
    Pipeline,
    Plan,
    StdinFeed,
)
from skill2app.converter.plan.rules import check_for, shape_of
from skill2app.converter.plan.samples import example_of, sample_answer, sample_inputs, sample_value
from skill2app.converter.render.checks import constructor_checks
from skill2app.converter.render.literals import py_literal, read_spec, width, yaml_block
from skill2app.converter.render.render import RenderedFile, render_app
from skill2app.converter.render.write import write_app
from skill2app.runtime.errors import last_words

SHOW_PY = '''\
"""Print what it was given, as JSON (or plain text with --mode text)."""
import argparse
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("path")
parser.add_argument("--tag", action="append")
parser.add_argument("--set", nargs="+")
parser.add_argument("--verbose", action="store_true")
parser.add_argument("--count", type=int)
parser.add_argument("--data")
parser.add_argument("--config")
parser.add_argument("--mode", choices=["json", "text"], default="json")
parser.add_argument("--fail", type=int, default=0)
args = parser.parse_args()
if args.fail:
    print("3. Click 'Create API Key'")
    print("boom", file=sys.stderr)
    sys.exit(args.fail)
config = open(args.config).read() if args.config else None
seen = {"argv": sys.argv[1:], "cwd": os.getcwd(), "config": config}
print(json.dumps(seen) if args.mode == "json" else "plain text")
'''

SKILL_MD = """\
---
name: demo
description: Show what a program gets. Use when testing app-convert.
---

# Demo

```bash
python3 tools/show.py data.csv --tag a --verbose --count 2 --mode json
```
"""


def make_skill(root: Path) -> Path:
    (root / "tools").mkdir(parents=True)
    (root / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (root / "tools" / "show.py").write_text(SHOW_PY, encoding="utf-8")
    (root / "data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    return root


def demo_plan(args: list[Arg], *, stdout: str = "json", steps: list[Any] | None = None) -> Plan:
    inputs = [
        Input("path", "string", True, "CSV file (e.g. data.csv)"),
        Input("tags", "array"),
        Input("verbose", "boolean"),
        Input("count", "integer", default=3),
        Input("note", "string"),
    ]
    step = CodeStep("show", "tools/show.py", args, stdout=stdout)
    pipeline = Pipeline("show", "Show the arguments", ["show me"], inputs, [step, *(steps or [])])
    return Plan("demo", "Show what a program gets.", pipelines=[pipeline])


ALL_KINDS = [
    Arg(ref="input.path"),
    Arg("--tag", ref="input.tags"),
    Arg("--verbose", ref="input.verbose"),
    Arg("--count", ref="input.count"),
    Arg("--data", ref="input.note"),
    Arg("--mode", value="json"),
]


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return make_skill(tmp_path / "demo")


def render(skill: Path, plan: Plan) -> list[RenderedFile]:
    inventory = build_inventory(skill)
    assert check_plan(plan, inventory) == []
    files = render_app(plan, inventory)
    write_app(skill, files, out=None, force=True)
    return files


def load_adapter(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"adapter_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_adapter(
    skill: Path, payload: dict[str, Any], step: str = "show"
) -> subprocess.CompletedProcess:
    env = {**os.environ, "APP_ROOT": str(skill), "APP_CALLER_CWD": str(skill)}
    return subprocess.run(
        [sys.executable, str(skill / f"pipelines/show/steps/{step}.py")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


# -- the adapter: argv ---------------------------------------------------------------------


@pytest.fixture
def adapter(skill: Path) -> ModuleType:
    render(skill, demo_plan(ALL_KINDS))
    return load_adapter(skill / "pipelines/show/steps/show.py")


def argv(adapter: ModuleType, spec_args: list[dict[str, Any]], payload: Any, tmp: Path) -> list:
    adapter.SPEC = {**adapter.SPEC, "args": spec_args}
    words: list[str] = []
    for index, arg in enumerate(spec_args):
        words += adapter.words(index, arg, payload, tmp)
    return words


@pytest.mark.parametrize(
    ("arg", "inputs", "expected"),
    [
        ({"from": "input.path"}, {"path": "x.csv"}, ["x.csv"]),
        (
            {"flag": "--tag", "from": "input.tags"},
            {"tags": ["a", "b"]},
            ["--tag", "a", "--tag", "b"],
        ),
        ({"flag": "--tag", "from": "input.tags"}, {"tags": []}, []),
        (  # argparse nargs="+": the flag once, then every value
            {"flag": "--set", "from": "input.tags", "spread": True},
            {"tags": ["ns1", "ns2"]},
            ["--set", "ns1", "ns2"],
        ),
        ({"flag": "--set", "from": "input.tags", "spread": True}, {"tags": []}, []),
        ({"flag": "--verbose", "from": "input.verbose"}, {"verbose": True}, ["--verbose"]),
        ({"flag": "--verbose", "from": "input.verbose"}, {"verbose": False}, []),
        ({"flag": "--count", "from": "input.count"}, {"count": 7}, ["--count", "7"]),
        ({"flag": "--count", "from": "input.count"}, {}, ["--count", "3"]),  # the default
        ({"flag": "--data", "from": "input.note"}, {"note": ""}, []),  # optional, empty
        ({"flag": "--data", "from": "input.note"}, {}, []),  # optional, absent
        ({"flag": "--data", "from": "input.note"}, {"note": "hi there"}, ["--data", "hi there"]),
        ({"flag": "--mode", "value": "json"}, {}, ["--mode", "json"]),
        ({"flag": "--mode", "value": ["a", "b"]}, {}, ["--mode", "a", "--mode", "b"]),
        ({"flag": "--verbose"}, {}, ["--verbose"]),  # bare flag
        ({"value": 5}, {}, ["5"]),  # positional literal
        ({"flag": "--data", "from": "input.note", "as": "json"}, {"note": "x"}, ["--data", '"x"']),
        ({"flag": "--data", "from": "input.tags"}, {"tags": [{"k": 1}]}, ["--data", '{"k": 1}']),
    ],
)
def test_adapter_argv_for_each_kind_of_argument(
    adapter: ModuleType, tmp_path: Path, arg: dict, inputs: dict, expected: list
) -> None:
    assert argv(adapter, [arg], {"input": inputs, "steps": {}}, tmp_path) == expected


def test_adapter_reads_earlier_step_outputs_and_fields(adapter: ModuleType, tmp_path: Path) -> None:
    payload = {"input": {}, "steps": {"fetch": {"output": {"meta": {"id": 42}, "rows": [1]}}}}
    args = [
        {"flag": "--id", "from": "fetch.output.meta.id"},
        {"flag": "--rows", "from": "fetch.output", "as": "json"},
        {"flag": "--missing", "from": "fetch.output.nope"},
        {"flag": "--other", "from": "later.output"},
    ]
    assert argv(adapter, args, payload, tmp_path) == [
        "--id",
        "42",
        "--rows",
        '{"meta": {"id": 42}, "rows": [1]}',
    ]


def test_adapter_leaves_out_an_empty_word_and_its_flag(adapter: ModuleType, tmp_path: Path) -> None:
    """Round 29: `--title "" --cover ""` from an optional input defaulting to "" (or an earlier
    step's "") gave the program an empty word, which its argv loop took for the Markdown path."""
    adapter.SPEC = {
        **adapter.SPEC,
        "inputs": {**adapter.SPEC["inputs"], "title": {"required": False, "default": ""}},
    }
    payload = {"input": {"title": ""}, "steps": {"check": {"output": {"cover": ""}}}}
    args = [
        {"from": "input.path"},
        {"flag": "--title", "from": "input.title"},
        {"flag": "--cover", "from": "check.output.cover"},
        {"from": "check.output.cover"},  # a positional keeps its place (review of this change)
        {"flag": "--sep", "value": ""},  # a literal "" is the plan's own choice
    ]
    payload["input"]["path"] = "article.md"
    assert argv(adapter, args, payload, tmp_path) == ["article.md", "", "--sep", ""]


def test_adapter_passes_a_value_as_a_temporary_file(adapter: ModuleType, tmp_path: Path) -> None:
    payload = {"input": {"note": "plain"}, "steps": {"draft": {"output": {"a": [1, 2]}}}}
    args = [
        {"flag": "--config", "from": "draft.output", "as": "file"},
        {"flag": "--data", "from": "input.note", "as": "file"},
    ]
    words = argv(adapter, args, payload, tmp_path)
    assert words[0] == "--config" and words[2] == "--data"
    assert json.loads(Path(words[1]).read_text()) == {"a": [1, 2]}
    assert Path(words[3]).read_text() == "plain"
    assert Path(words[1]).parent == tmp_path


def test_adapter_expands_a_leading_tilde_like_a_shell(adapter: ModuleType, tmp_path: Path) -> None:
    words = argv(adapter, [{"from": "input.path"}], {"input": {"path": "~/x.log"}}, tmp_path)
    assert words == [os.path.expanduser("~/x.log")]


def test_adapter_finds_a_relative_path_in_the_app_when_the_caller_lacks_it(
    adapter: ModuleType, skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = tmp_path / "caller"
    caller.mkdir()
    (caller / "mine.csv").write_text("x")
    monkeypatch.setenv("APP_ROOT", str(skill))
    monkeypatch.setenv("APP_CALLER_CWD", str(caller))
    arg = {"from": "input.path"}
    found = {
        p: argv(adapter, [arg], {"input": {"path": p}}, tmp_path)
        for p in ("data.csv", "mine.csv", "new.csv")
    }
    assert found == {
        "data.csv": [str(skill / "data.csv")],  # only in the APP: a sample data file
        "mine.csv": ["mine.csv"],  # the caller's own file
        "new.csv": ["new.csv"],  # nowhere yet: something to write
    }
    literal = argv(adapter, [{"value": "data.csv"}], {"input": {}}, tmp_path)
    assert literal == ["data.csv"]


def test_adapter_command_uses_the_interpreter_and_the_subcommand(adapter: ModuleType) -> None:
    adapter.SPEC = {**adapter.SPEC, "subcommand": "sample"}
    command = adapter.command()
    assert command[0] == sys.executable
    assert command[1].endswith("tools/show.py") and Path(command[1]).is_absolute()
    assert command[2:] == ["sample"]
    adapter.SPEC = {**adapter.SPEC, "run_with": ["no-such-interpreter-xyz"]}
    with pytest.raises(FileNotFoundError, match="not on PATH"):
        adapter.command()


# -- the adapter: running it ----------------------------------------------------------------


def test_adapter_prints_the_programs_json_as_the_output(skill: Path) -> None:
    render(skill, demo_plan(ALL_KINDS))
    payload = {"input": {"path": "data.csv", "tags": ["a"], "verbose": True, "note": ""}}
    done = run_adapter(skill, payload)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["output"]
    assert output["argv"] == [
        "data.csv",
        "--tag",
        "a",
        "--verbose",
        "--count",
        "3",
        "--mode",
        "json",
    ]
    assert output["cwd"] == str(skill)  # APP_CALLER_CWD


def test_adapter_wraps_text_stdout(skill: Path) -> None:
    render(skill, demo_plan([Arg(ref="input.path"), Arg("--mode", value="text")], stdout="text"))
    done = run_adapter(skill, {"input": {"path": "data.csv"}})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"output": {"stdout": "plain text\n"}}


def test_adapter_falls_back_to_text_when_json_was_promised(skill: Path) -> None:
    render(skill, demo_plan([Arg(ref="input.path"), Arg("--mode", value="text")], stdout="json"))
    done = run_adapter(skill, {"input": {"path": "data.csv"}})
    assert json.loads(done.stdout) == {"output": {"stdout": "plain text\n"}}
    assert "printed text, not JSON" in done.stderr


def test_adapter_fails_with_the_programs_exit_status_and_stderr(skill: Path) -> None:
    render(skill, demo_plan([Arg(ref="input.path"), Arg("--fail", ref="input.count")]))
    done = run_adapter(skill, {"input": {"path": "data.csv", "count": 3}})
    assert done.returncode == 3
    assert done.stdout == ""
    # what it printed, then its own stderr (its last words come last), then the summary
    lines = done.stderr.splitlines()
    assert lines[-3:] == [
        "3. Click 'Create API Key'",
        "boom",
        "tools/show.py failed with exit status 3",
    ]
    assert last_words(done.stderr) == "boom"  # what the smoke report quotes


@pytest.mark.parametrize(
    ("printed", "stdout", "failed"),
    [
        ("Error: Provide a query or --author", "text", "Error: Provide a query or --author"),
        ('{"error": "API credentials not configured"}', "json", "API credentials not configured"),
        ('{"error": "none", "rows": []}', "json", ""),  # more than an error: a result
        # round 32's game_resolver.py: its errors as a status, exit 0
        ('{"status": "Error", "message": "File not found: r.json"}', "json", "File not found"),
        ('{"success": false, "error": "quota exceeded"}', "json", "quota exceeded"),
        ('{"status": "Success", "message": "3 options ranked"}', "json", ""),
        ('{"status": "error", "count": 2}', "json", ""),  # no message: data
        ('{"state": "failed", "message": "Fix typo"}', "json", ""),  # a CI run's state: data
        ('{"ok": false, "reason": "duplicate"}', "json", ""),  # a checker's verdict: data
        ("Errors found: 0", "text", ""),
    ],
)
def test_an_error_printed_with_exit_status_0_fails_the_step(
    skill: Path, printed: str, stdout: str, failed: str
) -> None:
    """Real skills (bluesky, porkbun-dns) print their error and exit 0."""
    render(skill, demo_plan([Arg(ref="input.path")], stdout=stdout))
    (skill / "tools/show.py").write_text(f"print({printed!r})\n")
    done = run_adapter(skill, {"input": {"path": "data.csv"}})
    if failed:
        assert (done.returncode, done.stdout) == (1, "")
        assert f"reported an error (exit status 0): {failed}" in done.stderr
    else:
        assert done.returncode == 0 and json.loads(done.stdout)["output"]


def test_a_program_asking_for_input_is_told_apart(skill: Path) -> None:
    render(skill, demo_plan([Arg(ref="input.path")]))
    (skill / "tools/show.py").write_text("input('Delete everything? [y/N] ')\n")
    done = run_adapter(skill, {"input": {"path": "data.csv"}})
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith(
        "tools/show.py failed with exit status 1 (it asked for input; a step gets none: "
        "pass the answer as an argument)"
    )
    assert last_words(done.stderr).startswith("EOFError")


def test_a_choices_flag_gets_only_its_values_any_case(skill: Path) -> None:
    """`--mode` has choices json/text: "TEXT" is taken as "text"; "xml" is refused before the
    program runs, naming the values; the APP's README and pipeline.yaml say them too."""
    files = render(skill, demo_plan([Arg(ref="input.path"), Arg("--mode", ref="input.note")]))
    spec = read_spec(next(f for f in files if f.path.endswith("steps/show.py")).content)
    assert spec is not None and spec["inputs"]["note"]["enum"] == ["json", "text"]
    done = run_adapter(skill, {"input": {"path": "data.csv", "note": "TEXT"}})
    assert (done.returncode, json.loads(done.stdout)) == (0, {"output": {"stdout": "plain text\n"}})
    done = run_adapter(skill, {"input": {"path": "data.csv", "note": "xml"}})
    assert done.returncode == 2
    assert "input 'note' must be one of json, text (got 'xml')" in done.stderr
    yaml_text = next(f for f in files if f.path == "pipelines/show/pipeline.yaml").content
    assert yaml.safe_load(yaml_text)["input"]["note"]["enum"] == ["json", "text"]  # app-run too


def test_adapter_spec_is_readable_back_and_compiles(skill: Path) -> None:
    files = render(skill, demo_plan(ALL_KINDS))
    adapter = next(f for f in files if f.path == "pipelines/show/steps/show.py")
    spec = read_spec(adapter.content)
    assert spec is not None
    assert spec["program"] == "tools/show.py"
    assert spec["run_with"] == ["python3"]
    assert spec["inputs"]["count"] == {"required": False, "default": 3}
    assert spec["args"][0] == {"from": "input.path"}
    assert adapter.executable


# -- the adapter: stdin -----------------------------------------------------------------------

# What the program read on stdin, and whether it got any: /dev/null (a character device) is
# none; a pipe, even an empty one, is some.
SHOW_STDIN = (
    "import os, stat, sys\n"
    "given = not stat.S_ISCHR(os.fstat(0).st_mode)\n"
    "print(repr(sys.stdin.read() if given else None))\n"
)


def stdin_plan(feed: StdinFeed | None) -> Plan:
    plan = demo_plan([Arg(ref="input.path")], stdout="text")
    step = plan.pipelines[0].steps[0]
    assert isinstance(step, CodeStep)
    step.stdin = feed
    return plan


@pytest.mark.parametrize(
    ("feed", "inputs", "expected"),
    [
        pytest.param(StdinFeed("input.path", "file"), {}, "a,b\n1,2\n", id="file-content"),
        pytest.param(StdinFeed("input.note", "text"), {"note": "hi"}, "hi\n", id="text"),
        pytest.param(StdinFeed("input.note", "text"), {"note": "x\ny\n"}, "x\ny\n", id="text-nl"),
        pytest.param(StdinFeed("input.tags", "text"), {"tags": ["a"]}, '["a"]\n', id="as-json"),
        # review: an empty stdin passed this too; an absent optional value gives none
        pytest.param(StdinFeed("input.note", "text"), {}, None, id="absent-optional"),
        pytest.param(StdinFeed("input.note", "text"), {"note": ""}, None, id="empty-optional"),
        pytest.param(None, {"note": "hi"}, None, id="none-planned"),
    ],
)
def test_adapter_feeds_the_programs_stdin(
    skill: Path, feed: StdinFeed | None, inputs: dict[str, Any], expected: str | None
) -> None:
    files = render(skill, stdin_plan(feed))
    (skill / "tools/show.py").write_text(SHOW_STDIN)
    done = run_adapter(skill, {"input": {"path": "data.csv", **inputs}})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"output": {"stdout": repr(expected) + "\n"}}
    adapter = next(f for f in files if f.path == "pipelines/show/steps/show.py")
    spec = read_spec(adapter.content)
    assert spec is not None and spec.get("stdin") == (feed.to_dict() if feed else None)
    # an adapter without stdin has none of its code (the examples' stay as they were)
    assert ("def stdin_data" in adapter.content) == (feed is not None)
    assert ("It gets no stdin" in adapter.content) == (feed is None)


def test_adapter_refuses_a_stdin_file_it_cannot_read(skill: Path) -> None:
    render(skill, stdin_plan(StdinFeed("input.path", "file")))
    (skill / "tools/show.py").write_text("open('ran', 'w')\n")
    done = run_adapter(skill, {"input": {"path": "missing.csv"}})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "tools/show.py: cannot read missing.csv to feed it on stdin: No such file or directory\n"
    )
    assert not (skill / "ran").exists()


def test_the_readme_says_what_a_step_reads_on_stdin(skill: Path) -> None:
    render(skill, stdin_plan(StdinFeed("input.path", "file")))
    assert (
        "runs `tools/show.py` through the adapter `pipelines/show/steps/show.py`, feeding it "
        "the content of the file `input.path` on stdin\n"
    ) in (skill / "README.md").read_text()


def test_an_nargs_flag_is_spread_an_append_flag_repeated(skill: Path) -> None:
    args = [
        Arg(ref="input.path"),
        Arg(flag="--set", ref="input.tags"),
        Arg(flag="--tag", ref="input.tags"),
    ]
    files = render(skill, demo_plan(args))
    adapter = next(f for f in files if f.path == "pipelines/show/steps/show.py")
    spec = read_spec(adapter.content)
    assert spec is not None
    assert spec["args"] == [
        {"from": "input.path"},
        {"flag": "--set", "from": "input.tags", "spread": True},
        {"flag": "--tag", "from": "input.tags"},
    ]


# -- llm steps: schema, validate script, sample answers ------------------------------------

RULES = [
    "Never mention internal ticket numbers such as OPS-123.",
    "Keep every line under 20 characters.",
    "Credit external contributors by name.",
]


def llm_plan() -> Plan:
    schema = {
        "type": "object",
        "properties": {"summary": {"type": "string"}, "path": {"type": "string"}},
        "required": ["summary"],
    }
    prompt = "Summarise this:\n\n{{show.output}}\n"
    step = LlmStep("summarise", prompt, "lite", schema, RULES, 3)
    return demo_plan([Arg(ref="input.path")], steps=[step])


def run_validate(script: Path, output: Any) -> tuple[int, dict]:
    done = subprocess.run(
        [sys.executable, str(script)],
        input=json.dumps({"output": output, "input": {}, "steps": {}}),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def test_llm_step_gets_schema_validate_script_and_sample_answer(skill: Path) -> None:
    render(skill, llm_plan())
    base = skill / "pipelines/show"
    doc = yaml.safe_load((base / "pipeline.yaml").read_text())
    step = doc["steps"][1]
    assert step == {
        "name": "summarise",
        "type": "llm",
        "model": "lite",
        "prompt": "Summarise this:\n\n{{show.output}}\n",
        "schema": "schemas/summarise.json",
        "validate": "steps/validate_summarise.py",
        "retry": 3,
    }
    schema = json.loads((base / "schemas/summarise.json").read_text())
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["required"] == ["summary"]
    answers = yaml.safe_load((base / "samples/answers.yaml").read_text())
    answer = answers["answers"]["show/summarise"][0]
    assert answer == {"summary": "Sample answer of step summarise", "path": "data.csv"}
    code, verdict = run_validate(base / "steps/validate_summarise.py", {"summary": "Short."})
    assert (code, verdict) == (0, {"valid": True})


def test_validate_script_rejects_what_the_rules_forbid(skill: Path) -> None:
    render(skill, llm_plan())
    script = skill / "pipelines/show/steps/validate_summarise.py"
    code, verdict = run_validate(script, {"summary": "Fixed OPS-42 today", "path": "x" * 30})
    assert code == 1
    assert verdict["valid"] is False
    assert verdict["errors"] == [
        "output.summary contains 'OPS-42' (rule: Never mention internal ticket numbers such as "
        "OPS-123.)",
        "output.path line 1 has 30 characters (rule: Keep every line under 20 characters.)",
    ]
    text = script.read_text()  # a rule no program can check is not rendered as one
    assert "Credit external contributors by name." not in text


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("Keep every line under 100 characters.", {"kind": "max_line_length", "limit": 99}),
        ("Lines must be at most 72 characters", {"kind": "max_line_length", "limit": 72}),
        ("每行不超过 80 个字符", {"kind": "max_line_length", "limit": 80}),
        (
            "每句不超过 40 个字，一段只讲一件事。",
            {"kind": "max_sentence_length", "limit": 40, "unit": "chars"},
        ),
        (
            "Keep sentences under 25 words.",
            {"kind": "max_sentence_length", "limit": 24, "unit": "words"},
        ),
        (
            "Never mention tickets such as OPS-123.",
            {"kind": "forbid_regex", "pattern": shape_of("OPS-123")},
        ),
        (
            "不要使用“我们认为”“显然”等主观措辞。",
            {"kind": "forbid_phrases", "phrases": ["我们认为", "显然"]},
        ),
        ("中文与英文、数字之间加一个半角空格。", {"kind": "cjk_latin_spacing"}),
        ("使用全角中文标点。", {"kind": "fullwidth_punctuation"}),
        ("Credit external contributors by name.", {"kind": "manual"}),
        ("避免被动句。", {"kind": "manual"}),
    ],
)
def test_rules_become_checks(rule: str, expected: dict) -> None:
    assert check_for(rule) == {**expected, "rule": rule}


def test_ticket_shape_does_not_catch_utf8() -> None:
    import re

    pattern = shape_of("OPS-123")
    assert re.search(pattern, "fixes JIRA-77") and not re.search(pattern, "UTF-8 text")


# -- lifecycle -----------------------------------------------------------------------------


def lifecycle_plan() -> Plan:
    plan = demo_plan([Arg(ref="input.path")])
    plan.constructor = Constructor(
        True,
        "check what the skill needs",
        [
            Check("binary", "python3"),
            Check("binary", "no-such-binary-xyz"),
            Check("env", "NO_SUCH_VARIABLE_XYZ", required=False, why="seen in SKILL.md"),
            Check("file", "data.csv"),
            Check("python-package", "yaml"),
            Check("auth", "gh auth login"),
        ],
    )
    plan.destructor = Destructor(
        True,
        "clean up",
        [
            Action("remove-files", "remove the scratch files", ["*.tmp"]),
            Action("remove-files", "nothing outside", ["/etc/passwd"]),
            Action("log", "log the run"),
            Action("custom", "tell the team"),
        ],
    )
    return plan


def run_step(skill: Path, rel: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "APP_ROOT": str(skill), "APP_CALLER_CWD": str(cwd)}
    env.pop("NO_SUCH_VARIABLE_XYZ", None)
    return subprocess.run(
        [sys.executable, str(skill / rel)], input="{}", capture_output=True, text=True, env=env
    )


def test_constructor_fails_on_a_missing_required_check(skill: Path) -> None:
    render(skill, lifecycle_plan())
    done = run_step(skill, "pipelines/_constructor/steps/check_environment.py", skill)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "check_environment: warning: the environment variable NO_SUCH_VARIABLE_XYZ is not set: "
        "export NO_SUCH_VARIABLE_XYZ=... (seen in SKILL.md)",
        "check_environment: the program 'no-such-binary-xyz' is not on PATH: install it",
    ]
    doc = yaml.safe_load((skill / "pipelines/_constructor/pipeline.yaml").read_text())
    assert doc["steps"] == [
        {
            "name": "check_environment",
            "type": "code",
            "command": "python3 steps/check_environment.py",
        }
    ]


def test_a_check_only_some_programs_need_is_scoped_to_their_pipelines(skill: Path) -> None:
    """`pdf2image` is imported by the program of `show` only: another pipeline runs without it;
    a module published under another name says what to install."""
    (skill / "tools/other.py").write_text("if __name__ == '__main__':\n    print('{}')\n")
    plan = demo_plan([Arg(ref="input.path")])
    run_other = CodeStep("run", "tools/other.py", [])
    other = Pipeline("other", "Another path", ["other"], [], [run_other])
    plan.pipelines.append(other)
    plan.constructor = Constructor(
        True,
        "check",
        [
            Check("python-package", "no_such_pkg_xyz", where=["tools/show.py:3"]),
            Check("python-package", "PIL", False, where=["tools/show.py:4", "SKILL.md:9"]),
        ],
    )
    checks = constructor_checks(plan, build_inventory(skill))
    assert checks[0]["pipelines"] == ["show"]
    assert checks[1]["pipelines"] == ["show"] and checks[1]["install"] == "Pillow"
    render(skill, plan)
    step = "pipelines/_constructor/steps/check_environment.py"
    for business, code in (("show", 1), ("other", 0), ("_skill", 1)):  # Skill mode: all
        env = {**os.environ, "APP_ROOT": str(skill), "APP_BUSINESS_PIPELINE": business}
        done = subprocess.run(
            [sys.executable, str(skill / step)], input="{}", capture_output=True, text=True, env=env
        )
        assert done.returncode == code, (business, done.stderr)
        assert ("no_such_pkg_xyz" in done.stderr) == (business != "other")
        if importlib.util.find_spec("PIL") is None and business == "show":
            assert "warning: the Python package 'PIL' is not installed: pip install Pillow" in (
                done.stderr
            )
    assert "no_such_pkg_xyz" in run_step(skill, step, skill).stderr  # no business name: all


def test_constructor_passes_when_everything_is_there(skill: Path) -> None:
    plan = lifecycle_plan()
    plan.constructor.checks = [c for c in plan.constructor.checks if "xyz" not in c.name.lower()]
    render(skill, plan)
    done = run_step(skill, "pipelines/_constructor/steps/check_environment.py", skill)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == {
        "checked": 4,
        "warnings": [],
        "check_by_hand": ["gh auth login"],
    }


def test_destructor_removes_only_inside_the_allowed_folders(
    skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Patterns are relative to the run's work folder; the caller's folder is never touched,
    not even by "*" (it emptied the caller's cwd), nor the APP's SKILL.md and pipelines/."""
    plan = lifecycle_plan()
    plan.destructor.actions.append(Action("remove-files", "everything", ["*", "../*"]))
    plan.destructor.actions.append(
        Action("remove-files", "the APP", [str(skill / "SKILL.md"), str(skill / "pipelines")])
    )
    render(skill, plan)
    caller, work = tmp_path / "caller", tmp_path / "work"
    caller.mkdir()
    work.mkdir()
    (caller / "a.tmp").write_text("x")
    (caller / "precious.txt").write_text("x")
    (work / "b.tmp").write_text("x")
    monkeypatch.setenv("APP_WORK_DIR", str(work))
    done = run_step(skill, "pipelines/_destructor/steps/cleanup.py", caller)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["output"]
    assert output == {"removed": [str(work / "b.tmp")], "by_hand": ["tell the team"]}
    assert sorted(p.name for p in caller.iterdir()) == ["a.tmp", "precious.txt"]
    assert (skill / "SKILL.md").is_file() and (skill / "pipelines").is_dir()
    assert "not removing /etc/passwd" in done.stderr
    assert "not removing ../*: '..' leaves the allowed folders" in done.stderr


# -- samples -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            Input("path", "string", True, "CSV file to read ('-' for stdin) (e.g. sales.csv)"),
            "assets/sample.csv",
        ),
        (Input("out", "string", True, "CSV file to write (e.g. hours.csv)"), "hours.csv"),
        (Input("week", "string", True, "ISO week, e.g. 2025-W23"), "2025-W23"),
        (Input("n", "integer", True, "how many (e.g. 20)"), 20),
        (Input("n", "integer", False, "how many (e.g. 20)"), 20),
        (Input("range", "string", True, "e.g. today", enum=["week", "today"]), "today"),
        (Input("range", "string", True, "e.g. month", enum=["week", "today"]), "week"),
        (Input("until", "string", False, "last", default="HEAD"), "HEAD"),
        # SKILL.md shows `--width 800`; 640 is only the program's default
        (Input("width", "integer", False, "Width in pixels (e.g. 800)", default=640), 800),
        (Input("width", "integer", False, "Width in pixels (e.g. wide)", default=640), 640),
        (Input("text", "string", True, "the text"), "example"),
    ],
)
def test_sample_values(item: Input, expected: Any) -> None:
    assert sample_value(item, ["assets/other.txt", "assets/sample.csv"]) == expected


def test_samples_leave_out_the_optional_inputs_without_a_default() -> None:
    inputs = [
        Input("path", "string", True, "CSV file (e.g. sales.csv)"),
        Input("cols", "string", False, "columns (e.g. a,b)"),
        Input("flag", "boolean", False),
        Input("until", "string", False, "last", default="HEAD"),
    ]
    pipeline = Pipeline("p", "d", [], inputs, [CodeStep("s", "tools/x.py")])
    assert sample_inputs(pipeline, ["assets/sample.csv"]) == {
        "path": "assets/sample.csv",
        "until": "HEAD",
    }


def test_example_of_takes_the_last_example() -> None:
    assert example_of("comma-separated (default: all) (e.g. revenue,units)") == "revenue,units"
    assert example_of("e.g. Sprint review") == "Sprint review"
    assert example_of("no example here") is None


def test_sample_answer_matches_its_schema() -> None:
    import jsonschema

    schema = {
        "type": "object",
        "properties": {
            "kind": {"enum": ["a", "b"]},
            "items": {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 2},
            "ok": {"type": "boolean"},
            "version": {"type": "string"},
        },
        "required": ["kind"],
    }
    answer = sample_answer(schema, "s", {"version": "1.5.0"})
    jsonschema.validate(answer, schema)
    assert answer == {"kind": "a", "items": [2, 2], "ok": False, "version": "1.5.0"}
    assert sample_answer(None, "s", {}) == "Sample answer of step s"


# -- text helpers --------------------------------------------------------------------------

ODD_PROMPTS = [
    "one line",
    "two\nlines\n",
    "no trailing newline\nat all",
    "  leading spaces\nsecond",
    "trailing spaces   \nline",
    "tabs\there\n",
    "blank\n\n\nlines\n",
    "many trailing\n\n\n",
    "spaces only line\n   \nafter\n",
    '"quotes" and: colons # hash {{x.output}}\n- dash\n',
    "line\u2028separator\n",
    "carriage\r\nreturn\n",
    "中文提示词：{{input.text}}\n第二行\n",
]


@pytest.mark.parametrize("prompt", ODD_PROMPTS)
def test_prompts_survive_the_pipeline_yaml(skill: Path, prompt: str) -> None:
    plan = demo_plan([Arg(ref="input.path")], steps=[LlmStep("ask", prompt + " {{show.output}}")])
    files = render_app(plan, build_inventory(skill))
    text = next(f.content for f in files if f.path == "pipelines/show/pipeline.yaml")
    assert yaml.safe_load(text)["steps"][1]["prompt"] == prompt + " {{show.output}}"


def test_yaml_block_only_for_plain_multiline_text() -> None:
    assert yaml_block("a\nb\n") == (True, "")
    assert yaml_block("a\nb") == (True, "-")
    assert yaml_block("a\nb\n\n")[0] is False
    assert yaml_block(" a\nb\n")[0] is False
    assert yaml_block("one line")[0] is False


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1, "b": [True, None, 1.5], "c": {"d": "e"}},
        ["x" * 150, {"k": "中文" * 60}],
        {
            "program": "tools/x.py",
            "args": [{"flag": f"--f{i}", "from": "input.x"} for i in range(9)],
        },
        'quotes " and \\ backslashes \n newlines \x00 nulls',
        [],
    ],
)
def test_py_literal_round_trips_and_fits(value: Any) -> None:
    text = py_literal(value, prefix="X = ")
    assert ast.literal_eval(text) == value
    for line in ("X = " + text).split("\n"):
        assert width(line) <= 100 or line.endswith("# noqa: E501")


def test_render_refuses_to_write_outside_pipelines(skill: Path) -> None:
    with pytest.raises(RenderError, match="writes only pipelines/"):
        write_app(skill, [RenderedFile("tools/show.py", "overwritten")], out=None, force=True)
    # SKILL.md is written only for a collection without one (generated, marked): a skill's own
    # is never replaced, --force or not
    with pytest.raises(RenderError, match="SKILL.md belongs to the skill"):
        write_app(skill, [RenderedFile("SKILL.md", "overwritten")], out=None, force=True)
    assert (skill / "SKILL.md").read_text() == SKILL_MD


def test_two_steps_that_would_share_a_file_are_refused(skill: Path) -> None:
    rules = ["Keep every line under 20 characters."]
    steps = [LlmStep("x", "Say {{show.output}}", rules=rules)]
    plan = demo_plan([Arg(ref="input.path")], steps=steps)
    plan.pipelines[0].steps.append(CodeStep("validate_x", "tools/show.py", [Arg(ref="input.path")]))
    with pytest.raises(RenderError, match="two generated files would be pipelines/show/steps/"):
        render_app(plan, build_inventory(skill))


def test_the_readme_says_a_written_step_is_a_program_of_the_app(tmp_path: Path) -> None:
    from helpers import write_tree

    from skill2app.converter.convert import Options, convert

    skill = write_tree(
        tmp_path / "hello", {"SKILL.md": "---\nname: hello\ndescription: Hi.\n---\n"}
    )
    step = {"name": "greet", "type": "code", "output": {"text": "string"},
            "write": {"language": "node", "source":
                      'console.log(JSON.stringify({output: {text: "hi"}}));\n'}}  # fmt: skip
    plan = {
        "plan_version": 2, "app": {"name": "hello", "description": "Greets."},
        "analyzer": "host",
        "pipelines": [{"name": "greet", "description": "Say hello", "triggers": ["say hello"],
                       "input": [], "steps": [step]}],
        "constructor": {"needed": False, "checks": []},
        "destructor": {"needed": False, "actions": []}, "skill_mode": [],
    }  # fmt: skip
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    convert(Options(skill, out=tmp_path / "app", plan=plan_file))
    readme = (tmp_path / "app" / "README.md").read_text()
    assert (
        "- `greet` (code): a program written for this APP, `pipelines/greet/steps/greet.cjs`"
        in (readme)
    )
    assert "through the adapter" not in readme
