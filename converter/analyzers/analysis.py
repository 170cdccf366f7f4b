"""What an analyzer returns: the plan, and what making it cost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skill2app.converter.plan.model import Plan
    from skill2app.converter.render.render import RenderedFile
    from skill2app.converter.verify.requests import RequestCheck
    from skill2app.converter.verify.verify import Verification

Progress = Callable[[str], None]


@dataclass
class Analysis:
    """A plan and what it cost: tokens summed over every attempt (zero offline).  An LLM
    analyst's plan comes with the files it renders to, their verification (in a temporary
    copy), which passed, and where the skill's own requests route through it: the caller
    writes those files and reports those findings."""

    plan: Plan
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    attempts: int = 1
    model: str = ""
    files: list[RenderedFile] = field(default_factory=list)
    verification: Verification | None = None
    notes: list[str] = field(default_factory=list)  # for the report (a review that failed)
    requests: RequestCheck | None = None
