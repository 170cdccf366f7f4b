"""app-run's argparse parser class and the options several commands share."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from skill2app.runtime.app import is_app_dir
from skill2app.runtime.cli.output import EXIT_USAGE, StdoutFailed, emit_json, say
from skill2app.runtime.errors import UsageError

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
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._guess(extras)}")
        return parsed, extras

    def _guess(self, extras: list[str]) -> str:
        """``; did you mean '--json'?`` for a mistyped option (``--jsn``)."""
        from skill2app.runtime.spelling import did_you_mean

        options = [o for o in self._option_string_actions if o.startswith("--")]
        for extra in extras:
            if extra.startswith("--"):
                guess = did_you_mean(extra.partition("=")[0], options)
                if guess:
                    return f"; {guess}"
        return ""


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


def app_dir_argument(parser: Parser, *, optional: bool = False) -> argparse.Action:
    """The APP_DIR positional; ``optional``: it defaults to the current folder when that is an
    APP (``here_or``)."""
    if not optional:
        return parser.add_argument(
            "app_dir", metavar="APP_DIR", type=Path, help="The APP folder (holds pipelines/)."
        )
    return parser.add_argument(
        "app_dir",
        metavar="APP_DIR",
        type=Path,
        nargs="?",
        help="The APP folder (holds pipelines/). Default: the current folder, if it is an APP "
        "(has pipelines/ or SKILL.md).",
    )


def here_or(app_dir: Path | None) -> Path:
    """``app_dir``, or the current folder when none was given and it is an APP."""
    if app_dir is not None:
        return app_dir
    if is_app_dir(Path(".")):
        return Path(".")
    raise UsageError(
        "no APP_DIR given, and the current folder is not an APP (it has no pipelines/ nor "
        "SKILL.md)",
        hint="give the APP folder, or run this inside it",
    )


def json_flag(parser: Parser) -> None:
    parser.add_argument(
        "--json", dest="as_json", action="store_true", help="Machine-readable output on stdout."
    )


def quiet_flag(parser: Parser, default: bool = False) -> None:
    more = " (the default here: -v shows progress)" if default else ""
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
        "--provider",
        metavar="NAME",
        help="LLM provider: anthropic | openai | local | scripted | none.",
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


def usage_error(message: str, hint: str, as_json: bool) -> None:
    """A usage error before any command ran: one line on stderr (and the --json object)."""
    say([f"Error: {message} — {hint}"])
    if as_json:
        error = {"type": "UsageError", "message": message, "hint": hint}
        with contextlib.suppress(OSError, StdoutFailed):
            emit_json({"status": "error", "exit_code": EXIT_USAGE, "error": error})
