"""A sample that reads what an earlier pipeline's sample makes runs after it in `app-run test`
too (rounds 45–46: creating-kb's ask-kb sample queried the bundle build-kb's sample wrote, and
rp-telemetry's samples recorded into the run start-run's sample opened; each passed the smoke
run, which chains the samples, and failed alone in `app-run test`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import invoke, write_tree

from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import plan_from_dict
from skill2app.converter.verify import sequence
from skill2app.converter.verify.sequence import (
    inferred_after,
    merged_after,
    named_paths,
    sample_paths,
    snapshot,
    watched_paths,
)

pytestmark = pytest.mark.usefixtures("runtime_env")

RUNLOG_PY = '''\
"""Keep a run log in a project folder: open a run, then record notes into it."""
import argparse
import json
import pathlib
import sys

parser = argparse.ArgumentParser()
sub = parser.add_subparsers(dest="command", required=True)
opening = sub.add_parser("open")
opening.add_argument("project")
recording = sub.add_parser("record")
recording.add_argument("project")
recording.add_argument("--note", required=True)
args = parser.parse_args()
log = pathlib.Path(args.project) / "run.log"
if args.command == "open":
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("opened\\n", encoding="utf-8")
    print(json.dumps({"opened": args.project}))
    sys.exit(0)
if not log.exists():
    sys.exit(f"no run is open in {args.project}: open one first")
with log.open("a", encoding="utf-8") as handle:
    handle.write(args.note + "\\n")
print(json.dumps({"notes": len(log.read_text(encoding="utf-8").splitlines()) - 1}))
'''

SKILL = {
    "SKILL.md": (
        "---\nname: runlog\ndescription: Keep a run log for a project. Use when starting a run "
        "or noting what happened in one.\n---\n\n# Run log\n\n```bash\npython3 "
        "scripts/runlog.py open my-project\npython3 scripts/runlog.py record my-project "
        '--note "deployed"\n```\n'
    ),
    "scripts/runlog.py": RUNLOG_PY,
}


def pipeline(name: str, command: str, inputs: list[str], **sample: Any) -> dict[str, Any]:
    args: list[dict[str, str]] = [{"from": "input.project"}]
    args += [{"flag": "--note", "from": "input.note"}] if "note" in inputs else []
    words = name.replace("-", " ")
    return {
        "name": name,
        "description": f"{words.capitalize()} in a project's run log",
        "triggers": [f"{words} please", f"{words} for my project", f"can you {words}",
                     f"I want to {words}", f"{words} in the run log"],
        "input": [{"name": i, "type": "string", "required": True, "description": f"The {i}"}
                  for i in inputs],
        "steps": [{"name": command, "type": "code", "program": "scripts/runlog.py",
                   "subcommand": command, "args": args, "stdout": "json"}],
        "sample": {"input": {i: "work/project" if i == "project" else "deployed"
                             for i in inputs}, **sample},
    }  # fmt: skip


def plan(**record_sample: Any) -> dict[str, Any]:
    return {
        "plan_version": 2,
        "app": {"name": "runlog", "description": "Keep a run log for a project."},
        "analyzer": "host",
        "pipelines": [
            pipeline("open-run", "open", ["project"]),
            pipeline("record-note", "record", ["project", "note"], **record_sample),
        ],
        "constructor": {"needed": False, "checks": []},
        "destructor": {"needed": False, "actions": []},
        "skill_mode": [],
    }


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "runlog", SKILL)


def convert(*args: str | Path, cwd: Path, answer: str | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "skill2app.converter.cli", *map(str, args)],
        input=answer, capture_output=True, text=True, cwd=cwd,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_a_plan_converted_with_smoke_writes_what_each_sample_runs_after(
    skill: Path, tmp_path: Path
) -> None:
    (tmp_path / "plan.json").write_text(json.dumps(plan()), encoding="utf-8")
    code, out, err = convert(skill, "--plan", "plan.json", "--out", "app", "--smoke", "--json",
                             cwd=tmp_path)  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["verification"]["smoke"]["after"] == {"record-note": ["open-run"]}
    assert "  record-note: after open-run" in err.splitlines()
    app = tmp_path / "app"
    assert json.loads((app / "pipelines/record-note/samples/after.json").read_text()) == [
        "open-run"
    ]
    assert not (app / "pipelines/open-run/samples/after.json").exists()
    assert "pipelines/record-note/samples/after.json" in json.loads(out)["files"]
    tested = invoke("test", app, "--json")
    assert tested.exit_code == 0, tested.stdout
    assert {r["status"] for r in json.loads(tested.stdout)} == {"no_expectation"}
    # converted again: the file is written again, neither "removed" nor backed up
    code, out, err = convert(skill, "--plan", "plan.json", "--out", "app", "--smoke", "--json",
                             "--force", cwd=tmp_path)  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["removed"] == []
    assert not (app / ".app-convert-backup").exists()
    assert (app / "pipelines/record-note/samples/after.json").is_file()


def test_a_host_answer_gets_them_too_and_the_plan_may_name_them(
    skill: Path, tmp_path: Path
) -> None:
    code, out, err = convert(skill, "--out", "app", "--analyzer", "host", cwd=tmp_path)
    assert code == 6, err
    answer = plan(after=["open-run"])
    done = subprocess.run(
        ["bash", "-c", json.loads(out)["resume"]], input=json.dumps(answer),
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verification"]["smoke"]["after"] == {
        "record-note": ["open-run"]
    }
    after = tmp_path / "app/pipelines/record-note/samples/after.json"
    assert json.loads(after.read_text()) == ["open-run"]
    assert invoke("test", tmp_path / "app", "record-note").exit_code == 0


@pytest.mark.parametrize(
    ("after", "error"),
    [
        (["record-note"], "pipelines[1].sample.after: 'record-note' is this pipeline"),
        (["nope"], "pipelines[1].sample.after: 'nope' is no earlier pipeline of the plan "
                   "(samples run in the plan's order: put nope before record-note)"),
    ],
)  # fmt: skip
def test_the_plan_check_wants_earlier_pipelines(skill: Path, after: list[str], error: str) -> None:
    errors = check_plan(plan_from_dict(plan(after=after)), build_inventory(skill))
    assert error in errors, errors
    data = plan()
    data["pipelines"][0]["sample"]["after"] = ["record-note"]  # a later one
    errors = check_plan(plan_from_dict(data), build_inventory(skill))
    assert "pipelines[0].sample.after: 'record-note' is no earlier pipeline" in errors[0]


def test_only_earlier_pipelines_that_changed_a_path_the_sample_names_count(
    tmp_path: Path,
) -> None:
    inputs = {
        "build": {"corpus": "pipelines/build/samples/corpus", "out": "samples/kb"},
        "ask": {"kb": "samples/kb/demo.skill", "question": "what is bm25?"},
        "note": {"project": "./work/p/", "text": "a long note\nof two lines"},
        "status": {"project": "work/p", "where": ["/tmp/x", "~/y", "https://a/b", ".."]},
    }
    for name, data in inputs.items():
        write_tree(tmp_path, {f"pipelines/{name}/samples/input.json": json.dumps(data)})
    wrote = {
        "build": ["samples/kb/demo.skill"],
        "ask": ["samples/kb-cache/x"],  # beside, not under, what a later sample names
        "note": ["work/p/run.log"],
        "status": ["work/p/run.log"],
    }
    order = ["build", "ask", "note", "status"]
    named = named_paths(tmp_path, order)
    assert inferred_after(named, wrote) == {"ask": ["build"], "status": ["note"]}
    assert sample_paths(tmp_path / "pipelines/status/samples/input.json") == ["work/p"]
    assert sample_paths(tmp_path / "nowhere.json") == []
    assert merged_after(order, {"status": ["build"]}, {"status": ["note"]}) == {
        "status": ["build", "note"]
    }


def test_a_snapshot_notes_only_the_paths_samples_name_inside_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review of round 47: a whole-copy snapshot stopped at 20,000 files in directory
    order, and a sample project beyond them was never seen."""
    write_tree(tmp_path, {
        "pipelines/a/samples/input.json": json.dumps({"p": "work/p", "q": "work/p/x", "o": "out"}),
        "pipelines/b/samples/input.json": json.dumps({"r": "data/../work/p/log", "s": "gone"}),
        "work/p/x/1.txt": "1", "zz/big.txt": "unrelated", "out/o.txt": "o",
    })  # fmt: skip
    (tmp_path / "out/up").symlink_to(tmp_path.parent)  # a link inside: not followed
    (tmp_path / "gone").symlink_to(tmp_path.parent)  # a named path leading out: not walked
    named = named_paths(tmp_path, ["a", "b"])
    assert watched_paths(named) == ["gone", "out", "work/p"]
    seen, cut = snapshot(tmp_path, watched_paths(named))
    assert sorted(seen) == ["out/o.txt", "work/p/x/1.txt"] and not cut
    monkeypatch.setattr(sequence, "MAX_FILES", 2)
    seen, cut = snapshot(tmp_path, ["out", "work/p"])
    assert len(seen) == 2 and cut


def test_a_sample_text_no_file_system_takes_as_a_name_is_not_watched(tmp_path: Path) -> None:
    """`run.py --set test --analyzer all` (2026-12-04): a host's sample text of 270 characters
    ("Quarterly review for the coffee co-op members: …") was taken for a path, and stat()
    raised ENAMETOOLONG out of the smoke run."""
    text = "Quarterly review for the coffee co-op members: " + "x" * 250
    write_tree(tmp_path, {
        "pipelines/a/samples/input.json": json.dumps({"notes": text, "o": "out"}),
        "out/o.txt": "o",
    })  # fmt: skip
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    named = named_paths(tmp_path, ["a"])
    seen, cut = snapshot(tmp_path, [*watched_paths(named), "dangling", "missing"])
    assert sorted(seen) == ["dangling", "out/o.txt"] and not cut
