"""``app-convert``: turn an Agent Skill into an APP.  The only converter module importing typer.

It parses the command line, calls ``converter.convert.convert`` and prints what it returns:
the conversion report on stderr (``--json``: as JSON on stdout), progress on stderr, and
errors as one line ``Error: <what> (<file>:<line>) — <how to fix>`` (tracebacks only with
``--debug``).

Exit codes:
  0   converted and verified (or, with --plan-only, the plan written: -o - prints it on stdout)
  1   the analyzer, rendering or writing failed
  2   bad command line (unknown analyzer, conflicting options); --probe or --smoke where
      no sandbox (bubblewrap) is available, without --unsafe-no-sandbox
  3   the skill or the plan is invalid (no SKILL.md, broken frontmatter, a plan that fails
      its schema or does not fit the skill: unknown program, flag or reference)
  4   output exists: pipelines/, a generated README, a non-empty --out folder or the -o
      plan file (--force replaces it, keeping pipelines it did not generate, and reports
      what it overwrote or removed; SKILL.md and the programs are never touched)
  5   the APP was written but verification failed (app-run check, compiling, argument
      mappings or --smoke); the report says what
  70  internal error (a bug: rerun with --debug and report it)
"""

from __future__ import annotations

import json
import os
import traceback
from pathlib import Path
from typing import Annotated

import typer

from skill2app.converter.analyzers import ANALYZERS
from skill2app.converter.convert import Options, convert, is_stdout
from skill2app.converter.errors import ConvertError, PlanError, UsageError
from skill2app.runtime import __version__

EXIT_UNVERIFIED = 5
EXIT_INTERNAL = 70
EPILOG = (
    "Exit codes: 0 converted and verified (or plan written), 1 analyzer, render or write "
    "failed, 2 bad command line, 3 invalid skill or plan, 4 output exists (--force), "
    "5 written but verification failed, 70 internal error."
)

cli = typer.Typer(
    name="app-convert",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


SkillDir = Annotated[
    Path, typer.Argument(metavar="SKILL_DIR", help="The skill folder (holds SKILL.md).")
]
Out = Annotated[
    Path | None,
    typer.Option("--out", metavar="DIR", help="Write the APP into a copy of the skill here."),
]
Analyzer = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help=f"{' | '.join(ANALYZERS)} (default: llm when ANTHROPIC_API_KEY is set).",
    ),
]
PlanOnly = Annotated[
    bool, typer.Option("--plan-only", help="Only write the plan (-o FILE) for review.")
]
Output = Annotated[
    Path | None,
    typer.Option("-o", "--output", metavar="FILE", help="Plan file to write (-: stdout)."),
]
PlanFile = Annotated[
    Path | None,
    typer.Option("--plan", metavar="FILE", help="Render this (edited) plan; no analysis."),
]
Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace what an earlier conversion generated (pipelines/ it made, its README; "
        "-o FILE; a non-empty --out DIR); the report lists what was overwritten or removed.",
    ),
]
Smoke = Annotated[
    bool, typer.Option("--smoke", help="Run each code step on its samples, in a temporary copy.")
]
Probe = Annotated[
    bool, typer.Option("--probe", help="Run the programs with --help to learn their flags.")
]
Unsafe = Annotated[
    bool,
    typer.Option(
        "--unsafe-no-sandbox",
        help="Run the skill's programs (--probe, --smoke) even without the bubblewrap sandbox.",
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="The report as JSON on stdout.")]
Debug = Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")]


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"app-convert {__version__}")
        raise typer.Exit()


Version = Annotated[
    bool,
    typer.Option(
        "--version", callback=_show_version, is_eager=True, help="Show the version and exit."
    ),
]


@cli.command(epilog=EPILOG)
def main_command(
    skill_dir: SkillDir,
    out: Out = None,
    analyzer: Analyzer = None,
    plan_only: PlanOnly = False,
    output: Output = None,
    plan: PlanFile = None,
    force: Force = False,
    smoke: Smoke = False,
    probe: Probe = False,
    unsafe_no_sandbox: Unsafe = False,
    as_json: AsJson = False,
    debug: Debug = False,
    version: Version = False,
) -> None:
    """Convert the Agent Skill in SKILL_DIR into an APP (Agent Pipeline Protocol v0.4).

    Adds pipelines/ and a README next to SKILL.md (or in a copy, with --out); SKILL.md and
    the skill's programs stay byte for byte as they were. The result is checked with
    app-run check before app-convert reports success.
    """
    options = Options(
        skill_dir=skill_dir,
        out=out,
        analyzer=analyzer,
        plan=plan,
        plan_only=plan_only,
        output=output,
        force=force,
        smoke=smoke,
        probe=probe,
        unsafe_no_sandbox=unsafe_no_sandbox,
        has_api_key=bool(os.environ.get("ANTHROPIC_API_KEY")),
    )
    try:
        if as_json and is_stdout(output):
            raise UsageError(
                "-o - and --json both write stdout", hint="drop --json, or name a plan file"
            )
        report = convert(options, progress=_progress)
    except ConvertError as err:
        _fail(err, as_json=as_json, debug=debug)
    except Exception as err:  # a bug: one line, the traceback with --debug
        if debug:
            raise
        typer.echo(
            f"Error: internal error: {type(err).__name__}: {err} — rerun with --debug and "
            "report it",
            err=True,
        )
        raise typer.Exit(EXIT_INTERNAL) from None
    if report.plan_text:  # -o -
        typer.echo(report.plan_text, nl=False)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    for line in report.human_lines():
        typer.echo(line, err=True)
    if not report.ok:
        typer.echo("Error: the APP was written but did not pass verification (see above)", err=True)
        raise typer.Exit(EXIT_UNVERIFIED)


def _progress(message: str) -> None:
    typer.echo(f"app-convert: {message}", err=True)


def _fail(err: ConvertError, *, as_json: bool, debug: bool) -> None:
    if debug:
        traceback.print_exc()
    typer.echo(f"Error: {err.one_line()}", err=True)
    more = err.errors[1:] if isinstance(err, PlanError) else []
    for message in more[:20]:
        typer.echo(f"  also: {message}", err=True)
    if as_json:
        error = {
            "type": type(err).__name__,
            "message": err.message,
            "file": str(err.where.file) if err.where else "",
            "line": err.where.line if err.where else 0,
            "hint": err.hint,
            "exit_code": err.exit_code,
            "errors": err.errors if isinstance(err, PlanError) else [],
        }
        typer.echo(json.dumps({"ok": False, "error": error}, ensure_ascii=False, indent=2))
    raise typer.Exit(err.exit_code)


def main() -> None:
    """Console script entry point (``app-convert``)."""
    cli(prog_name="app-convert")
