"""`app-run`'s command line itself (argparse): what importing it costs, help, usage errors,
options among the arguments, and how unexpected errors and Ctrl-C end."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

from skill2app.runtime.cli import build_parser, command_names, main, records

COMMANDS = command_names(build_parser())
HEAVY = ("typer", "click", "pydantic", "jsonschema", "jinja2", "anthropic", "rich")


def test_importing_the_cli_imports_nothing_heavy() -> None:
    probe = (
        "import sys, runtime.cli\n"
        "runtime.cli.build_parser()\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_no_arguments_prints_the_help_on_stderr() -> None:
    result = invoke()
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: app-run [-h] [--debug] [--version] [--install-compl")
    assert all(f"\n    {name} " in result.stderr for name in COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help(name: str) -> None:
    result = invoke(name, "--help")
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith(f"usage: app-run {name} [-h]")


@pytest.mark.parametrize(
    ("args", "expected_error"),
    [
        (["run", "app"], "the following arguments are required: PIPELINE — see `app-run run"),
        (["run", "a", "p", "--bogus"], "unrecognized arguments: --bogus — see `app-run run"),
        (["ask", "a", "r", "--max-turns", "x"], "argument --max-turns: invalid int value: 'x'"),
        (["sessions", "--older-than", "soon"], "argument --older-than: invalid float value"),
        (["run", "a", "p", "--jsn"], "unrecognized arguments: --jsn; did you mean '--json'? — see"),
        (["--debug"], "the following arguments are required: COMMAND — see `app-run --help`"),
        (["list", "--jso", "a"], "unrecognized arguments: --jso; did you mean '--json'? — see `a"),
        (
            ["list", "--verbose", "a"],
            "unrecognized arguments: --verbose — see `app-run list --help`",
        ),
    ],
)
def test_usage_errors_are_one_line(args: list[str], expected_error: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"Error: {expected_error}")
    assert result.stderr.endswith(" --help`\n") and result.stderr.count("\n") == 1


def test_options_can_come_before_the_arguments(tmp_path: Path, runtime_env: Path) -> None:
    app = make_app(tmp_path / "app", {"greet": [code("hi")], "other": [code("x")]})
    assert invoke("list", "--json", app).stdout == invoke("list", app, "--json").stdout
    result = invoke("test", app, "--json", "greet", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert '"pipeline": "greet"' in result.stdout and '"other"' not in result.stdout


def test_version_before_a_command_wins() -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version", "check"])
    assert caught.value.code == 0


def broken(error: BaseException) -> Callable[[argparse.Namespace], int]:
    """A stand-in command that raises ``error``."""

    def handler(args: argparse.Namespace) -> int:
        raise error

    return handler


def test_an_unexpected_error_is_one_line_and_exit_70(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "schema", broken(RuntimeError("boom")))
    result = invoke("schema")
    assert result.exit_code == 70
    assert result.stderr == (
        "Error: internal error: RuntimeError('boom') — rerun with --debug and report it\n"
    )
    for args in (["--debug", "schema"], ["schema", "--debug"]):  # as the message says: anywhere
        debug = invoke(*args)
        assert debug.exit_code == 70
        assert debug.stderr.startswith("Traceback (most recent call last):")
        assert debug.stderr.endswith("RuntimeError('boom') — rerun with --debug and report it\n")


def test_an_unexpected_error_under_json_is_an_object_on_stdout_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(records, "log", broken(RuntimeError("boom")))
    result = invoke("log", "--json")
    assert result.exit_code == 70
    assert json.loads(result.stdout) == {
        "status": "error",
        "exit_code": 70,
        "error": {
            "type": "InternalError",
            "message": "RuntimeError('boom')",
            "hint": "rerun with --debug",
        },
    }


def test_an_ascii_only_stdout_gets_json_escapes_not_an_internal_error(
    tmp_path: Path, runtime_env: Path
) -> None:
    app = make_app(
        tmp_path / "app",
        {"hours": {"description": "统计工时", "triggers": ["统计本周工时"], "steps": [code("a")]}},
    )
    entry = "import sys; from skill2app.runtime.cli import main; main(sys.argv[1:])"
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "APP_RUN_HOME": str(runtime_env)}
    for args in (["--json"], []):
        child = subprocess.run(
            [sys.executable, "-c", entry, "route", str(app), "统计一下工时", *args],
            capture_output=True,
            env=env,
        )
        assert child.returncode == 0, child.stderr
        child.stdout.decode("ascii")  # nothing but ASCII was written
        if args:
            assert json.loads(child.stdout)["pipeline"] == "hours"
        assert b"\\u7edf\\u8ba1" in child.stdout  # 统计, escaped


def test_ctrl_c_outside_a_run_is_exit_130(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "schema", broken(KeyboardInterrupt()))
    result = invoke("schema")
    assert (result.exit_code, result.stderr) == (130, "Error: interrupted\n")


def test_a_reader_that_goes_away_is_not_an_internal_error(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "code-review"
    entry = "import sys; from skill2app.runtime.cli import main; main(sys.argv[1:])"
    child = subprocess.Popen(
        [sys.executable, "-c", entry, "list", str(example), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "APP_RUN_HOME": str(tmp_path)},
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # as `| head -c 0` would
    with child.stderr:
        stderr = child.stderr.read().decode()
    assert child.wait(timeout=60) == 141
    assert stderr == ""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_is_exit_74_not_an_internal_error(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "code-review"
    entry = "import sys; from skill2app.runtime.cli import main; main(sys.argv[1:])"
    with open("/dev/full", "w") as full:
        child = subprocess.run(
            [sys.executable, "-c", entry, "list", str(example), "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "APP_RUN_HOME": str(tmp_path)},
        )
    assert child.returncode == 74
    assert child.stderr == (
        "Error: cannot write to stdout: No space left on device — free space or write the "
        "output elsewhere\n"
    )


def test_text_that_is_not_utf8_is_a_usage_error(tmp_path: Path, runtime_env: Path) -> None:
    """Linux hands undecodable argv bytes over as lone surrogates; files are read as UTF-8."""
    app = make_app(tmp_path / "app", {"hello": {"input": {"who": "string"}, "steps": [code("a")]}})
    result = invoke("run", app, "hello", "-i", "who=caf\udce9")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "Error: the argument 'who=caf\\udce9' is not UTF-8 text — retype it in UTF-8\n"
    )
    latin1 = tmp_path / "input.json"
    latin1.write_bytes(b'{"who": "caf\xe9"}')
    result = invoke("run", app, "hello", "--input-json", latin1)
    assert result.exit_code == 2 and "is not UTF-8 text (byte 12)" in result.stderr


def test_a_lone_surrogate_in_a_step_output_is_printed_as_its_json_escape(
    tmp_path: Path, runtime_env: Path
) -> None:
    step = 'print(\'{"output": {"s": "\\\\ud800"}}\')\n'
    app = make_app(
        tmp_path / "app",
        {"odd": [{"name": "emit", "type": "code", "command": "python3 steps/emit.py"}]},
        files={"pipelines/odd/steps/emit.py": step},
    )
    entry = "import sys; from skill2app.runtime.cli import main; main(sys.argv[1:])"
    child = subprocess.run(  # a real UTF-8 stdout, which refuses the lone surrogate
        [sys.executable, "-c", entry, "run", str(app), "odd"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert child.returncode == 0, child.stderr
    assert json.loads(child.stdout) == {"s": "\ud800"}
    assert child.stdout.replace(b" ", b"").replace(b"\n", b"") == b'{"s":"\\ud800"}'


def test_a_missing_app_folder_is_named_not_a_command_error(tmp_path: Path) -> None:
    result = invoke(tmp_path / "nowhere", "hello there")
    assert result.exit_code == 3
    assert f"the APP folder '{tmp_path / 'nowhere'}' does not exist" in result.stderr
    assert "invalid choice" not in result.stderr


@pytest.mark.parametrize(
    ("args", "exit_code", "expected"),
    [
        (
            ["textkt", "count the words"],
            3,
            "Error: the APP folder 'textkt' does not exist — did you mean 'textkit'?\n",
        ),
        (
            ["check", "textkt"],
            3,
            "Error: the APP folder 'textkt' does not exist — did you mean 'textkit'?\n",
        ),
        (
            ["zzz", "count the words"],
            3,
            "Error: the APP folder 'zzz' does not exist — pass the folder that holds SKILL.md "
            "and pipelines/\n",
        ),
        (["chek", "textkit"], 2, "Error: unknown command 'chek' — did you mean 'check'?\n"),
        (["sesions"], 2, "Error: unknown command 'sesions' — did you mean 'sessions'?\n"),
        (
            ["frob"],
            2,
            f"Error: unknown command 'frob' — commands: {', '.join(COMMANDS)}; "
            'or app-run APP_DIR "request"\n',
        ),
        (
            ["run", "textkit", "textkt"],
            2,
            "Error: no pipeline named 'textkt' in {cwd}/textkit — did you mean 'text-kt'? "
            "pipelines here: text-kt (see `app-run list`)\n",
        ),
        (
            ["resume", "abc"],
            2,
            "Error: resume needs --answer FILE|- — give the file holding the "
            "answer, or - for stdin\n",
        ),
    ],
)
def test_did_you_mean(
    args: list[str],
    exit_code: int,
    expected: str,
    tmp_path: Path,
    runtime_env: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A typo in a command, an APP folder or a pipeline gets the name it was close to."""
    make_app(tmp_path / "textkit", {"text-kt": [code("a")]})
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert (result.exit_code, result.stdout) == (exit_code, "")
    assert result.stderr == expected.format(cwd=tmp_path)


def test_app_dir_defaults_to_the_current_folder_when_it_is_an_app(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(tmp_path / "app", {"greet": [code("hi")], "other": [code("x")]})
    (app / "pipelines/greet/samples").mkdir()
    (app / "pipelines/greet/samples/input.json").write_text("{}")
    monkeypatch.chdir(app)
    check = invoke("check")
    # the routing self-test's warnings: neither pipeline has a trigger
    assert check.exit_code == 0 and check.stderr.endswith(".: ok (0 errors, 2 warnings)\n")
    assert invoke("list").stdout == invoke("list", app).stdout
    tested = invoke("test", "greet", "--json")  # inside an APP, a word is a pipeline
    assert [r["pipeline"] for r in json.loads(tested.stdout)] == ["greet"]
    assert "[APP_DIR]" in invoke("check", "--help").stdout
    monkeypatch.chdir(tmp_path)
    outside = invoke("check")
    assert outside.exit_code == 2
    assert outside.stderr == (
        "Error: no APP_DIR given, and the current folder is not an APP (it has no pipelines/ nor "
        "SKILL.md) — give the APP folder, or run this inside it\n"
    )


def test_an_input_given_twice_is_refused_and_a_bom_is_fine(
    tmp_path: Path, runtime_env: Path
) -> None:
    app = make_app(tmp_path / "app", {"hello": {"input": {"who": "string"}, "steps": [code("a")]}})
    result = invoke("run", app, "hello", "-i", "who=ann", "-i", "who=bob")
    assert result.exit_code == 2 and "--input who is given twice" in result.stderr
    bom = tmp_path / "input.json"
    bom.write_bytes(b'\xef\xbb\xbf{"who": "ann"}')
    assert invoke("run", app, "hello", "--input-json", bom).exit_code == 0


def test_field_prints_one_part_of_the_output(tmp_path: Path, runtime_env: Path) -> None:
    step = 'import json; print(json.dumps({"output": {"report": "# Title\\n", "n": [4, 5]}}))\n'
    app = make_app(
        tmp_path / "app",
        {"rep": [{"name": "emit", "type": "code", "command": "python3 steps/emit.py"}]},
        files={"pipelines/rep/steps/emit.py": step},
    )
    assert invoke("run", app, "rep", "--field", "report").stdout == "# Title\n"  # plain text
    assert invoke("run", app, "rep", "--field", "n.1").stdout == "5\n"
    missing = invoke("run", app, "rep", "--field", "summary")
    assert missing.exit_code == 2 and missing.stdout == ""
    assert missing.stderr.splitlines()[-1] + "\n" == (
        "Error: the output has no field 'summary' (the run itself succeeded) — there: report, n; "
        "drop --field to print the whole output\n"
    )


def test_standard_input_that_is_not_utf8_is_a_usage_error(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "code-review"
    entry = "import sys; from skill2app.runtime.cli import main; main(sys.argv[1:])"
    child = subprocess.run(
        [sys.executable, "-c", entry, "run", str(example), "code-review", "--input-json", "-"],
        input=b'{"diff_file": "\xff"}',
        capture_output=True,
        env={**os.environ, "APP_RUN_HOME": str(tmp_path), "LC_ALL": "C.UTF-8"},
    )
    assert child.returncode == 2
    assert (
        child.stderr
        == b"Error: the input is not UTF-8 text (byte 15) \xe2\x80\x94 convert it to UTF-8\n"
    )


def test_a_usage_error_with_json_is_an_object_on_stdout_too() -> None:
    result = invoke("run", "--json")
    assert result.exit_code == 2
    shown = json.loads(result.stdout)
    assert (shown["status"], shown["error"]["type"]) == ("error", "UsageError")
    assert "required: APP_DIR, PIPELINE" in shown["error"]["message"]
    bad = invoke("list", "caf\udce9", "--json")
    assert bad.exit_code == 2 and "not UTF-8" in json.loads(bad.stdout)["error"]["message"]


def test_the_constructor_s_warnings_are_shown_when_it_passes(
    tmp_path: Path, runtime_env: Path
) -> None:
    """A converted APP's check_environment passes with warnings (a program one pipeline
    needs is missing): app-run shows them on stderr, the run goes on, stdout stays JSON."""
    warned = {"output": {"checked": 2, "warnings": ["pdftoppm is not on PATH (needed by: pages)"]}}
    root = make_app(
        tmp_path / "app",
        {
            "hello": [code("greet", "ok", "hi")],
            "_constructor": [{"name": "check", "type": "code", "command": "python3 steps/warn.py"}],
        },  # fmt: skip
        files={
            "pipelines/_constructor/steps/warn.py": f"print({json.dumps(json.dumps(warned))})\n"
        },
    )
    done = invoke("run", root, "hello", "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "succeeded"
    assert "Warning: constructor: pdftoppm is not on PATH (needed by: pages)" in done.stderr
    quiet = make_app(tmp_path / "quiet", {"hello": [code("greet", "ok", "hi")]})
    assert "Warning" not in invoke("run", quiet, "hello").stderr
