"""The heuristic analyzer makes pipelines of the subcommands of the outside tool a skill
without programs teaches (editframe-cli, bailian-cli: fresh2 got no pipeline, or one catch-all
llm step, from them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import invoke, write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.analyzers.subcommands import subcommand_pipelines
from skill2app.converter.convert import Options, convert
from skill2app.converter.inventory.model import build_inventory

pytestmark = pytest.mark.usefixtures("runtime_env")

SKILL_MD = """\
---
name: vidkit-cli
description: Command-line tools for vidkit video projects. Use when rendering a project.
---

# Vidkit CLI

## Quick Start

```bash
# Render a composition to video
npx vidkit render -o output.mp4

# Render from a URL at half size
npx vidkit render --url http://localhost:4321 --scale 0.5 -o output.mp4

# Preview a project
npx vidkit preview

# Generate captions
npx vidkit transcribe video.mp4 -o captions.json
```

## Setup

```bash
npx vidkit auth --token sk-123
```

## Clips

```bash
# Bad — the clip goes to the wrong project
npx vidkit upload clip.mp4 --project demo

# Remove a clip
npx vidkit rm CLIP_NAME -y
```

## Commands

- [references/transcribe.md](references/transcribe.md) — Generate captions from audio or video
- [references/upload.md](references/upload.md) — Upload media files
"""

TRANSCRIBE_MD = """\
---
description: "Generate word-level captions from audio or video files, as JSON."
---

# Transcribe

## Usage

```bash
npx vidkit transcribe <input> [options]
```

## Options

| Option | Default | Description |
|--------|---------|-------------|
| `-o, --output <file>` | `captions.json` | Output file |
| `-l, --language <lang>` | `en` | Language code |

## Examples

```bash
npx vidkit transcribe interview.mp4 -o spanish.json -l es --words
```
"""

UPLOAD_MD = """\
# Upload

```bash
npx vidkit upload <file> --project <id>
```
"""

FAKE_NPX = """\
#!/bin/sh
# prints the command line it was given, as JSON
python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    files = {
        "SKILL.md": SKILL_MD,
        "references/transcribe.md": TRANSCRIBE_MD,
        "references/upload.md": UPLOAD_MD,
    }
    return write_tree(tmp_path / "vidkit-cli", files)


def _pipelines(skill: Path) -> dict:
    return {p.name: p for p in analyze(build_inventory(skill)).pipelines}


def test_each_subcommand_shown_is_a_pipeline(skill: Path) -> None:
    found = _pipelines(skill)
    # not: auth (setup), preview (a server that keeps running)
    assert sorted(found) == ["render", "rm", "transcribe", "upload"]
    render = found["render"]
    assert render.description.startswith("Render a composition to video")
    assert [(i.name, i.type, i.required, i.default) for i in render.input] == [
        ("output", "string", False, "output.mp4"),  # the file it writes, as shown
        ("url", "string", False, None),  # in one line of two: optional
        ("scale", "number", False, None),
    ]
    transcribe = found["transcribe"]
    # the usage line gives the positional, the examples its sample; -l is --language (the
    # documents pair them); a flag without a value is a boolean
    assert [(i.name, i.type, i.required) for i in transcribe.input] == [
        ("input", "string", True),
        ("output", "string", False),
        ("language", "string", False),
        ("words", "boolean", False),
    ]
    assert transcribe.sample.input == {"input": "video.mp4"}
    assert transcribe.source == "references/transcribe.md:10"  # its usage line
    assert "generate word-level captions from audio or video files" in transcribe.triggers
    assert len(transcribe.triggers) >= 5
    # no value shown (the line under "# Bad" is a counter-example): a placeholder, and the
    # smoke run is skipped
    upload = found["upload"]
    assert upload.sample.input == {"file": "<file>", "project": "<id>"}
    remove = found["rm"]  # CLIP_NAME is a value to fill in; -y is given in every line
    assert remove.description == "Remove a clip (vidkit rm)"
    assert [(i.name, i.required) for i in remove.input] == [("clip_name", True)]
    source = remove.steps[0].to_dict()["write"]["source"]
    assert "argv.append(str(INPUT['clip_name']))" in source
    assert "argv += ['-y']" in source
    assert "no real value of" in upload.sample.skip
    assert not {t for p in found.values() for t in p.triggers} & {"auth", "preview"}
    # the token is never an input, and setup stays out of the pipelines
    assert all("token" not in i.name for p in found.values() for i in p.input)


def test_a_skill_with_programs_or_one_command_gets_none(tmp_path: Path) -> None:
    one = write_tree(
        tmp_path / "one",
        {"SKILL.md": "---\nname: one\ndescription: d\n---\n# One\n\n```bash\nbl chat hi\n```\n"},
    )
    assert not [p for p in _pipelines(one) if p.startswith("chat")]
    # two lines are not three: SKILL.md is read once, not as itself and as a document too
    two = write_tree(
        tmp_path / "two",
        {"SKILL.md": "---\nname: two\ndescription: d\n---\n# Two\n\n```bash\n"
         "bl chat hello.txt\nbl draw cat.png\n```\n"},
    )  # fmt: skip
    assert subcommand_pipelines(build_inventory(two), set()) == []
    with_program = write_tree(
        tmp_path / "prog",
        {
            "SKILL.md": SKILL_MD + "\n```bash\npython scripts/x.py\n```\n",
            "scripts/x.py": "print(1)\n",
        },
    )
    assert subcommand_pipelines(build_inventory(with_program), set()) == []


def test_the_pipelines_run_the_tool_with_the_inputs(
    skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = convert(Options(skill_dir=skill, out=tmp_path / "app", smoke=True))
    assert report.ok, report.human_lines()
    bin_dir = write_tree(tmp_path / "bin", {"npx": FAKE_NPX})
    (bin_dir / "npx").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    done = invoke("run", tmp_path / "app", "transcribe", "-i", "input=talk.mp4", "-i",
                  "language=de", "-i", "words=true", "-q")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    argv = json.loads(json.loads(done.stdout)["printed"])
    assert argv == ["vidkit", "transcribe", "talk.mp4", "--output", "captions.json",
                    "--language", "de", "--words"]  # fmt: skip


RPC_MD = """\
---
name: rpc-curl
description: Call Connect RPCs with buf curl.
---
# RPC curl

## Call an RPC

```bash
buf curl \\
  --protocol connect \\
  --schema path/to/schema/ \\
  --data '{"message":"hello"}' \\
  "${BASE_URL}/example.v1.ExampleService/Echo"
```

```bash
buf curl \\
  --protocol connect \\
  --schema path/to/schema/ \\
  --data '{"message":"hello"}' \\
  "http://127.0.0.1:8080/example.v1.ExampleService/Echo"
```

### `--verbose`

```bash
buf curl --protocol connect --verbose --schema path/to/schema/ --data '{}' http://127.0.0.1:8080/x.Y/Z
```

### `--help`

```bash
buf curl --help
```
"""


def test_one_subcommand_shown_three_times_is_a_pipeline(tmp_path: Path) -> None:
    """connect-rpc-curl (round 10): `buf curl` continued over lines with `\\`, its JSON data in
    single quotes and its address last, gave no pipeline at all."""
    skill = write_tree(tmp_path / "rpc-curl", {"SKILL.md": RPC_MD})
    (pipeline,) = subcommand_pipelines(build_inventory(skill), set())
    inputs = {i.name: (i.type, i.required) for i in pipeline.input}
    assert inputs == {
        "url": ("string", True),
        "protocol": ("string", True),
        "schema": ("string", True),
        "data": ("string", True),
        "verbose": ("boolean", False),
    }
    assert pipeline.sample.input["url"] == "http://127.0.0.1:8080/example.v1.ExampleService/Echo"
    assert pipeline.sample.input["data"] == '{"message":"hello"}'
    assert not [t for t in pipeline.triggers if "verbose" in t or "help" in t]  # option titles


NOTES_MD = """\
---
name: notes-cli
description: Work with notes through the notes CLI.
---
# Notes CLI

## Syntax

**Parameters** take a value with `=`. Quote values with spaces:

```bash
notes create name="My Note" content="Hello world"
```

For multiline content use `\\n` for newline.

## Common patterns

```bash
notes create name="New Note" content="# Hello" silent
notes append file="My Note" content="New line"
notes search query="search term" limit=10
notes daily:read
notes tasks daily todo
```
"""


def test_key_value_parameters_and_bare_switches_are_inputs(tmp_path: Path) -> None:
    """obsidian-cli (round 11): `obsidian append file="My Note" content="New line"` was replayed
    word for word — every run appended "New line" to "My Note" in the user's vault."""
    skill = write_tree(tmp_path / "notes-cli", {"SKILL.md": NOTES_MD})
    found = {p.name: p for p in subcommand_pipelines(build_inventory(skill), set())}
    assert sorted(found) == ["append", "create", "daily-read", "search", "tasks-daily"]
    inputs = {n: [(i.name, i.type, i.required) for i in p.input] for n, p in found.items()}
    assert inputs["append"] == [("file", "string", True), ("content", "string", True)]
    assert inputs["create"] == [
        ("name", "string", True), ("content", "string", True), ("silent", "boolean", False)
    ]  # fmt: skip
    assert ("limit", "integer", True) in inputs["search"]
    source = found["append"].steps[0].to_dict()["write"]["source"]
    assert "New line" not in source and "My Note" not in source  # the values are inputs
    assert "argv += [flag + text] if flag.endswith('=') else [flag, text]" in source
    triggers = [t for p in found.values() for t in p.triggers]
    assert not [t for t in triggers if "syntax" in t or "multiline" in t or "take a value" in t]


def test_a_key_value_step_passes_key_equals_value(tmp_path: Path) -> None:
    skill = write_tree(tmp_path / "notes-cli", {"SKILL.md": NOTES_MD})
    append = next(
        p for p in subcommand_pipelines(build_inventory(skill), set()) if p.name == "append"
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "notes"
    tool.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    tool.chmod(0o755)
    source = append.steps[0].to_dict()["write"]["source"]
    (tmp_path / "step.py").write_text(source)
    payload = {"input": {"file": "Groceries", "content": "eggs and milk"}, "steps": {}}
    import subprocess
    import sys

    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "APP_CALLER_CWD": str(tmp_path)}
    done = subprocess.run([sys.executable, str(tmp_path / "step.py")], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)["output"]["printed"]
    assert printed.split("\n")[:3] == ["append", "file=Groceries", "content=eggs and milk"]


def test_a_flag_value_that_looks_like_a_parameter_stays_the_flags(tmp_path: Path) -> None:
    """Review: `gh api ... -f title="Bug report"` made gh a key=value tool, dropped -f, and
    folded `gh issue list|view` into one pipeline."""
    skill_md = (
        "---\nname: gh-kit\ndescription: Work with GitHub issues.\n---\n# GH\n\n```bash\n"
        "gh issue list --state open\ngh issue view 12\n"
        'gh api repos/o/r/issues -f title="Bug report" -f body=Details\n```\n'
    )
    skill = write_tree(tmp_path / "gh-kit", {"SKILL.md": skill_md})
    found = {p.name: p for p in subcommand_pipelines(build_inventory(skill), set())}
    assert {"issue-list", "issue-view", "api"} <= set(found)
    source = found["api"].steps[0].to_dict()["write"]["source"]
    assert "'title='" not in source and "'body='" not in source  # no key=value parameters
    assert not [i for i in found["api"].input if i.name in ("title", "body")]


def test_a_namespaced_subcommand_is_said_verb_first(tmp_path: Path) -> None:
    """obsidian-cli (round 11): `obsidian daily:append` was described "Daily:append (obsidian
    daily:append)" with that line as its only trigger."""
    body = (
        "---\nname: vault\ndescription: Work with a notes vault through the vault CLI.\n---\n"
        "# Vault\n\n```bash\nvault daily:read\n"
        'vault daily:append content="- [ ] New task"\nvault search query="meeting"\n```\n'
    )
    skill = write_tree(tmp_path / "vault", {"SKILL.md": body})
    by_name = {p.name: p for p in subcommand_pipelines(build_inventory(skill), set())}
    append = next(p for name, p in by_name.items() if "append" in name)
    assert append.description == "Append daily (vault daily:append)"
    assert append.triggers[0] == "append daily"
    assert not any(":" in t for t in append.triggers)
