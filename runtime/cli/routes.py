"""`app-run routes`: the requests app-run learned to route (learned examples)."""

from __future__ import annotations

import argparse
import time

from skill2app.runtime.cli.output import emit_json, out, say, show
from skill2app.runtime.cli.parser import Parser, app_dir_argument, command, json_flag, quiet_flag
from skill2app.runtime.errors import UsageError


def register(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = command(commands, routes, "routes")
    app_dir_argument(parser)
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--forget", action="store_true", help="Remove learned examples (all, or as narrowed)."
    )
    action.add_argument(
        "--export",
        action="store_true",
        help="Write learned examples into their pipelines' triggers (comments kept).",
    )
    parser.add_argument("--pipeline", metavar="NAME", help="Only this pipeline's examples.")
    parser.add_argument("--request", metavar="TEXT", help="--forget: only this example.")
    json_flag(parser)
    quiet_flag(parser)


def routes(args: argparse.Namespace) -> int:
    """List the requests confirmed for each pipeline (learned examples); --forget, --export.

    A request is learned when a pipeline is run for it with `app-run run APP PIPELINE
    --request "…"` (what a needs_route answer hands over) or hybrid's LLM chooses; the
    embedded router then routes the same words there.  `learn: false` in the config (or
    APP_RUN_LEARN=0) turns it off.
    """
    from skill2app.runtime.routing import learned

    if args.request is not None and not args.forget:
        raise UsageError("--request only narrows --forget", hint="add --forget, or drop --request")
    if args.forget:
        removed = learned.forget(args.app_dir, args.pipeline, args.request)
        if args.as_json:
            emit_json({"forgotten": removed})
        elif not args.quiet:
            say([f"forgot {len(removed)} learned example(s)"])
        return 0
    if args.export:
        done = learned.export(args.app_dir, args.pipeline)
        if args.as_json:
            emit_json({"exported": done})
        else:
            for item in done:
                out(f"{item['file']}: {len(item['added'])} trigger(s) added")
            if not done and not args.quiet:
                say(["no learned examples to export"])
        return 0
    found = learned.listing(args.app_dir)
    if args.pipeline is not None:
        found["examples"] = [e for e in found["examples"] if e["pipeline"] == args.pipeline]
    if args.as_json:
        emit_json(found)
        return 0
    for example in found["examples"]:
        when = time.strftime("%Y-%m-%d", time.localtime(example["last"]))
        gone = "" if example["known"] else "  (no such pipeline now)"
        show(f"{example['pipeline']}\t{example['request']}\t×{example['count']}  {when}{gone}")
    if not args.quiet:
        say([f"{len(found['examples'])} learned example(s) in {found['store']}"])
    return 0
