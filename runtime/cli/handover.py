"""What `run`, `ask` and `app-run APP "request"` print when the caller must settle something:

- ``needs_route`` (exit 8): routing was unsure; one JSON object on stdout, ``--json`` or not,
  with the short list and each candidate's command;
- ``needs_input`` (exit 9): routed, but required inputs are missing; one JSON object on stdout
  — or, on a terminal (stdin and stderr) without ``--json``, a question for each missing input
  on stderr, after which the run goes on.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from skill2app.runtime.cli.output import emit_json, report, say
from skill2app.runtime.errors import InputError
from skill2app.runtime.records.result import EXIT_NEEDS_INPUT, EXIT_NEEDS_ROUTE

TRIES = 3  # a value that does not fit its type is asked again this often


def answered(answer: Any, args: argparse.Namespace) -> int | None:
    """Print a needs_route / needs_input answer (or ask on a terminal); its exit code, or
    None when ``answer`` is neither."""
    if answer.needs_route is not None:
        emit_json(answer.needs_route)
        if not args.quiet:
            names = ", ".join(c["pipeline"] for c in answer.needs_route["candidates"])
            say(
                [f"Unsure which pipeline: {names} — run one of the commands printed, or Skill mode"]
            )
        return EXIT_NEEDS_ROUTE
    needs = answer.needs_input
    if needs is None:
        return None
    question = needs.to_dict()
    if not args.as_json and _terminal():
        values = _ask(question)
        if values is not None:
            return report(needs.complete(values), args.as_json, getattr(args, "field", None))
    emit_json(question)
    if not args.quiet:
        missing = ", ".join(question["missing"]["required"])
        say(
            [
                f"Missing inputs for {question['pipeline']!r}: {missing} — pipe them as JSON into "
                "the command printed"
            ]
        )
    return EXIT_NEEDS_INPUT


def _terminal() -> bool:
    """Questions only where someone can answer them: never when stdin is not a terminal."""
    try:
        return sys.stdin is not None and sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _ask(question: dict[str, Any]) -> dict[str, Any] | None:
    """Each missing input asked for on stderr and read from stdin, converted by its type;
    None when stdin ends (Ctrl-D) before all are answered."""
    from skill2app.runtime.run.inputs import convert

    declared = question["missing"]["properties"]
    say([f"{question['pipeline']}: {len(declared)} input(s) missing"])
    for name, filled in question["filled"].items():
        say([f"  {name} = {filled['value']!r} (from {filled['from']})"])
    values: dict[str, Any] = {}
    for name, prop in declared.items():
        type_ = prop["type"] if isinstance(prop["type"], str) else prop["type"][0]
        about = f" — {prop['description']}" if prop.get("description") else ""
        if prop.get("enum"):
            about += f" (one of: {', '.join(map(str, prop['enum']))})"
        for _ in range(TRIES):
            sys.stderr.write(f"{name} ({type_}){about}: ")
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                say([""])
                return None
            raw = line.rstrip("\n")
            if not raw.strip():
                say([f"  {name} is required"])
                continue
            try:
                values[name] = convert(name, raw, type_)
                break
            except InputError as exc:
                say([f"  {exc.message}"])
        else:
            return None
    return values
