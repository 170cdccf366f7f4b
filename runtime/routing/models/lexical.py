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

from skill2app.runtime.routing.models.encoder import CJK_RE

_WORD_RE = re.compile(r"[^\W_]+")
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
    scales, so the router weighs them separately.
    """

    def __init__(self, phrases: Sequence[str], *, cjk: bool) -> None:
        self.cjk = cjk
        per_phrase = [_script_features(p, cjk) for p in phrases]
        doc_freq = Counter(f for feats in per_phrase for f in feats)
        n = len(phrases)
        self._idf = {f: math.log((n + 1) / (df + 0.5)) for f, df in doc_freq.items()}
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for index, feats in enumerate(per_phrase):
            for feature, weight in self._vector(feats).items():
                self._postings[feature].append((index, weight))
        self._size = n

    def _vector(self, feats: dict[str, float]) -> dict[str, float]:
        vec = {f: c * self._idf[f] for f, c in feats.items() if f in self._idf}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        return {f: v / norm for f, v in vec.items()} if norm > 0 else {}

    def scores(self, text: str) -> list[float]:
        """Cosine similarity between ``text`` and every phrase (0.0 when nothing is shared)."""
        out = [0.0] * self._size
        for feature, weight in self._vector(_script_features(text, self.cjk)).items():
            for index, phrase_weight in self._postings[feature]:
                out[index] += weight * phrase_weight
        return out
