"""The static model's tokenizer in Python (models/wordpiece.py) gives the ids the `tokenizers`
package gives for the shipped tokenizer.json: on every text of the routing benchmark and the
README and docs/, on awkward ones, and on random strings of many scripts, controls and
unassigned code points."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from skill2app.runtime.routing.models.encoder import MODEL_DIR
from skill2app.runtime.routing.models.wordpiece import WordPiece

ROOT = Path(__file__).resolve().parents[1]
AWKWARD = [
    "ΟΔΟΣ Σίσυφος",  # no final-sigma rule
    "naïve café résumé e\u0301t\u00e9",
    "İstanbul ŞEHİR ß straße ǅ",
    "[PAD] x [UNK]y [pad]",
    "a\x00b\ufffdc\x0bd\x85e\u200bf\u0378g",
    "word" * 30,
    "supercalifragilistic" * 6,
    "x\u2028y\u3000z\u00a0w",
    "¿Qué? ¡Sí! $100 + 5% = ~ ^ | `",
    "ＦＵＬＬ ｗｉｄｔｈ ｶﾀｶﾅ 𝒜𝒷𝒸 😀🎉 \U00020000 ﬁ \u00ad Ⅻ",
    "한국어 텍스트 عربى نص עברית हिन्दी",
    "",
    "   ",
]


@pytest.fixture(scope="module")
def both() -> tuple[object, WordPiece]:
    tokenizers = pytest.importorskip("tokenizers")
    package = tokenizers.Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    package.no_padding()
    package.no_truncation()
    return package, WordPiece(MODEL_DIR / "tokenizer.json")


def _texts() -> list[str]:
    texts = list(AWKWARD)
    for path in (ROOT / "benchmarks" / "routing").glob("**/*.yaml"):
        texts += path.read_text(encoding="utf-8").splitlines()
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        texts += path.read_text(encoding="utf-8").splitlines()
    ranges = [(1, 0x250), (0x370, 0x400), (0x2000, 0x2070), (0x3000, 0x3040), (0xFF00, 0xFF70)]
    alphabet = [chr(c) for low, high in ranges for c in range(low, high)]
    alphabet += [chr(c) for c in (0x1F600, 0x20000, 0xE000, 0xFEFF, 0x10FFFF)]
    draw = random.Random(16)
    for _ in range(3000):
        texts.append("".join(draw.choice(alphabet) for _ in range(draw.randint(1, 40))))
    return texts


def test_the_python_tokenizer_gives_the_packages_ids(both: tuple[object, WordPiece]) -> None:
    package, ours = both
    wrong = [
        text
        for text in _texts()
        if package.encode(text, add_special_tokens=False).ids != ours.encode(text)  # type: ignore[attr-defined]
    ]
    assert wrong == []
