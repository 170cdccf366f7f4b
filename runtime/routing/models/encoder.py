"""Static-embedding inference for the shipped model in ``model/`` (no torch).

The model is a model2vec distillation of all-MiniLM-L6-v2 (see ``model/README.md`` and
``benchmarks/routing/distill_model.py``): one vector per WordPiece token, already weighted by
token frequency (SIF), so a sentence vector is the mean of its token vectors, normalised.
Doing that here takes ``numpy``, the WordPiece steps in ``wordpiece.py`` and a memory map of
the safetensors file, instead of depending on model2vec itself (which adds joblib and its
Hub-loading layer) or loading the tokenizer with ``tokenizers`` (~20 ms of a cold start).

MiniLM's vocabulary is English: it knows fewer than 500 CJK characters, so Chinese or
Japanese text would come out as ``[UNK]`` plus a few unrelated characters.  The encoder
therefore drops CJK characters; ``lexical.py`` scores them instead.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

MODEL_DIR = Path(__file__).resolve().parent / "static"

# Han, kana and CJK compatibility ideographs: left to the lexical index.
CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class TokenVectors:
    """The known tokens of one text: unit vectors, their weights and the sentence vector."""

    units: np.ndarray  # (n, dim) float32, each row of norm 1
    weights: np.ndarray  # (n,) float32, the token's SIF weight (norm of its raw vector)
    sentence: np.ndarray  # (dim,) float32, normalised mean of the raw vectors; zeros if n == 0
    ids: np.ndarray  # (n,) int64, the token ids of the rows of ``units``

    @property
    def empty(self) -> bool:
        return len(self.weights) == 0


class StaticEncoder:
    """Look up, weight and pool the token vectors of a static embedding model."""

    def __init__(self, model_dir: Path = MODEL_DIR) -> None:
        from skill2app.runtime.routing.models.wordpiece import WordPiece

        self.model_dir = model_dir
        self.config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.embeddings: np.ndarray = _embeddings(model_dir / "model.safetensors")
        self._tokenizer = WordPiece(model_dir / "tokenizer.json")
        unk = self.config.get("unk_token", "[UNK]")
        self._unk_id = self._tokenizer.vocab[unk]
        self.dim = int(self.embeddings.shape[1])

    def encode(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Token vectors of each text (CJK characters and unknown tokens left out)."""
        import numpy as np

        out: list[TokenVectors] = []
        for text in texts:
            found = self._tokenizer.encode(CJK_RE.sub(" ", text))
            ids = np.asarray([i for i in found if i != self._unk_id], dtype=np.int64)
            raw = self.embeddings[ids].astype(np.float32)
            norms = np.linalg.norm(raw, axis=1)
            keep = norms > 0  # int8 rounds the rarest-weighted tokens ("the") to zero
            raw, norms, ids = raw[keep], norms[keep], ids[keep]
            mean = raw.sum(axis=0) if len(raw) else np.zeros(self.dim, dtype=np.float32)
            length = float(np.linalg.norm(mean))
            sentence = mean / length if length > 0 else mean
            unit = raw / norms[:, None]
            out.append(TokenVectors(unit, norms, sentence.astype(np.float32), ids))
        return out


def _embeddings(path: Path) -> np.ndarray:
    """The ``embeddings`` tensor of a safetensors file, memory-mapped (a request reads a few
    rows of it): the file is an 8-byte header length, a JSON header, then the raw data."""
    import numpy as np

    dtypes = {"I8": np.int8, "F16": np.float16, "F32": np.float32}
    with path.open("rb") as fh:
        size = int.from_bytes(fh.read(8), "little")
        if not 0 < size <= 1_000_000:
            raise ValueError(f"{path}: not a safetensors file")
        header = json.loads(fh.read(size))
    tensor = header["embeddings"]
    start, end = tensor["data_offsets"]
    dtype = np.dtype(dtypes[tensor["dtype"]])
    rows, dim = tensor["shape"]
    if end - start != rows * dim * dtype.itemsize:
        raise ValueError(f"{path}: the embeddings' size does not match their shape")
    return np.memmap(path, dtype=dtype, mode="r", offset=8 + size + start, shape=(rows, dim))


@cache
def load_encoder(model_dir: Path = MODEL_DIR) -> StaticEncoder:
    """The encoder for ``model_dir``, loaded once per process."""
    return StaticEncoder(model_dir)
