"""app-convert, first half: reading a skill (SKILL.md, programs, invocations, requirements).

Goldens: tests/golden/convert/<skill>/inventory.json, regenerated only with UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import write_tree

from skill2app.converter.errors import ConvertError, FrontmatterError, SkillError
from skill2app.converter.inventory.invocations import invocations_in
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.inventory.programs import probe as probe_module
from skill2app.converter.inventory.programs.node import scan_node
from skill2app.converter.inventory.programs.python import extract_python_cli
from skill2app.converter.inventory.programs.scripts import (
    positional_name,
    scan_shell,
    split_usage,
    usage_positionals,
)
from skill2app.converter.inventory.skill import parse_skill_md
from skill2app.runtime.run import sandbox

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "skills"
GOLDEN = Path(__file__).resolve().parent / "golden" / "convert"
SKILLS = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").is_file())
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def compare_golden(path: Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing golden {path}; run with UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8")


# -- SKILL.md ------------------------------------------------------------------------------

OK = "---\nname: demo\ndescription: Does things.\n---\n# Demo\n"
BOMB = (
    "---\ndescription: d\na: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n---\n"
)


@pytest.mark.parametrize(
    ("text", "expected_error", "line"),
    [
        pytest.param(OK, None, 0, id="minimal"),
        pytest.param("\ufeff" + OK.replace("\n", "\r\n"), None, 0, id="bom-crlf"),
        pytest.param("---\nname: demo\ndescription: a --- b\n---\n", None, 0, id="dashes-in-value"),
        pytest.param(
            "---\nname: demo\ndescription: >\n  two\n  ---lines\n---\n", None, 0, id="folded"
        ),
        pytest.param("# Demo\n", "SKILL.md has no frontmatter", 1, id="no-frontmatter"),
        pytest.param("\n" + OK, "must start on line 1, not line 2", 2, id="blank-first"),
        pytest.param("---\nname: demo\ndescription: d\n", "never closed", 1, id="unclosed"),
        pytest.param(
            "---\nname: demo\ndescription: Does X: then Y\n---\n",
            "mapping values are not allowed",
            3,
            id="unquoted-colon",
        ),
        pytest.param(
            "---\nname: demo\ndescription: d\nmetadata:\n\tauthor: me\n---\n",
            "cannot start any token",
            5,
            id="tab-indent",
        ),
        pytest.param("---\nname: [a, b\n---\n", "broken YAML", 2, id="unclosed-flow"),
        pytest.param("---\n- a\n- b\n---\n", "is a list, not a mapping", 2, id="list"),
        pytest.param("---\n---\n", "the frontmatter is empty", 1, id="empty"),
        pytest.param("---\nname: demo\n---\n", "`description` is missing", 1, id="no-description"),
        pytest.param(
            "---\nname: demo\ndescription: ''\n---\n", "`description` is empty", 3, id="empty-desc"
        ),
        pytest.param(
            "---\nname: demo\ndescription:\n  - a\n---\n",
            "`description` is a list",
            3,
            id="desc-list",
        ),
        pytest.param("---\nname: 12\ndescription: d\n---\n", "`name` is a int", 2, id="name-int"),
        pytest.param(
            "---\ndescription: d\nx: !!python/object:os.system a\n---\n",
            "could not determine a constructor",
            3,
            id="python-tag",
        ),
        pytest.param(BOMB, "expands to more than", 6, id="alias-bomb"),
        pytest.param(
            "---\nname: demo\ndescription: d\nname: other\n---\n",
            "has `name` twice (lines 2 and 4)",
            4,
            id="duplicate-key",
        ),
        pytest.param(
            "---\nname: demo\ndescription: d\nmetadata:\n  version: 1\n  version: 2\n---\n",
            "has `metadata.version` twice (lines 5 and 6)",
            6,
            id="duplicate-nested-key",
        ),
    ],
)
def test_skill_md_frontmatter(text: str, expected_error: str | None, line: int) -> None:
    if expected_error is None:
        doc = parse_skill_md(text, folder_name="demo")
        assert doc.frontmatter.name == "demo"
        return
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_md(text, folder_name="demo")
    assert expected_error in caught.value.message
    assert caught.value.where is not None and caught.value.where.line == line
    assert caught.value.hint
    assert caught.value.exit_code == 3


def test_frontmatter_fields_and_vendor_extras() -> None:
    text = (
        "---\nname: demo\ndescription: |\n  Line one --- still the description.\n  Two.\n"
        "license: MIT\ncompatibility: Needs git\nmetadata: {author: me, version: 1.0}\n"
        "allowed-tools: Bash(git add:*) Bash(git status:*) Read\nuser-invocable: true\n"
        "created: 2024-05-01\nmodel: sonnet\n---\nbody\n"
    )
    fm = parse_skill_md(text, folder_name="other").frontmatter
    assert fm.description == "Line one --- still the description. Two."
    assert fm.allowed_tools == ["Bash(git add:*)", "Bash(git status:*)", "Read"]
    assert fm.metadata == {"author": "me", "version": 1.0}
    assert fm.extra == {"created": "2024-05-01", "model": "sonnet", "user-invocable": True}
    assert fm.end_line == 13
    warnings = parse_skill_md(text, folder_name="other").warnings
    assert warnings == ["SKILL.md: name 'demo' differs from its folder name 'other'"]


def test_flow_list_and_comma_tools() -> None:
    flow = '---\nname: demo\ndescription: d\nallowed-tools: [Read, "Bash(x:*)"]\n---\n'
    assert parse_skill_md(flow).frontmatter.allowed_tools == ["Read", "Bash(x:*)"]
    comma = "---\nname: demo\ndescription: d\nallowed-tools: Read, Bash(git log:*)\n---\n"
    assert parse_skill_md(comma).frontmatter.allowed_tools == ["Read", "Bash(git log:*)"]


def test_missing_name_falls_back_to_folder() -> None:
    doc = parse_skill_md("---\ndescription: d\n---\n", folder_name="my-skill")
    assert doc.frontmatter.name == "my-skill"
    assert "no `name`" in doc.warnings[0]


def test_sections_and_code_blocks() -> None:
    text = (
        "---\nname: demo\ndescription: d\n---\n"  # lines 1-4
        "# Title #\n"  # 5
        "intro `python x.py --a 1`\n"  # 6
        "## Steps\n"  # 7
        "1. Run:\n"  # 8
        "   ```bash\n"  # 9
        "   # not a heading\n"  # 10
        "   python x.py \\\n"  # 11
        "     --b 2\n"  # 12
        "   ```\n"  # 13
        "Setext title\n"  # 14
        "------------\n"  # 15
        "~~~~\n"  # 16
        "```inner```\n"  # 17
        "~~~~\n"  # 18
        "```sh\n"  # 19
        "unclosed\n"  # 20
    )
    doc = parse_skill_md(text)
    assert [(s.level, s.title, s.line, s.end_line) for s in doc.sections] == [
        (1, "Title", 5, 20),
        (2, "Steps", 7, 13),
        (2, "Setext title", 14, 20),
    ]
    assert [(b.language, b.line, b.section) for b in doc.code_blocks] == [
        ("bash", 9, 1),
        ("", 16, 2),
        ("sh", 19, 2),
    ]
    assert doc.code_blocks[0].text == "# not a heading\npython x.py \\\n  --b 2"
    assert doc.code_blocks[1].text == "```inner```"
    assert [(c.text, c.line, c.section) for c in doc.inline_code] == [("python x.py --a 1", 6, 0)]
    assert doc.warnings == ["SKILL.md:19: code fence is never closed"]


# -- folders -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "expected_error"),
    [
        pytest.param({"README.md": "# x"}, "no SKILL.md in this folder", id="no-skill-md"),
        pytest.param(
            {"SKILL.md": b"---\nname: x\ndescription: \xff\n---\n"}, "not UTF-8", id="latin1"
        ),
        pytest.param({"SKILL.md": "x" * 1_000_001}, "more than 1000000", id="oversized"),
        pytest.param({"SKILL.md": "no frontmatter"}, "has no frontmatter", id="no-frontmatter"),
        pytest.param(
            {"SKILL.md/notes.txt": "x", "skill.md": OK},
            "SKILL.md is not a file",
            id="skill-md-is-a-folder",
        ),
    ],
)
def test_skill_folder_errors(
    tmp_path: Path, files: dict[str, str | bytes], expected_error: str
) -> None:
    write_tree(tmp_path, files)
    with pytest.raises(SkillError) as caught:
        build_inventory(tmp_path)
    assert expected_error in caught.value.one_line()


def test_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ConvertError, match="not a folder"):
        build_inventory(tmp_path / "missing")


def test_lowercase_skill_md_and_skipped_folders(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "skill.md": OK,
            "node_modules/pkg/index.js": "",
            ".git/config": "",
            "scripts/__pycache__/x.pyc": "",
            "pipelines/x/pipeline.yaml": "",
            "scripts/run.sh": "#!/bin/sh\necho hi\n",
        },
    )
    inventory = build_inventory(tmp_path)
    assert [f.path for f in inventory.files] == ["scripts/run.sh", "skill.md"]
    assert any("named skill.md" in w for w in inventory.warnings)


# -- invocations ---------------------------------------------------------------------------

FILES = ["scripts/fill_form.py", "scripts/x.sh", "calendar.js", "tools/report.py", "lib/run.rb"]


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        (
            "python scripts/fill_form.py in.pdf fields.json out.pdf",
            "",
            [("scripts/fill_form.py", ["in.pdf", "fields.json", "out.pdf"], "python", [])],
        ),
        (
            'node ./calendar.js --action create_event --summary "Team sync" \\\n'
            "  --start 2025-01-01",
            "",
            [
                (
                    "calendar.js",
                    ["--action", "create_event", "--summary", "Team sync", "--start", "2025-01-01"],
                    "node",
                    [],
                )
            ],
        ),
        (
            "API_KEY=abc DEBUG=1 python3 scripts/fill_form.py a",
            "",
            [("scripts/fill_form.py", ["a"], "python3", ["API_KEY", "DEBUG"])],
        ),
        (
            "cd scripts && ./x.sh add --title 'a b' | jq .",
            "",
            [("scripts/x.sh", ["add", "--title", "a b"], "", [])],
        ),
        ("cd {baseDir}/scripts\nbash x.sh list", "", [("scripts/x.sh", ["list"], "bash", [])]),
        (
            "$ python3 {baseDir}/scripts/fill_form.py --help\nusage: fill_form.py\n$ echo ok",
            "console",
            [("scripts/fill_form.py", ["--help"], "python3", [])],
        ),
        (
            "cat <<EOF > f.json\npython scripts/x.sh\nEOF\npython scripts/fill_form.py f.json # c",
            "",
            [("scripts/fill_form.py", ["f.json"], "python", [])],
        ),
        (
            "python -m tools.report --week 3 2>&1 | tee out.log",
            "",
            [("tools/report.py", ["--week", "3"], "python", [])],
        ),
        (
            "uv run --with pypdf scripts/fill_form.py x.pdf",
            "",
            [("scripts/fill_form.py", ["x.pdf"], "uv run --with pypdf", [])],
        ),
        (
            "uv run scripts/fill_form.py compile",  # `uv` alone refuses the script
            "",
            [("scripts/fill_form.py", ["compile"], "uv run", [])],
        ),
        (
            "~/.claude/skills/demo/scripts/x.sh --flag=1 && echo ok",
            "",
            [("scripts/x.sh", ["--flag=1"], "", [])],
        ),
        (
            "sudo -E env FOO=1 ruby lib/run.rb --n 3 > out.txt",
            "",
            [("lib/run.rb", ["--n", "3"], "ruby", ["FOO"])],
        ),
        (
            'python3 "${CLAUDE_SKILL_DIR}/scripts/fill_form.py" \'unbalanced',
            "",
            [("scripts/fill_form.py", ["unbalanced"], "python3", [])],
        ),
        (
            'for f in *.pdf; do python scripts/fill_form.py "$f"; done',
            "",
            [("scripts/fill_form.py", ["$f"], "python", [])],
        ),
        ("(cd tools && python report.py --x)", "", [("tools/report.py", ["--x"], "python", [])]),
        (
            "python scripts/fill_form.py <input.pdf> <output pdf> 2>/dev/null",
            "",
            [("scripts/fill_form.py", ["<input.pdf>", "<output pdf>"], "python", [])],
        ),
        (  # placeholders joined by a slash, or in an optional group: words, not redirections
            "python scripts/fill_form.py --repo <owner>/<repo> --path <dir> [<dir> ...]",
            "",
            [
                (
                    "scripts/fill_form.py",
                    ["--repo", "<owner>/<repo>", "--path", "<dir>", "<dir>", "..."],
                    "python",
                    [],
                )
            ],
        ),
        (
            "python scripts/fill_form <in.pdf>",
            "",
            [("scripts/fill_form.py", ["<in.pdf>"], "python", [])],
        ),
        (  # charting-vega-lite (round 21): a placeholder ending a path is no redirection,
            # in quotes too (uipath-governance)
            'python scripts/fill_form.py /uploads/<filename> --out "$T/<product>.json" --x',
            "",
            [
                (
                    "scripts/fill_form.py",
                    ["/uploads/<filename>", "--out", "$T/<product>.json", "--x"],
                    "python",
                    [],
                )
            ],
        ),
        ("python other.py --x", "", []),
        (  # burpsuite-project-parser (fresh3): the skill root as a `{baseDir}` placeholder
            "{baseDir}/scripts/fill_form.py in.pdf auditItems | wc -cl",
            "bash",
            [("scripts/fill_form.py", ["in.pdf", "auditItems"], "", [])],
        ),
    ],
)
def test_invocations(text: str, language: str, expected: list[tuple]) -> None:
    found, _others = invocations_in(text, 1, language, FILES)
    assert [(i.program, i.argv, i.interpreter, i.env) for i in found] == expected


# -- stdin: what a command feeds a program ----------------------------------------------------

STDIN_FILES = ["tools/get.py", "tools/fetch.py"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "cat data.json | python3 tools/get.py --path user.name",
            [("tools/get.py", ["--path", "user.name"], ("file", "data.json"))],
            id="cat-file-pipe",
        ),
        pytest.param(
            "python3 tools/get.py < input.txt 2>/dev/null",
            [("tools/get.py", [], ("file", "input.txt"))],
            id="redirect",
        ),
        pytest.param(
            "python3 tools/get.py 0<input.txt",
            [("tools/get.py", [], ("file", "input.txt"))],
            id="redirect-fd-0",
        ),
        pytest.param(
            "echo '{\"a\": 1}' | python3 tools/get.py",
            [("tools/get.py", [], ("text", '{"a": 1}'))],
            id="echo-pipe",
        ),
        pytest.param(
            "python3 tools/get.py <<< 'hi there'",
            [("tools/get.py", [], ("text", "hi there"))],
            id="here-string",
        ),
        pytest.param(  # review: read as a heredoc, it swallowed every later command
            'python3 tools/get.py <<< "some text"\npython3 tools/fetch.py --id 3',
            [("tools/get.py", [], ("text", "some text")), ("tools/fetch.py", ["--id", "3"], None)],
            id="here-string-then-a-command",
        ),
        pytest.param(  # review: the digit before `<` was dropped inside quotes too
            'python3 tools/get.py --expr "x 1<2" 2>>err.log',
            [("tools/get.py", ["--expr", "x 1<2"], None)],
            id="digit-before-angle-in-quotes",
        ),
        pytest.param(  # only fd 0 is stdin
            "python3 tools/get.py 3<extra.txt 2>&1",
            [("tools/get.py", [], None)],
            id="redirect-another-fd",
        ),
        pytest.param(
            "cat <<EOF | python3 tools/get.py\n{}\nEOF",
            [("tools/get.py", [], ("text", "{}"))],
            id="heredoc-through-cat",
        ),
        pytest.param(
            'python3 tools/get.py <<EOF2\n{"a": 1,\n "b": 2}\nEOF2\npython3 tools/fetch.py',
            [("tools/get.py", [], ("text", '{"a": 1,\n "b": 2}')), ("tools/fetch.py", [], None)],
            id="heredoc-body",
        ),
        pytest.param(
            "python3 tools/get.py <<-'END' --path x\n\thello\n\tEND",
            [("tools/get.py", ["--path", "x"], ("text", "hello"))],
            id="heredoc-tabs-stripped",
        ),
        pytest.param(
            "curl -s https://example.org/a | python3 tools/get.py",
            [("tools/get.py", [], ("command", "curl -s https://example.org/a"))],
            id="command-pipe",
        ),
        pytest.param(
            "cat a.json b.json | python3 tools/get.py",
            [("tools/get.py", [], ("command", "cat a.json b.json"))],
            id="two-files",
        ),
        pytest.param(
            "(cat a.json; cat b.json) | python3 tools/get.py",
            [("tools/get.py", [], ("command", ""))],
            id="subshell",
        ),
        pytest.param(
            "python3 tools/fetch.py --id 3 | python3 tools/get.py",
            [
                ("tools/fetch.py", ["--id", "3"], None),
                ("tools/get.py", [], ("program", "tools/fetch.py")),
            ],
            id="program-pipe",
        ),
        pytest.param(
            "python3 tools/get.py --path x | jq . > out.json",
            [("tools/get.py", ["--path", "x"], None)],
            id="piped-out-only",
        ),
    ],
)
def test_what_a_command_feeds_a_program_on_stdin(text: str, expected: list[tuple]) -> None:
    found, _others = invocations_in(text, 1, "bash", STDIN_FILES)
    got = [(i.program, i.argv, (i.stdin.kind, i.stdin.value) if i.stdin else None) for i in found]
    assert got == expected


def test_the_inventory_shows_stdin_only_where_there_is_some(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK
            + "```bash\ncat d.json | python3 tools/get.py\npython3 tools/get.py -h\n```\n",
            "tools/get.py": "import sys\nprint(sys.stdin.read())\n",
        },
    )
    program = build_inventory(tmp_path).to_dict()["programs"][0]
    assert [inv.get("stdin") for inv in program["invocations"]] == [
        {"kind": "file", "value": "d.json"},
        None,
    ]


# -- command lines read statically ----------------------------------------------------------

ARGPARSE = '''"""Fill a form.\n\nMore."""
import argparse
from enum import Enum
ACTIONS = {"create": 1, "list": 2}
class Color(str, Enum):
    RED = "red"
    BLUE = "blue"
p = argparse.ArgumentParser(description=__doc__)
p.add_argument("input", help="in pdf")
p.add_argument("out", nargs="?")
p.add_argument("-a", "--action", choices=sorted(ACTIONS), required=True)
p.add_argument("--n", type=int, default=3)
p.add_argument("--color", choices=[c.value for c in Color])
g = p.add_mutually_exclusive_group()
g.add_argument("--json", action="store_true")
p.add_argument("--tag", action="append")
p.add_argument("--color-out", action=argparse.BooleanOptionalAction)
p.add_argument("--version", action="version", version="1")
sub = p.add_subparsers(dest="cmd")
s1 = sub.add_parser("add", help="Add a thing")
s1.add_argument("--title", required=True)
'''
CLICK = '''import click
@click.group()
def cli():
    """Notes tool."""
@cli.command()
@click.option("--title", "-t", required=True, help="Title")
@click.option("--fmt", type=click.Choice(["md", "txt"]), default="md")
@click.option("--verbose/--quiet", default=False)
@click.argument("files", nargs=-1)
def add_note(title, fmt, verbose, files):
    """Add a note."""
@click.command("rm")
@click.argument("id", type=int)
def remove_cmd(id):
    """Remove."""
cli.add_command(remove_cmd)
'''
TYPER = '''import typer
from typing import Annotated, Literal, Optional
app = typer.Typer(help="Calendar")
@app.command()
def create_event(summary: str, start: Annotated[str, typer.Option("--start", "-s")],
                 duration: int = 30, all_day: bool = False, tags: Optional[list[str]] = None,
                 kind: Literal["a", "b"] = "a", store: str = typer.Option(..., help="Store")):
    """Create an event."""
@app.command("ls")
def list_events(ctx: typer.Context, days: int = typer.Option(7, "--days")):
    """List."""
'''


def _params(command) -> list[tuple]:  # type: ignore[no-untyped-def]
    return [
        (p.name, p.kind, p.type, p.required, p.choices, p.default, p.aliases)
        for p in command.params
    ]


def test_argparse_cli() -> None:
    command, doc = extract_python_cli(ARGPARSE)
    assert command is not None and doc == "Fill a form.\n\nMore."
    assert command.framework == "argparse" and command.description == "Fill a form."
    assert _params(command) == [
        ("input", "positional", "string", True, None, None, []),
        ("out", "positional", "string", False, None, None, []),
        ("--action", "flag", "string", True, ["create", "list"], None, ["-a"]),
        ("--n", "flag", "integer", False, None, 3, []),
        ("--color", "flag", "string", False, ["red", "blue"], None, []),
        ("--json", "flag", "boolean", False, None, None, []),
        ("--tag", "flag", "array", False, None, None, []),
        ("--color-out", "flag", "boolean", False, None, None, ["--no-color-out"]),
    ]
    assert _params(command.subcommands["add"]) == [
        ("--title", "flag", "string", True, None, None, [])
    ]


DISPATCHED = '''"""Goal loop engine."""
import argparse, sys
def cmd_lock(argv):
    parser = argparse.ArgumentParser(prog="goal_loop.py lock")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--out", required=True)
    return parser.parse_args(argv)
def cmd_halt(argv):
    parser = argparse.ArgumentParser(prog="goal_loop.py halt", description="Stop on a stall.")
    parser.add_argument("history")
    parser.add_argument("--window", type=int, default=6)
    return parser.parse_args(argv)
def main():
    command, rest = sys.argv[1], sys.argv[2:]
    if command == "lock":
        return cmd_lock(rest)
    if command == "halt":
        return cmd_halt(rest)
'''


def test_one_parser_per_subcommand_picked_by_hand() -> None:
    """goal-loop (round 32): `ArgumentParser(prog="goal_loop.py lock")` in each cmd_ function,
    main() comparing argv[0] with "lock": the first parser was taken for the whole program, so
    every pipeline ran `goal_loop.py FILES --out X` without its subcommand."""
    command, _doc = extract_python_cli(DISPATCHED)
    assert command is not None and command.params == []
    assert sorted(command.subcommands) == ["halt", "lock"]
    assert _params(command.subcommands["lock"]) == [
        ("files", "positional", "array", True, None, None, []),
        ("--out", "flag", "string", True, None, None, []),
    ]
    assert command.subcommands["halt"].description == "Stop on a stall."
    assert command.subcommands["halt"].flag("--window").type == "integer"


def test_a_message_or_a_flags_fallback_is_no_requirement(tmp_path: Path) -> None:
    """FRESH40/41: build-pdf.sh's `log_error "... Please specify which one:"` required the
    binary `one`; wp-discovery.js's `if (!args.apiKey) { args.apiKey = process.env.WP_API_KEY;
    }` (a flag's fallback) and `if (... && process.env.WP_AUTH_HEADER) { ...push(process.env.
    WP_AUTH_HEADER) }` blocked every run without those variables."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: t\ndescription: T.\n---\n# T\n\n"
            "```bash\nbash scripts/build.sh\nnode scripts/wp.js --base-url https://x.org\n```\n",
            "scripts/build.sh": 'err() { echo "$1" >&2; }\nerr "Please specify which one:"\n'
            "if ! command -v pandoc >/dev/null; then exit 1; fi\npandoc -o a.pdf a.md\n",
            "scripts/wp.js": "const args = {headers: []};\n"
            "if (!args.apiKey) {\n  args.apiKey = process.env.WP_API_KEY;\n}\n"
            "if (args.headers.length === 0 && process.env.WP_AUTH) {\n"
            "  args.headers.push(process.env.WP_AUTH);\n}\nconst need = process.env.WP_NEED;\n",
        },
    )
    found = {(r.kind, r.name): r.required for r in build_inventory(tmp_path).requirements}
    assert ("binary", "one") not in found and found[("binary", "pandoc")]
    assert not found[("env", "WP_API_KEY")] and not found[("env", "WP_AUTH")]
    assert found[("env", "WP_NEED")]


def test_a_switch_a_named_default_or_a_sessions_own_variable_is_no_requirement(
    tmp_path: Path,
) -> None:
    """rp-telemetry (FRESH43): `return process.env.RP_TELEMETRY_BI_DISABLED === '1';` (off
    when unset) blocked every pipeline (now a setting to mention), and `process.env.X_ENDPOINT
    || DEFAULT_ENDPOINT` was a warning; a variable read bare still counts."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: t\ndescription: T.\n---\n# T\n\n"
            "```bash\nnode scripts/sink.js\n```\n",
            "scripts/sink.js": "const DEFAULT_ENDPOINT = 'https://x.org';\n"
            "function off() {\n  return process.env.SINK_DISABLED === '1';\n}\n"
            "const url = process.env.SINK_ENDPOINT || DEFAULT_ENDPOINT;\n"
            "const token = process.env.SINK_TOKEN;\n"
            # the reviewer's: a presence check is no switch
            "assert.ok(process.env.SINK_KEY !== undefined, 'SINK_KEY is required');\n"
            # azure-provision (FRESH42): HOME blocked every pipeline
            "const vault = `${process.env.HOME}/.local/bin/vault`;\n",
            "scripts/home.py": "import os\nprint(os.environ['HOME'], os.environ['USER'])\n",
        },
    )
    found = {(r.kind, r.name): r.required for r in build_inventory(tmp_path).requirements}
    assert not found[("env", "SINK_DISABLED")] and ("env", "SINK_ENDPOINT") not in found
    assert found[("env", "SINK_TOKEN")] and found[("env", "SINK_KEY")]
    assert ("env", "HOME") not in found and not found[("env", "USER")]


def test_what_a_node_program_tries_and_goes_on_without_is_no_requirement(tmp_path: Path) -> None:
    """rp-telemetry (FRESH43): `try { execFileSync('git', ['-C', __dirname, 'rev-parse', ...])
    } catch { /* no git: provenance stays null */ }` blocked every pipeline on git.  A catch
    that reports the failure keeps the need."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: t\ndescription: T.\n---\n# T\n\n"
            "```bash\nnode scripts/rec.js\n```\n",
            "scripts/rec.js": "const { execFileSync } = require('node:child_process');\n"
            "let sha = null;\ntry {\n  sha = execFileSync('git', ['rev-parse', 'HEAD']);\n"
            "} catch {\n  // no git here: provenance stays null\n}\n"
            "try { require('sharp'); } catch (e) { /* thumbnails off */ }\n"
            "try {\n  execFileSync('gh', ['auth', 'status']);\n} catch (e) {\n"
            "  console.log(JSON.stringify({ ok: false, reason: 'gh' }));\n}\n"
            # a second reviewer's: a read throws nothing; a failure said, an async run
            "try {\n  const key = process.env.REC_TOKEN;\n  execFileSync('ffmpeg', ['-i']);\n"
            "} catch (e) {\n  console.log(`conversion failed: ${e.message}`);\n}\n"
            "try {\n  execFileSync('pandoc', ['-v']);\n} catch (e) {\n  return null;\n}\n"
            "try {\n  spawn('magick', ['x']);\n} catch (e) {\n  // later\n}\n"
            "try {\n  execSync('qpdf --version');\n} catch (e) {\n  process.exitCode = 1;\n}\n",
        },
    )
    found = {(r.kind, r.name): r.required for r in build_inventory(tmp_path).requirements}
    assert not found[("binary", "git")] and not found[("node-package", "sharp")]
    assert found[("binary", "gh")] and found[("env", "REC_TOKEN")] and found[("binary", "ffmpeg")]
    assert found[("binary", "pandoc")] and found[("binary", "magick")] and found[("binary", "qpdf")]


def test_a_checked_variable_and_a_backquoted_which_stay_requirements(tmp_path: Path) -> None:
    """The reviewer's of the change above: `if (!process.env.API_KEY) { exit }` is the usual
    mandatory check, and `which` inside backquotes runs."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: t\ndescription: T.\n---\n# T\n\n"
            "```bash\nbash scripts/b.sh\nnode scripts/k.js\n```\n",
            "scripts/b.sh": 'PANDOC="`which pandoc`"\n$PANDOC -o out.pdf "$1"\n',
            "scripts/k.js": "if (!process.env.API_KEY) {\n  console.error('API_KEY is required');\n"
            "  process.exit(1);\n}\nconst key = process.env.API_KEY;\n",
        },
    )
    found = {(r.kind, r.name): r.required for r in build_inventory(tmp_path).requirements}
    assert found[("env", "API_KEY")] and ("binary", "pandoc") in found


def test_a_parser_factory_with_a_docstring_adds_no_subcommand_of_its_own() -> None:
    source = (
        "import argparse\nname = 'helper'\np = argparse.ArgumentParser()\n"
        'sub = p.add_subparsers()\ndef command(name):\n    "Make one."\n'
        "    return sub.add_parser(name)\nq = command('b')\nq.add_argument('--y')\n"
        "p.parse_args()\n"
    )
    command, _doc = extract_python_cli(source)
    assert command is not None and sorted(command.subcommands) == ["b"]


def test_a_dispatcher_takes_the_parsers_of_the_modules_it_runs(tmp_path: Path) -> None:
    """openclaw's cli.py (FRESH40): `choices=list(SUBCOMMANDS)` and a REMAINDER, then
    `SUBCOMMANDS[word].main(rest)` over imported modules: its 27 documented flags were 2."""
    module = (
        "import argparse, sys\ndef main(argv=None):\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('left')\n    p.add_argument('--json', action='store_true')\n"
        "    return p.parse_args(argv)\nif __name__ == '__main__':\n    sys.exit(main())\n"
    )
    dispatcher = (
        "import argparse\nimport compare\nimport audit\n"
        "SUBCOMMANDS = {'audit': audit, 'compare': compare, 'diff': compare}\n"
        "p = argparse.ArgumentParser()\np.add_argument('command', choices=list(SUBCOMMANDS))\n"
        "p.add_argument('args', nargs=argparse.REMAINDER)\na = p.parse_args()\n"
        "SUBCOMMANDS[a.command].main(a.args)\n"
    )
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: t\ndescription: T.\n---\n# T\n\n```bash\n"
            "python3 scripts/cli.py diff a.json --json\npython3 scripts/cli.py audit x\n```\n",
            "scripts/cli.py": dispatcher,
            "scripts/compare.py": module,
            "scripts/audit.py": module.replace("'left'", "'config'").replace(
                "    return p.parse_args(argv)\n",
                "    p.parse_args(argv)\n    return 1 if errors else 0\n",
            ),
        },
    )
    cli = build_inventory(tmp_path).program("scripts/cli.py").cli
    assert cli is not None and cli.params == []
    assert sorted(cli.subcommands) == ["audit", "diff"]  # compare: diff's alias, not shown
    assert cli.subcommands["diff"].flag("--json").type == "boolean"
    assert [p.name for p in cli.subcommands["audit"].positionals()] == ["config"]
    # audit.py's exit 1 (errors found) is an answer of `cli.py audit` too, not of `cli.py diff`
    assert set(cli.subcommands["audit"].verdicts) == {1} and not cli.subcommands["diff"].verdicts


def test_subcommands_made_by_a_factory_and_in_a_loop() -> None:
    """github-issue's polling_adapter.py (FRESH41): `def command(name): return
    sub.add_parser(name)`, some in `for name in ("verdict", "change-targets"):`; none of its
    18 subcommands nor their flags were read."""
    source = (
        "import argparse\ndef build():\n    parser = argparse.ArgumentParser()\n"
        "    sub = parser.add_subparsers(dest='command', required=True)\n"
        "    def command(name):\n        return sub.add_parser(name)\n"
        "    p = command('state-root'); p.add_argument('--name-with-owner', required=True)\n"
        "    for name in ('verdict', 'change-targets'):\n"
        "        p = command(name); p.add_argument('--body-file', required=True)\n"
        "    p = command('claim-lock'); p.add_argument('number')\n"
        "    p.add_argument('--owner-pid', required=True, type=int)\n"
        "    return parser\nbuild().parse_args()\n"
    )
    command, _doc = extract_python_cli(source)
    assert command is not None
    assert sorted(command.subcommands) == ["change-targets", "claim-lock", "state-root", "verdict"]
    for word in ("verdict", "change-targets"):
        assert command.subcommands[word].flag("--body-file").required
    lock = command.subcommands["claim-lock"]
    assert [p.name for p in lock.params] == ["number", "--owner-pid"]
    assert lock.flag("--owner-pid").type == "integer"


def test_one_renamed_parser_is_the_program_not_a_subcommand() -> None:
    """Review of the change above: `prog="weekly report"` in a program that also keys a
    table by "report" is the program's own parser; it takes two to make a dispatch, and an
    f-string `prog` names the subcommand too."""
    renamed = (
        "import argparse\nFORMATS = {'report': 1}\n"
        "parser = argparse.ArgumentParser(prog='weekly report')\n"
        "parser.add_argument('--week')\nparser.parse_args()\n"
    )
    command, _doc = extract_python_cli(renamed)
    assert command is not None and [p.name for p in command.params] == ["--week"]
    assert command.subcommands == {}
    spelled = DISPATCHED.replace('prog="goal_loop.py lock"', 'prog=f"{sys.argv[0]} lock"')
    command, _doc = extract_python_cli(spelled)
    assert command is not None and sorted(command.subcommands) == ["halt", "lock"]


SHARED = """import argparse
def add_common(parser):
    parser.add_argument("--store", default=".versions.jsonl")
    parser.add_argument("--format", choices=["text", "json"], default="text")
def build():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--verbose", action="store_true")
    parser = argparse.ArgumentParser(description="Version prompts.")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", parents=[common])
    add_common(add)
    add.add_argument("--name", required=True)
    ls = sub.add_parser("list")
    add_common(parser=ls)
    return parser
"""


def test_argparse_arguments_a_helper_or_a_parent_parser_adds() -> None:
    """prompt-engineer-toolkit (round 13): `add_common_subparser_args(add)` gave every
    subcommand --store and --format; app-convert said "has no flag --store" and refused a
    plan passing it.  ``parents=[common]`` is the other shared-arguments idiom."""
    command, _doc = extract_python_cli(SHARED)
    assert command is not None and command.description == "Version prompts."
    assert [p.name for p in command.subcommands["add"].params] == [
        "--verbose",
        "--store",
        "--format",
        "--name",
    ]
    listed = command.subcommands["list"]
    assert _params(listed) == [
        ("--store", "flag", "string", False, None, ".versions.jsonl", []),
        ("--format", "flag", "string", False, ["text", "json"], "text", []),
    ]
    assert not command.params  # the template parser is not the program's


def test_click_cli() -> None:
    command, _doc = extract_python_cli(CLICK)
    assert command is not None and command.description == "Notes tool."
    assert sorted(command.subcommands) == ["add-note", "rm"]
    assert _params(command.subcommands["add-note"]) == [
        ("--title", "flag", "string", True, None, None, ["-t"]),
        ("--fmt", "flag", "string", False, ["md", "txt"], "md", []),
        ("--verbose", "flag", "boolean", False, None, False, ["--quiet"]),
        ("files", "positional", "array", False, None, None, []),
    ]
    assert _params(command.subcommands["rm"]) == [
        ("id", "positional", "integer", True, None, None, [])
    ]


def test_typer_cli() -> None:
    command, _doc = extract_python_cli(TYPER)
    assert command is not None and sorted(command.subcommands) == ["create-event", "ls"]
    assert _params(command.subcommands["create-event"]) == [
        ("summary", "positional", "string", True, None, None, []),
        ("--start", "flag", "string", True, None, None, ["-s"]),
        ("--duration", "flag", "integer", False, None, 30, []),
        ("--all-day", "flag", "boolean", False, None, False, ["--no-all-day"]),
        ("--tags", "flag", "array", False, None, None, []),
        ("--kind", "flag", "string", False, ["a", "b"], "a", []),
        ("--store", "flag", "string", True, None, None, []),
    ]
    single, _ = extract_python_cli(
        "import typer\ndef main(name: str):\n    pass\ntyper.run(main)\n"
    )
    assert single is not None and _params(single) == [
        ("name", "positional", "string", True, None, None, [])
    ]


def test_python_without_cli_or_broken() -> None:
    assert extract_python_cli("import sys\nprint(sys.argv)\n")[0] is None
    assert extract_python_cli("def broken(:\n") == (None, "")


def test_shell_and_node_scans() -> None:
    shell = (
        "#!/bin/bash\n# Do things.\n#\n# usage: x.sh\nwhile getopts 'vo:' opt; do :; done\n"
        'case "$1" in\n  -t|--title) title="$2"; shift 2 ;;\n  --all) all=1 ;;\nesac\n'
        'case "${ACTION}" in\n  add) ;;\n  list|ls) ;;\n  *) exit 2 ;;\nesac\n'
    )
    command, dispatch = scan_shell(shell)
    assert command.description == "Do things."
    assert [(p.name, p.type, p.aliases) for p in command.params] == [
        ("-v", "boolean", []),
        ("-o", "string", []),
        ("--title", "string", ["-t"]),
        ("--all", "boolean", []),
    ]
    assert dispatch == {"ACTION": ["add", "list", "ls"]}
    node = (
        "// Calendar tool.\nconst { values } = parseArgs({ options: {\n"
        "  action: { type: 'string' }, all: { type: 'boolean', short: 'a' },\n"
        "  tag: { type: 'string', multiple: true } } });\n"
        "switch (values.action) { case 'add': break; case 'rm': break; }\n"
        "if (argv[2] === '--dry-run') {}\n"
    )
    command, dispatch = scan_node(node)
    assert [(p.name, p.type, p.aliases) for p in command.params] == [
        ("--action", "string", []),
        ("--all", "boolean", ["-a"]),
        ("--tag", "array", []),
        ("--dry-run", "string", []),
    ]
    assert dispatch == {"action": ["add", "rm"]}


@pytest.mark.parametrize(
    ("line", "arguments", "description", "names"),
    [
        ("用法: count.sh FILE 输出字数和句子数 (JSON)", "FILE", "输出字数和句子数 (JSON)",
         ["file"]),
        ("用法：count.sh FILE", "FILE", "", ["file"]),
        ("Usage: count.sh FILE  count words", "FILE", "count words", ["file"]),
        ("Usage: x.sh [-n N] LOG - keep the slow ones", "[-n N] LOG", "keep the slow ones",
         ["log"]),
        ("Usage: fmt.sh <in> <out>: formats a file", "<in> <out>", "formats a file", ["in", "out"]),
        ("Usage: wc.py FILE Counts words.", "FILE", "Counts words.", ["file"]),
        ("usage: agenda.sh --range today|week [--store FILE]", "--range today|week [--store FILE]",
         "", []),
        ("usage: notes.sh add --title T", "add --title T", "", []),
        ("Usage: check.py [fields.json]", "[fields.json]", "", ["fields_json"]),
        ("Counts words: usage is simple", None, None, []),
        # review: "two plain words in a row" began the description, dropping these names
        ("usage: $0 source dest", "source dest", "", ["source", "dest"]),
        ("Usage: python fill.py input.pdf output.pdf", "input.pdf output.pdf", "",
         ["input_pdf", "output_pdf"]),
        ("Usage: cp.sh src dest: copies a file", "src dest", "copies a file", ["src", "dest"]),
        ("Usage: notes.sh add TITLE", "add TITLE", "", ["title"]),
        ("usage: python3 diff.py FILE.diff (prints JSON)", "FILE.diff", "(prints JSON)",
         ["file"]),
    ],
)  # fmt: skip
def test_a_usage_line_splits_into_arguments_and_description(
    line: str, arguments: str | None, description: str | None, names: list[str]
) -> None:
    split = split_usage(line)
    assert split == (None if arguments is None else (arguments, description))
    assert usage_positionals(f"Does things.\n\n{line}\n") == names


def test_lower_case_names_on_a_usage_line_name_the_inputs(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nbash scripts/cp.sh ./in/a ./out/b\n"
            "bash scripts/notes.sh add ./x\n```\n",
            "scripts/cp.sh": '#!/bin/sh\n[ $# -eq 2 ] || { echo "usage: $0 source dest"; '
            'exit 2; }\ncp "$1" "$2"\n',
            "scripts/notes.sh": '#!/bin/sh\n# usage: notes.sh add path\ncase "$1" in\n'
            "  add) echo add ;;\n  list) echo list ;;\nesac\n",
        },
    )
    programs = {p.path: p for p in build_inventory(tmp_path).programs}
    cp_cli, notes_cli = programs["scripts/cp.sh"].cli, programs["scripts/notes.sh"].cli
    assert cp_cli is not None and notes_cli is not None
    assert [p.dest for p in cp_cli.positionals()] == ["source", "dest"]
    assert [p.dest for p in notes_cli.positionals()] == ["path"]  # `add` is a subcommand


def test_a_python_script_names_the_positionals_it_reads_from_argv(tmp_path: Path) -> None:
    """tencent-meeting-mcp (FRESH35): `method = sys.argv[1]`, shown as `tools/call`, was the
    input `path` (app-run then made it a file path: the method sent was "/.../tools/call");
    `params_str = sys.argv[2] if len(sys.argv) > 2 else ""` was a required `text`."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\npython3 scripts/rpc.py tools/call '{\"a\": 1}'\n```\n",
            "scripts/rpc.py": "import sys\n\nif len(sys.argv) < 2:\n    sys.exit(1)\n"
            "method = sys.argv[1]\nparams_str = sys.argv[2] if len(sys.argv) > 2 else ''\n"
            "print(method, params_str)\n",
        },
    )
    (program,) = build_inventory(tmp_path).programs
    assert program.cli is not None
    named = [(p.dest, p.required) for p in program.cli.positionals()]
    assert named == [("method", True), ("params", False)]


def test_a_subcommand_script_reading_argv_as_several_things_keeps_its_names(
    tmp_path: Path,
) -> None:
    """A reviewer's read: `query = sys.argv[2]` under search, `note_id = sys.argv[2]` under
    get and a guarded read under export made the positional `query`, optional everywhere."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\npython3 scripts/notes.py search hello\n"
            "python3 scripts/notes.py get 123\n```\n",
            "scripts/notes.py": "import sys\n\ncmd = sys.argv[1]\nif cmd == 'search':\n"
            "    query = sys.argv[2]\nelif cmd == 'get':\n    note_id = sys.argv[2]\n"
            "elif cmd == 'export':\n    limit = sys.argv[2] if len(sys.argv) > 2 else '10'\n",
        },
    )
    (program,) = build_inventory(tmp_path).programs
    assert program.cli is not None
    params = program.cli.positionals()
    assert all(p.dest not in ("query", "note_id", "limit") for p in params)
    assert all(p.required for p in params if p.dest.startswith("text"))


@pytest.mark.parametrize(
    ("word", "name"),
    [
        ("article.txt", "file"),
        ("notes/2025-06-02.md", "file"),
        ("./photos", "path"),
        ("~/data", "path"),
        ("https://example.org/a.csv", "url"),
        ("42", "number"),
        ("hello", "text"),
        ("<input.pdf>", "input_pdf"),
        ("{name}", "name"),
        ("LOGFILE", "logfile"),
    ],
)
def test_a_positional_shown_by_example_gets_a_generic_name(word: str, name: str) -> None:
    assert positional_name(word) == name


# -- whole skills --------------------------------------------------------------------------


def test_programs_found_in_every_layout(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nnode ./calendar.js --action list\nbin/tool --x 1\n```\n"
            "Run `python3 helpers/fmt.py in.txt`.\n",
            "calendar.js": "console.log(1)\n",
            "beside.py": "import json\n",  # a module: no main, no CLI, not invoked
            "bin/tool": "#!/usr/bin/env bash\necho hi\n",
            "helpers/fmt.py": "print(1)\n",
            "helpers/unused.py": "print(1)\n",
            "tools/lib/__init__.py": "",
            "tools/a.py": "if __name__ == '__main__':\n    pass\n",
            "scripts/b.sh": "echo b\n",
            "references/c.py": "print(1)\n",
            "assets/d.sh": "echo d\n",
        },
    )
    inventory = build_inventory(tmp_path)
    roles = {f.path: f.role for f in inventory.files}
    assert roles == {
        "SKILL.md": "skill",
        "assets/d.sh": "context",
        "beside.py": "module",
        "bin/tool": "program",
        "calendar.js": "program",
        "helpers/fmt.py": "program",
        "helpers/unused.py": "module",
        "references/c.py": "context",
        "scripts/b.sh": "program",
        "tools/a.py": "program",
        "tools/lib/__init__.py": "module",
    }
    tool = inventory.program("bin/tool")
    assert tool is not None and tool.language == "bash" and tool.location == "invoked"
    fmt = inventory.program("helpers/fmt.py")
    assert fmt is not None and fmt.invocations[0].source == "inline"
    assert [(r.kind, r.name, r.required) for r in inventory.requirements] == [
        ("binary", "node", True)
    ]


def test_requirements_from_programs(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK
            + "```bash\npip install pypdf \"requests[socks]\" 'httpx[http2,cli]>=0.27'\n"
            "export TOKEN_X=1\ngh pr list\n```\n"
            "Put your API key in `~/.config/demo/config.json`.\n",
            "scripts/a.py": (
                "import os, subprocess, yaml\nfrom . import x\nimport local_mod\n"
                "KEY = os.environ['DEMO_KEY']\nOPT = os.getenv('DEMO_OPT')\n"
                "subprocess.run(\n    ['pdftotext', 'a'],\n)\n"
                "if __name__ == '__main__':\n    pass\n"
            ),
            "scripts/local_mod.py": "",
            "scripts/b.js": "const x = process.env.B_KEY || 'a';\nconst y = process.env.B_REQ;\n"
            "require('fs'); require('lodash/fp'); require('./c');\n",
            "scripts/c.sh": ': "${C_REQ:?set it}"\ncommand -v jq >/dev/null\n',
        },
    )
    found = {(r.kind, r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert found == {
        ("binary", "gh", False),  # only SKILL.md runs it: a warning
        ("binary", "jq", True),
        ("binary", "pdftotext", True),
        ("binary", "node", True),
        ("env", "TOKEN_X", False),
        ("env", "DEMO_KEY", True),
        ("env", "DEMO_OPT", False),
        # B_KEY: `process.env.B_KEY || 'a'`, a setting with its default: no need
        ("env", "B_REQ", True),
        ("env", "C_REQ", True),
        ("python-package", "pypdf", True),
        ("python-package", "requests", True),  # extras left out
        ("python-package", "httpx", True),
        ("python-package", "yaml", True),
        ("node-package", "lodash", True),
        ("file", "~/.config/demo/config.json", True),
        ("auth", "api key", True),
    }


@pytest.mark.parametrize("skill", SKILLS)
def test_example_inventory_golden(skill: str) -> None:
    inventory = build_inventory(EXAMPLES / skill)
    text = json.dumps(inventory.to_dict(), indent=2, ensure_ascii=False) + "\n"
    compare_golden(GOLDEN / skill / "inventory.json", text)


def test_examples_have_the_four_shapes() -> None:
    inventories = {s: build_inventory(EXAMPLES / s) for s in SKILLS}
    assert len(inventories) >= 4
    shapes = {
        "python tools with argparse": any(
            p.location == "tools" and p.cli and p.cli.framework == "argparse"
            for i in inventories.values()
            for p in i.programs
        ),
        "shell and node scripts with flags": any(
            {p.language for p in i.programs if p.location == "scripts"} >= {"bash", "node"}
            for i in inventories.values()
        ),
        "prose only": any(not i.programs for i in inventories.values()),
        "chinese": any(i.language == "zh" for i in inventories.values()),
    }
    assert all(shapes.values()), shapes


# -- the example programs run, with no side effects in the skill folder ----------------------


def _runner(language: str) -> list[str]:
    return {"python": [sys.executable], "node": ["node"], "bash": ["bash"]}[language]


def _snapshot(folder: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in folder.rglob("*")}


@pytest.mark.parametrize("skill", SKILLS)
def test_example_programs_show_help(skill: str, tmp_path: Path) -> None:
    folder = EXAMPLES / skill
    before = _snapshot(folder)
    for program in build_inventory(folder).programs:
        if program.language == "node" and shutil.which("node") is None:
            pytest.skip("node is not installed")
        done = subprocess.run(
            [*_runner(program.language), str(folder / program.path), "--help"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, (program.path, done.stderr)
        assert "usage" in done.stdout.lower(), program.path
    assert _snapshot(folder) == before


def _run(args: list[str], cwd: Path, **kw: object) -> str:
    done = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=30, check=False, **kw
    )  # type: ignore[call-overload]
    assert done.returncode == 0, done.stderr
    return str(done.stdout)


def test_example_programs_work(tmp_path: Path) -> None:
    py = sys.executable
    csv_tools = EXAMPLES / "csv-report" / "tools"
    sample = EXAMPLES / "csv-report" / "assets" / "sample.csv"
    stats = json.loads(
        _run([py, str(csv_tools / "csv_stats.py"), str(sample), "--format", "json"], tmp_path)
    )
    assert stats["rows"] == 5 and stats["columns"]["units"]["max"] == 7.0
    rows = _run(
        [
            py,
            str(csv_tools / "csv_filter.py"),
            str(sample),
            "--where",
            "region=EU",
            "--where",
            "status=paid",
        ],
        tmp_path,
    )
    assert rows.count("\n") == 3
    log = tmp_path / "log.txt"
    log.write_text("2025-06-02 proj-a 1.5h fix\n2025-06-03 proj-b 2h review\n", encoding="utf-8")
    weekly = EXAMPLES / "weekly-report"
    summary = json.loads(
        _run(
            [
                py,
                str(weekly / "worklog.py"),
                "summarize",
                "--log",
                str(log),
                "--week",
                "2025-W23",
                "--json",
            ],
            tmp_path,
        )
    )
    assert summary["total"] == 3.5
    assert "ok: 2 line(s)" in _run(["bash", str(weekly / "bin" / "check-log"), str(log)], tmp_path)
    notes = tmp_path / "notes.json"
    notes.write_text('{"sections": {"Fixes": ["Fix the export"]}}', encoding="utf-8")
    rendered = _run(
        [
            py,
            str(EXAMPLES / "release-notes" / "scripts" / "render_notes.py"),
            "--input",
            str(notes),
            "--version",
            "1.5.0",
        ],
        tmp_path,
    )
    assert rendered == "## 1.5.0\n\n### Fixes\n\n- Fix the export\n"


def test_example_calendar_and_git_scripts(tmp_path: Path) -> None:
    if shutil.which("node") is None or shutil.which("git") is None:
        pytest.skip("node and git are needed")
    scripts = EXAMPLES / "team-calendar" / "scripts"
    store = str(tmp_path / "cal.json")
    created = json.loads(
        _run(
            [
                "node",
                str(scripts / "calendar.js"),
                "--action",
                "create_event",
                "--summary",
                "Review",
                "--start",
                "2025-06-02T15:00",
                "--store",
                store,
            ],
            tmp_path,
        )
    )
    assert created["created"]["id"] == "evt-1"
    listed = _run(
        [
            "node",
            str(scripts / "calendar.js"),
            "--action",
            "list_events",
            "--store",
            store,
            "--format",
            "text",
        ],
        tmp_path,
    )
    assert "Review (30 min) [evt-1]" in listed
    assert _run(
        ["bash", str(scripts / "agenda.sh"), "--range", "week", "--store", store], tmp_path
    ).startswith("Agenda ")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@example.com",
    }
    for args in (
        ["init", "-q"],
        ["commit", "-q", "--allow-empty", "-m", "init"],
        ["tag", "v1"],
        ["commit", "-q", "--allow-empty", "-m", "feat: add export"],
    ):
        _run(["git", *args], tmp_path, env=env)
    collected = json.loads(
        _run(
            [
                sys.executable,
                str(EXAMPLES / "release-notes" / "scripts" / "collect_commits.py"),
                "--since",
                "v1",
            ],
            tmp_path,
        )
    )
    assert [(c["kind"], c["subject"]) for c in collected["commits"]] == [
        ("feat", "feat: add export")
    ]


# -- probing -------------------------------------------------------------------------------


def test_nothing_runs_without_probe(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    write_tree(
        tmp_path / "skill",
        {
            "SKILL.md": OK + "```bash\npython3 tools/t.py --x 1\n```\n",
            "tools/t.py": f"import pathlib\ntry:\n    pathlib.Path({str(marker)!r}).write_text('x')"
            "\nexcept OSError:\n    pass\n"
            "if __name__ == '__main__':\n    print('usage: t.py')\n",
        },
    )
    inventory = build_inventory(tmp_path / "skill")
    assert not marker.exists()
    assert inventory.programs[0].probe is None
    probed = build_inventory(tmp_path / "skill", probe=True, unsafe=not sandbox.available())
    assert marker.exists() is not sandbox.available()  # the sandbox keeps its writes away
    assert probed.programs[0].probe == {
        "command": "python3 tools/t.py --help",
        "exit_code": 0,
        "text": "usage: t.py",
    }


def test_probe_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe_module, "PROBE_TIMEOUT", 0.5)
    write_tree(tmp_path, {"SKILL.md": OK, "scripts/slow.sh": "sleep 30 &\nsleep 30\n"})
    started = time.monotonic()
    probe = build_inventory(tmp_path, probe=True).programs[0].probe
    assert probe is not None and probe["error"] == "timed out"
    assert time.monotonic() - started < 5  # the background grandchild was killed too


def test_invocations_in_other_markdown_files(tmp_path: Path) -> None:
    """Real skills often show their commands in a linked document, not in SKILL.md."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "To fill a form, follow FORMS.md.\n",
            "FORMS.md": "# Forms\n\n1. Check the fields:\n"
            "   `python scripts/fields.py <input.pdf> <fields.json>`\n"
            "```bash\nmagick in.png -crop 10x10 out.png\n```\n",
            "scripts/fields.py": (
                "import sys\nimport argparse\nif __name__ == '__main__':\n"
                "    p = argparse.ArgumentParser()\n    p.add_argument('pdf')\n"
                "    p.add_argument('out')\n    p.add_argument('rest', nargs=argparse.REMAINDER)\n"
                "    print('Usage: fields.py PDF OUT')\n"
            ),
        },
    )
    inventory = build_inventory(tmp_path)
    (program,) = inventory.programs
    assert [i.to_dict() for i in program.invocations] == [
        {
            "file": "FORMS.md",
            "line": 4,
            "argv": ["<input.pdf>", "<fields.json>"],
            "interpreter": "python",
            "source": "inline",
        }
    ]
    assert program.doc == "Usage: fields.py PDF OUT"
    assert program.cli is not None
    assert [(p.name, p.type, p.required) for p in program.cli.params] == [
        ("pdf", "string", True),
        ("out", "string", True),
        ("rest", "array", False),
    ]
    assert {f.path: f.role for f in inventory.files}["FORMS.md"] == "context"
    assert [(r.kind, r.name, r.where) for r in inventory.requirements] == [
        ("binary", "magick", ["FORMS.md:6"]),
    ]


def test_a_default_or_a_file_the_program_writes_is_no_file_check(tmp_path: Path) -> None:
    """A fresh install has no data file yet: the constructor must not demand one."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK
            + "The list lives in `$TODO_FILE` (default `~/.todo.json`).\n"
            + "A token is saved to `~/.config/todo/token.json` after the first login.\n"
            + "The cache is created if it does not exist: `~/.cache/todo/settings.json`.\n"
            + "数据默认保存在 `~/.todo/config.yaml`。\n"
            + "Create `~/.todorc` with your account name.\n"
            + "The program needs `~/.config/todo/config.yaml`. Its default layout is in "
            + "references/.\n",
        },
    )
    found = {(r.kind, r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert {r for r in found if r[0] == "file"} == {
        ("file", "~/.todorc", True),
        ("file", "~/.config/todo/config.yaml", True),  # "default" is in another sentence
    }


def test_a_file_not_made_by_the_program_or_needed_at_its_default_is_a_file_check(
    tmp_path: Path,
) -> None:
    """A negated or obligated making, or a default location that must exist, is the user's
    job: the constructor checks for it (QA: both were silently dropped)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK
            + "Requires `~/.acme/config.yaml`, which is not created by the tool, so create "
            + "it first.\n\n"
            + "Also needs `~/.acme/token.json` before the first run (it is the default "
            + "location).\n\n"
            + "`~/.acme/a.json` isn't created by the tool. `~/.acme/b.json` must exist.\n\n"
            + "`~/.acme/c.json` must be created by hand. The tool never writes "
            + "`~/.acme/d.json`.\n\n"
            + "The report tool creates `~/.acme/history.json` if it is missing.\n\n"
            + "The state lives in `~/.acme/state.json` (default `~/.acme.json`); the program "
            + "creates it.\n\n"
            # review: a making verb anywhere in the sentence dropped the file
            + "The script reads `~/.acme/e.json` and writes a summary.\n\n"
            + "Requires `~/.acme/f.json` (created by `setup.sh`).\n\n"
            + "The tool needs Python 3 and saves its token in `~/.acme/token2.json`.\n",
        },
    )
    found = {(r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert {r for r in found if r[0].startswith("~")} == {
        ("~/.acme/e.json", True),
        ("~/.acme/f.json", True),
        ("~/.acme/config.yaml", True),
        ("~/.acme/token.json", True),
        ("~/.acme/a.json", True),
        ("~/.acme/b.json", True),
        ("~/.acme/c.json", True),
        ("~/.acme/d.json", True),
    }


def test_a_script_run_directly_that_cannot_run_that_way_is_warned_about(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK
            + "```bash\n./scripts/greet --name Ann\n./scripts/wave.sh\n./scripts/ok.sh\n"
            + "bash scripts/plain.sh\n./scripts/x.py\n./scripts/bare.py\n./scripts/run.sh\n```\n",
            "scripts/greet": 'echo "hello $2"\n',
            "scripts/wave.sh": "echo wave\n",
            "scripts/ok.sh": "#!/bin/sh\necho ok\n",
            "scripts/plain.sh": "echo plain\n",
            "scripts/x.py": "#!/usr/bin/env python3\nprint('x')\n",  # review: no exec bit
            "scripts/bare.py": "print('bare')\n",
            "scripts/run.sh": "echo run\n",  # a shell runs it as a shell script
        },
    )
    for name in ("ok.sh", "bare.py", "run.sh"):
        (tmp_path / "scripts" / name).chmod(0o755)
    warnings = [w for w in build_inventory(tmp_path).warnings if " directly, " in w]
    assert warnings == [
        "SKILL.md:12 runs scripts/bare.py directly, but it has no #! line, so that command "
        "fails; the APP runs it with python3 (add a #! line)",
        "SKILL.md:7 runs scripts/greet directly, but it has no #! line and no exec bit: "
        "neither that command nor the APP's step can run it; add a #! line and chmod +x, or "
        "run it through its interpreter in SKILL.md",
        "SKILL.md:8 runs scripts/wave.sh directly, but it has no #! line and no exec bit, so "
        "that command fails; the APP runs it with bash (add a #! line and chmod +x)",
        "SKILL.md:11 runs scripts/x.py directly, but it has no exec bit, so that command "
        "fails; the APP runs it with python3 (chmod +x)",
    ]


def test_commands_only_skill_md_runs_are_warnings_not_constructor_failures(
    tmp_path: Path,
) -> None:
    """Pseudo-code in an untagged block (an agent's own tool names) and binaries only the
    agent runs in Skill mode must not make the constructor refuse every pipeline."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```\nview file.py lines 45-60\nstr_replace in file.py\n```\n"
            "```bash\nhexdump -C file.js\n```\n```\npip install pyyaml\n```\n",
            "tools/a.py": "import sys\n",
        },
    )
    found = {(r.kind, r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert not [r for r in found if r[1] in ("str_replace", "view")]  # no shell line's shape
    assert ("binary", "hexdump", False) in found
    assert ("python-package", "yaml", False) in found  # pyyaml, as imported
    assert not [r for r in found if r[2]]


def test_requirements_a_program_copes_without_are_only_warnings(tmp_path: Path) -> None:
    """Real skills: an import in try/except ImportError (a fallback exists), a tool looked up
    with shutil.which (the program checks it itself), a module loaded by name."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK,
            "scripts/a.py": (
                "import importlib, shutil, sys\n"
                "try:\n    from data_fetching import fetch\nexcept ImportError:\n    fetch = None\n"
                "try:\n    importlib.import_module('ujson')\nexcept Exception:\n    pass\n"
                "try:\n    import requests\nexcept ImportError:\n"
                "    sys.exit('pip install requests')\n"
                "FONTS = shutil.which('fc-list')\n"
                "canvas = importlib.import_module('reportlab.pdfgen.canvas')\n"
                "if __name__ == '__main__':\n    pass\n"
            ),
        },
    )
    found = {(r.kind, r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert found == {
        ("binary", "fc-list", False),
        ("python-package", "data_fetching", False),
        ("python-package", "ujson", False),
        ("python-package", "reportlab", True),
        ("python-package", "requests", True),  # its handler stops: it is needed
    }


def test_what_a_program_installs_itself_is_its_output_not_a_requirement(tmp_path: Path) -> None:
    """web-artifacts-builder: init.sh runs `pnpm install` of some 45 packages into the project
    it creates, and patches tsconfig with a `node -e "..."` script over several lines.  The
    packages blocked every pipeline (they are what the script makes), and the script's lines
    (`const fs = ...`) became binaries."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nbash scripts/init.sh demo\n```\n",
            "scripts/init.sh": (
                '#!/bin/bash\nset -e\npnpm create vite "$1" --template react-ts\n'
                "pnpm install -D tailwindcss@3.4.1 postcss\npnpm add zod @radix-ui/react-tabs\n"
                "node -e \"\nconst fs = require('fs');\n"
                "config.compilerOptions = config.compilerOptions || {};\n"
                "fs.writeFileSync('tsconfig.json', JSON.stringify(config));\n\"\n"
                "echo done\n"
            ),
        },
    )
    found = {(r.kind, r.name, r.required) for r in build_inventory(tmp_path).requirements}
    # pnpm and node run at the script's top level: on every run, so it needs them
    assert found == {("binary", "pnpm", True), ("binary", "node", True)}


def test_a_program_of_another_skill_the_documents_run_is_known_as_they_show_it(
    tmp_path: Path,
) -> None:
    """feishu: every skill signs in with `node ../feishu-auth/auth.js --auth-and-poll ...` and
    looks names up with the search-user skill's program, in a block or inline: their flags
    were nowhere in the inventory, so an analyst could not call them right."""
    write_tree(
        tmp_path / "task",
        {
            "SKILL.md": OK + "```bash\nnode ./task.js --action list\n"
            "node ../feishu-auth/auth.js --auth-and-poll --open-id ou_1 --timeout 60\n```\n\n"
            "名字 → 先执行 `node ../search-user/search-user.js --query 张三 --page-size 20`\n",
            "task.js": "const a = process.argv.indexOf('--action');\n",
        },
    )
    write_tree(  # a skill of the collection too: its folder holds one (else no collection)
        tmp_path / "feishu-auth",
        {"auth.js": "process.argv.indexOf('--not-shown')\n", "SKILL.md": OK},
    )
    inventory = build_inventory(tmp_path / "task")
    assert [p.path for p in inventory.programs] == ["task.js"]
    shown = {p.path: {x.name: x.type for x in p.cli.params} for p in inventory.elsewhere if p.cli}
    assert shown == {
        "../feishu-auth/auth.js": {  # there, so read too: its code has --not-shown
            "--not-shown": "string",
            "--auth-and-poll": "boolean", "--open-id": "string", "--timeout": "integer",
        },
        "../search-user/search-user.js": {"--query": "string", "--page-size": "integer"},
    }  # fmt: skip
    listed = inventory.to_dict()["programs_elsewhere"]
    assert [p["location"] for p in listed] == ["elsewhere", "elsewhere"]


def test_documentation_lines_in_shell_blocks_are_not_commands(tmp_path: Path) -> None:
    """Option lists, quoted prompts and JSON in a bash block name no binaries."""
    block = (
        "```bash\n"
        "--name, -n      Subdomain name (empty for root)\n"
        "--handle, -u    Bluesky handle (user.bsky.social)\n"
        "> Post about today's weather\n"
        '"field_id": (unique ID for the field),\n'
        "{\n"
        "jq . out.json\n"
        "```\n"
    )
    write_tree(tmp_path, {"SKILL.md": OK + block})
    found = {(r.kind, r.name) for r in build_inventory(tmp_path).requirements}
    assert found == {("binary", "jq")}


def test_scripts_the_documentation_names_but_the_skill_lacks_are_warned_about(
    tmp_path: Path,
) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK
            + "- `scripts/dns.py` - records\n- `scripts/url.py` - forwarding\n"
            + "```bash\npython scripts/dns.py list\npython scripts/backup.py --all\n"
            + "cd scripts && ./bulk.sh export\n```\n",
            "forms.md": "Run `python scripts/fill.py <in.pdf> <out.pdf>`.\n",
            "scripts/dns.py": "if __name__ == '__main__':\n    pass\n",
        },
    )
    warnings = [w for w in build_inventory(tmp_path).warnings if " names " in w]
    assert [w.split(" names ")[1].split(",")[0] for w in warnings] == [
        "scripts/url.py",
        "scripts/backup.py",
        "scripts/bulk.sh",
        "scripts/fill.py",
    ], warnings
    assert warnings[0].startswith("SKILL.md:") and warnings[-1].startswith("forms.md:1 ")


def test_a_bare_command_name_is_no_file_of_the_skill_found_elsewhere() -> None:
    """modelstudio spark-video (DEV): the inline `cast count + (set ? 1 : 0)` (a formula)
    was taken for running lib/cast.py, and `bl speech synthesize` (the real ``bl`` CLI) for
    scripts/providers/bl.py: a bare name without extension is a command on the PATH.  The
    path written without its extension still names the file."""
    files = ["lib/cast.py", "scripts/providers/bl.py", "scripts/check_fields.py"]
    found, _ = invocations_in("cast count + 1", 3, "bash", files, "inline")
    assert found == []
    found, _ = invocations_in("bl speech synthesize --text hi", 3, "bash", files, "inline")
    assert found == []
    found, _ = invocations_in("python scripts/check_fields in.pdf", 3, "bash", files)
    assert [(i.program, i.argv) for i in found] == [("scripts/check_fields.py", ["in.pdf"])]
    found, _ = invocations_in("cd scripts && python check_fields in.pdf", 3, "bash", files)
    assert [i.program for i in found] == ["scripts/check_fields.py"]


def test_one_launcher_said_two_ways_is_the_one_shown_most(tmp_path: Path) -> None:
    """interpreting-culture-index (fresh3): ``uv run --no-project scripts/extract_pdf.py`` in
    six places and ``uv run scripts/extract_pdf.py`` in one made the program run with plain
    python3, without the dependencies its inline metadata declares."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "x.py").write_text(
        '# /// script\n# dependencies = ["pdfplumber"]\n# ///\nprint(1)\n'
    )
    (tmp_path / "SKILL.md").write_text(
        "---\nname: x\ndescription: d\n---\n# X\n\n```bash\n"
        "uv run scripts/x.py a.pdf\nuv run --no-project scripts/x.py b.pdf\n"
        "uv run --no-project scripts/x.py c.pdf\n```\n"
    )
    (program,) = build_inventory(tmp_path).programs
    assert program.interpreter == "uv run --no-project"


def test_a_command_with_thousands_of_brackets_is_read(tmp_path: Path) -> None:
    """A reviewer's case: ``python3 scripts/x.py [[[[…`` three thousand deep made the JSON
    reader recurse until Python stopped the whole conversion."""
    root = tmp_path / "deep"
    (root / "scripts").mkdir(parents=True)
    (root / "SKILL.md").write_text(
        "---\nname: deep\ndescription: D.\n---\n```bash\npython3 scripts/x.py "
        + "[" * 3000
        + "\n```\n"
    )
    (root / "scripts" / "x.py").write_text("print(1)\n")
    assert [p.path for p in build_inventory(root).programs] == ["scripts/x.py"]


def test_a_node_flag_passed_on_first_and_read_later_is_typed_where_it_is_read() -> None:
    """baoyu-markdown-to-html (round 13): `args.push('--keep-title')` (the renderer's argv)
    came before the loop reading it (`keepTitle = true`): the flag was typed a string, the
    docs' default "false (removed)" became its value and every run passed it as the file."""
    node = (
        "function render(keepTitle) { const args = []; if (keepTitle) args.push('--keep-title');"
        " }\nfor (let i = 0; i < args.length; i++) { const arg = args[i];\n"
        "  if (arg === '--title' && args[i + 1]) { title = args[++i]; }\n"
        "  else if (arg === '--keep-title') { keepTitle = true; }\n}\n"
    )
    command, _dispatch = scan_node(node)
    assert [(p.name, p.type) for p in command.params] == [
        ("--title", "string"),
        ("--keep-title", "boolean"),
    ]


def test_node_case_labels_falling_through_are_one_flag() -> None:
    """feishu-search-doc (round 33): `case '--query': case '--q': r.query = argv[++i]` made
    --query a switch (its label has no body of its own), so every search ran without it."""
    node = (
        "for (let i = 0; i < argv.length; i++) {\n  switch (argv[i]) {\n"
        "    case '--query':\n    case '--q':\n      r.query = argv[++i] || '';\n      break;\n"
        "    case '--deep':\n      r.deep = true;\n      break;\n  }\n}\n"
    )
    command, _dispatch = scan_node(node)
    assert [(p.name, p.type, p.aliases) for p in command.params] == [
        ("--query", "string", ["--q"]),
        ("--deep", "boolean", []),
    ]


def test_a_boolean_flags_documented_default_is_a_boolean(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: md\ndescription: Convert Markdown.\n---\n# md\n\n"
            "| Option | Description | Default |\n|---|---|---|\n"
            "| `--keep-title` | Keep the first heading | false (removed) |\n\n"
            "```bash\nnode scripts/main.js article.md --keep-title\n```\n",
            "scripts/main.js": "const a = process.argv.slice(2);\n"
            "for (const arg of a) { if (arg === '--keep-title') { keep = true; } }\n",
        },
    )
    program = build_inventory(tmp_path).programs[0]
    flag = program.cli.flag("--keep-title")
    assert flag is not None and (flag.type, flag.default) == ("boolean", False)


def test_python_flags_tested_by_hand() -> None:
    """kouko cot-explain (fresh9): `do_sha = "--sha" in argv` (argv = sys.argv[1:]) is a
    switch the docs never show; `--render` was typed a string from the docs alone."""
    source = (
        "import sys\ndef main():\n    argv = sys.argv[1:]\n"
        '    do_render = "--render" in argv\n    if "--sha" not in argv:\n        pass\n'
        '    out = sys.argv[sys.argv.index("--out") + 1]\n'
        '    if "-h" in argv:\n        print(__doc__)\n'
    )
    command, _doc = extract_python_cli(source)
    assert command is not None and command.framework == "none"
    assert [(p.name, p.type, p.valued) for p in command.params] == [
        ("--render", "boolean", False),
        ("--sha", "boolean", False),
        ("--out", "string", True),
    ]
    assert extract_python_cli("import sys\nprint(sys.argv[1])\n")[0] is None


def test_a_documented_default_a_parser_does_not_declare_is_a_description(
    tmp_path: Path,
) -> None:
    """takusaotome shift-planner (fresh9): "| --patterns | No | ビルトイン5パターン |" says what
    the program does without the flag; argparse declares `default=None`, and the pipeline
    passed `--patterns ビルトイン5パターン`, taken for a file, on every run."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: shifts\ndescription: Plan shifts.\n---\n# s\n\n"
            "```bash\npython3 scripts/gen.py --roster r.csv\n```\n\n"
            "| Option | Required | Default | Description |\n|---|---|---|---|\n"
            "| --patterns | No | ビルトイン5パターン | シフトパターン CSV |\n",
            "scripts/gen.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--roster', required=True)\n"
            "p.add_argument('--patterns', default=None, help='patterns CSV')\np.parse_args()\n",
        },
    )
    flag = build_inventory(tmp_path).programs[0].cli.flag("--patterns")
    assert flag is not None and flag.default is None and not flag.required


REVIEWED = {  # a second read of the helper-function change: CLIs it must still read whole
    "get_parser": "import argparse\ndef get_parser(parser=None):\n    if parser is None:\n"
    "        parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--input', required=True)\n"
    "    parser.add_argument('--dry-run', action='store_true')\n    return parser\n"
    "get_parser().parse_args()\n",
    "builds_subcommands": "import argparse\ndef main():\n    parser = argparse.ArgumentParser()\n"
    "    add_sub(parser)\n    parser.parse_args()\ndef add_sub(parser):\n"
    "    parser.add_argument('--verbose', action='store_true')\n"
    "    sub = parser.add_subparsers(dest='cmd')\n    run = sub.add_parser('run')\n"
    "    run.add_argument('--n', type=int)\n",
}


def test_functions_that_build_a_parser_are_read_where_they_stand() -> None:
    command, _doc = extract_python_cli(REVIEWED["get_parser"])
    assert command is not None and [p.name for p in command.params] == ["--input", "--dry-run"]
    command, _doc = extract_python_cli(REVIEWED["builds_subcommands"])
    assert command is not None and [p.name for p in command.params] == ["--verbose"]
    assert [p.name for p in command.subcommands["run"].params] == ["--n"]
    shared, _doc = extract_python_cli(SHARED)
    assert shared is not None
    add, ls = shared.subcommands["add"], shared.subcommands["list"]
    assert add.flag("--store") is not ls.flag("--store")  # each subcommand its own copy


def test_a_python_program_never_shown_run_keeps_python3(tmp_path: Path) -> None:
    """`#!/usr/bin/env python` (often missing on Debian) or `#!/usr/bin/python2.7` must not
    replace python3 for a program no document runs; only a runtime the default cannot stand
    in for does (bun, deno, `uv run --script`)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: t\ndescription: T.\n---\n# t\n\nSee scripts/a.py.\n",
            "scripts/a.py": "#!/usr/bin/env python\nprint(1)\n",
            "scripts/b.py": "#!/usr/bin/env -S uv run --script\nprint(1)\n",
            "scripts/c.ts": "#!/usr/bin/env PYTHONX=1 deno run\nconsole.log(1)\n",
        },
    )
    found = {p.path: p.interpreter for p in build_inventory(tmp_path).programs}
    assert found == {"scripts/a.py": "python3", "scripts/b.py": "uv run --script",
                     "scripts/c.ts": "deno run"}  # fmt: skip


def test_a_program_too_deep_to_unparse_has_no_interface_and_no_crash() -> None:
    """An attack by hand: `x = a+a+…` 900 terms deep parses, but unparsing it (to see whether
    it copies sys.argv) recursed past Python's limit, and app-convert stopped with an
    internal error."""
    deep = (
        "import sys\nargv = sys.argv\nx = " + "+".join(["a"] * 900) + '\nif "--v" in argv: pass\n'
    )
    command, _doc = extract_python_cli(deep)
    assert command is None


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("## Title", (2, "Title")),
        ("  ### Title ###", (3, "Title")),  # a closing run after a space goes
        ("## C# usage", (2, "C# usage")),  # one inside the title stays
        ("## #", (2, "#")),  # hashes alone are the title
        ("#", (1, "")),
        ("#x", None),
        ("    ## indented", None),  # code, not a heading
        ("# x" + " " * 100_000 + "y", (1, "x" + " " * 100_000 + "y")),  # was 2.4 s per 20,000
    ],
)
def test_an_atx_heading_line(line: str, heading: tuple[int, str] | None) -> None:
    from skill2app.converter.inventory.markdown import atx_heading

    assert atx_heading(line) == heading


def test_a_shell_programs_top_level_commands_need_their_binaries(tmp_path: Path) -> None:
    """agent-browser (round 34): capture-workflow.sh runs `agent-browser open "$URL"` on every
    run, yet the tool was only a warning; the judge asked for it to be required.  A command at
    the top level is needed; one in a branch, a function, a fallback or a case arm is not, nor
    one the script installs when missing, nor a shell builtin (`alias`)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nbash scripts/run.sh https://example.com\nalias ab=x\n```\n",
            "scripts/run.sh": (
                "#!/bin/bash\nset -euo pipefail\n"
                "if ! command -v pnpm >/dev/null; then\n  npm install -g pnpm\nfi\n"
                'agent-browser open "$1"  # go\n'
                'TITLE=$(jqx -r .title <<< "{}")\n'
                "pnpm build\n"
                "cleanup() {\n  trasher out/\n}\n"
                'if [ -n "${2:-}" ]; then\n  optool "$2"\nfi\n'
                'case "$1" in\n  a) arm-tool ;;\nesac\n'
                "gtimeout 5 true || timeout 5 true\n"
                "cat <<EOF\nheredoc-word here\nEOF\n"
            ),
        },
    )
    found = {
        (r.name, r.required) for r in build_inventory(tmp_path).requirements if r.kind == "binary"
    }
    assert ("agent-browser", True) in found and ("jqx", True) in found
    assert ("pnpm", False) in found  # checked and installed when missing
    for name in ("trasher", "optool", "gtimeout"):
        assert (name, False) in found, name
    assert ("arm-tool", True) not in found
    assert not {n for n, _r in found} & {"alias", "heredoc-word"}


def test_a_script_in_assets_the_documents_run_is_a_program(tmp_path: Path) -> None:
    """terminal-print (fresh33): SKILL.md runs ``bash "$SKILL_DIR/assets/print-terminal.sh"
    --no-preview``; assets/ was read as context only, so its five flags were never found and
    no pipeline ran it.  A script in assets/ nothing runs stays context."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + '```bash\nbash "$SKILL_DIR/assets/print.sh" --no-preview\n```\n',
            "assets/print.sh": '#!/bin/bash\ncase "$1" in\n  --no-preview) P=0 ;;\nesac\n',
            "assets/other.sh": "#!/bin/bash\necho hi\n",
            # hit-lectures-scout (fresh33): "运行 `assets/scout.py`", an argparse CLI
            "assets/scout.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--window', type=int)\np.parse_args()\n",
            "assets/helper.py": "def f():\n    return 1\n",  # named, a module: no program
        },
    )
    (tmp_path / "SKILL.md").write_text(
        (tmp_path / "SKILL.md").read_text()
        + "\n需要时运行 `assets/scout.py`，参考 `assets/helper.py`。\n"
    )
    inventory = build_inventory(tmp_path)
    assert [p.path for p in inventory.programs] == ["assets/print.sh", "assets/scout.py"]
    assert "--no-preview" in {p.name for p in inventory.programs[0].cli.params}
    roles = {f.path: f.role for f in inventory.files}
    assert roles["assets/other.sh"] == roles["assets/helper.py"] == "context"


def test_a_package_imported_on_the_api_keys_path_only_is_a_warning(tmp_path: Path) -> None:
    """mapping-documents (fresh33): docmap.py imports anthropic inside the function a thread
    pool runs (``pool.submit(_extract, s)``), under ``if not api_key: ... else:``; without a
    key it maps the structure alone.  anthropic blocked the pipeline."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\npython scripts/map.py in.pdf\n```\n",
            "scripts/map.py": (
                "import os, sys\nfrom concurrent.futures import ThreadPoolExecutor\n"
                "import pdfplumber\n\n"
                "def _extract(s, key):\n    import anthropic\n"
                "    return anthropic.Anthropic(api_key=key)\n\n"
                "def extract_all(items, key):\n    with ThreadPoolExecutor() as pool:\n"
                "        return [pool.submit(_extract, s, key) for s in items]\n\n"
                "def main():\n    api_key = os.environ.get('ANTHROPIC_API_KEY')\n"
                "    if not api_key:\n        print('structure only', file=sys.stderr)\n"
                "    else:\n        extract_all([1], api_key)\n\n"
                "if __name__ == '__main__':\n    main()\n"
            ),
        },
    )
    found = {
        (r.name, r.required)
        for r in build_inventory(tmp_path).requirements
        if r.kind == "python-package"
    }
    assert found == {("pdfplumber", True), ("anthropic", False)}


def test_the_code_a_node_program_writes_in_a_template_is_not_its_own(tmp_path: Path) -> None:
    """uipath-coded-apps: build-dashboard.mjs returns components as template literals
    (``return `import React from 'react'` ``); react and react-router-dom became packages the
    program needs.  A backtick in a comment or a quoted string opens no template."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nnode scripts/build.mjs spec.json\n```\n",
            "scripts/build.mjs": (
                "import fs from 'node:fs'\nimport yaml from 'js-yaml'\n"
                "// the page is written as `code`\nconst tick = 'a ` b'\n"
                "export function page(name) {\n  return `import React from 'react'\n"
                "import { useParams } from 'react-router-dom'\nexport default ${name}`\n}\n"
                "import chalk from 'chalk'\n"
            ),
        },
    )
    found = {r.name for r in build_inventory(tmp_path).requirements if r.kind == "node-package"}
    assert found == {"js-yaml", "chalk"}


def test_a_function_of_a_sourced_script_is_no_binary(tmp_path: Path) -> None:
    """kobo-library (round 37's judge): kobo_get.sh sources tsundoku_paths.sh and calls its
    `tsundoku_ensure_dirs` at the top level; the constructor required it as a binary, so the
    download pipeline could never run."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nbash scripts/get.sh 123\n```\n",
            "scripts/get.sh": (
                '#!/bin/bash\nset -e\nsource "$(dirname "$0")/paths.sh"\nensure_dirs\n'
                'kobodl book get "$1"\n'
            ),
            "scripts/paths.sh": "ensure_dirs() {\n  mkdir -p ~/books\n}\nfunction other {\n:\n}\n",
            # codeql (round 38's judge): a reference's example calls the log library's function
            "references/build.md": '```bash\nother "Building"\nensure_dirs\n```\n',
        },
    )
    found = {(r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert ("kobodl", True) in found
    assert not {name for name, _required in found} & {"ensure_dirs", "other"}


SHELL_IDIOMS = [  # (script, binaries it needs, binaries it may do without)
    # a fallback function defined when the tool is missing (Collector.forget raised KeyError)
    ('if ! command -v log >/dev/null; then\n  log() { echo "$@"; }\nfi\nlog hi\n', set(), set()),
    ("if ! command -v gum >/dev/null; then echo need gum; exit 1; fi\ngum x\n", {"gum"}, set()),
    ("imagetool --flag \\\n  --other || echo failed\n", set(), {"imagetool"}),
    ('for f in *.png; do\n  echo done\n  optimizer "$f"\ndone\n', set(), {"optimizer"}),
    ("echo start\nexit 0\nlegacy-tool run\n", set(), {"legacy-tool"}),
    (
        'export NVM_DIR="$HOME/.nvm"\n[ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"\n'
        "nvm use 18\n",
        set(),
        {"nvm"},
    ),
    ('alias ll="ls -l"\nll\n', set(), set()),
    ("brew install ffmpeg\nsudo apt-get install -y jq\n", set(), {"brew", "apt-get"}),
    ('echo "until done\nfi" \nrenderer out\n', {"renderer"}, set()),
    # a third read: an array or $( over lines, a case arm `done)`, `f(){`, a string that
    # opens a loop where it closes, "exit" in a quoted message, `[ -z ] && echo`
    (
        'main() {\n  local args=(\n    --foo\n  )\n  special-tool "${args[@]}"\n}\n',
        set(),
        {"special-tool"},
    ),
    (
        'case "$s" in\n  done)\n    echo ok ;;\n  *)\n    special-tool run ;;\nesac\n',
        set(),
        {"special-tool"},
    ),
    ("setup(){\n  special-tool x\n}\n", set(), {"special-tool"}),
    (
        "awk '\n  { print $1 }\n' file.txt | while read -r name; do\n"
        '  special-tool "$name"\ndone\n',
        set(),
        {"special-tool"},
    ),
    (
        'if ! command -v gum >/dev/null; then echo "gum missing (press q to exit)"; fi\n',
        set(),
        {"gum"},
    ),
    ('[ -z "$(command -v fzf)" ] && echo "no fzf"\necho hi\nexit 0\n', set(), {"fzf"}),
    # a quoted heredoc's word, a sourced .env and a wrapper alias end nothing
    ("cat <<'EOF'\nhello\nEOF\nset -e\nsource .env\nffmpeg -i a b\n", {"ffmpeg"}, set()),
    ("alias ffmpeg='ffmpeg -hide_banner'\nffmpeg -i a b\n", {"ffmpeg"}, set()),
]


@pytest.mark.parametrize(("script", "needed", "optional"), SHELL_IDIOMS)
def test_shell_idioms_a_reviewer_tried(
    tmp_path: Path, script: str, needed: set[str], optional: set[str]
) -> None:
    """A second read of the top-level rule (0a679a5) found each of these: a crash, a fallback
    or a function taken for a required binary, a block closed by `echo done`."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nbash scripts/x.sh\n```\n",
            "scripts/x.sh": "#!/bin/bash\n" + script,
        },
    )
    found = {(r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert {n for n, required in found if required} == needed
    assert optional <= {n for n, required in found if not required}
    assert not {n for n, _r in found} & {"log", "ll"}


def test_a_library_in_references_defines_no_binaries_and_a_copied_asset_is_no_program(
    tmp_path: Path,
) -> None:
    """A reviewer's read: `source .../references/common.sh` then `log_info`: log_info was a
    required binary; "copy `assets/pre-commit.sh` to .git/hooks" made the hook a program."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nbash scripts/x.sh\n```\n\n"
            "Copy `assets/pre-commit.sh` to `.git/hooks`; git runs it before a commit.\n"
            "Don't run `assets/old.sh`.\n",
            "assets/old.sh": "#!/bin/bash\nold-tool\n",
            "scripts/x.sh": '#!/bin/bash\nsource "$(dirname "$0")/../references/common.sh"\n'
            "log_info hi\nffmpeg -i a b\n",
            "references/common.sh": 'log_info() {\n  echo "$@"\n}\n'
            # a wrapper of the program of its name runs it: ffmpeg stays a need
            'ffmpeg() {\n  command ffmpeg -hide_banner "$@"\n}\n',
            "assets/pre-commit.sh": "#!/bin/bash\nruff check .\n",
        },
    )
    inventory = build_inventory(tmp_path)
    assert [p.path for p in inventory.programs] == ["scripts/x.sh"]
    assert not {r.name for r in inventory.requirements} & {"log_info", "ruff", "old-tool"}
    assert ("ffmpeg", True) in {(r.name, r.required) for r in inventory.requirements}


def test_a_wrapper_in_the_script_that_runs_it_keeps_its_program_a_need(tmp_path: Path) -> None:
    """`ffmpeg() { command ffmpeg -hide_banner "$@"; }` then `ffmpeg -i ...` in one script: the
    function hid ffmpeg (the block's own functions were set aside whatever they ran); a
    function that runs nothing of its name still is no program."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": OK + "```bash\nbash scripts/x.sh in.mp4 out.gif\n```\n",
            "scripts/x.sh": '#!/bin/bash\nset -e\nffmpeg() { command ffmpeg -hide_banner "$@"; }\n'
            'say() { echo "$@"; }\nsay start\nffmpeg -i "$1" "$2"\n',
        },
    )
    found = {(r.name, r.required) for r in build_inventory(tmp_path).requirements}
    assert ("ffmpeg", True) in found
    assert "say" not in {n for n, _r in found}


def test_node_templates_keep_their_code_and_skip_comments_and_regexes() -> None:
    """A reviewer's read of the template rule: `${require('chalk')...}` runs chalk; a backtick
    in a regular expression or a block comment opens no template; a backslash ending the
    source inside one raised IndexError."""
    from skill2app.converter.inventory.node_needs import node_code

    source = (
        "const a = `x ${require('chalk').red(n)} y`\n/* odd ` here */\nconst re = /[`*_]/g\n"
        "function isTick(c) { return /`/.test(c) }\n"
        "const b = require('marked')\nconst e = `abc\\"
    )
    kept = node_code(source)
    assert "require('chalk')" in kept and "require('marked')" in kept
    assert len(node_code("`" * 100001)) == 100001  # linear on hostile input


def test_a_key_test_is_a_keys_name_alone() -> None:
    """`if not api_key:` leaves the API's path optional; `if not _tokenizer:` (a lazy load)
    and `if tokens:` do not; the test is linear on a long name (it took 22 s)."""
    from skill2app.converter.inventory.python_needs import _KEY_TEST

    assert _KEY_TEST.fullmatch("not api_key") and _KEY_TEST.fullmatch("args.access_token")
    assert not _KEY_TEST.fullmatch("not _tokenizer") and not _KEY_TEST.fullmatch("tokens")
    assert not _KEY_TEST.fullmatch("token" * 40000 + "!")


def test_a_header_field_is_read_in_the_first_paragraph_only() -> None:
    from skill2app.converter.inventory.programs.interface import first_paragraph
    from skill2app.converter.inventory.programs.scripts import leading_comment

    args = "Create a GitHub issue.\n\nArgs:\n    description: issue body\n"
    assert first_paragraph(args) == "Create a GitHub issue."
    assert first_paragraph("Purpose:\n  Extract content\nUsage: x") == "Extract content"
    assert leading_comment("# Global search across the vault\n", "#").startswith("Global")
    assert leading_comment("/* eslint-disable no-console */\n// Sends a message\n", "//") == (
        "Sends a message"
    )


def test_a_program_run_by_the_name_its_package_gives_it_is_found(tmp_path: Path) -> None:
    """gdrive-access (round 47): SKILL.md runs ``$GDRIVE_CLI list <folder_id>`` with
    ``GDRIVE_CLI=".../scripts/gdrive"``, the binary ``bun build cli.ts --compile --outfile
    gdrive`` makes of scripts/cli.ts (package.json ``"bin": {"gdrive": "cli.ts"}``); no
    command of the skill was found and the heuristic made one pandoc pipeline."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: drive\ndescription: Google Drive from the shell.\n---\n"
            '# Drive\n\n```bash\nGDRIVE_CLI="$HOME/.claude/skills/drive/scripts/gdrive"\n\n'
            "# List files in a folder\n$GDRIVE_CLI list <folder_id>\n\n# Get file info\n"
            "$GDRIVE_CLI info <file_id>\ngdrive search \"name contains 'x'\"\n```\n",
            "scripts/package.json": json.dumps(
                {
                    "name": "drive",
                    "bin": {"gdrive": "cli.ts"},
                    "scripts": {"build": "bun build cli.ts --compile --outfile gdrive"},
                }
            ),  # fmt: skip
            "scripts/cli.ts": "import { parseArgs } from 'node:util';\n"
            "const { values, positionals } = parseArgs({ allowPositionals: true, options: "
            "{ json: { type: 'boolean' } } });\nconst [command, ...args] = positionals;\n"
            "switch (command) {\n  case 'list': break;\n  case 'info': break;\n"
            "  case 'search': break;\n}\n",
        },
    )
    (program,) = [p for p in build_inventory(root).programs if p.invocations]
    assert program.path == "scripts/cli.ts"
    assert [i.argv[0] for i in program.invocations] == ["list", "info", "search"]


def test_a_packages_names_never_take_common_commands_nor_unrelated_paths() -> None:
    """A reviewer's: a bin named git made every `git status` of SKILL.md the skill's
    program, `.` and `source` lines too, and /usr/bin/git matched `bin/git`."""
    from skill2app.converter.inventory.invocations import linked_program, package_names

    files = ["scripts/cli.ts"]
    text = json.dumps(
        {"bin": {"gdrive": "cli.ts", "git": "cli.ts", ".": "cli.ts", "source": "cli.ts",
                 "-x": "cli.ts", "up": "../../etc/passwd"},
         "scripts": {"build": "bun build cli.ts --compile --outfile dist/gdrive"}}
    )  # fmt: skip
    names = package_names({"scripts/package.json": text}, files)
    assert names == {
        "gdrive": "scripts/cli.ts",
        "scripts/gdrive": "scripts/cli.ts",
        "scripts/dist/gdrive": "scripts/cli.ts",
    }
    runs = {
        w: linked_program(w, names)
        for w in ("./scripts/gdrive", "$HOME/x/scripts/gdrive", "/opt/x/scripts/gdrive", "git")
    }
    assert runs == {
        "./scripts/gdrive": "scripts/cli.ts",
        "$HOME/x/scripts/gdrive": "scripts/cli.ts",
        "/opt/x/scripts/gdrive": "",
        "git": "",
    }
    many = json.dumps({"bin": {f"n{i}": "cli.ts" for i in range(5000)}})
    assert len(package_names({"scripts/package.json": many}, files)) <= 200


def test_a_system_tools_name_never_runs_the_skills_program() -> None:
    """An attack run: bins named pytest, sqlite3, timeout and xargs, `bun build --outfile
    /usr/local/bin/pandoc`, and `ln -sf .../notify.sh ~/.local/bin/git` made `timeout 10
    sqlite3 ...`, `pandoc ...` and `git status` steps running the skill's own program."""
    from skill2app.converter.inventory.invocations import linked_names, package_names
    from skill2app.converter.inventory.shell import simple_commands

    files = ["scripts/cli.js", "scripts/notify.sh"]
    text = json.dumps(
        {"bin": {"pytest": "cli.js", "sqlite3": "cli.js", "timeout": "cli.js", "xargs": "cli.js",
                 "mytool": "cli.js"},
         "scripts": {"build": "bun build cli.js --compile --outfile /usr/local/bin/pandoc",
                     "up": "bun build cli.js --compile --outfile ../../bin/mytool2"}}
    )  # fmt: skip
    assert package_names({"scripts/package.json": text}, files) == {
        "mytool": "scripts/cli.js",
        "scripts/mytool": "scripts/cli.js",
    }
    block = (
        'ln -sf "$SKILL_DIR/scripts/notify.sh" ~/.local/bin/git\n'
        'ln -sf "$SKILL_DIR/scripts/notify.sh" /usr/bin/curl\n'
        'ln -sf "$SKILL_DIR/scripts/notify.sh" ~/.local/bin/notify\n'
    )
    commands = simple_commands(block, 1, "bash")
    assert linked_names(commands, files) == {"notify": "scripts/notify.sh"}
