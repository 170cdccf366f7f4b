"""app-convert on real skills: the arguments of the programs must be read as documented.

Each test is a minimal skill built from dicts that reproduces one defect class: bracketed
optional flags taken for positionals, a switch swallowing the next flag, a REMAINDER emitted
before the flags, optional flags listed after a label or in a table ignored, a program's
default action dropped, an optional positional made required, booleans and arrays typed as
strings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.inventory.programs.node import scan_node
from skill2app.converter.inventory.programs.scripts import heredoc_help
from skill2app.converter.inventory.programs.usage import default_in, option_line, usage_args
from skill2app.converter.plan.model import CodeStep, Pipeline, Plan

HEAD = "---\nname: demo\ndescription: Does things.\n---\n# Demo\n\n"
NODE_LOOP = (
    "const argv = process.argv.slice(2); const r = {};\n"
    "for (let i = 0; i < argv.length; i++) {\n  switch (argv[i]) {\n"
    "{cases}  }\n}\nconsole.log(JSON.stringify(r));\n"
)


def node_program(cases: dict[str, str]) -> str:
    arms = "".join(f"    case '{flag}': {code}; break;\n" for flag, code in cases.items())
    return NODE_LOOP.replace("{cases}", arms)


def plan_of(root: Path, files: dict[str, Any]) -> Plan:
    return analyze(build_inventory(write_tree(root, files)))


def only_pipeline(skill: Path, out: Path) -> Path:
    """The pipeline.yaml of the one business pipeline the heuristic conversion of ``skill``
    into ``out`` writes (the conversion must pass its verification)."""
    from skill2app.converter.convert import Options, convert

    report = convert(Options(skill_dir=skill, out=out, analyzer="heuristic"))
    assert report.ok, report.human_lines()
    (pipeline,) = (out / "pipelines").glob("[!_]*/pipeline.yaml")
    return pipeline


def inputs(pipeline: Pipeline) -> dict[str, tuple[str, bool, Any]]:
    return {i.name: (i.type, i.required, i.default) for i in pipeline.input}


def args(pipeline: Pipeline) -> list[dict[str, Any]]:
    step = pipeline.steps[0]
    assert isinstance(step, CodeStep)
    return [a.to_dict() for a in step.args]


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        pytest.param(
            "--action list [--count 20] [--offset 0]",
            [("--action", False, "string"), ("--count", True, "integer"),
             ("--offset", True, "integer")],
            id="optional-groups",
        ),
        pytest.param(
            "--auth-and-poll --open-id X",
            [("--auth-and-poll", False, "boolean"), ("--open-id", False, "string")],
            id="switch-then-flag",
        ),
        pytest.param(
            "<excel_file> [timeout_seconds]",
            [("excel_file", False, "string"), ("timeout_seconds", True, "integer")],
            id="optional-positional",
        ),
        pytest.param(
            "--server CMD --port N [--timeout SEC] -- cmd...",
            [("--server", False, "string"), ("--port", False, "integer"),
             ("--timeout", True, "integer"), ("cmd", False, "array")],
            id="remainder",
        ),
        pytest.param(
            "[--out FILE [--force]] {json|text} <files>...",
            [("--out", True, "string"), ("--force", True, "boolean"), ("json", False, "string"),
             ("files", False, "array")],
            id="nested-choices-repeat",
        ),
        pytest.param(
            "[options] REVISION_ID [REVISION_ID ...]",
            [("revision_id", False, "array")],
            id="one-or-more",
        ),
    ],
)  # fmt: skip
def test_usage_lines(usage: str, expected: list[tuple[str, bool, str]]) -> None:
    assert [(a.name, a.optional, a.type) for a in usage_args(usage)] == expected


def test_choices_and_defaults_in_text() -> None:
    (fmt,) = usage_args("--format {json|text}")
    assert fmt.choices == ["json", "text"]
    line = option_line("  -c, --count N    How many (default: 20)")
    assert line is not None and (line.name, line.aliases, line.type) == (
        "--count",
        ["-c"],
        "integer",
    )
    assert line.default == "20"
    zh = option_line("- `--timeout`：轮询等待秒数（默认 60）")
    assert zh is not None and (zh.name, zh.default, zh.type) == ("--timeout", "60", "integer")
    assert option_line("--format text).") is None  # prose that starts with a flag
    # a usage comment whose values are aligned in a column takes a value (not a switch)
    aligned = option_line(" *     --mode      <mode>          Update mode (required)")
    assert aligned is not None and (aligned.value, aligned.type, aligned.optional) == (
        "<mode>",
        "string",
        False,
    )
    assert aligned.help == "Update mode (required)"
    switch = option_line("  --verbose      Say more")
    assert switch is not None and switch.type == "boolean"
    assert default_in("Timeout in seconds (defaults to `30`)") == "30"
    assert default_in("默认值：json") == "json"
    # feishu-docx-download: "--output-dir  Download directory (default: user workspace under
    # EnClaws, ./downloads otherwise)" gave the default "user", and files went to ./user/
    assert default_in("Download directory (default: user workspace under X, ./d otherwise)") is None
    assert default_in("defaults to stdout if omitted") is None
    assert default_in("Output format, default json.") == "json"
    assert default_in("Wait time (default: 20 seconds)") == "20"
    # book-extract (round 10): the default is what the program works out, not a value to pass
    assert default_in("pandoc binary (default: $PANDOC or `pandoc` on PATH)") is None
    assert default_in("Output root (default: $TSUNDOKU_MARKDOWN_DIR or ~/.cache/x)") is None
    assert default_in("Format (default: `json` or `text` when piped)") is None


def test_bracketed_flags_are_optional_inputs_not_positionals(tmp_path: Path) -> None:
    """`[--count 20] [--offset 0]` became required positionals passed as "[--count", "20]"."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "```bash\nnode ./list.js --action list --chat-id C1 [--count 20] [--offset 0]\n```\n",
            "list.js": node_program(
                {
                    "--action": "r.action = argv[++i]",
                    "--chat-id": "r.chat = argv[++i]",
                    "--count": "r.count = parseInt(argv[++i], 10)",
                    "--offset": "r.offset = parseInt(argv[++i], 10)",
                }
            ),
        },
    )
    (pipeline,) = plan.pipelines
    assert inputs(pipeline)["count"] == ("integer", False, None)
    assert inputs(pipeline)["offset"] == ("integer", False, None)
    assert inputs(pipeline)["chat_id"][1] is True
    words = [a.get("value", "") for a in args(pipeline)]
    assert not any(str(w).startswith("[") or str(w).endswith("]") for w in words)


def test_a_switch_never_swallows_the_next_flag(tmp_path: Path) -> None:
    """`--auth-and-poll --open-id X` gave an input open_id_2 and dropped --open-id."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnode ./auth.js --auth-and-poll --open-id ou_1\n```\n",
            "auth.js": node_program(
                {"--auth-and-poll": "r.mode = 'auth-and-poll'", "--open-id": "r.id = argv[++i]"}
            ),
        },
    )
    (pipeline,) = plan.pipelines
    assert inputs(pipeline) == {
        "auth_and_poll": ("boolean", False, None),
        "open_id": ("string", True, None),
    }
    assert {"flag": "--open-id", "from": "input.open_id"} in args(pipeline)


def test_a_remainder_comes_after_the_flags(tmp_path: Path) -> None:
    """with_server.py: `command` (argparse REMAINDER) was emitted before --server/--port."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "```bash\npython scripts/with_server.py --server 'npm run dev' --port 5173 "
            "-- python test.py\n```\n",
            "scripts/with_server.py": (
                "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument('--server', action='append', required=True)\n"
                "p.add_argument('--port', action='append', type=int, required=True)\n"
                "p.add_argument('command', nargs=argparse.REMAINDER)\np.parse_args()\n"
            ),
        },
    )
    (pipeline,) = plan.pipelines
    assert args(pipeline) == [
        {"flag": "--server", "from": "input.server"},
        {"flag": "--port", "from": "input.port"},
        {"value": "--"},
        {"from": "input.command"},
    ]
    assert inputs(pipeline)["port"] == ("array", True, None)


def test_the_words_a_wrapper_passes_on_are_an_array(tmp_path: Path) -> None:
    """dependency-updater (round 19): `run-taze.sh [-r] [additional-args]` took one string, so
    "minor --write" reached taze as one unknown argument."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nscripts/run-taze.sh [-r] [additional-args]\n```\n",
            "scripts/run-taze.sh": (
                '#!/bin/bash\n# Usage: run-taze.sh [-r] [additional-args]\ntaze "$@"\n'
            ),
        },
    )
    (pipeline,) = plan.pipelines
    assert inputs(pipeline)["additional_args"] == ("array", False, None)
    (arg,) = usage_args("[-r] [extra_options]")[1:]
    assert (arg.name, arg.repeat, arg.rest) == ("extra_options", True, True)
    # only the last, optional one: not before other positionals, nor one a single value names
    assert not any(a.rest for a in usage_args("[extra-args] <input> <output>"))
    assert [a.name for a in usage_args("[git_args] -- <path>")] == ["git_args", "path"]
    assert not usage_args("<build_flags>")[0].rest
    assert [a.name for a in usage_args("<file> [extra_args] [--json]") if a.rest] == ["extra_args"]


def test_one_or_more_values_shown_one_by_one_stay_one_array(tmp_path: Path) -> None:
    """kobo-library: `kobo_get.sh [options] REVISION_ID [REVISION_ID ...]`, run in SKILL.md as
    `kobo_get.sh "$ID1" "$ID2" "$ID3"`, gave the inputs revision_id, text and text_2."""
    script = (
        "#!/bin/bash\n# Usage:\n#   kobo_get.sh [options] REVISION_ID [REVISION_ID ...]\n"
        '#\n# Options:\n#   --quiet   only print file names\nfor id in "$@"; do echo "$id"; '
        "done\n"
    )
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + '```bash\nbash scripts/kobo_get.sh "$REVISION_ID"\n'
            'bash scripts/kobo_get.sh "$ID1" "$ID2" "$ID3"\n```\n',
            "scripts/kobo_get.sh": script,
        },
    )
    (pipeline,) = plan.pipelines
    assert [n for n in inputs(pipeline) if n != "quiet"] == ["revision_id"]
    assert inputs(pipeline)["revision_id"][0] == "array"
    # a usage line that pipes another program into it gives that program's flags to none
    script_with_pipe = script.replace(
        "REVISION_ID ...]\n",
        "REVISION_ID ...]\n#   query.py --format ids | kobo_get.sh [options]\n",
    )
    assert script_with_pipe != script
    skill = write_tree(
        tmp_path / "pipe",
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/kobo_get.sh --quiet ID\n```\n",
            "scripts/kobo_get.sh": script_with_pipe,
        },
    )
    (program,) = build_inventory(skill).programs
    assert program.cli is not None
    assert [p.name for p in program.cli.params if p.name.startswith("--f")] == []
    # an array before the last positional too (a second reviewer's `cp`-like usage)
    copy = '#!/bin/bash\n# Usage: copy.sh SRC [SRC ...] DEST\ncp "$@"\n'
    plan = plan_of(
        tmp_path / "cp",
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/copy.sh a.txt b.txt out/\n```\n",
            "scripts/copy.sh": copy,
        },
    )
    (pipeline,) = plan.pipelines
    assert list(inputs(pipeline)) == ["src", "dest"]


def test_optional_flags_after_a_label_or_in_a_table(tmp_path: Path) -> None:
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "## 搜索\n\n```bash\nnode ./chat.js --action search --query q\n```\n\n"
            '可选：`--page-size 20` `--page-token "xxx"`\n\n'
            "## Get\n\n```bash\nnode ./chat.js --action get --chat-id c1\n```\n\n"
            "Optional: `--verbose`\n\n"
            "| 参数 | 必填 | 说明 |\n|---|---|---|\n"
            "| `--lang` | 可选 | 语言：`zh`（默认）/ `en` |\n"
            "| `--limit` | 可选 | 条数（默认 50） |\n",
            "chat.js": node_program(
                {
                    "--action": "r.action = argv[++i]",
                    "--query": "r.q = argv[++i]",
                    "--chat-id": "r.chat = argv[++i]",
                    "--page-size": "r.size = parseInt(argv[++i], 10)",
                    "--page-token": "r.token = argv[++i]",
                    "--verbose": "r.verbose = true",
                    "--lang": "r.lang = argv[++i]",
                    "--limit": "r.limit = argv[++i]",
                }
            ),
        },
    )
    search, get = plan.pipelines
    assert inputs(search)["page_size"] == ("integer", False, None)
    assert inputs(search)["page_token"] == ("string", False, None)
    assert "verbose" not in inputs(search)  # described for another command
    assert inputs(get)["verbose"] == ("boolean", False, None)
    assert inputs(get)["lang"] == ("string", False, "zh")
    assert inputs(get)["limit"] == ("integer", False, 50)
    assert next(i for i in get.input if i.name == "lang").enum == ["zh", "en"]


def test_a_flag_one_action_needs_is_optional_and_a_continued_usage_line_has_no_backslash(
    tmp_path: Path,
) -> None:
    """feishu-search-user: "search 时必填" (needed by the search action) made --query required
    for get_me too; feishu-im-message: a usage comment continued with `\\` gave a required
    positional `arg` (the backslash) that every pipeline asked for."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnode ./user.js --open-id ou_1 --query 张三\n"
            "node ./user.js --open-id ou_1 --action get_me\n```\n\n"
            "| 参数 | 必填 | 说明 |\n|---|---|---|\n"
            "| `--open-id` | 是 | 当前用户 |\n"
            "| `--action` | 否 | `search`（默认）/ `get_me` / `get` |\n"
            "| `--query` | search 时必填 | 关键词 |\n"
            "| `--user-id` | required for get | the user |\n",
            "user.js": "/**\n * Usage:\n *   node user.js --open-id ou_xxx --action get \\\n"
            " *     --user-id ou_yyy\n */\n"
            + node_program(
                {
                    "--open-id": "r.openId = argv[++i]",
                    "--action": "r.action = argv[++i]",
                    "--query": "r.query = argv[++i]",
                    "--user-id": "r.userId = argv[++i]",
                }
            ),
        },
    )
    (program,) = build_inventory(tmp_path).programs
    params = {p.name: p.required for p in program.cli.params}
    assert params == {"--open-id": True, "--action": False, "--query": False, "--user-id": False}
    assert usage_args("node x.js --a 1 \\") == usage_args("node x.js --a 1")


def test_a_flag_the_code_reads_a_value_for_stays_a_value_whatever_its_default(
    tmp_path: Path,
) -> None:
    """feishu-im-message: `--reply-in-thread true` (the code reads argv[++i]) documented as
    "默认 false" became a boolean, passed bare: the program then took the next flag as its
    value."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "```bash\nnode ./msg.js --action reply --reply-in-thread true --quiet\n```\n\n"
            "| 参数 | 必填 | 说明 |\n|---|---|---|\n"
            "| `--reply-in-thread` | 可选 | `true`=话题回复，默认 false |\n"
            "| `--quiet` | 可选 | 不输出日志 |\n",
            "msg.js": node_program(
                {
                    "--action": "r.action = argv[++i]",
                    "--reply-in-thread": "r.thread = argv[++i]",
                    "--quiet": "r.quiet = true",
                }
            ),
        },
    )
    (program,) = build_inventory(tmp_path).programs
    types = {p.name: p.type for p in program.cli.params}
    assert types == {"--action": "string", "--reply-in-thread": "string", "--quiet": "boolean"}


def test_the_default_action_keeps_its_pipeline(tmp_path: Path) -> None:
    """A command shown without --action runs the program's default action: it was dropped."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython scripts/notes.py --action add --text hi\n"
            "python scripts/notes.py --action remove --id 3\npython scripts/notes.py\n```\n",
            "scripts/notes.py": (
                "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument('--action', choices=['add', 'remove', 'list'], default='list')\n"
                "p.add_argument('--text')\np.add_argument('--id', type=int)\np.parse_args()\n"
            ),
        },
    )
    actions = [args(p)[0].get("value") for p in plan.pipelines]
    assert actions == ["add", "remove", "list"]
    listing = plan.pipelines[2]
    assert len(listing.source) > 0 and listing.source.startswith("SKILL.md:")


def test_an_optional_positional_of_a_usage_line(tmp_path: Path) -> None:
    """recalc.py prints `Usage: python recalc.py <excel_file> [timeout_seconds]`."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython scripts/recalc.py book.xlsx 30\n```\n",
            "scripts/recalc.py": (
                "import sys\nif len(sys.argv) < 2:\n"
                "    print('Usage: python recalc.py <excel_file> [timeout_seconds]')\n"
                "    sys.exit(1)\nprint(sys.argv)\n"
            ),
        },
    )
    (pipeline,) = plan.pipelines
    assert inputs(pipeline) == {
        "excel_file": ("string", True, None),
        "timeout_seconds": ("integer", False, None),
    }


def test_program_facts_beat_prose(tmp_path: Path) -> None:
    """argparse says --count is an int with default 5; a table says 20: the program wins."""
    inventory = build_inventory(
        write_tree(
            tmp_path,
            {
                "SKILL.md": HEAD
                + "```bash\npython x.py --count 3 --dry-run --tag a --tag b\n```\n\n"
                "| flag | default | description |\n|---|---|---|\n"
                "| `--count` | 20 | how many |\n| `--mode` | fast | undeclared |\n",
                "x.py": (
                    "import argparse\np = argparse.ArgumentParser()\n"
                    "p.add_argument('--count', type=int, default=5)\n"
                    "p.add_argument('--dry-run', action='store_true')\n"
                    "p.add_argument('--tag', action='append')\np.parse_args()\n"
                ),
            },
        )
    )
    program = inventory.program("x.py")
    assert program is not None and program.cli is not None
    found = {p.name: (p.type, p.default, p.help) for p in program.cli.params}
    assert found == {
        "--count": ("integer", 5, "how many"),
        "--dry-run": ("boolean", None, ""),
        "--tag": ("array", None, ""),
    }


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "program.option('-c, --count <n>', 'how many', 20)\n"
            "  .requiredOption('--name <name>', 'who')\n  .option('--dry-run', 'no writes')\n"
            "  .argument('<file>', 'input');\n",
            {"--count": ("integer", False, 20), "--name": ("string", True, None),
             "--dry-run": ("boolean", False, None), "file": ("string", True, None)},
            id="commander",
        ),
        pytest.param(
            "yargs.option('count', { alias: 'c', type: 'number', default: 20 })\n"
            "  .option('name', { type: 'string', demandOption: true })\n"
            "  .option('tags', { type: 'array' });\n",
            {"--count": ("number", False, 20), "--name": ("string", True, None),
             "--tags": ("array", False, None)},
            id="yargs",
        ),
        pytest.param(
            node_program({"--limit": "r.limit = parseInt(argv[++i], 10)", "--json": "r.json = true",
                          "--id": "r.id = argv[i + 1]"}),
            {"--limit": ("integer", False, None), "--json": ("boolean", False, None),
             "--id": ("string", False, None)},
            id="hand-rolled-loop",
        ),
    ],
)  # fmt: skip
def test_node_declarations_give_types(source: str, expected: dict[str, tuple]) -> None:
    command, _dispatch = scan_node(source)
    assert {p.name: (p.type, p.required, p.default) for p in command.params} == expected


def test_bracketed_names_of_a_script_that_counts_its_arguments(tmp_path: Path) -> None:
    """pdf's fill script: `Usage: fill.py [input pdf] [field_values.json] [output pdf]` and
    `if len(sys.argv) != 4`: three required positionals, kept in their order."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython scripts/fill.py in.pdf values.json out.pdf\n```\n",
            "scripts/fill.py": (
                "import sys\nif len(sys.argv) != 4:\n"
                "    print('Usage: fill.py [input pdf] [field_values.json] [output pdf]')\n"
                "    sys.exit(1)\nprint(sys.argv[1:])\n"
            ),
        },
    )
    (pipeline,) = plan.pipelines
    assert inputs(pipeline) == {
        "input_pdf": ("string", True, None),
        "field_values_json": ("string", True, None),
        "output_pdf": ("string", True, None),
    }
    assert args(pipeline) == [
        {"from": "input.input_pdf"},
        {"from": "input.field_values_json"},
        {"from": "input.output_pdf"},
    ]


def test_a_usage_that_imports_a_module_is_no_command_line(tmp_path: Path) -> None:
    """docx's soffice.py documents `Usage: from office.soffice import run_soffice`: its
    words are not positionals of the program."""
    inventory = build_inventory(
        write_tree(
            tmp_path,
            {
                "SKILL.md": HEAD + "```bash\npython scripts/soffice.py --headless in.doc\n```\n",
                "scripts/soffice.py": (
                    '"""Helper.\n\nUsage:\n    from office.soffice import run_soffice\n"""\n'
                    "import sys\nprint(sys.argv)\n"
                ),
            },
        )
    )
    program = inventory.program("scripts/soffice.py")
    assert program is not None and program.cli is not None
    names = {p.name for p in program.cli.params}
    assert not names & {"import", "run_soffice", "office_soffice", "from"}
    assert "--headless" in names


def test_a_flag_main_stops_without_is_required() -> None:
    """`if (!args.openId) die(...)` right after parsing: --open-id is the program's own
    requirement; a check inside one action's handler is that action's only."""
    source = node_program(
        {
            "--open-id": "r.openId = argv[++i]",
            "--task-id": "r.taskId = argv[++i]",
            "--status": "r.mode = 'status'",
        }
    )
    source = source.replace("console.log(JSON.stringify(r));\n", "")
    source = source.replace("const argv", "function parseArgs() {\nconst argv", 1)
    source += (
        "return r; }\nfunction getTask(args) {\n  if (!args.taskId) die('task id');\n}\n"
        "async function main() {\n  const args = parseArgs();\n"
        "  if (!args.openId) die({ error: 'missing' });\n  if (!args.mode) die('mode');\n}\n"
    )
    command, _dispatch = scan_node(source)
    assert {p.name: p.required for p in command.params} == {
        "--open-id": True,
        "--task-id": False,
        "--status": False,
    }


GENERIC_ARGS = (
    "const args = {};\nfor (let i = 2; i < process.argv.length; i++) {\n"
    "    const a = process.argv[i];\n"
    '    if (a === "--summary") { args.summary = true; continue; }\n'
    '    if (a.startsWith("--")) args[a.slice(2)] = process.argv[++i];\n}\n'
    "{checks}\nconsole.log(JSON.stringify(args));\n"
)


@pytest.mark.parametrize(
    "checks",
    [
        'for (const r of ["base", "out"]) {\n'
        "    if (!args[r]) { console.error(`error: --${r} is required`); process.exit(2); }\n}",
        "for (const [k, v] of Object.entries({ base: args.base, out: args.out })) {\n"
        "    if (!v) { console.error(`--${k} is required`); process.exit(2); }\n}",
    ],
)
def test_flags_a_generic_reader_stops_without_are_required(tmp_path: Path, checks: str) -> None:
    """uipath: every `--name value` is read generically, then a loop over the names it needs
    exits without one; `if (a === "--summary") { args.summary = true; continue; }` is a
    switch, though the next line reads a value."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnode merge.mjs --base a.json --overrides b.json "
            "--out c.json --summary\n```\n",
            "merge.mjs": GENERIC_ARGS.replace("{checks}", checks),
        },
    )
    program = build_inventory(tmp_path).program("merge.mjs")
    assert program is not None and program.cli is not None
    flags = {p.name: (p.type, p.required) for p in program.cli.params}
    assert flags == {
        "--summary": ("boolean", False),
        "--base": ("string", True),
        "--overrides": ("string", False),
        "--out": ("string", True),
    }


def test_a_program_documented_by_the_name_it_is_linked_under(tmp_path: Path) -> None:
    """cc-skills: SKILL.md links scripts/notify.sh to ~/.local/bin/notify and runs `notify`."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + '```bash\nln -sf "$HOME/skills/demo/scripts/notify.sh" '
            "~/.local/bin/notify\n```\n\n```bash\nnotify --title Hi --priority 1\n```\n",
            "scripts/notify.sh": 'while [ $# -gt 0 ]; do\n  case "$1" in\n'
            '    --title) TITLE="$2"; shift 2 ;;\n    --priority) P="$2"; shift 2 ;;\n'
            '    *) shift ;;\n  esac\ndone\necho "{}"\n',
        },
    )
    inventory = build_inventory(tmp_path)
    program = inventory.program("scripts/notify.sh")
    assert program is not None and [i.argv for i in program.invocations] == [
        ["--title", "Hi", "--priority", "1"]
    ]
    assert "notify" not in {r.name for r in inventory.requirements if r.kind == "binary"}


NOTIFY = """#!/usr/bin/env bash
usage() {
  cat <<EOF
Usage: notify.sh --title <text> --message <text> [options]
  --title <text>       Title
  --message <text>     Body
  --priority <-2..2>   Priority. Default -1=INFO
  --ttl <seconds>      Expire after N seconds
  --ratio <frac>       Share of the quota
EOF
}
while [ $# -gt 0 ]; do
  case "$1" in
    --title) TITLE="$2"; shift 2 ;;
    --message) MESSAGE="$2"; shift 2 ;;
    --priority) PRIORITY="$2"; shift 2 ;;
    --ttl) TTL="$2"; shift 2 ;;
    --ratio) RATIO="$2"; shift 2 ;;
    --service) SVC="$2"; [ -z "$SVC" ] && die "--service requires a name"; shift 2 ;;
    *) shift ;;
  esac
done
[ -z "$TITLE" ] && { usage >&2; die "missing --title" 1; }
if [ -z "$MESSAGE" ]; then
  exit 1
fi
echo '{}'
"""


def test_a_shell_script_says_what_it_needs_and_its_help_what_it_takes(tmp_path: Path) -> None:
    """cc-skills: the flags a script stops without were optional, the help it prints from a
    here-document was never read (`--ttl <seconds>`, `--priority <-2..2>` were strings)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash notify.sh --title T --message M\n```\n",
            "notify.sh": NOTIFY,
        },
    )
    program = build_inventory(tmp_path).program("notify.sh")
    assert program is not None and program.cli is not None
    flags = {p.name: (p.type, p.required) for p in program.cli.params if p.kind == "flag"}
    assert flags == {
        "--title": ("string", True),
        "--message": ("string", True),
        "--priority": ("integer", False),
        "--ttl": ("integer", False),
        "--ratio": ("number", False),
        "--service": ("string", False),  # the check in its arm is about the value given
    }


def test_a_default_column_that_says_required(tmp_path: Path) -> None:
    """cc-skills: `| --src DIR | (required) | ... |` in a Default column made "(required)" the
    default, and the flag optional, though the script's help says it is required."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash tool.sh --src pics --out o\n```\n\n"
            "| flag | default | meaning |\n|---|---|---|\n| `--src DIR` | (required) | source |\n"
            "| `--out DIR` | `<src>/_bundle` | output |\n",
            "tool.sh": "# Usage: tool.sh --src DIR [--out DIR]\n#   --src DIR   Source (required)\n"
            'while [ $# -gt 0 ]; do\n  case "$1" in\n    --src) SRC="$2"; shift 2;;\n'
            '    --out) OUT="$2"; shift 2;;\n    *) shift;;\n  esac\ndone\necho "{}"\n',
        },
    )
    program = build_inventory(tmp_path).program("tool.sh")
    assert program is not None and program.cli is not None
    flags = {p.name: (p.required, p.default) for p in program.cli.params}
    assert flags == {"--src": (True, None), "--out": (False, "<src>/_bundle")}


def test_a_here_document_runs_to_its_delimiter_or_to_the_end() -> None:
    source = (
        'usage() {\n  cat <<EOF\n  --ttl <seconds>  TTL\nEOF\n}\ncat <<-"END"\nno flags\nEND\n'
        "cat <<MORE\n  --keep N   days\n"  # never closed: the rest of the script is its body
    )
    assert heredoc_help(source) == ["  --ttl <seconds>  TTL", "  --keep N   days\n"]


def test_integer_choices_are_integers_in_the_pipeline(tmp_path: Path) -> None:
    """argparse ``type=int, choices=[0, 1, 2], default=0`` gave ``enum: ["0", "1", "2"]`` with
    type integer: app-run check failed the APP (an enum value not of its type, a default not
    one of its enum)."""
    import yaml

    skill = write_tree(
        tmp_path / "route",
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/route.py --origin A --cartype 1\n```\n",
            "scripts/route.py": (
                "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument('--origin', required=True)\n"
                "p.add_argument('--cartype', type=int, default=0, choices=[0, 1, 2])\n"
                "p.parse_args()\n"
            ),
        },
    )
    pipeline = only_pipeline(skill, tmp_path / "app")
    cartype = yaml.safe_load(pipeline.read_text())["input"]["cartype"]
    assert (cartype["type"], cartype["enum"], cartype["default"]) == ("integer", [0, 1, 2], 0)


def test_a_list_flag_with_choices_allows_each_item(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """argparse ``nargs="+", choices=[...], default=["all"]`` rendered the choices as the
    array input's ``enum`` (whole values), so app-run check failed the APP: "enum value "all"
    is not array" (cc-skills code-hardcode-audit, round 5).  The choices are the items'."""
    import json

    import yaml
    from helpers import invoke

    skill = write_tree(
        tmp_path / "audit",
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/audit.py src/ --tools ruff semgrep\n```\n",
            "scripts/audit.py": (
                "import argparse, json\np = argparse.ArgumentParser()\n"
                "p.add_argument('path')\n"
                "p.add_argument('--tools', nargs='+', default=['all'],\n"
                "               choices=['all', 'ruff', 'semgrep'])\n"
                "print(json.dumps(vars(p.parse_args())))\n"
            ),
        },
    )
    pipeline = only_pipeline(skill, tmp_path / "app")
    tools = yaml.safe_load(pipeline.read_text())["input"]["tools"]
    assert "enum" not in tools and tools["default"] == ["all"]
    assert "each one of: all, ruff, semgrep" in tools["description"]
    monkeypatch.chdir(tmp_path / "app")
    got = invoke("run", ".", pipeline.parent.name, "-i", "path=src", "-i", 'tools=["semgrep"]')
    assert got.exit_code == 0, got.stderr
    assert json.loads(got.stdout)["tools"] == ["semgrep"]


def test_a_program_option_goes_before_its_subcommand(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mail.py --mailbox 163 send --to X``: argparse reads --mailbox before the subcommand
    only.  It was a false "SKILL.md passes --mailbox, which the program does not declare",
    no pipeline could set it, and one passed after ``send`` would be refused.  And a value
    shown for a flag whose help holds it ("主题" in "邮件主题") was no example: a placeholder."""
    import json

    from helpers import invoke

    from skill2app.converter.convert import Options, convert

    skill = write_tree(
        tmp_path / "mail",
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/mail.py --mailbox 163 send --to a@b.cn "
            "--subject 主题\npython3 scripts/mail.py receive --limit 5\n```\n",
            "scripts/mail.py": (
                "import argparse, json, sys\np = argparse.ArgumentParser()\n"
                "p.add_argument('--mailbox', choices=['qq', '163'], default='qq')\n"
                "sub = p.add_subparsers(dest='command')\ns = sub.add_parser('send')\n"
                "s.add_argument('--to', required=True)\n"
                "s.add_argument('--subject', required=True, help='邮件主题')\n"
                "r = sub.add_parser('receive')\nr.add_argument('--limit', type=int, default=10)\n"
                "a = p.parse_args()\nprint(json.dumps({'argv': sys.argv[1:]}))\n"
            ),
        },
    )
    report = convert(Options(skill_dir=skill, out=tmp_path / "app", analyzer="heuristic"))
    assert report.ok, report.human_lines()
    assert not [n for n in report.notes + report.warnings if "does not declare" in n]
    monkeypatch.chdir(tmp_path / "app")
    send = [p["name"] for p in report.pipelines if "send" in p["name"]][0]
    got = invoke("run", ".", send, "-i", "to=x@y.cn", "-i", "subject=hi", "-i", "mailbox=163")
    assert got.exit_code == 0, got.stderr
    argv = json.loads(got.stdout)["argv"]
    assert argv == ["--mailbox", "163", "send", "--to", "x@y.cn", "--subject", "hi"]
    # the value SKILL.md shows is the sample, though the help says it in passing ("邮件主题")
    sample = json.loads((tmp_path / "app" / "pipelines" / send / "samples/input.json").read_text())
    assert sample["subject"] == "主题"


def test_a_case_that_checks_a_range_gives_no_choices() -> None:
    """``case "$T" in 0.[0-9]*|1.0|1) ;; *) die`` validates a fraction; it is no choice among
    the words "1" and "1.0" (which became ``enum: [1.0, 1.0]`` and failed app-run check)."""
    from skill2app.converter.inventory.programs.scripts import scan_shell
    from skill2app.converter.render.render import typed

    command, dispatch = scan_shell(
        '#!/bin/bash\nwhile [ $# -gt 0 ]; do\n  case "$1" in\n'
        '    --alert-threshold) T="$2"; shift 2 ;;\n  esac\ndone\n'
        'case "$T" in\n  0.[0-9]*|1.0|1) ;;\n  *) die "bad" ;;\nesac\n'
        'case "$MODE" in\n  fast) ;;\n  slow) ;;\nesac\n'
    )
    assert "T" not in dispatch and dispatch["MODE"] == ["fast", "slow"]
    assert command.flag("--alert-threshold") is not None
    assert typed(["1", "1.0", "0.5"], "number") == [1.0, 0.5]
    assert typed(["a", "1"], "integer") == ["a", "1"]  # not all numbers: left as they are


def test_a_case_in_a_function_of_its_own_arguments_is_no_dispatch() -> None:
    """``level_priority() { case "$1" in ERROR) ...`` switches on the function's argument:
    it made ERROR, INFO and WARN the script's subcommands.  A function handed the script's
    own arguments (``main "$@"``) still dispatches on them."""
    from skill2app.converter.inventory.programs.scripts import scan_shell

    _command, dispatch = scan_shell(
        '#!/bin/bash\nlevel_priority() {\n  case "$1" in\n    ERROR) echo 1 ;;\n'
        "    INFO) echo -1 ;;\n  esac\n}\n"
        'main() {\n  case "$1" in\n    start) run ;;\n    stop) halt ;;\n  esac\n}\n'
        'main "$@"\nlevel_priority "$LEVEL"\n'
    )
    assert dispatch == {"1": ["start", "stop"]}


def test_a_placeholder_is_no_command(tmp_path: Path) -> None:
    """``NO_PUSHOVER=1 pushover-notify ...``: the dots stand for the arguments, they are no
    subcommand (the pipeline ran ``pushover-notify ...`` and every send failed)."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/notify.sh send --title hi\n"
            "bash scripts/notify.sh ...\n```\n",
            "scripts/notify.sh": (
                '#!/bin/bash\ncase "$1" in\n  send) shift ;;\n  *) exit 2 ;;\nesac\n'
                'while [ $# -gt 0 ]; do\n  case "$1" in\n    --title) T="$2"; shift 2 ;;\n'
                "  esac\ndone\n"
            ),
        },
    )
    subcommands = {s.subcommand for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)}
    assert "..." not in subcommands


def test_values_shown_for_a_parsed_flag_are_examples_not_its_choices(tmp_path: Path) -> None:
    """countbot weather (round 5): argparse ``--lang`` (``default="zh"``, no choices) shown
    as ``--lang en`` and ``--lang ja`` became ``enum: [en, ja]``; its default was then not
    one of its enum, and the whole program was left to Skill mode (0 pipelines)."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/weather.py London --lang en\n"
            "python3 scripts/weather.py Tokyo --lang ja --units uscs\n```\n",
            "scripts/weather.py": (
                "import argparse\np = argparse.ArgumentParser()\np.add_argument('city')\n"
                "p.add_argument('--lang', default='zh')\n"
                "p.add_argument('--units', choices=['metric', 'uscs'])\np.parse_args()\n"
            ),
        },
    )
    (pipeline,) = plan.pipelines
    inputs = {i.name: i for i in pipeline.input}
    assert inputs["lang"].enum is None and inputs["lang"].default == "zh"
    assert inputs["units"].enum == ["metric", "uscs"]


def test_a_program_only_named_runs_as_its_own_header_shows(tmp_path: Path) -> None:
    """cc-skills worktree-manager (round 5): SKILL.md names create-worktree.sh but never runs
    it; its header shows ``Usage:`` and ``Examples:`` lines.  It was left to Skill mode
    ("SKILL.md never shows how to run it"): the APP had no pipeline at all."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "Worktrees are made by `create-worktree.sh` with ADR names.\n",
            "scripts/create-worktree.sh": (
                "#!/usr/bin/env bash\n# Create a worktree\n#\n# Usage:\n"
                "#   New:    create-worktree.sh --mode new --slug <slug> --base <base>\n#\n"
                "# Examples:\n#   create-worktree.sh --mode new --slug sharpe-check --base main\n"
                "#   create-worktree.sh --slug `touch /tmp/x` --base $(id -u)\n"
                "\nwhile [[ $# -gt 0 ]]; do\n  case $1 in\n"
                '    --mode) MODE="$2"; shift 2 ;;\n    --slug) SLUG="$2"; shift 2 ;;\n'
                '    --base) BASE="$2"; shift 2 ;;\n    *) shift ;;\n  esac\ndone\n'
                'echo "{\\"slug\\": \\"$SLUG\\"}"\n'
            ),
            "scripts/detect-stale.sh": "#!/usr/bin/env bash\n# Usage: detect-stale.sh --days 7\n",
        },
    )
    (pipeline,) = plan.pipelines  # detect-stale.sh: named nowhere, a helper
    (step,) = pipeline.steps
    assert isinstance(step, CodeStep) and step.program == "scripts/create-worktree.sh"
    assert {i.name for i in pipeline.input} == {"mode", "slug", "base"}  # no `touch` input
    from skill2app.converter.plan.samples import sample_inputs

    assert sample_inputs(pipeline, [])["slug"] == "sharpe-check"


def test_a_header_title_line_is_no_command_and_a_runner_line_is(tmp_path: Path) -> None:
    """modelstudio spark-video (DEV): ``build_viewer.py — emit a self-contained viewer.html``,
    the docstring's title, was taken for the program run with the arguments "—", "emit",
    "a" ..., and the pipeline's trigger read "build viewer — emit a".  The command the
    header shows is ``uv run scripts/build_viewer.py [--no-open]`` after environment
    assignments: that one runs it."""
    plan = plan_of(
        tmp_path,
        {
            "SKILL.md": HEAD + "After stitching, `build_viewer.py` writes a viewer page.\n",
            "scripts/build_viewer.py": (
                '"""\nbuild_viewer.py — emit a self-contained viewer.html for one episode.\n\n'
                "Run:\n    PROJECT=foo EPISODE=001 \\\\\n"
                '        uv run scripts/build_viewer.py [--no-open]\n"""\n'
                "import argparse\np = argparse.ArgumentParser()\n"
                "p.add_argument('--no-open', action='store_true')\np.parse_args()\n"
            ),
        },
    )
    (pipeline,) = plan.pipelines
    assert not any(t.endswith("emit a") or "—" in t for t in pipeline.triggers), pipeline.triggers
    (no_open,) = pipeline.input
    assert no_open.name == "no_open" and no_open.type == "boolean" and not no_open.required


def test_a_getter_helper_and_alternative_usage_lines_give_optional_value_flags(
    tmp_path: Path,
) -> None:
    """feishu-docx-download: ``getArg('--file-token')`` (a helper returning ``args[i + 1]``)
    reads a value, and the header's three usage lines run the program two ways.  The option
    lines name the flags without a value: ``--file-token`` and ``--type`` became booleans,
    ``--url`` (on the first usage line only) was required, and SKILL.md's
    ``--file-token "FILE_TOKEN" --type "docx"`` then gave two stray positionals."""
    source = (
        "/**\n * Download a file.\n *\n * Usage:\n"
        ' *   node ./dl.js --open-id "ou_x" --url "https://x.cn/file/T"\n'
        ' *   node ./dl.js --open-id "ou_x" --file-token "TOKEN" --type "docx"\n *\n'
        " * Options:\n *   --open-id      The user (required)\n"
        " *   --url          A file URL\n *   --file-token   A file token\n"
        " *   --type         File extension hint\n */\n"
        "const args = process.argv.slice(2);\n"
        "function getArg(name) {\n  const i = args.indexOf(name);\n"
        "  return i !== -1 && args[i + 1] !== undefined ? args[i + 1] : null;\n}\n"
        "const openId = getArg('--open-id');\nconst url = getArg('--url');\n"
        "const token = getArg('--file-token');\nconst type = getArg('--type');\n"
        "const quiet = args.includes('--quiet');\n"
        "const has = (f) => args.includes(f);\nconst dry = has('--dry-run');\n"
    )
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + '```bash\nnode ./dl.js --open-id "ou_x" --file-token "FILE_TOKEN" '
            + '--type "docx"\n```\n',
            "dl.js": source,
        },
    )
    (program,) = build_inventory(tmp_path).programs
    shown = {p.name: (p.kind, p.type, p.required) for p in program.cli.params}
    assert shown == {
        "--open-id": ("flag", "string", True),
        "--url": ("flag", "string", False),
        "--file-token": ("flag", "string", False),
        "--type": ("flag", "string", False),
        "--quiet": ("flag", "boolean", False),
        "--dry-run": ("flag", "boolean", False),
    }


def test_a_one_line_case_arm_is_read_alone() -> None:
    """make-bundle.sh: ``--full) FULL=1; shift;;`` sat above ``--zip-cap-mib) ZIP_CAP="$2"``;
    the four lines read for its type took the next arm's ``$2``, so ``--full`` took a value."""
    from skill2app.converter.inventory.programs.scripts import scan_shell

    command, _dispatch = scan_shell(
        '#!/bin/bash\nwhile [ $# -gt 0 ]; do\n  case "$1" in\n'
        "    --full) FULL=1; shift;;\n"
        '    --zip-cap-mib) ZIP_CAP="$2"; shift 2;;\n'
        '    --out) OUT="$2"; shift 2;;\n  esac\ndone\n'
    )
    types = {p.name: (p.type, p.valued) for p in command.params}
    assert types == {
        "--full": ("boolean", False),
        "--zip-cap-mib": ("string", True),
        "--out": ("string", True),
    }


BUN_SKILL = {
    "SKILL.md": HEAD + "## Step 7: Execute Text Formatting Script\n\n```bash\n"
    "npx -y bun ${SKILL_DIR}/scripts/main.ts {output-file-path} [options]\n```\n\n"
    "```bash\nnpx -y bun ${SKILL_DIR}/scripts/main.ts article.md --quotes\n"
    "npx -y bun ${SKILL_DIR}/scripts/main.ts article.md --no-spacing\n```\n",
    "scripts/main.ts": (
        'import { unified } from "unified";\n'
        "function parseArgs(args: string[]) {\n  const options: any = {}; let filePath = '';\n"
        "  for (let i = 0; i < args.length; i++) {\n    const arg = args[i];\n"
        '    if (arg === "--quotes" || arg === "-q") {\n      options.quotes = true;\n'
        '    } else if (arg === "--no-spacing") {\n      options.spacing = false;\n'
        '    } else if (arg === "--help") {\n'
        "      console.log(`Usage: npx -y bun scripts/main.ts <file.md> [options]`);\n"
        '    } else if (!arg.startsWith("-")) {\n      filePath = arg;\n    }\n  }\n'
        "  return { filePath, options };\n}\n"
    ),
}


def test_a_typescript_program_run_with_npx_y_bun(tmp_path: Path) -> None:
    """baoyu-format-markdown (round 12): its help's ``Usage: npx -y bun scripts/main.ts
    <file.md> [options]`` gave the program a required flag ``-y`` and positionals named
    ``scripts_main_ts`` and ``options``; ``options.spacing = false`` made ``--no-spacing`` a
    string; the step ran ``npx bun`` (npx then asks before it fetches bun, and a run has no
    one to answer); every package the script imports was a blocking check though bun
    installs them as it runs it."""
    inventory = build_inventory(write_tree(tmp_path / "skill", BUN_SKILL))
    (program,) = inventory.programs
    params = {p.name: p for p in program.cli.params}
    assert set(params) == {"--quotes", "--no-spacing", "--help", "file_md"}
    assert params["--no-spacing"].type == "boolean" and params["file_md"].required
    assert {inv.interpreter for inv in program.invocations} == {"npx -y bun"}
    (unified,) = [r for r in inventory.requirements if r.kind == "node-package"]
    assert unified.name == "unified" and not unified.required
    (pipeline,) = analyze(inventory).pipelines
    assert [i.name for i in pipeline.input] == ["file_md", "quotes", "no_spacing"]
    assert pipeline.description == "Execute text formatting script"


WIKI_SKILL = {
    "SKILL.md": HEAD + "## 新建 vault\n\n```bash\npython3 scripts/init_vault.py <目标目录>\n```\n\n"
    "## 刷新工具\n\n```bash\npython3 scripts/init_vault.py --refresh-tools <vault>\n```\n\n"
    "## 检查\n\n```bash\npython3 scripts/lint_vault.py wiki\n```\n",
    "scripts/init_vault.py": (
        '"""init_vault — 建一个空的 vault。\n\n用法：\n  python init_vault.py <目标目录>\n'
        '"""\nimport sys\n\n'
        'if sys.argv[1] == "--refresh-tools":\n    print("refresh", sys.argv[2])\n'
        "else:\n    print('init', sys.argv[1])\n"
    ),
    "scripts/lint_vault.py": (
        '"""Vault lint。\n\n退出码：0 = 通过（可含软警告）；1 = 硬 fail；2 = 环境错误\n"""\n'
        "import sys\n\n\ndef main():\n    return 0\n\n\nsys.exit(main())\n"
    ),
}


def test_a_hand_read_flag_stays_before_the_positional_the_documents_put_after_it(
    tmp_path: Path,
) -> None:
    """llm-wiki-setup (round 12): ``init_vault.py --refresh-tools <vault>`` reads its own
    argv, but the step passed the vault first and the program printed its usage; the usage
    line's ``<目标目录>`` was read as a redirection (an input fed on stdin); the lint's "1 =
    硬 fail" was taken for a crash."""
    plan = plan_of(tmp_path, WIKI_SKILL)
    init = next(p for p in plan.pipelines if p.steps[0].program == "scripts/init_vault.py")
    (step,) = init.steps
    flag, positional = step.args
    assert (flag.flag, flag.ref) == ("--refresh-tools", "input.refresh_tools")
    assert not positional.flag and positional.ref.startswith("input.")
    assert step.stdin is None and "input_file" not in {i.name for i in init.input}
    lint = next(p for p in plan.pipelines if p.steps[0].program == "scripts/lint_vault.py")
    assert lint.steps[0].ok_exit_codes == [0, 1]


def test_a_positional_named_in_chinese_takes_the_placeholder_a_command_shows(
    tmp_path: Path,
) -> None:
    """A usage line's ``<目标目录>`` makes no input name (``arg``); the command SKILL.md shows
    in its place, ``<vault>``, does."""
    files = {
        "SKILL.md": WIKI_SKILL["SKILL.md"],
        "scripts/init_vault.py": WIKI_SKILL["scripts/init_vault.py"].replace(
            "<目标目录>\n", "<目标目录>\n  python init_vault.py --refresh-tools <已有 vault>\n"
        ),
    }
    init = plan_of(tmp_path, files).pipelines[0]
    assert [i.name for i in init.input] == ["refresh_tools", "vault"]


def test_help_is_a_flag_every_parser_declares(tmp_path: Path) -> None:
    """``python scripts/changelog.py --help`` in SKILL.md: argparse adds -h/--help itself, so
    the report's "SKILL.md passes --help, which the program does not declare" was false; an
    undeclared flag is still said."""
    from skill2app.converter.convert import Options, convert

    skill = write_tree(
        tmp_path / "log",
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/changelog.py --help\n"
            "python3 scripts/changelog.py --since v1.0 --format md\n```\n",
            "scripts/changelog.py": (
                "import argparse\np = argparse.ArgumentParser()\np.add_argument('--since')\n"
                "p.parse_args()\n"
            ),
        },
    )
    report = convert(Options(skill_dir=skill, out=tmp_path / "app", analyzer="heuristic"))
    said = [n for n in report.notes + report.warnings if "does not declare" in n]
    assert said and all("--format" in n for n in said)


def test_a_shown_value_that_is_the_arguments_own_help_is_no_example(tmp_path: Path) -> None:
    """baidu-search (round 16): `search.py "搜索关键词"` first, with help="搜索关键词", then
    real queries; the sample searched for the placeholder."""
    skill = write_tree(
        tmp_path / "search",
        {
            "SKILL.md": "---\nname: search\ndescription: 百度搜索。\n---\n# 搜索\n\n```bash\n"
            'python3 scripts/search.py "搜索关键词"\n'
            'python3 scripts/search.py "人工智能" --json\n```\n',
            "scripts/search.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('query', help='搜索关键词')\np.add_argument('--json', "
            "action='store_true')\np.parse_args()\n",
        },
    )
    plan = analyze(build_inventory(skill))
    (query,) = [i for p in plan.pipelines for i in p.input if i.name == "query"]
    assert query.description == "搜索关键词 (e.g. 人工智能)"


def test_a_hand_rolled_typescript_parser_with_a_take_many_helper(tmp_path: Path) -> None:
    """baoyu-image-gen (round 18): `if (a === "--ref" || a === "--reference") { const
    { items, next } = takeMany(i); ... }` with `const takeMany = (i: number): {...} => {
    while (j < argv.length) { if (v.startsWith("-")) break; items.push(v) } }`: --ref was a
    string and --reference a flag of its own."""
    source = (
        "function parseArgs(argv: string[]) {\n"
        "  const takeMany = (i: number): { items: string[]; next: number } => {\n"
        "    const items: string[] = [];\n    let j = i + 1;\n"
        "    while (j < argv.length) {\n      const v = argv[j]!;\n"
        '      if (v.startsWith("-")) break;\n      items.push(v);\n      j++;\n    }\n'
        "    return { items, next: j - 1 };\n  };\n"
        "  for (let i = 0; i < argv.length; i++) {\n    const a = argv[i]!;\n"
        '    if (a === "--ref" || a === "--reference") {\n'
        "      const { items, next } = takeMany(i);\n      i = next;\n      continue;\n    }\n"
        '    if (a === "--image") {\n      const v = argv[++i];\n      continue;\n    }\n'
        "  }\n}\nparseArgs(process.argv.slice(2));\n"
    )
    command, _dispatch = scan_node(source)
    ref = command.flag("--reference")
    assert ref is not None and ref.name == "--ref" and ref.aliases == ["--reference"]
    assert (ref.type, ref.spread) == ("array", True)
    image = command.flag("--image")
    assert image is not None and image.type == "string" and image.valued


def test_a_flag_table_with_escaped_bars_and_a_ratio_shown_as_16_9(tmp_path: Path) -> None:
    """baoyu-image-gen (round 18): `| \\`--provider google\\|openai\\|dashscope\\` | ... |` was
    cut at the escaped bars (help "openai\\", choices without openai, which the program's
    dispatch did not list either: its last branch is the default), and `--ar <ratio>` shown
    as `--ar 16:9` was typed a number, so "16:9" was rejected."""
    skill = write_tree(
        tmp_path / "gen",
        {
            "SKILL.md": "---\nname: gen\ndescription: Make images.\n---\n# Gen\n\n```bash\n"
            "node scripts/main.js --prompt cat --ar 16:9 --provider openai\n```\n\n"
            "| Option | Description |\n|---|---|\n"
            "| `--provider google\\|openai\\|dashscope` | Force provider (default: google) |\n"
            "| `--ar <ratio>` | Aspect ratio (e.g. `16:9`) |\n",
            "scripts/main.js": "const argv = process.argv.slice(2);\nlet provider = 'google';\n"
            "for (let i = 0; i < argv.length; i++) {\n  const a = argv[i];\n"
            '  if (a === "--prompt") { const v = argv[++i]; continue; }\n'
            '  if (a === "--ar") { const v = argv[++i]; continue; }\n'
            '  if (a === "--provider") { provider = argv[++i]; continue; }\n}\n'
            'if (provider === "google") { console.log(1); }\n'
            'else if (provider === "dashscope") { console.log(2); }\nelse { console.log(3); }\n',
        },
    )
    plan = analyze(build_inventory(skill))
    inputs = {i.name: i for p in plan.pipelines for i in p.input}
    assert set(inputs["provider"].enum or []) >= {"google", "openai", "dashscope"}
    assert "openai\\" not in inputs["provider"].description
    assert inputs["ar"].type == "string"


def test_a_table_flag_that_a_hand_rolled_parser_reads_by_key_is_the_programs(
    tmp_path: Path,
) -> None:
    """full-page-screenshot (round 41): `| --css | Custom CSS ... |` was no flag of the
    script, whose parser stores every `--key` in `flags` and reads `flags.css`: the flag is
    spelled nowhere, and the table's section runs no program.  A host's plan passing it was
    refused; a name the program never reads is still no flag of it."""
    skill = write_tree(
        tmp_path / "shot",
        {
            "SKILL.md": "---\nname: shot\ndescription: Take screenshots.\n---\n# Shot\n\n"
            "## Usage\n\n```bash\nnode scripts/shot.mjs --url https://x.org out.png --width 800\n"
            "```\n\n## Parameters\n\n| Parameter | Description | Default |\n|---|---|---|\n"
            "| `--width` | Viewport width | 1200 |\n| `--css` | Custom CSS to inject | — |\n"
            "| `--scale` | Not read by the program | 1 |\n",
            "scripts/shot.mjs": "const args = process.argv.slice(2);\nconst flags = {};\n"
            "const positional = [];\nfor (let i = 0; i < args.length; i++) {\n"
            "  if (args[i].startsWith('--')) { flags[args[i].slice(2)] = args[++i]; }\n"
            "  else { positional.push(args[i]); }\n}\n"
            "const width = parseInt(flags.width || '1200', 10);\nconst css = flags.css || '';\n"
            "const page = flags.url;\nconsole.log(width, css, page, positional[0]);\n",
        },
    )
    (program,) = build_inventory(skill).programs
    assert program.cli is not None
    names = {p.name for p in program.cli.params}
    assert "--css" in names
    assert "--scale" not in names
    # an array's members are no keys (`args.length`, `args.filter(...)`), and the program the
    # table's section runs keeps its flags (a reviewer's case)
    other = write_tree(
        tmp_path / "sum",
        {
            "SKILL.md": "---\nname: sum\ndescription: Summaries.\n---\n# Sum\n\n## Summarize\n\n"
            "```bash\npython3 scripts/summarize.py notes.txt\n```\n\n| Option | Description |\n"
            "|---|---|\n| `--length` | Summary length |\n| `--filter` | Only matching |\n\n"
            "## Count\n\n```bash\nnode scripts/count.mjs notes.txt\n```\n",
            "scripts/summarize.py": "import sys\nopts = {}\nit = iter(sys.argv[1:])\n"
            "for a in it:\n    if a.startswith('-'):\n        opts[a.lstrip('-')] = next(it)\n",
            "scripts/count.mjs": "const args = process.argv.slice(2);\nconst seen = {};\n"
            "seen[args[0]] = 1;\nconst files = args.filter(a => !a.startsWith('-'));\n"
            "if (args.length < 1) process.exit(2);\n",
        },
    )
    flags = {
        p.path: {x.name for x in p.cli.params if x.name.startswith("--")}
        for p in build_inventory(other).programs
        if p.cli is not None
    }
    assert flags["scripts/count.mjs"] == set()
    assert {"--length", "--filter"} <= flags["scripts/summarize.py"]


def test_a_documented_output_format_is_kept(tmp_path: Path) -> None:
    """meeting-minutes-reviewer (round 20): the feedback report's `--format markdown` was
    replaced by `--format json`, so the Markdown report was never written; a command that
    names no format still gets JSON to read."""
    program = (
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--minutes', required=True)\np.add_argument('--output')\n"
        "p.add_argument('--format', choices=['json', 'markdown'], default='json')\n"
        "p.parse_args()\n"
    )
    formats = {}
    for shown in ("--format markdown --output feedback.md", "--output review.json"):
        doc = f"```bash\npython3 scripts/review.py --minutes m.md {shown}\n```\n"
        root = tmp_path / str(len(formats))
        plan = plan_of(root, {"SKILL.md": HEAD + doc, "scripts/review.py": program})
        (pipeline,) = plan.pipelines
        formats[shown] = [a.get("value") for a in args(pipeline) if a.get("flag") == "--format"]
    assert formats == {
        "--format markdown --output feedback.md": ["markdown"],
        "--output review.json": ["json"],
    }


def test_a_json_switch_takes_no_value(tmp_path: Path) -> None:
    """A reviewer's second read: `count.py --json notes.txt` (a store_true switch) was read as
    `--json` given the value notes.txt, and the step lost its JSON output."""
    program = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('file')\n"
        "p.add_argument('--json', action='store_true')\np.parse_args()\n"
    )
    doc = "```bash\npython3 scripts/count.py --json notes.txt\n```\n"
    plan = plan_of(tmp_path, {"SKILL.md": HEAD + doc, "scripts/count.py": program})
    (pipeline,) = plan.pipelines
    (step,) = pipeline.steps
    assert {"flag": "--json"} in args(pipeline)
    assert step.stdout == "json"


DIAGRAM_MD = """\
---
name: diagram
description: Draw a diagram of a code base.
---
# Diagram

```bash
uv run scripts/diagram.py --target src/ --type call-graph --focus main --depth 2
```

| Argument | Short | Default | Description |
|---|---|---|---|
| `--target` | `-t` | required | Directory to analyze |
| `--type` | `-T` | required | Diagram type |
| `--focus` | `-f` | none | Center diagram on this node |
| `--depth` | `-d` | `2` | Traversal depth |

```bash
uv run scripts/diagram.py -t src/ -T class-hierarchy -f QueryEngine
uv run scripts/diagram.py -t src/ -T module-deps -f execute_query
```
"""


def test_a_tables_short_column_names_aliases_and_its_default_column_what_is_required(
    tmp_path: Path,
) -> None:
    """diagramming-code (judge, round 23): `-t src/ -T call-graph` became inputs `t` and
    `t_6` beside `target` and `type`; "required" in the Default column left them optional;
    the function names shown for `--focus` became its only choices."""
    plan = plan_of(
        tmp_path,
        {"SKILL.md": DIAGRAM_MD, "scripts/diagram.py": "import sys\nprint(sys.argv)\n"},
    )
    (pipeline,) = plan.pipelines
    got = inputs(pipeline)
    assert set(got) == {"target", "type", "focus", "depth"}
    assert got["target"][:2] == ("string", True) and got["type"][:2] == ("string", True)
    assert next(i for i in pipeline.input if i.name == "focus").enum is None


def test_a_flag_read_to_the_end_of_argv_takes_every_word_after_it(tmp_path: Path) -> None:
    """repomix-safe-mixer (judge, round 23): `[--exclude pattern1 pattern2 ...]` and the
    program's `argv[argv.index('--exclude') + 1:]` gave a required positional `file` (the
    last pattern of an example) and an input `pattern2`."""
    scan = (
        "import sys\n"
        "directory = sys.argv[1]\n"
        "as_json = '--json' in sys.argv\n"
        "patterns = []\n"
        "if '--exclude' in sys.argv:\n"
        "    at = sys.argv.index('--exclude')\n"
        "    patterns = [a for a in sys.argv[at + 1:] if not a.startswith('--')]\n"
        "print(directory, as_json, patterns)\n"
    )
    md = (
        "---\nname: scan\ndescription: Scan a folder for secrets.\n---\n# Scan\n\n"
        "Usage: `scan.py <directory> [--json] [--exclude pattern1 pattern2 ...]`\n\n"
        "```bash\npython3 scripts/scan.py ./my-project --exclude '.*test.*' 'SECURITY\\.md'\n```\n"
    )
    assert [(a.name, a.repeat) for a in usage_args("[--exclude pattern1 pattern2 ...]")] == [
        ("--exclude", True)
    ]
    (program,) = build_inventory(
        write_tree(tmp_path, {"SKILL.md": md, "scripts/scan.py": scan})
    ).programs
    assert program.cli is not None
    params = {p.name: (p.kind, p.type, p.required) for p in program.cli.params}
    assert params == {
        "--json": ("flag", "boolean", False),
        "--exclude": ("flag", "array", False),
        "directory": ("positional", "string", True),
    }


def test_a_short_alias_folds_only_the_command_lines_of_its_tables_section(tmp_path: Path) -> None:
    """A second read: `| --timeout | -t |` under "Send" made `jobs.js list -t failed`, in
    another section, run `list --timeout failed`."""
    md = (
        "---\nname: jobs\ndescription: Send and list jobs.\n---\n# Jobs\n\n"
        "## Send\n\n```bash\nnode jobs.js send job.json --timeout 30\n```\n\n"
        "| Option | Short | Description |\n|---|---|---|\n| `--timeout` | `-t` | Seconds |\n\n"
        "## List\n\n```bash\nnode jobs.js list -t failed\n```\n"
    )
    plan = plan_of(tmp_path, {"SKILL.md": md, "jobs.js": "console.log(process.argv)\n"})
    listing = next(p for p in plan.pipelines if "list" in p.name)
    assert [a.get("flag") for a in args(listing) if a.get("flag")] == ["-t"]


def test_a_file_after_an_output_flag_is_no_second_value_of_it() -> None:
    got = [(a.name, a.kind, a.repeat) for a in usage_args("-o merged.pdf input.pdf ...")]
    assert got == [("-o", "flag", False), ("input_pdf", "positional", True)]


@pytest.mark.parametrize(
    ("source", "spread"),
    [
        ("import sys\nx = sys.argv[sys.argv.index('--exclude') + 1:]\n", {"--exclude"}),
        ("from sys import argv\nx = argv[argv.index('--exclude') + 1:]\n", {"--exclude"}),
        (
            "import sys\ni = sys.argv.index('--out')\no = sys.argv[i + 1]\nr = sys.argv[i + 2:]\n",
            set(),
        ),
        (
            "import sys\ni = sys.argv.index('--exclude')\nx = sys.argv[i + 1:]\n"
            "i = sys.argv.index('--out')\no = sys.argv[i + 1]\n",
            {"--exclude"},
        ),
    ],
)
def test_the_flags_read_to_the_end_of_argv(source: str, spread: set[str]) -> None:
    import ast

    from skill2app.converter.inventory.programs.python import _by_hand

    command = _by_hand(ast.parse(source))
    assert command is not None
    assert {p.name for p in command.params if p.spread} == spread


def test_a_flag_of_two_values_takes_two() -> None:
    from skill2app.converter.inventory.programs.interface import Command, Param, parse_argv

    size = Param("--size", "flag", "size", type="array", spread=True, count=2, source="argparse")
    parsed = parse_argv(["--size", "800", "600", "in.png"], Command("argparse", params=[size]))
    assert parsed.flags == [("--size", "800"), ("--size", "600")]
    assert parsed.positionals == ["in.png"]


MIGRATE = (
    '---\nname: migrate\ndescription: "Migrate docs/cycles/ to plans/. Supports check and run '
    'modes. Triggers: \\"migrate\\", \\"rename cycles to plans\\", \\"move old cycles\\"."\n'
    "---\n# Migrate\n\n## Workflow\n\n"
    "1. Parse `$ARGUMENTS`: if empty or `check`, use check mode. If `run`, use run mode.\n"
    "2. Run the migration script:\n\n```bash\nbash scripts/migrate.sh {mode}\n```\n\n"
    "3. Show the output to the user as-is.\n"
)
MIGRATE_SH = (
    "#!/usr/bin/env bash\n# migrate.sh\n#\n# Usage:\n#   migrate.sh [check|run]\n"
    "#     check  — dry-run (default)\n#     run    — execute\nset -euo pipefail\n\n"
    'MODE="${1:-check}"\necho "$MODE"\n'
)


def test_a_shell_positional_is_named_by_the_variable_the_script_reads_it_into(
    tmp_path: Path,
) -> None:
    """migrate-cycles-to-plans (round 23's judge): `usage: x.sh [check|run]` made an input
    named "check"; the script's `MODE="${1:-check}"` names it `mode`, by default `check`.
    The workflow's "Parse $ARGUMENTS" step is what the runner does when it fills the inputs:
    no llm step; and the description's quoted "Triggers:" are triggers."""
    plan = plan_of(tmp_path / "s", {"SKILL.md": MIGRATE, "scripts/migrate.sh": MIGRATE_SH})
    (pipeline,) = plan.pipelines
    inputs = {i.name: i for i in pipeline.input}
    assert (inputs["mode"].default, inputs["mode"].enum) == ("check", ["check", "run"])
    assert "check" not in inputs
    assert isinstance(pipeline.steps[0], CodeStep)
    assert "rename cycles to plans" in pipeline.triggers
    assert "run modes" not in pipeline.triggers  # "Supports check and run modes": a feature


@pytest.mark.parametrize(
    ("usage_name", "choices", "source", "name", "default"),
    [
        ("text", None, 'TARGET="$1"\n', "target", None),  # a generic name: renamed
        ("check", ["check", "run"], '  MODE="${1:-run}"\n', "check", None),  # a function's $1
        ("check", ["check", "run"], 'MODE="${1:-fast}"\n', "mode", None),  # no choice: none
        ("check", ["check", "run"], 'MODE="${1:-check}"\n', "mode", "check"),
        ("text", None, 'DIR="${1:-$HOME}"\n', "dir", None),  # the shell's value: none
        ("text", None, 'DIR="${1:-$(pwd)}"\n', "dir", None),
        ("text", None, 'OUTPUT="$1"\n', "text", None),  # a flag's name already: kept
    ],
)
def test_which_shell_assignments_name_a_positional(
    usage_name: str, choices: list | None, source: str, name: str, default: str | None
) -> None:
    from skill2app.converter.inventory.programs.interface import Command, Param
    from skill2app.converter.inventory.programs.scripts import name_shell_positionals

    param = Param(usage_name, "positional", usage_name, choices=choices)
    flag = Param("--output", "flag", "output")
    command = Command("shell", params=[param, flag])
    name_shell_positionals(command, source)
    assert (param.name, param.default) == (name, default)


CALCULATOR = """\
import argparse, json, sys

def ask(prompt):
    return float(input(prompt))

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mrr", type=float, help="Current MRR")
    parser.add_argument("--customers", type=int, help="Customers")
    parser.add_argument("--list", action="store_true", help="List metrics")
    args = parser.parse_args()
    if args.list:
        print("mrr customers")
        sys.exit(0)
    if args.mrr is not None:
        print(json.dumps({"mrr": args.mrr}))
        sys.exit(0)
    print("Interactive mode")
    mrr = ask("MRR: ")
"""


def test_a_flag_without_which_the_program_asks_on_the_terminal_is_required(
    tmp_path: Path,
) -> None:
    """saas-metrics-coach (round 25's judge): `metrics_calculator.py` runs from `--mrr` and
    otherwise asks for every value with input(); a step has no terminal, so `--mrr` is
    required (the sample then gives it).  A switch tested the same way picks a mode: not
    required; nor is a flag the program never tests before it asks."""
    from skill2app.converter.inventory.programs.interactive import interactive_guards

    assert interactive_guards(CALCULATOR) == [["list", "mrr"]]
    inventory = build_inventory(
        write_tree(
            tmp_path / "s",
            {
                "SKILL.md": HEAD + "```bash\npython calc.py --mrr 48000\n```\n",
                "calc.py": CALCULATOR,
            },
        )
    )
    (program,) = inventory.programs
    required = {p.dest for p in program.cli.params if p.required}
    assert required == {"mrr"}
    assert not interactive_guards(CALCULATOR.replace("mrr = ask", "mrr = float"))
    # the reviewer's: alternatives, a question asked only sometimes, a fallback chain
    two = "if args.file:\n    go()\n    sys.exit(0)\nif args.url:\n    sys.exit(0)\ninput('x')\n"
    assert interactive_guards(two) == [["file", "url"]]  # two: neither is required
    sometimes = "if args.check:\n    sys.exit(0)\nif exists and not args.force:\n    input('?')\n"
    assert interactive_guards(sometimes) == []
    key = "def k(args):\n    if args.key:\n        return args.key\n    return input('key')\n"
    assert interactive_guards(key) == []
    assert program.to_dict()["asks_at"] == "calc.py:4"  # shown to the analyst


def test_a_step_about_a_functions_arguments_is_kept(tmp_path: Path) -> None:
    """The reviewer's: only a step parsing the slash command's `$ARGUMENTS` (or "the command
    arguments") is the runner's input filling; "Check arguments of every public function" is
    work for the model."""
    skill = (
        HEAD + "## Workflow\n\n1. Run the linter:\n\n```bash\npython3 lint.py src\n```\n\n"
        "2. Check arguments of every public function: each must be validated.\n"
    )
    plan = plan_of(tmp_path / "s", {"SKILL.md": skill, "lint.py": "import sys\nprint(sys.argv)\n"})
    prompts = [s.prompt for p in plan.pipelines for s in p.steps if not isinstance(s, CodeStep)]
    assert any("Check arguments of every public function" in p for p in prompts)


def test_a_file_or_dash_is_no_list_of_choices() -> None:
    """skill-reviewer (round 26's judge gave 1): `usage: validate_review_output.py FILE|-`
    made an input whose only allowed values were "FILE" and "-", so every real path was
    refused; `{GET|POST}` and `[check|run]` stay choices."""
    ((name, choices),) = [(a.name, a.choices) for a in usage_args("FILE|-")]
    assert (name, choices) == ("file", None)
    assert usage_args("[check|run]")[0].choices == ["check", "run"]
    assert usage_args("{GET|POST}")[0].choices == ["GET", "POST"]
    assert usage_args("URL|FILE")[0].choices is None  # the reviewer's: placeholders both
    assert usage_args("<path|url>")[0].choices is None


def test_kinds_of_reference_in_angle_brackets_are_no_choices() -> None:
    """bilibili-source (round 29, judged 2): `bili-fetch.sh <BVID | av-number | b23.tv-link |
    bilibili-video-URL>` made an input allowing only those four words, so a real BV id, av
    number or URL was refused; `<json|csv>` still lists choices."""
    usage = "<BVID | av-number | b23.tv-link | bilibili-video-URL>"
    assert all(a.choices is None for a in usage_args(usage))
    assert usage_args("<BVID|av|URL>")[0].choices is None
    assert usage_args("<json|csv>")[0].choices == ["json", "csv"]
    for real in ("<GET|POST>", "<PNG|JPG|WEBP>", "<en|zh-CN>", "<by-name|by-id>"):  # reviewer's
        assert usage_args(real)[0].choices == real.strip("<>").split("|"), real


X_TO_MD = {
    "SKILL.md": "---\nname: x-to-md\ndescription: Save a post from X as Markdown.\n---\n# X\n\n"
    "```bash\nnode scripts/main.js <url>\nnode scripts/main.js <url> -o output.md\n```\n",
    "scripts/main.js": "const args = process.argv.slice(2);\n"
    "let url = null, output = null; const positional = [];\n"
    "for (let i = 0; i < args.length; i++) {\n  const a = args[i];\n"
    '  if (a === "--url") { url = args[++i]; continue; }\n'
    '  if (a === "-o" || a === "--output") { output = args[++i]; continue; }\n'
    "  positional.push(a);\n}\nif (!url && positional.length) url = positional[0];\n",
}


def test_a_positional_standing_for_a_flag_is_named_as_the_flag(tmp_path: Path) -> None:
    """baoyu-danger-x-to-markdown (round 32): `main.ts <url>` or `--url <url>` gave the input
    `url_2`, and `a === "-o" || a === "--output"` made `-o` a flag of its own (input `o`)."""
    plan = plan_of(tmp_path / "x", X_TO_MD)
    cli = build_inventory(tmp_path / "x").programs[0].cli
    assert cli is not None and cli.flag("-o") is cli.flag("--output")
    pipeline = plan.pipelines[0]
    assert [i.name for i in pipeline.input] == ["url", "output"]
    assert [a.to_dict() for a in pipeline.steps[0].args] == [
        {"from": "input.url"},
        {"flag": "--output", "from": "input.output"},
    ]


def test_a_switch_loop_reading_the_next_word_gives_values_types_and_requirements(
    tmp_path: Path,
) -> None:
    """rp-source-csv (FRESH34): `case '--scan-rows': args.scanRows = Number.parseInt(next,
    10); i += 1;` was a string; `args.files.push(next)` one value, not a repeated flag;
    `if (args.files.length === 0 || !args.outDir) { ...; throw ... }` made neither required;
    and "--file <path> [--file <path> ...]" gave a positional `text` for the ellipsis."""
    source = (
        "function parseArgs(argv) {\n  const args = { files: [], outDir: null, rows: 5 };\n"
        "  for (let i = 0; i < argv.length; i += 1) {\n    const next = argv[i + 1];\n"
        "    switch (argv[i]) {\n      case '--file':\n        args.files.push(next);\n"
        "        i += 1;\n        break;\n      case '--out-dir':\n        args.outDir = next;\n"
        "        i += 1;\n        break;\n      case '--scan-rows':\n"
        "        args.rows = Number.parseInt(next, 10);\n        i += 1;\n        break;\n"
        "      case '--quiet':\n        args.quiet = true;\n        break;\n    }\n  }\n"
        "  return args;\n}\n\nasync function main() {\n"
        "  const args = parseArgs(process.argv.slice(2));\n"
        "  if (args.files.length === 0 || !args.outDir) {\n"
        "    log.error('missing', { phase: 'x' });\n"
        "    throw new Error('at least one --file and --out-dir are required');\n"
        "  }\n}\n\nmain();\n"
    )
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: csv\ndescription: Capture CSV files. Use when asked to capture "
            "CSV exports.\n---\n# csv\n\n```bash\nnode scripts/d.js --file <path> "
            "[--file <path> ...] \\\n  --out-dir <dir>\n```\n",
            "scripts/d.js": source,
        },
    )
    (program,) = build_inventory(tmp_path).programs
    assert program.cli is not None
    found = {p.name: (p.type, p.required) for p in program.cli.params}
    assert found == {
        "--file": ("array", True),
        "--out-dir": ("string", True),
        "--scan-rows": ("integer", False),
        "--quiet": ("boolean", False),
    }


def test_a_while_loop_advancing_every_branch_reads_no_value_and_else_if_is_one_path() -> None:
    """A reviewer's read of the next-word rule: `args.verbose = true; i += 1; continue;` in a
    loop that advances `i` in every branch is a switch; `else if (!args.file) exit` checks the
    file on one path only."""
    source = (
        "function parseArgs(argv) {\n  const args = {};\n  let i = 0;\n"
        "  while (i < argv.length) {\n    const arg = argv[i];\n"
        "    if (arg === '--verbose') { args.verbose = true; i += 1; continue; }\n"
        "    if (arg === '--file') { args.file = argv[i + 1]; i += 2; continue; }\n"
        "    i += 1;\n  }\n  return args;\n}\n\nfunction main() {\n"
        "  const args = parseArgs(process.argv.slice(2));\n"
        "  if (args.mode === 'remote') { go(); } else if (!args.file) {\n"
        "    console.error('no file');\n    process.exit(1);\n  }\n}\n"
    )
    command, _dispatch = scan_node(source)
    found = {p.name: (p.type, p.required) for p in command.params}
    assert found == {"--verbose": ("boolean", False), "--file": ("string", False)}


def test_a_node_flags_initial_value_is_its_default_whatever_a_comment_says(
    tmp_path: Path,
) -> None:
    """feishu-update-doc (FRESH37, frozen facts): ``const r = { mode: 'append', ... }`` then
    ``case '--mode': r.mode = argv[++i]``, under a usage comment "--mode <mode>  Update mode
    (required)": the inventory made --mode required.  The program's initial value is its
    default; ``null`` or ``''`` is none."""
    source = (
        "/**\n * Usage: node update.js --doc-id <id> --mode <mode>\n"
        " *   --mode <mode>   Update mode (required)\n */\n"
        "const argv = process.argv.slice(2);\n"
        "const r = { docId: null, mode: 'append', markdown: '', retries: 3 };\n"
        "for (let i = 0; i < argv.length; i++) {\n  switch (argv[i]) {\n"
        "    case '--doc-id': r.docId = argv[++i]; break;\n"
        "    case '--mode': r.mode = argv[++i]; break;\n"
        "    case '--markdown': r.markdown = argv[++i]; break;\n"
        "    case '--retries': r.retries = parseInt(argv[++i], 10); break;\n  }\n}\n"
        "if (!r.docId) { console.log('{}'); process.exit(1); }\n"
    )
    command, _dispatch = scan_node(source)
    assert command.flag("--mode").default == "append"
    assert command.flag("--retries").default == 3
    assert command.flag("--markdown").default is None
    assert command.flag("--doc-id").default is None
    md = HEAD + "```bash\nnode ./update.js --doc-id D1 --mode append\n```\n"
    (pipeline,) = plan_of(tmp_path, {"SKILL.md": md, "update.js": source}).pipelines
    assert inputs(pipeline)["mode"][1] is False
    assert inputs(pipeline)["doc_id"][1] is True


BUILD_LEXKB = """
function parseArgs(argv) {
  const a = { corpus: null, out: "out/kb", name: "lexical-kb", targetChars: 1000, k1: 1.5,
    zip: false, tags: [], minScore: 0, temperature: 0 };
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i];
    if (t === "--zip") { a.zip = true; continue; }
    if (!t.startsWith("--")) { a.corpus = t; continue; }
    const val = argv[++i];
    if (t === "--out") a.out = val;
    else if (t === "--name") a.name = val;
    else if (t === "--target-chars") a.targetChars = Number(val);
    else if (t === "--k1") a.k1 = Number(val);
    else if (t === "--limit") a.limit = parseInt(val, 10);
    else if (t === "--tag") a.tags.push(val);
    else if (t === "--min-score") a.minScore = Number(val);
    else if (t === "--temperature") a.temperature = parseFloat(val);
    else if (t === "--last") a.last = val === undefined;
  }
  return a;
}
"""


def test_a_node_loop_reading_the_value_before_telling_the_flags_apart() -> None:
    """creating-kb (FRESH43): `const val = argv[++i]` before an `if (t === "--out") a.out =
    val` chain: every flag was a string with no default, --out and --name required as the
    usage line shows them, `--query "..."` a boolean.  The value each stores is the word
    read; its default the object's literal; a count parsed with Number() an integer."""
    command, _dispatch = scan_node(BUILD_LEXKB)
    got = {p.name: (p.type, p.default, p.valued) for p in command.params if p.kind == "flag"}
    assert got == {
        "--zip": ("boolean", None, False),
        "--out": ("string", "out/kb", True),
        "--name": ("string", "lexical-kb", True),
        "--target-chars": ("integer", 1000, True),
        "--k1": ("number", 1.5, True),
        "--limit": ("integer", None, True),
        "--tag": ("array", None, True),
        # the reviewer's: a 0 default may take 0.5, a parseFloat is a number, a test no value
        "--min-score": ("number", 0, True),
        "--temperature": ("number", 0, True),
        "--last": ("string", None, False),
    }
