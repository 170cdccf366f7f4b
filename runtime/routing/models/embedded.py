"""The ``embedded`` routing strategy: offline, no LLM call, a few milliseconds a request.

Every pipeline contributes phrases (its description and each trigger).  A request is scored
against each phrase three ways, and the phrase keeps the largest:

* **dense**, a mean of two models' cosines: the multilingual sentence encoder
  (``sentence.py``, USE multilingual v3: 16 languages in one space, so a Chinese request meets
  an English trigger) and the shipped static embeddings (``encoder.py``: half the cosine of
  pooled token vectors, half a token alignment, each request token's best match in the phrase
  and back, weighted by token importance, which keeps "refund" from drowning in a long
  description).  The static model is English-only, so the share of the request, or of the
  phrase, that is not English (``language.py``: CJK characters, another language's function
  words) moves the weight to the sentence encoder.  A clear static match keeps ``static_floor``
  of its score whatever the sentence encoder says;
* **lexical**, TF-IDF over words, word trigrams and CJK characters/bigrams (``lexical.py``),
  scaled by ``lexical_weight`` / ``cjk_weight``: typos and exact domain words.

A pipeline's score mixes its best and second-best phrases' (``support``).  Requests confirmed
for a pipeline before (``RouteEntry.learned``) are phrases too, dense only, and count only from
``LEARNED_FROM``: a request asked again, or nearly so, goes where it went, while a paraphrase
of it is left to the APP's own phrases (learning every paraphrase raised wrong routes on the
benchmark).  What the ranked candidates come to — match, unsure or no match — is
``decision.py``'s.  The weights were calibrated on the DEV split of ``benchmarks/routing``
(``python benchmarks/routing/run.py --calibrate``); figures in its README.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import skill2app.runtime.routing.decision as decide
from skill2app.runtime.routing.models.encoder import MODEL_DIR, load_encoder
from skill2app.runtime.routing.models.index import PhraseIndex, load_index
from skill2app.runtime.routing.models.language import foreign_share
from skill2app.runtime.routing.route import Candidate, RouteDecision, RouteEntry

if TYPE_CHECKING:
    import numpy as np

# Calibrated on the DEV split (benchmarks/routing/run.py --calibrate): see its README.
DEFAULT_LEXICAL_WEIGHT = 0.5  # Latin-script words and trigrams
DEFAULT_CJK_WEIGHT = 0.6  # CJK characters and bigrams
DEFAULT_SENTENCE_SHARE = 0.7  # of the dense score, for a request and phrase in English
DEFAULT_SUPPORT = 0.375  # share of a pipeline's second-best phrase in its score
# The dense score is at least this share of the static model's: the sentence encoder is
# sensitive to a sentence's form ("please review my pull request" is nearer "I want a refund"
# than "review this PR" for it), and must not pull a clear word-level match far down.
DEFAULT_STATIC_FLOOR = 0.5
LEARNED_FROM = 0.7  # a learned request counts from this score on (near repeats)

TOP_K = 5
# A file path's folders say where a file is, not what the user wants: "summarise
# /tmp/pytest-7/test_x/sales.csv" is scored as "summarise sales.csv".  A path starts with
# ~/ ./ ../ or /, or has two folders; "feature/login", "A/B" and URLs are left alone.
_FOLDERS = re.compile(r"(?<!\S)(?:(?:~|\.{1,2})?/(?:[\w.@+-]+/)*|(?:[\w.@+-]+/){2,})(?=[\w.@+-])")


@dataclass(frozen=True)
class Weights:
    """How a phrase's and a pipeline's scores are made from the models' (calibrated)."""

    lexical: float = DEFAULT_LEXICAL_WEIGHT
    cjk: float = DEFAULT_CJK_WEIGHT
    sentence_share: float = DEFAULT_SENTENCE_SHARE
    support: float = DEFAULT_SUPPORT
    static_floor: float = DEFAULT_STATIC_FLOOR


@dataclass(frozen=True)
class Parts:
    """Each model's score of one request against every phrase (arrays, one value a phrase)."""

    static: np.ndarray
    sentence: np.ndarray
    foreign: np.ndarray  # how far from English the request or the phrase is (the larger)
    latin: np.ndarray
    cjk: np.ndarray


def _combine(w: Weights, parts: Parts) -> np.ndarray:
    """A phrase's score: the largest of its dense and lexical scores (arrays of any shape)."""
    import numpy as np

    share = w.sentence_share + (1 - w.sentence_share) * parts.foreign
    dense = np.maximum(
        share * parts.sentence + (1 - share) * parts.static, w.static_floor * parts.static
    )
    return np.maximum(dense, np.maximum(w.lexical * parts.latin, w.cjk * parts.cjk))


class EmbeddedRouter:
    """Route requests over one routing table; the table is embedded once, here (or loaded
    from ``cache_dir``, where an unchanged table's index is kept between runs)."""

    strategy = "embedded"

    def __init__(
        self,
        entries: Sequence[RouteEntry],
        *,
        lexical_weight: float | None = None,
        cjk_weight: float | None = None,
        sentence_share: float | None = None,
        support: float | None = None,
        static_floor: float | None = None,
        policy: decide.Policy | None = None,
        model_dir: Path = MODEL_DIR,
        cache_dir: Path | None = None,
    ) -> None:
        """``cache_dir`` keeps a fast-loading copy of the sentence encoder (``sentence.py``)
        and the index of the tables last routed (``index.py``)."""
        from skill2app.runtime.routing.models.blas import numpy

        numpy()  # before anything imports it: one BLAS thread
        given = {
            "lexical": lexical_weight,
            "cjk": cjk_weight,
            "sentence_share": sentence_share,
            "support": support,
            "static_floor": static_floor,
        }
        self.weights = Weights(**{k: v for k, v in given.items() if v is not None})
        self.policy = policy or decide.POLICY
        self.entries = tuple(entries)
        self._model_dir = model_dir
        self.index: PhraseIndex = load_index(self.entries, model_dir, cache_dir)

    # --- scoring ---------------------------------------------------------------------------

    def parts(self, request: str) -> Parts:
        """What each model makes of ``request`` against every phrase."""
        import numpy as np

        request = _FOLDERS.sub("", request)
        index = self.index
        static = index.dense.scores(load_encoder(self._model_dir).encode([request])[0])
        sentence = index.sentence_vectors @ index.sentences().encode([request])[0]
        foreign = np.maximum(foreign_share(request), index.foreign)
        return Parts(
            static, sentence, foreign, index.latin.scores(request), index.cjk.scores(request)
        )

    def phrase_scores(self, parts: Parts, weights: Weights | None = None) -> np.ndarray:
        """Each phrase's score from ``parts`` (a learned phrase's -1 below LEARNED_FROM)."""
        import numpy as np

        combined = _combine(weights or self.weights, parts)
        learned = self.index.learned
        return np.where(learned & (combined < LEARNED_FROM), -1.0, combined)

    def phrase_matrix(self) -> np.ndarray:
        """Every phrase of the table routed as a request against every phrase, (n, n): row i is
        ``phrase_scores`` of phrase i (the routing self-test leaves the diagonal out)."""
        import numpy as np

        index = self.index
        parts = Parts(
            index.dense.matrix(),
            index.sentence_vectors @ index.sentence_vectors.T,
            np.maximum(index.foreign[:, None], index.foreign[None, :]),
            index.latin.matrix(),
            index.cjk.matrix(),
        )
        return _combine(self.weights, parts)

    def pipeline_scores(self, scores: np.ndarray) -> np.ndarray:
        """``rank``'s scores without the ranking: for rows of phrase scores (n, phrases), each
        pipeline's score (n, pipelines); a pipeline with no phrase that counts scores -1."""
        import numpy as np

        owners = np.array([p.pipeline for p in self.index.phrases], dtype=np.int64)
        out = np.full((scores.shape[0], len(self.entries)), -1.0)
        share = self.weights.support
        for owner in range(len(self.entries)):
            mine = np.sort(scores[:, owners == owner], axis=1)[:, ::-1]
            if mine.shape[1] == 0:
                continue
            top = mine[:, 0]
            backing = mine[:, 1] if mine.shape[1] > 1 else top
            backing = np.where(backing < 0, top, backing)
            out[:, owner] = np.where(top < 0, -1.0, (1 - share) * top + share * backing)
        return out

    def rank(self, scores: np.ndarray, support: float | None = None) -> list[Candidate]:
        """Pipelines scored by their two best phrases, best first: ``support`` of the score is
        the second phrase's, so a request that meets a pipeline in two phrasings outranks one
        that meets a single phrase of another by chance (a pipeline with one phrase counts it
        twice).  A pipeline none of whose phrases counts is left out."""
        import numpy as np

        share = self.weights.support if support is None else support
        phrases = self.index.phrases
        values = scores.tolist()
        best: dict[int, int] = {}  # pipeline -> its best phrase
        second: dict[int, int] = {}  # pipeline -> its second-best phrase
        for at in np.argsort(-scores, kind="stable").tolist():
            if values[at] < 0:
                break
            owner = phrases[at].pipeline
            if owner not in best:
                best[owner] = at
            elif owner not in second:
                second[owner] = at
        out: list[Candidate] = []
        for owner, at in best.items():
            top, why = values[at], phrases[at].why(values[at])
            other = second.get(owner)
            backing = top if other is None else values[other]
            if other is not None and share:
                why += f" and {phrases[other].why(backing)}"
            out.append(
                Candidate(self.entries[owner].name, (1 - share) * top + share * backing, why)
            )
        out.sort(key=lambda c: -c.score)  # stable: ties keep the best phrase's order
        return out

    def candidates(self, request: str, limit: int | None = None) -> list[Candidate]:
        """Every pipeline (or the ``limit`` best) scored for ``request``, best first."""
        ranked = self.rank(self.phrase_scores(self.parts(request)))
        return ranked if limit is None else ranked[:limit]

    def route(self, request: str) -> RouteDecision:
        ranked = self.candidates(request) if self.index.phrases else []
        decided = decide.outcome(ranked, self.policy)
        shown = decide.short_list(ranked, self.policy) if decided == "unsure" else ranked[:TOP_K]
        return RouteDecision(
            ranked[0].pipeline if decided == "match" else None,
            ranked[0].score if ranked else 0.0,
            self.strategy,
            tuple(shown),
            decide.reason(decided, ranked, self.policy),
            decided,
        )
