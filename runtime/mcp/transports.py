"""How `app-run mcp` is reached: stdio (the default), or streamable HTTP (``--http``).

stdio ends when the client closes standard input, HTTP on SIGINT/SIGTERM (uvicorn's own
handling); stdio also on SIGINT/SIGTERM.  Either way the server's lifespan stops every call
still running and waits for its destructor before the process exits (0, or 128 + signal).
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import stat
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio
from mcp.server import Server
from mcp.shared.exceptions import MCPDeprecationWarning

from skill2app.runtime.errors import UsageError
from skill2app.runtime.mcp.server import Host, make_server

Say = Callable[[str], None]


def serve(host: Host, *, http: tuple[str, int] | None = None, say: Say = lambda line: None) -> int:
    """Serve until the client goes away (stdio: end of input) or SIGINT/SIGTERM; the exit
    code (0, or 128 + the signal)."""
    # sampling is deprecated as of 2026-07-28 (SEP-2577) but it is what clients offer now
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    catalog = host.refresh()
    for warning in catalog.warnings:
        say(f"Warning: {warning}")
    server = make_server(host)
    count = f"{len(catalog.tools)} tool{'s' if len(catalog.tools) != 1 else ''}"
    if http is None:
        say(f"app-run mcp: serving {count} on stdio")
        return anyio.run(_serve_stdio, server)
    return anyio.run(_serve_http, server, http, count, say)


async def _serve_stdio(server: Server[Host]) -> int:
    from mcp.server.stdio import stdio_server

    stopped: list[int] = []
    with StdinLines.claim() as lines:
        async with anyio.create_task_group() as group:
            group.start_soon(_stop_on_signal, group.cancel_scope, stopped)
            async with stdio_server(stdin=lines) as (reader, writer):  # type: ignore[arg-type]
                await server.run(reader, writer, server.create_initialization_options())
            group.cancel_scope.cancel()
    return 128 + stopped[0] if stopped else 0


class StdinLines:
    """Standard input as lines for ``stdio_server``, read without a worker thread: the SDK's
    own reader blocks a thread in read(), so a shutdown on SIGTERM would wait for the
    client's next line.  While serving, fd 0 is the null device (nothing else can read the
    protocol's bytes); ``claim`` gives None — the SDK's reader — for a stdin that cannot be
    waited on (a regular file)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.ended = False

    @classmethod
    @contextmanager
    def claim(cls) -> Iterator[StdinLines | None]:
        try:
            pollable = not stat.S_ISREG(os.fstat(0).st_mode)
        except OSError:
            pollable = False
        if not pollable:
            yield None
            return
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.set_blocking(private, False)
        try:
            yield cls(private)
        finally:
            os.dup2(private, 0)
            os.set_blocking(0, True)  # a terminal's flags are the shell's again
            os.close(private)

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        while b"\n" not in self.buffer:
            if self.ended:
                if not self.buffer:
                    raise StopAsyncIteration
                line, self.buffer = self.buffer, b""
                return line.decode("utf-8", "replace")
            await anyio.wait_readable(self.fd)
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                continue
            self.ended = not chunk
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace") + "\n"


async def _stop_on_signal(scope: anyio.CancelScope, stopped: list[int]) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            stopped.append(int(signum))
            scope.cancel()
            return


async def _serve_http(server: Server[Host], http: tuple[str, int], count: str, say: Say) -> int:
    import uvicorn

    address, port = http
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((address, port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"cannot listen on {address}:{port}: {exc.strerror or exc}",
            hint="choose another port, or stop what listens there",
        ) from None
    # DNS-rebinding protection (Host/Origin checks) is on for loopback addresses
    app = server.streamable_http_app(host=address)
    shown = f"[{address}]" if ":" in address else address
    say(f"app-run mcp: serving {count} on http://{shown}:{sock.getsockname()[1]}/mcp")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])
    return 0
