"""The `app-run` command. The only module of the runtime that imports typer or prints.

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

from . import __version__
from .errors import AppRunError, CheckFailed, StepError

EXIT_INTERNAL = 70

cli = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Run APPs (Agent Pipeline Protocol v0.4): check, list, run pipelines, read run logs.",
)
state = {"debug": False}

AppDir = Annotated[Path, typer.Argument(help="The APP folder (holds SKILL.md and pipelines/).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")]


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
        prefix = f"step {error.step!r}: " if isinstance(error, StepError) and error.step else ""
        typer.echo(f"Error: {prefix}{error.one_line()}", err=True)
        _details(error)
        raise typer.Exit(error.exit_code)
    typer.echo(f"Error: internal error: {error!r} — rerun with --debug and report it", err=True)
    raise typer.Exit(EXIT_INTERNAL)


def _details(error: AppRunError) -> None:
    for diagnostic in getattr(error, "diagnostics", []):
        typer.echo(f"  {diagnostic.one_line()}", err=True)
    stderr_tail = getattr(error, "stderr_tail", "")
    if stderr_tail:
        typer.echo("  stderr:", err=True)
        for line in stderr_tail.splitlines()[-20:]:
            typer.echo(f"  | {line}", err=True)


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


@cli.command()
def check(app_dir: AppDir, as_json: JsonFlag = False) -> None:
    """Validate every pipeline of an APP without running anything."""
    from .app import load_app
    from .check import check_app, errors_in

    try:
        diagnostics = check_app(load_app(app_dir))
    except AppRunError as exc:
        fail(exc)
    errors = errors_in(diagnostics)
    if as_json:
        emit_json({"ok": not errors, "diagnostics": [d.to_dict() for d in diagnostics]})
    else:
        for d in diagnostics:
            typer.echo(d.one_line(), err=True)
        warnings = len(diagnostics) - len(errors)
        verdict = "ok" if not errors else "invalid"
        typer.echo(f"{app_dir}: {verdict} ({len(errors)} errors, {warnings} warnings)", err=True)
    raise typer.Exit(CheckFailed.exit_code if errors else 0)


@cli.command("list")
def list_pipelines(app_dir: AppDir, as_json: JsonFlag = False) -> None:
    """Print the routing table: every business pipeline's name, description and triggers."""
    from .app import load_app, routing_table

    try:
        table = routing_table(load_app(app_dir))
    except AppRunError as exc:
        fail(exc)
    if as_json:
        emit_json(table)
        return
    for row in table:
        typer.echo(f"{row['name']}\n  {row['description']}")
        for trigger in row["triggers"]:
            typer.echo(f"  - {trigger}")


@cli.command()
def run(
    app_dir: AppDir,
    pipeline: Annotated[str, typer.Argument(help="The business pipeline to run.")],
    input_pairs: Annotated[
        list[str] | None,
        typer.Option("--input", "-i", help="An input as key=value (repeatable)."),
    ] = None,
    input_json: Annotated[
        str | None, typer.Option("--input-json", help="Inputs as a JSON object: FILE or -.")
    ] = None,
    provider: Annotated[
        str | None, typer.Option(help="LLM provider: anthropic | scripted | none.")
    ] = None,
    answers: Annotated[
        str | None, typer.Option(help="Answers file for the scripted provider.")
    ] = None,
    as_json: JsonFlag = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
) -> None:
    """Run one pipeline, with its _constructor before and _destructor after."""
    from .job import execute

    try:
        result = execute(
            app_dir,
            pipeline,
            pairs=input_pairs or [],
            input_json=input_json,
            stdin_text=sys.stdin.read() if input_json == "-" else None,
            provider=provider,
            answers=answers,
            listener=None if quiet else progress,
        )
    except AppRunError as exc:
        fail(exc)
    report(result, as_json)


def report(result: Any, as_json: bool) -> NoReturn:
    """Print a RunResult: the output on stdout, errors on stderr; exit with its code."""
    if as_json:
        emit_json(result.to_dict())
    else:
        if result.output is not None and result.business and result.business.status == "succeeded":
            emit_json(result.output)
        for phase in (result.constructor, result.business, result.destructor):
            if phase is not None and phase.error is not None:
                typer.echo(f"Error: {phase.phase} failed — ", err=True, nl=False)
                _one(phase.error)
    raise typer.Exit(result.exit_code)


def _one(error: AppRunError) -> None:
    prefix = f"step {error.step!r}: " if isinstance(error, StepError) and error.step else ""
    typer.echo(f"{prefix}{error.one_line()}", err=True)
    _details(error)


def progress(event: dict[str, Any]) -> None:
    kind = event.get("event")
    if kind == "phase_start" and event["phase"] != "business":
        typer.echo(f"· {event['phase']} ({event['pipeline']})", err=True)
    elif kind == "step_retry":
        typer.echo(
            f"  ↻ {event['step']} attempt {event['attempt']} rejected: "
            f"{'; '.join(event['errors'])[:200]}",
            err=True,
        )
    elif kind == "step_end":
        status = "ok" if event["status"] == "succeeded" else "FAILED"
        extra = f", {event['retries']} retries" if event.get("retries") else ""
        typer.echo(
            f"  {event['pipeline']}/{event['step']}: {status} ({event['seconds']:.2f}s{extra})",
            err=True,
        )


@cli.command()
def log(
    run_id: Annotated[str | None, typer.Argument(metavar="[RUN]", help="Run id or prefix.")] = None,
    list_all: Annotated[bool, typer.Option("--list", help="List recent runs.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Show a run record (the newest by default)."""
    from .config import state_home
    from .record import describe_run, find_run, list_runs, read_events

    try:
        if list_all:
            rows = list_runs(state_home())
            if as_json:
                emit_json(rows)
            for row in [] if as_json else rows:
                typer.echo(f"{row['run']}  {row['status']}")
            return
        events = read_events(find_run(state_home(), run_id))
    except AppRunError as exc:
        fail(exc)
    if as_json:
        emit_json(events)
    else:
        typer.echo(describe_run(events))


@cli.command()
def schema(
    path: Annotated[bool, typer.Option("--path", help="Print the file's path instead.")] = False,
) -> None:
    """Print the JSON Schema of pipeline.yaml (for editors and CI)."""
    from importlib import resources

    resource = resources.files("runtime").joinpath("schemas/pipeline.schema.json")
    typer.echo(str(resource) if path else resource.read_text("utf-8"), nl=path)


def main() -> None:
    try:
        cli()
    except KeyboardInterrupt:
        typer.echo("Error: interrupted", err=True)
        sys.exit(130)
