"""The `mcp` command: serve APPs to MCP clients (Claude Code and Desktop, Cursor, ...).

The MCP SDK is an optional extra and slow to import (~0.5 s): it is imported by this
command's handler only, never while the parser is built.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skill2app.runtime.cli.output import say
from skill2app.runtime.cli.parser import Parser, command, provider_options, quiet_flag
from skill2app.runtime.errors import ConfigError, UsageError

DEFAULT_HOST = "127.0.0.1"


def register(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = command(commands, serve_mcp, "mcp")
    parser.add_argument(
        "app_dirs", metavar="APP_DIR", type=Path, nargs="+", help="The APP folders to serve."
    )
    parser.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="Streamable HTTP on HOST:PORT (default host 127.0.0.1) instead of stdio.",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="Let --http listen on an address other computers can reach (no authentication:"
        " anyone who reaches it runs the APPs' programs as you).",
    )
    provider_options(parser)
    parser.add_argument(
        "--no-sampling",
        dest="sampling",
        action="store_false",
        help="Never ask the client's model; llm steps use the configured provider.",
    )
    parser.add_argument(
        "--sampling-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="How long a run waits for the client's answer to an llm step. (default: 300)",
    )
    quiet_flag(parser)


def serve_mcp(args: argparse.Namespace) -> int:
    """Serve the APPs' pipelines as MCP tools (stdio, or streamable HTTP with --http).

    Each business pipeline is a tool with its inputs as JSON Schema; SKILL.md is a prompt and
    the routing table a resource. llm steps are answered by the client's model when it
    offers sampling, else by the configured provider, else the run pauses and the `resume`
    tool takes the answer. Ends when the client closes stdin, or on SIGINT/SIGTERM (running
    calls are stopped, their destructors run).
    """
    http = parse_http(args.http, args.allow_remote) if args.http else None
    if args.sampling_timeout <= 0:
        raise UsageError(
            f"--sampling-timeout {args.sampling_timeout:g} is not a number of seconds above 0",
            hint="e.g. --sampling-timeout 600",
        )
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        raise ConfigError(
            "app-run mcp needs the MCP SDK, which is not installed",
            hint="pip install 'skill2app[mcp]'",
        )
    from skill2app.runtime.mcp.jobs import Settings
    from skill2app.runtime.mcp.server import Host
    from skill2app.runtime.mcp.transports import serve

    settings = Settings(args.provider, args.answers, args.sampling, args.sampling_timeout)
    host = Host(args.app_dirs, settings, debug=getattr(args, "debug", False))
    return serve(host, http=http, say=(lambda line: None) if args.quiet else _say)


def _say(line: str) -> None:
    say([line])


def parse_http(value: str, allow_remote: bool) -> tuple[str, int]:
    """``[HOST:]PORT`` (IPv6 in brackets) -> (host, port); a non-loopback host only when
    ``allow_remote``."""
    host, _, port = value.rpartition(":")
    host = host.strip("[]") or DEFAULT_HOST
    if not port.isdigit() or int(port) > 65535:
        raise UsageError(
            f"--http {value!r} is not [HOST:]PORT", hint="e.g. --http 8765 or --http 127.0.0.1:8765"
        )
    if not allow_remote and not _loopback(host):
        raise UsageError(
            f"--http {value!r} would listen beyond this computer, with no authentication: "
            "anyone who reaches it could run the APPs' programs as you",
            hint="use 127.0.0.1 (the default), or add --allow-remote if you mean it",
        )
    return host, int(port)


def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
