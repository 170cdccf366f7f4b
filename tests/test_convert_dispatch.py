"""A program that dispatches on its first word: each word takes the positionals its lines show.

wix-design-system (round 10): ``node $WDS search <keyword>``, ``components <Name1> <Name2>...``,
``example <Name> "<ExampleName>"``, ``testkit <Name> [method]`` — the heuristic gave every
pipeline all of them at once, as required inputs ``keyword, text, text_2, text_2_2, ...``, and
passed the unused ones to the program.
"""

from __future__ import annotations

from pathlib import Path

from helpers import write_tree

from skill2app.converter.analyzers.dispatch import dispatched
from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.inventory.programs.interface import Command, Param
from skill2app.converter.plan.model import CodeStep

SKILL_MD = """\
---
name: docs-helper
description: Look up components of a design system.
---
# Docs helper

```bash
DH="<this-skill-dir>/scripts/dh.cjs"

node $DH search <keyword>                 # Find components by keyword
node $DH components <Name1> <Name2>...    # Props of several components
node $DH example <Name> "<ExampleName>"   # One example
node $DH testkit <Name> [method]          # Testkit driver API
```

## Find a component

```bash
node $DH search table
node $DH search form input validation
```

## Several at once

```bash
node $DH components Button Card Table
```

## An example

```bash
node $DH example Button "Loading state"
node $DH testkit Button click
```
"""
DH = """\
const [command, ...args] = process.argv.slice(2);
switch (command) {
  case 'search': console.log(JSON.stringify({found: args})); break;
  case 'components': console.log(JSON.stringify({props: args})); break;
  case 'example': console.log(JSON.stringify({example: args})); break;
  case 'testkit': console.log(JSON.stringify({testkit: args})); break;
  default: console.error('unknown command'); process.exit(1);
}
"""


def test_each_word_takes_only_the_positionals_its_lines_show(tmp_path: Path) -> None:
    skill = write_tree(tmp_path / "docs-helper", {"SKILL.md": SKILL_MD, "scripts/dh.cjs": DH})
    plan = analyze(build_inventory(skill))
    inputs = {
        p.name.rsplit("-", 1)[-1]: [(i.name, i.type, i.required) for i in p.input]
        for p in plan.pipelines
    }
    assert inputs == {
        "search": [("keywords", "array", True)],
        "components": [("names", "array", True)],
        "example": [("name", "string", True), ("example_name", "string", True)],
        "testkit": [("name", "string", True), ("method", "string", False)],
    }
    search = next(p for p in plan.pipelines if p.name.endswith("search"))
    step = search.steps[0]
    assert isinstance(step, CodeStep) and step.subcommand == "search"
    assert [a.ref for a in step.args] == ["input.keywords"]


def test_the_names_come_from_the_line_with_the_most_placeholders() -> None:
    flag = Param("--json", "flag", "json", type="boolean")
    cli = Command("node", params=[Param("text", "positional", "text"), flag])
    one = dispatched(cli, [["Button"], ["<Name>"]])
    assert [(p.name, p.type, p.required, p.rest) for p in one.positionals()] == [
        ("name", "string", True, False)
    ]
    assert one.flag("--json") is flag  # the program's flags stay
    many = dispatched(cli, [["<query>"], ["Add", "Edit", "Delete"]])
    assert [(p.name, p.type, p.rest) for p in many.positionals()] == [("queries", "array", True)]
    none = dispatched(cli, [[]])
    assert none.positionals() == []


def test_positionals_shown_with_the_same_name_are_numbered_not_stacked(tmp_path: Path) -> None:
    skill_md = (
        "---\nname: pair\ndescription: Compare.\n---\n# Pair\n\n```bash\n"
        "python3 scripts/cmp.py alpha beta gamma\n```\n"
    )
    cmp_py = "import sys\nprint(sys.argv[1:])\n"
    skill = write_tree(tmp_path / "pair", {"SKILL.md": skill_md, "scripts/cmp.py": cmp_py})
    (pipeline,) = analyze(build_inventory(skill)).pipelines
    assert [i.name for i in pipeline.input] == ["text", "text_2", "text_3"]
