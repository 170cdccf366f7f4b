"""Analyzers turn an inventory into a conversion plan.

``heuristic`` is deterministic and never touches the network; ``llm`` (asks a model to
propose main paths) is the default when an Anthropic key is configured, once it exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from converter.errors import AnalyzerError, UsageError

if TYPE_CHECKING:
    from converter.inventory import Inventory
    from converter.plan import Plan

ANALYZERS = ("heuristic", "llm")


def default_analyzer(has_api_key: bool) -> str:
    return "llm" if has_api_key else "heuristic"


def get_analyzer(name: str) -> Callable[[Inventory], Plan]:
    """The ``analyze(inventory) -> Plan`` function of analyzer ``name``."""
    if name == "heuristic":
        from converter.analyzers.heuristic import analyze

        return analyze
    if name == "llm":
        raise AnalyzerError(
            "the llm analyzer is not available yet", hint="use --analyzer heuristic"
        )
    raise UsageError(f"unknown analyzer {name!r}", hint=f"use one of: {', '.join(ANALYZERS)}")
