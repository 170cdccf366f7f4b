"""``app-new``: start an APP or grow one.  The only module of scaffold that imports typer.

Each command parses its arguments (prompting for missing ones on a terminal, never
otherwise), calls one core function and prints the file changes it returns: one line per
file on stdout (``--json`` for machines: ``{"ok": true, "dry_run", "changes"}``, or on an
error the object app-convert prints, ``{"ok": false, "error": {...}}``), a diff for every
edited file with ``--dry-run``.

Exit codes: 0 done; 2 bad or missing arguments or names; 3 a file or name already exists
(--force overwrites files); 4 APP, pipeline or step not found, or a YAML file app-new cannot
read; 5 a write failed; 70 internal error (a bug: rerun with --debug), as in app-run.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from skill2app.runtime import __version__
from skill2app.runtime.app import is_app_dir
from skill2app.scaffold import app as app_core
from skill2app.scaffold import lifecycle, pipeline, specs, step
from skill2app.scaffold.errors import ScaffoldError, UsageError
from skill2app.scaffold.files import Change
from skill2app.scaffold.layout import pipeline_names

EXIT_INTERNAL = 70
EPILOG = (
    "Exit codes: 0 done, 2 bad arguments or names, 3 already exists (--force), "
    "4 not found or unreadable, 5 write failed, 70 internal error."
)

cli = typer.Typer(
    name="app-new",
    help="Start an APP (Agent Pipeline Protocol v0.4) or grow one, from templates.",
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

Force = Annotated[bool, typer.Option("--force", help="Overwrite files that already exist.")]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Only list what would change, with diffs of edits.")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the changes as JSON on stdout.")]
Debug = Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")]
AppDir = Annotated[
    Path | None,
    typer.Argument(
        metavar="APP_DIR",
        help="The APP folder (holds SKILL.md). Default: the current folder, if it is an APP.",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class Flags:
    force: bool
    dry_run: bool
    as_json: bool
    debug: bool


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"app-new {__version__}")
        raise typer.Exit()


@cli.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Start an APP (Agent Pipeline Protocol v0.4) or grow one, from templates."""


@cli.command("app")
def app_command(
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="APP name, e.g. code-review.")
    ] = None,
    parent: Annotated[
        Path, typer.Option("--dir", metavar="PARENT", help="Folder to create it in.")
    ] = Path("."),
    description: Annotated[
        str | None,
        typer.Option(metavar="TEXT", help="What it does and when to use it (SKILL.md)."),
    ] = None,
    with_lifecycle: Annotated[
        bool, typer.Option("--with-lifecycle", help="Add _constructor and _destructor.")
    ] = False,
    force: Force = False,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    debug: Debug = False,
) -> None:
    """A new APP: SKILL.md, README.md, pipelines/, tools/."""

    def work() -> list[Change]:
        app_name = _ask(name, "APP name", "NAME")
        text = _ask_optional(description, "Description (what it does, when to use it)")
        return app_core.new_app(
            parent,
            app_name,
            description=text,
            with_lifecycle=with_lifecycle,
            force=force,
            dry_run=dry_run,
        )

    _run(work, Flags(force, dry_run, as_json, debug))


@cli.command("pipeline")
def pipeline_command(
    app_dir: AppDir = None,
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="Pipeline name, e.g. review-pr.")
    ] = None,
    description: Annotated[
        str | None, typer.Option(metavar="TEXT", help="What it does (used to route requests).")
    ] = None,
    trigger: Annotated[
        list[str] | None,
        typer.Option(
            metavar="TEXT", help="An example request that should route here (repeatable)."
        ),
    ] = None,
    input_: Annotated[
        list[str] | None,
        typer.Option(
            "--input",
            metavar="NAME[:TYPE]",
            help="An input parameter (repeatable); TYPE: string (default), integer, number, "
            "boolean, array, object; a trailing ? makes it optional (limit:integer?).",
        ),
    ] = None,
    step_: Annotated[
        list[str] | None,
        typer.Option(
            "--step",
            metavar="NAME[:KIND[:LANG|TIER]]",
            help="A step (repeatable): KIND code (default) with LANG python (default), bash or "
            "node; or llm with TIER lite, standard (default) or reasoning.",
        ),
    ] = None,
    force: Force = False,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    debug: Debug = False,
) -> None:
    """A new pipeline: pipeline.yaml, steps/, schemas/ and samples/ in APP_DIR/pipelines/NAME."""

    def work() -> list[Change]:
        where, (given,) = _inside_app(app_dir, name)
        folder = Path(_ask(where, "APP folder", "APP_DIR", default="."))
        pipeline_name = _ask(given, "Pipeline name", "NAME")
        text = _ask(description, "Description", "--description")
        triggers = _ask_list(trigger, "Example requests (comma-separated)")
        inputs = _ask_list(input_, "Inputs as name:type (comma-separated)")
        steps = _ask_list(step_, "Steps as name:code|llm (comma-separated)", "process:code")
        changes = pipeline.new_pipeline(
            folder,
            pipeline_name,
            text,
            triggers=triggers,
            inputs=[specs.parse_input(item) for item in inputs],
            steps=[specs.parse_step(item) for item in steps],
            force=force,
            dry_run=dry_run,
        )
        for line in [] if dry_run else pipeline.routing_warnings(folder, pipeline_name):
            typer.echo(f"Warning: {line}", err=True)
        return changes

    _run(work, Flags(force, dry_run, as_json, debug))


@cli.command("step")
def step_command(
    app_dir: AppDir = None,
    pipeline_name: Annotated[
        str | None,
        typer.Argument(
            metavar="PIPELINE",
            help="The pipeline to add it to.",
            autocompletion=_pipeline_names,
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="Step name, e.g. fetch_diff.")
    ] = None,
    type_: Annotated[
        str | None, typer.Option("--type", metavar="code|llm", help="The kind of step.")
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(metavar="LANG", help="A code step's language: python, bash or node."),
    ] = None,
    after: Annotated[
        str | None, typer.Option(metavar="STEP", help="Insert after this step (default: last).")
    ] = None,
    tier: Annotated[
        str | None,
        typer.Option(metavar="TIER", help="An llm step's tier: lite, standard or reasoning."),
    ] = None,
    force: Force = False,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    debug: Debug = False,
) -> None:
    """Add a step to a pipeline (keeps pipeline.yaml's comments) and write its files."""

    def work() -> list[Change]:
        where, (given_pipeline, given_name) = _inside_app(app_dir, pipeline_name, name)
        folder = Path(_ask(where, "APP folder", "APP_DIR", default="."))
        target = _ask(given_pipeline, "Pipeline", "PIPELINE")
        step_name = _ask(given_name, "Step name", "NAME")
        kind = _ask(type_, "Type (code or llm)", "--type", default="code")
        spec = specs.step(step_name, kind, lang=lang, tier=tier)
        return step.new_step(folder, target, spec, after=after, force=force, dry_run=dry_run)

    _run(work, Flags(force, dry_run, as_json, debug))


@cli.command("constructor")
def constructor_command(
    app_dir: AppDir = None,
    force: Force = False,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    debug: Debug = False,
) -> None:
    """Add pipelines/_constructor (runs before every pipeline) with an example step."""
    _lifecycle("constructor", app_dir, Flags(force, dry_run, as_json, debug))


@cli.command("destructor")
def destructor_command(
    app_dir: AppDir = None,
    force: Force = False,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    debug: Debug = False,
) -> None:
    """Add pipelines/_destructor (runs after every pipeline) with an example step."""
    _lifecycle("destructor", app_dir, Flags(force, dry_run, as_json, debug))


def _lifecycle(kind: str, app_dir: Path | None, flags: Flags) -> None:
    def work() -> list[Change]:
        where, _ = _inside_app(app_dir)
        folder = Path(_ask(where, "APP folder", "APP_DIR", default="."))
        return lifecycle.new_lifecycle(folder, kind, force=flags.force, dry_run=flags.dry_run)

    _run(work, flags)


# --- APP_DIR: the current folder, inside an APP ---


def _inside_app(app_dir: Path | None, *words: str | None) -> tuple[Path | None, list[str | None]]:
    """APP_DIR and the words after it. Inside an APP (the current folder has SKILL.md or
    pipelines/) APP_DIR may be left out: with one word too few, the words shift right
    (``app-new pipeline count`` is ``app-new pipeline . count``), unless the first names an
    APP folder."""
    if not is_app_dir(Path(".")):
        return app_dir, list(words)
    if app_dir is None:
        return Path("."), list(words)
    if words and words[-1] is None and not is_app_dir(app_dir) and not app_dir.is_dir():
        return Path("."), [str(app_dir), *words[:-1]]
    return app_dir, list(words)


def _pipeline_names(ctx: typer.Context, incomplete: str) -> list[str]:
    """Completion of PIPELINE: the pipelines of the APP_DIR given (or of the current folder)."""
    folder = Path(ctx.params.get("app_dir") or ".")
    return [name for name in pipeline_names(folder) if name.startswith(incomplete)]


# --- prompting: only on a terminal ---


def _is_terminal() -> bool:
    return sys.stdin.isatty()


def _ask(value: object, label: str, how: str, *, default: str | None = None) -> str:
    """``value`` if given, else what the user types on a terminal, else a ``UsageError``."""
    if value is not None:
        return str(value)
    if _is_terminal():
        answer = typer.prompt(label, default=default, err=True).strip()
        if answer:
            return answer
    raise UsageError(f"missing {how}", hint=f"give {how} (see `app-new --help`)")


def _ask_optional(value: str | None, label: str) -> str | None:
    if value is not None or not _is_terminal():
        return value
    return typer.prompt(label, default="", show_default=False, err=True).strip() or None


def _ask_list(values: list[str] | None, label: str, default: str = "") -> list[str]:
    if values or not _is_terminal():
        return values or []
    answer = typer.prompt(label, default=default, show_default=bool(default), err=True)
    return [item.strip() for item in answer.split(",") if item.strip()]


# --- running a command and printing what it did ---

_VERBS = {
    False: {"create": "created", "overwrite": "overwrote", "edit": "edited"},
    True: {"create": "would create", "overwrite": "would overwrite", "edit": "would edit"},
}


def _run(work: Callable[[], list[Change]], flags: Flags) -> None:
    try:
        changes = work()
    except ScaffoldError as err:
        if flags.debug:
            traceback.print_exc()
        typer.echo(f"Error: {err.one_line()}", err=True)
        if flags.as_json:  # the same error object as app-convert --json
            typer.echo(_json_error(err))
        raise typer.Exit(err.exit_code) from None
    except Exception as err:  # a bug: say so in one line, traceback with --debug
        if flags.debug:
            raise
        typer.echo(
            f"Error: internal error: {type(err).__name__}: {err} — rerun with --debug and "
            "report it",
            err=True,
        )
        raise typer.Exit(EXIT_INTERNAL) from None
    typer.echo(_json(changes, flags.dry_run) if flags.as_json else _text(changes, flags.dry_run))
    if flags.dry_run and not flags.as_json:
        typer.echo("Dry run: nothing was written.", err=True)


def _text(changes: list[Change], dry_run: bool) -> str:
    verbs = _VERBS[dry_run]
    width = max(len(verb) for verb in verbs.values())
    lines = []
    for change in changes:
        lines.append(f"{verbs[change.action]:<{width}}  {change.path.as_posix()}")
        diff = change.diff() if dry_run else ""
        if diff:
            lines.append(diff.rstrip("\n"))
    return "\n".join(lines)


def _json(changes: list[Change], dry_run: bool) -> str:
    items = [
        {"action": change.action, "path": change.path.as_posix(), "diff": change.diff()}
        for change in changes
    ]
    data = {"ok": True, "dry_run": dry_run, "changes": items}
    return json.dumps(data, ensure_ascii=False, indent=2)


def _json_error(err: ScaffoldError) -> str:
    error = {
        "type": type(err).__name__,
        "message": err.message,
        "file": str(err.where.file) if err.where else "",
        "line": err.where.line if err.where else 0,
        "hint": err.hint,
        "exit_code": err.exit_code,
        "errors": [],
    }
    return json.dumps({"ok": False, "error": error}, ensure_ascii=False, indent=2)


def main() -> None:
    """Console script entry point (``app-new``)."""
    cli(prog_name="app-new")
