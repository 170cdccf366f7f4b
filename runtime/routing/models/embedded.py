"""The ``embedded`` routing strategy: offline, no LLM call, a few milliseconds a request.

Every pipeline contributes phrases (its description and each trigger).  A request is scored
against each phrase three ways, and the phrase keeps the largest:

* **dense**, the mean of two models' cosines: the multilingual sentence encoder
  (``sentence.py``, USE multilingual v3: 16 languages in one space, so a Chinese request meets
  an English trigger) and the shipped static embeddings (``encoder.py``: half the cosine of
  pooled token vectors, half a token alignment, each request token's best match in the phrase
  and back, weighted by token importance, which keeps "refund" from drowning in a long
  description).  The static model is English-only, so the share of the request, or of the
  phrase, that is not English (``language.py``: CJK characters, another language's function
  words) moves the weight to the sentence encoder.  A clear static match keeps 0.8 of its
  score whatever the sentence encoder says;
* **lexical**, TF-IDF over words, word trigrams and CJK characters/bigrams (``lexical.py``),
  scaled by ``lexical_weight`` / ``cjk_weight``: typos and exact domain words.

A pipeline's score mixes its best and second-best phrases' (``support``).  The router answers
the best pipeline only if its score reaches ``threshold`` and beats the runner-up by
``margin``; otherwise *no match*, so the Runner falls back to Skill mode.  The defaults were
calibrated on the DEV split of ``benchmarks/routing`` (``python benchmarks/routing/run.py
--calibrate``); figures in the README.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skill2app.runtime.routing.models.encoder import MODEL_DIR, TokenVectors, load_encoder
from skill2app.runtime.routing.models.language import foreign_share
from skill2app.runtime.routing.models.lexical import LexicalIndex
from skill2app.runtime.routing.models.sentence import load_sentence_encoder
from skill2app.runtime.routing.route import Candidate, RouteDecision, RouteEntry

if TYPE_CHECKING:
    import numpy as np

# Calibrated on the DEV split (benchmarks/routing/run.py --calibrate): see README "Routing".
DEFAULT_THRESHOLD = 0.41
DEFAULT_MARGIN = 0.02
DEFAULT_LEXICAL_WEIGHT = 0.5  # Latin-script words and trigrams
DEFAULT_CJK_WEIGHT = 0.6  # CJK characters and bigrams
DEFAULT_SENTENCE_SHARE = 0.5  # of the dense score, for a request with no CJK characters
DEFAULT_SUPPORT = 0.375  # share of a pipeline's second-best phrase in its score
# The dense score is at least this share of the static model's: the sentence encoder is
# sensitive to a sentence's form ("please review my pull request" is nearer "I want a refund"
# than "review this PR" for it), and must not pull a clear word-level match under the threshold.
_STATIC_FLOOR = 0.8

TOP_K = 5
# A file path's folders say where a file is, not what the user wants: "summarise
# /tmp/pytest-7/test_x/sales.csv" is scored as "summarise sales.csv".  A path starts with
# ~/ ./ ../ or /, or has two folders; "feature/login", "A/B" and URLs are left alone.
_FOLDERS = re.compile(r"(?<!\S)(?:(?:~|\.{1,2})?/(?:[\w.@+-]+/)*|(?:[\w.@+-]+/){2,})(?=[\w.@+-])")
_COSINE_SHARE = 0.5  # static score = share * pooled cosine + (1 - share) * token alignment
_SINGLE_THREAD_MACS = 2**18 - 1  # see _products


@dataclass(frozen=True)
class _Phrase:
    pipeline: int  # index into the routing table
    kind: str  # "description" | "trigger"
    text: str

    def why(self, score: float) -> str:
        text = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f'{self.kind} "{text}" ({score:.2f})'


class _DenseIndex:
    """Token and sentence vectors of the phrases, packed for a few matrix products a request."""

    def __init__(self, vectors: Sequence[TokenVectors]) -> None:
        import numpy as np

        self.size = len(vectors)
        self.has_tokens = np.array([not v.empty for v in vectors], dtype=bool)
        kept = [v for v in vectors if not v.empty]
        lengths = np.array([len(v.weights) for v in kept], dtype=np.int64)
        self.starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(kept) else lengths
        units = np.concatenate([v.units for v in kept]) if kept else np.zeros((0, 1), np.float32)
        ids = np.concatenate([v.ids for v in kept]) if kept else np.zeros(0, np.int64)
        # The same token recurs across phrases: compare the request with each distinct one once
        # (told apart by id: a sort of ids, not of vectors).
        distinct, first, self.token_of = np.unique(ids, return_index=True, return_inverse=True)
        self.distinct_units = units[first] if len(distinct) else np.zeros((0, units.shape[1]))
        self.token_of = self.token_of.reshape(-1)
        self.weights = np.concatenate([v.weights for v in kept]) if kept else np.zeros(0)
        self.weight_sums = np.add.reduceat(self.weights, self.starts) if kept else np.zeros(0)
        self.sentences = np.stack([v.sentence for v in kept]) if kept else np.zeros((0, 1))

    def scores(self, request: TokenVectors) -> np.ndarray:
        import numpy as np

        out = np.zeros(self.size, dtype=np.float64)
        if request.empty or not self.has_tokens.any():
            return out
        sims = _products(request.units, self.distinct_units)[:, self.token_of]
        best_in_phrase = np.maximum.reduceat(sims, self.starts, axis=1)
        recall = (request.weights @ best_in_phrase) / request.weights.sum()
        covered = np.add.reduceat(sims.max(axis=0) * self.weights, self.starts)
        precision = covered / self.weight_sums
        cosine = self.sentences @ request.sentence
        alignment = (recall + precision) / 2
        out[self.has_tokens] = _COSINE_SHARE * cosine + (1 - _COSINE_SHARE) * alignment
        return out


def _products(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``left @ right.T`` in column blocks small enough to stay on one BLAS thread.

    OpenBLAS hands products above ~2**18 multiply-adds to several threads; at this size the
    hand-off costs more than it saves (3x slower here), and its threads spin on a busy
    machine, which showed as 8-20 ms p95 spikes.
    """
    import numpy as np

    block = max(16, _SINGLE_THREAD_MACS // max(1, left.shape[0] * left.shape[1]))
    if right.shape[0] <= block:
        return left @ right.T
    return np.concatenate(
        [left @ right[i : i + block].T for i in range(0, right.shape[0], block)], axis=1
    )


class EmbeddedRouter:
    """Route requests over one routing table; the table is embedded once, here."""

    strategy = "embedded"

    def __init__(
        self,
        entries: Sequence[RouteEntry],
        *,
        threshold: float | None = None,
        margin: float | None = None,
        lexical_weight: float | None = None,
        cjk_weight: float | None = None,
        sentence_share: float | None = None,
        support: float | None = None,
        model_dir: Path = MODEL_DIR,
        cache_dir: Path | None = None,
    ) -> None:
        """``cache_dir`` keeps a fast-loading copy of the sentence encoder (``sentence.py``)."""
        import numpy as np

        self.entries = tuple(entries)
        self.threshold = DEFAULT_THRESHOLD if threshold is None else threshold
        self.margin = DEFAULT_MARGIN if margin is None else margin
        self.lexical_weight = DEFAULT_LEXICAL_WEIGHT if lexical_weight is None else lexical_weight
        self.cjk_weight = DEFAULT_CJK_WEIGHT if cjk_weight is None else cjk_weight
        self.sentence_share = DEFAULT_SENTENCE_SHARE if sentence_share is None else sentence_share
        self.support = DEFAULT_SUPPORT if support is None else support
        self._phrases = [
            _Phrase(i, kind, text)
            for i, entry in enumerate(self.entries)
            for kind, text in [("description", entry.description)]
            + [("trigger", t) for t in entry.triggers]
            if text.strip()
        ]
        texts = [p.text for p in self._phrases]
        self._encoder = load_encoder(model_dir)
        self._dense = _DenseIndex(self._encoder.encode(texts))
        self._sentences = load_sentence_encoder(cache_dir)
        self._sentence_vectors = self._sentences.encode_phrases(texts)
        # A phrase in another language is one the static model cannot read either.
        self._phrase_foreign = np.array([foreign_share(t) for t in texts])
        self._latin = LexicalIndex(texts, cjk=False)
        self._cjk = LexicalIndex(texts, cjk=True)

    def candidates(self, request: str, limit: int | None = None) -> list[Candidate]:
        """Pipelines scored by their two best phrases, best first (all of them, or ``limit``):
        ``support`` of the score is the second phrase's, so a request that meets a pipeline in
        two phrasings outranks one that meets a single phrase of another by chance (a pipeline
        with one phrase counts it twice)."""
        import numpy as np

        request = _FOLDERS.sub("", request)
        static = self._dense.scores(self._encoder.encode([request])[0])
        sentence = self._sentence_vectors @ self._sentences.encode([request])[0]
        foreign = np.maximum(foreign_share(request), self._phrase_foreign)
        share = self.sentence_share + (1 - self.sentence_share) * foreign
        dense = np.maximum(share * sentence + (1 - share) * static, _STATIC_FLOOR * static)
        latin = self.lexical_weight * np.asarray(self._latin.scores(request))
        cjk = self.cjk_weight * np.asarray(self._cjk.scores(request))
        combined = np.maximum(dense, np.maximum(latin, cjk))
        scores = combined.tolist()
        best: dict[int, int] = {}  # pipeline -> its best phrase
        second: dict[int, int] = {}  # pipeline -> its second-best phrase
        for index in np.argsort(-combined, kind="stable").tolist():
            owner = self._phrases[index].pipeline
            if owner not in best:
                best[owner] = index
            elif owner not in second:
                second[owner] = index
        out: list[Candidate] = []
        for owner, index in best.items():
            top, why = scores[index], self._phrases[index].why(scores[index])
            other = second.get(owner)
            backing = top if other is None else scores[other]
            if other is not None and self.support:
                why += f" and {self._phrases[other].why(backing)}"
            score = (1 - self.support) * top + self.support * backing
            out.append(Candidate(self.entries[owner].name, score, why))
        out.sort(key=lambda c: -c.score)  # stable: ties keep the best phrase's order
        return out if limit is None else out[:limit]

    def route(self, request: str) -> RouteDecision:
        if not self._phrases:
            return RouteDecision(
                None, 0.0, self.strategy, (), "no match: the routing table is empty"
            )
        ranked = self.candidates(request, limit=TOP_K)
        top = tuple(ranked)
        first = ranked[0]
        if first.score < self.threshold:
            reason = (
                f'no match: best "{first.pipeline}" scores {first.score:.2f}, '
                f"below the threshold {self.threshold:.2f}"
            )
            return RouteDecision(None, first.score, self.strategy, top, reason)
        if len(ranked) > 1 and first.score - ranked[1].score < self.margin:
            second = ranked[1]
            reason = (
                f'no match: ambiguous, "{first.pipeline}" ({first.score:.2f}) and '
                f'"{second.pipeline}" ({second.score:.2f}) are within the margin {self.margin:.2f}'
            )
            return RouteDecision(None, first.score, self.strategy, top, reason)
        runner_up = (
            f', {first.score - ranked[1].score:.2f} ahead of "{ranked[1].pipeline}"'
            if (len(ranked) > 1)
            else ""
        )
        reason = f'matched "{first.pipeline}" by {first.why}{runner_up}'
        return RouteDecision(first.pipeline, first.score, self.strategy, top, reason)
