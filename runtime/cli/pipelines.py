"""Commands about pipelines: check, list, run, route, ask, test."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from skill2app.runtime.app import is_app_dir
from skill2app.runtime.cli.completion import (
    complete_folders,
    complete_pipelines,
)
from skill2app.runtime.cli.output import (
    emit_json,
    out,
    progress,
    read_stdin,
    report,
    say,
    show,
)
from skill2app.runtime.cli.parser import (
    Parser,
    app_dir_argument,
    command,
    delegate_flag,
    field_option,
    here_or,
    input_options,
    json_flag,
    provider_options,
    quiet_flag,
)
from skill2app.runtime.errors import CheckFailed
from skill2app.runtime.records.display import counted, decision_lines, warning_line


def register(commands: argparse._SubParsersAction[Parser]) -> None:
    for name, handler in (("check", check), ("list", list_pipelines)):
        parser = command(commands, handler, name)
        complete_folders(app_dir_argument(parser, optional=True))
        json_flag(parser)
        quiet_flag(parser)  # a common option: nothing here prints progress

    parser = command(commands, run, "run")
    complete_folders(app_dir_argument(parser))
    complete_pipelines(
        parser.add_argument("pipeline", metavar="PIPELINE", help="The business pipeline to run.")
    )
    parser.add_argument(
        "--request",
        metavar="TEXT",
        help="The user's words it runs for: inputs not given are read from them, missing ones "
        "are asked for (exit 9), and the choice is learned.",
    )
    input_options(parser)
    provider_options(parser)
    delegate_flag(parser)
    _output_options(parser)

    parser = command(commands, route_request, "route")
    _request_arguments(parser)
    _strategy_option(parser)
    provider_options(parser)
    json_flag(parser)
    quiet_flag(parser)

    parser = command(commands, ask_request, "ask")
    _request_arguments(parser)
    input_options(parser)
    _strategy_option(parser)
    provider_options(parser)
    delegate_flag(parser)
    parser.add_argument(
        "--agent", action="store_true", help="No match: run Skill mode here (needs a provider)."
    )
    parser.add_argument(
        "--max-turns", type=int, default=12, metavar="N", help="--agent: turn limit. (default: 12)"
    )
    parser.add_argument(
        "--skill-mode", action="store_true", help="Do not route: go straight to Skill mode."
    )
    _output_options(parser)

    parser = command(commands, test_fixtures, "test")
    complete_folders(app_dir_argument(parser, optional=True))
    complete_pipelines(
        parser.add_argument(
            "pipelines", metavar="PIPELINE", nargs="*", help="Pipelines to test. Default: all."
        )
    )
    parser.add_argument(
        "--update", action="store_true", help="Accept the outputs: write samples/expected.json."
    )
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="Run the programs in bubblewrap: no network, a private HOME and TMPDIR, nothing "
        "else writable but the sample's copy and its work folder (a sample never writes your "
        "own files).",
    )
    json_flag(parser)
    quiet_flag(parser, default=True)
    parser.add_argument(
        "-v",
        "--verbose",
        dest="quiet",
        action="store_false",
        help="Show each step's progress on stderr.",
    )


def _output_options(parser: Parser) -> None:
    """How commands that run a pipeline (run, ask) print."""
    field_option(parser)
    json_flag(parser)
    quiet_flag(parser)


def _request_arguments(parser: Parser) -> None:
    complete_folders(app_dir_argument(parser))
    parser.add_argument("request", metavar="REQUEST", help="The request, in plain words.")


def _strategy_option(parser: Parser) -> None:
    parser.add_argument("--strategy", metavar="NAME", help="Routing: embedded | llm | hybrid.")


def check(args: argparse.Namespace) -> int:
    """Validate every pipeline of an APP without running anything."""
    from skill2app.runtime.app.check import check_app, errors_in
    from skill2app.runtime.app.model import load_app

    args.app_dir = here_or(args.app_dir)
    diagnostics = check_app(load_app(args.app_dir), routes=True)
    errors = errors_in(diagnostics)
    if args.as_json:
        emit_json({"ok": not errors, "diagnostics": [d.to_dict() for d in diagnostics]})
    else:
        say([d.one_line() for d in diagnostics])
        warnings = len(diagnostics) - len(errors)
        verdict = "ok" if not errors else "invalid"
        counts = f"{counted(len(errors), 'error')}, {counted(warnings, 'warning')}"
        say([f"{args.app_dir}: {verdict} ({counts})"])
    return CheckFailed.exit_code if errors else 0


def list_pipelines(args: argparse.Namespace) -> int:
    """Print the routing table: every business pipeline's name, description and triggers."""
    from skill2app.runtime.ask import listing
    from skill2app.runtime.errors import LoadError

    table = listing(here_or(args.app_dir))
    broken = [row for row in table if row.get("error")]
    if args.as_json:
        emit_json(table)
    else:
        for row in table:
            show(f"{row['name']}\n  {row['description'] or '(cannot be read)'}")
            for trigger in row["triggers"]:
                show(f"  - {trigger}")
    for row in broken:
        say([f"Error: {row['error']}"])
    return LoadError.exit_code if broken else 0


def run(args: argparse.Namespace) -> int:
    """Run one pipeline, with its _constructor before and _destructor after."""
    from skill2app.runtime.ask import execute
    from skill2app.runtime.cli.handover import answered

    answer = execute(
        args.app_dir,
        args.pipeline,
        pairs=args.input_pairs or [],
        input_json=args.input_json,
        stdin_text=read_stdin() if args.input_json == "-" else None,
        provider=args.provider,
        answers=args.answers,
        listener=None if args.quiet else progress,
        delegate=args.delegate,
        request=args.request,
    )
    code = answered(answer, args)
    return report(answer.run, args.as_json, args.field) if code is None else code


def route_request(args: argparse.Namespace) -> int:
    """Only decide which pipeline a request goes to (nothing runs)."""
    from skill2app.runtime.ask import decide

    decision = decide(
        args.app_dir,
        args.request,
        strategy=args.strategy,
        provider=args.provider,
        answers=args.answers,
    )
    if args.as_json:
        emit_json(decision)
        return 0
    for line in decision_lines(decision):
        out(line)
    return 0


def ask_request(args: argparse.Namespace) -> int:
    """Route a request and run its pipeline (unsure: exit 8, no match: 7, inputs missing: 9).

    Unsure -> the candidates to choose from (exit 8); no match -> Skill mode (exit 7); inputs
    missing -> what to give (exit 9).

    `app-run APP_DIR "request"` is short for `app-run ask APP_DIR "request"`.
    """
    from skill2app.runtime.ask import ask
    from skill2app.runtime.cli.handover import answered
    from skill2app.runtime.host.skill_mode import EXIT_SKILL

    answer = ask(
        args.app_dir,
        args.request,
        pairs=args.input_pairs or [],
        input_json=args.input_json,
        stdin_text=read_stdin() if args.input_json == "-" else None,
        strategy=args.strategy,
        provider=args.provider,
        answers=args.answers,
        listener=None if args.quiet else progress,
        delegate=args.delegate,
        agent=args.agent,
        max_turns=args.max_turns,
        skill_mode=args.skill_mode,
    )
    code = answered(answer, args)
    if code is not None:
        return code
    if answer.agent is not None:
        emit_json(answer.agent)
        return int(answer.agent["exit_code"])
    decision = answer.decision
    if answer.run is not None:  # "→ pipeline" was shown as progress, before the steps
        return report(answer.run, args.as_json, args.field)
    fallback = answer.fallback or {}
    emit_json(fallback)
    if not args.quiet:
        then = "follow SKILL.md" if fallback.get("skill_md") else "the APP has no SKILL.md"
        say([f"No pipeline matched ({decision['reason']}): Skill mode — {then}"])
        say([f"Warning: {warning_line(w)}" for w in fallback.get("warnings", [])])
    return EXIT_SKILL


def test_fixtures(args: argparse.Namespace) -> int:
    """Run each pipeline on its samples/ (recorded answers, no LLM); compare with expected.json.

    Each pipeline is passed, failed, no expectation (it ran, but has no samples/expected.json:
    --update records it), placeholder (samples/placeholders.json marks its sample input as a
    placeholder: not run) or skipped (no samples/input.json). Exit 1 only when one failed.
    """
    from skill2app.runtime.app.config import load_config
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.records.fixtures import run_fixtures

    app_dir, names = _test_target(args.app_dir, args.pipelines or [])
    app = load_app(app_dir)
    results = run_fixtures(
        app,
        names,
        config=load_config(app.root),
        update=args.update,
        listener=None if args.quiet else progress,
        sandboxed=args.sandbox,
    )
    if args.as_json:
        emit_json([r.to_dict() for r in results])
    else:
        labels = [r.status.replace("_", " ") for r in results]
        label_width = max(map(len, labels), default=0)
        name_width = max((len(r.pipeline) for r in results), default=0)
        for label, r in zip(labels, results, strict=True):
            show(f"{label:{label_width}}  {r.pipeline:{name_width}}  {r.detail}")
        out(_test_summary([r.status for r in results], args.update))
    return 1 if any(r.status == "failed" for r in results) else 0


def _test_target(app_dir: Path | None, names: list[str]) -> tuple[Path, list[str]]:
    """`test [APP_DIR] [PIPELINE]...`: inside an APP, a first word that is not an APP folder
    (nor a path) is the first pipeline."""
    if app_dir is None:
        return here_or(None), names
    word = str(app_dir)
    if (
        not is_app_dir(app_dir)
        and "/" not in word
        and not app_dir.exists()
        and is_app_dir(Path("."))
    ):
        return Path("."), [word, *names]
    return app_dir, names


def _test_summary(statuses: list[str], update: bool) -> str:
    """``2 passed, 1 failed, 1 no expectation, 0 placeholders``; with --update ``recorded 3
    expectations`` and what was not recorded."""
    n = Counter(statuses)
    if update:
        parts = [f"recorded {counted(n['recorded'], 'expectation')}"]
        parts += [f"{n['failed']} failed"] if n["failed"] else []
        parts += [counted(n["placeholder"], "placeholder")] if n["placeholder"] else []
    else:
        parts = [f"{n['passed']} passed", f"{n['failed']} failed"]
        parts += [f"{n['no_expectation']} no expectation", counted(n["placeholder"], "placeholder")]
    parts += [f"{n['skipped']} skipped"] if n["skipped"] else []
    return ", ".join(parts)
