"""A routed pipeline's inputs, filled — and where each value came from, and what is missing.

In order: the values given (``--input``, ``--input-json``), what the request says that
``extraction`` reads offline, one lite-tier extraction call when a provider is configured,
then free text from the request for the one free-text input still missing (``freetext``).
What is still missing is described as JSON Schema (``schema.input_schema``) for the caller:
the ``needs_input`` answer, or a question on a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skill2app.runtime.app.config import Config
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.routing.extraction import llm_extract, offline_extract
from skill2app.runtime.routing.freetext import free_text, free_text_input
from skill2app.runtime.run.inputs import is_optional

GIVEN, REQUEST, LLM, FREE_TEXT = "given", "request", "llm", "free text"


@dataclass
class Filled:
    values: dict[str, Any]
    sources: dict[str, str]  # input -> given | request | llm | free text
    how: dict[str, str] = field(default_factory=dict)  # free-text input -> how it was taken
    missing: list[str] = field(default_factory=list)  # required inputs no one filled

    def report(self) -> dict[str, dict[str, Any]]:
        """What was filled and from where, for the caller."""
        out: dict[str, dict[str, Any]] = {}
        for name, value in self.values.items():
            out[name] = {"value": value, "from": self.sources.get(name, GIVEN)}
            if name in self.how:
                out[name]["how"] = self.how[name]
        return out


def fill_inputs(
    request: str,
    declared: dict[str, str],
    given: dict[str, Any],
    *,
    provider: Provider | None,
    config: Config,
    phrases: Sequence[str] = (),
    choices: dict[str, list[Any]] | None = None,
) -> Filled:
    """Fill ``declared`` from ``given`` and the request; ``phrases`` are the pipeline's
    description and triggers (free text leaves out the words they share with the request);
    ``choices``: each input's allowed values (its ``enum``)."""
    filled = Filled(dict(given), dict.fromkeys(given, GIVEN))
    missing = _missing(declared, filled.values, optional=True)
    found = offline_extract(request, missing, choices)
    _add(filled, found, REQUEST)
    missing = _missing(declared, filled.values, optional=True)
    if missing and provider is not None:
        _add(filled, llm_extract(request, missing, provider, config), LLM)
    free = _missing(declared, filled.values, optional=False)
    name = free_text_input({k: t for k, t in free.items() if k not in (choices or {})}, declared)
    if name is not None:
        named = [k for k, source in filled.sources.items() if source == REQUEST]
        taken = free_text(_without_named(request, named), phrases)
        if taken is not None:
            _add(filled, {name: taken[0]}, FREE_TEXT)
            filled.how[name] = taken[1]
    filled.missing = list(_missing(declared, filled.values, optional=False))
    return filled


def _without_named(request: str, names: list[str]) -> str:
    """``request`` less the ``name=value`` words that filled other inputs."""
    for name in names:
        said = re.escape(name)
        request = re.sub(rf"(?<!\S)(?:--{said}(?:=|\s+)|{said}[=:])\S+", "", request)
    return request.strip()


def _add(filled: Filled, values: dict[str, Any], source: str) -> None:
    for name, value in values.items():
        if name not in filled.values:
            filled.values[name] = value
            filled.sources[name] = source


def _missing(declared: dict[str, str], values: dict[str, Any], *, optional: bool) -> dict[str, str]:
    return {
        k: t for k, t in declared.items() if k not in values and (optional or not is_optional(t))
    }
