"""The review: the skill's own requests routed through a plan that passed, shown back once.

``verify/requests.py`` routes the requests a skill's documents quote and the situations its
description names through a plan's pipelines.  What lands in Skill mode, unsure, or on another
pipeline than the one whose section quotes it is a finding: the host and API analysts see
their passing plan again with them (once), and every report lists them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.llm import analyze_with_usage
from skill2app.converter.convert import Options, convert, resume
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.file import plan_from_dict
from skill2app.converter.verify.requests import route_requests, skill_requests
from skill2app.runtime.app.config import Config
from skill2app.runtime.providers.scripted import ScriptedProvider

pytestmark = pytest.mark.usefixtures("runtime_env")

COUNT_PY = '''\
"""Count the words of a text file: JSON {"words": N}."""
import argparse
import json

parser = argparse.ArgumentParser()
parser.add_argument("file")
args = parser.parse_args()
print(json.dumps({"words": len(open(args.file, encoding="utf-8").read().split())}))
'''

SKILL_MD = """\
---
name: wordcount
description: Count the words of a text file. Use when someone wants to count the words in an essay.
---

# Word count

Users say "how many words are in my essay"; users ask "count the words of the report".

```bash
python3 scripts/count.py notes.txt
```

## Ordering

Users ask "order a pizza with extra cheese".
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    files = {"SKILL.md": SKILL_MD, "scripts/count.py": COUNT_PY, "notes.txt": "one two three\n"}
    return write_tree(tmp_path / "wordcount", files)


def plan(*extra_triggers: str) -> dict[str, Any]:
    return {
        "plan_version": 2,
        "app": {"name": "wordcount", "description": "Count the words of a text file."},
        "analyzer": "host",
        "pipelines": [
            {
                "name": "count-words",
                "description": "Count the words of a text file",
                "source": "SKILL.md:8",
                "triggers": ["how many words are in notes.txt", "count the words of my essay",
                             "word count of this file", "how long is this document in words",
                             "is my text too long", *extra_triggers],
                "input": [{"name": "text_file", "type": "string", "required": True,
                           "description": "The text file to count"}],
                "steps": [{"name": "count", "type": "code", "program": "scripts/count.py",
                           "args": [{"from": "input.text_file"}], "stdout": "json",
                           "output": {"words": "integer"}}],
                "sample": {"input": {"text_file": "notes.txt"}},
            }
        ],
        "constructor": {"needed": False, "checks": []},
        "destructor": {"needed": False, "actions": []},
        "skill_mode": [],
    }  # fmt: skip


ELSEWHERE = "order a pizza with extra cheese"


def test_the_requests_a_skill_quotes_and_its_situations(skill: Path) -> None:
    inventory = build_inventory(skill)
    found = skill_requests(inventory, plan_from_dict(plan()))
    said = {(r.text, r.kind, r.where, r.expected) for r in found}
    assert ("how many words are in my essay", "quoted", "SKILL.md:8", "count-words") in said
    assert ("count the words of the report", "quoted", "SKILL.md:8", "count-words") in said
    assert (ELSEWHERE, "quoted", "SKILL.md:16", "") in said  # its section has no pipeline
    assert any(r.kind == "situation" and "count the words in an essay" in r.text for r in found)


def test_a_request_no_pipeline_does_is_a_finding(skill: Path) -> None:
    check = route_requests(plan_from_dict(plan()), build_inventory(skill))
    assert check.ran
    by_text = {r.request.text: r for r in check.routed}
    assert by_text["how many words are in my essay"].decision == "match"
    assert by_text["how many words are in my essay"].pipeline == "count-words"
    assert not by_text["how many words are in my essay"].finding
    assert by_text[ELSEWHERE].decision == "no_match"
    assert [r.request.text for r in check.findings] == [ELSEWHERE]
    assert check.lines() == [
        f'"{ELSEWHERE}" (quoted at SKILL.md:16) reaches no pipeline (Skill mode)'
    ]


def test_a_request_matched_away_from_its_section_is_a_finding(skill: Path) -> None:
    two = plan()
    other = copy.deepcopy(two["pipelines"][0])
    other |= {"name": "order-pizza", "description": "Order a pizza",
              "source": "SKILL.md:16",
              "triggers": ["order a pizza with extra cheese", "get me a margherita",
                           "count the words of the report"]}  # fmt: skip
    two["pipelines"].append(other)  # says a request the word count section quotes
    check = route_requests(plan_from_dict(two), build_inventory(skill))
    report = next(r for r in check.routed if r.request.text == "count the words of the report")
    assert report.request.expected == "count-words"
    assert (report.decision, report.pipeline) == ("match", "order-pizza")
    assert report.finding == (
        'is matched to "order-pizza", though the section quoting it is "count-words"\'s'
    )
    pizza = next(r for r in check.routed if r.request.text == ELSEWHERE)
    assert pizza.request.expected == "order-pizza" and not pizza.finding
    # the review names the phrase that drew it (round 13/14's hosts left probes unsure for
    # want of knowing which trigger pulled them)
    assert report.nearest and report.nearest[0].startswith(
        'order-pizza: trigger "count the words of the report"'
    )
    from skill2app.converter.analyzers.brief import review_prompt

    prompt = review_prompt("demo", "pipelines: []", check)
    row = next(line for line in prompt.splitlines() if "count the words of the report |" in line)
    assert row.startswith("| ⚠ ") and '— nearest: order-pizza: trigger "count the words' in row


def _start(skill: Path, tmp_path: Path, *flags: str, attempts: int = 3) -> dict[str, Any]:
    review = "--no-review" not in flags
    options = Options(
        skill_dir=skill,
        out=tmp_path / "app",
        analyzer="host",
        max_attempts=attempts,
        review=review,
    )
    report = convert(options)
    assert report.pause is not None
    return report.pause


def test_host_a_passing_plan_is_shown_back_once_and_kept(skill: Path, tmp_path: Path) -> None:
    pause = _start(skill, tmp_path)
    report = resume(pause["session"], json.dumps(plan()))

    review = report.pause
    assert review is not None and review["step"] == "review"
    assert review["status"] == "needs_llm" and review["attempt"] == 1 and review["errors"] == []
    rows = {row["request"]: row for row in review["review"]}
    assert rows[ELSEWHERE]["routes_to"] == "Skill mode"
    assert rows[ELSEWHERE]["finding"] == "reaches no pipeline (Skill mode)"
    assert f"| ⚠ {ELSEWHERE} | SKILL.md:16 | Skill mode |" in review["prompt"]
    assert "- name: count-words" in review["prompt"]  # the verified plan, to keep or change
    assert not (tmp_path / "app").exists()  # nothing written before the review is answered

    done = resume(review["session"], json.dumps(plan()))  # kept as it was
    assert done.pause is None and done.ok
    assert (tmp_path / "app" / "pipelines" / "count-words" / "pipeline.yaml").is_file()
    assert [r.request.text for r in done.requests.findings] == [ELSEWHERE]
    lines = "\n".join(done.human_lines())
    assert "The skill's own requests: " in lines and ELSEWHERE in lines


def test_host_keep_answers_a_review_with_the_plan_as_verified(skill: Path, tmp_path: Path) -> None:
    pause = _start(skill, tmp_path)
    review = resume(pause["session"], json.dumps(plan(ELSEWHERE))).pause  # passes...
    assert review is None  # ...and routes its request: nothing to review
    pause = _start(skill, tmp_path / "again")
    review = resume(pause["session"], json.dumps(plan())).pause
    assert review is not None and review["answer_format"].startswith('{"keep": true}')
    assert '`{"keep": true}`' in review["prompt"]
    done = resume(review["session"], '{"keep": true}')
    assert done.pause is None and done.ok
    assert [r.request.text for r in done.requests.findings] == [ELSEWHERE]


def test_host_a_changed_plan_after_the_review_is_verified_and_written(
    skill: Path, tmp_path: Path
) -> None:
    pause = _start(skill, tmp_path)
    review = resume(pause["session"], json.dumps(plan())).pause
    assert review is not None and review["step"] == "review"

    done = resume(review["session"], json.dumps(plan(ELSEWHERE)))
    assert done.pause is None and done.ok
    text = (tmp_path / "app" / "pipelines" / "count-words" / "pipeline.yaml").read_text()
    assert ELSEWHERE in text
    assert done.requests.findings == []  # the request now reaches the pipeline


def test_host_a_broken_change_on_the_last_attempt_keeps_the_verified_plan(
    skill: Path, tmp_path: Path
) -> None:
    pause = _start(skill, tmp_path, attempts=1)
    review = resume(pause["session"], json.dumps(plan())).pause
    assert review is not None and review["step"] == "review"

    broken = plan(ELSEWHERE)
    broken["pipelines"][0]["steps"][0]["program"] = "scripts/missing.py"
    done = resume(review["session"], json.dumps(broken))
    assert done.pause is None and not done.exhausted and done.ok
    text = (tmp_path / "app" / "pipelines" / "count-words" / "pipeline.yaml").read_text()
    assert ELSEWHERE not in text  # the plan verified before the review
    assert any("the plan verified before the review was written" in w for w in done.warnings)


def test_host_a_broken_change_with_attempts_left_is_asked_again(
    skill: Path, tmp_path: Path
) -> None:
    pause = _start(skill, tmp_path)
    review = resume(pause["session"], json.dumps(plan())).pause
    assert review is not None
    broken = plan()
    broken["pipelines"][0]["steps"][0]["program"] = "scripts/missing.py"
    again = resume(review["session"], json.dumps(broken)).pause
    assert again is not None and again["step"] == "analyze" and again["attempt"] == 2
    assert any("scripts/missing.py" in e for e in again["errors"])
    done = resume(again["session"], json.dumps(plan()))  # passes: no second review
    assert done.pause is None and done.ok


def test_host_no_review(skill: Path, tmp_path: Path) -> None:
    pause = _start(skill, tmp_path, "--no-review")
    done = resume(pause["session"], json.dumps(plan()))
    assert done.pause is None and done.ok
    assert [r.request.text for r in done.requests.findings] == [ELSEWHERE]  # still reported


def test_llm_the_review_is_one_more_call(skill: Path) -> None:
    inventory = build_inventory(skill)
    changed = plan(ELSEWHERE)
    scripted = ScriptedProvider({"_convert/analyze": [plan(), changed]})
    said: list[str] = []
    result = analyze_with_usage(inventory, provider=scripted, config=Config(), progress=said.append)
    assert ELSEWHERE in result.plan.pipelines[0].triggers
    assert result.notes == []
    assert any("review: 1 of the skill's requests land off a pipeline" in s for s in said), said


def test_llm_a_broken_review_answer_keeps_the_verified_plan(skill: Path) -> None:
    inventory = build_inventory(skill)
    broken = plan(ELSEWHERE)
    broken["pipelines"][0]["steps"][0]["program"] = "scripts/missing.py"
    scripted = ScriptedProvider({"_convert/analyze": [plan(), broken]})
    result = analyze_with_usage(inventory, provider=scripted, config=Config())
    assert ELSEWHERE not in result.plan.pipelines[0].triggers
    assert result.notes and "the plan verified before the review was written" in result.notes[0]
    assert result.verification is not None and not result.verification.errors


def test_llm_a_review_kept_is_the_verified_plan(skill: Path) -> None:
    scripted = ScriptedProvider({"_convert/analyze": [plan(), {"keep": True}]})
    said: list[str] = []
    result = analyze_with_usage(
        build_inventory(skill), provider=scripted, config=Config(), progress=said.append
    )
    assert ELSEWHERE not in result.plan.pipelines[0].triggers and result.notes == []
    assert "review: the model keeps its plan" in said


def test_llm_no_review_makes_one_call(skill: Path) -> None:
    scripted = ScriptedProvider({"_convert/analyze": [plan()]})  # a second call would fail
    result = analyze_with_usage(build_inventory(skill), provider=scripted, config=Config(),
                                review=False)  # fmt: skip
    assert result.attempts == 1 and result.notes == []


def test_a_collection_reviews_each_skill_and_keeps_no_review(tmp_path: Path) -> None:
    """Each skill of a collection is its own session: the review comes in its turn, with the
    collection part said; --no-review holds for every skill, not only the first."""
    files = {"SKILL.md": SKILL_MD, "scripts/count.py": COUNT_PY, "notes.txt": "one two\n"}
    root = tmp_path / "collection"
    for name in ("first", "second"):
        write_tree(root / name, files | {"SKILL.md": SKILL_MD.replace("wordcount", name)})

    def answer(name: str) -> str:
        data = plan()
        data["app"]["name"] = name
        return json.dumps(data)

    from skill2app.converter.collection import conversion

    convert, resume = conversion.convert, conversion.resume  # a folder of skills
    reviewed = convert(Options(skill_dir=root, out=tmp_path / "app", analyzer="host"))
    assert reviewed.pause is not None
    review = resume(reviewed.pause["session"], answer("first")).pause
    assert review is not None and review["step"] == "review"
    assert review["collection"]["skill"] == "first"

    options = Options(skill_dir=root, out=tmp_path / "plain", analyzer="host", review=False)
    started = convert(options)
    assert started.pause is not None
    second = resume(started.pause["session"], answer("first")).pause
    assert second is not None and second["step"] == "analyze"
    assert second["collection"]["skill"] == "second"
    done = resume(second["session"], answer("second"))
    assert done.pause is None and done.ok, done.human_lines()


def test_a_session_whose_verified_plan_was_tampered_with_is_refused(
    skill: Path, tmp_path: Path
) -> None:
    from skill2app.converter.errors import UsageError
    from skill2app.runtime.app.config import state_home

    pause = _start(skill, tmp_path)
    review = resume(pause["session"], json.dumps(plan())).pause
    assert review is not None
    path = state_home() / "convert-sessions" / f"{review['session']}.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data | {"verified": "{not json"}))
    with pytest.raises(UsageError, match="is not one app-convert wrote"):
        resume(review["session"], '{"keep": true}')
    assert not (tmp_path / "app").exists()


def test_the_analysts_probes_are_routed_at_the_review(skill: Path, tmp_path: Path) -> None:
    probed = plan(ELSEWHERE)  # the skill's own requests all land: only the probes are news
    probed["pipelines"][0]["probes"] = [
        "my essay is due tomorrow, is it under the 2000 limit?",  # indirect, lands home
        "count the words of my essay",  # one of its triggers word for word
        "book a table for two tonight",  # nothing here does that
    ]
    pause = _start(skill, tmp_path)
    review = resume(pause["session"], json.dumps(probed)).pause
    assert review is not None and review["step"] == "review"
    rows = {row["request"]: row for row in review["review"] if row["kind"] == "probe"}
    assert rows["my essay is due tomorrow, is it under the 2000 limit?"]["finding"] is None
    assert rows["count the words of my essay"]["finding"] == (
        'is a trigger of "count-words" word for word: a probe tests other words'
    )
    assert rows["book a table for two tonight"]["decision"] != "match"  # Skill mode, or unsure
    assert rows["book a table for two tonight"]["finding"]
    assert (
        "| ⚠ book a table for two tonight | the plan's probes of count-words |" in review["prompt"]
    )
    done = resume(review["session"], '{"keep": true}')
    assert done.ok and done.requests.own and all(not r.finding for r in done.requests.own)
    assert done.requests.probes_home == 1
    lines = "\n".join(done.human_lines())
    assert "The analyst's probes: 1 of 3 reach their own pipeline" in lines
    assert (
        "probes"
        not in (tmp_path / "app" / "pipelines" / "count-words" / "pipeline.yaml").read_text()
    )


def test_the_plans_own_phrases_matched_to_a_sibling_are_shown_at_the_review(
    skill: Path, tmp_path: Path
) -> None:
    """Every request the skill quotes routes right, but one trigger of the pizza pipeline says
    the word count's task: the router, with it left out, matches it to count-words, so a
    user's request worded like it would run the wrong pipeline.  The review names it, the
    pipeline it lands on and the phrase that drew it (rounds 13 to 22's judges found such
    overlaps in every host APP, which `app-run check` listed and no host saw)."""
    two = plan()
    pizza = copy.deepcopy(two["pipelines"][0])
    pizza |= {"name": "order-pizza", "description": "Order a pizza", "source": "SKILL.md:16",
              "triggers": [ELSEWHERE, "get me a margherita", "a large pepperoni for tonight",
                           "how many words are in my thesis"]}  # fmt: skip
    two["pipelines"].append(pizza)
    pause = _start(skill, tmp_path)
    review = resume(pause["session"], json.dumps(two)).pause
    assert review is not None and review["step"] == "review"
    assert not any(row["finding"] for row in review["review"])  # the quoted requests: fine
    section = review["prompt"].split("## Your own phrases that run the wrong pipeline", 1)[1]
    line = next(x for x in section.splitlines() if "how many words are in my thesis" in x)
    assert line.startswith('- trigger "how many words are in my thesis" of `order-pizza` → ')
    assert "`count-words` (0." in line and ', drawn by "' in line
    (row,) = [r for r in review["misrouted"] if r["text"] == "how many words are in my thesis"]
    assert (row["pipeline"], row["kind"], row["routes_to"]) == (
        "order-pizza",
        "trigger",
        "count-words",
    )
    assert row["score"] > row["own_score"] and row["drawn_by"]
    done = resume(review["session"], '{"keep": true}')
    assert done.pause is None and done.ok


def test_no_phrase_matched_elsewhere_no_section(skill: Path) -> None:
    from skill2app.converter.analyzers.brief import review_prompt

    check = route_requests(plan_from_dict(plan()), build_inventory(skill))
    assert "## Your own phrases" not in review_prompt("demo", "pipelines: []", check)


def test_the_review_shows_twenty_misrouted_phrases_and_counts_the_rest(skill: Path) -> None:
    from skill2app.converter.analyzers.brief import review_prompt
    from skill2app.converter.verify.routes import RoutingCheck
    from skill2app.converter.verify.verify import Verification
    from skill2app.runtime.routing.selftest import Stray

    strays = [
        Stray("trigger", f"phrase {n}", "a", "b", 0.7, 0.5, "match", "b's") for n in range(23)
    ]
    strays.append(Stray("trigger", "asked about", "a", "b", 0.5, 0.4, "unsure"))
    checked = Verification(routing=RoutingCheck(ran=True, phrases=40, strays=strays))
    empty = route_requests(plan_from_dict(plan()), build_inventory(skill))
    empty.routed = []
    prompt = review_prompt("demo", "pipelines: []", empty, checked)
    section = prompt.split("## Your own phrases that run the wrong pipeline", 1)[1]
    assert section.count('\n- trigger "phrase ') == 20 and "- ... and 3 more" in section
    assert "asked about" not in section  # unsure: the user is asked, nothing wrong runs
    assert "| (the skill quotes no request) | | |" in prompt
