"""Integers of more than 4,300 digits, which Python refuses to read (``int()`` raises a bare
ValueError inside the YAML and JSON parsers): each is one line naming the file (and line) with
the exit code of the bad input it is in, never an internal error (exit 70).

| where the number is                          | exit | case id             |
|----------------------------------------------|------|---------------------|
| pipeline.yaml (`check`, `list`, `run`, `ask`) | 3    | pipeline_yaml_*     |
| pipeline.yaml, as 4,000 hex digits            | 3    | pipeline_yaml_hex   |
| pipeline.yaml, a date that does not exist     | 3    | pipeline_yaml_date  |
| SKILL.md frontmatter (a warning: never stops) | 0    | frontmatter_*       |
| `--input-json`                                | 2    | input_json          |
| `--input` integer, and 1e400 as an integer    | 2    | input_integer_*     |
| `--input` object                              | 2    | input_object        |
| a step's stdout (a step failure)              | 1    | step_stdout         |
| `resume`'s answer (rejected, asked again)     | 6    | test_a_long_answer  |
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

from skill2app.runtime.app.document import parse_yaml, safe_json, safe_yaml
from skill2app.runtime.errors import LoadError

pytestmark = pytest.mark.usefixtures("runtime_env")

BIG = "9" * 5000
TOO_LONG = "an integer of more than 4,300 digits"
PRINTS = "import sys\nsys.stdin.read()\nsys.stdout.write('{\"output\": ' + '9' * 5000 + '}')\n"


def app_with(tmp_path: Path, timeout: str = "5", frontmatter: str = "") -> Path:
    step = {"name": "a", "type": "code", "command": "python3 steps/step.py ok", "timeout": 5}
    app = make_app(
        tmp_path / "app",
        {"p": {"input": {"n": "integer?", "o": "object?"}, "steps": [step]}},
        {
            "SKILL.md": f"---\nname: t\ndescription: counts words\n{frontmatter}---\n# T\n",
            "pipelines/p/steps/big.py": PRINTS,
        },
    )
    pipeline = app / "pipelines/p/pipeline.yaml"
    pipeline.write_text(pipeline.read_text().replace("timeout: 5", f"timeout: {timeout}"))
    return app


CASES = {
    # case id: (timeout in pipeline.yaml, SKILL.md frontmatter, app-run arguments, exit, error)
    "pipeline_yaml_check": (BIG, "", ["check", "{app}"], 3, f"{TOO_LONG} ({{yaml}}:10)"),
    "pipeline_yaml_list": (BIG, "", ["list", "{app}"], 3, f"{TOO_LONG} ({{yaml}}:10)"),
    "pipeline_yaml_run": (BIG, "", ["run", "{app}", "p"], 3, f"{TOO_LONG} ({{yaml}}:10)"),
    "pipeline_yaml_ask": (BIG, "", ["ask", "{app}", "run p"], 3, f"{TOO_LONG} ({{yaml}}:10)"),
    "pipeline_yaml_hex": ("0x" + "f" * 4000, "", ["check", "{app}"], 3, f"{TOO_LONG} ({{yaml}}"),
    "pipeline_yaml_date": (
        "2024-13-01", "", ["check", "{app}"], 3,
        "'2024-13-01' is not a date (month must be in 1..12) ({yaml}:10)",
    ),
    "frontmatter_check": (
        "5", f"version: {BIG}\n", ["check", "{app}"], 0,
        f"SKILL.md's frontmatter is not read: {TOO_LONG} ({{app}}/SKILL.md:4)",
    ),
    "frontmatter_run": ("5", f"version: {BIG}\n", ["run", "{app}", "p"], 0, ""),
    "input_json": (
        "5", "", ["run", "{app}", "p", "--input-json", "{input}"], 2,
        f"--input-json {{input}} is not JSON: {TOO_LONG} at line 2",
    ),
    "input_integer_digits": (
        "5", "", ["run", "{app}", "p", "-i", f"n={BIG}"], 2,
        "input n='9999999999999999999999999999999999999999… (5,000 characters)' is not a valid "
        "integer",
    ),
    "input_integer_1e400": (
        "5", "", ["run", "{app}", "p", "-i", "n=1" + "0" * 400 + ".0"], 2,
        "is not a valid integer",
    ),
    "input_object": (
        "5", "", ["run", "{app}", "p", "-i", f'o={{"x": {BIG}}}'], 2, "is not a valid object"
    ),
    "step_stdout": (
        "5", "", ["run", "{app}", "p"], 1,
        f"business failed — step 'a': stdout is not JSON ({TOO_LONG})",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_long_integer(case: str, tmp_path: Path) -> None:
    timeout, frontmatter, arguments, exit_code, expected_error = CASES[case]
    app = app_with(tmp_path, timeout, frontmatter)
    if case == "step_stdout":
        pipeline = app / "pipelines/p/pipeline.yaml"
        pipeline.write_text(pipeline.read_text().replace("steps/step.py ok", "steps/big.py"))
    given = tmp_path / "input.json"
    given.write_text(f'{{"n": 1,\n "o": {{"x": {BIG}}}}}\n')
    names = {"app": str(app), "input": str(given), "yaml": str(app / "pipelines/p/pipeline.yaml")}
    result = invoke(*[named(a, names) for a in arguments])
    assert result.exit_code == exit_code, result.stderr[-500:]
    assert named(expected_error, names) in result.stderr, result.stderr[-500:]
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert all(len(line) < 600 for line in result.stderr.splitlines())  # not the 5,000 digits


def named(text: str, names: dict[str, str]) -> str:
    for key, value in names.items():
        text = text.replace("{" + key + "}", value)
    return text


def test_a_long_answer_is_a_rejected_answer(tmp_path: Path) -> None:
    ask = {"name": "ask", "type": "llm", "prompt": "Count", "schema": "s.json", "retry": 1}
    app = make_app(
        tmp_path / "app", {"p": [code("a"), ask]}, {"pipelines/p/s.json": '{"type": "object"}'}
    )
    paused = invoke("run", app, "p", "--json")
    assert paused.exit_code == 6, paused.stderr
    session = json.loads(paused.stdout)["session"]
    again = invoke("resume", session, "--answer", "-", "--json", input=f'{{"n": {BIG}}}')
    assert again.exit_code == 6, again.stderr
    assert json.loads(again.stdout)["errors"] == [f"the answer is not JSON ({TOO_LONG} at line 1)"]


def test_the_loaders_name_the_line() -> None:
    for load in (
        lambda text: parse_yaml(text, Path("p.yaml")),
        lambda text: safe_yaml(text, "p.yaml", first_line=2),
    ):
        with pytest.raises(LoadError) as caught:
            load(f"a: 1\nb:\n  - x\n  - {BIG}\n")
        assert caught.value.message == TOO_LONG
        assert caught.value.where is not None and caught.value.where.line in (4, 5)
    with pytest.raises(LoadError) as caught:
        safe_json(f'{{"a": "{BIG}",\n "b": {BIG}}}', "x.json")
    assert caught.value.message == f"invalid JSON: {TOO_LONG}"
    assert caught.value.where is not None and caught.value.where.line == 2
    assert safe_yaml(f"a: '{BIG}'\nb: 0x{'f' * 100}\n", "p.yaml")["a"] == BIG  # quoted: text


@pytest.mark.parametrize("value", [BIG, "2024-13-01"])
def test_app_convert_says_which_frontmatter_value_it_cannot_read(
    tmp_path: Path, value: str
) -> None:
    """An attack run: app-convert ended in an internal error (exit 70) on a SKILL.md whose
    frontmatter holds a 5,000-digit integer; an impossible date did the same."""
    from skill2app.converter.errors import FrontmatterError
    from skill2app.converter.inventory.skill import read_skill_md

    (tmp_path / "SKILL.md").write_text(f"---\nname: s\ndescription: d.\nv: {value}\n---\n# S\n")
    with pytest.raises(FrontmatterError) as raised:
        read_skill_md(tmp_path / "SKILL.md")
    assert raised.value.exit_code == 3
    assert "a value Python cannot read" in raised.value.one_line()
