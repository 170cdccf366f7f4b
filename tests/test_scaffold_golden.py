"""Golden trees: what app-new generates, compared exactly with tests/golden/new/<case>/.

Regenerate them, then review the diff in git:

    UPDATE_GOLDEN=1 pytest tests/test_scaffold_golden.py

Without UPDATE_GOLDEN=1 a difference fails the test; goldens are never rewritten silently.
"""

from __future__ import annotations

import difflib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from skill2app.scaffold import app, lifecycle, pipeline, specs, step
from skill2app.scaffold.files import Change

GOLDEN = Path(__file__).resolve().parent / "golden" / "new"
TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (relative POSIX path -> text)."""
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def assert_tree(actual_root: Path, case: str) -> None:
    """``actual_root`` must equal tests/golden/new/<case> file for file, byte for byte."""
    expected_root = GOLDEN / case
    if os.environ.get("UPDATE_GOLDEN") == "1":
        shutil.rmtree(expected_root, ignore_errors=True)
        shutil.copytree(actual_root, expected_root)
    actual, expected = tree(actual_root), tree(expected_root)
    assert sorted(actual) == sorted(expected), f"files differ from golden {case}"
    for name, text in expected.items():
        if actual[name] != text:
            diff = "".join(
                difflib.unified_diff(
                    text.splitlines(True), actual[name].splitlines(True), "golden", "actual"
                )
            )
            pytest.fail(
                f"{case}/{name} differs from the golden file (UPDATE_GOLDEN=1 to accept):\n{diff}"
            )


# --- the cases: each builds an APP under `root` and returns every change it made ---


def app_minimal(root: Path) -> list[Change]:
    return app.new_app(root, "demo")


def app_lifecycle(root: Path) -> list[Change]:
    return app.new_app(
        root,
        "pr-helper",
        description="Review GitHub pull requests. Use when asked to review a PR or a diff.",
        with_lifecycle=True,
    )


def pipeline_all_kinds(root: Path) -> list[Change]:
    changes = app.new_app(root, "demo", description="Demo APP with every kind of step.")
    changes += pipeline.new_pipeline(
        root / "demo",
        "code-review",
        'Standard code review: fetch the diff, analyse it, write a "report"',
        triggers=["review this PR", "code review für mich"],
        inputs=[
            specs.parse_input(text)
            for text in (
                "repo",
                "pr_number:integer",
                "strict:boolean",
                "ratio:number",
                "paths:array",
                "options:object",
            )
        ],
        steps=[
            specs.parse_step(text)
            for text in (
                "fetch_diff:code:bash",
                "analyze:llm:reasoning",
                "calc_stats:code:node",
                "gen_report",
            )
        ],
    )
    return changes


def pipeline_defaults(root: Path) -> list[Change]:
    changes = app.new_app(root, "demo")
    changes += pipeline.new_pipeline(root / "demo", "hello", "Say hello")
    return changes


def pipeline_llm_first(root: Path) -> list[Change]:
    changes = app.new_app(root, "demo")
    changes += pipeline.new_pipeline(
        root / "demo",
        "classify",
        "Classify a support ticket",
        inputs=[specs.parse_input("ticket"), specs.parse_input("language")],
        steps=[specs.parse_step("label:llm:lite"), specs.parse_step("route:code")],
    )
    return changes


def steps_added(root: Path) -> list[Change]:
    changes = pipeline_all_kinds(root)
    demo = root / "demo"
    changes += step.new_step(
        demo, "code-review", specs.step("summarize", "llm", tier="lite"), after="fetch_diff"
    )
    changes += step.new_step(demo, "code-review", specs.step("publish", "code", lang="bash"))
    changes += step.new_step(
        demo, "code-review", specs.step("notify", "code", lang="node"), after="analyze"
    )
    changes += step.new_step(demo, "code-review", specs.step("judge", "llm"))
    return changes


def lifecycle_added(root: Path) -> list[Change]:
    changes = pipeline_defaults(root)
    changes += lifecycle.new_lifecycle(root / "demo", "constructor")
    changes += lifecycle.new_lifecycle(root / "demo", "destructor")
    changes += step.new_step(root / "demo", "_constructor", specs.step("pull_data", "code"))
    return changes


def steps_into_new_answers(root: Path) -> list[Change]:
    """An llm step added to a pipeline that had none creates samples/answers.yaml."""
    changes = pipeline_defaults(root)
    changes += step.new_step(root / "demo", "hello", specs.step("polish", "llm"))
    return changes


CASES: dict[str, Callable[[Path], list[Change]]] = {
    "app-minimal": app_minimal,
    "app-lifecycle": app_lifecycle,
    "pipeline-all-kinds": pipeline_all_kinds,
    "pipeline-defaults": pipeline_defaults,
    "pipeline-llm-first": pipeline_llm_first,
    "steps-added": steps_added,
    "lifecycle-added": lifecycle_added,
    "steps-into-new-answers": steps_into_new_answers,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, tmp_path: Path) -> None:
    CASES[case](tmp_path)
    assert_tree(tmp_path, case)


@pytest.mark.parametrize("case", sorted(CASES))
def test_output_is_deterministic(case: str, tmp_path: Path) -> None:
    CASES[case](tmp_path / "one")
    CASES[case](tmp_path / "two")
    assert tree(tmp_path / "one") == tree(tmp_path / "two")


def test_every_template_is_covered_by_a_golden_case(tmp_path: Path) -> None:
    import jinja2.meta

    from skill2app.templates import environment

    env = environment()
    used: set[str] = set()
    for case, build in CASES.items():
        used |= {change.template for change in build(tmp_path / case) if change.template}
    # Templates only ever included (a step entry, a prompt, an answer) count through their parent.
    pending = list(used)
    while pending:
        source = env.loader.get_source(env, pending.pop())[0]
        for name in jinja2.meta.find_referenced_templates(env.parse(source)):
            if name and name not in used:
                used.add(name)
                pending.append(name)
    everything = {
        path.relative_to(TEMPLATES).as_posix() for path in (TEMPLATES / "new").rglob("*.j2")
    }
    assert everything - used == set()


def test_scripts_are_executable_and_data_is_not(tmp_path: Path) -> None:
    steps_added(tmp_path)
    for path in (tmp_path / "demo").rglob("*"):
        if path.is_file():
            executable = bool(path.stat().st_mode & 0o100)
            assert executable == (path.parent.name == "steps"), path
