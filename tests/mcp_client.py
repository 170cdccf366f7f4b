"""Test helpers for `app-run mcp`: spawn the real command and talk to it with the MCP SDK's
own clients — ``ClientSession`` after ``initialize()`` (the handshake era, with a back-channel)
and ``mcp.Client`` (the modern era it negotiates by default) — over stdio or streamable HTTP.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

APP_RUN = Path(sys.executable).parent / "app-run"
URL_LINE = re.compile(r"serving .* on (http://\S+/mcp)")


def command(*args: str) -> list[str]:
    """`app-run ARGS` as this test run's app-run (its console script, else the entry point)."""
    if APP_RUN.exists():
        return [str(APP_RUN), *args]
    return [sys.executable, "-c", "from skill2app.runtime.cli import main; main()", *args]


def stdio_params(*args: str | Path) -> StdioServerParameters:
    argv = command("mcp", *map(str, args))
    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))


@asynccontextmanager
async def legacy_stdio(*args: str | Path, **session: Any) -> AsyncIterator[ClientSession]:
    """A handshake-era session (``initialize``) with `app-run mcp ARGS` over stdio."""
    async with stdio_client(stdio_params(*args)) as (read, write):
        async with ClientSession(read, write, **session) as client:
            await client.initialize()
            yield client


@asynccontextmanager
async def modern_stdio(*args: str | Path, **options: Any) -> AsyncIterator[Client]:
    async with Client(stdio_params(*args), **options) as client:
        yield client


@asynccontextmanager
async def legacy_http(url: str, **session: Any) -> AsyncIterator[ClientSession]:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, **session) as client:
            await client.initialize()
            yield client


@asynccontextmanager
async def modern_http(url: str, **options: Any) -> AsyncIterator[Client]:
    async with Client(url, **options) as client:
        yield client


@contextmanager
def http_server(*args: str | Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`app-run mcp ARGS --http 127.0.0.1:0` running: (its URL, the process); SIGTERM after."""
    proc = subprocess.Popen(
        command("mcp", *map(str, args), "--http", "127.0.0.1:0"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield served_url(proc), proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


def served_url(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.1)
        if not ready:
            assert proc.poll() is None, f"app-run mcp ended: {seen}"
            continue
        line = proc.stderr.readline()
        seen.append(line)
        found = URL_LINE.search(line)
        if found:
            return found.group(1)
    raise AssertionError(f"app-run mcp did not say where it serves: {seen}")


async def eventually(condition: Any, what: str, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        await anyio.sleep(0.02)
