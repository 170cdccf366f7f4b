"""`app-new step` edits a pipeline.yaml the user owns: comments, key order, quoting, indentation
and blank lines stay as they were; the only lines in the diff are the new step's."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_tree

from skill2app.scaffold import specs, step
from skill2app.scaffold.errors import BadFile, Conflict, NotFound
from skill2app.scaffold.files import EDIT


def add_step(root: Path, pipeline_yaml: str, spec: specs.StepSpec, after: str | None) -> str:
    """The new text of ``pipeline_yaml`` after adding ``spec`` (nothing is written)."""
    app = write_tree(root, {"SKILL.md": "x", "pipelines/p/pipeline.yaml": pipeline_yaml})
    changes = step.plan_step(app, "p", spec, after=after)
    (edit,) = [c for c in changes if c.path.name == "pipeline.yaml"]
    assert edit.action == EDIT
    return edit.content


SPEC_EXAMPLE = """\
name: code-review
description: "Standard code review: fetch diff, analyze per-file, generate report"
triggers:
  - "review this PR"
  - "code review"

input:
  repo: string
  pr_number: integer

steps:
  - name: fetch_diff
    type: code
    command: "bash steps/fetch_diff.sh"

  - name: analyze_files
    type: llm
    model: standard
    prompt: |
      Analyze the following code changes, identify potential issues per file:

      {{fetch_diff.output}}
    schema: schemas/analyze_files.json
    validate: steps/validate_analysis.py
    retry: 3

output: analyze_files
"""

SPEC_EXAMPLE_WITH_CHECK = SPEC_EXAMPLE.replace(
    """\
    command: "bash steps/fetch_diff.sh"

""",
    """\
    command: "bash steps/fetch_diff.sh"

  - name: check_diff
    type: code
    command: "python3 steps/check_diff.py"

""",
)

FOUR_SPACES = """\
# My pipeline — hand edited
description: 'Standard code review'   # routing text
name: code-review
triggers: ["review this PR", "code review"]

input:
    repo: string    # owner/name

steps:
    # first we fetch
    -   name: fetch_diff
        type: code
        command: bash steps/fetch_diff.sh
"""

FOUR_SPACES_WITH_LLM = (
    FOUR_SPACES
    + """\
    -   name: judge
        type: llm
        model: reasoning
        prompt: |
            TODO(app-new): tell the model what step `judge` must do with the data below and
            what a good answer contains. The answer must match schemas/judge.json and pass
            steps/validate_judge.py.

            Output of step `fetch_diff`:
            {{fetch_diff.output}}
        schema: schemas/judge.json
        validate: steps/validate_judge.py
        retry: 2
"""
)

TIGHT = """\
name: p
description: d
steps:
- name: a
  type: code
  command: python3 steps/a.py   # eol comment stays here
- name: b
  type: llm
  prompt: |-
    hello
  # trailing comment
output: b
"""

TIGHT_WITH_C = TIGHT.replace(
    """\
  # trailing comment
output: b
""",
    """\
- name: c
  type: code
  command: "bash steps/c.sh"
  # trailing comment
output: c
""",
)  # `output:` named the last step: the new last step's result is the pipeline's now

COMMENTED = """\
name: p
description: d
steps:
  - name: a
    type: code
    command: python3 steps/a.py   # eol

  # b comes last
  - name: b
    type: code
    command: python3 steps/b.py
    timeout: 30
"""

COMMENTED_WITH_MID = COMMENTED.replace(
    """\
    command: python3 steps/a.py   # eol

""",
    """\
    command: python3 steps/a.py   # eol

  - name: mid
    type: code
    command: "node steps/mid.mjs"

""",
)

EMPTY = """\
name: p
description: d
steps: []
"""

EMPTY_WITH_FIRST = """\
name: p
description: d
steps:
  - name: first
    type: code
    command: "python3 steps/first.py"
"""

CASES = [
    # id, original, step, after, expected
    ("spec-example", SPEC_EXAMPLE, specs.step("check_diff"), "fetch_diff", SPEC_EXAMPLE_WITH_CHECK),
    (
        "four-spaces",
        FOUR_SPACES,
        specs.step("judge", "llm", tier="reasoning"),
        None,
        FOUR_SPACES_WITH_LLM,
    ),
    ("tight", TIGHT, specs.step("c", lang="bash"), None, TIGHT_WITH_C),
    ("commented", COMMENTED, specs.step("mid", lang="node"), "a", COMMENTED_WITH_MID),
    ("empty", EMPTY, specs.step("first"), None, EMPTY_WITH_FIRST),
]


@pytest.mark.parametrize(
    ("original", "spec", "after", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_insert_keeps_everything_else(
    tmp_path: Path, original: str, spec: specs.StepSpec, after: str | None, expected: str
) -> None:
    assert add_step(tmp_path, original, spec, after) == expected


@pytest.mark.parametrize(
    ("original", "spec", "after"),
    [case[1:4] for case in CASES[:-1]],
    ids=[c[0] for c in CASES[:-1]],
)
def test_the_diff_only_adds_lines(
    tmp_path: Path, original: str, spec: specs.StepSpec, after: str | None
) -> None:
    app = write_tree(tmp_path, {"SKILL.md": "x", "pipelines/p/pipeline.yaml": original})
    edit = [c for c in step.plan_step(app, "p", spec, after=after) if c.action == EDIT][0]
    body = edit.diff().splitlines()[2:]
    removed = [line for line in body if line.startswith("-")]
    assert removed == (["-output: b"] if "output: b" in original else [])  # only that moves on


def test_crlf_files_stay_crlf(tmp_path: Path) -> None:
    original = SPEC_EXAMPLE.replace("\n", "\r\n")
    new = add_step(tmp_path, original, specs.step("check_diff"), "fetch_diff")
    assert new == SPEC_EXAMPLE_WITH_CHECK.replace("\n", "\r\n")


def test_a_second_llm_step_is_added_to_existing_answers_keeping_comments(tmp_path: Path) -> None:
    answers = "# my answers\nanswers:\n  p/old:   # hand written\n    - {summary: hi}\n"
    app = write_tree(
        tmp_path,
        {
            "SKILL.md": "x",
            "pipelines/p/pipeline.yaml": TIGHT,
            "pipelines/p/samples/answers.yaml": answers,
        },
    )
    changes = step.plan_step(app, "p", specs.step("judge", "llm"))
    (edit,) = [c for c in changes if c.path.name == "answers.yaml"]
    assert edit.content == answers + (
        "  p/judge:\n"
        '    - summary: "Placeholder answer of step judge: replace it with a realistic one"\n'
    )


def test_an_answer_that_is_already_there_is_left_alone(tmp_path: Path) -> None:
    answers = "answers:\n  p/judge:\n    - {summary: mine}\n"
    app = write_tree(
        tmp_path,
        {
            "SKILL.md": "x",
            "pipelines/p/pipeline.yaml": TIGHT,
            "pipelines/p/samples/answers.yaml": answers,
        },
    )
    changes = step.plan_step(app, "p", specs.step("judge", "llm"))
    assert [c.path.name for c in changes] == ["judge.json", "validate_judge.py", "pipeline.yaml"]


BROKEN = [
    # id, pipeline.yaml, step, after, expected_error
    (
        "duplicate step",
        TIGHT,
        "a",
        None,
        (Conflict, "step 'a' is already in the pipeline (pipelines/p/pipeline.yaml:4)"),
    ),
    (
        "unknown --after",
        TIGHT,
        "c",
        "zzz",
        (
            NotFound,
            "step 'zzz' is not in the pipeline (pipelines/p/pipeline.yaml) — "
            "--after takes one of: a, b",
        ),
    ),
    ("not YAML", "name: p\nsteps: [\n", "c", None, (BadFile, "pipeline.yaml is not valid YAML")),
    ("no steps", "name: p\ndescription: d\n", "c", None, (BadFile, "pipeline.yaml has no `steps`")),
    (
        "steps not a list",
        "name: p\nsteps: {a: 1}\n",
        "c",
        None,
        (BadFile, "`steps` in pipeline.yaml is not a list (pipelines/p/pipeline.yaml:2)"),
    ),
    ("not a mapping", "- just\n- a list\n", "c", None, (BadFile, "pipeline.yaml has no `steps`")),
    (
        "duplicate key",
        "name: p\nname: q\nsteps:\n  - name: a\n",
        "c",
        None,
        (BadFile, 'pipeline.yaml is not valid YAML: found duplicate key "name"'),
    ),
    (
        "a step that is not a mapping",
        "name: p\nsteps:\n  - just text\n  - name: a\n",
        "a",
        None,
        (Conflict, "step 'a' is already in the pipeline (pipelines/p/pipeline.yaml:4)"),
    ),
    (
        "unknown input type",
        "name: p\ninput:\n  n: int\nsteps:\n  - name: a\n",
        "c",
        None,
        (BadFile, "input 'n' in pipeline.yaml has the unknown type 'int'"),
    ),
    (
        "odd step name to refer to",
        "name: p\nsteps:\n  - name: 'a b'\n",
        "c",
        None,
        (BadFile, "step name 'a b' in pipeline.yaml is not valid (pipelines/p/pipeline.yaml)"),
    ),
]


@pytest.mark.parametrize(
    ("text", "name", "after", "expected_error"),
    [case[1:] for case in BROKEN],
    ids=[case[0] for case in BROKEN],
)
def test_files_app_new_cannot_edit(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    name: str,
    after: str | None,
    expected_error: tuple[type, str],
) -> None:
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"SKILL.md": "x", "pipelines/p/pipeline.yaml": text})
    error_type, message = expected_error
    with pytest.raises(error_type) as caught:
        step.plan_step(Path("."), "p", specs.step(name), after=after)
    assert caught.value.one_line().startswith(message)


def test_invalid_yaml_names_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_tree(
        tmp_path, {"SKILL.md": "x", "pipelines/p/pipeline.yaml": "name: p\nsteps:\n  - a: [\n"}
    )
    with pytest.raises(BadFile) as caught:
        step.plan_step(Path("."), "p", specs.step("c"))
    assert caught.value.where is not None and caught.value.where.line == 4
