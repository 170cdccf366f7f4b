"""Static-embedding inference for the shipped model in ``model/`` (no torch).

The model is a model2vec distillation of all-MiniLM-L6-v2 (see ``model/README.md`` and
``benchmarks/routing/distill_model.py``): one vector per WordPiece token, already weighted by
token frequency (SIF), so a sentence vector is the mean of its token vectors, normalised.
Doing that here takes ``tokenizers`` + ``numpy`` + ``safetensors`` and a dozen lines, instead
of depending on model2vec itself (which adds joblib and its Hub-loading layer).

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
    from tokenizers import Tokenizer

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
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.model_dir = model_dir
        self.config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.embeddings: np.ndarray = load_file(str(model_dir / "model.safetensors"))["embeddings"]
        tokenizer: Tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        unk = self.config.get("unk_token", "[UNK]")
        self._unk_id = tokenizer.token_to_id(unk)
        self.dim = int(self.embeddings.shape[1])

    def encode(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Token vectors of each text (CJK characters and unknown tokens left out)."""
        import numpy as np

        stripped = [CJK_RE.sub(" ", text) for text in texts]
        encodings = self._tokenizer.encode_batch(stripped, add_special_tokens=False)
        out: list[TokenVectors] = []
        for encoding in encodings:
            ids = np.asarray([i for i in encoding.ids if i != self._unk_id], dtype=np.int64)
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


@cache
def load_encoder(model_dir: Path = MODEL_DIR) -> StaticEncoder:
    """The encoder for ``model_dir``, loaded once per process."""
    return StaticEncoder(model_dir)
