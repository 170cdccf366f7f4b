"""Anthropic-shaped conversations (what ``host.agent`` speaks) as OpenAI chat messages, and an
OpenAI answer back as an Anthropic-shaped turn.

In: ``{"role": "user"|"assistant", "content": str | [blocks]}`` with ``text``, ``tool_use``
and ``tool_result`` blocks; tools as ``{"name", "description", "input_schema"}``.  Out: chat
messages (a tool result is a ``role: tool`` message; an assistant turn with tool calls keeps
``content: ""``, never null, which some servers refuse) and function tools.  Back:
``{"content": [blocks], "stop_reason", "usage"}`` with the finish reason in Anthropic's words.
"""

from __future__ import annotations

import json
from typing import Any

STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def openai_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("input_schema") or {"type": "object", "properties": {}},
            },
        }
        for tool in tools
    ]


def openai_messages(system: str | None, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    converted: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            converted.append({"role": message["role"], "content": content})
        elif message.get("role") == "assistant":
            converted.append(_assistant(content or []))
        else:
            converted += _user_blocks(content or [])
    return converted


def _assistant(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    calls = [
        {
            "id": str(block.get("id")),
            "type": "function",
            "function": {
                "name": str(block.get("name")),
                "arguments": json.dumps(block.get("input") or {}, ensure_ascii=False),
            },
        }
        for block in blocks
        if block.get("type") == "tool_use"
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return message


def _user_blocks(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool results become ``tool`` messages (first, as the API expects them right after the
    calls); text blocks one user message after them."""
    results = [
        {
            "role": "tool",
            "tool_call_id": str(block.get("tool_use_id")),
            "content": _result_text(block.get("content")),
        }
        for block in blocks
        if block.get("type") == "tool_result"
    ]
    text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    return results + ([{"role": "user", "content": text}] if text else [])


def _result_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else str(content)


def anthropic_turn(choice: Any, usage: dict[str, int]) -> dict[str, Any]:
    """An OpenAI choice as the turn ``host.agent`` reads: content blocks, stop reason, usage."""
    message = choice.message
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls or []:
        function = getattr(call, "function", None)
        if function is None:  # a custom (non-function) tool call: nothing the loop can run
            continue
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": function.name,
                "input": _arguments(function.arguments),
            }
        )
    reason = STOP_REASONS.get(str(choice.finish_reason), str(choice.finish_reason))
    if any(b["type"] == "tool_use" for b in blocks):
        reason = "tool_use"  # some servers say "stop" after a call
    return {"content": blocks, "stop_reason": reason, "usage": usage}


def _arguments(raw: Any) -> Any:
    """The call's arguments (a JSON string on the wire); text that is not JSON is passed on
    as it is, and the agent loop answers that it is not the object its tools take."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw
