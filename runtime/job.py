"""A run request from the command line turned into a RunResult.

Gathers what `run` needs — the loaded APP, its config, the provider, the inputs from
``--input``/``--input-json`` — and hands them to ``runner.run_app``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import delegation
from .app import load_app
from .config import load_config, state_home
from .inputs import parse_pairs, read_input_json
from .providers import make_provider
from .result import RunResult
from .runner import start


def gather_inputs(
    declared: dict[str, str], pairs: list[str], input_json: str | None, stdin_text: str | None
) -> dict[str, Any]:
    """``--input-json`` first, then each ``--input key=value`` on top."""
    values: dict[str, Any] = {}
    if input_json:
        values.update(read_input_json(input_json, stdin_text))
    values.update(parse_pairs(pairs, declared))
    return values


def execute(
    app_dir: Path,
    pipeline: str,
    *,
    pairs: list[str],
    input_json: str | None = None,
    stdin_text: str | None = None,
    provider: str | None = None,
    answers: str | None = None,
    listener: Callable[[dict[str, Any]], None] | None = None,
    delegate: bool = True,
) -> RunResult:
    """Run ``pipeline``; with no provider and ``delegate``, llm steps pause for the host."""
    app = load_app(app_dir)
    declared = {}
    source = app.sources.get(pipeline)
    if source is not None and not isinstance(source, Exception):
        data = source.data.get("input") if isinstance(source.data, dict) else None
        declared = {str(k): str(v) for k, v in (data or {}).items()}
    inputs = gather_inputs(declared, pairs, input_json, stdin_text)
    config = load_config(app.root, provider=provider, answers=answers)
    home = state_home()
    result = start(
        app,
        pipeline,
        inputs,
        config=config,
        provider=make_provider(config),
        home=home,
        listener=listener,
        delegate=delegate,
    )
    if result.pause is not None:
        delegation.save(home, result, app.root, inputs)
    return result
