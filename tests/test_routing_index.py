"""The router's kept index: a routing table embedded once, loaded by later processes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from skill2app.runtime.routing import EmbeddedRouter, RouteEntry
from skill2app.runtime.routing.models import index as index_module

TABLE = [
    RouteEntry("refund", "Refund an order", ("I want my money back", "退钱"), ("box came empty",)),
    RouteEntry("label", "Print a return label", ("send it back", "return my shoes")),
    RouteEntry("invoice", "Issue an invoice", ("I need an invoice", "开发票")),
]
REQUESTS = ["my money back please", "开张发票", "the box came empty", "weather in Rome"]


def _kept(cache: Path) -> list[Path]:
    return sorted((cache / "router").glob("*.npz"))


def _scores(router: EmbeddedRouter) -> list[list[tuple[str, float]]]:
    return [[(c.pipeline, c.score) for c in router.candidates(r)] for r in REQUESTS]


def test_the_index_is_kept_privately_and_loaded_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = EmbeddedRouter(TABLE, cache_dir=tmp_path)
    (kept,) = _kept(tmp_path)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700

    def no_build(*args: object) -> object:
        raise AssertionError("built again")

    monkeypatch.setattr(index_module, "_build", no_build)
    loaded = EmbeddedRouter(TABLE, cache_dir=tmp_path)
    assert _scores(loaded) == _scores(built)
    assert (loaded.phrase_matrix() == built.phrase_matrix()).all()


def test_another_table_or_learned_example_is_another_index(tmp_path: Path) -> None:
    EmbeddedRouter(TABLE, cache_dir=tmp_path)
    first = TABLE[0]
    more = [RouteEntry(first.name, first.description, first.triggers, ("a new one",)), *TABLE[1:]]
    EmbeddedRouter(more, cache_dir=tmp_path)
    assert len(_kept(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["garbage", "truncated", "mismatch"])
def test_a_damaged_index_is_built_again(tmp_path: Path, damage: str) -> None:
    import numpy as np

    expected = _scores(EmbeddedRouter(TABLE, cache_dir=tmp_path))
    (kept,) = _kept(tmp_path)
    if damage == "garbage":
        kept.write_bytes(b"not an npz file")
    elif damage == "truncated":
        kept.write_bytes(kept.read_bytes()[:200])
    else:  # arrays that do not fit together
        with np.load(kept) as stored:
            arrays = {k: stored[k] for k in stored.files}
        arrays["latin_offsets"] = arrays["latin_offsets"][:-1]
        with kept.open("wb") as out:
            np.savez(out, **arrays)
    assert _scores(EmbeddedRouter(TABLE, cache_dir=tmp_path)) == expected


def test_an_index_others_could_write_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    EmbeddedRouter(TABLE, cache_dir=tmp_path)
    (kept,) = _kept(tmp_path)
    os.chmod(kept, 0o666)
    calls = []
    real = index_module._build

    def counting(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(index_module, "_build", counting)
    EmbeddedRouter(TABLE, cache_dir=tmp_path)
    assert calls == [1]


def test_only_the_newest_indexes_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "KEPT", 2)
    for word in ("one", "two", "three"):
        EmbeddedRouter([RouteEntry(word, f"the {word} pipeline")], cache_dir=tmp_path)
    assert len(_kept(tmp_path)) == 2
