"""app-convert --analyzer host: the calling agent is the analyst.

Driven as an agent drives it: run the command, read the one JSON object it prints (exit 6),
answer with a plan through the printed `resume` command (pasted into a shell as it is), and
read the next object — problems with the attempt count, or the report.  Answers that fail the
plan check, that fail the smoke run, that are empty; attempts used up; sessions.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import write_tree

from skill2app.converter.plan.file import plan_schema

pytestmark = pytest.mark.usefixtures("runtime_env")

COUNT_PY = '''\
"""Count the words of a text file: JSON {"words": N, "lines": N}."""
import argparse
import json

parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("--min-length", type=int, default=1)
args = parser.parse_args()
text = open(args.file, encoding="utf-8").read()
words = [w for w in text.split() if len(w) >= args.min_length]
print(json.dumps({"words": len(words), "lines": len(text.splitlines())}))
'''

SKILL = {
    "SKILL.md": (
        "---\nname: wordcount\ndescription: Count the words of a text file. Use when someone "
        "asks how long a text is.\n---\n\n# Word count\n\n```bash\npython3 scripts/count.py "
        "notes.txt --min-length 3\n```\n"
    ),
    "scripts/count.py": COUNT_PY,
    "notes.txt": "one two three\nfour five\n",
}


def good_plan(**sample: Any) -> dict[str, Any]:
    return {
        "plan_version": 2,
        "app": {"name": "wordcount", "description": "Count the words of a text file."},
        "analyzer": "host",
        "pipelines": [
            {
                "name": "count-words",
                "description": "Count the words and lines of a text file",
                "triggers": [
                    "how many words are in notes.txt",
                    "count the words of my essay",
                    "word count of this file",
                    "is my text too long",
                    "how long is this document in words",
                ],
                "input": [
                    {"name": "text_file", "type": "string", "required": True,
                     "description": "The text file to count"},
                    {"name": "min_length", "type": "integer", "required": False, "default": 1,
                     "description": "Shortest word that counts"},
                ],
                "steps": [
                    {
                        "name": "count",
                        "type": "code",
                        "program": "scripts/count.py",
                        "args": [{"from": "input.text_file"},
                                 {"flag": "--min-length", "from": "input.min_length"}],
                        "stdout": "json",
                        "output": {"words": "integer", "lines": "integer"},
                    }
                ],
                "sample": {"input": {"text_file": "notes.txt"}, **sample},
            }
        ],
        "constructor": {"needed": False, "checks": []},
        "destructor": {"needed": False, "actions": []},
        "skill_mode": [],
    }  # fmt: skip


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "wordcount", SKILL)


def app_convert(*args: str | Path, answer: str | None = None, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "skill2app.converter.cli", *map(str, args)],
        input=answer,
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    return done.returncode, done.stdout, done.stderr


def paste(command: str, answer: str, cwd: Path) -> tuple[int, str, str]:
    """Run a printed command as an agent would: pasted into a shell, the answer on stdin."""
    done = subprocess.run(
        ["bash", "-c", command], input=answer, capture_output=True, text=True, cwd=cwd
    )
    return done.returncode, done.stdout, done.stderr


def start(skill: Path, cwd: Path) -> dict[str, Any]:
    code, out, err = app_convert(skill, "--out", "app", "--analyzer", "host", cwd=cwd)
    assert code == 6, err
    pause: dict[str, Any] = json.loads(out)
    return pause


def test_the_pause_is_one_self_contained_json_object(skill: Path, tmp_path: Path) -> None:
    pause = start(skill, tmp_path)
    assert pause["status"] == "needs_llm"
    assert (pause["attempt"], pause["max_attempts"], pause["errors"]) == (1, 3, [])
    assert pause["schema"] == plan_schema()
    prompt = pause["prompt"]
    for part in (
        "What a good APP is",  # the rubric
        "The APP step contract",
        '"path":"scripts/count.py"',  # the inventory's facts
        "python3 scripts/count.py notes.txt --min-length 3",  # SKILL.md with line numbers
        "The heuristic draft plan",
    ):
        assert part in prompt
    assert pause["resume"].endswith(f"resume {pause['session']} --answer -")
    assert not (tmp_path / "app").exists()  # nothing written before a plan passes
    folder = Path(os.environ["APP_RUN_HOME"]) / "convert-sessions"
    mode = stat.S_IMODE((folder / f"{pause['session']}.json").stat().st_mode)
    assert mode == 0o600


def test_a_good_answer_writes_the_verified_app(skill: Path, tmp_path: Path) -> None:
    pause = start(skill, tmp_path)
    jsonschema.validate(good_plan(), pause["schema"])  # what an agent can check itself
    code, out, err = paste(pause["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 0, err
    report = json.loads(out)  # every outcome of resume is one JSON object on stdout
    assert (report["ok"], report["attempts"], report["app"]) == (True, 1, str(tmp_path / "app"))
    assert "Converted" in err and "Smoke test: 1 of 1 steps passed" in err
    app = tmp_path / "app"
    done = subprocess.run(
        [sys.executable, "-m", "skill2app.runtime.cli", "run", str(app), "count-words",
         "-i", f"text_file={skill / 'notes.txt'}", "-q"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == {"words": 5, "lines": 2}, done.stderr


def test_problems_come_back_with_the_attempt_count_then_a_fix_passes(
    skill: Path, tmp_path: Path
) -> None:
    pause = start(skill, tmp_path)
    wrong_flag = good_plan()
    wrong_flag["pipelines"][0]["steps"][0]["args"][1]["flag"] = "--minimum"
    code, out, _err = paste(pause["resume"], json.dumps(wrong_flag), tmp_path)
    assert code == 6
    second = json.loads(out)
    assert (second["attempt"], second["session"]) == (2, pause["session"])
    assert second["errors"] == [
        "pipelines[0].steps[0].args[1]: scripts/count.py has no flag --minimum"
    ]
    # a retry's prompt is the problems alone; the whole first prompt is kept to read again
    assert second["prompt"].startswith("# Attempt 2 of 3: your plan for the skill")
    assert "scripts/count.py has no flag --minimum" in second["prompt"]
    assert len(second["prompt"]) < len(pause["prompt"]) / 3
    kept = Path(second["prompt_file"])
    assert kept == Path(pause["prompt_file"]) and str(kept) in second["prompt"]
    assert kept.read_text(encoding="utf-8") == pause["prompt"]
    assert kept.stat().st_mode & 0o777 == 0o600
    failing_sample = good_plan(input={"text_file": "missing.txt"})
    code, out, _err = paste(second["resume"], json.dumps(failing_sample), tmp_path)
    assert code == 6
    third = json.loads(out)
    assert third["attempt"] == 3
    assert third["errors"][0].startswith("smoke count-words/count: step exited with 1")
    assert "missing.txt" in third["errors"][0]
    code, _out, err = paste(third["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 0, err
    assert "Analyzer: host (no tokens, 3 attempts)" in err or "3 attempts" in err
    assert (tmp_path / "app" / "pipelines" / "count-words" / "pipeline.yaml").is_file()


def test_a_retry_without_its_kept_prompt_sends_the_whole_prompt_again(
    skill: Path, tmp_path: Path
) -> None:
    """A reviewer's: with `<session>.prompt.md` deleted, the whole prompt was sent again (as
    it should be) but kept with that attempt's problems, which later retries then cited."""
    pause = start(skill, tmp_path)
    kept = Path(pause["prompt_file"])
    kept.unlink()
    wrong_flag = good_plan()
    wrong_flag["pipelines"][0]["steps"][0]["args"][1]["flag"] = "--minimum"
    code, out, _err = paste(pause["resume"], json.dumps(wrong_flag), tmp_path)
    second = json.loads(out)
    assert code == 6 and second["attempt"] == 2
    assert "your previous plan was not accepted" in second["prompt"]  # the whole, with them
    assert len(second["prompt"]) > len(pause["prompt"])
    assert kept.read_text(encoding="utf-8") == pause["prompt"]  # kept as the first was
    code, out, _err = paste(second["resume"], json.dumps(wrong_flag), tmp_path)
    third = json.loads(out)
    assert code == 6 and third["prompt"].startswith("# Attempt 3 of 3")


def test_attempts_used_up_write_nothing_and_say_what_fails(skill: Path, tmp_path: Path) -> None:
    """... and --max-attempts on resume reopens the session for one more try."""
    code, out, err = app_convert(
        skill, "--out", "app", "--analyzer", "host", "--max-attempts", "2", cwd=tmp_path
    )
    pause = json.loads(out)
    bad = good_plan()
    bad["pipelines"][0]["steps"][0]["program"] = "scripts/nope.py"
    code, out, _err = paste(pause["resume"], json.dumps(bad), tmp_path)
    assert code == 6
    code, out, err = paste(json.loads(out)["resume"], json.dumps(bad), tmp_path)
    assert code == 5
    assert "Not converted: the analyst's plan still failed after 2 attempts" in err
    assert "the skill has no program 'scripts/nope.py'" in err
    assert not (tmp_path / "app").exists()
    assert json.loads(out)["exhausted"] == [
        "pipelines[0].steps[0].program: the skill has no program 'scripts/nope.py' "
        "(programs: scripts/count.py)"
    ]
    code, _out, err = paste(pause["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 2 and "has ended (exhausted)" in err and "--max-attempts" in err
    code, out, err = paste(pause["resume"] + " --max-attempts 3", json.dumps(good_plan()), tmp_path)
    assert code == 0, err
    assert json.loads(out)["attempts"] == 3


def test_an_empty_answer_uses_no_attempt(skill: Path, tmp_path: Path) -> None:
    pause = start(skill, tmp_path)
    code, _out, err = paste(pause["resume"], "  \n", tmp_path)
    assert code == 2 and "the answer is empty" in err
    code, out, _err = paste(pause["resume"], "this is not a plan", tmp_path)
    assert code == 6
    assert json.loads(out)["attempt"] == 2
    assert json.loads(out)["errors"][0].startswith("the answer is not JSON")


def test_a_yaml_answer_in_a_fence_is_read_too(skill: Path, tmp_path: Path) -> None:
    import yaml

    pause = start(skill, tmp_path)
    answer = "Here is the plan:\n\n```yaml\n" + yaml.safe_dump(good_plan()) + "```\n"
    code, _out, err = paste(pause["resume"], answer, tmp_path)
    assert code == 0, err


def test_a_json_answer_whose_fence_closes_on_its_last_line_is_read(
    skill: Path, tmp_path: Path
) -> None:
    pause = start(skill, tmp_path)
    answer = "Here is the plan:\n```json\n" + json.dumps(good_plan(), indent=1) + "```"
    code, _out, err = paste(pause["resume"], answer, tmp_path)
    assert code == 0, err


def test_a_session_whose_out_was_filled_meanwhile_stays_paused(skill: Path, tmp_path: Path) -> None:
    """A newcomer's trial: two sessions started with the same empty --out; the second one's
    last resume found the folder filled by the first, wrote nothing, and ended "accepted",
    its plan lost.  It now stays paused, with its attempts, until the folder is free."""
    first, second = start(skill, tmp_path), start(skill, tmp_path)
    code, _out, err = paste(first["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 0, err
    code, _out, err = paste(second["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 4 and "the output folder is not empty" in err
    assert f"app-convert resume {second['session']} command again" in err
    assert "--force" not in err  # resume has none
    assert len(err.strip().splitlines()) == 1
    code, out, _err = app_convert("sessions", "--json", cwd=tmp_path)
    rows = {r["session"]: r for r in json.loads(out)}
    assert (rows[second["session"]]["status"], rows[second["session"]]["attempt"]) == ("paused", 1)
    shutil.rmtree(tmp_path / "app")
    code, _out, err = paste(second["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 0, err
    assert (tmp_path / "app" / "pipelines").is_dir()


def test_a_skill_changed_under_the_session_is_refused(skill: Path, tmp_path: Path) -> None:
    pause = start(skill, tmp_path)
    (skill / "scripts" / "count.py").write_text(COUNT_PY + "# edited\n", encoding="utf-8")
    code, _out, err = paste(pause["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 2 and "changed since session" in err


def test_sessions_are_listed_abandoned_and_cleaned(skill: Path, tmp_path: Path) -> None:
    pause = start(skill, tmp_path)
    code, out, _err = app_convert("sessions", "--json", cwd=tmp_path)
    assert [(r["session"], r["status"]) for r in json.loads(out)] == [(pause["session"], "paused")]
    code, _out, err = paste(pause["abandon"], "", tmp_path)
    assert code == 0 and "nothing was written" in err
    code, _out, err = paste(pause["resume"], json.dumps(good_plan()), tmp_path)
    assert code == 2 and "has ended (abandoned)" in err
    assert Path(pause["prompt_file"]).is_file()
    stray = Path(pause["prompt_file"]).with_name("20260101T000000-gone-abcdef.prompt.md")
    stray.write_text("a prompt whose session was removed by hand")
    code, out, err = app_convert("sessions", "--clean", "--json", cwd=tmp_path)
    assert json.loads(out) == [] and "removed 1 conversion sessions" in err
    assert not Path(pause["prompt_file"]).exists()  # the kept prompt goes with its session
    assert not stray.exists()


def test_an_unknown_session_is_a_usage_error(tmp_path: Path) -> None:
    code, _out, err = app_convert("resume", "nope", "--answer", "-", answer="{}", cwd=tmp_path)
    assert code == 2 and "no conversion session 'nope'" in err


def test_an_existing_output_folder_is_refused_before_any_analysis(
    skill: Path, tmp_path: Path
) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "mine.txt").write_text("keep me", encoding="utf-8")
    code, out, err = app_convert(skill, "--out", "app", "--analyzer", "host", cwd=tmp_path)
    assert (code, out) == (4, "")
    assert "the output folder is not empty" in err


@pytest.mark.parametrize("kind", ["dangling", "loop", "under_a_file"])
def test_an_out_no_folder_can_be_made_at_is_a_usage_error(tmp_path: Path, kind: str) -> None:
    """An attack run: --out become a link to nothing, or a place under a file, between two
    resumes ended the session "accepted" with nothing written; a link loop was exit 70."""
    from skill2app.converter.errors import UsageError
    from skill2app.converter.render.write import check_destination

    skill = tmp_path / "skill"
    skill.mkdir()
    out = tmp_path / "out"
    if kind == "dangling":
        out.symlink_to(tmp_path / "nowhere")
    elif kind == "loop":
        out.symlink_to(tmp_path / "out2")
        (tmp_path / "out2").symlink_to(out)
    else:
        (tmp_path / "file").write_text("x")
        out = tmp_path / "file" / "sub"
    with pytest.raises(UsageError):
        check_destination(skill, out, force=False)


def test_an_answer_is_read_no_further_than_its_limit_and_any_number_is_a_problem() -> None:
    """An attack run: `--answer /dev/zero` grew app-convert to 5 GB; a 5,000-digit integer in
    an answer was an internal error (exit 70)."""
    from skill2app.converter.analyzers.loop import MAX_ANSWER_BYTES, parse_answer
    from skill2app.converter.cli import _read_answer

    assert len(_read_answer("/dev/zero")) <= MAX_ANSWER_BYTES + 1
    for text in ('{"a": ' + "9" * 5000 + "}", "a: " + "9" * 5000):
        data, problem = parse_answer(text)
        assert data is None and problem.startswith("the answer is not JSON")
