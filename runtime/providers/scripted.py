"""The scripted provider: answers replayed from a file, for tests, examples and demos.

The file (YAML or JSON)::

    answers:
      code-review/analyze_files:      # "<pipeline>/<step>", or just "<step>"
        - {"files": [...]}            # answer to attempt 1: the JSON value itself
        - $text: "not JSON at all"    # a raw text answer, as a model might misbehave

Answers for a step are used in order, one per call; running out is an error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runtime.document import load_yaml, plain
from runtime.errors import ConfigError, ProviderError

from .base import LlmRequest, LlmResponse


class ScriptedProvider:
    name = "scripted"

    def __init__(self, answers: dict[str, list[Any]], source: str = "answers") -> None:
        self.answers = answers
        self.source = source
        self.used: dict[str, int] = {}

    @classmethod
    def from_file(cls, path: Path) -> ScriptedProvider:
        if not path.is_file():
            raise ConfigError(f"scripted answers file {path} not found", hint="pass --answers FILE")
        doc = load_yaml(path)
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


def _response(answer: Any, model: str) -> LlmResponse:
    if isinstance(answer, dict) and set(answer) == {"$text"}:
        return LlmResponse(text=str(answer["$text"]), model=model)
    if isinstance(answer, str):
        return LlmResponse(text=answer, data=None, model=model)
    return LlmResponse(text=json.dumps(answer, ensure_ascii=False), data=answer, model=model)
