"""Inputs are checked against the pipeline's `input` declaration before anything runs: a missing,
unknown or mistyped input exits 2 with no step started (not even the constructor) and no run
record written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import assert_run, code, invoke, make_app, marker

from skill2app.runtime.errors import InputError
from skill2app.runtime.run.inputs import (
    caller_path,
    check_inputs,
    complete_inputs,
    convert,
    declaration,
    input_schema,
    parse_pairs,
)

pytestmark = pytest.mark.usefixtures("runtime_env")

DECLARED = {
    "s": "string",
    "i": "integer",
    "n": "number",
    "b": "boolean",
    "a": "array",
    "o": "object",
}
GOOD = ["s=text", "i=42", "n=1.5", "b=yes", "a=[1, 2]", 'o={"k": 1}']


@pytest.fixture
def app(tmp_path: Path) -> Path:
    return make_app(
        tmp_path / "app",
        {
            "_constructor": [code("prepare")],
            "typed": {"input": DECLARED, "steps": [code("use")]},
            "_destructor": [code("cleanup")],
        },
    )


def run(app: Path, *args: str, input: str | None = None):
    return invoke("run", app, "typed", "--json", *args, input=input)


def pairs(*items: str) -> list[str]:
    return [arg for item in items for arg in ("-i", item)]


def assert_nothing_ran(app_run_home: Path, markers: Path) -> None:
    assert not (app_run_home / "runs").exists()  # no run record at all
    assert list(markers.iterdir()) == []  # and no step (constructor included) started


@pytest.mark.parametrize(
    ("type_", "raw", "expected"),
    [
        ("string", "  spaced = out ", "  spaced = out "),
        ("string", "", ""),
        ("integer", "42", 42),
        ("integer", "-7", -7),
        ("integer", "3.0", 3),  # a whole number, as JSON may write it
        ("number", "1.5", 1.5),
        ("number", "3", 3.0),
        ("number", "-2e3", -2000.0),
        ("boolean", "true", True),
        ("boolean", "YES", True),
        ("boolean", "1", True),
        ("boolean", "on", True),
        ("boolean", "false", False),
        ("boolean", "No", False),
        ("boolean", "0", False),
        ("boolean", "off", False),
        ("array", '[1, "a", null]', [1, "a", None]),
        ("array", "[]", []),
        ("object", '{"k": {"n": [1]}}', {"k": {"n": [1]}}),
    ],
)
def test_command_line_values_are_converted_by_declared_type(
    type_: str, raw: str, expected: Any
) -> None:
    value = convert("x", raw, type_)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("type_", "raw", "expected_error"),
    [
        ("integer", "abc", "input x='abc' is not a valid integer — pass --input x=42"),
        ("integer", "1.5", "input x='1.5' is not a valid integer"),
        ("number", "abc", "input x='abc' is not a valid number — pass --input x=1.5"),
        ("number", "nan", "input x='nan' is not a valid number"),
        ("number", "inf", "input x='inf' is not a valid number"),
        ("boolean", "maybe", "input x='maybe' is not a valid boolean — pass --input x=true"),
        (
            "array",
            '{"k": 1}',
            """input x='{"k": 1}' is not a valid array — pass --input x='["a","b"]'""",
        ),
        ("array", "[1,", "input x='[1,' is not a valid array"),
        ("array", "[NaN]", "input x='[NaN]' is not a valid array"),
        ("object", "[1]", """input x='[1]' is not a valid object — pass --input x='{"k":1}'"""),
    ],
)
def test_command_line_values_that_do_not_convert(type_: str, raw: str, expected_error: str) -> None:
    with pytest.raises(InputError) as caught:
        convert("x", raw, type_)
    assert caught.value.one_line().startswith(expected_error)
    assert caught.value.exit_code == 2


def test_an_undeclared_key_stays_a_string_until_the_check() -> None:
    assert parse_pairs(["x=1", "y=a=b"], {}) == {"x": "1", "y": "a=b"}


def test_every_problem_is_listed_in_one_message() -> None:
    with pytest.raises(InputError) as caught:
        check_inputs({"i": "42", "b": 1, "extra": 1}, DECLARED, "typed")
    assert caught.value.message == (
        "inputs for 'typed': missing s (string), n (number), a (array), o (object); "
        "unknown extra (declared: s, i, n, b, a, o); "
        'i must be integer, got "42"; b must be boolean, got 1'
    )
    assert caught.value.hint == "pass --input s=text or --input-json FILE"


def test_an_optional_input_may_be_left_out_and_reaches_the_steps_as_null(
    tmp_path: Path, runtime_env: Path
) -> None:
    root = make_app(
        tmp_path / "opt",
        {"typed": {"input": {"path": "string", "limit": "integer?"}, "steps": [code("use")]}},
    )
    assert invoke("check", root).exit_code == 0
    result = invoke("run", root, "typed", "--json", "-i", "path=a.csv")
    assert_run(result, status="succeeded", ran=["typed/use"])
    assert json.loads(marker(runtime_env, "typed", "use")["stdin"])["input"] == {
        "path": str(Path.cwd() / "a.csv"),  # a path input: meant from where app-run started
        "limit": None,
    }
    assert invoke("run", root, "typed", "--json", "-i", "path=a", "-i", "limit=3").exit_code == 0
    assert json.loads(marker(runtime_env, "typed", "use")["stdin"])["input"]["limit"] == 3

    missing = invoke("run", root, "typed", "-i", "limit=3")
    assert missing.exit_code == 2
    assert "missing path (string)" in missing.stderr
    wrong = invoke("run", root, "typed", "-i", "path=a", "-i", "limit=x")
    assert wrong.exit_code == 2
    assert "input limit='x' is not a valid integer" in wrong.stderr


def test_every_type_reaches_the_step(app: Path, runtime_env: Path) -> None:
    assert_run(
        run(app, *pairs(*GOOD)),
        status="succeeded",
        ran=["_constructor/prepare", "typed/use", "_destructor/cleanup"],
    )
    stdin = json.loads(marker(runtime_env, "typed", "use")["stdin"])
    assert stdin["input"] == {
        "s": "text",
        "i": 42,
        "n": 1.5,
        "b": True,
        "a": [1, 2],
        "o": {"k": 1},
    }


def test_a_whole_float_is_an_integer_and_reaches_the_step_as_one(
    app: Path, runtime_env: Path
) -> None:
    """JSON Schema's integer: 1.0 is 1 (some JSON writers always print a fraction)."""
    typed = {"s": "x", "i": 3.0, "n": 2, "b": False, "a": [], "o": {}}
    result = run(app, "--input-json", "-", input=json.dumps(typed))
    assert result.exit_code == 0, result.stderr
    given = json.loads(marker(runtime_env, "typed", "use")["stdin"])["input"]["i"]
    assert given == 3 and isinstance(given, int)


def test_input_json_from_stdin_and_pairs_on_top(app: Path, runtime_env: Path) -> None:
    typed = {"s": "from json", "i": 1, "n": 2, "b": False, "a": [], "o": {}}
    result = run(app, "--input-json", "-", "-i", "s=from a pair", input=json.dumps(typed))
    assert result.exit_code == 0, result.stderr
    stdin = json.loads(marker(runtime_env, "typed", "use")["stdin"])
    assert stdin["input"] == {**typed, "s": "from a pair"}


def test_input_json_from_a_file(app: Path, runtime_env: Path, tmp_path: Path) -> None:
    file = tmp_path / "inputs.json"
    file.write_text(json.dumps({"s": "x", "i": 1, "n": 0.5, "b": True, "a": [1], "o": {"a": 1}}))
    assert run(app, "--input-json", str(file)).exit_code == 0
    assert json.loads(marker(runtime_env, "typed", "use")["stdin"])["input"]["o"] == {"a": 1}


@pytest.mark.parametrize(
    ("args", "stdin", "expected_error"),
    [
        (
            [],
            None,
            "Error: inputs for 'typed': missing s (string), i (integer), n (number), b (boolean), "
            "a (array), o (object) — pass --input s=text or --input-json FILE",
        ),
        (
            pairs(*GOOD, "extra=1"),
            None,
            "Error: inputs for 'typed': unknown extra (declared: s, i, n, b, a, o)",
        ),
        (
            pairs(*GOOD[:1], *GOOD[2:], "i=forty-two"),
            None,
            "Error: input i='forty-two' is not a valid integer — pass --input i=42 or "
            "--input-json FILE",
        ),
        (
            pairs(*GOOD[:3], "b=maybe"),
            None,
            "Error: input b='maybe' is not a valid boolean",
        ),
        (
            ["--input-json", "-"],
            '{"s": "x", "i": "42", "n": true, "b": "true", "a": {}, "o": []}',
            "Error: inputs for 'typed': i must be integer, got \"42\"; n must be number, got true; "
            'b must be boolean, got "true"; a must be array, got {}; o must be object, got []',
        ),
        (
            ["--input-json", "-"],
            '{"s": "x", "i": 1.5, "n": 1, "b": true, "a": [], "o": {}}',
            "Error: inputs for 'typed': i must be integer, got 1.5 — pass --input i=42",
        ),
        (
            ["--input-json", "-"],
            '{"s": "x", "i": 1, "n": NaN, "b": true, "a": [], "o": {}}',
            "Error: --input-json standard input is not JSON: NaN is not a JSON number at line 1",
        ),
        (
            ["--input-json", "-"],
            "[1, 2]",
            "Error: --input-json standard input must be a JSON object, not list",
        ),
        (
            ["--input-json", "-"],
            "{'s': 1}",
            "Error: --input-json standard input is not JSON: Expecting property name enclosed in "
            "double quotes at line 1",
        ),
        (
            ["--input-json", "/nonexistent/inputs.json"],
            None,
            "Error: cannot read --input-json /nonexistent/inputs.json: No such file or directory",
        ),
        (
            ["-i", "novalue"],
            None,
            "Error: --input 'novalue' is not key=value — write --input name=value",
        ),
    ],
    ids=[
        "missing",
        "unknown",
        "integer-pair",
        "boolean-pair",
        "json-mistyped",
        "json-float-for-integer",
        "json-nan",
        "json-not-object",
        "json-invalid",
        "json-file-missing",
        "not-key-value",
    ],
)
def test_bad_inputs_exit_2_before_anything_runs(
    app: Path,
    runtime_env: Path,
    app_run_home: Path,
    args: list[str],
    stdin: str | None,
    expected_error: str,
) -> None:
    result = run(app, *args, input=stdin)
    assert result.exit_code == 2
    assert result.stderr.startswith(expected_error)
    assert len(result.stderr.splitlines()) == 1
    # --json: the error as the one object on stdout
    shown = json.loads(result.stdout)
    assert (shown["status"], shown["exit_code"]) == ("error", 2)
    assert expected_error.startswith(f"Error: {shown['error']['message']}"[:40])
    assert_nothing_ran(app_run_home, runtime_env)


def test_a_pipeline_without_inputs_refuses_any(tmp_path: Path, app_run_home: Path) -> None:
    app = make_app(tmp_path / "app", {"plain": [code("only")]})
    result = invoke("run", app, "plain", "-i", "x=1")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: inputs for 'plain': unknown x (declared: none)")


def test_unknown_pipeline_is_a_usage_error(
    app: Path, runtime_env: Path, app_run_home: Path
) -> None:
    result = invoke("run", app, "nope")
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: no pipeline named 'nope' in {app} — pipelines here: typed (see `app-run list`)\n"
    )
    assert_nothing_ran(app_run_home, runtime_env)


def test_a_lifecycle_pipeline_cannot_be_run_directly(app: Path, runtime_env: Path) -> None:
    result = invoke("run", app, "_constructor")
    assert result.exit_code == 3
    assert result.stderr.startswith("Error: _constructor is a lifecycle pipeline")
    assert list(runtime_env.iterdir()) == []


@pytest.fixture
def words_app(tmp_path: Path) -> Path:
    return make_app(
        tmp_path / "words",
        {
            "count": {
                "description": "count the words in a text",
                "triggers": ["count the words in a text"],
                "input": {"text": "string"},
                "steps": [code("count")],
            },
            "head": {
                "description": "show the head of a log file",
                "triggers": ["show the head of a log file"],
                "input": {"logfile": "string", "lines": "integer?"},
                "steps": [code("head")],
            },
        },
    )


def test_a_long_quoted_text_in_a_request_is_the_text(words_app: Path, runtime_env: Path) -> None:
    """More than 255 bytes: probing it as a file name once raised ENAMETOOLONG (exit 70)."""
    text = " ".join(["word"] * 60)
    result = invoke("ask", words_app, f"count the words in '{text}'", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(marker(runtime_env, "count", "count")["stdin"])["input"] == {"text": text}


def test_a_file_the_request_or_an_explicit_input_names_is_absolute(
    words_app: Path, runtime_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Steps run in their pipeline folder: a file named in the request (found from the
    caller's folder) is passed on absolute, like a bare one, and so is ``--input``'s."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.log").write_text("x")
    for request in ("show the head of a log file app.log", "show the head of logfile=app.log"):
        assert invoke("ask", words_app, request, "--json").exit_code == 0
        seen = json.loads(marker(runtime_env, "head", "head")["stdin"])["input"]
        assert seen == {"logfile": str(tmp_path / "app.log"), "lines": None}
    explicit = ("-i", "logfile=app.log")
    assert invoke("ask", words_app, "show the head of a log file", *explicit).exit_code == 0
    seen = json.loads(marker(runtime_env, "head", "head")["stdin"])["input"]
    assert seen == {"logfile": str(tmp_path / "app.log"), "lines": None}


# -- the long form (app-run extension) ---------------------------------------------------------

LONG = {
    "who": {"type": "string", "description": "Whom to greet"},
    "times": {"type": "integer", "default": 2, "enum": [1, 2, 3]},
    "mode": {"type": "string", "required": False},
    "tags": "array?",
}


def test_declaration_reads_both_forms() -> None:
    types, info = declaration(LONG)
    assert types == {"who": "string", "times": "integer?", "mode": "string?", "tags": "array?"}
    assert info == {
        "who": {"description": "Whom to greet"},
        "times": {"enum": [1, 2, 3], "default": 2},
    }


def test_an_absent_optional_input_takes_its_default() -> None:
    types, info = declaration(LONG)
    done = complete_inputs({"who": "Ada", "times": None}, types, "hello", info)
    assert done == {"who": "Ada", "times": 2, "mode": None, "tags": None}


def test_a_value_outside_enum_is_refused_with_its_values() -> None:
    types, info = declaration(LONG)
    with pytest.raises(InputError) as raised:
        complete_inputs({"who": "Ada", "times": 5}, types, "hello", info)
    assert "times must be one of 1, 2, 3, got 5" in raised.value.message
    assert raised.value.hint.startswith("pass --input times=1")


def test_input_schema_says_types_descriptions_enums_defaults_and_what_is_required() -> None:
    types, info = declaration(LONG)
    assert input_schema(types, info) == {
        "type": "object",
        "properties": {
            "who": {"type": "string", "description": "Whom to greet"},
            "times": {"type": "integer", "enum": [1, 2, 3], "default": 2},
            "mode": {"type": ["string", "null"]},
            "tags": {"type": ["array", "null"]},
        },
        "required": ["who"],
        "additionalProperties": False,
    }


def test_a_string_enum_value_in_another_letter_case_is_taken_as_it() -> None:
    types, info = declaration({"format": {"type": "string", "enum": ["json", "text"]}})
    assert complete_inputs({"format": "JSON"}, types, "show", info) == {"format": "json"}


@pytest.mark.parametrize(
    ("name", "value", "named_only", "expected"),
    [
        ("diff_file", "my.diff", False, "{cwd}/my.diff"),  # named like a file: there or not
        ("diff_file", "my.diff", True, "{cwd}/my.diff"),  # --input-json too
        ("out_dir", "build", True, "{cwd}/build"),
        ("diff_file", "/abs/x.diff", False, "/abs/x.diff"),
        ("diff_file", "-", False, "-"),
        ("diff_file", "https://x.org/a.diff", False, "https://x.org/a.diff"),
        ("text", "notes/a.txt", False, "{cwd}/notes/a.txt"),  # exists here, looks like a path
        ("text", "notes/a.txt", True, "notes/a.txt"),  # --input-json: only path-named inputs
        ("text", "notes/b.txt", False, "notes/b.txt"),  # not there: text
        ("text", "notes", False, "notes"),  # a word, even if a folder of that name exists
        ("profile", "x.cfg", False, "x.cfg"),  # not a file input, not there
        ("path", "user.name", False, "user.name"),  # a key path, not a file
        ("path", "notes", False, "{cwd}/notes"),  # there
        ("out_file", "out/report", True, "{cwd}/out/report"),  # a path to write
        ("count", 3, False, 3),
        # round 33's feishu-search-doc: a folder's token, a file's id are no paths
        ("folder_token", "fldcnXXXX", False, "fldcnXXXX"),
        ("folderToken", "fldcn/XXXX", True, "fldcn/XXXX"),
        ("file_id", "notes", False, "notes"),
        ("output_folder", "build", True, "{cwd}/build"),
    ],
)
def test_caller_path_makes_the_callers_relative_paths_absolute(
    name: str,
    value: object,
    named_only: bool,
    expected: object,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("x")
    if isinstance(expected, str):
        expected = expected.format(cwd=tmp_path)
    assert caller_path(name, value, named_only=named_only) == expected


def test_input_json_paths_are_absolute_for_path_inputs(
    words_app: Path, runtime_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.json").write_text('{"logfile": "logs/app.log", "lines": 2}')
    assert invoke("run", words_app, "head", "--input-json", "in.json").exit_code == 0
    seen = json.loads(marker(runtime_env, "head", "head")["stdin"])["input"]
    assert seen == {"logfile": str(tmp_path / "logs" / "app.log"), "lines": 2}


def test_a_samples_input_json_inside_the_app_is_read_from_the_app_folder(
    words_app: Path, runtime_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newcomer's trial: `run --input-json APP/pipelines/p/samples/input.json` from another
    folder failed, its relative paths taken from there; app-run test reads them from the APP.
    A path the APP lacks (a file to write) is still the caller's, and so are the paths of any
    other JSON file."""
    samples = words_app / "pipelines" / "head" / "samples"
    samples.mkdir(parents=True)
    (words_app / "logs").mkdir()
    (words_app / "logs" / "app.log").write_text("a\nb\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    def seen(input_json: Path, content: str) -> str:
        input_json.write_text(content)
        assert invoke("run", words_app, "head", "--input-json", str(input_json)).exit_code == 0
        return json.loads(marker(runtime_env, "head", "head")["stdin"])["input"]["logfile"]

    sample = samples / "input.json"
    inside = str((words_app / "logs" / "app.log").resolve())
    assert seen(sample, '{"logfile": "logs/app.log"}') == inside
    assert seen(sample, '{"logfile": "logs/new.log"}') == str(elsewhere / "logs" / "new.log")
    other = words_app / "inputs.json"  # not a sample: the caller's paths
    assert seen(other, '{"logfile": "logs/app.log"}') == str(elsewhere / "logs" / "app.log")


def test_a_samples_base_is_only_what_the_app_holds_to_read(tmp_path: Path) -> None:
    """A second reviewer's: with a sample's base, `out_dir: "."` was the APP itself, a text
    "." its path, `../x` a file beside the APP; none is what the APP holds to read."""
    app = tmp_path / "app"
    (app / "out").mkdir(parents=True)
    (app / "assets").mkdir()
    (app / "assets" / "a.csv").write_text("x\n")
    (tmp_path / "x.txt").write_text("outside\n")
    base = str(app)
    assert caller_path("path", "assets/a.csv", named_only=True, base=base) == str(
        app / "assets" / "a.csv"
    )
    cwd = Path.cwd()
    assert caller_path("out_dir", ".", named_only=True, base=base) == str(cwd)
    assert caller_path("output_dir", "out", named_only=True, base=base) == str(cwd / "out")
    assert caller_path("text", ".", named_only=True, base=base) == "."
    assert caller_path("file", "../x.txt", named_only=True, base=base) == str(
        (cwd / "../x.txt").resolve()
    )
