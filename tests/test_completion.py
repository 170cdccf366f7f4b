"""Shell completion of app-run (argcomplete), app-new and app-convert (typer): what a TAB
offers, the one command that installs it, and that a normal start pays nothing for it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import code, invoke, make_app

BIN = Path(sys.executable).parent


def offered(line: str) -> list[str]:
    """What app-run offers for the command line ``line`` (the cursor at its end), asked the
    way the shell asks: the installed app-run, answering on file descriptor 8."""
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
    }
    done = subprocess.run(
        ["bash", "-c", f"'{BIN / 'app-run'}' 8>&1 9>/dev/null 1>/dev/null"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return sorted(word.strip() for word in done.stdout.split("\n") if word.strip())


@pytest.fixture
def app(tmp_path: Path, runtime_env: Path) -> Path:
    return make_app(
        tmp_path / "my-app",
        {"count": [code("a")], "convert": [code("b")], "_constructor": [code("c")]},
    )


def test_commands_options_pipelines_and_folders(
    app: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert offered("app-run ch") == ["check"]
    assert offered("app-run se") == ["sessions"]
    assert offered("app-run list --j") == ["--json"]
    assert offered("app-run run my-app ") == ["convert", "count"]  # no _constructor
    assert offered("app-run run my-app cou") == ["count"]
    assert offered("app-run check my") == ["my-app/"]
    assert offered("app-run test my-app c") == ["convert", "count"]
    monkeypatch.chdir(app)
    assert offered("app-run test c") == ["convert", "count"]


def test_session_ids_of_paused_sessions(tmp_path: Path, runtime_env: Path) -> None:
    judge = {"name": "judge", "type": "llm", "model": "lite", "prompt": "Rate it"}
    app = make_app(tmp_path / "app", {"rate": [judge]})
    paused = json.loads(invoke("run", app, "rate").stdout)["session"]
    assert offered("app-run resume ") == [paused]
    assert offered("app-run abandon 2") == [paused]
    assert invoke("abandon", paused).exit_code == 0
    assert offered("app-run resume ") == []  # ended: nothing to resume


def test_a_normal_start_does_not_import_argcomplete() -> None:
    probe = (
        "import sys\nfrom skill2app.runtime.cli import app_run\n"
        "app_run(['--version'])\nprint('argcomplete' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip().endswith("False"), done.stderr


def in_bash(command: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``command`` run by bash, as a user types it (typer tells the shell by its parent)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **kwargs.pop("env", {})}
    return subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, env=env, timeout=60, **kwargs
    )


def test_app_run_prints_a_script_for_each_shell() -> None:
    for shell in ("bash", "zsh", "fish"):
        done = in_bash(f"app-run --show-completion {shell}")
        assert done.returncode == 0, done.stderr
        assert "app-run" in done.stdout and len(done.stdout) > 100


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("program", ["app-run", "app-new", "app-convert"])
def test_install_completion_is_one_command(program: str, tmp_path: Path) -> None:
    for _ in range(2):  # installing twice adds the line to .bashrc once
        done = in_bash(f"{program} --install-completion", env={"HOME": str(tmp_path)})
        assert done.returncode == 0, done.stderr
        assert "completion installed in" in done.stdout + done.stderr
    script = tmp_path / ".bash_completions" / f"{program}.sh"
    assert script.is_file()
    assert (tmp_path / ".bashrc").read_text().count(f"source '{script}'") == 1


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(
    ("program", "line", "expected"),
    [
        ("app-run", "app-run ch", ["check"]),
        ("app-run", "app-run run my-app co", ["convert", "count"]),
        ("app-new", "app-new pi", ["pipeline"]),
        ("app-new", "app-new step my-app co", ["convert", "count"]),
        ("app-convert", "app-convert --pl", ["--plan", "--plan-only"]),
    ],
)
def test_a_real_bash_completes(
    program: str, line: str, expected: list[str], app: Path, tmp_path: Path
) -> None:
    """The script each command installs, sourced by bash and asked as a TAB would."""
    script = in_bash(f"{program} --show-completion").stdout
    (tmp_path / "completion.sh").write_text(script)
    function = "_python_argcomplete" if program == "app-run" else f"_{program.replace('-', '_')}"
    ask = (
        f"source {tmp_path / 'completion.sh'}\n"
        f'COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}\n'
        f"COMP_WORDS=({line}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n"
        f"{function}{'_completion' if program != 'app-run' else ''} {program} "
        '"${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = in_bash(ask, cwd=tmp_path)
    assert sorted(w.strip() for w in done.stdout.split("\n") if w.strip()) == expected, done.stderr


# --- help texts a reference can be generated from ---------------------------------------------


def test_every_app_run_option_and_argument_has_help_and_a_clean_metavar() -> None:
    import argparse

    from skill2app.runtime.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in [("app-run", parser), *sub.choices.items()]:
        for action in command._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help"
            assert "<" not in str(action.metavar or ""), (name, action.metavar)


@pytest.mark.parametrize("module", ["skill2app.scaffold.cli", "skill2app.converter.cli"])
def test_every_app_new_and_app_convert_option_has_help(module: str) -> None:
    import importlib

    import typer

    group = typer.main.get_command(importlib.import_module(module).cli)
    commands = [group, *getattr(group, "commands", {}).values()]
    for command in commands:
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            assert getattr(param, "help", None), f"{command.name} {param.name}: no help"
