"""Commands about pipelines: check, list, run, route, ask, test."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from runtime.display import decision_lines
from runtime.errors import AppRunError, CheckFailed

from . import (
    AnswersOpt,
    AppDir,
    DelegateFlag,
    FieldOpt,
    InputJson,
    InputPairs,
    JsonFlag,
    ProviderOpt,
    QuietFlag,
    cli,
    emit_json,
    fail,
    progress,
    report,
)


@cli.command()
def check(app_dir: AppDir, as_json: JsonFlag = False) -> None:
    """Validate every pipeline of an APP without running anything."""
    from runtime.app import load_app
    from runtime.check import check_app, errors_in

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
    from runtime.app import load_app, routing_table

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
    from runtime.job import execute

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
    from runtime.job import decide

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
    from runtime.job import ask
    from runtime.skill_mode import EXIT_SKILL

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
    from runtime.app import load_app
    from runtime.config import load_config
    from runtime.fixtures import run_fixtures

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
