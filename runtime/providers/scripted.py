"""The scripted provider: answers replayed from a file, for tests, examples and demos.

The file (YAML or JSON)::

    answers:
      code-review/analyze_files:      # "<pipeline>/<step>", or just "<step>"
        - {"files": [...]}            # answer to attempt 1: the JSON value itself
        - $text: "not JSON at all"    # a raw text answer, as a model might misbehave

Answers for a step are used in order, one per call; running out is an error.

The agent loop (Skill mode) replays the key ``_agent``: each entry is one assistant message::

      _agent:
        - content:
            - {type: tool_use, id: t1, name: tools_count, input: {args: [-w], stdin: "a b"}}
          stop_reason: tool_use
        - {content: [{type: text, text: "Two words."}], stop_reason: end_turn}

A tool_use block without an ``id`` gets one.  Every conversation the loop sends is kept on
``conversations``, so tests can see the tool results that went back.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from skill2app.runtime.app.document import load_yaml, plain
from skill2app.runtime.errors import ConfigError, LoadError, ProviderError
from skill2app.runtime.providers.base import LlmRequest, LlmResponse

AGENT_KEY = "_agent"  # the answers the agent loop replays, one assistant message each


class ScriptedProvider:
    name = "scripted"

    def __init__(self, answers: dict[str, list[Any]], source: str = "answers") -> None:
        self.answers = answers
        self.source = source
        self.used: dict[str, int] = {}
        self.conversations: list[list[dict[str, Any]]] = []  # messages given to each converse

    @classmethod
    def from_file(cls, path: Path) -> ScriptedProvider:
        if not path.is_file():
            raise ConfigError(f"scripted answers file {path} not found", hint="pass --answers FILE")
        try:
            doc = load_yaml(path)
        except LoadError as exc:  # like any config file: a usage error (exit 2)
            raise ConfigError(exc.message, where=exc.where, hint=exc.hint) from exc
        data = plain(doc.data) or {}
        table = data.get("answers") if isinstance(data, dict) else None
        if not isinstance(table, dict) or not all(isinstance(v, list) for v in table.values()):
            raise ConfigError(
                "answers file must hold `answers:` mapping '<pipeline>/<step>' to a list",
                where=doc.where("answers"),
            )
        return cls(table, str(path))

    def complete(self, request: LlmRequest) -> LlmResponse:
        key = f"{request.pipeline}/{request.step}"
        if key not in self.answers:
            key = request.step
        queue = self.answers.get(key)
        if queue is None:
            raise ProviderError(
                f"no scripted answer for {request.pipeline}/{request.step} in {self.source}",
                hint=f"add answers: {{{request.pipeline}/{request.step}: [...]}}",
            )
        index = self.used.get(key, 0)
        if index >= len(queue):
            raise ProviderError(
                f"scripted answers for {key} ran out after {len(queue)} in {self.source}",
                hint="add one more answer for this step",
            )
        self.used[key] = index + 1
        return _response(queue[index], request.model)

    def converse(
        self,
        *,
        system: str | None,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        model: str,
        max_tokens: int,
    ) -> dict[str, Any]:
        """The next ``_agent`` answer, shaped like the Anthropic provider's ``converse``."""
        self.conversations.append(copy.deepcopy(messages))
        queue = self.answers.get(AGENT_KEY)
        if queue is None:
            raise ProviderError(
                f"no scripted agent answers ({AGENT_KEY}) in {self.source}",
                hint=f"add answers: {{{AGENT_KEY}: [{{content: [...], stop_reason: end_turn}}]}}",
            )
        index = self.used.get(AGENT_KEY, 0)
        if index >= len(queue):
            raise ProviderError(
                f"scripted answers for {AGENT_KEY} ran out after {len(queue)} in {self.source}",
                hint="add one more assistant message to _agent",
            )
        self.used[AGENT_KEY] = index + 1
        return _agent_turn(queue[index], index + 1, self.source)


def _agent_turn(entry: Any, number: int, source: str) -> dict[str, Any]:
    content = entry.get("content") if isinstance(entry, dict) else None
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        raise ProviderError(
            f"scripted {AGENT_KEY} answer {number} in {source} has no `content` list of blocks",
            hint="write each answer as {content: [{type: text, text: ...}], stop_reason: ...}",
        )
    blocks = copy.deepcopy(content)
    for position, block in enumerate(blocks, 1):
        if block.get("type") == "tool_use":
            block.setdefault("id", f"toolu_scripted_{number}_{position}")
    uses = any(b.get("type") == "tool_use" for b in blocks)
    return {
        "content": blocks,
        "stop_reason": str(entry.get("stop_reason") or ("tool_use" if uses else "end_turn")),
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


def _response(answer: Any, model: str) -> LlmResponse:
    if isinstance(answer, dict) and set(answer) == {"$text"}:
        return LlmResponse(text=str(answer["$text"]), model=model)
    if isinstance(answer, str):
        return LlmResponse(text=answer, data=None, model=model)
    return LlmResponse(text=json.dumps(answer, ensure_ascii=False), data=answer, model=model)
