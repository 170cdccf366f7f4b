"""What app-run prints: results and errors, JSON on stdout, lines for people on stderr.

Exit codes (also in docs/app-run.md):
  0 success · 1 pipeline failed · 2 usage or input error · 3 APP invalid (check errors)
  4 constructor failed · 5 destructor failed (business output still printed)
  6 paused for the host agent (needs_llm) · 7 no match (Skill mode)
  8 unsure: pick a pipeline (needs_route) · 9 inputs missing (needs_input)
  70 internal error · 74 stdout could not be written (disk full, device error)
  130 interrupted by SIGINT · 143 terminated by SIGTERM
  141 stdout closed by its reader before all was printed
"""

from __future__ import annotations

import json
import sys
from typing import Any

from skill2app.runtime.errors import AppRunError, UsageError
from skill2app.runtime.records.display import (
    constructor_warnings,
    error_lines,
    pause_line,
    progress_lines,
    select_field,
    terminal_safe,
)

EXIT_USAGE = 2

EXIT_INTERNAL = 70

EXIT_INTERRUPTED = 130

EXIT_PIPE = 141  # 128 + SIGPIPE, as a shell reports a program killed by it

EXIT_IO = 74  # stdout could not be written (sysexits' EX_IOERR): disk full, device error


class StdoutFailed(Exception):
    """stdout refused a write for another reason than its reader going away."""


def out(text: str, end: str = "\n", *, escape: bool = True) -> None:
    """Text for programs, on stdout.  What stdout's encoding cannot hold (a lone surrogate a
    step printed as a JSON escape; anything but ASCII under ``PYTHONIOENCODING=ascii``) is
    written as a backslash escape; with ``escape=False`` the UnicodeEncodeError is raised,
    before anything was written, for the caller to say it another way (``emit_json``)."""
    try:
        try:
            print(text, end=end, file=sys.stdout, flush=True)
        except UnicodeEncodeError:
            if not escape:
                raise
            encoding = sys.stdout.encoding or "utf-8"
            text = text.encode(encoding, "backslashreplace").decode(encoding)
            print(text, end=end, file=sys.stdout, flush=True)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise StdoutFailed(exc.strerror or str(exc)) from exc


def show(text: str) -> None:
    """Lines for people on stdout (a listing, a table), each made terminal-safe as ``say``
    does on stderr: an APP's descriptions and triggers, a step's detail, a learned request
    are shown, never obeyed by the terminal."""
    out("\n".join(terminal_safe(line) for line in text.split("\n")))


def read_stdin() -> str:
    """All of standard input as UTF-8 text; bytes that are not UTF-8 raise UnicodeDecodeError
    (exit 2) rather than turning into surrogates that fail later.  A closed standard input
    (``0<&-``) is a usage error."""
    from skill2app.runtime.run.inputs import MAX_INPUT_BYTES  # bounded: `< /dev/zero` too

    if sys.stdin is None:
        raise UsageError("standard input is closed", hint="pipe the text in, or name a FILE")
    raw = getattr(sys.stdin, "buffer", None)
    data = raw.read(MAX_INPUT_BYTES + 1) if raw is not None else sys.stdin.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(
            f"standard input holds more than {MAX_INPUT_BYTES:,} bytes", hint="send less"
        )
    return data.decode("utf-8-sig") if isinstance(data, bytes) else data


def say(lines: list[str]) -> None:
    """Lines for people, on stderr."""
    for line in lines:
        print(terminal_safe(line), file=sys.stderr, flush=True)  # names, stderr: never obeyed


def emit_json(data: Any) -> None:
    """``data`` as JSON on stdout: as UTF-8 text, or all in ASCII escapes (still the same JSON)
    where stdout cannot hold the text (a lone surrogate, an ASCII-only stdout)."""
    try:
        out(json.dumps(data, ensure_ascii=False, indent=2), escape=False)
    except UnicodeEncodeError:
        out(json.dumps(data, ensure_ascii=True, indent=2))


def fail(error: BaseException, debug: bool = False) -> int:
    """Print one line for an error (and its traceback with --debug); the exit code to end with."""
    if debug:
        import traceback

        traceback.print_exception(error)
    if isinstance(error, AppRunError):
        lines = error_lines(error)
        say([f"Error: {lines[0]}", *lines[1:]])
        return error.exit_code
    say([f"Error: internal error: {error!r} — rerun with --debug and report it"])
    return EXIT_INTERNAL


def report(result: Any, as_json: bool, field: str | None = None) -> int:
    """Print a RunResult: the output on stdout, errors (and the constructor's warnings) on
    stderr; its exit code."""
    say([f"Warning: constructor: {text}" for text in constructor_warnings(result)])
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
    if getattr(result, "signal", None) is not None:
        import signal

        name, code = signal.Signals(result.signal).name, 128 + result.signal
        say([f"Stopped by {name} while the destructor ran: it was let finish (exit {code})"])
    if result.record_error:
        fix = "check the free space and permissions of APP_RUN_HOME; the run itself went on"
        say([f"Warning: {result.record_error} — {fix}"])
    return int(result.exit_code)


def _print_output(output: Any, field: str | None) -> None:
    """The pipeline's output as JSON; with --field, one part of it (a string as plain text).
    A field that is not there raises UsageError (shown as the error, exit 2)."""
    if field:
        output = select_field(output, field)
        if isinstance(output, str):
            out(output.rstrip("\n"))
            return
    emit_json(output)


def progress(event: dict[str, Any]) -> None:
    say(progress_lines(event))
