"""The `app-run` command line, on the standard library's argparse (typer imports pydantic while
it parses, ~100 ms a call). The only package of the runtime that prints: this package holds the
entry point and the whole parser; ``parser`` the parser class and the shared options,
``output`` how results and errors are printed;
``pipelines`` (check, list, run, route, ask, test), ``records`` (log, schema) and ``sessions``
(resume, abandon, sessions) each register their commands and hold them. A command gets the
parsed arguments and returns its exit code; an error it raises is shown here, as one line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from skill2app.runtime import __version__
from skill2app.runtime.cli import completion, pipelines, records, routes, serve, sessions
from skill2app.runtime.cli.output import (
    EXIT_INTERRUPTED,
    EXIT_IO,
    EXIT_PIPE,
    EXIT_USAGE,
    StdoutFailed,
    emit_json,
    fail,
    say,
)
from skill2app.runtime.cli.parser import Handler, Parser, usage_error
from skill2app.runtime.errors import AppRunError, UsageError


def build_parser() -> Parser:
    """The whole command line: global options, then one sub-command per command."""
    parser = Parser(
        prog="app-run",
        description=(
            "Run APPs (Agent Pipeline Protocol v0.4): check, list, run pipelines, read run logs."
        ),
        epilog=(
            'app-run APP_DIR "request" is short for app-run ask APP_DIR "request".\n'
            "exit codes: 0 ok, 1 pipeline failed, 2 usage/input error, 3 APP invalid, "
            "4 constructor failed,\n5 destructor failed, 6 paused for the host agent (needs_llm), "
            "7 no match (Skill mode),\n8 unsure: pick a pipeline (needs_route), 9 inputs missing "
            "(needs_input),\n70 internal error, 74 stdout could not be written, "
            "130/143 interrupted, 141 stdout closed early."
        ),
    )
    parser.add_argument("--debug", action="store_true", help="Show tracebacks.")
    parser.add_argument(
        "--version", action="version", version=f"app-run {__version__}", help="Show version."
    )
    completion.add_options(parser)
    commands = parser.add_subparsers(
        title="commands", metavar="COMMAND", dest="command", required=True
    )
    for module in (pipelines, records, sessions, serve, routes):
        module.register(commands)
    return parser


def command_names(parser: Parser) -> list[str]:
    """Every command's name, as registered."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def shorthand(argv: list[str], commands: Sequence[str] | None = None) -> list[str]:
    """`app-run APP_DIR "request" ...` means `app-run ask APP_DIR "request" ...`.

    A first word that is neither a command nor a folder: close to a command (``chek``), a
    usage error naming it; followed by a request, a missing APP folder (its error suggests a
    sibling folder); alone, an unknown command."""
    args = list(argv)
    commands = command_names(build_parser()) if commands is None else commands
    index = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
    if index is None or args[index] in commands or (index and args[index - 1] in completion.FLAGS):
        return args
    word = args[index]
    if Path(word).is_dir() or word.startswith((".", "~", "/")) or os.sep in word:
        args.insert(index, "ask")  # a missing folder then gets "not a directory", not a usage
        return args
    from skill2app.runtime.spelling import did_you_mean

    guess = did_you_mean(word, commands)
    request = any(not a.startswith("-") for a in args[index + 1 :])
    if request and not guess:
        args.insert(index, "ask")  # "the APP folder 'textkt' does not exist — did you mean …"
        return args
    raise UsageError(
        f"unknown command {word!r}",
        hint=guess or f'commands: {", ".join(commands)}; or app-run APP_DIR "request"',
    )


def app_run(argv: Sequence[str] | None = None) -> int:
    """`app-run ARGV` (default: ``sys.argv[1:]``) in-process; returns the exit code. No
    traceback escapes unless --debug was given."""
    args = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
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
        if argv is None:  # the shell asking for completions (never in-process)
            completion.complete_if_asked(parser)
        args = shorthand(args, command_names(parser))
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
            from skill2app.runtime.records.result import error_dict

            error = (
                error_dict(exc)
                if isinstance(exc, AppRunError)
                else {"type": "InternalError", "message": repr(exc), "hint": "rerun with --debug"}
            )
            with contextlib.suppress(OSError, StdoutFailed):
                emit_json({"status": "error", "exit_code": code, "error": error})
        return code


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
