"""Learned examples: requests confirmed for a pipeline, kept per APP in the user's state folder,
scored by the embedded router, listed, forgotten and exported by `app-run routes`."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

from skill2app.runtime.routing import EmbeddedRouter, RouteEntry
from skill2app.runtime.routing.memory import MAX_CHARS, MAX_PER_PIPELINE, Memory

REQUEST = "can I get something back for this"


@pytest.fixture
def shop(tmp_path: Path, runtime_env: Path) -> Path:
    return make_app(
        tmp_path / "shop",
        {
            "refund": {
                "description": "Refund an order that arrived broken or never arrived",
                "triggers": ["I want my money back", "refund this order", "refund me"],
                "steps": [code("pay")],
            },
            "return-label": {
                "description": "Create a return label to send an item back",
                "triggers": ["print a return label", "how do I send this back", "return my shoes"],
                "steps": [code("label")],
            },
        },
    )


def route(app: Path, text: str) -> dict:
    return json.loads(invoke("route", app, text, "--json").stdout)


def learned(home: Path) -> list[dict]:
    (store,) = (home / "learned").glob("*.json")
    return json.loads(store.read_text())["examples"]


def test_a_request_run_for_a_pipeline_is_stored_privately_outside_the_app(
    shop: Path, app_run_home: Path
) -> None:
    assert route(shop, REQUEST)["decision"] == "unsure"
    assert invoke("run", shop, "refund", "--request", REQUEST).exit_code == 0
    (store,) = (app_run_home / "learned").glob("*.json")
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.parent.stat().st_mode) == 0o700
    assert [(e["request"], e["pipeline"], e["count"]) for e in learned(app_run_home)] == [
        (REQUEST, "refund", 1)
    ]
    files = [p for p in shop.rglob("*") if p.is_file()]
    assert not [p for p in files if REQUEST in p.read_text(errors="ignore")]  # not in the APP
    for record in (app_run_home / "runs").glob("*.jsonl"):
        assert REQUEST not in record.read_text()  # nor in run records
    decision = route(shop, REQUEST)
    assert (decision["decision"], decision["pipeline"]) == ("match", "refund")


def test_the_same_words_confirmed_elsewhere_replace_the_example(
    shop: Path, app_run_home: Path
) -> None:
    invoke("run", shop, "refund", "--request", REQUEST)
    invoke("run", shop, "refund", "--request", REQUEST.upper() + " ?")  # the same words
    assert [(e["pipeline"], e["count"]) for e in learned(app_run_home)] == [("refund", 2)]
    invoke("run", shop, "return-label", "--request", REQUEST)
    assert [(e["pipeline"], e["count"]) for e in learned(app_run_home)] == [("return-label", 1)]
    assert route(shop, REQUEST)["pipeline"] == "return-label"


def test_routes_lists_forgets_one_a_pipeline_or_all(shop: Path) -> None:
    invoke("run", shop, "refund", "--request", REQUEST)
    invoke("run", shop, "refund", "--request", "the box came empty")
    invoke("run", shop, "return-label", "--request", "these shoes pinch")
    listed = json.loads(invoke("routes", shop, "--json").stdout)
    assert {(e["pipeline"], e["request"]) for e in listed["examples"]} == {
        ("refund", REQUEST),
        ("refund", "the box came empty"),
        ("return-label", "these shoes pinch"),
    }
    text = invoke("routes", shop)
    assert "refund\tthe box came empty\t×1" in text.stdout
    one = invoke("routes", shop, "--forget", "--request", "The box came empty", "--json")
    assert [e["request"] for e in json.loads(one.stdout)["forgotten"]] == ["the box came empty"]
    invoke("routes", shop, "--forget", "--pipeline", "return-label")
    remaining = json.loads(invoke("routes", shop, "--json").stdout)["examples"]
    assert [e["request"] for e in remaining] == [REQUEST]
    invoke("routes", shop, "--forget")
    assert json.loads(invoke("routes", shop, "--json").stdout)["examples"] == []
    assert route(shop, REQUEST)["decision"] == "unsure"
    bad = invoke("routes", shop, "--forget", "--pipeline", "nope")
    assert bad.exit_code == 2 and "no pipeline named 'nope'" in bad.stderr


def test_export_writes_triggers_keeping_comments_and_forgets_them(shop: Path) -> None:
    path = shop / "pipelines" / "refund" / "pipeline.yaml"
    path.write_text(
        "# refunds, see the policy wiki\n"
        "name: refund\n"
        "description: Refund an order that arrived broken  # broken or lost\n"
        "triggers:\n"
        "  - I want my money back   # the classic\n"
        "  - refund this order\n"
        "steps:\n"
        "  - name: pay\n"
        "    type: code\n"
        "    command: python3 steps/step.py ok\n"
    )
    label = shop / "pipelines" / "return-label" / "pipeline.yaml"
    label.write_text(
        "name: return-label\ndescription: Create a return label\n"
        "steps:\n  - {name: label, type: code, command: python3 steps/step.py ok}\n"
    )
    invoke("run", shop, "refund", "--request", REQUEST)
    invoke("run", shop, "refund", "--request", "refund this order")  # already a trigger
    invoke("run", shop, "return-label", "--request", "these shoes pinch: label")
    result = invoke("routes", shop, "--export", "--json")
    assert result.exit_code == 0, result.stderr
    done = {e["pipeline"]: e["added"] for e in json.loads(result.stdout)["exported"]}
    assert done == {"refund": [REQUEST], "return-label": ["these shoes pinch: label"]}
    assert path.read_text() == (
        "# refunds, see the policy wiki\n"
        "name: refund\n"
        "description: Refund an order that arrived broken  # broken or lost\n"
        "triggers:\n"
        "  - I want my money back   # the classic\n"
        "  - refund this order\n"
        f"  - {REQUEST}\n"
        "steps:\n"
        "  - name: pay\n"
        "    type: code\n"
        "    command: python3 steps/step.py ok\n"
    )
    assert "label\ntriggers:\n  - 'these shoes pinch: label'\nsteps:\n" in label.read_text()
    assert invoke("check", shop).exit_code == 0
    assert json.loads(invoke("routes", shop, "--json").stdout)["examples"] == []
    decision = route(shop, REQUEST)  # now a trigger: routed for everyone
    assert decision["pipeline"] == "refund" and 'trigger "' in decision["candidates"][0]["why"]


@pytest.mark.parametrize("switch", ["config", "environment"])
def test_learning_can_be_turned_off(
    shop: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch, switch: str
) -> None:
    invoke("run", shop, "refund", "--request", REQUEST)  # learned while on
    if switch == "config":
        (shop / "app-run.yaml").write_text("learn: false\n")
    else:
        monkeypatch.setenv("APP_RUN_LEARN", "0")
    assert route(shop, REQUEST)["decision"] == "unsure"  # not used
    invoke("run", shop, "return-label", "--request", "these shoes pinch")
    assert [e["request"] for e in learned(app_run_home)] == [REQUEST]  # nor stored


def test_bad_learn_settings_are_config_errors(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (shop / "app-run.yaml").write_text("learn: maybe\n")
    result = invoke("route", shop, REQUEST)
    assert result.exit_code == 2 and "learn: 'maybe' is not true or false" in result.stderr
    (shop / "app-run.yaml").unlink()
    monkeypatch.setenv("APP_RUN_LEARN", "sometimes")
    result = invoke("route", shop, REQUEST)
    assert result.exit_code == 2 and "APP_RUN_LEARN='sometimes' is not a switch" in result.stderr


def test_the_store_is_read_as_untrusted(shop: Path, app_run_home: Path) -> None:
    memory = Memory(app_run_home, shop.resolve())
    memory.learn(REQUEST, "refund")
    data = json.loads(memory.path.read_text())
    data["examples"] += [
        {"request": 42, "pipeline": "refund"},
        {"request": "x" * (MAX_CHARS + 1), "pipeline": "refund"},
        {"request": "ok", "pipeline": "refund", "count": -1},
        {"request": "a  spaced   one", "pipeline": "refund"},
        "not an object",
    ]
    memory.path.write_text(json.dumps(data))
    assert [e.request for e in memory.examples()] == [REQUEST]
    os.chmod(memory.path, 0o666)  # others could have written it: ignored
    assert memory.examples() == []
    os.chmod(memory.path, 0o600)
    memory.path.write_text("{not json")
    assert memory.examples() == []
    assert memory.learn("the box came empty", "refund") is not None  # and replaced
    assert [e.request for e in memory.examples()] == ["the box came empty"]


def test_the_store_is_bounded_and_skips_long_and_secret_requests(
    app_run_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    memory = Memory(app_run_home, tmp_path)
    for i in range(MAX_PER_PIPELINE + 5):
        memory.learn(f"request number {i}", "refund")
    kept = memory.examples()
    assert len(kept) == MAX_PER_PIPELINE
    assert "request number 0" not in {e.request for e in kept}  # the oldest go first
    assert memory.learn("x" * (MAX_CHARS + 1), "refund") is None
    monkeypatch.setenv("SHOP_API_TOKEN", "s3cr3t-t0ken-value")
    assert memory.learn("refund with key s3cr3t-t0ken-value", "refund") is None
    assert memory.learn("call it with Bearer abcdefghijklmnop123", "refund") is None
    monkeypatch.setenv("CUSTOMER_NUMBER", "C-0042-7781")  # secret by the config's names only
    assert memory.learn("refund C-0042-7781 now", "refund", secrets=("customer_number",)) is None


def test_a_learned_example_counts_only_when_asked_again() -> None:
    """A learned request routes its own words (and near repeats), not every paraphrase: on
    the benchmark, learning paraphrases as triggers raised wrong routes."""
    table = [
        RouteEntry("refund", "Refund an order", ("I want my money back",), ("the box came empty",)),
        RouteEntry("label", "Print a return label", ("send it back",)),
    ]
    router = EmbeddedRouter(table)
    assert router.route("the box came empty").pipeline == "refund"
    assert router.candidates("the box came empty")[0].why.startswith('learned "the box came')
    unrelated = router.candidates("print me a label")
    assert all("learned" not in c.why for c in unrelated)


def test_what_hybrids_llm_chooses_is_learned(
    shop: Path, tmp_path: Path, app_run_home: Path
) -> None:
    import yaml

    answers = tmp_path / "answers.yaml"
    choice = {"pipeline": "return-label", "reason": "an item goes back"}
    answers.write_text(yaml.safe_dump({"answers": {"_router/route": [choice]}}))
    flags = ["--strategy", "hybrid", "--provider", "scripted", "--answers", str(answers)]
    result = invoke("ask", shop, REQUEST, "--json", *flags)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["pipeline"] == "return-label"
    (example,) = learned(app_run_home)
    assert (example["pipeline"], example["source"]) == ("return-label", "hybrid")
    decision = route(shop, REQUEST)  # embedded alone now knows
    assert (decision["decision"], decision["pipeline"]) == ("match", "return-label")


def test_a_run_for_a_request_completed_on_a_terminal_is_learned(
    tmp_path: Path, app_run_home: Path, runtime_env: Path
) -> None:
    from skill2app.runtime.ask import execute

    app = make_app(
        tmp_path / "csv",
        {
            "compare": {
                "description": "Compare two CSV files",
                "input": {"right_path": "string"},
                "steps": [code("diff")],
            }
        },
    )
    answer = execute(app, "compare", pairs=[], request="diff the two exports")
    assert answer.needs_input is not None and answer.needs_input.confirmed
    assert not (app_run_home / "learned").exists()  # not run yet: not learned
    assert answer.needs_input.complete({"right_path": "b.csv"}).status == "succeeded"
    assert [e["request"] for e in learned(app_run_home)] == ["diff the two exports"]
