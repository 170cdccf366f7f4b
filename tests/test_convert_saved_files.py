"""app-convert on real skills: what a program writes and finds reaches the pipeline.

Held-out skills showed it (judges, round 20): kdense's resource detector prints emoji text and
writes its JSON to ``-o`` (``.claude_resources.json`` when not told), so the step's output was
the decoration and ``--output results/res.json`` failed because ``results/`` did not exist;
network-diagnostics prints nothing once given ``--output``, so the step output was
``{"stdout": ""}``.  A meeting-minutes reviewer's ``--hearing-sheet``, documented "(optional)",
was made required because its section was the only one showing it, and the review its
workflow asks for after the script ran was a catch-all llm step that never ran the script.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.inventory.model import build_inventory

DETECT_PY = """import argparse, json
parser = argparse.ArgumentParser(description="Detect resources.")
parser.add_argument("-o", "--output", default=".resources.json", help="Output JSON file path")
parser.add_argument("--cores", type=int, default=2, help="Cores to report")
args = parser.parse_args()
with open(args.output, "w") as handle:
    json.dump({"cores": args.cores, "memory_gb": 16}, handle)
print("🔍 Detecting...\\n✅ saved to " + args.output)
"""
DETECT_MD = (
    "---\nname: detect\ndescription: Detect the machine's resources before heavy work.\n---\n\n"
    "# Detect\n\n## Detect resources\n\n```bash\npython3 scripts/detect.py -o out.json\n```\n"
)
CONVERT = [sys.executable, "-c", "from skill2app.converter.cli import main; main()"]
RUN = [sys.executable, "-c", "from skill2app.runtime.cli import main; main()"]


def converted(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str]:
    root = write_tree(tmp_path / "skill", files)
    out = tmp_path / "app"
    done = subprocess.run(
        [*CONVERT, str(root), "--out", str(out), "--analyzer", "heuristic"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (pipeline,) = [p.parent.name for p in (out / "pipelines").glob("[!_]*/pipeline.yaml")]
    return out, pipeline


def run(app: Path, pipeline: str, cwd: Path, *inputs: str) -> dict:
    args = [a for item in inputs for a in ("--input", item)]
    ran = subprocess.run(
        [*RUN, "run", str(app), pipeline, *args, "--json"],
        capture_output=True, text=True, check=False, cwd=cwd,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return json.loads(ran.stdout)


def test_the_file_a_program_writes_is_read_back_and_its_folder_made(tmp_path: Path) -> None:
    app, pipeline = converted(tmp_path, {"SKILL.md": DETECT_MD, "scripts/detect.py": DETECT_PY})
    work = tmp_path / "work"
    work.mkdir()
    result = run(app, pipeline, work, "output=results/res.json", "cores=8")
    output = json.dumps(result)
    assert (work / "results" / "res.json").is_file()  # results/ did not exist: made first
    assert str(work / "results" / "res.json") in output  # "saved_to"
    assert '"memory_gb": 16' in output and '"cores": 8' in output  # the file, parsed
    assert "Detecting" in output  # what it printed stays


def test_a_file_written_where_the_program_writes_by_default_is_read_too(tmp_path: Path) -> None:
    app, pipeline = converted(tmp_path, {"SKILL.md": DETECT_MD, "scripts/detect.py": DETECT_PY})
    work = tmp_path / "work"
    work.mkdir()
    (work / ".resources.json").write_text('{"stale": true}')  # an older file is not read
    (work / "old.json").write_text("{}")
    output = json.dumps(run(app, pipeline, work))
    assert '"memory_gb": 16' in output and "stale" not in output
    assert str(work / ".resources.json") in output


def test_a_file_left_from_before_is_not_taken_for_the_programs_answer(tmp_path: Path) -> None:
    quiet = DETECT_PY.replace(
        "with open(args.output", "if args.cores > 99:\n  with open(args.output"
    )
    quiet = quiet.replace("    json.dump({", "        json.dump({")
    app, pipeline = converted(tmp_path, {"SKILL.md": DETECT_MD, "scripts/detect.py": quiet})
    work = tmp_path / "work"
    work.mkdir()
    (work / "res.json").write_text('{"stale": true}')  # just before: same second
    output = json.dumps(run(app, pipeline, work, "output=res.json"))
    assert "stale" not in output and "saved_to" not in output
    assert "Detecting" in output


REVIEW_PY = """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--minutes", required=True, help="Path to meeting minutes file")
parser.add_argument("--hearing-sheet", help="Path to source hearing sheet")
parser.add_argument("--output", help="Output file path (default: stdout)")
parser.add_argument("--format", choices=["json", "markdown"], default="json")
args = parser.parse_args()
"""
REVIEW_MD = (
    "---\nname: review\ndescription: Review meeting minutes.\n---\n\n# Review\n\n"
    "## Workflow\n\n### Step 2: Run Automated Analysis\n\n```bash\n"
    "python3 scripts/review.py --minutes m.md --hearing-sheet sheet.md --output r.json\n```\n\n"
    "Parameters:\n- `--minutes`: Path to the minutes (required)\n"
    "- `--hearing-sheet`: Path to source hearing sheet (optional)\n\n"
    "### Step 5: Generate Feedback Report\n\n```bash\n"
    "python3 scripts/review.py --minutes m.md --format markdown --output report.md\n```\n"
)


def test_a_flag_documented_optional_stays_optional_in_the_task_showing_it(
    tmp_path: Path,
) -> None:
    """meeting-minutes-reviewer: the only section giving --hearing-sheet made it required."""
    plan = analyze(
        build_inventory(
            write_tree(tmp_path, {"SKILL.md": REVIEW_MD, "scripts/review.py": REVIEW_PY})
        )
    )
    inputs = {i.name: i.required for p in plan.pipelines for i in p.input}
    assert inputs["hearing_sheet"] is False
    assert inputs["minutes"] is True


WORKFLOW_MD = (
    "---\nname: review\ndescription: Review meeting minutes.\n---\n\n# Review\n\n"
    "## Workflow\n\n### Step 1: Gather Input Documents\n\nCollect the minutes file.\n\n"
    "### Step 2: Run Automated Analysis\n\n```bash\n"
    "python3 scripts/review.py --minutes m.md{extra}\n```\n\n"
    "Exit code 1 means critical issues were found.\n\n"
    "### Step 3: Review Quality Scores\n\n"
    "Examine the scores and decide which findings must be fixed before distribution.\n"
)


def test_steps_under_a_workflow_heading_with_judgement_after_a_program_are_one_pipeline(
    tmp_path: Path,
) -> None:
    """meeting-minutes-reviewer, network-diagnostics (judges, round 20): the script's pipeline
    returned raw findings, and the review the steps ask for was a catch-all that never ran it."""
    files = {"SKILL.md": WORKFLOW_MD.format(extra=""), "scripts/review.py": REVIEW_PY}
    plan = analyze(build_inventory(write_tree(tmp_path, files)))
    first = plan.pipelines[0]
    assert [s.type for s in first.steps] == ["code", "llm"]
    assert first.steps[0].ok_exit_codes == [0, 1]  # "critical issues found" is a result
    assert "{{review.output}}" in first.steps[1].prompt
    assert "Examine the scores" in first.steps[1].prompt


def test_a_workflow_whose_command_the_program_cannot_take_is_no_pipeline(tmp_path: Path) -> None:
    """japanese-enterprise-doc-formatter: a step passing --input, which the program does not
    declare, would leave the whole workflow (and what it covers) to Skill mode."""
    files = {"SKILL.md": WORKFLOW_MD.format(extra=" --input x.md"), "scripts/review.py": REVIEW_PY}
    plan = analyze(build_inventory(write_tree(tmp_path, files)))
    assert plan.pipelines and all(s.type == "code" for p in plan.pipelines for s in p.steps)


def test_a_file_named_like_one_of_the_app_is_written_where_the_user_is(tmp_path: Path) -> None:
    """A second read: `output=README.md` from an empty folder wrote into the APP's README."""
    app, pipeline = converted(tmp_path, {"SKILL.md": DETECT_MD, "scripts/detect.py": DETECT_PY})
    before = (app / "README.md").read_bytes()
    work = tmp_path / "work"
    work.mkdir()
    output = json.dumps(run(app, pipeline, work, "output=README.md"))
    assert (app / "README.md").read_bytes() == before
    assert (work / "README.md").is_file() and str(work / "README.md") in output


BIG_PY = """import argparse
parser = argparse.ArgumentParser()
parser.add_argument("-o", "--output", help="Output file path")
args = parser.parse_args()
if "://" not in args.output:
    with open(args.output, "w") as handle:
        handle.write("é" * 150_000 + "x" * 300_000)
"""
BIG_MD = DETECT_MD.replace("detect.py -o out.json", "big.py -o out.txt")


def test_a_big_file_is_read_back_in_part_and_a_url_makes_no_folder(tmp_path: Path) -> None:
    app, pipeline = converted(tmp_path, {"SKILL.md": BIG_MD, "scripts/big.py": BIG_PY})
    work = tmp_path / "work"
    work.mkdir()
    result = run(app, pipeline, work, "output=big.txt")
    output = result["output"] if "output" in result else result
    found = json.dumps(result)
    assert '"saved_truncated": true' in found
    saved = next(v for k, v in _items(output) if k == "saved")
    assert 0 < len(saved) <= 200_000
    run(app, pipeline, work, "output=s3://bucket/key.txt")
    assert not (work / "s3:").exists()


def _items(value: object):
    """Every (key, value) of a JSON value, nested ones too."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _items(item)
    elif isinstance(value, list):
        for item in value:
            yield from _items(item)


def test_an_output_path_positional_gets_its_folder_made(tmp_path: Path) -> None:
    """tool-drawio (round 28): `generate-from-template.py architecture ./output/arch.svg`
    failed on a missing ./output/: a positional named for the file the program writes gets
    its folder made and the file read back, like an --output flag."""
    app, pipeline = converted(
        tmp_path,
        {
            "SKILL.md": "---\nname: gen\ndescription: Draw diagrams as SVG.\n---\n\n# Gen\n\n"
            "## Draw a diagram\n\n```bash\n"
            "python3 scripts/gen.py architecture ./output/arch.svg\n```\n",
            "scripts/gen.py": "import sys\nif len(sys.argv) < 3:\n"
            "    print('Usage: python3 gen.py <template-type> <output-path>')\n"
            "    sys.exit(1)\ntemplate_type = sys.argv[1]\noutput_path = sys.argv[2]\n"
            "open(output_path, 'w').write(f'<svg>{template_type}</svg>')\n",
        },
    )
    work = tmp_path / "work"
    work.mkdir()
    spec = (app / "pipelines" / pipeline / "pipeline.yaml").read_text()
    assert "output_path:" in spec
    result = run(app, pipeline, work, "template_type=flow", "output_path=out/d.svg")
    assert (work / "out" / "d.svg").read_text() == "<svg>flow</svg>"
    assert "<svg>flow</svg>" in json.dumps(result)
