"""Host-delegation commands: resume, abandon, sessions."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from skill2app.runtime.cli.completion import (
    complete_sessions,
)
from skill2app.runtime.cli.output import emit_json, out, progress, read_stdin, report, say
from skill2app.runtime.cli.parser import Parser, command, field_option, json_flag, quiet_flag
from skill2app.runtime.errors import LoadError, UsageError
from skill2app.runtime.records.display import clean_line, counted, error_lines


def register(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = command(commands, resume, "resume")
    complete_sessions(
        parser.add_argument(
            "session", metavar="SESSION", help="The session id printed with needs_llm."
        )
    )
    parser.add_argument(
        "--answer",
        metavar="FILE|-",
        help="The answer: a FILE, or - to read it from stdin (what the printed resume command "
        "uses). Required.",
    )
    # -o/--output: the old spelling, for one more release (a note on stderr says so)
    parser.add_argument("-o", "--output", dest="old_answer", help=argparse.SUPPRESS)
    field_option(parser)
    json_flag(parser)
    quiet_flag(parser)

    parser = command(commands, abandon, "abandon")
    complete_sessions(parser.add_argument("session", metavar="SESSION", help="The session id."))
    json_flag(parser)
    quiet_flag(parser)

    parser = command(commands, sessions, "sessions")
    parser.add_argument(
        "--all",
        dest="show_all",
        action="store_true",
        help="List every session: ended (succeeded, failed, abandoned) and corrupt ones too.",
    )
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

    source = _answer_option(args)
    answer = _read_stdin() if source == "-" else _read_answer(source)
    listener = None if args.quiet else progress
    result = resume_session(state_home(), args.session, answer, listener=listener)
    return report(result, args.as_json, args.field)


def _answer_option(args: argparse.Namespace) -> str:
    """--answer's value; the deprecated -o/--output still works, with a note."""
    if args.old_answer is not None:
        if args.answer is not None:
            raise UsageError("--answer and -o/--output are the same option", hint="keep --answer")
        say(["Note: -o/--output is deprecated: use --answer (the same meaning)"])
        return str(args.old_answer)
    if args.answer is None:
        raise UsageError(
            "resume needs --answer FILE|-", hint="give the file holding the answer, or - for stdin"
        )
    return str(args.answer)


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
            f"cannot read --answer {path}: {exc.strerror}",
            hint="give the file holding the answer, or - to read it from stdin",
        ) from None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"--answer {path} is not UTF-8 text (byte {exc.start})", hint="save it as UTF-8"
        ) from None


def abandon(args: argparse.Namespace) -> int:
    """Give up on a paused run: the pipeline it paused in fails.

    Paused in the business pipeline: it fails and the destructor runs. Paused in
    _constructor: the constructor fails and, as after any constructor failure, the business
    pipeline never ran and the destructor does not run. Either way: exit 0 and one line saying
    what happened. A destructor that fails: exit 5. A session whose destructor cannot run (it
    fails `check`) is not ended: abandon it again once that is fixed (exit 3). One whose APP
    is gone is ended without its destructor (exit 3).
    """
    from skill2app.runtime.app.config import state_home
    from skill2app.runtime.host.delegation import abandon as abandon_session
    from skill2app.runtime.records.result import EXIT_DESTRUCTOR

    listener = None if args.quiet else progress
    result = abandon_session(state_home(), args.session, listener=listener)
    if result.signal is not None or result.status not in ("failed", "constructor_failed"):
        return report(result, args.as_json)  # interrupted: not what was asked for
    error = result.destructor.error if result.destructor is not None else None
    if args.as_json:
        emit_json({**result.to_dict(), "status": "abandoned", "session": args.session})
    say([abandoned_line(args.session, result)])
    if error is not None:
        lines = error_lines(error)
        say([f"Error: destructor failed — {lines[0]}", *lines[1:]])
    if result.record_error:
        say([f"Warning: {result.record_error} — the session was abandoned all the same"])
    return EXIT_DESTRUCTOR if error is not None else 0


def abandoned_line(session: str, result: Any) -> str:
    """What `abandon` did, in one line."""
    if result.status == "constructor_failed":
        return (
            f"abandoned {session} in _constructor: the business pipeline never ran, so no "
            "destructor was due"
        )
    stopped = f"abandoned {session}: pipeline {result.pipeline!r} stopped"
    if result.destructor is None:
        return f"{stopped} (it has no destructor)"
    return f"{stopped}; the destructor {'ran' if result.destructor.error is None else 'failed'}"


def sessions(args: argparse.Namespace) -> int:
    """List paused host-delegation sessions (runs waiting for an answer); --all: every one.

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
    if args.clean and args.show_all:
        raise UsageError("--clean looks at every session already", hint="drop --all")
    if args.clean:
        rows = clean_sessions(state_home(), older_than_hours=older_than)
        if args.as_json:
            emit_json(rows)
        for row in [] if args.as_json else rows:
            out(clean_line(row))
    else:
        every = list_sessions(state_home())
        rows = every if args.show_all else [r for r in every if r["status"] == "paused"]
        if args.as_json:
            emit_json(rows)
        else:
            for line in session_table(rows):
                out(line)
            _say_hidden(len(rows), len(every) - len(rows))
    # a session not ended, or ended without its destructor (its APP gone): as `abandon`, exit 3
    return LoadError.exit_code if any(row.get("error") for row in rows) else 0


HEADER = ("SESSION", "STATUS", "PIPELINE", "STEP", "AGE")


def session_table(rows: list[dict[str, Any]]) -> list[str]:
    """The sessions under a header row, in aligned columns (no rows: no lines)."""
    if not rows:
        return []
    table = [list(HEADER)]
    for row in rows:
        if row["status"] == "corrupt":
            why = "(cannot be read: `app-run sessions --clean` removes it)"
            table.append([row["session"], "corrupt", why, "", ""])
        else:
            step, age = row.get("step") or "-", f"{row.get('age_hours', 0)}h"
            table.append([row["session"], row["status"], row["pipeline"], step, age])
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in table
    ]


def _say_hidden(shown: int, hidden: int) -> None:
    """On stderr: that there is nothing to show, or what --all would show too."""
    more = f"{counted(hidden, 'ended or corrupt session')} not shown: --all lists them"
    if not shown:
        say([f"no paused sessions ({more})" if hidden else "no paused sessions"])
    elif hidden:
        say([f"({more})"])
