"""`app-run mcp` before it serves: its command line (HTTP only on loopback unless told, a
missing extra named), and the catalog of tools it builds from the APPs (names, clashes, the
pipelines it cannot serve)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

from skill2app.runtime.cli.serve import parse_http
from skill2app.runtime.errors import UsageError
from skill2app.runtime.mcp.catalog import build_catalog, tool_name


def hello_app(root: Path, **pipelines: list[dict]) -> Path:
    return make_app(root, pipelines or {"hello": [code("say")]})


def test_building_the_parser_imports_neither_sdk() -> None:
    probe = (
        "import sys\n"
        "from skill2app.runtime.cli import build_parser\n"
        "build_parser()\n"
        "print(sorted(m for m in ('mcp', 'mcp_types', 'openai', 'anyio', 'uvicorn') "
        "if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize(
    ("value", "allow", "expected"),
    [
        ("8765", False, ("127.0.0.1", 8765)),
        ("127.0.0.1:0", False, ("127.0.0.1", 0)),
        ("localhost:80", False, ("localhost", 80)),
        ("[::1]:8765", False, ("::1", 8765)),
        ("0.0.0.0:8765", True, ("0.0.0.0", 8765)),
    ],
)
def test_http_addresses(value: str, allow: bool, expected: tuple[str, int]) -> None:
    assert parse_http(value, allow) == expected


@pytest.mark.parametrize(
    ("args", "expected_error"),
    [
        (
            ["--http", "0.0.0.0:8765"],
            "Error: --http '0.0.0.0:8765' would listen beyond this computer, with no "
            "authentication: anyone who reaches it could run the APPs' programs as you — use "
            "127.0.0.1 (the default), or add --allow-remote if you mean it\n",
        ),
        (
            ["--http", "192.168.1.5:80"],
            "Error: --http '192.168.1.5:80' would listen beyond this computer",
        ),
        (["--http", "host:port"], "Error: --http 'host:port' is not [HOST:]PORT — e.g. "),
        (["--http", "99999"], "Error: --http '99999' is not [HOST:]PORT"),
        (
            ["--sampling-timeout", "0"],
            "Error: --sampling-timeout 0 is not a number of seconds above 0",
        ),
    ],
    ids=["any-address", "lan-address", "no-port", "port-too-big", "no-timeout"],
)
def test_bad_command_lines_are_usage_errors(
    tmp_path: Path, args: list[str], expected_error: str
) -> None:
    app = hello_app(tmp_path / "app")
    result = invoke("mcp", app, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(expected_error), result.stderr
    assert result.stdout == ""


def test_without_the_extra_the_error_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    result = invoke("mcp", hello_app(tmp_path / "app"))
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: app-run mcp needs the MCP SDK, which is not installed — "
        "pip install 'skill2app[mcp]'\n",
    )


def test_a_folder_that_is_no_app_is_refused_before_serving(tmp_path: Path) -> None:
    result = invoke("mcp", tmp_path)
    assert result.exit_code == 3
    assert result.stderr.startswith(f"Error: {tmp_path} is not an APP: it has no pipelines/")


# --- the catalog ------------------------------------------------------------------------------


def test_one_app_names_tools_by_pipeline_several_by_app_too(
    tmp_path: Path, app_run_home: Path
) -> None:
    one = hello_app(tmp_path / "csv report")
    two = hello_app(tmp_path / "other", hi=[code("say")])
    assert [t.name for t in build_catalog([one], app_run_home).tools] == ["hello"]
    several = build_catalog([one, two, one], app_run_home)  # the same folder twice is one
    assert [t.name for t in several.tools] == ["csv_report__hello", "other__hi"]
    assert several.tools[0].app_root == one.resolve()
    assert several.reserved == {"resume": "resume", "abandon": "abandon"}


def test_names_stay_within_what_clients_accept() -> None:
    assert tool_name("ünïcode app", "p", several=True) == "_n_code_app__p"
    assert len(tool_name("a" * 80, "pipeline", several=True)) == 64


def test_two_pipelines_that_would_share_a_name_are_refused(
    tmp_path: Path, app_run_home: Path
) -> None:
    first = hello_app(tmp_path / "a b")
    second = hello_app(tmp_path / "a_b")
    with pytest.raises(UsageError) as caught:
        build_catalog([first, second], app_run_home)
    assert caught.value.message.startswith("two pipelines would be the same MCP tool 'a_b__hello'")


def test_a_pipeline_named_resume_moves_the_reserved_tool(
    tmp_path: Path, app_run_home: Path
) -> None:
    app = hello_app(tmp_path / "app", resume=[code("say")])
    assert build_catalog([app], app_run_home).reserved["resume"] == "app_run_resume"


def test_a_pipeline_that_fails_check_is_not_served(tmp_path: Path, app_run_home: Path) -> None:
    app = hello_app(tmp_path / "app", good=[code("say")], bad=[{"name": "x", "type": "code"}])
    catalog = build_catalog([app], app_run_home)
    assert [t.name for t in catalog.tools] == ["good"]
    [warning] = catalog.warnings
    assert warning.startswith("app/bad is not served: bad: 1 error in the APP")
