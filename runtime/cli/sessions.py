"""Host-delegation commands: resume, abandon, sessions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from runtime.display import session_line
from runtime.errors import AppRunError, UsageError

from . import (
    FieldOpt,
    JsonFlag,
    QuietFlag,
    cli,
    emit_json,
    fail,
    progress,
    report,
)


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
    from runtime.config import state_home
    from runtime.delegation import resume as resume_session

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
    from runtime.config import state_home
    from runtime.delegation import abandon as abandon_session

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
    from runtime.config import state_home
    from runtime.delegation import clean as clean_sessions
    from runtime.delegation import list_sessions

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
