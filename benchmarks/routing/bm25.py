"""The baseline: Okapi BM25 over each pipeline's description + triggers (one document each).

Words are lower-cased Latin-script tokens; CJK text counts one token per character, so the
baseline can match Chinese at all.  Like the embedded router it answers no match below a
threshold or within a margin of the runner-up; both are calibrated on DEV the same way.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from skill2app.runtime.routing import Candidate, RouteEntry

_TOKEN_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]|[^\W_]+")
_STOP = frozenset(
    "a an the to of for in on at is are my me i we our you your it this that and or".split()
)


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN_RE.findall(text.casefold()) if t not in _STOP]


class Bm25Router:
    strategy = "bm25"

    def __init__(self, entries: Sequence[RouteEntry], *, k1: float = 1.5, b: float = 0.75) -> None:
        self.names = [e.name for e in entries]
        self.docs = [Counter(tokens(" ".join((e.description, *e.triggers)))) for e in entries]
        lengths = [sum(d.values()) for d in self.docs]
        self.avg_len = sum(lengths) / max(len(lengths), 1)
        self.lengths = lengths
        df = Counter(t for d in self.docs for t in d)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b

    def candidates(self, request: str) -> list[Candidate]:
        query = set(tokens(request))
        scored = []
        for name, doc, length in zip(self.names, self.docs, self.lengths, strict=True):
            score = 0.0
            for term in query & doc.keys():
                tf = doc[term]
                norm = self.k1 * (1 - self.b + self.b * length / self.avg_len)
                score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            scored.append(Candidate(name, score, "bm25"))
        return sorted(scored, key=lambda c: -c.score)
