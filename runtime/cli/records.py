"""Commands about records and references: log, schema."""

from __future__ import annotations

from typing import Annotated

import typer

from runtime.errors import AppRunError

from . import (
    JsonFlag,
    cli,
    emit_json,
    fail,
)


@cli.command()
def log(
    run_id: Annotated[str | None, typer.Argument(metavar="[RUN]", help="Run id or prefix.")] = None,
    list_all: Annotated[bool, typer.Option("--list", help="List recent runs.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Show a run record (the newest by default)."""
    from runtime.config import state_home
    from runtime.record import describe_run, find_run, list_runs, read_events

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
