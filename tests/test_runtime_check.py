"""`app-run check` and the checks `run` makes first: the malformed corpus under tests/malformed/,
each case expecting one error that names file:line and what to do (exit 3), plus the cases too
big or too odd to commit (huge and binary files, symlinks out of the APP), generated here.
`run` refuses every case of both before anything runs: no step, no run record."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import MALFORMED, code, invoke, make_app, marker, write_tree
from typer.testing import Result

from skill2app.runtime.app.document import MAX_BYTES

pytestmark = pytest.mark.usefixtures("runtime_env")

P = "pipelines/hello/pipeline.yaml"

# (case folder under tests/malformed, exit code of `check`, the line's start: what (file:line))
CORPUS = [
    (
        "not_an_app",
        3,
        "Error: not_an_app is not an APP: it has no pipelines/ folder (not_an_app)",
    ),
    (
        "missing_pipeline_yaml",
        3,
        "error: pipelines/hello/ has no pipeline.yaml (missing_pipeline_yaml/pipelines/hello)",
    ),
    (
        "yaml_syntax",
        3,
        f"error: invalid YAML: expected ',' or ']', but got ':' (yaml_syntax/{P}:4)",
    ),
    (
        "duplicate_key",
        3,
        'error: invalid YAML: found duplicate key "description" with value "Says hello twice" '
        f'(original value: "Says hello") (duplicate_key/{P}:7)',
    ),
    ("not_utf8", 3, f"error: file is not UTF-8 text (byte 0xe9) (not_utf8/{P}:6)"),
    (
        "name_mismatch",
        3,
        f"error: name 'greeting' does not match its directory 'hello' (name_mismatch/{P}:2)",
    ),
    ("duplicate_step", 3, f"error: step name 'greet' is used twice (duplicate_step/{P}:7)"),
    (
        "unknown_type",
        3,
        f'error: steps.0.type: "shell" is not one of code, llm (unknown_type/{P}:5)',
    ),
    (
        "code_without_command",
        3,
        f"error: steps.1: 'command' is a required property (code_without_command/{P}:7)",
    ),
    (
        "llm_without_prompt",
        3,
        f"error: steps.0: 'prompt' is a required property (llm_without_prompt/{P}:4)",
    ),
    (
        "output_missing_step",
        3,
        f"error: output names step 'farewell', which does not exist (output_missing_step/{P}:7)",
    ),
    (
        "command_script_missing",
        3,
        f"error: command script 'steps/greet.py' not found (command_script_missing/{P}:6)",
    ),
    (
        "script_escapes_app",
        3,
        "error: command script '../../../outside.py' is outside the APP "
        f"(script_escapes_app/{P}:6)",
    ),
    (
        "schema_missing",
        3,
        f"error: schema file 'schemas/greet.json' not found (schema_missing/{P}:7)",
    ),
    (
        "schema_not_json",
        3,
        "error: schema is not valid JSON: Expecting ',' delimiter: line 4 column 3 (char 47) "
        "(schema_not_json/pipelines/hello/schemas/greet.json:4)",
    ),
    (
        "schema_invalid",
        3,
        "error: not a valid JSON Schema: 'text' is not of type 'array' "
        "(schema_invalid/pipelines/hello/schemas/greet.json)",
    ),
    (
        "validate_missing",
        3,
        f"error: validate file 'steps/validate_greet.py' not found (validate_missing/{P}:7)",
    ),
    (
        "validate_command_missing",
        3,
        "error: validate script 'steps/validate_greet.py' not found "
        f"(validate_command_missing/{P}:7)",
    ),
    (
        "validate_unsplittable",
        3,
        f"error: validate cannot be split: No closing quotation (validate_unsplittable/{P}:7)",
    ),
    (
        "prompt_undeclared_input",
        3,
        f"error: {{{{input.language}}}}: no input 'language' (prompt_undeclared_input/{P}:10)",
    ),
    (
        "prompt_later_step",
        3,
        f"error: {{{{style.output.tone}}}}: 'style' is not an earlier step "
        f"(prompt_later_step/{P}:9)",
    ),
    (
        "malformed_placeholder",
        3,
        f"error: {{{{the user}}}} is not a reference (malformed_placeholder/{P}:6)",
    ),
    (
        "unknown_key",
        0,
        f"warning: unknown key 'required_scope' is ignored (unknown_key/{P}:3)",
    ),
    (  # a typo, not a vendor extra: the pipeline would silently have no inputs
        "misspelt_key",
        3,
        f"error: unknown key 'inputs': did you mean 'input'? (misspelt_key/{P}:3)",
    ),
    (
        "bad_tier",
        3,
        f'error: steps.0.model: "gpt-5" is not one of lite, standard, reasoning (bad_tier/{P}:6)',
    ),
    (
        "bad_input_type",
        3,
        'error: input.times: "int" is not one of string, integer, number, boolean, array, '
        f"object (add ? for optional) (bad_input_type/{P}:5)",
    ),
    (
        "constructor_error",
        3,
        "error: command script 'steps/check_env.py' not found "
        "(constructor_error/pipelines/_constructor/pipeline.yaml:6)",
    ),
    (
        "destructor_error",
        3,
        "error: steps.0.timeout: 0 is less than or equal to the minimum of 0 "
        "(destructor_error/pipelines/_destructor/pipeline.yaml:7)",
    ),
    (
        "tab_indentation",
        3,
        "error: invalid YAML: found character '\\t' that cannot start any token "
        f"(tab_indentation/{P}:4)",
    ),
    (
        "wrong_indentation",
        3,
        "error: invalid YAML: expected <block end>, but found '<block mapping start>' "
        f"(wrong_indentation/{P}:6)",
    ),
    ("empty_pipeline_yaml", 3, f"error: pipeline.yaml is empty (empty_pipeline_yaml/{P}:1)"),
    (
        "pipeline_not_a_mapping",
        3,
        "error: pipeline: [{'name': 'hello'}, {'description': 'Says hello'}] is not of type "
        f"'object' (pipeline_not_a_mapping/{P}:1)",
    ),
    ("missing_name", 3, f"error: pipeline: 'name' is a required property (missing_name/{P}:1)"),
    (
        "missing_description",
        3,
        f"error: pipeline: 'description' is a required property (missing_description/{P}:1)",
    ),
    ("missing_steps", 3, f"error: pipeline: 'steps' is a required property (missing_steps/{P}:1)"),
    ("empty_steps", 3, f"error: steps: [] should be non-empty (empty_steps/{P}:3)"),
    (
        "steps_not_a_list",
        3,
        "error: steps: {'greet': {'type': 'code', 'command': 'python3 steps/greet.py'}} is not "
        f"of type 'array' (steps_not_a_list/{P}:3)",
    ),
    (
        "step_not_a_mapping",
        3,
        "error: steps.0: 'python3 steps/greet.py' is not of type 'object' "
        f"(step_not_a_mapping/{P}:4)",
    ),
    (
        "step_without_name",
        3,
        f"error: steps.0: 'name' is a required property (step_without_name/{P}:4)",
    ),
    (
        "step_without_type",
        3,
        f"error: steps.0: 'type' is a required property (step_without_type/{P}:4)",
    ),
    ("name_not_a_string", 3, f"error: name: 42 is not of type 'string' (name_not_a_string/{P}:1)"),
    (
        "bad_step_name",
        3,
        "error: steps.0.name: 'greet me' does not match '^[A-Za-z_][A-Za-z0-9_-]*$' "
        f"(bad_step_name/{P}:4)",
    ),
    (
        "timeout_not_a_number",
        3,
        f"error: steps.0.timeout: '5 minutes' is not of type 'number' (timeout_not_a_number/{P}:7)",
    ),
    (
        "retry_out_of_range",
        3,
        f"error: steps.0.retry: 11 is greater than the maximum of 10 (retry_out_of_range/{P}:7)",
    ),
    (
        "triggers_not_a_list",
        3,
        f"error: triggers: 'say hello' is not of type 'array' (triggers_not_a_list/{P}:3)",
    ),
    (
        "input_not_a_mapping",
        3,
        f"error: input: ['text'] is not of type 'object', 'null' (input_not_a_mapping/{P}:3)",
    ),
    (
        "input_default_wrong_type",
        3,
        f'error: input times: default "twice" is not integer (input_default_wrong_type/{P}:5)',
    ),
    (
        "input_long_form_bad_type",
        3,
        'error: input.times.type: "int" is not one of string, integer, number, boolean, array, '
        f"object (input_long_form_bad_type/{P}:5)",
    ),
    (
        "input_enum_wrong_type",
        3,
        f'error: input times: enum value "two" is not integer (input_enum_wrong_type/{P}:5)',
    ),
    (
        "output_not_a_string",
        3,
        f"error: output: ['greet'] is not of type 'string' (output_not_a_string/{P}:3)",
    ),
    (
        "needs_later_step",
        3,
        f"error: needs 'shout', which is not an earlier step (needs_later_step/{P}:7)",
    ),
    (
        "needs_not_a_list",
        3,
        f"error: steps.1.needs: 'greet' is not of type 'array' (needs_not_a_list/{P}:10)",
    ),
    (
        "prompt_unknown_step",
        3,
        "error: {{greeting.output}}: no step 'greeting' in this pipeline "
        f"(prompt_unknown_step/{P}:9)",
    ),
    (
        "prompt_bad_reference",
        3,
        "error: {{greet.result}} must be {{input.<name>}} or {{<step>.output}} "
        f"(prompt_bad_reference/{P}:9)",
    ),
    (
        "schema_escapes_app",
        3,
        "error: schema '../../../schemas/greet.json' is outside the APP "
        f"(schema_escapes_app/{P}:7)",
    ),
    (
        "schema_absolute_path",
        3,
        f"error: schema '/etc/greet.schema.json' is outside the APP (schema_absolute_path/{P}:7)",
    ),
    (
        "validate_escapes_app",
        3,
        "error: validate '../../../validate_greet.py' is outside the APP "
        f"(validate_escapes_app/{P}:7)",
    ),
    (
        "validate_absolute_path",
        3,
        "error: validate '/usr/local/bin/validate_greet.py' is outside the APP "
        f"(validate_absolute_path/{P}:7)",
    ),
    # hostile APPs (issue 17): each passed `check` and broke `run` before
    *(
        (f"timeout_{name}", 3, f"error: timeout {shown} is not a number of seconds from 0 to "
         f"604,800 (timeout_{name}/{P}:7)")
        for name, shown in (("nan", "nan"), ("inf", "inf"), ("huge", "1e+308"))
    ),
    (
        "command_extensionless_outside",
        3,
        "error: command script '../../../../outside/evil' is outside the APP "
        f"(command_extensionless_outside/{P}:6)",
    ),
    (
        "command_argument_outside",
        3,
        "error: command path '../../../secrets.txt' is outside the APP "
        f"(command_argument_outside/{P}:6)",
    ),
    (
        "validate_command_outside",
        3,
        "error: validate script '../../../../x' is outside the APP "
        f"(validate_command_outside/{P}:7)",
    ),
    *(
        (f"schema_ref_{name}", 3, f"error: schema $ref {ref!r} {why} "
         f"(schema_ref_{name}/pipelines/hello/schemas/greet.json)")
        for name, ref, why in (
            ("remote", "http://127.0.0.1:9/x.json", "is not a file inside the APP (never fetched)"),
            ("file_url", "file:///etc/passwd", "is not a file inside the APP (never fetched)"),
            ("outside", "../../../../outside.json", "is outside the APP"),
        )
    ),
    (
        "skill_md_alias_bomb",
        0,
        "warning: SKILL.md's frontmatter is not read: YAML expands to more than 10,000 values "
        f"(an alias bomb?) ({MALFORMED}/skill_md_alias_bomb/SKILL.md:4)",
    ),
    (
        "skill_md_deep",
        0,
        "warning: SKILL.md's frontmatter is not read: YAML is nested too deeply to read "
        f"({MALFORMED}/skill_md_deep/SKILL.md:2)",
    ),
]  # fmt: skip


def the_line(stderr: str, start: str) -> str:
    """The one stderr line starting with ``start``; it must go on to say what to do."""
    lines = [line for line in stderr.splitlines() if line.startswith(start)]
    assert len(lines) == 1, stderr
    line = lines[0]
    assert line[len(start) :].startswith(" — ") and len(line) > len(start) + 10, line
    return line


@pytest.mark.parametrize(
    ("case", "exit_code", "expected_error"), CORPUS, ids=[c[0] for c in CORPUS]
)
def test_malformed_corpus(
    case: str, exit_code: int, expected_error: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(MALFORMED)
    result = invoke("check", case)
    assert result.exit_code == exit_code, result.stderr
    assert result.stdout == ""
    the_line(result.stderr, expected_error)
    if expected_error.startswith(("error", "warning")):
        verdict = "ok" if exit_code == 0 else "invalid"
        errors = "0 errors" if exit_code == 0 else "1 error"
        assert result.stderr.splitlines()[-1].startswith(f"{case}: {verdict} ({errors}, ")


def test_the_corpus_has_a_case_for_every_folder() -> None:
    folders = {p.name for p in MALFORMED.iterdir() if p.is_dir()}
    assert folders == {case for case, _, _ in CORPUS}


def test_check_output_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(MALFORMED)
    result = invoke("check", "duplicate_step")
    assert result.stderr == (
        f"error: step name 'greet' is used twice (duplicate_step/{P}:7)"
        " — give every step a unique name\n"
        "duplicate_step: invalid (1 error, 0 warnings)\n"
    )


def test_check_json_lists_diagnostics_on_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(MALFORMED)
    result = invoke("check", "duplicate_step", "--json")
    assert result.exit_code == 3
    assert json.loads(result.stdout) == {
        "ok": False,
        "diagnostics": [
            {
                "level": "error",
                "message": "step name 'greet' is used twice",
                "file": f"duplicate_step/{P}",
                "line": 7,
                "hint": "give every step a unique name",
            }
        ],
    }


def test_check_accepts_a_valid_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_app(tmp_path / "app", {"_constructor": [code("prepare")], "hello": [code("greet")]})
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "app")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "app: ok (0 errors, 0 warnings)\n",
    )
    assert json.loads(invoke("check", "app", "--json").stdout) == {"ok": True, "diagnostics": []}


def test_check_reports_every_error_of_every_pipeline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(MALFORMED / "duplicate_step", tmp_path / "app")
    shutil.copytree(
        MALFORMED / "bad_tier/pipelines/hello",
        tmp_path / "app/pipelines/tiered",
        dirs_exist_ok=True,
    )
    (tmp_path / "app/pipelines/tiered/pipeline.yaml").write_text(
        (tmp_path / "app/pipelines/tiered/pipeline.yaml").read_text().replace("hello", "tiered")
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "app")
    assert result.exit_code == 3
    the_line(result.stderr, f"error: step name 'greet' is used twice (app/{P}:7)")
    the_line(
        result.stderr,
        'error: steps.0.model: "gpt-5" is not one of lite, standard, reasoning '
        "(app/pipelines/tiered/pipeline.yaml:6)",
    )
    assert result.stderr.endswith("app: invalid (2 errors, 0 warnings)\n")


# --- too big or too odd to commit ------------------------------------------------------------


def alias_bomb() -> str:
    lines = ["name: hello", "description: a billion laughs", "a0: &a0 [lol, lol, lol, lol, lol]"]
    for level in range(1, 10):
        refs = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines += ["steps:", "  - name: greet", "    type: code", "    command: python3 x.py"]
    return "\n".join(lines) + "\n"


def just_over_the_cap(path: Path) -> None:
    head = "name: hello\ndescription: big\nsteps:\n  - {name: a, type: code, command: python3 x}\n"
    filler = "# " + "x" * (MAX_BYTES - len(head) - 2) + "\n"  # one byte over the cap
    path.write_text(head + filler)


def fifty_megabytes(path: Path) -> None:
    with path.open("wb") as fh:  # sparse: 50 MB on paper, nothing on disk
        fh.truncate(50 * 1024 * 1024)


def nested(levels: int) -> Callable[[Path], object]:
    text = "name: hello\ndescription: deep\nsteps: " + "[" * levels + "]" * levels + "\n"
    return lambda path: path.write_text(text)


LLM_STEP = "name: hello\ndescription: x\nsteps:\n  - name: greet\n    type: llm\n    prompt: Hi\n"
CODE_STEP = (
    "name: hello\ndescription: x\nsteps:\n  - {name: greet, type: code, command: python3 x.py}\n"
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def with_schema(content: bytes | None, link: bool = False) -> Callable[[Path], object]:
    """An llm step whose schemas/greet.json holds ``content``, or is a symlink out of the APP
    (to a valid schema beside the APP folder)."""

    def write(path: Path) -> None:
        path.write_text(LLM_STEP + "    schema: schemas/greet.json\n")
        (path.parent / "schemas").mkdir()
        if link:
            outside = path.parents[3] / "outside.json"
            outside.write_text('{"type": "object"}\n')
            (path.parent / "schemas/greet.json").symlink_to(outside)
        else:
            (path.parent / "schemas/greet.json").write_bytes(content or b"")

    return write


def validate_link(path: Path) -> None:
    path.write_text(LLM_STEP + "    validate: steps/validate_greet.py\n")
    outside = path.parents[3] / "validate_greet.py"
    outside.write_text("print('{\"valid\": true}')\n")
    (path.parent / "steps").mkdir()
    (path.parent / "steps/validate_greet.py").symlink_to(outside)


def steps_dir_link(path: Path) -> None:
    """The step scripts' folder is a symlink to a folder beside the APP."""
    path.write_text(CODE_STEP.replace("x.py", "steps/greet.py"))
    outside = path.parents[3] / "shared-steps"
    outside.mkdir()
    (outside / "greet.py").write_text("print('{\"output\": 1}')\n")
    (path.parent / "steps").symlink_to(outside)


def pipeline_link(path: Path) -> None:
    """pipeline.yaml itself is a symlink to a file beside the APP."""
    outside = path.parents[3] / "elsewhere.yaml"
    outside.write_text(CODE_STEP)
    path.symlink_to(outside)


GENERATED = [
    (
        "deeply_nested",
        nested(400),  # the parser recurses a few frames per level
        "error: YAML is nested too deeply to read "
        f"(app/{P}) — a pipeline needs only a few levels of nesting: flatten the data",
    ),
    (
        "over_the_depth_cap",
        nested(60),
        "error: YAML is nested more than 50 levels deep "
        f"(app/{P}:3) — a pipeline needs only a few levels of nesting: flatten the data",
    ),
    (
        "alias_bomb",
        lambda path: path.write_text(alias_bomb()),
        "error: YAML expands to more than 100,000 nodes (an alias bomb?) "
        f"(app/{P}) — remove the repeated anchors/aliases",
    ),
    (
        "over_the_cap",
        just_over_the_cap,
        "error: pipeline.yaml is 1,000,001 bytes; pipeline files are capped at 1,000,000 bytes "
        f"(app/{P}) — keep data out of pipeline.yaml: put it in a file a step reads",
    ),
    (
        "fifty_megabytes",
        fifty_megabytes,
        "error: pipeline.yaml is 52,428,800 bytes; pipeline files are capped at 1,000,000 bytes "
        f"(app/{P}) — keep data out of pipeline.yaml: put it in a file a step reads",
    ),
    (
        "nul_byte",
        lambda path: path.write_text(CODE_STEP.replace("description: x", "description: x\0y")),
        "error: invalid YAML: unacceptable character #x0000 "
        f"(app/{P}:2) — pipeline files are plain text: remove the control character",
    ),
    (
        "binary_executable",
        lambda path: path.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(9)),
        "error: invalid YAML: unacceptable character #x007f "
        f"(app/{P}:1) — pipeline files are plain text: remove the control character",
    ),
    (
        "binary_schema_file",
        with_schema(PNG),
        "error: schema file is not UTF-8 text (byte 0x89) "
        "(app/pipelines/hello/schemas/greet.json:1) — a JSON Schema is a UTF-8 JSON text file: "
        "save it as one",
    ),
    (
        "schema_symlink_escape",
        with_schema(None, link=True),
        "error: schema 'schemas/greet.json' is outside the APP: a symlink takes it to "
        f"{{tmp}}/outside.json (app/{P}:7) — use a path relative to the pipeline directory, "
        "inside the APP",
    ),
    (
        "validate_symlink_escape",
        validate_link,
        "error: validate 'steps/validate_greet.py' is outside the APP: a symlink takes it to "
        f"{{tmp}}/validate_greet.py (app/{P}:7) — use a path relative to the pipeline "
        "directory, inside the APP",
    ),
    (
        "pipeline_yaml_symlink_escape",
        pipeline_link,
        f"error: pipeline.yaml is outside the APP: a symlink takes it to {{tmp}}/elsewhere.yaml "
        f"(app/{P}) — keep every pipeline's files inside the APP folder (copy it in)",
    ),
    (
        "command_symlink_escape",
        steps_dir_link,
        "error: command script 'steps/greet.py' is outside the APP: a symlink takes it to "
        f"{{tmp}}/shared-steps/greet.py (app/{P}:4) — keep step scripts inside the APP folder",
    ),
]


def generated_app(tmp_path: Path, write: Callable[[Path], object]) -> Path:
    app = write_tree(tmp_path / "app", {"SKILL.md": "# x\n"})
    (app / "pipelines/hello").mkdir(parents=True)
    write(app / P)
    return app


@pytest.mark.parametrize(
    ("case", "write", "expected_error"), GENERATED, ids=[g[0] for g in GENERATED]
)
def test_generated_malformed(
    case: str, write, expected_error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generated_app(tmp_path, write)
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "app")
    assert result.exit_code == 3
    expected_error = expected_error.replace("{tmp}", str(tmp_path.resolve()))
    assert result.stderr == expected_error + "\napp: invalid (1 error, 0 warnings)\n"


def test_check_of_a_file_is_not_an_app(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi\n")
    result = invoke("check", tmp_path / "notes.txt")
    assert result.exit_code == 3
    assert result.stderr == (
        f"Error: {tmp_path / 'notes.txt'} is not a directory"
        " — pass the folder that holds SKILL.md and pipelines/\n"
    )


def test_missing_skill_md_is_only_a_warning(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": [code("greet")]})
    (app / "SKILL.md").unlink()
    result = invoke("check", app)
    assert result.exit_code == 0
    the_line(
        result.stderr,
        "warning: no SKILL.md: requests that match no pipeline have no Skill-mode fallback "
        f"({app})",
    )


# --- `run` checks the same things before anything runs ----------------------------------------


def assert_refused(result: Result, expected: str, markers: Path, home: Path) -> str:
    """`run` exited 3 before anything ran (no run record, no step marker); returns the line
    that says why."""
    assert (result.exit_code, result.stdout) == (3, ""), result.stderr
    assert not (home / "runs").exists()
    assert list(markers.iterdir()) == []
    if expected.startswith("Error: "):  # not an APP at all: said as it is
        return the_line(result.stderr, expected)
    assert result.stderr.splitlines()[0] == "Error: hello: 1 error in the APP"
    return the_line(result.stderr, "  " + expected)


@pytest.mark.parametrize("case", [c for c, code, _ in CORPUS if code == 3])
def test_run_refuses_a_malformed_app_before_any_step(
    case: str, runtime_env: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = next(e for c, _, e in CORPUS if c == case)
    monkeypatch.chdir(MALFORMED)
    assert_refused(invoke("run", case, "hello"), expected, runtime_env, app_run_home)


@pytest.mark.parametrize(
    ("case", "write", "expected_error"), GENERATED, ids=[g[0] for g in GENERATED]
)
def test_run_refuses_a_generated_malformed_app(
    case: str,
    write,
    expected_error: str,
    tmp_path: Path,
    runtime_env: Path,
    app_run_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    generated_app(tmp_path, write)
    monkeypatch.chdir(tmp_path)
    what, _, fix = expected_error.replace("{tmp}", str(tmp_path.resolve())).partition(" — ")
    line = assert_refused(invoke("run", "app", "hello"), what, runtime_env, app_run_home)
    assert line.endswith(f" — {fix}")


def test_an_empty_pipelines_folder(
    tmp_path: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path / "app", {"SKILL.md": "# x\n"})
    (tmp_path / "app/pipelines").mkdir()
    monkeypatch.chdir(tmp_path)
    check = invoke("check", "app")
    assert (check.exit_code, check.stderr) == (
        0,
        f"warning: no business pipelines ({tmp_path.resolve() / 'app/pipelines'})"
        " — add one with `app-new pipeline`\n"
        "app: ok (0 errors, 1 warning)\n",
    )
    result = invoke("run", "app", "hello")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"Error: no pipeline named 'hello' in {tmp_path.resolve() / 'app'}"
        " — pipelines here: none (see `app-run list`)\n",
    )
    assert not (app_run_home / "runs").exists()


def test_run_checks_only_the_pipeline_it_runs(tmp_path: Path, runtime_env: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {"hello": [code("greet")], "broken": [code("a"), code("a")]},
    )
    assert invoke("check", app).exit_code == 3
    result = invoke("run", app, "hello", "--json")
    assert result.exit_code == 0, result.stderr
    assert marker(runtime_env, "hello", "greet") is not None


def test_shell_snippets_and_validate_commands_with_arguments_pass(
    tmp_path: Path, runtime_env: Path
) -> None:
    validate = "import json\nprint(json.dumps({'valid': True}))\n"
    app = make_app(
        tmp_path / "app",
        {
            "hello": [
                {
                    "name": "snippet",
                    "type": "code",
                    "command": 'bash -c "python3 steps/step.py ok"',
                },
                {
                    "name": "judge",
                    "type": "llm",
                    "prompt": "Say hi.",
                    "validate": "python3 steps/validate.py --strict",
                },
            ]
        },
        {
            "pipelines/hello/steps/validate.py": validate,
            "answers.yaml": {"answers": {"judge": ["hi"]}},
        },
    )
    assert invoke("check", app).stderr == f"{app}: ok (0 errors, 0 warnings)\n"
    result = invoke(
        "run", app, "hello", "--provider", "scripted", "--answers", app / "answers.yaml"
    )
    assert (result.exit_code, result.stdout) == (0, '"hi"\n'), result.stderr
    assert marker(runtime_env, "hello", "snippet") is not None


def test_an_unreadable_pipeline_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_app(tmp_path / "app", {"hello": [code("greet")]})
    read_bytes = Path.read_bytes

    def denied(path: Path) -> bytes:  # chmod 000 does not stop root, so deny it here
        if path.name == "pipeline.yaml":
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", denied)
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "app")
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: cannot read file: Permission denied (app/{P})\n"
        "app: invalid (1 error, 0 warnings)\n"
    )


def test_a_directory_name_a_pipeline_cannot_have_asks_for_a_rename(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "app",
        {
            "SKILL.md": "---\nname: app\ndescription: d\n---\n",
            "pipelines/Bad Name/pipeline.yaml": (
                "name: bad-name\ndescription: d\nsteps:\n"
                "  - name: a\n    type: code\n    command: python3 steps/a.py\n"
            ),
            "pipelines/Bad Name/steps/a.py": "print('{}')\n",
        },
    )
    result = invoke("check", tmp_path / "app")
    assert result.exit_code == 3
    assert "rename the directory to 'bad-name'" in result.stderr + result.stdout
    assert "set name: Bad Name" not in result.stderr + result.stdout


def test_run_json_of_an_invalid_app_says_where(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": [code("a")]})
    path = app / "pipelines" / "hello" / "pipeline.yaml"
    path.write_text(path.read_text().replace("name: hello", "name: other"))
    result = invoke("run", app, "hello", "--json")
    assert result.exit_code == 3
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "CheckFailed" and error["where"].endswith("pipeline.yaml:1")
    assert "does not match its directory" in error["diagnostics"][0]["message"]


def test_a_step_file_that_is_a_link_loop_is_not_found_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An attack by hand (2026-12-03): a step script linked to itself ended `app-run check`
    with an internal error (Path.resolve raised on the loop): it is a missing script."""
    make_app(tmp_path / "app", {"hello": [code("greet")]})
    steps = tmp_path / "app/pipelines/hello/steps"
    os.symlink("loop.py", steps / "loop.py")
    doc = tmp_path / "app/pipelines/hello/pipeline.yaml"
    doc.write_text(doc.read_text().replace("steps/step.py", "steps/loop.py"))
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "app")
    assert result.exit_code == 3, result.stderr
    assert "script 'steps/loop.py' not found" in result.stderr
    assert "internal error" not in result.stderr
