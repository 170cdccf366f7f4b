"""One tool call in progress: its job on a worker thread, and what the job asks of the client.

The runner is synchronous and the MCP server is async (anyio), so a call's job (run a
pipeline, resume or abandon a paused one) runs on a worker thread.  The thread is started in
the server's task group, not in the request's, because a run can outlive one request: a client
of the modern protocol era answers an llm step by calling the tool again (SEP-2322).

The job talks to whichever request is attending the call through ``outbox`` (progress, a
question for the client's model, the end) and ``replies`` (the answer, back).  ``cancel``
fires the run's ``Stop``: the running step's process group is killed, nothing more starts, the
destructor still runs and the run record is written; a question waiting for its answer is
given up.  When the server shuts down, every call still running is cancelled that way and
waited for.
"""

from __future__ import annotations

import math
import queue
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
import anyio.from_thread
import anyio.to_thread

from skill2app.runtime.errors import ProviderError
from skill2app.runtime.providers.base import LlmRequest, LlmResponse
from skill2app.runtime.run.interrupts import Stop, stoppable


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    message: str


@dataclass(frozen=True)
class Question:
    """An llm step's request, for the client's model (``sampling/createMessage``)."""

    request: LlmRequest


@dataclass(frozen=True)
class Finished:
    pass


Item = Progress | Question | Finished
_CANCELLED = object()  # what ``replies`` gets when the call is cancelled


class Call:
    """A tool call's job and its channels; ``result`` or ``error`` once ``finished``."""

    def __init__(self, job: Callable[[Call], Any], *, answer_timeout: float) -> None:
        self.job = job
        self.answer_timeout = answer_timeout
        self.stop = Stop()
        self._send, self.outbox = anyio.create_memory_object_stream[Item](math.inf)
        self.replies: queue.Queue[Any] = queue.Queue()
        self.finished = anyio.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.question: Question | None = None  # the one waiting for its answer, if any
        self.on_finish: Callable[[], None] | None = None
        self._worked = False

    # --- the async side -------------------------------------------------------------------

    def start(self, group: anyio.abc.TaskGroup, limiter: anyio.CapacityLimiter) -> None:
        group.start_soon(self._drive, limiter)

    async def _drive(self, limiter: anyio.CapacityLimiter) -> None:
        try:
            async with anyio.create_task_group() as watch:
                watch.start_soon(self._cancel_on_shutdown)
                # abandon_on_cancel=False: a shutdown waits for the job (and its destructor)
                await anyio.to_thread.run_sync(self._work, limiter=limiter)
                watch.cancel_scope.cancel()
        finally:
            self._send.send_nowait(Finished())
            self.finished.set()
            self.stop.close()
            if self.on_finish is not None:
                self.on_finish()

    async def _cancel_on_shutdown(self) -> None:
        try:
            await anyio.sleep_forever()
        finally:
            if not self._worked:
                self.cancel()

    def cancel(self) -> None:
        """Stop the job (from any thread): see the module doc."""
        self.stop.fire()
        self.replies.put(_CANCELLED)

    def answer(self, response: LlmResponse | ProviderError) -> None:
        """The client's answer (or why there is none) to the waiting question."""
        self.question = None
        self.replies.put(response)

    # --- the worker thread ------------------------------------------------------------------

    def _work(self) -> None:
        with stoppable(self.stop):
            try:
                self.result = self.job(self)
            except BaseException as exc:  # noqa: BLE001 - shown as the tool's error
                self.error = exc
        self._worked = True

    def post(self, item: Item) -> None:
        anyio.from_thread.run_sync(self._send.send_nowait, item)

    def ask(self, request: LlmRequest) -> LlmResponse:
        """The client model's answer to ``request`` (blocks this worker thread)."""
        self.stop.check()  # cancelled: the step is interrupted (unless in the destructor)
        if self.stop.fired:
            raise ProviderError(
                f"the tool call was cancelled: no client is left to answer llm step "
                f"{request.step!r}",
                hint="give the destructor's llm steps a provider (app-run.yaml)",
            )
        self.question = Question(request)
        self.post(self.question)
        try:
            answer = self.replies.get(timeout=self.answer_timeout)
        except queue.Empty:
            raise ProviderError(
                f"the MCP client did not answer the sampling request for step "
                f"{request.step!r} within {self.answer_timeout:g}s",
                hint="answer it sooner, or start `app-run mcp` with a longer --sampling-timeout",
            ) from None
        if answer is _CANCELLED:
            self.stop.check()
            raise ProviderError(f"the tool call was cancelled while step {request.step!r} waited")
        if isinstance(answer, BaseException):
            raise answer
        assert isinstance(answer, LlmResponse)
        return answer
