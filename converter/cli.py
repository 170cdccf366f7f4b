"""``app-convert``: turn an Agent Skill into an APP.  The only converter module importing typer.

It parses the command line, calls ``converter.convert.convert`` and prints what it returns:
the conversion report on stderr (``--json``: as JSON on stdout), progress on stderr, and
errors as one line ``Error: <what> (<file>:<line>) — <how to fix>`` (tracebacks only with
``--debug``).

Commands: ``app-convert SKILL_DIR [options]`` is short for ``app-convert convert SKILL_DIR
[options]`` (``DefaultCommand``: a first word that is no command and no option of the group
starts ``convert``). The host analyst's answers come back through ``app-convert resume SESSION
--answer FILE|-``; ``abandon SESSION`` and ``sessions [--clean]`` manage those sessions.  A
skill folder named like a command is given as ``./NAME``.

Exit codes:
  0   converted and verified (or, with --plan-only, the plan written: --out - prints it)
  1   the analyzer, rendering or writing failed
  2   bad command line (unknown analyzer, conflicting options); --probe or --smoke where
      no sandbox (bubblewrap) is available, without --unsafe-no-sandbox
  3   the skill or the plan is invalid (no SKILL.md, broken frontmatter, a plan that fails
      its schema or does not fit the skill: unknown program, flag or reference)
  4   output exists: pipelines/, a generated README, a non-empty --out folder or the
      --plan-only --out file (--force replaces it, keeping pipelines it did not generate,
      and reports what it overwrote or removed; SKILL.md and the programs are never touched)
  5   not verified: the APP was written but verification failed (app-run check, compiling,
      argument mappings, the routing self-test, files outside the skill, or --smoke); or the
      host analyst's attempts were used up and nothing was written; the report says what
  6   needs_llm: paused for the host agent's plan (--analyzer host; resume answers it)
  70  internal error (a bug: rerun with --debug and report it)
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from typer.core import TyperGroup

from skill2app.converter.analyzers import ANALYZERS
from skill2app.converter.analyzers.caller import calling_agent
from skill2app.converter.collection.conversion import convert, resume
from skill2app.converter.convert import Options, is_stdout
from skill2app.converter.errors import ConvertError, PlanError, UsageError
from skill2app.converter.verify.report import EachReport, Report
from skill2app.runtime import __version__
from skill2app.runtime.records.display import terminal_safe

EXIT_UNVERIFIED = 5
EXIT_NEEDS_LLM = 6
EXIT_INTERNAL = 70
EPILOG = (
    "Exit codes: 0 converted and verified (or plan written), 1 analyzer, render or write "
    "failed, 2 bad command line, 3 invalid skill or plan, 4 output exists (--force), "
    "5 not verified (written but verification failed; or the host analyst's attempts used "
    "up, nothing written), 6 paused for the host agent's plan (needs_llm), 70 internal error."
)

DEFAULT_COMMAND = "convert"


class DefaultCommand(TyperGroup):
    """A group whose first word, when it names no command, starts the default one:
    ``app-convert SKILL_DIR --json`` runs ``convert SKILL_DIR --json``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        own = {o for param in self.get_params(ctx) for o in param.opts}  # --help, --version, …
        if args and args[0] not in self.commands and args[0] not in own:
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)

    def shell_complete(self, ctx: Any, incomplete: str) -> list[Any]:
        """`app-convert --pl<TAB>`: the default command's options too."""
        found = list(super().shell_complete(ctx, incomplete))
        if incomplete.startswith("-"):
            found += self.commands[DEFAULT_COMMAND].shell_complete(ctx, incomplete)
        return found


cli = typer.Typer(
    name="app-convert",
    cls=DefaultCommand,
    no_args_is_help=True,
    subcommand_metavar="SKILL_DIR [OPTIONS] | COMMAND [ARGS]...",
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


SkillDir = Annotated[
    Path,
    typer.Argument(
        metavar="SKILL_DIR",
        help="The skill folder (holds SKILL.md), or a folder of skills (a collection: one APP "
        "of them all, or one each with --each).",
    ),
]
Each = Annotated[
    bool,
    typer.Option(
        "--each",
        help="A folder of skills: one APP per skill (with --out DIR: in DIR, each in its own "
        "folder as in the collection, so the files one skill takes from another stay reachable).",
    ),
]
AsOneSkill = Annotated[
    bool,
    typer.Option(
        "--as-one-skill",
        help="Treat SKILL_DIR as one skill even when folders below it hold skills of their own.",
    ),
]
Out = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="PATH",
        help="Where files go: a copy of the skill with the APP in it, in this folder (default: "
        "the APP is written next to SKILL.md); with --plan-only, the plan file (- for stdout).",
    ),
]
Analyzer = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help=f"{' | '.join(ANALYZERS)} (default: llm when ANTHROPIC_API_KEY is set, else host "
        "when a coding agent runs app-convert (CLAUDECODE, CODEX_THREAD_ID, CURSOR_AGENT, "
        "AI_AGENT…), else heuristic; host: the calling agent writes the plan — follow the "
        "JSON it prints).",
    ),
]
MaxAttempts = Annotated[
    int,
    typer.Option(
        "--max-attempts",
        metavar="N",
        help="How many plans an LLM analyst (host, llm) may give before app-convert gives up.",
    ),
]
Review = Annotated[
    bool,
    typer.Option(
        "--review/--no-review",
        help="Show an LLM analyst (host, llm) its passing plan once more when requests the "
        "skill quotes (or its own probes) reach no pipeline, leave the router unsure or land "
        "elsewhere, when its own triggers are matched to another pipeline, or when its steps "
        "ran programs through stand-ins.",
    ),
]
PlanOnly = Annotated[
    bool, typer.Option("--plan-only", help="Only write the plan (--out FILE) for review.")
]
Output = Annotated[  # the old spelling of --plan-only's --out FILE, kept for one release
    Path | None, typer.Option("-o", "--output", metavar="FILE", hidden=True)
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
        "the --plan-only file; a non-empty --out folder); the report lists what was "
        "overwritten or removed.",
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


@cli.callback(epilog=EPILOG)
def _main(version: Version = False) -> None:
    """Turn an Agent Skill into an APP (Agent Pipeline Protocol v0.4).

    app-convert SKILL_DIR [OPTIONS] is short for app-convert convert SKILL_DIR [OPTIONS]
    (see app-convert convert --help).
    """


@cli.command(DEFAULT_COMMAND, epilog=EPILOG)
def convert_command(
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
    max_attempts: MaxAttempts = 3,
    review: Review = True,
    each: Each = False,
    as_one_skill: AsOneSkill = False,
) -> None:
    """Convert the Agent Skill in SKILL_DIR into an APP (Agent Pipeline Protocol v0.4).

    Adds pipelines/ and a README next to SKILL.md (or in a copy, with --out); SKILL.md and
    the skill's programs stay byte for byte as they were. The result is checked with
    app-run check before app-convert reports success. A folder holding several skills (a
    collection) becomes one APP: each skill analysed on its own, pipeline names prefixed
    where two skills use one, one constructor, the folder's SKILL.md (or a generated one
    listing the skills) as the fallback; --each makes one APP per skill instead.
    """

    def run() -> Report | EachReport:
        app_out, plan_out = _out_paths(out, output, plan_only=plan_only)
        options = Options(
            skill_dir=skill_dir,
            out=app_out,
            analyzer=analyzer,
            plan=plan,
            plan_only=plan_only,
            output=plan_out,
            force=force,
            smoke=smoke,
            probe=probe,
            unsafe_no_sandbox=unsafe_no_sandbox,
            has_api_key=bool(os.environ.get("ANTHROPIC_API_KEY")),
            agent=calling_agent(os.environ),
            max_attempts=max_attempts,
            review=review,
            each=each,
            as_one_skill=as_one_skill,
        )
        if each and as_one_skill:
            raise UsageError("--each and --as-one-skill exclude each other", hint="give one")
        if as_json and is_stdout(plan_out):
            raise UsageError(
                "--out - and --json both write stdout", hint="drop --json, or name a plan file"
            )
        return convert(options, progress=_progress)

    _show(_guarded(run, as_json, debug), as_json)


@cli.command("resume", epilog=EPILOG)
def resume_command(
    session: Annotated[
        str, typer.Argument(metavar="SESSION", help="The session id app-convert printed.")
    ],
    answer: Annotated[
        str,
        typer.Option(
            "--answer",
            metavar="FILE|-",
            help="The plan (JSON or YAML): a FILE, or - to read it from stdin.",
        ),
    ] = "-",
    more: Annotated[
        int | None,
        typer.Option(
            "--max-attempts",
            metavar="N",
            help="Raise the session's bound on attempts to N (also reopens a session whose "
            "attempts were used up).",
        ),
    ] = None,
    debug: Debug = False,
) -> None:
    """Give the host agent's plan to a paused conversion (--analyzer host).

    The plan is checked, rendered into a temporary copy and verified; problems come back as
    needs_llm again (exit 6) with the attempt count, until the plan passes (the APP is
    written, exit 0) or the attempts are used up (nothing written, exit 5). Every outcome is
    one JSON object on stdout (the pause, or the report), for the agent that resumes.
    """
    text = _guarded(lambda: _read_answer(answer), True, debug)
    report = _guarded(
        lambda: resume(session, text, progress=_progress, max_attempts=more), True, debug
    )
    _show(report, True)


@cli.command("abandon")
def abandon_command(
    session: Annotated[str, typer.Argument(metavar="SESSION", help="The session to end.")],
    debug: Debug = False,
) -> None:
    """End a paused conversion; nothing is written."""
    from skill2app.converter.analyzers import host
    from skill2app.runtime.app.config import state_home

    _guarded(lambda: host.abandon(state_home(), session), False, debug)
    typer.echo(f"abandoned conversion session {session}; nothing was written", err=True)


@cli.command("sessions")
def sessions_command(
    clean: Annotated[
        bool,
        typer.Option(
            "--clean", help="Remove ended sessions, and paused ones not touched for 24 hours."
        ),
    ] = False,
    as_json: AsJson = False,
) -> None:
    """List the host analyst's conversion sessions (newest last)."""
    from skill2app.converter.analyzers import sessions
    from skill2app.runtime.app.config import state_home

    home = state_home()
    if clean:
        removed = sessions.clean(home)
        typer.echo(f"removed {len(removed)} conversion sessions", err=True)
    rows = sessions.list_sessions(home)
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    typer.echo(f"{'SESSION':<44} {'STATUS':<10} {'ATTEMPT':<8} SKILL")
    for row in rows:
        tries = f"{row.get('attempt')}/{row.get('max_attempts')}" if row.get("attempt") else "-"
        typer.echo(f"{row['session']:<44} {row['status']:<10} {tries:<8} {row.get('skill', '')}")


def _read_answer(answer: str) -> str:
    """The answer's text, at most one byte over its limit (``MAX_ANSWER_BYTES``: the loop says
    it is too large): `--answer /dev/zero` grew app-convert to 5 GB (an attack run)."""
    from skill2app.converter.analyzers.loop import MAX_ANSWER_BYTES

    if answer == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("no answer on stdin", hint="pipe the plan in, or pass --answer FILE")
        data = sys.stdin.buffer.read(MAX_ANSWER_BYTES + 1)
        return data.decode("utf-8-sig", errors="replace")
    try:
        with open(answer, "rb") as handle:
            return handle.read(MAX_ANSWER_BYTES + 1).decode("utf-8-sig", errors="replace")
    except OSError as exc:
        raise UsageError(
            f"cannot read the answer {answer}: {exc.strerror}", hint="check the --answer path"
        ) from exc


T = TypeVar("T")


def _guarded(call: Callable[[], T], as_json: bool, debug: bool) -> T:
    """``call()``; a known error ends the command with its one line and exit code."""
    try:
        return call()
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
    raise AssertionError("unreachable")  # _fail always exits


def _show(report: Report | EachReport, as_json: bool) -> None:
    """Print a report (or a pause) and end with its exit code."""
    if report.pause is not None:  # one JSON object on stdout, --json or not
        typer.echo(json.dumps(report.pause, ensure_ascii=False, indent=2))
        waiting = (
            "review of its plan (it passed; see where the skill's requests route)"
            if report.pause.get("step") == "review"
            else f"plan (attempt {report.pause['attempt']} of {report.pause['max_attempts']})"
        )
        typer.echo(
            f"app-convert: paused for the host agent's {waiting}: answer with "
            f"{report.pause['resume']}",
            err=True,
        )
        raise typer.Exit(EXIT_NEEDS_LLM)
    if report.plan_text:  # --plan-only --out -
        typer.echo(report.plan_text, nl=False)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    for line in report.human_lines():  # a skill's words and its programs' output: shown
        typer.echo(terminal_safe(line), err=True)  # never obeyed by the terminal
    if report.exhausted:
        typer.echo("Error: the analyst's attempts are used up; nothing was written", err=True)
        raise typer.Exit(EXIT_UNVERIFIED)
    if not report.ok:
        typer.echo("Error: the APP was written but did not pass verification (see above)", err=True)
        raise typer.Exit(EXIT_UNVERIFIED)


def _out_paths(
    out: Path | None, output: Path | None, *, plan_only: bool
) -> tuple[Path | None, Path | None]:
    """(the APP's folder, the plan file) from --out, or the old -o/--output (a note says so)."""
    if output is not None:
        typer.echo("Note: -o/--output is deprecated: use --out (the same meaning)", err=True)
        if out is not None:
            raise UsageError(
                "--out and -o/--output both given", hint="give --out only (with --plan-only: FILE)"
            )
        return None, output
    return (None, out) if plan_only else (out, None)


def _progress(message: str) -> None:
    typer.echo(f"app-convert: {terminal_safe(message)}", err=True)


def _fail(err: ConvertError, *, as_json: bool, debug: bool) -> None:
    if debug:
        traceback.print_exc()
    typer.echo(f"Error: {terminal_safe(err.one_line())}", err=True)
    more = err.errors[1:] if isinstance(err, PlanError) else []
    for message in more[:20]:
        typer.echo(f"  also: {terminal_safe(message)}", err=True)
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


if __name__ == "__main__":
    main()
