"""The static model's tokenizer (BERT WordPiece, uncased), in Python: token ids of one text.

The shipped ``static/tokenizer.json`` is a Hugging Face ``tokenizers`` file: BertNormalizer
(clean text, spaces around Chinese characters, accents stripped, lower case), BertPreTokenizer
(split at whitespace, punctuation on its own) and WordPiece (longest known prefix first, ``##``
continuations, a word with an unknown part or of more than 100 characters is ``[UNK]``), with
``[PAD]`` and ``[UNK]`` matched as written.  Loading that file with the ``tokenizers`` package
costs ~20 ms of a cold `app-run route` (import, parse, build); routing encodes one short
request, so this module does the same steps in Python from the file's vocabulary (~4 ms to
load).  tests/test_routing_wordpiece.py checks it gives the package's ids on the benchmark's
texts and on awkward ones (accents, controls, punctuation, CJK, long words).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

MAX_WORD = 100
CONTINUE = "##"
# Rust's char::is_whitespace (the White_Space property), which the package uses.
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
_CHINESE = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class WordPiece:
    """``encode(text)``: the token ids ``tokenizers`` gives for ``static/tokenizer.json``."""

    def __init__(self, path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        model = data["model"]
        if model.get("type") != "WordPiece" or data["normalizer"].get("type") != "BertNormalizer":
            raise ValueError(f"{path}: not a BERT WordPiece tokenizer")
        self.vocab: dict[str, int] = model["vocab"]
        self.unk_id = self.vocab[model.get("unk_token", "[UNK]")]
        self.max_word = int(model.get("max_input_chars_per_word", MAX_WORD))
        self.added = {t["content"]: t["id"] for t in data.get("added_tokens", ())}
        normalizer = data["normalizer"]
        self.lowercase = bool(normalizer.get("lowercase", True))
        strip = normalizer.get("strip_accents")
        self.strip_accents = self.lowercase if strip is None else bool(strip)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for part, added in self._split_added(text):
            if added:
                ids.append(self.added[part])
                continue
            for word in _pre_tokenize(self._normalize(part)):
                ids += self._word(word)
        return ids

    def _split_added(self, text: str) -> list[tuple[str, bool]]:
        """``text`` cut around the added tokens written in it (``[PAD]``, ``[UNK]``)."""
        parts: list[tuple[str, bool]] = []
        start = at = 0
        while at < len(text):
            found = next((t for t in self.added if text.startswith(t, at)), None)
            if found is None:
                at += 1
                continue
            parts.append((text[start:at], False))
            parts.append((found, True))
            at += len(found)
            start = at
        parts.append((text[start:], False))
        return [(p, added) for p, added in parts if p]

    def _normalize(self, text: str) -> str:
        out = []
        for char in text:
            if char in ("\0", "\ufffd") or _is_control(char):
                continue
            if char in _WHITE_SPACE:
                out.append(" ")
            elif _is_chinese(char):
                out.append(f" {char} ")
            else:
                out.append(char)
        text = "".join(out)
        if self.strip_accents:
            text = "".join(
                c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn"
            )
        # char by char, as the package does: no final-sigma rule ("ΟΔΟΣ" -> "οδοσ")
        return "".join(c.lower() for c in text) if self.lowercase else text

    def _word(self, word: str) -> list[int]:
        if len(word) > self.max_word:
            return [self.unk_id]
        ids = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else CONTINUE + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                return [self.unk_id]
            ids.append(found)
            start = end
        return ids


def _pre_tokenize(text: str) -> list[str]:
    """Words split at whitespace, each punctuation character a word of its own."""
    words: list[str] = []
    for chunk in text.split():
        current: list[str] = []
        for char in chunk:
            if char in _ASCII_PUNCTUATION or unicodedata.category(char).startswith("P"):
                if current:
                    words.append("".join(current))
                    current = []
                words.append(char)
            else:
                current.append(char)
        if current:
            words.append("".join(current))
    return words


def _is_control(char: str) -> bool:
    return char not in "\t\n\r" and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co")


def _is_chinese(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _CHINESE)
