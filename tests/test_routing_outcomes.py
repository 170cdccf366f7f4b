"""The three outcomes through the command line: match runs, unsure hands the caller a short
list (`needs_route`, exit 8) whose commands run and teach the router, no match is Skill mode;
and `needs_input` (exit 9) when a routed pipeline's inputs are missing."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import code, invoke, make_app, marker

LLM_STEP = {"name": "judge", "type": "llm", "prompt": "Triage: {{input.report}}", "model": "lite"}


@pytest.fixture
def shop(tmp_path: Path, runtime_env: Path) -> Path:
    return make_app(
        tmp_path / "shop",
        {
            "_constructor": [code("setup")],
            "refund": {
                "description": "Refund an order that arrived broken or never arrived",
                "triggers": [
                    "I want my money back",
                    "refund this order",
                    "the parcel never came, refund me",
                ],
                "input": {"order": "string?"},
                "steps": [code("pay", "ok", "refunded")],
            },
            "return-label": {
                "description": "Create a return label to send an item back",
                "triggers": [
                    "print a return label",
                    "how do I send this back",
                    "I want to return my shoes",
                ],
                "steps": [code("label", "ok", "label")],
            },
            "triage": {
                "description": "Triage a bug report: label it by severity and component",
                "triggers": ["triage this bug", "label this issue", "how bad is this bug"],
                "input": {"report": "string"},
                "steps": [LLM_STEP],
            },
            "compare": {
                "description": "Compare two CSV files and list the rows that differ",
                "triggers": ["diff these two csv files", "compare old.csv with new.csv"],
                "input": {"left": "string", "right_path": "string"},
                "steps": [code("diff", "ok", "compared")],
            },
        },
        files={"SKILL.md": "---\nname: shop\ndescription: A shop.\n---\n# Shop\n"},
    )


UNSURE = "can I get something back for this"


def test_match_runs_and_no_match_is_skill_mode(shop: Path, runtime_env: Path) -> None:
    matched = invoke("route", shop, "I am not happy with the order, refund it", "--json")
    decision = json.loads(matched.stdout)
    assert (decision["decision"], decision["pipeline"]) == ("match", "refund")
    ran = invoke("ask", shop, "I am not happy with the order, refund it", "--json")
    assert ran.exit_code == 0 and json.loads(ran.stdout)["output"]["value"] == "refunded"
    skill = invoke("ask", shop, "what's the weather in Rome")
    assert skill.exit_code == 7 and json.loads(skill.stdout)["routing"]["decision"] == "no_match"


def test_route_json_gives_each_candidate_its_description_and_input_schema(shop: Path) -> None:
    decision = json.loads(invoke("route", shop, UNSURE, "--json").stdout)
    assert decision["decision"] == "unsure" and decision["pipeline"] is None
    by_name = {c["pipeline"]: c for c in decision["candidates"]}
    assert {"return-label", "refund"} <= set(by_name)
    refund = by_name["refund"]
    assert refund["description"].startswith("Refund an order")
    assert refund["input"] == {
        "type": "object",
        "properties": {"order": {"type": ["string", "null"]}},
        "required": [],
        "additionalProperties": False,
    }
    human = invoke("route", shop, UNSURE)
    assert human.stdout.startswith("unsure (the caller chooses among the candidates)")


@pytest.mark.parametrize("flags", [[], ["--json"], ["--quiet"]])
def test_unsure_prints_needs_route_on_stdout_and_exits_8(
    shop: Path, runtime_env: Path, flags: list[str]
) -> None:
    result = invoke("ask", shop, UNSURE, *flags)
    assert result.exit_code == 8, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "needs_route" and data["request"] == UNSURE
    assert data["app"] == str(shop.resolve())
    names = [c["pipeline"] for c in data["candidates"]]
    assert 2 <= len(names) <= 5 and {"return-label", "refund"} <= set(names)
    for candidate in data["candidates"]:
        words = shlex.split(candidate["command"])
        at = words.index("run")
        assert words[at : at + 5] == [
            "run",
            str(shop.resolve()),
            candidate["pipeline"],
            "--request",
            UNSURE,
        ]
        assert {"score", "description", "input", "inputs"} <= set(candidate)
    skill = shlex.split(data["skill_mode"]["command"])
    assert skill[skill.index("ask") :] == ["ask", str(shop.resolve()), UNSURE, "--skill-mode"]
    assert data["skill_mode"]["skill_md"] == str(shop.resolve() / "SKILL.md")
    assert data["routing"]["decision"] == "unsure"
    assert marker(runtime_env, "_constructor", "setup") is None  # nothing ran
    assert ("Unsure which pipeline" in result.stderr) == ("--quiet" not in flags)


def test_a_candidate_command_carries_the_inputs_read_from_the_request(shop: Path) -> None:
    data = json.loads(invoke("ask", shop, f"{UNSURE} order=A-17").stdout)
    refund = next(c for c in data["candidates"] if c["pipeline"] == "refund")
    assert refund["inputs"] == {"order": "A-17"}
    assert shlex.split(refund["command"])[-2:] == ["-i", "order=A-17"]


def _shell(
    command: str, home: Path, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """A printed command, pasted into a shell (app-run resolves to this one's console script)."""
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "APP_RUN_HOME": str(home),
        "PATH": bindir + os.pathsep + os.environ["PATH"],
    }
    return subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, text=True, env=env, cwd=cwd
    )


def test_running_a_candidate_command_runs_it_and_teaches_the_router(
    shop: Path, runtime_env: Path, app_run_home: Path
) -> None:
    data = json.loads(invoke("ask", shop, UNSURE).stdout)
    label = next(c for c in data["candidates"] if c["pipeline"] == "return-label")
    done = _shell(label["command"] + " --json", app_run_home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"]["value"] == "label"
    again = json.loads(invoke("route", shop, UNSURE, "--json").stdout)
    assert (again["decision"], again["pipeline"]) == ("match", "return-label")
    assert again["candidates"][0]["why"].startswith(f'learned "{UNSURE}"')
    ran = invoke("ask", shop, UNSURE + "!", "--json")  # the same words: now it just runs
    assert ran.exit_code == 0 and json.loads(ran.stdout)["pipeline"] == "return-label"


def test_skill_mode_command_goes_straight_to_skill_mode(shop: Path, app_run_home: Path) -> None:
    data = json.loads(invoke("ask", shop, UNSURE).stdout)
    done = _shell(data["skill_mode"]["command"], app_run_home)
    assert done.returncode == 7, done.stderr
    fallback = json.loads(done.stdout)
    assert fallback["mode"] == "skill" and fallback["request"] == UNSURE
    assert fallback["routing"]["strategy"] == "none"


# --- needs_input ------------------------------------------------------------------------------


def test_the_triage_example_fills_report_and_reaches_the_llm_step(shop: Path) -> None:
    """Issue 20's example: the report is right there in the request."""
    request = "please triage this bug report: the app crashes when I upload a photo"
    result = invoke("ask", shop, request)
    assert result.exit_code == 6, result.stderr  # paused at the llm step for the host agent
    pause = json.loads(result.stdout)
    assert pause["status"] == "needs_llm" and pause["step"] == "judge"
    assert pause["prompt"] == "Triage: the app crashes when I upload a photo"
    assert pause["free_text"] == {"report": "the text after the colon"}
    assert "· input 'report' filled with the text after the colon (free text)" in result.stderr


def test_a_missing_path_gets_needs_input_with_its_schema_only(
    shop: Path, runtime_env: Path
) -> None:
    result = invoke("ask", shop, "compare these two csv files left=old.csv", "--json")
    assert result.exit_code == 9, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "needs_input" and data["pipeline"] == "compare"
    assert data["filled"] == {"left": {"value": "old.csv", "from": "request"}}
    assert data["missing"] == {
        "type": "object",
        "properties": {
            "right_path": {
                "type": "string",
                "description": "path of a file (absolute, or relative to where app-run is started)",
            }
        },
        "required": ["right_path"],
        "additionalProperties": False,
    }
    assert marker(runtime_env, "_constructor", "setup") is None


def test_the_needs_input_command_completes_the_run(
    shop: Path, runtime_env: Path, app_run_home: Path
) -> None:
    data = json.loads(invoke("ask", shop, "compare these two csv files left=old.csv").stdout)
    words = shlex.split(data["command"])
    assert words[-2:] == ["--input-json", "-"] and "--request" in words
    answer = '{"right_path": "new.csv"}'
    done = _shell(data["command"] + " --json", app_run_home, stdin=answer, cwd=shop.parent)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"]["value"] == "compared"
    stdin = json.loads(marker(runtime_env, "compare", "diff")["stdin"])
    # a path given is meant from where app-run was started
    assert stdin["input"] == {"left": "old.csv", "right_path": str(shop.parent / "new.csv")}


def test_run_with_a_request_fills_inputs_and_asks_for_the_rest(shop: Path) -> None:
    result = invoke("run", shop, "compare", "--request", "compare them", "-i", "left=a.csv")
    assert result.exit_code == 9
    data = json.loads(result.stdout)
    assert data["filled"]["left"] == {"value": "a.csv", "from": "given"}
    assert data["missing"]["required"] == ["right_path"]
    plain = invoke("run", shop, "compare", "-i", "left=a.csv")  # no request: a usage error
    assert plain.exit_code == 2 and "missing right_path (string)" in plain.stderr


def test_a_terminal_is_asked_for_the_missing_input(
    shop: Path, runtime_env: Path, app_run_home: Path
) -> None:
    """On a terminal, without --json, app-run asks instead of printing needs_input."""
    import pty
    import select

    main, secondary = pty.openpty()
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "APP_RUN_HOME": str(app_run_home),
        "PATH": bindir + os.pathsep + os.environ["PATH"],
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from skill2app.runtime.cli import main; main()",
            "ask",
            str(shop),
            "compare these two csv files left=old.csv",
        ],
        stdin=secondary,
        stdout=subprocess.PIPE,
        stderr=secondary,
        env=env,
        cwd=shop.parent,
    )
    os.close(secondary)
    seen = b""
    while b"right_path (string)" not in seen:
        ready, _, _ = select.select([main], [], [], 60)
        assert ready, f"no question asked: {seen!r}"
        seen += os.read(main, 1024)
    os.write(main, b"new.csv\n")
    out, _ = proc.communicate(timeout=60)
    os.close(main)
    assert proc.returncode == 0, seen
    assert json.loads(out)["value"] == "compared"
    stdin = json.loads(marker(runtime_env, "compare", "diff")["stdin"])
    assert stdin["input"]["right_path"] == str(shop.parent / "new.csv")  # from the caller's folder
