"""Recorded host answers for the example skills, replayed through the host protocol.

tests/golden/host/<skill>/answer.yaml is a plan an analyst (the calling agent) gave for
examples/skills/<skill>; where a first answer was rejected it is kept as rejected.yaml and
replayed first; where the passing plan came back for review (requests the skill quotes that
land off a pipeline), the answer to the review is review.yaml.  Each replay must end
accepted (the APP verified in a temporary copy, smoke included), on the attempt expected,
and render exactly the golden APP in tests/golden/host/<skill>/app/ (its README and
pipelines/; the skill's own files are copies).  Regenerate the goldens with UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from skill2app.converter.convert import Options, convert, resume

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "skills"
HOST = Path(__file__).resolve().parent / "golden" / "host"
SKILLS = sorted(p.name for p in HOST.iterdir() if (p / "answer.yaml").is_file())
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

pytestmark = pytest.mark.usefixtures("runtime_env")


def generated(app: Path) -> dict[str, bytes]:
    files = {"README.md": (app / "README.md").read_bytes()}
    for path in sorted((app / "pipelines").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[path.relative_to(app).as_posix()] = path.read_bytes()
    return files


@pytest.mark.parametrize("skill", SKILLS)
def test_a_recorded_host_answer_renders_the_golden_app(skill: str, tmp_path: Path) -> None:
    started = convert(Options(skill_dir=EXAMPLES / skill, out=tmp_path / "app", analyzer="host"))
    assert started.pause is not None and started.pause["attempt"] == 1
    session = started.pause["session"]
    answers = [HOST / skill / name for name in ("rejected.yaml", "answer.yaml")]
    answers = [a for a in answers if a.is_file()]
    for attempt, answer in enumerate(answers, start=1):
        report = resume(session, answer.read_text(encoding="utf-8"))
        if attempt < len(answers):  # the recorded rejection comes back with its problems
            assert report.pause is not None and report.pause["attempt"] == attempt + 1
            assert report.pause["errors"], report.pause
            assert not (tmp_path / "app").exists()
            continue
        if report.pause is not None and report.pause["step"] == "review":
            # the plan passed; the skill's own requests that land off a pipeline, and the
            # plan's own phrases matched to another pipeline, are shown back once: the
            # recorded review answer (review.yaml) changes the plan for them, or keeps it
            shown = report.pause["review"] or "## Your own phrases" in report.pause["prompt"]
            assert shown and (HOST / skill / "review.yaml").is_file()
            assert not (tmp_path / "app").exists()
            report = resume(session, (HOST / skill / "review.yaml").read_text(encoding="utf-8"))
            assert report.requests.findings == [], report.requests.lines()
        assert report.pause is None, report.pause["errors"] if report.pause else None
        assert report.ok and report.attempts == len(answers), report.human_lines()
    assert report.verification is not None and report.verification.smoke_ran
    failed = [s for s in report.verification.smoke if s.status == "failed"]
    assert failed == []
    got = generated(tmp_path / "app")
    golden = HOST / skill / "app"
    if UPDATE:
        shutil.rmtree(golden, ignore_errors=True)
        for rel, data in got.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_bytes(data)
    want = {
        p.relative_to(golden).as_posix(): p.read_bytes() for p in golden.rglob("*") if p.is_file()
    }
    assert sorted(got) == sorted(want), "file list differs (UPDATE_GOLDEN=1 regenerates)"
    for rel in got:
        assert got[rel] == want[rel], f"{rel} differs (UPDATE_GOLDEN=1 regenerates)"


def test_the_rejections_are_the_kinds_the_loop_must_catch(tmp_path: Path) -> None:
    """team-calendar's first answer fails the plan check; weekly-report's fails smoke."""
    for skill, expected in (
        ("team-calendar", "Additional properties are not allowed"),
        ("weekly-report", "its sample answer fails its own checks: copy the hours per project"),
    ):
        started = convert(
            Options(skill_dir=EXAMPLES / skill, out=tmp_path / skill, analyzer="host")
        )
        assert started.pause is not None
        rejected = (HOST / skill / "rejected.yaml").read_text(encoding="utf-8")
        again = resume(started.pause["session"], rejected)
        assert again.pause is not None
        assert any(expected in e for e in again.pause["errors"]), again.pause["errors"]
