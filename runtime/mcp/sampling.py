"""llm steps answered by the MCP client's own model (``sampling/createMessage``).

``ClientModel`` is the provider a run gets when the client can sample: an llm step's request
goes to the client through the call's bridge, and its answer comes back as any provider's
would, so the runner checks it exactly the same way (JSON Schema, validate script, retries
with the errors in the next prompt).  Sampling has no structured output: the schema is put in
the prompt.  The tier becomes model preferences (lite favours speed and cost, reasoning
intelligence), with the configured model name as a hint.

``Stoppable`` wraps a configured provider instead: a cancelled call stops before and after
each of its (uninterruptible) HTTP calls.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from skill2app.runtime.errors import ProviderError
from skill2app.runtime.mcp.bridge import Call
from skill2app.runtime.providers.anthropic import parse_json_answer
from skill2app.runtime.providers.base import LlmRequest, LlmResponse, Provider
from skill2app.runtime.run.interrupts import Stop

# tier -> (speed, intelligence, cost) priorities, 0..1 (MCP ModelPreferences)
PRIORITIES = {
    "lite": (1.0, 0.3, 0.8),
    "standard": (0.5, 0.6, 0.5),
    "reasoning": (0.2, 1.0, 0.2),
}


class ClientModel:
    """The provider of a run whose llm steps the MCP client's model answers."""

    name = "sampling"

    def __init__(self, call: Call) -> None:
        self.call = call

    def complete(self, request: LlmRequest) -> LlmResponse:
        return self.call.ask(request)


class Stoppable:
    """A configured provider whose calls a cancelled tool call does not wait on again."""

    def __init__(self, inner: Provider, stop: Stop) -> None:
        self.inner = inner
        self.stop = stop
        self.name = inner.name

    def complete(self, request: LlmRequest) -> LlmResponse:
        self.stop.check()
        answer = self.inner.complete(request)
        self.stop.check()
        return answer


def sampling_params(request: LlmRequest) -> types.CreateMessageRequestParams:
    """What ``sampling/createMessage`` asks the client's model for an llm step's request."""
    prompt = request.prompt
    if request.schema is not None:
        prompt += (
            "\n\nAnswer with only a JSON value (no prose, no code fence) that matches this "
            f"JSON Schema:\n{json.dumps(request.schema, ensure_ascii=False, indent=1)}"
        )
    speed, intelligence, cost = PRIORITIES.get(request.tier, PRIORITIES["standard"])
    return types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(text=prompt))],
        system_prompt=request.system,
        max_tokens=request.max_tokens,
        model_preferences=types.ModelPreferences(
            hints=[types.ModelHint(name=request.model)] if request.model else None,
            speed_priority=speed,
            intelligence_priority=intelligence,
            cost_priority=cost,
        ),
        include_context="none",
    )


def response_of(result: Any, request: LlmRequest) -> LlmResponse | ProviderError:
    """The client's ``CreateMessageResult`` as a provider's answer (or why it is none)."""
    content = getattr(result, "content", None)
    if isinstance(content, list):  # a result with tool use: only its text counts
        content = next((c for c in content if isinstance(c, types.TextContent)), None)
    if not isinstance(content, types.TextContent):
        kind = getattr(content, "type", type(content).__name__)
        return ProviderError(
            f"the MCP client answered step {request.step!r} with {kind} content, not text",
            hint="answer sampling requests with text",
        )
    text = content.text
    data = parse_json_answer(text) if request.schema is not None else None
    return LlmResponse(text=text, data=data, model=str(getattr(result, "model", "") or ""))
