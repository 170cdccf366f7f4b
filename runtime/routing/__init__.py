"""Routing: pick the one business pipeline a user request is for, or none (Skill mode).

``router`` picks with a strategy (embedded, llm, hybrid); ``extraction`` then fills the
pipeline's inputs from the request (what it mentions: ``mentions``).  ``route`` holds the
nouns; ``models`` the embedded strategy's models.

``EmbeddedRouter`` is the default strategy: offline, no LLM call, milliseconds per request.
It scores the request against every pipeline's description and triggers with a multilingual
sentence encoder (``models/sentence.py``), a static English embedding model shipped in
``models/static/`` and a lexical (word and CJK character) index, and answers *no match* below
a calibrated threshold or when the best two are within a margin.

Importing this package is cheap: numpy, tokenizers and the sentence encoder are imported only
when an ``EmbeddedRouter`` is built.
"""

from skill2app.runtime.routing.models.embedded import (
    DEFAULT_MARGIN,
    DEFAULT_THRESHOLD,
    EmbeddedRouter,
)
from skill2app.runtime.routing.route import Candidate, RouteDecision, RouteEntry

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_THRESHOLD",
    "Candidate",
    "EmbeddedRouter",
    "RouteDecision",
    "RouteEntry",
]
