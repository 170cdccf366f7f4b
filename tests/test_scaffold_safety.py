"""Safety: names are validated, nothing is overwritten without --force, --dry-run writes
nothing, writes are atomic and a failed write leaves nothing half-done behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skill2app.scaffold import app, files, lifecycle, names, pipeline, specs, step
from skill2app.scaffold.errors import Conflict, InvalidName, UsageError, WriteFailed


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


NAMES = [
    # validator, value, expected_error (None: accepted)
    (names.app_name, "code-review", None),
    (names.app_name, "a" * 64, None),
    (names.app_name, "a" * 65, "APP name is 65 characters long — use at most 64 characters"),
    (names.app_name, "Code-Review", "APP name 'Code-Review' is not lowercase-hyphenated"),
    (names.app_name, "code--review", "APP name 'code--review' is not lowercase-hyphenated"),
    (names.app_name, "-review", "APP name '-review' is not lowercase-hyphenated"),
    (names.app_name, "code_review", "APP name 'code_review' is not lowercase-hyphenated"),
    (names.app_name, "", "APP name '' is not lowercase-hyphenated"),
    (
        names.app_name,
        "my-claude-helper",
        "APP name 'my-claude-helper' contains the reserved word 'claude'",
    ),
    (names.app_name, "claudette", None),
    (names.pipeline_name, "review-pr", None),
    (
        names.pipeline_name,
        "_constructor",
        "pipeline name '_constructor' is not lowercase-hyphenated",
    ),
    (
        names.pipeline_name,
        "destructor",
        "pipeline name 'destructor' is reserved — use `app-new destructor APP_DIR`",
    ),
    (names.pipeline_name, "../etc", "pipeline name '../etc' is not lowercase-hyphenated"),
    (names.step_name, "fetch_diff", None),
    (names.step_name, "step2", None),
    (names.step_name, "fetch-diff", "step name 'fetch-diff' is not snake_case"),
    (names.step_name, "2fetch", "step name '2fetch' is not snake_case"),
    (names.step_name, "_private", "step name '_private' is not snake_case"),
    (names.step_name, "steps", "step name 'steps' is reserved"),
    (names.input_name, "pr_number", None),
    (names.input_name, "pr-number", "input name 'pr-number' is not snake_case"),
    (names.description, "Review PRs. Use when asked to review.", None),
    (names.description, "   ", "the description is empty"),
    (names.description, "x" * 1025, "the description is 1025 characters long"),
    (names.description, "Use <b>this</b>", "the description contains an XML tag"),
    (names.description, "a < b and c > d", None),
]


@pytest.mark.parametrize(
    ("validate", "value", "expected_error"),
    NAMES,
    ids=[f"{v.__name__}:{value[:20]!r}" for v, value, _ in NAMES],
)
def test_names(validate, value: str, expected_error: str | None) -> None:  # noqa: ANN001
    if expected_error is None:
        assert validate(value) == value.strip()
        return
    with pytest.raises(InvalidName) as caught:
        validate(value)
    assert caught.value.one_line().startswith(expected_error)


SPECS = [
    # text, expected (StepSpec) or expected_error
    ("fetch", specs.StepSpec("fetch"), None),
    ("fetch:code:bash", specs.StepSpec("fetch", lang="bash"), None),
    ("fetch:code:node", specs.StepSpec("fetch", lang="node"), None),
    ("judge:llm", specs.StepSpec("judge", "llm"), None),
    ("judge:llm:lite", specs.StepSpec("judge", "llm", tier="lite"), None),
    ("judge:llm:bash", None, "unknown tier 'bash' — use one of: lite, standard, reasoning"),
    ("fetch:code:ruby", None, "unknown language 'ruby' — use one of: python, bash, node"),
    ("fetch:shell", None, "unknown step type 'shell' — use one of: code, llm"),
    ("a:b:c:d", None, "--step 'a:b:c:d' is not name[:code|llm[:variant]]"),
    (":code", None, "--step ':code' is not name[:code|llm[:variant]]"),
    ("Fetch:code", None, "step name 'Fetch' is not snake_case"),
]


@pytest.mark.parametrize(
    ("text", "expected", "expected_error"), SPECS, ids=[text for text, _, _ in SPECS]
)
def test_step_specs(text: str, expected: specs.StepSpec | None, expected_error: str | None) -> None:
    if expected_error is None:
        assert specs.parse_step(text) == expected
        return
    with pytest.raises(UsageError) as caught:
        specs.parse_step(text)
    assert caught.value.one_line().startswith(expected_error)


def test_inputs_and_steps_must_be_unique(tmp_path: Path) -> None:
    app.new_app(tmp_path, "demo")
    with pytest.raises(UsageError, match="input 'a' is given twice"):
        pipeline.plan_pipeline(
            tmp_path / "demo",
            "p",
            "P",
            inputs=[specs.parse_input("a"), specs.parse_input("a:integer")],
        )
    with pytest.raises(UsageError, match="step 'a' is given twice"):
        pipeline.plan_pipeline(
            tmp_path / "demo", "p", "P", steps=[specs.parse_step("a"), specs.parse_step("a:llm")]
        )


def test_a_step_file_in_the_way_needs_force(tmp_path: Path) -> None:
    app.new_app(tmp_path, "demo")
    pipeline.new_pipeline(tmp_path / "demo", "p", "P")
    stub = tmp_path / "demo/pipelines/p/steps/extra.py"
    stub.write_text("# mine\n")
    before = snapshot(tmp_path)
    with pytest.raises(Conflict, match="file already exists"):
        step.new_step(tmp_path / "demo", "p", specs.step("extra"))
    assert snapshot(tmp_path) == before  # not even pipeline.yaml was edited
    step.new_step(tmp_path / "demo", "p", specs.step("extra"), force=True)
    assert stub.read_text().startswith("#!/usr/bin/env python3\n")


def test_force_overwrites_only_what_app_new_generates(tmp_path: Path) -> None:
    app.new_app(tmp_path, "demo")
    (tmp_path / "demo/SKILL.md").write_text("mine\n")
    (tmp_path / "demo/tools/tool.py").write_text("print('mine')\n")
    with pytest.raises(Conflict):
        app.new_app(tmp_path, "demo")
    assert (tmp_path / "demo/SKILL.md").read_text() == "mine\n"
    changes = app.new_app(tmp_path, "demo", force=True)
    assert {c.action for c in changes} == {files.OVERWRITE}
    assert (tmp_path / "demo/SKILL.md").read_text().startswith("---\nname: demo\n")
    assert (tmp_path / "demo/tools/tool.py").read_text() == "print('mine')\n"


@pytest.mark.parametrize("command", ["app", "pipeline", "step", "constructor"])
def test_dry_run_writes_nothing(tmp_path: Path, command: str) -> None:
    app.new_app(tmp_path, "demo")
    pipeline.new_pipeline(tmp_path / "demo", "p", "P", steps=[specs.parse_step("a:llm")])
    before = snapshot(tmp_path)
    demo = tmp_path / "demo"
    changes = {
        "app": lambda: app.new_app(tmp_path, "other", with_lifecycle=True, dry_run=True),
        "pipeline": lambda: pipeline.new_pipeline(demo, "q", "Q", dry_run=True),
        "step": lambda: step.new_step(demo, "p", specs.step("b", "llm"), dry_run=True),
        "constructor": lambda: lifecycle.new_lifecycle(demo, "constructor", dry_run=True),
    }[command]()
    assert changes
    assert snapshot(tmp_path) == before


def test_a_failed_write_removes_what_it_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace
    calls = []

    def failing_replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", dst)
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", failing_replace)
    with pytest.raises(WriteFailed) as caught:
        app.new_app(tmp_path, "demo")
    assert caught.value.exit_code == 5
    assert caught.value.one_line().startswith("cannot write: No space left on device (")
    assert list(tmp_path.iterdir()) == []  # files, folders and temporary files are all gone


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    app.new_app(tmp_path, "demo", with_lifecycle=True)
    pipeline.new_pipeline(tmp_path / "demo", "p", "P", steps=[specs.parse_step("a:llm")])
    step.new_step(tmp_path / "demo", "p", specs.step("b"))
    assert [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")] == []


def test_an_edit_is_refused_if_the_file_changed_after_planning(tmp_path: Path) -> None:
    app.new_app(tmp_path, "demo")
    pipeline.new_pipeline(tmp_path / "demo", "p", "P")
    changes = step.plan_step(tmp_path / "demo", "p", specs.step("b"))
    target = tmp_path / "demo/pipelines/p/pipeline.yaml"
    target.write_text(target.read_text() + "# edited meanwhile\n")
    with pytest.raises(Conflict, match="file changed while app-new was running"):
        files.apply(changes)
    assert target.read_text().endswith("# edited meanwhile\n")
    assert not (tmp_path / "demo/pipelines/p/steps/b.py").exists()  # rolled back


def test_a_file_in_the_way_of_the_app_folder(tmp_path: Path) -> None:
    (tmp_path / "demo").write_text("")
    with pytest.raises(Conflict, match="a file is in the way of the APP folder"):
        app.new_app(tmp_path, "demo")


def test_edits_keep_the_file_mode(tmp_path: Path) -> None:
    app.new_app(tmp_path, "demo")
    pipeline.new_pipeline(tmp_path / "demo", "p", "P")
    target = tmp_path / "demo/pipelines/p/pipeline.yaml"
    target.chmod(0o600)
    step.new_step(tmp_path / "demo", "p", specs.step("b"))
    assert target.stat().st_mode & 0o777 == 0o600
