"""The one small interface every LLM provider implements.

A provider turns an ``LlmRequest`` into an ``LlmResponse``.  It does not validate the answer
against the schema (the runner always re-validates locally) and it never prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class LlmRequest:
    prompt: str
    tier: str  # lite | standard | reasoning
    model: str  # the model name the tier maps to
    schema: dict[str, Any] | None = None  # JSON Schema the answer must match, if any
    max_tokens: int = 8192
    thinking: bool = False  # extended thinking (reasoning tier)
    system: str | None = None
    # Where the request comes from: used by the scripted provider and the run record.
    pipeline: str = ""
    step: str = ""
    attempt: int = 1


@dataclass
class LlmResponse:
    text: str  # the answer as text (JSON text when a schema was asked for)
    data: Any = None  # the parsed JSON answer when the provider returned structured output
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)  # input_tokens, output_tokens


class Provider(Protocol):
    name: str

    def complete(self, request: LlmRequest) -> LlmResponse: ...
