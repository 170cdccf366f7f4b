"""The `app-run` command. The only package of the runtime that imports typer or prints:
this module holds the app, the shared options and how results and errors are printed;
``pipelines`` (check, list, run, route, ask, test), ``sessions`` (resume, abandon,
sessions) and ``records`` (log, schema) hold the commands.

Exit codes (also in README.md):
  0 success · 1 pipeline failed · 2 usage or input error · 3 APP invalid (check errors)
  4 constructor failed · 5 destructor failed (business output still printed)
  130 interrupted by SIGINT · 143 terminated by SIGTERM · 70 internal error
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from runtime import __version__
from runtime.display import (
    error_lines,
    pause_line,
    progress_lines,
    select_field,
)
from runtime.errors import AppRunError, UsageError

EXIT_INTERNAL = 70

cli = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Run APPs (Agent Pipeline Protocol v0.4): check, list, run pipelines, read run logs.",
)
state = {"debug": False}

AppDir = Annotated[
    Path, typer.Argument(metavar="APP_DIR", help="The APP folder (holds SKILL.md and pipelines/).")
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")]
InputPairs = Annotated[
    list[str] | None, typer.Option("--input", "-i", help="An input as key=value (repeatable).")
]
InputJson = Annotated[
    str | None, typer.Option("--input-json", help="Inputs as a JSON object: FILE or -.")
]
ProviderOpt = Annotated[
    str | None, typer.Option("--provider", help="LLM provider: anthropic | scripted | none.")
]
AnswersOpt = Annotated[
    str | None, typer.Option("--answers", help="Answers file for the scripted provider.")
]
DelegateFlag = Annotated[
    bool,
    typer.Option(
        "--delegate/--no-delegate",
        help="With no provider, pause at llm steps for the calling agent (exit 6).",
    ),
]
FieldOpt = Annotated[
    str | None,
    typer.Option(
        "--field",
        help="Print only this field of the output (dot path); a string prints as plain text.",
    ),
]
QuietFlag = Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"app-run {__version__}")
        raise typer.Exit()


@cli.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show version.")
    ] = False,
) -> None:
    state["debug"] = debug


def fail(error: BaseException) -> NoReturn:
    """Print one line for a known error (tracebacks only with --debug) and exit."""
    if state["debug"]:
        traceback.print_exception(error)
    if isinstance(error, AppRunError):
        lines = error_lines(error)
        typer.echo(f"Error: {lines[0]}", err=True)
        say(lines[1:])
        raise typer.Exit(error.exit_code)
    typer.echo(f"Error: internal error: {error!r} — rerun with --debug and report it", err=True)
    raise typer.Exit(EXIT_INTERNAL)


def say(lines: list[str]) -> None:
    """Lines for people, on stderr."""
    for line in lines:
        typer.echo(line, err=True)


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


def report(result: Any, as_json: bool, field: str | None = None) -> NoReturn:
    """Print a RunResult: the output on stdout, errors on stderr; exit with its code."""
    if as_json or result.pause is not None:
        emit_json(result.to_dict())
        if result.pause is not None and not as_json:
            say([pause_line(result.pause)])
    else:
        if result.business is not None and result.business.status == "succeeded":
            _print_output(result.output, field)
        for phase in (result.constructor, result.business, result.destructor):
            if phase is not None and phase.error is not None:
                lines = error_lines(phase.error)
                say([f"Error: {phase.phase} failed — {lines[0]}", *lines[1:]])
    if result.record_error:
        fix = "check the free space and permissions of APP_RUN_HOME; the run itself went on"
        say([f"Warning: {result.record_error} — {fix}"])
    raise typer.Exit(result.exit_code)


def _print_output(output: Any, field: str | None) -> None:
    """The pipeline's output as JSON; with --field, one part of it (a string as plain text)."""
    if field:
        try:
            output = select_field(output, field)
        except UsageError as exc:
            fail(exc)
        if isinstance(output, str):
            typer.echo(output.rstrip("\n"))
            return
    emit_json(output)


def progress(event: dict[str, Any]) -> None:
    say(progress_lines(event))


COMMANDS = (
    "test",
    "check",
    "list",
    "run",
    "route",
    "ask",
    "resume",
    "abandon",
    "sessions",
    "log",
    "schema",
)


def shorthand(argv: list[str]) -> list[str]:
    """`app-run APP_DIR "request" ...` means `app-run ask APP_DIR "request" ...`."""
    args = list(argv)
    index = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
    if index is not None and args[index] not in COMMANDS and Path(args[index]).is_dir():
        args.insert(index, "ask")
    return args


from . import pipelines, records, sessions  # noqa: E402,F401 - registers the commands


def main() -> None:
    """Console entry point: no traceback escapes unless --debug was given."""
    try:
        cli(args=shorthand(sys.argv[1:]), prog_name="app-run")
    except KeyboardInterrupt:
        typer.echo("Error: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into a message
        try:
            fail(exc)
        except typer.Exit as done:
            sys.exit(done.exit_code)
