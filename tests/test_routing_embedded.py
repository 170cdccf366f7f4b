"""The embedded router: its three outcomes, CJK, lazy imports, package data."""

from __future__ import annotations

import importlib.resources
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from skill2app.runtime.routing import EmbeddedRouter, RouteDecision, RouteEntry
from skill2app.runtime.routing.decision import POLICY, Policy
from skill2app.runtime.routing.models.encoder import MODEL_DIR, load_encoder

TABLE = (
    RouteEntry(
        "code-review",
        "Review a pull request: fetch the diff, analyse each changed file and write a report",
        ("review this PR", "code review", "check this diff"),
    ),
    RouteEntry(
        "deploy-service",
        "Deploy a service to staging or production with health checks and rollback",
        ("deploy to prod", "ship the api to staging", "roll out version 2.3"),
    ),
    RouteEntry(
        "refund-request",
        "Process a refund for a returned, missing or faulty item",
        ("I want a refund", "refund this order", "申请退款", "退钱"),
    ),
    RouteEntry(
        "invoice-request",
        "Issue an invoice or VAT invoice (fapiao) for an order",
        ("I need an invoice", "开发票", "开具增值税专用发票"),
    ),
)


@pytest.fixture(scope="module")
def router() -> EmbeddedRouter:
    return EmbeddedRouter(TABLE)


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("review this PR please", "code-review"),
        ("deploy the billing service to production", "deploy-service"),
        ("the toaster arrived broken, I want a refund", "refund-request"),
        ("I need an invoice for order 5521", "invoice-request"),
    ],
)
def test_routes_to_the_matching_pipeline(
    router: EmbeddedRouter, request_text: str, expected: str
) -> None:
    decision = router.route(request_text)
    assert decision.pipeline == expected
    assert decision.strategy == "embedded"
    assert decision.reason.startswith(f'matched "{expected}"')
    assert decision.candidates[0].pipeline == expected
    assert decision.score == decision.candidates[0].score


def test_candidates_are_best_first_at_most_five_and_say_why() -> None:
    topics = ["invoice", "holiday", "printer", "contract", "laptop", "budget", "hotel", "salary"]
    entries = [RouteEntry(t, f"Handle {t} requests", (f"help with my {t}",)) for t in topics]
    decision = EmbeddedRouter(entries, policy=Policy(match_at=0.0)).route("help with my printer")
    scores = [c.score for c in decision.candidates]
    assert len(decision.candidates) == 5
    assert scores == sorted(scores, reverse=True)
    # the score is mostly the best phrase's, backed by the pipeline's second-best
    why = decision.candidates[0].why
    assert why.startswith('trigger "help with my printer" (1.00) and description "Handle printer')
    assert scores[0] < 1.0


@pytest.mark.parametrize(
    "request_text",
    ["how do I bake sourdough bread", "what's the weather in Berlin tomorrow", "今天天气怎么样"],
)
def test_out_of_scope_is_no_match(router: EmbeddedRouter, request_text: str) -> None:
    decision = router.route(request_text)
    assert (decision.pipeline, decision.decision) == (None, "no_match")
    assert f"below {POLICY.none_below:.2f}" in decision.reason
    assert decision.candidates  # still shows what came closest


def test_a_close_call_is_unsure_with_a_short_list(router: EmbeddedRouter) -> None:
    """The sentence encoder finds "please review my pull request" nearly as close to "I want a
    refund" as to "review this PR": not sure enough to run code-review, but it heads the
    short list the caller picks from."""
    decision = router.route("please review my pull request")
    assert (decision.pipeline, decision.decision) == (None, "unsure")
    assert decision.candidates[0].pipeline == "code-review"
    assert 1 < len(decision.candidates) <= 5
    assert decision.reason.startswith('unsure: best "code-review"')


def test_the_policy_decides_the_outcome() -> None:
    from skill2app.runtime.routing.decision import confidence

    request_text = "please review my pull request"
    ranked = EmbeddedRouter(TABLE).candidates(request_text)
    sure = confidence(ranked)
    lower = EmbeddedRouter(TABLE, policy=Policy(match_at=sure - 0.01)).route(request_text)
    assert (lower.decision, lower.pipeline) == ("match", "code-review")
    strict = EmbeddedRouter(TABLE, policy=Policy(none_below=ranked[0].score + 0.01))
    assert strict.route(request_text).decision == "no_match"
    short = EmbeddedRouter(TABLE, policy=Policy(short_within=0.0)).route(request_text)
    assert [c.pipeline for c in short.candidates] == ["code-review"]


def test_a_near_tie_is_unsure_whatever_the_scores() -> None:
    twins = [
        RouteEntry("weekly-report", "Write the weekly sales report", ("weekly sales report",)),
        RouteEntry("sales-summary", "Write the weekly sales summary", ("weekly sales summary",)),
    ]
    ambiguous = EmbeddedRouter(twins, policy=Policy(lead_weight=0.0, match_at=2.0))
    decision = ambiguous.route("weekly sales")
    assert decision.decision == "unsure"
    assert {c.pipeline for c in decision.candidates} == {"weekly-report", "sales-summary"}


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("这个东西我不想要了，能退款吗", "refund-request"),
        ("麻烦给我开一张公司抬头的发票", "invoice-request"),
    ],
)
def test_chinese_request_matches_chinese_trigger(
    router: EmbeddedRouter, request_text: str, expected: str
) -> None:
    decision = router.route(request_text)
    assert decision.pipeline == expected
    assert any("\u4e00" <= ch <= "\u9fff" for ch in decision.candidates[0].why)


def test_empty_table_and_empty_request() -> None:
    empty = EmbeddedRouter([]).route("review my PR")
    assert empty == RouteDecision(None, 0.0, "embedded", (), "no match: the routing table is empty")
    assert empty.decision == "no_match"
    assert EmbeddedRouter(TABLE).route("").pipeline is None


def test_importing_the_package_does_not_import_numpy_or_tokenizers() -> None:
    code = (
        "import sys, json, runtime.routing; "
        "print(json.dumps([m for m in ('numpy', 'tokenizers', 'safetensors') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_model_is_package_data_with_its_licence() -> None:
    folder = importlib.resources.files("skill2app.runtime.routing.models") / "static"
    for name in ("model.safetensors", "tokenizer.json", "config.json", "LICENSE", "NOTICE"):
        assert (folder / name).is_file(), name
    assert Path(str(folder)).resolve() == MODEL_DIR
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")
    encoder = load_encoder()
    assert encoder.dim == 256
    vectors = encoder.encode(["review this PR", "审查"])
    assert not vectors[0].empty and vectors[1].empty  # CJK is left to the lexical index


def test_benchmark_data_meets_its_contract() -> None:
    root = Path(__file__).resolve().parents[1] / "benchmarks" / "routing"
    sizes = sorted(
        len(yaml.safe_load(p.read_text(encoding="utf-8"))["pipelines"])
        for p in (root / "apps").glob("*.yaml")
    )
    requests = yaml.safe_load((root / "requests.yaml").read_text(encoding="utf-8"))
    labelled = [
        item for by_pipe in requests.values() for items in by_pipe.values() for item in items
    ]
    assert len(sizes) >= 3 and sizes[0] >= 10 and sizes[-1] == 100
    assert len(labelled) >= 150
    assert sum(kind == "oos" for kind, _ in labelled) >= 30


def test_folders_of_a_file_path_do_not_weigh_in(router: EmbeddedRouter) -> None:
    """A long path's folders (a test's temporary folder, say) are noise: the request scores
    as if it named the file alone; URLs and "a/b" words are left as they are."""
    short = router.candidates("review the diff in change.patch")
    deep = router.candidates("review the diff in /tmp/pytest-of-ci/deploy-refund-0/x/change.patch")
    assert [(c.pipeline, c.score) for c in deep] == [(c.pipeline, c.score) for c in short]
    assert router.candidates("review https://example.org/a/b/pull/7")[0].pipeline == "code-review"


def test_a_file_name_does_not_make_a_chinese_request_less_chinese() -> None:
    from skill2app.runtime.routing.models.language import foreign_share

    assert foreign_share("这篇文章的高频词是什么 article.txt") == 1.0
    assert foreign_share("总结一下 https://example.org/report 的内容") == 1.0
    assert foreign_share("summarise sales.csv") == 0.0


@pytest.mark.parametrize(
    ("request_text", "english"),
    [
        ("quiero que me devuelvan el dinero", False),
        ("Bitte den Dienst in Produktion ausrollen", False),
        ("écris la documentation de ce module", False),
        ("la stampante del terzo piano non stampa", False),
        ("vocês ainda têm este tênis no tamanho 42?", False),
        ("waarom is mijn nettoloon deze maand lager?", False),
        ("перезапусти сервис", False),
        ("book a table at Café Müller for the team", True),
        ("deploy die-hard-api to prod, per the runbook", True),
        ("translate this into Spanish: el informe", True),
        ("run the tests in tests/de/la_checks.py", True),
        ("add the de strings to the translation file", True),
        ("ask 王 about the budget", True),
        ("更新CRM", False),
    ],
)
def test_requests_in_another_language_are_told_from_english(
    request_text: str, english: bool
) -> None:
    """Function words tell the language, not a loanword, a name or a file: an English request
    keeps the static model's share, another language's goes to the multilingual encoder."""
    from skill2app.runtime.routing.models.language import foreign_share

    share = foreign_share(request_text)
    assert (share < 0.5) == english, share
