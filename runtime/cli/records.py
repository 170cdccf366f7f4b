"""Commands about records and references: log, schema."""

from __future__ import annotations

import argparse

from skill2app.runtime.cli.output import emit_json, out
from skill2app.runtime.cli.parser import Parser, command, json_flag


def register(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = command(commands, log, "log")
    parser.add_argument("run_id", metavar="RUN", nargs="?", help="Run id or prefix.")
    parser.add_argument("--list", dest="list_all", action="store_true", help="List recent runs.")
    json_flag(parser)

    parser = command(commands, schema, "schema")
    parser.add_argument("--path", action="store_true", help="Print the file's path instead.")


def log(args: argparse.Namespace) -> int:
    """Show a run record (the newest by default)."""
    from skill2app.runtime.app.config import state_home
    from skill2app.runtime.records.record import describe_run, find_run, list_runs, read_events

    if args.list_all:
        rows = list_runs(state_home())
        if args.as_json:
            emit_json(rows)
        for row in [] if args.as_json else rows:
            out(f"{row['run']}  {row['status']}")
        return 0
    events = read_events(find_run(state_home(), args.run_id))
    if args.as_json:
        emit_json(events)
    else:
        out(describe_run(events))
    return 0


def schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema of pipeline.yaml (for editors and CI)."""
    from importlib import resources

    resource = resources.files("skill2app.runtime").joinpath("schemas/pipeline.schema.json")
    if args.path:
        out(str(resource))
    else:
        out(resource.read_text("utf-8"), end="")
    return 0
