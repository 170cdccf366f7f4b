"""`app-run mcp`: APPs served over MCP (the official SDK's low-level ``Server``; mcp ≥ 2.3).

Tools are the pipelines (``catalog``); a call runs on a worker thread (``bridge``, ``jobs``)
while its request reports progress, answers the run's questions about llm steps, and turns
the outcome into a tool result (``results``).  Prompts and resources: ``prompts``.

Both protocol eras the SDK speaks are served.  A handshake-era client (``initialize``; e.g.
``ClientSession``) has a back-channel: an llm step is one ``sampling/createMessage`` request
sent while the call is open.  A modern-era client (2026-07-28; ``mcp.Client``'s default) has
none: the call answers ``InputRequiredResult`` with the sampling request, the client calls
again with the answer, and the same run — parked on its thread — goes on (SEP-2322).

A failing run is a tool result with ``isError``, never a protocol error nor a dead server;
a call the client cancels stops its run (``Call.cancel``) and returns once the destructor
has run.  Shutting down (``transports``: end of stdin, SIGINT/SIGTERM) does the same to every
running call.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError

from skill2app.runtime import __version__
from skill2app.runtime.app.config import load_config, state_home
from skill2app.runtime.errors import AppRunError, ProviderError, UsageError
from skill2app.runtime.mcp import jobs
from skill2app.runtime.mcp.bridge import Call, Finished, Progress, Question
from skill2app.runtime.mcp.catalog import (
    ABANDON_SCHEMA,
    RESUME_SCHEMA,
    Catalog,
    build_catalog,
    load_apps,
)
from skill2app.runtime.mcp.prompts import prompt_specs, read_resource, resource_specs, skill_prompt
from skill2app.runtime.mcp.results import ToolAnswer, answer_of_error, answer_of_run
from skill2app.runtime.mcp.sampling import response_of, sampling_params
from skill2app.runtime.providers.base import LlmRequest, LlmResponse

MAX_RUNS = 32  # calls running at once; more wait for a free worker thread
SAMPLING = types.ClientCapabilities(sampling=types.SamplingCapability())
INSTRUCTIONS = (
    "Each tool runs one pipeline of an APP (Agent Pipeline Protocol): deterministic steps, with "
    "typed inputs. Pick the tool whose description fits the request and fill its inputs. When "
    "no tool fits, use the APP's prompt (its SKILL.md) and follow it yourself."
)


class Host:
    """The server's state: the served APPs, how llm steps are answered, the calls running."""

    def __init__(self, roots: Sequence[Path], settings: jobs.Settings, debug: bool = False):
        self.roots = list(roots)
        self.settings = settings
        self.debug = debug
        self.catalog = Catalog((), (), {})
        self.served: list[Path] = []
        self.delegates = False  # an APP without a provider: its runs may pause for an answer
        self.parked: dict[str, Call] = {}  # runs waiting for a modern-era client's answer
        self.group: anyio.abc.TaskGroup | None = None
        self.limiter: anyio.CapacityLimiter | None = None

    def refresh(self) -> Catalog:
        """Read the APPs again (edits show); LoadError/UsageError when they cannot be served."""
        apps = load_apps(self.roots)
        self.catalog = build_catalog([a.root for a in apps], state_home())
        self.served = [a.root for a in apps]
        s = self.settings
        self.delegates = any(
            load_config(a.root, provider=s.provider, answers=s.answers).provider == "none"
            for a in apps
        )
        return self.catalog

    def samples(self, ctx: ServerRequestContext[Any]) -> bool:
        """Whether llm steps go to this client's model."""
        return self.settings.sampling and ctx.session.check_client_capability(SAMPLING)

    def job(self, ctx: ServerRequestContext[Any], name: str, args: dict[str, Any]) -> Any:
        reserved = self.catalog.reserved
        if name == reserved["resume"]:
            return lambda call: jobs.resume(call, args, self.served)
        if name == reserved["abandon"]:
            return lambda call: jobs.abandon(call, args, self.served)
        tool = self.catalog.find(name) or self.refresh().find(name)
        if tool is None:
            known = ", ".join(t.name for t in self.catalog.tools) or "none"
            raise UsageError(f"no tool named {name!r}", hint=f"the tools here: {known}")
        samples = self.samples(ctx)
        return lambda call: jobs.run_pipeline(call, tool, args, self.settings, samples)

    def park(self, call: Call, question: Question) -> types.InputRequiredResult:
        """Keep a run waiting for the answer a modern-era client brings in its next call."""
        key = secrets.token_urlsafe(24)
        self.parked[key] = call

        def forget() -> None:
            self.parked.pop(key, None)

        call.on_finish = forget
        request = types.CreateMessageRequest(params=sampling_params(question.request))
        return types.InputRequiredResult(input_requests={"llm": request}, request_state=key)


# --- the handlers -------------------------------------------------------------------------


async def list_tools(
    ctx: ServerRequestContext[Host], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    host = ctx.lifespan_context
    try:
        catalog = await anyio.to_thread.run_sync(host.refresh)
    except AppRunError:  # an APP moved or broke since: what was served (calls will say why)
        catalog = host.catalog
    tools = [
        types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
        for t in catalog.tools
    ]
    if host.delegates and not host.samples(ctx):
        tools += _reserved_tools(catalog.reserved)
    return types.ListToolsResult(tools=tools)


def _reserved_tools(names: dict[str, str]) -> list[types.Tool]:
    return [
        types.Tool(
            name=names["resume"],
            description="Answer an llm step a run paused at (a tool result with status "
            "needs_llm): the answer is checked like a model's (schema, validate script); a "
            "rejected one is asked again with the errors.",
            input_schema=RESUME_SCHEMA,
        ),
        types.Tool(
            name=names["abandon"],
            description="Give up on a paused run: it fails there and its destructor runs.",
            input_schema=ABANDON_SCHEMA,
        ),
    ]


async def call_tool(
    ctx: ServerRequestContext[Host], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    host = ctx.lifespan_context
    try:
        if params.request_state is not None:
            return await _answered(host, ctx, params)
        job = host.job(ctx, params.name, dict(params.arguments or {}))
        call = Call(job, answer_timeout=host.settings.sampling_timeout)
        assert host.group is not None and host.limiter is not None
        call.start(host.group, host.limiter)
        return await _attend(host, call, ctx)
    except Exception as exc:  # noqa: BLE001 - a tool error, never a dead server
        return _tool_result(answer_of_error(exc, host.debug))


async def _answered(
    host: Host, ctx: ServerRequestContext[Host], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    """A modern-era client's call again, with the answer its model gave: the run goes on."""
    call = host.parked.pop(str(params.request_state), None)
    if call is None or call.question is None:
        raise UsageError(
            "no run is waiting for this answer any more (it waited longer than "
            "--sampling-timeout, or the server restarted)",
            hint="call the tool again",
        )
    request = call.question.request
    answer = (params.input_responses or {}).get("llm")
    call.answer(
        response_of(answer, request)
        if answer is not None
        else ProviderError(f"the MCP client sent no answer for step {request.step!r}")
    )
    return await _attend(host, call, ctx)


async def _attend(
    host: Host, call: Call, ctx: ServerRequestContext[Host]
) -> types.CallToolResult | types.InputRequiredResult:
    """Serve the call until its run ends (the tool result) or parks (modern era)."""
    try:
        while True:
            item = await call.outbox.receive()
            if isinstance(item, Progress):
                with suppress(Exception):  # a client that went away: the run goes on
                    await ctx.session.report_progress(item.done, item.total, item.message)
            elif isinstance(item, Question):
                if not ctx.session.can_send_request:
                    return host.park(call, item)
                call.answer(await _ask_client(ctx, item.request, call.answer_timeout))
            elif isinstance(item, Finished):
                return _tool_result(_outcome(host, call))
    except BaseException:
        if not call.finished.is_set():  # cancelled (or a bug): stop the run, let it end
            call.cancel()
            with anyio.CancelScope(shield=True):
                await call.finished.wait()
        raise


def _outcome(host: Host, call: Call) -> ToolAnswer:
    if call.error is not None:
        return answer_of_error(call.error, host.debug)
    return answer_of_run(call.result, host.catalog.reserved)


async def _ask_client(
    ctx: ServerRequestContext[Host], request: LlmRequest, timeout: float
) -> LlmResponse | ProviderError:
    """One ``sampling/createMessage`` over the back-channel of the open call."""
    params = sampling_params(request)
    try:
        with anyio.fail_after(timeout):
            result = await ctx.session.create_message(
                messages=params.messages,
                max_tokens=params.max_tokens,
                system_prompt=params.system_prompt,
                model_preferences=params.model_preferences,
                include_context=params.include_context,
                related_request_id=ctx.request_id,
            )
    except TimeoutError:
        return ProviderError(
            f"the MCP client did not answer the sampling request for step {request.step!r} "
            f"within {timeout:g}s",
            hint="answer it sooner, or start `app-run mcp` with a longer --sampling-timeout",
        )
    except MCPError as exc:
        return ProviderError(
            f"the MCP client refused the sampling request for step {request.step!r}: "
            f"{exc.error.message}",
            hint="allow sampling in the client, or configure a provider (app-run.yaml)",
        )
    return response_of(result, request)


def _tool_result(answer: ToolAnswer) -> types.CallToolResult:
    result = types.CallToolResult(
        content=[types.TextContent(text=answer.text)],
        structured_content=answer.structured,
        is_error=answer.is_error,
    )
    result.meta = answer.meta or None
    return result


async def list_prompts(
    ctx: ServerRequestContext[Host], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    apps = await anyio.to_thread.run_sync(load_apps, ctx.lifespan_context.roots)
    argument = types.PromptArgument(
        name="request", description="What the user asked for, in their words.", required=False
    )
    return types.ListPromptsResult(
        prompts=[
            types.Prompt(name=p.name, description=p.description, arguments=[argument])
            for p in prompt_specs(apps)
        ]
    )


async def get_prompt(
    ctx: ServerRequestContext[Host], params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    apps = await anyio.to_thread.run_sync(load_apps, ctx.lifespan_context.roots)
    spec = next((p for p in prompt_specs(apps) if p.name == params.name), None)
    app = next((a for a in apps if spec is not None and a.root == spec.root), None)
    if spec is None or app is None:
        raise MCPError(code=types.INVALID_PARAMS, message=f"no prompt named {params.name!r}")
    request = (params.arguments or {}).get("request")
    text = await anyio.to_thread.run_sync(skill_prompt, app, request)
    message = types.PromptMessage(role="user", content=types.TextContent(text=text))
    return types.GetPromptResult(description=spec.description, messages=[message])


async def list_resources(
    ctx: ServerRequestContext[Host], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    apps = await anyio.to_thread.run_sync(load_apps, ctx.lifespan_context.roots)
    return types.ListResourcesResult(
        resources=[
            types.Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
            for r in resource_specs(apps)
        ]
    )


async def read(
    ctx: ServerRequestContext[Host], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)

    def load() -> tuple[str, str]:
        return read_resource(load_apps(ctx.lifespan_context.roots), uri)

    try:
        mime, text = await anyio.to_thread.run_sync(load)
    except UsageError as exc:
        raise MCPError(code=types.INVALID_PARAMS, message=exc.one_line()) from None
    contents = types.TextResourceContents(uri=uri, mime_type=mime, text=text)
    return types.ReadResourceResult(contents=[contents])


# --- the server -----------------------------------------------------------------------------


def make_server(host: Host) -> Server[Host]:
    @asynccontextmanager
    async def lifespan(_: Server[Host]) -> AsyncIterator[Host]:
        async with anyio.create_task_group() as group:
            host.group, host.limiter = group, anyio.CapacityLimiter(MAX_RUNS)
            try:
                yield host
            finally:
                group.cancel_scope.cancel()  # every running call is stopped and waited for

    server = Server(
        "app-run",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_read_resource=read,
    )
    # A modern-era client echoes requestState: sealed under this process's key, bound to the
    # call it came from and expiring after the run stopped waiting for the answer.
    security = RequestStateSecurity.ephemeral(ttl=host.settings.sampling_timeout + 60)
    server.middleware.append(RequestStateBoundary(security, default_audience="app-run"))
    return server
