"""A lexical index over the routing table's phrases: TF-IDF cosine, pure Python.

It complements the static embeddings where they are weak:

* CJK text (the embedding vocabulary is English): characters and character bigrams, so a
  Chinese request matches a Chinese trigger that shares its words (中文 has no spaces);
* typos and other Latin-script languages: character trigrams of each word;
* exact domain words (``fapiao``, ``DPIA``, ``SKU``): stemmed word features.

Function words (English stop words, Chinese function characters) carry no feature, so
"帮我…" or "can you please…" alone does not make two phrases alike.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from skill2app.runtime.routing.models.encoder import CJK_RE

if TYPE_CHECKING:
    import numpy as np

_WORD_RE = re.compile(r"[^\W_]+")
_SEPARATOR = "\x00"  # between feature names when stored (no feature holds it)
_TRIGRAM_WEIGHT = 0.3  # a shared trigram is weaker evidence than a shared word

_STOP_WORDS = frozenset(
    """a about after again all also am an and any are as at be been before but by can could
    did do does doing for from get give go had has have he her him his how i if in into is it
    its just let like me more my need no not now of off on or our out over please pls she so
    some than that the their them then there these they this those to too up us very want was
    we were what when where which who why will with would you your""".split()
)
# Chinese characters that carry grammar, not topic (我, 的, 帮, 一下 …).
_STOP_CHARS = frozenset(
    "的了吗呢吧啊呀么我你您他她它们是在有和与及或把被给让帮请一个下这那哪什怎要想能会可以就都也还很再又"
)


def _stem(word: str) -> str:
    """A deliberately crude English stemmer: enough to match 'reviews' with 'review'."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def features(text: str) -> dict[str, float]:
    """The weighted features of ``text``: stemmed words, word trigrams, CJK chars and bigrams."""
    text = unicodedata.normalize("NFKC", text).casefold()
    feats: defaultdict[str, float] = defaultdict(float)
    for word in _WORD_RE.findall(CJK_RE.sub(" ", text)):
        if word in _STOP_WORDS:
            continue
        feats["w:" + _stem(word)] += 1.0
        if len(word) >= 4:
            padded = f"<{word}>"
            for i in range(len(padded) - 2):
                feats["t:" + padded[i : i + 3]] += _TRIGRAM_WEIGHT
    for run in CJK_RE.findall(text):
        for i, char in enumerate(run):
            if char not in _STOP_CHARS:
                feats["c:" + char] += 1.0
            pair = run[i : i + 2]
            if len(pair) == 2 and not (pair[0] in _STOP_CHARS and pair[1] in _STOP_CHARS):
                feats["b:" + pair] += 1.0
    return dict(feats)


_CJK_PREFIXES = ("c:", "b:")


def _script_features(text: str, cjk: bool) -> dict[str, float]:
    return {f: c for f, c in features(text).items() if f.startswith(_CJK_PREFIXES) == cjk}


class LexicalIndex:
    """TF-IDF vectors of phrases with an inverted index; ``scores`` is cosine per phrase.

    One index covers one script family: ``cjk=False`` indexes Latin-script words and
    trigrams, ``cjk=True`` CJK characters and bigrams.  Their cosines live on different
    scales, so the router weighs them separately.  The index is plain arrays (``arrays``,
    ``from_arrays``), so a routing table's index can be kept on disk between runs.
    """

    def __init__(self, phrases: Sequence[str], *, cjk: bool) -> None:
        import numpy as np

        self.cjk = cjk
        per_phrase = [_script_features(p, cjk) for p in phrases]
        doc_freq = Counter(f for feats in per_phrase for f in feats)
        n = len(phrases)
        self._row = {f: i for i, f in enumerate(doc_freq)}
        self._idf = np.array([math.log((n + 1) / (df + 0.5)) for df in doc_freq.values()])
        postings: list[list[tuple[int, float]]] = [[] for _ in doc_freq]
        for index, feats in enumerate(per_phrase):
            for row, weight in self._vector(feats):
                postings[row].append((index, weight))
        lengths = np.array([len(p) for p in postings], dtype=np.int64)
        self._offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        flat = [item for p in postings for item in p]
        self._phrases = np.array([i for i, _ in flat], dtype=np.int64)
        self._weights = np.array([w for _, w in flat], dtype=np.float64)
        self._size = n

    def _vector(self, feats: dict[str, float]) -> list[tuple[int, float]]:
        rows = [(self._row[f], c) for f, c in feats.items() if f in self._row]
        vec = [(row, c * float(self._idf[row])) for row, c in rows]
        norm = math.sqrt(sum(v * v for _, v in vec))
        return [(row, v / norm) for row, v in vec] if norm > 0 else []

    def scores(self, text: str) -> np.ndarray:
        """Cosine similarity between ``text`` and every phrase (0.0 when nothing is shared)."""
        import numpy as np

        out = np.zeros(self._size, dtype=np.float64)
        for row, weight in self._vector(_script_features(text, self.cjk)):
            start, end = self._offsets[row], self._offsets[row + 1]
            out[self._phrases[start:end]] += weight * self._weights[start:end]
        return out

    def matrix(self) -> np.ndarray:
        """``scores`` of every phrase taken as the text, against every phrase: (n, n).  A
        phrase's own vector is its postings, so this is the Gram matrix of the postings."""
        import numpy as np

        out = np.zeros((self._size, self._size), dtype=np.float64)
        for row in range(len(self._idf)):
            start, end = self._offsets[row], self._offsets[row + 1]
            phrases, weights = self._phrases[start:end], self._weights[start:end]
            out[np.ix_(phrases, phrases)] += np.outer(weights, weights)
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        import numpy as np

        names = _SEPARATOR.join(self._row).encode("utf-8", "surrogatepass")
        return {
            "names": np.frombuffer(names, dtype=np.uint8),
            "idf": self._idf,
            "offsets": self._offsets,
            "phrases": self._phrases,
            "weights": self._weights,
            "size": np.array([self._size, int(self.cjk)], dtype=np.int64),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> LexicalIndex:
        """The index ``arrays`` gave; ValueError when they do not fit together."""
        index = cls.__new__(cls)
        size, cjk = (int(v) for v in arrays["size"])
        text = arrays["names"].tobytes().decode("utf-8", "surrogatepass")
        names = text.split(_SEPARATOR) if text else []
        index.cjk, index._size = bool(cjk), size
        index._row = {name: i for i, name in enumerate(names)}
        index._idf, index._offsets = arrays["idf"], arrays["offsets"]
        index._phrases, index._weights = arrays["phrases"], arrays["weights"]
        fits = (
            len(index._row) == len(names) == len(index._idf) == len(index._offsets) - 1
            and len(index._phrases) == len(index._weights) == int(index._offsets[-1])
            and (len(index._phrases) == 0 or 0 <= int(index._phrases.min()))
            and (len(index._phrases) == 0 or int(index._phrases.max()) < size)
        )
        if not fits:
            raise ValueError("a lexical index whose arrays do not fit together")
        return index
