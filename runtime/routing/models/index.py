"""A routing table's phrases, embedded: what the embedded router compares a request with.

Building it takes the static encoder's token vectors of every phrase, the sentence encoder's
vectors (kept apart by ``sentence.py``), each phrase's language and the two lexical indexes:
~40 ms for a 100-pipeline table on top of loading the models.  ``app-run route`` is a fresh
process per request, so the whole index is kept in one file, ``<cache>/router/<key>.npz``
(plain arrays, no pickles, 0600 in a 0700 folder, used only if the current user owns it and
no one else can write it), keyed by the phrases, the models and this code; a damaged file is
rebuilt.  The files of the ``KEPT`` tables used last are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zipfile import BadZipFile

from skill2app.runtime.routing.models.encoder import TokenVectors, load_encoder
from skill2app.runtime.routing.models.language import foreign_share
from skill2app.runtime.routing.models.lexical import LexicalIndex
from skill2app.runtime.routing.models.sentence import (
    SentenceEncoder,
    load_sentence_encoder,
    model_stamp,
)
from skill2app.runtime.routing.route import RouteEntry

if TYPE_CHECKING:
    import numpy as np

FORMAT = 1
KEPT = 64
_COSINE_SHARE = 0.5  # static score = share * pooled cosine + (1 - share) * token alignment
_SINGLE_THREAD_MACS = 2**18 - 1  # see _products
_BLOCK_TOKENS = 4096  # phrase_matrix: request tokens per block (bounds its memory)
# The files whose code decides what an index holds: a change in any builds it anew.
_CODE = ("index.py", "encoder.py", "wordpiece.py", "lexical.py", "language.py", "sentence.py")


@dataclass(frozen=True)
class Phrase:
    pipeline: int  # index into the routing table
    kind: str  # "description" | "trigger" | "learned"
    text: str

    def why(self, score: float) -> str:
        text = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f'{self.kind} "{text}" ({score:.2f})'


class DenseIndex:
    """Token and sentence vectors of the phrases, packed for a few matrix products a request."""

    _ARRAYS = ("has_tokens", "starts", "distinct_units", "token_of", "weights", "sentences")
    has_tokens: np.ndarray  # (phrases,) bool: the phrases with a known token (the "kept")
    starts: np.ndarray  # (kept,) where each kept phrase's tokens start
    distinct_units: np.ndarray  # (distinct tokens, dim) unit vectors
    token_of: np.ndarray  # (tokens,) each token's row in distinct_units
    weights: np.ndarray  # (tokens,) each token's weight
    sentences: np.ndarray  # (kept, dim) pooled sentence vectors

    def __init__(self, vectors: Sequence[TokenVectors]) -> None:
        import numpy as np

        has_tokens = np.array([not v.empty for v in vectors], dtype=bool)
        kept = [v for v in vectors if not v.empty]
        lengths = np.array([len(v.weights) for v in kept], dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(kept) else lengths
        dim = kept[0].units.shape[1] if kept else 1
        units = np.concatenate([v.units for v in kept]) if kept else np.zeros((0, dim), np.float32)
        ids = np.concatenate([v.ids for v in kept]) if kept else np.zeros(0, np.int64)
        # The same token recurs across phrases: compare the request with each distinct one once
        # (told apart by id: a sort of ids, not of vectors).
        _, first, token_of = np.unique(ids, return_index=True, return_inverse=True)
        self._set(
            has_tokens=has_tokens,
            starts=starts.astype(np.int64),
            distinct_units=units[first],
            token_of=token_of.reshape(-1).astype(np.int64),
            weights=np.concatenate([v.weights for v in kept]) if kept else np.zeros(0, np.float32),
            sentences=np.stack([v.sentence for v in kept]) if kept else np.zeros((0, dim)),
        )

    def _set(self, **arrays: np.ndarray) -> None:
        import numpy as np

        for name in self._ARRAYS:
            setattr(self, name, arrays[name])
        self.size = len(self.has_tokens)
        kept = len(self.starts)
        self.ends = np.concatenate((self.starts[1:], [len(self.weights)])).astype(np.int64)
        self.weight_sums = np.add.reduceat(self.weights, self.starts) if kept else np.zeros(0)
        fits = (
            int(self.has_tokens.sum()) == kept == len(self.sentences)
            and len(self.token_of) == len(self.weights)
            and (kept == 0 or (self.starts[0] == 0 and bool(np.all(self.ends > self.starts))))
            and (len(self.token_of) == 0 or int(self.token_of.max()) < len(self.distinct_units))
        )
        if not fits:
            raise ValueError("a dense index whose arrays do not fit together")

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self._ARRAYS}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> DenseIndex:
        index = cls.__new__(cls)
        index._set(**{name: arrays[name] for name in cls._ARRAYS})
        return index

    def scores(self, request: TokenVectors) -> np.ndarray:
        """The static score of ``request`` against every phrase."""
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

    def matrix(self) -> np.ndarray:
        """``scores`` of every phrase taken as the request, against every phrase: (n, n)."""
        import numpy as np

        out = np.zeros((self.size, self.size), dtype=np.float64)
        kept = len(self.starts)
        if not kept:
            return out
        units = self.distinct_units[self.token_of]  # each token's unit vector
        inner = np.zeros((kept, kept))
        first = 0
        while first < kept:  # blocks of request phrases, to bound the (tokens, tokens) product
            last = first + 1
            while last < kept and self.ends[last] - self.starts[first] <= _BLOCK_TOKENS:
                last += 1
            rows = slice(int(self.starts[first]), int(self.ends[last - 1]))
            sims = units[rows] @ units.T  # (block tokens, all tokens)
            starts = self.starts[first:last] - self.starts[first]
            best = np.maximum.reduceat(sims, self.starts, axis=1)  # per request token, phrase
            weights = self.weights[rows]
            recall = np.add.reduceat(best * weights[:, None], starts, axis=0)
            recall /= np.add.reduceat(weights, starts)[:, None]
            covered = np.maximum.reduceat(sims, starts, axis=0) * self.weights  # (block, tokens)
            precision = np.add.reduceat(covered, self.starts, axis=1) / self.weight_sums
            cosine = self.sentences[first:last] @ self.sentences.T
            inner[first:last] = _COSINE_SHARE * cosine + (1 - _COSINE_SHARE) * (
                (recall + precision) / 2
            )
            first = last
        where = np.flatnonzero(self.has_tokens)
        out[np.ix_(where, where)] = inner
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


class PhraseIndex:
    """The phrases of a routing table and what each model made of them."""

    def __init__(
        self,
        phrases: list[Phrase],
        dense: DenseIndex,
        sentence_vectors: np.ndarray,
        foreign: np.ndarray,
        lexical: tuple[LexicalIndex, LexicalIndex],
        cache_dir: Path | None,
    ) -> None:
        import numpy as np

        self.phrases = phrases
        self.dense = dense
        self.sentence_vectors = sentence_vectors
        self.foreign = foreign
        self._latin, self._cjk = lexical
        self.learned = np.array([p.kind == "learned" for p in phrases], dtype=bool)
        self._cache_dir = cache_dir
        sizes = {len(phrases), dense.size, len(sentence_vectors), len(foreign)}
        base = len(phrases) - int(self.learned.sum())
        if len(sizes) != 1 or not self._latin._size == self._cjk._size == base:
            raise ValueError("an index whose parts disagree on the number of phrases")

    def sentences(self) -> SentenceEncoder:
        return load_sentence_encoder(self._cache_dir)

    @property
    def latin(self) -> _Padded:
        return _Padded(self._latin, len(self.phrases))

    @property
    def cjk(self) -> _Padded:
        return _Padded(self._cjk, len(self.phrases))

    def texts(self) -> list[str]:
        return [p.text for p in self.phrases]


@dataclass(frozen=True)
class _Padded:
    """A lexical index over the APP's own phrases, scoring learned ones 0."""

    index: LexicalIndex
    size: int

    def scores(self, text: str) -> np.ndarray:
        import numpy as np

        found = self.index.scores(text)
        return np.concatenate((found, np.zeros(self.size - len(found))))

    def matrix(self) -> np.ndarray:
        import numpy as np

        out = np.zeros((self.size, self.size))
        own = self.index.matrix()
        out[: len(own), : len(own)] = own
        return out


def phrases_of(entries: Sequence[RouteEntry]) -> list[Phrase]:
    """The APP's own phrases (descriptions, triggers), then the learned ones."""
    own = [
        Phrase(i, kind, text)
        for i, entry in enumerate(entries)
        for kind, text in [("description", entry.description)]
        + [("trigger", t) for t in entry.triggers]
        if text.strip()
    ]
    learned = [
        Phrase(i, "learned", text)
        for i, entry in enumerate(entries)
        for text in entry.learned
        if text.strip()
    ]
    return own + learned


def load_index(
    entries: Sequence[RouteEntry], model_dir: Path, cache_dir: Path | None
) -> PhraseIndex:
    """The index of ``entries``: from ``cache_dir`` when kept there, else built (and kept)."""
    phrases = phrases_of(entries)
    path = _path(phrases, model_dir, cache_dir) if cache_dir is not None else None
    if path is not None and _owned(path):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError, EOFError, BadZipFile):
            return _load(path, phrases, cache_dir)
    index = _build(phrases, model_dir, cache_dir)
    if path is not None:
        with contextlib.suppress(OSError):
            _save(path, index)
    return index


def _build(phrases: list[Phrase], model_dir: Path, cache_dir: Path | None) -> PhraseIndex:
    import numpy as np

    texts = [p.text for p in phrases]
    own = [p.text for p in phrases if p.kind != "learned"]
    learned = texts[len(own) :]
    sentences = load_sentence_encoder(cache_dir)
    vectors = np.concatenate((sentences.encode_phrases(own), sentences.encode_phrases(learned)))
    return PhraseIndex(
        phrases,
        DenseIndex(load_encoder(model_dir).encode(texts)),
        vectors,
        np.array([foreign_share(t) for t in texts], dtype=np.float64),
        (LexicalIndex(own, cjk=False), LexicalIndex(own, cjk=True)),
        cache_dir,
    )


def _path(phrases: list[Phrase], model_dir: Path, cache_dir: Path) -> Path:
    from skill2app.runtime import __version__

    here = Path(__file__).parent
    rows = [f"format {FORMAT}", __version__, model_stamp(), *_stats(here, _CODE)]
    rows += _stats(model_dir, ("model.safetensors", "tokenizer.json"))
    rows += [f"{p.pipeline}\x00{p.kind}\x00{p.text}" for p in phrases]
    key = hashlib.sha256("\x01".join(rows).encode("utf-8", "surrogatepass")).hexdigest()
    return cache_dir / "router" / f"{key[:32]}.npz"


def _stats(folder: Path, names: Sequence[str]) -> list[str]:
    rows = []
    for name in names:
        try:
            info = (folder / name).stat()
            rows.append(f"{folder / name} {info.st_size} {info.st_mtime_ns}")
        except OSError:
            rows.append(f"{folder / name} missing")
    return rows


def _save(path: Path, index: PhraseIndex) -> None:
    """Write ``index`` to ``path`` atomically (0600), keeping the newest KEPT files."""
    import numpy as np

    arrays: dict[str, Any] = {f"dense_{k}": v for k, v in index.dense.arrays().items()}
    arrays |= {f"latin_{k}": v for k, v in index._latin.arrays().items()}
    arrays |= {f"cjk_{k}": v for k, v in index._cjk.arrays().items()}
    arrays |= {"sentence_vectors": index.sentence_vectors, "foreign": index.foreign}
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, **arrays)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    files = sorted(path.parent.glob("*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEPT:]:
        old.unlink(missing_ok=True)


def _load(path: Path, phrases: list[Phrase], cache_dir: Path | None) -> PhraseIndex:
    import numpy as np

    with path.open("rb") as fh, np.load(fh, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}

    def part(prefix: str) -> dict[str, np.ndarray]:
        return {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}

    vectors, foreign = arrays["sentence_vectors"], arrays["foreign"]
    if vectors.dtype != np.float32 or vectors.ndim != 2 or foreign.ndim != 1:
        raise ValueError("sentence vectors of another shape")
    lexical = (LexicalIndex.from_arrays(part("latin_")), LexicalIndex.from_arrays(part("cjk_")))
    dense = DenseIndex.from_arrays(part("dense_"))
    return PhraseIndex(phrases, dense, vectors, foreign, lexical, cache_dir)


def _owned(path: Path) -> bool:
    """The file exists and is the current user's, and no one else could have written it."""
    try:
        info = path.stat()
    except OSError:
        return False
    return not hasattr(os, "getuid") or (info.st_uid == os.getuid() and not info.st_mode & 0o022)
