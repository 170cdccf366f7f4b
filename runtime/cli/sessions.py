"""Host-delegation commands: resume, abandon, sessions."""

from __future__ import annotations

import argparse
from pathlib import Path

from skill2app.runtime.cli.output import emit_json, out, progress, read_stdin, report
from skill2app.runtime.cli.parser import Parser, command, field_option, json_flag, quiet_flag
from skill2app.runtime.errors import LoadError, UsageError
from skill2app.runtime.records.display import clean_line, session_line


def register(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = command(commands, resume, "resume")
    parser.add_argument("session", metavar="SESSION", help="The session id printed with needs_llm.")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="The answer: a FILE, or - for stdin (what the printed resume command uses).",
    )
    field_option(parser)
    json_flag(parser)
    quiet_flag(parser)

    parser = command(commands, abandon, "abandon")
    parser.add_argument("session", metavar="SESSION", help="The session id.")
    json_flag(parser)
    quiet_flag(parser)

    parser = command(commands, sessions, "sessions")
    parser.add_argument(
        "--clean",
        action="store_true",
        help="Remove ended and corrupt sessions; abandon stale paused ones (not those in use).",
    )
    parser.add_argument(
        "--older-than",
        type=float,
        default=None,
        metavar="HOURS",
        help="With --clean: hours after which a paused session is stale. (default: 24)",
    )
    json_flag(parser)


def resume(args: argparse.Namespace) -> int:
    """Answer a paused llm step and carry the run on."""
    from skill2app.runtime.app.config import state_home
    from skill2app.runtime.host.delegation import resume as resume_session

    answer = _read_stdin() if args.output == "-" else _read_answer(args.output)
    listener = None if args.quiet else progress
    result = resume_session(state_home(), args.session, answer, listener=listener)
    return report(result, args.as_json, args.field)


def _read_stdin() -> str:
    try:
        return read_stdin()
    except UnicodeDecodeError as exc:  # a UsageError, so that --json prints its object too
        raise UsageError(
            f"the answer on stdin is not UTF-8 text (byte {exc.start})", hint="send it as UTF-8"
        ) from None


def _read_answer(path: str) -> str:
    from skill2app.runtime.run.inputs import read_limited  # bounded: /dev/zero too

    try:
        return read_limited(Path(path)).decode("utf-8-sig")  # a BOM, as on stdin, is not JSON
    except OSError as exc:
        raise UsageError(
            f"cannot read --output {path}: {exc.strerror}",
            hint="give the file holding the answer, or - to read it from stdin",
        ) from None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"--output {path} is not UTF-8 text (byte {exc.start})", hint="save it as UTF-8"
        ) from None


def abandon(args: argparse.Namespace) -> int:
    """Give up on a paused run: the pipeline it paused in fails.

    Paused in the business pipeline: it fails and the destructor runs (exit 1). Paused in
    _constructor: the constructor fails and, as after any constructor failure, the business
    pipeline never ran and the destructor does not run (exit 4). A session whose destructor
    cannot run (it fails `check`) is not ended: abandon it again once that is fixed (exit 3).
    One whose APP is gone is ended without its destructor (exit 3).
    """
    from skill2app.runtime.app.config import state_home
    from skill2app.runtime.host.delegation import abandon as abandon_session

    listener = None if args.quiet else progress
    result = abandon_session(state_home(), args.session, listener=listener)
    return report(result, args.as_json)


def sessions(args: argparse.Namespace) -> int:
    """List host-delegation sessions (paused runs waiting for an answer).

    With --clean: remove ended and corrupt sessions, abandon (destructor included) and remove
    paused ones older than --older-than hours; one line each. A session another app-run is
    resuming or abandoning is skipped, never removed. Exit 3 if a session could not be ended
    (it is kept) or was ended without its destructor (its APP is gone).
    """
    from skill2app.runtime.app.config import state_home
    from skill2app.runtime.host.delegation import clean as clean_sessions
    from skill2app.runtime.host.session import list_sessions

    older_than = 24.0 if args.older_than is None else args.older_than
    if args.older_than is not None and not args.clean:
        raise UsageError("--older-than goes with --clean", hint="add --clean, or drop it")
    if not older_than >= 0:  # NaN too
        raise UsageError(f"--older-than {args.older_than} is not a number of hours ≥ 0")
    rows = (
        clean_sessions(state_home(), older_than_hours=older_than)
        if args.clean
        else list_sessions(state_home())
    )
    if args.as_json:
        emit_json(rows)
    else:
        for row in rows:
            out(clean_line(row) if args.clean else session_line(row))
    # a session not ended, or ended without its destructor (its APP gone): as `abandon`, exit 3
    return LoadError.exit_code if any(row.get("error") for row in rows) else 0
