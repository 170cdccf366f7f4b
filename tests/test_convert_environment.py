"""A program configured through its environment: the step gives it the variables.

douban-skill (round 11): ``DOUBAN_USER=<user_id> python3 scripts/douban-frodo-export.py``.
The heuristic read ``<user_id>`` as a stdin redirection and the usage line's
``python3 douban-frodo-export.py`` as two positionals named ``python3`` and
``douban_frodo_export_py``; no plan could set the variable.  A code step's ``env`` now does,
from an input or a literal, and a pipeline that sets a variable does not need it from the
user's environment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import invoke, write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.convert import Options, convert
from skill2app.converter.errors import ConvertError
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.inventory.programs.scripts import split_usage
from skill2app.converter.plan.model import CodeStep

pytestmark = pytest.mark.usefixtures("runtime_env")

SKILL_MD = """\
---
name: shelf
description: Export a user's shelf.
---
# Shelf

## Export a shelf

```bash
SHELF_USER=<user_id> python3 scripts/export.py
SHELF_USER=<user_id> SHELF_DIR=/tmp/out python3 scripts/export.py
```
"""
EXPORT = '''\
"""Export a shelf.

Usage:
    SHELF_USER=<user_id> python3 export.py
"""
import json, os
print(json.dumps({"user": os.environ["SHELF_USER"], "dir": os.environ.get("SHELF_DIR", "")}))
'''


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "shelf", {"SKILL.md": SKILL_MD, "scripts/export.py": EXPORT})


def test_a_variable_set_before_the_command_is_an_input_of_the_step(skill: Path) -> None:
    inventory = build_inventory(skill)
    program = inventory.program("scripts/export.py")
    assert program is not None and program.cli is not None
    assert [p.name for p in program.cli.params] == []  # no positional "python3"
    assert [inv.stdin for inv in program.invocations] == [None, None]  # no redirection
    (pipeline,) = analyze(inventory).pipelines
    step = pipeline.steps[0]
    assert isinstance(step, CodeStep)
    assert [v.to_dict() for v in step.env] == [
        {"name": "SHELF_USER", "from": "input.user_id"},
        {"name": "SHELF_DIR", "from": "input.shelf_dir"},
    ]
    assert [(i.name, i.required) for i in pipeline.input] == [
        ("user_id", True),
        ("shelf_dir", False),
    ]


def test_the_step_gives_the_program_its_variables(skill: Path, tmp_path: Path) -> None:
    report = convert(Options(skill, out=tmp_path / "app", analyzer="heuristic"))
    assert report.ok, report.human_lines()
    (name,) = [p["name"] for p in report.to_dict()["pipelines"]]
    done = invoke("run", tmp_path / "app", name, "-i", "user_id=ahbei", "--json")
    assert done.exit_code == 0, done.stderr  # the constructor does not ask for SHELF_USER
    output = json.loads(done.stdout)["output"]
    assert output == {"user": "ahbei", "dir": ""}


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"name": "LD_PRELOAD", "value": "x.so"}, "LD_PRELOAD is not the plan's to set"),
        ({"name": "SHELF_USER", "from": "input.nobody"}, "nobody"),
    ],
)
def test_a_plan_may_not_set_what_decides_which_code_runs(
    skill: Path, tmp_path: Path, env: dict, problem: str
) -> None:
    plan = analyze(build_inventory(skill)).to_dict()
    plan["pipelines"][0]["steps"][0]["env"] = [env]
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    with pytest.raises(ConvertError, match=problem):
        convert(Options(skill, out=tmp_path / "app", plan=plan_file))


def test_a_usage_line_starting_with_variables_names_no_positional() -> None:
    split = split_usage("Usage: SHELF_USER=<user_id> python3 export.py FILE")
    assert split is not None and split[0] == "FILE"


def test_a_variable_the_plan_may_not_set_is_left_to_the_shell(tmp_path: Path) -> None:
    """Review: `PYTHONPATH=. python3 scripts/stats.py` made an env entry the plan check refuses,
    and the program lost its pipeline."""
    skill = write_tree(
        tmp_path / "stats",
        {
            "SKILL.md": "---\nname: stats\ndescription: Stats.\n---\n# Stats\n\n```bash\n"
            "PYTHONPATH=. NODE_OPTIONS=--x python3 scripts/stats.py --file data.csv\n```\n",
            "scripts/stats.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--file')\np.parse_args()\n",
        },
    )
    (pipeline,) = analyze(build_inventory(skill)).pipelines
    step = pipeline.steps[0]
    assert isinstance(step, CodeStep) and step.env == []


def test_a_secret_is_never_a_literal_of_the_plan(skill: Path, tmp_path: Path) -> None:
    plan = analyze(build_inventory(skill)).to_dict()
    plan["pipelines"][0]["steps"][0]["env"] = [{"name": "SHELF_API_TOKEN", "value": "sk-12345678"}]
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    with pytest.raises(ConvertError, match="SHELF_API_TOKEN holds a secret"):
        convert(Options(skill, out=tmp_path / "app", plan=plan_file))


def test_a_value_with_a_blank_inside_is_an_input_not_a_literal(tmp_path: Path) -> None:
    """amazon-photos-album-download (round 41): `ALBUM_URL="https://…/share/REPLACE_WITH_SHARE_ID"
    bun scripts/x.ts` was set as that literal, so the pipeline could only ever download the
    placeholder album; a real literal (`ALBUM_INCLUDE=image`) stays fixed."""
    md = (
        "---\nname: album\ndescription: Download a shared album.\n---\n# Album\n\n```bash\n"
        'ALBUM_URL="https://photos.example.org/share/REPLACE_WITH_SHARE_ID" \\\n'
        "ALBUM_INCLUDE=image \\\npython3 scripts/get.py\n```\n"
    )
    program = "import os\nprint(os.environ['ALBUM_URL'], os.environ.get('ALBUM_INCLUDE'))\n"
    skill = write_tree(tmp_path / "album", {"SKILL.md": md, "scripts/get.py": program})
    (pipeline,) = analyze(build_inventory(skill)).pipelines
    step = pipeline.steps[0]
    assert isinstance(step, CodeStep)
    assert {"name": "ALBUM_URL", "from": "input.album_url"} in [v.to_dict() for v in step.env]
    assert {"name": "ALBUM_INCLUDE", "value": "image"} in [v.to_dict() for v in step.env]
    assert ("album_url", True) in [(i.name, i.required) for i in pipeline.input]


def test_a_word_that_only_holds_replace_is_a_real_value() -> None:
    from skill2app.converter.inventory.invocations import is_placeholder

    assert not is_placeholder("mode=REPLACEMENT")
    assert not is_placeholder("--sel=<div>")
    assert is_placeholder("x_REPLACE_WITH_ID")
