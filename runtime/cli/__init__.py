"""The `app-run` command line, on the standard library's argparse (typer imports pydantic while
it parses, ~100 ms a call). The only package of the runtime that prints: this module holds the
parser factory, the shared options, how results and errors are printed and the entry point;
``pipelines`` (check, list, run, route, ask, test), ``records`` (log, schema) and ``sessions``
(resume, abandon, sessions) each register their commands and hold them. A command gets the
parsed arguments and returns its exit code; an error it raises is shown here, as one line.

Exit codes (also in README.md):
  0 success · 1 pipeline failed · 2 usage or input error · 3 APP invalid (check errors)
  4 constructor failed · 5 destructor failed (business output still printed)
  130 interrupted by SIGINT · 143 terminated by SIGTERM · 70 internal error
  141 stdout closed by its reader before all was printed
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from runtime import __version__
from runtime.display import (
    error_lines,
    pause_line,
    progress_lines,
    select_field,
)
from runtime.errors import AppRunError, UsageError

EXIT_USAGE = 2
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
EXIT_PIPE = 141  # 128 + SIGPIPE, as a shell reports a program killed by it
EXIT_IO = 74  # stdout could not be written (sysexits' EX_IOERR): disk full, device error

Handler = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """argparse with app-run's one-line usage error (exit 2), no abbreviated options, and
    (``intermixed``: a command's parser) options anywhere among the arguments."""

    def __init__(self, *args: Any, intermixed: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self.intermixed = intermixed

    json_errors = False  # --json was given: a usage error is an object on stdout too

    def error(self, message: str) -> NoReturn:
        usage_error(message, f"see `{self.prog} --help`", as_json=Parser.json_errors)
        self.exit(EXIT_USAGE)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if not self.intermixed:
            return super().parse_known_args(args, namespace)
        self.intermixed = False  # parse_known_intermixed_args calls this method back
        try:
            parsed, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self.intermixed = True
        if extras:  # named here, so the message points at this command's --help
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def build_parser() -> Parser:
    """The whole command line: global options, then one sub-command per command."""
    from . import pipelines, records, sessions

    parser = Parser(
        prog="app-run",
        description=(
            "Run APPs (Agent Pipeline Protocol v0.4): check, list, run pipelines, read run logs."
        ),
        epilog=(
            'app-run APP_DIR "request" is short for app-run ask APP_DIR "request".\n'
            "exit codes: 0 ok, 1 pipeline failed, 2 usage/input error, 3 APP invalid, "
            "4 constructor failed,\n5 destructor failed, 6 paused for the host agent (needs_llm), "
            "7 no match (Skill mode),\n70 internal error, 130/143 interrupted, "
            "141 stdout closed early."
        ),
    )
    parser.add_argument("--debug", action="store_true", help="Show tracebacks.")
    parser.add_argument(
        "--version", action="version", version=f"app-run {__version__}", help="Show version."
    )
    commands = parser.add_subparsers(
        title="commands", metavar="COMMAND", dest="command", required=True
    )
    for module in (pipelines, records, sessions):
        module.register(commands)
    return parser


def command(commands: argparse._SubParsersAction[Parser], handler: Handler, name: str) -> Parser:
    """Add the command ``name`` running ``handler``; the handler's docstring is its help."""
    from textwrap import dedent

    first, _, rest = (handler.__doc__ or "").strip().partition("\n")
    description = f"{first}\n{dedent(rest)}".strip()
    parser = commands.add_parser(name, help=first, description=description, intermixed=True)
    parser.set_defaults(handler=handler)
    # --debug is global, but error messages say "rerun with --debug": accept it anywhere
    # (SUPPRESS: not given here, the global value stands).
    parser.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="Show tracebacks."
    )
    return parser


# --- options shared by several commands -----------------------------------------------------


def app_dir_argument(parser: Parser) -> None:
    parser.add_argument(
        "app_dir",
        metavar="APP_DIR",
        type=Path,
        help="The APP folder (holds SKILL.md and pipelines/).",
    )


def json_flag(parser: Parser) -> None:
    parser.add_argument(
        "--json", dest="as_json", action="store_true", help="Machine-readable output on stdout."
    )


def quiet_flag(parser: Parser, default: bool = False) -> None:
    more = " (default: %(default)s)" if default else ""
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=default, help=f"No progress on stderr.{more}"
    )


def input_options(parser: Parser) -> None:
    parser.add_argument(
        "-i",
        "--input",
        dest="input_pairs",
        action="append",
        metavar="KEY=VALUE",
        help="An input as key=value (repeatable).",
    )
    parser.add_argument("--input-json", metavar="FILE", help="Inputs as a JSON object: FILE or -.")


def provider_options(parser: Parser) -> None:
    parser.add_argument(
        "--provider", metavar="NAME", help="LLM provider: anthropic | local | scripted | none."
    )
    parser.add_argument("--answers", metavar="FILE", help="Answers file for the scripted provider.")


def delegate_flag(parser: Parser) -> None:
    parser.add_argument(
        "--delegate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="With no provider, pause at llm steps for the calling agent (exit 6)."
        " (default: --delegate)",
    )


def field_option(parser: Parser) -> None:
    parser.add_argument(
        "--field",
        metavar="PATH",
        help="Print only this field of the output (dot path); a string prints as plain text.",
    )


# --- output -----------------------------------------------------------------------------------


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


def read_stdin() -> str:
    """All of standard input as UTF-8 text; bytes that are not UTF-8 raise UnicodeDecodeError
    (exit 2) rather than turning into surrogates that fail later.  A closed standard input
    (``0<&-``) is a usage error."""
    if sys.stdin is None:
        raise UsageError("standard input is closed", hint="pipe the text in, or name a FILE")
    raw = getattr(sys.stdin, "buffer", None)
    return raw.read().decode("utf-8-sig") if raw is not None else sys.stdin.read()


def say(lines: list[str]) -> None:
    """Lines for people, on stderr."""
    for line in lines:
        print(line, file=sys.stderr, flush=True)


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
    """Print a RunResult: the output on stdout, errors on stderr; its exit code."""
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


# --- entry point ------------------------------------------------------------------------------

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
    if index is None or args[index] in COMMANDS:
        return args
    word = args[index]
    if Path(word).is_dir() or word.startswith((".", "~", "/")) or os.sep in word:
        args.insert(index, "ask")  # a missing folder then gets "not a directory", not a usage
    return args


def app_run(argv: Sequence[str] | None = None) -> int:
    """`app-run ARGV` (default: ``sys.argv[1:]``) in-process; returns the exit code. No
    traceback escapes unless --debug was given."""
    args = shorthand([str(a) for a in (sys.argv[1:] if argv is None else argv)])
    debug = as_json = False
    Parser.json_errors = "--json" in args
    for arg in args:
        if not _utf8(arg):  # Linux hands over undecodable bytes as lone surrogates
            shown = arg.encode("utf-8", "backslashreplace").decode("utf-8")
            message = f"the argument '{shown}' is not UTF-8 text"
            usage_error(message, "retype it in UTF-8", as_json=Parser.json_errors)
            return EXIT_USAGE
    try:
        parser = build_parser()
        if not args:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        try:
            parsed = parser.parse_args(args)
        except SystemExit as done:  # --help, --version and usage errors end the parse
            return int(done.code or 0)
        debug, as_json = parsed.debug, getattr(parsed, "as_json", False)
        handler: Handler = parsed.handler
        return handler(parsed)
    except KeyboardInterrupt:
        say(["Error: interrupted"])
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`app-run list --json | head -1`)
        _drop_stdout()
        return EXIT_PIPE
    except StdoutFailed as exc:
        _drop_stdout()
        say([f"Error: cannot write to stdout: {exc} — free space or write the output elsewhere"])
        return EXIT_IO
    except UnicodeDecodeError as exc:  # standard input that is not UTF-8
        message = f"the input is not UTF-8 text (byte {exc.start})"
        usage_error(message, "convert it to UTF-8", as_json=as_json or Parser.json_errors)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - the one place that turns errors into a message
        code = fail(exc, debug)
        if as_json or Parser.json_errors:  # --json promises one object on stdout
            from runtime.result import error_dict

            error = (
                error_dict(exc)
                if isinstance(exc, AppRunError)
                else {"type": "InternalError", "message": repr(exc), "hint": "rerun with --debug"}
            )
            with contextlib.suppress(OSError, StdoutFailed):
                emit_json({"status": "error", "exit_code": code, "error": error})
        return code


def usage_error(message: str, hint: str, as_json: bool) -> None:
    """A usage error before any command ran: one line on stderr (and the --json object)."""
    say([f"Error: {message} — {hint}"])
    if as_json:
        error = {"type": "UsageError", "message": message, "hint": hint}
        with contextlib.suppress(OSError, StdoutFailed):
            emit_json({"status": "error", "exit_code": EXIT_USAGE, "error": error})


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Console entry point: run `app-run` and exit with its code."""
    sys.exit(app_run(argv))
