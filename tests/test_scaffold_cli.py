"""The `app-new` command line through Typer's CliRunner: exact output, fixed width, no colour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from skill2app.scaffold import cli as cli_module
from skill2app.scaffold import errors
from skill2app.scaffold.cli import cli

ENV = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, env=ENV, color=False)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty folder, so printed paths are short and relative."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def demo(here: Path) -> Path:
    """An APP `demo` with a pipeline `p` (steps a: code, b: llm)."""
    assert run("app", "demo").exit_code == 0
    result = run("pipeline", "demo", "p", "--description", "P", "--step", "a", "--step", "b:llm")
    assert result.exit_code == 0, result.output
    return here / "demo"


def test_app_prints_one_line_per_created_file(here: Path) -> None:
    result = run("app", "demo")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "created    demo/SKILL.md\n"
        "created    demo/README.md\n"
        "created    demo/pipelines/.gitkeep\n"
        "created    demo/tools/README.md\n"
    )


def test_app_with_lifecycle_in_another_folder(here: Path) -> None:
    result = run("app", "demo", "--dir", "apps", "--with-lifecycle", "--description", "Demo.")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-4:] == [
        "created    apps/demo/pipelines/_constructor/pipeline.yaml",
        "created    apps/demo/pipelines/_constructor/steps/check_environment.py",
        "created    apps/demo/pipelines/_destructor/pipeline.yaml",
        "created    apps/demo/pipelines/_destructor/steps/cleanup.py",
    ]
    assert 'description: "Demo."\n' in (here / "apps/demo/SKILL.md").read_text()


def test_dry_run_lists_and_writes_nothing(here: Path) -> None:
    result = run("app", "demo", "--dry-run")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "would create     demo/SKILL.md"
    assert result.stderr == "Dry run: nothing was written.\n"
    assert list(here.iterdir()) == []


def test_dry_run_of_a_step_shows_the_diff_of_pipeline_yaml(demo: Path) -> None:
    before = (demo / "pipelines/p/pipeline.yaml").read_text()
    result = run(
        "step", "demo", "p", "c", "--type", "code", "--lang", "bash", "--after", "a", "--dry-run"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "would create     demo/pipelines/p/steps/c.sh\n"
        "would edit       demo/pipelines/p/pipeline.yaml\n"
        "--- a/demo/pipelines/p/pipeline.yaml\n"
        "+++ b/demo/pipelines/p/pipeline.yaml\n"
        "@@ -17,6 +17,10 @@\n"
        "     type: code\n"
        '     command: "python3 steps/a.py"\n'
        " \n"
        "+  - name: c\n"
        "+    type: code\n"
        '+    command: "bash steps/c.sh"\n'
        "+\n"
        "   - name: b\n"
        "     type: llm\n"
        "     model: standard\n"
    )
    assert (demo / "pipelines/p/pipeline.yaml").read_text() == before
    assert not (demo / "pipelines/p/steps/c.sh").exists()


def test_step_edits_pipeline_and_answers(demo: Path) -> None:
    result = run("step", "demo", "p", "judge", "--type", "llm", "--tier", "reasoning")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "created    demo/pipelines/p/schemas/judge.json\n"
        "created    demo/pipelines/p/steps/validate_judge.py\n"
        "edited     demo/pipelines/p/pipeline.yaml\n"
        "edited     demo/pipelines/p/samples/answers.yaml\n"
    )
    assert "p/judge:" in (demo / "pipelines/p/samples/answers.yaml").read_text()


def test_json_output(here: Path) -> None:
    result = run("app", "demo", "--json", "--dry-run")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["dry_run"] is True
    assert data["changes"][0] == {"action": "create", "path": "demo/SKILL.md", "diff": ""}
    assert result.stderr == ""


def test_json_errors_are_an_object_on_stdout_as_in_app_convert(demo: Path) -> None:
    result = run("destructor", "demo", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["ok"] is True
    again = run("destructor", "demo", "--json")
    assert again.exit_code == 3
    assert again.stderr.startswith("Error: file already exists")
    assert json.loads(again.stdout) == {
        "ok": False,
        "error": {
            "type": "Conflict",
            "message": "file already exists, as do 1 more",
            "file": "demo/pipelines/_destructor/pipeline.yaml",
            "line": 0,
            "hint": "pass --force to overwrite, or --dry-run to see every change first",
            "exit_code": 3,
            "errors": [],
        },
    }
    missing = run("step", "nowhere", "p", "x", "--type", "code", "--json")
    assert missing.exit_code == 4
    assert json.loads(missing.stdout)["error"]["type"] == "NotFound"


def test_constructor_and_destructor_commands(demo: Path) -> None:
    assert run("constructor", "demo").stdout == (
        "created    demo/pipelines/_constructor/pipeline.yaml\n"
        "created    demo/pipelines/_constructor/steps/check_environment.py\n"
    )
    assert run("destructor", "demo").exit_code == 0
    again = run("destructor", "demo")
    assert again.exit_code == 3
    assert again.stderr == (
        "Error: file already exists, as do 1 more (demo/pipelines/_destructor/pipeline.yaml)"
        " — pass --force to overwrite, or --dry-run to see every change first\n"
    )
    forced = run("destructor", "demo", "--force")
    assert forced.stdout.startswith("overwrote  demo/pipelines/_destructor/pipeline.yaml\n")


ERRORS = [
    # args, exit code, expected_error (the whole of stderr)
    (
        ["app", "Demo"],
        2,
        "Error: APP name 'Demo' is not lowercase-hyphenated — use a-z, 0-9 and single hyphens "
        "between words, e.g. 'code-review'",
    ),
    (["app"], 2, "Error: missing NAME — give NAME (see `app-new --help`)"),
    (
        ["app", "demo"],
        3,
        "Error: file already exists, as do 3 more (demo/SKILL.md) — pass --force to overwrite, "
        "or --dry-run to see every change first",
    ),
    (
        ["pipeline", "demo", "p", "--description", "again"],
        3,
        "Error: pipeline 'p' already exists (demo/pipelines/p/pipeline.yaml) — pick another name,"
        " add steps with `app-new step`, or --force to regenerate it",
    ),
    (
        ["pipeline", "demo", "q"],
        2,
        "Error: missing --description — give --description (see `app-new --help`)",
    ),
    (
        ["pipeline", "nowhere", "q", "--description", "Q"],
        4,
        "Error: not an APP folder: no SKILL.md (nowhere) — give the folder that holds SKILL.md, "
        "or create one with `app-new app NAME`",
    ),
    (
        ["pipeline", "demo", "q", "--description", "Q", "--step", "a:sql"],
        2,
        "Error: unknown step type 'sql' — use one of: code, llm",
    ),
    (
        ["pipeline", "demo", "q", "--description", "Q", "--input", "n:int"],
        2,
        "Error: unknown input type 'int' — use one of: string, integer, number, boolean, array, "
        "object",
    ),
    (
        ["step", "demo", "zz", "c", "--type", "code"],
        4,
        "Error: pipeline 'zz' not found (demo/pipelines/zz/pipeline.yaml) — pipelines there: p; "
        "create it with `app-new pipeline`",
    ),
    (
        ["step", "demo", "p", "a", "--type", "code"],
        3,
        "Error: step 'a' is already in the pipeline (demo/pipelines/p/pipeline.yaml:16) — pick "
        "another step name, or edit that step in pipeline.yaml",
    ),
    (["step", "demo", "p", "c"], 2, "Error: missing --type — give --type (see `app-new --help`)"),
    (
        ["step", "demo", "p", "c", "--type", "code", "--tier", "lite"],
        2,
        "Error: --tier is for llm steps — drop --tier or use --type llm",
    ),
    (
        ["step", "demo", "p", "c", "--type", "llm", "--lang", "bash"],
        2,
        "Error: --lang is for code steps — drop --lang or use --type code",
    ),
    (
        ["step", "demo", "p", "input", "--type", "code"],
        2,
        "Error: step name 'input' is reserved — prompts use `{{input.x}}`; pick another name, "
        "e.g. 'read_input'",
    ),
    (
        ["step", "demo", "../p", "c", "--type", "code"],
        2,
        "Error: '../p' is not a pipeline name — give the name of a folder in pipelines/",
    ),
    (
        ["constructor", "nowhere"],
        4,
        "Error: not an APP folder: no SKILL.md (nowhere) — give the folder that holds SKILL.md, "
        "or create one with `app-new app NAME`",
    ),
]


@pytest.mark.parametrize(
    ("args", "code", "expected_error"), ERRORS, ids=[" ".join(args) for args, _, _ in ERRORS]
)
def test_errors_are_one_line_with_a_documented_exit_code(
    demo: Path, args: list[str], code: int, expected_error: str
) -> None:
    result = run(*args)
    assert (result.exit_code, result.stderr, result.stdout) == (code, expected_error + "\n", "")


def test_an_internal_error_is_one_line_and_70(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli_module.app_core, "new_app", broken)
    result = run("app", "demo")
    assert result.exit_code == 70
    assert result.stderr == (
        "Error: internal error: RuntimeError: boom — rerun with --debug and report it\n"
    )
    debug = run("app", "demo", "--debug")
    assert isinstance(debug.exception, RuntimeError)


def test_debug_shows_the_traceback_of_known_errors(here: Path) -> None:
    result = run("app", "Demo", "--debug")
    assert result.exit_code == 2
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert result.stderr.endswith(
        "Error: APP name 'Demo' is not lowercase-hyphenated — use a-z, "
        "0-9 and single hyphens between words, e.g. 'code-review'\n"
    )


def test_never_prompts_when_not_a_terminal(here: Path) -> None:
    result = run("app", input="demo\n")
    assert result.exit_code == 2
    assert not (here / "demo").exists()


def test_prompts_for_what_is_missing_on_a_terminal(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_module, "_is_terminal", lambda: True)
    result = run("app", input="demo\nSays hello.\n")
    assert result.exit_code == 0, result.output
    assert 'description: "Says hello."' in (here / "demo/SKILL.md").read_text()
    answers = "demo\nhello\nSay hello\nhi there, hello\nwho:string\ngreet:code:bash,polish:llm\n"
    result = run("pipeline", input=answers)
    assert result.exit_code == 0, result.output
    text = (here / "demo/pipelines/hello/pipeline.yaml").read_text()
    assert '  - "hi there"\n  - "hello"\n' in text
    assert "input:\n  who: string\n" in text
    assert 'command: "bash steps/greet.sh"' in text
    result = run("step", input="demo\nhello\nsign\n\n")  # the type defaults to code
    assert result.exit_code == 0, result.output
    assert (here / "demo/pipelines/hello/steps/sign.py").exists()


def test_help_documents_every_command_and_exit_code() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for command in ("app", "pipeline", "step", "constructor", "destructor"):
        assert f"  {command} " in result.stdout
    codes = {
        cls.exit_code
        for cls in vars(errors).values()
        if isinstance(cls, type)
        and issubclass(cls, errors.ScaffoldError)
        and cls is not errors.ScaffoldError
    }
    for code in sorted(codes | {0, 70}):
        assert f"{code} " in cli_module.EPILOG
        assert f"{code} " in (cli_module.__doc__ or "")


def test_dry_run_with_force_shows_what_an_overwrite_changes(demo: Path) -> None:
    (demo / "README.md").write_text("mine\n")
    result = run("app", "demo", "--force", "--dry-run")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "would overwrite  demo/SKILL.md"  # unchanged: no diff
    assert lines[1:5] == [
        "would overwrite  demo/README.md",
        "--- a/demo/README.md",
        "+++ b/demo/README.md",
        "@@ -1 +1,13 @@",
    ]
    assert (demo / "README.md").read_text() == "mine\n"


def test_a_step_added_last_becomes_the_output_that_named_the_last_step(demo: Path) -> None:
    path = demo / "pipelines/p/pipeline.yaml"
    path.write_text(path.read_text() + "output: b\n")
    assert run("step", "demo", "p", "explain", "--type", "llm").exit_code == 0
    assert yaml.safe_load(path.read_text())["output"] == "explain"
    assert run("step", "demo", "p", "early", "--type", "code", "--after", "a").exit_code == 0
    assert yaml.safe_load(path.read_text())["output"] == "explain"


def test_inside_an_app_app_dir_is_the_current_folder(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(demo)
    result = run("pipeline", "count", "--description", "Count", "--step", "n")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "created    pipelines/count/pipeline.yaml"
    result = run("step", "count", "tally", "--type", "code")
    assert result.exit_code == 0, result.output
    assert (demo / "pipelines/count/steps/tally.py").is_file()
    assert run("constructor").exit_code == 0
    assert (demo / "pipelines/_constructor/pipeline.yaml").is_file()
    assert run("step", ".", "count", "third", "--type", "llm").exit_code == 0  # as before


def test_outside_an_app_app_dir_is_still_needed(here: Path) -> None:
    result = run("constructor")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: missing APP_DIR — give APP_DIR (see `app-new --help`)\n",
    )


def test_help_has_clean_metavars() -> None:
    pipeline = run("pipeline", "--help").stdout
    for option in ("--input NAME[:TYPE]", "--step NAME[:KIND[:LANG|TIER]]", "--trigger TEXT"):
        assert option in pipeline
    step = run("step", "--help").stdout
    for option in ("--type code|llm", "--lang LANG", "--after STEP", "--tier TIER"):
        assert option in step
    for command in ("app", "pipeline", "step", "constructor"):
        options = run(command, "--help").stdout.split("Options:")[1]
        assert "<" not in options, command  # no <str>, <list[str]>, <path>
