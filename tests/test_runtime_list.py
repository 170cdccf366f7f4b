"""`app-run list` (the routing table), `app-run schema`, `--version`, the documented exit codes."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import pytest
from helpers import APPS, code, invoke, make_app, write_tree
from jsonschema import Draft202012Validator

from skill2app.runtime import __version__
from skill2app.runtime.app.check import pipeline_schema
from skill2app.runtime.cli import output
from skill2app.runtime.errors import CheckFailed, ConfigError, InputError, LoadError, UsageError
from skill2app.runtime.host import skill_mode
from skill2app.runtime.records import result


@pytest.fixture
def app(tmp_path: Path) -> Path:
    return make_app(
        tmp_path / "app",
        {
            "_constructor": [code("prepare")],
            "review": {
                "description": "Review a pull request",
                "triggers": ["review this PR", "code review"],
                "input": {"repo": "string", "pr": "integer"},
                "steps": [code("fetch")],
            },
            "digest": {"description": "Summarise the week", "steps": [code("gather")]},
            "_destructor": [code("cleanup")],
        },
        {"pipelines/_drafts/pipeline.yaml": "name: [not routed\n"},
    )


def test_list_prints_the_routing_table(app: Path) -> None:
    result = invoke("list", app)
    assert result.exit_code == 0
    assert result.stdout == (
        "digest\n"
        "  Summarise the week\n"
        "review\n"
        "  Review a pull request\n"
        "  - review this PR\n"
        "  - code review\n"
    )
    assert result.stderr == ""


def test_list_json(app: Path) -> None:
    result = invoke("list", app, "--json")
    assert json.loads(result.stdout) == [
        {"name": "digest", "description": "Summarise the week", "triggers": [], "input": {}},
        {
            "name": "review",
            "description": "Review a pull request",
            "triggers": ["review this PR", "code review"],
            "input": {"repo": "string", "pr": "integer"},
        },
    ]


def test_list_shows_a_pipeline_that_does_not_load(app: Path) -> None:
    write_tree(app, {"pipelines/broken/pipeline.yaml": "name: broken\ndescription: [x\n"})
    rows = json.loads(invoke("list", app, "--json").stdout)
    broken = next(r for r in rows if r["name"] == "broken")
    assert broken["error"].startswith("invalid YAML: ")
    assert f"({app / 'pipelines/broken/pipeline.yaml'}:3)" in broken["error"]


def test_list_of_the_fixture_apps() -> None:
    rows = json.loads(invoke("list", APPS / "data-passing", "--json").stdout)
    assert [r["name"] for r in rows] == ["pass"]
    assert rows[0]["triggers"] == ["pass some data along"]


def test_list_of_something_that_is_not_an_app(tmp_path: Path) -> None:
    result = invoke("list", tmp_path)
    assert result.exit_code == 3
    assert result.stderr.startswith(f"Error: {tmp_path} is not an APP: it has no pipelines/ folder")


def test_schema_prints_a_valid_json_schema() -> None:
    result = invoke("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    Draft202012Validator.check_schema(schema)
    assert schema == pipeline_schema()
    assert schema["required"] == ["name", "description", "steps"]


def test_schema_path_names_the_installed_file() -> None:
    result = invoke("schema", "--path")
    path = Path(result.stdout.strip())
    assert result.stdout.endswith("\n") and path.is_file()
    assert json.loads(path.read_text()) == json.loads(invoke("schema").stdout)


def test_the_schema_accepts_every_fixture_pipeline() -> None:
    from skill2app.runtime.app.document import load_yaml, plain

    validator = Draft202012Validator(pipeline_schema())
    files = sorted(APPS.glob("*/pipelines/*/pipeline.yaml"))
    assert files
    for file in files:
        assert list(validator.iter_errors(plain(load_yaml(file).data))) == [], file


def test_version() -> None:
    result = invoke("--version")
    assert (result.exit_code, result.stdout) == (0, f"app-run {__version__}\n")


def test_the_docs_document_every_exit_code() -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "app-run.md").read_text()
    table = docs.split("## Exit codes", 1)[1].split("\n#", 1)[0]
    documented = {
        int(code_)
        for row in re.findall(r"^\| ([\d /]+) \|", table, re.M)
        for code_ in row.split("/")
    }
    used = {
        result.EXIT_OK,
        result.EXIT_FAILED,
        result.EXIT_CONSTRUCTOR,
        result.EXIT_DESTRUCTOR,
        result.EXIT_NEEDS_LLM,
        skill_mode.EXIT_SKILL,
        output.EXIT_INTERNAL,
        128 + signal.SIGINT,
        128 + signal.SIGTERM,
        *(e.exit_code for e in (UsageError, InputError, ConfigError, LoadError, CheckFailed)),
    }
    assert used <= documented, used - documented
