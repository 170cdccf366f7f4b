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
from .display import (
    decision_lines,
    error_lines,
    pause_line,
    progress_lines,
    select_field,
    session_line,
)
from .errors import AppRunError, CheckFailed, UsageError

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
    pipeline: Annotated[
        str, typer.Argument(metavar="PIPELINE", help="The business pipeline to run.")
    ],
    input_pairs: InputPairs = None,
    input_json: InputJson = None,
    provider: ProviderOpt = None,
    answers: AnswersOpt = None,
    delegate: DelegateFlag = True,
    field: FieldOpt = None,
    as_json: JsonFlag = False,
    quiet: QuietFlag = False,
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
            delegate=delegate,
        )
    except AppRunError as exc:
        fail(exc)
    report(result, as_json, field)


StrategyOpt = Annotated[
    str | None, typer.Option("--strategy", help="Routing: embedded | llm | hybrid.")
]
RequestArg = Annotated[str, typer.Argument(metavar="REQUEST", help="The request, in plain words.")]


@cli.command("route")
def route_request(
    app_dir: AppDir,
    request: RequestArg,
    strategy: StrategyOpt = None,
    provider: ProviderOpt = None,
    answers: AnswersOpt = None,
    as_json: JsonFlag = False,
) -> None:
    """Only decide which pipeline a request goes to (nothing runs)."""
    from .job import decide

    try:
        decision = decide(app_dir, request, strategy=strategy, provider=provider, answers=answers)
    except AppRunError as exc:
        fail(exc)
    if as_json:
        emit_json(decision)
        return
    for line in decision_lines(decision):
        typer.echo(line)


@cli.command("ask")
def ask_request(
    app_dir: AppDir,
    request: RequestArg,
    input_pairs: InputPairs = None,
    input_json: InputJson = None,
    strategy: StrategyOpt = None,
    provider: ProviderOpt = None,
    answers: AnswersOpt = None,
    delegate: DelegateFlag = True,
    agent: Annotated[
        bool, typer.Option("--agent", help="No match: run Skill mode here (needs a provider).")
    ] = False,
    max_turns: Annotated[int, typer.Option(help="--agent: turn limit.")] = 12,
    field: FieldOpt = None,
    as_json: JsonFlag = False,
    quiet: QuietFlag = False,
) -> None:
    """Route a request and run the matching pipeline; no match -> Skill mode (exit 7).

    `app-run APP_DIR "request"` is short for `app-run ask APP_DIR "request"`.
    """
    from .job import ask
    from .skill_mode import EXIT_SKILL

    try:
        answer = ask(
            app_dir,
            request,
            pairs=input_pairs or [],
            input_json=input_json,
            stdin_text=sys.stdin.read() if input_json == "-" else None,
            strategy=strategy,
            provider=provider,
            answers=answers,
            listener=None if quiet else progress,
            delegate=delegate,
            agent=agent,
            max_turns=max_turns,
        )
    except AppRunError as exc:
        fail(exc)
    if answer.agent is not None:
        emit_json(answer.agent)
        raise typer.Exit(answer.agent["exit_code"])
    if answer.run is not None:
        if not quiet:
            decision = answer.decision
            typer.echo(
                f"→ {decision['pipeline']} ({decision['strategy']}, score {decision['score']:.3f})",
                err=True,
            )
        report(answer.run, as_json, field)
    emit_json(answer.fallback)
    if not quiet:
        typer.echo(
            f"No pipeline matched ({answer.decision['reason']}): Skill mode — follow SKILL.md",
            err=True,
        )
    raise typer.Exit(EXIT_SKILL)


@cli.command()
def resume(
    session: Annotated[
        str, typer.Argument(metavar="SESSION", help="The session id printed with needs_llm.")
    ],
    output: Annotated[
        str, typer.Option("--output", "-o", help="The answer: a FILE, or - for stdin.")
    ],
    field: FieldOpt = None,
    as_json: JsonFlag = False,
    quiet: QuietFlag = False,
) -> None:
    """Answer a paused llm step and carry the run on."""
    from .config import state_home
    from .delegation import resume as resume_session

    try:
        answer = sys.stdin.read() if output == "-" else _read_answer(output)
        result = resume_session(state_home(), session, answer, listener=None if quiet else progress)
    except AppRunError as exc:
        fail(exc)
    report(result, as_json, field)


def _read_answer(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read --output {path}: {exc.strerror}") from None


@cli.command()
def abandon(
    session: Annotated[str, typer.Argument(metavar="SESSION", help="The session id.")],
    as_json: JsonFlag = False,
    quiet: QuietFlag = False,
) -> None:
    """Give up on a paused run: the business pipeline fails, the destructor runs."""
    from .config import state_home
    from .delegation import abandon as abandon_session

    try:
        result = abandon_session(state_home(), session, listener=None if quiet else progress)
    except AppRunError as exc:
        fail(exc)
    report(result, as_json)


@cli.command()
def sessions(
    clean: Annotated[
        bool, typer.Option("--clean", help="Remove ended sessions; abandon stale paused ones.")
    ] = False,
    older_than: Annotated[
        float, typer.Option(help="With --clean: hours after which a paused session is stale.")
    ] = 24.0,
    as_json: JsonFlag = False,
) -> None:
    """List host-delegation sessions (paused runs waiting for an answer)."""
    from .config import state_home
    from .delegation import clean as clean_sessions
    from .delegation import list_sessions

    try:
        rows = (
            clean_sessions(state_home(), older_than_hours=older_than)
            if clean
            else list_sessions(state_home())
        )
    except AppRunError as exc:
        fail(exc)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        typer.echo(session_line(row, removed=clean))


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


@cli.command("test")
def test_fixtures(
    app_dir: AppDir,
    pipelines: Annotated[
        list[str] | None, typer.Argument(metavar="[PIPELINE]...", help="Default: every one.")
    ] = None,
    update: Annotated[
        bool, typer.Option("--update", help="Accept the outputs: write samples/expected.json.")
    ] = False,
    as_json: JsonFlag = False,
    quiet: QuietFlag = True,
) -> None:
    """Run each pipeline on its samples/ (recorded answers, no LLM); compare with expected.json."""
    from .app import load_app
    from .config import load_config
    from .fixtures import run_fixtures

    try:
        app = load_app(app_dir)
        results = run_fixtures(
            app,
            pipelines or [],
            config=load_config(app.root),
            update=update,
            listener=None if quiet else progress,
        )
    except AppRunError as exc:
        fail(exc)
    if as_json:
        emit_json([r.to_dict() for r in results])
    else:
        for r in results:
            typer.echo(f"{r.status:8} {r.pipeline}  {r.detail}")
        counts = {s: sum(r.status == s for r in results) for s in ("passed", "failed", "skipped")}
        typer.echo(
            f"{counts['passed']} passed, {counts['failed']} failed"
            + (f", {counts['skipped']} skipped" if counts["skipped"] else "")
        )
    raise typer.Exit(1 if any(r.status == "failed" for r in results) else 0)


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
