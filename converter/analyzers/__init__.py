"""Analyzers turn an inventory into a conversion plan.

``heuristic`` is deterministic and never touches the network; ``llm`` asks the reasoning tier
through an API (the default when an Anthropic key is configured); ``host`` hands the analysis
to the agent that called app-convert (pause, answer, resume: ``host``; the default with no key
when ``caller`` finds an agent's variable in the environment).  Both LLM analysts get
the same prompt (``brief``) and have their plans judged the same way (``loop``).

Every analyzer is called as ``analyze(inventory) -> Plan``.  The llm analyzer also takes
keyword arguments: ``analyze(inventory, *, provider=None, config=None, progress=None,
max_attempts=3, budget_tokens=60_000)``, where ``progress`` is a ``Callable[[str], None]``
that gets a line before and after each model call; ``converter.analyzers.llm.
analyze_with_usage`` (same arguments) returns an ``Analysis`` with the plan, the tokens used,
the number of attempts and the model, for the conversion report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from skill2app.converter.analyzers.analysis import Analysis, Progress
from skill2app.converter.errors import UsageError

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.plan.model import Plan

__all__ = ["ANALYZERS", "Analysis", "Progress", "default_analyzer", "get_analyzer", "run_analyzer"]

ANALYZERS = ("heuristic", "llm", "host")


def default_analyzer(has_api_key: bool, agent: str | None = None) -> str:
    """``llm`` with an API key; else ``host`` when a coding ``agent`` runs app-convert
    (``caller.calling_agent``); else the offline ``heuristic``."""
    if has_api_key:
        return "llm"
    return "host" if agent else "heuristic"


def get_analyzer(name: str) -> Callable[[Inventory], Plan]:
    """The ``analyze(inventory) -> Plan`` function of analyzer ``name``."""
    if name == "heuristic":
        from skill2app.converter.analyzers.heuristic import analyze

        return analyze
    if name == "llm":
        from skill2app.converter.analyzers.llm import analyze as analyze_llm

        return analyze_llm
    if name == "host":
        raise UsageError(
            "the host analyzer pauses for the calling agent: it has no analyze() call",
            hint="run app-convert SKILL --analyzer host and follow the JSON it prints",
        )
    raise UsageError(f"unknown analyzer {name!r}", hint=f"use one of: {', '.join(ANALYZERS)}")


def run_analyzer(
    name: str,
    inventory: Inventory,
    progress: Progress | None = None,
    readme: str = "README.md",
    *,
    max_attempts: int = 3,
    review: bool = True,
) -> Analysis:
    """Analyzer ``name`` on ``inventory``: the plan with its cost (for the report)."""
    if name == "llm":
        from skill2app.converter.analyzers.llm import analyze_with_usage

        return analyze_with_usage(
            inventory, progress=progress, readme=readme, max_attempts=max_attempts, review=review
        )
    return Analysis(get_analyzer(name)(inventory))
