"""Routing: pick the one business pipeline a user request is for, or none (Skill mode).

``router`` picks with a strategy (embedded, llm, hybrid); ``decision`` turns the embedded
router's ranking into a match, an unsure short list or a no match; ``memory`` keeps the
requests confirmed for a pipeline (learned examples); ``selftest`` checks that an APP's own
triggers route; ``extraction`` then fills the pipeline's inputs from the request (what it
mentions: ``mentions``; free text: ``freetext``).  ``route`` holds the nouns; ``models`` the
embedded strategy's models.

``EmbeddedRouter`` is the default strategy: offline, no LLM call, milliseconds per request.
It scores the request against every pipeline's description and triggers with a multilingual
sentence encoder (``models/sentence.py``), a static English embedding model shipped in
``models/static/`` and a lexical (word and CJK character) index.

Importing this package is cheap: numpy, tokenizers and the sentence encoder are imported only
when an ``EmbeddedRouter`` is built.
"""

from skill2app.runtime.routing.models.embedded import EmbeddedRouter
from skill2app.runtime.routing.route import (
    MATCH,
    NO_MATCH,
    UNSURE,
    Candidate,
    RouteDecision,
    RouteEntry,
)

__all__ = [
    "MATCH",
    "NO_MATCH",
    "UNSURE",
    "Candidate",
    "EmbeddedRouter",
    "RouteDecision",
    "RouteEntry",
]
