"""The MCP benchmark (benchmarks/mcp/run.py) runs and gives its figures; none is asserted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "mcp" / "run.py"


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
def test_the_benchmark_runs(runtime_env: Path) -> None:
    spec = importlib.util.spec_from_file_location("mcp_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    results = module.main(["--repeat", "1"])
    assert set(results["mcp"]) == {
        "spawn_to_initialized_ms",
        "tool_call_ms",
        "app_run_run_process_ms",
    }
    assert all(value > 0 for value in results["mcp"].values())
