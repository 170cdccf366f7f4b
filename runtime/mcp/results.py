"""A tool call's outcome as an MCP tool result: text for the host's model, structured content
for programs, ``isError`` when the run (or the call) failed.

* Success: the pipeline's output as structured content (an object as it is, anything else as
  ``{"output": ...}``), and as text (a string as it is, else JSON).  A destructor that failed
  after a successful pipeline leaves the output there and adds its error line.
* Failure: the lines `app-run run` prints on stderr (``Error: business failed — step 'x':
  ...``), and the run's result as structured content.
* A pause for an answer (no sampling, no provider): not an error — the prompt, the schema and
  how to answer with the ``resume`` tool.
* An error before any step ran (inputs that do not fit, an APP that fails `check`): the same
  one line as the command line's.
Every result of a run carries ``_meta["skill2app/run"]``: run id, status, exit code, record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from skill2app.runtime.errors import AppRunError
from skill2app.runtime.records.display import (
    constructor_warnings,
    error_lines,
    run_error_lines,
)
from skill2app.runtime.records.result import RunResult, error_dict

META_KEY = "skill2app/run"


@dataclass
class ToolAnswer:
    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False
    meta: dict[str, Any] = field(default_factory=dict)


def answer_of_run(result: RunResult, reserved: dict[str, str]) -> ToolAnswer:
    meta = {
        META_KEY: {
            "run_id": result.run_id,
            "status": result.status,
            "exit_code": result.exit_code,
            "record": str(result.record) if result.record else None,
        }
    }
    if result.pause is not None:
        return ToolAnswer(pause_text(result, reserved), _pause_data(result, reserved), meta=meta)
    problems = run_error_lines(result)
    problems += [f"Warning: constructor: {text}" for text in constructor_warnings(result)]
    business_ok = result.business is not None and result.business.status == "succeeded"
    if business_ok:
        output = result.output
        structured = output if isinstance(output, dict) else {"output": output}
        text = "\n".join([output_text(output), *problems])
        return ToolAnswer(text, structured, meta=meta)
    data = result.to_dict()
    data["exit_code"] = result.exit_code
    return ToolAnswer("\n".join(problems) or result.status, data, is_error=True, meta=meta)


def answer_of_error(error: BaseException, debug: bool = False) -> ToolAnswer:
    """An error raised before (or instead of) a run: one line, as the command line shows it."""
    if isinstance(error, AppRunError):
        first, *rest = error_lines(error)
        data = {"status": "error", "exit_code": error.exit_code, "error": error_dict(error)}
        return ToolAnswer("\n".join([f"Error: {first}", *rest]), data, is_error=True)
    line = f"Error: internal error: {error!r} — rerun with --debug and report it"
    if debug:
        import traceback

        line += "\n" + "".join(traceback.format_exception(error))
    return ToolAnswer(line, None, is_error=True)


def output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False, indent=2)


def pause_text(result: RunResult, reserved: dict[str, str]) -> str:
    pause = result.pause
    assert pause is not None
    lines = [
        f"Paused: step {pause.step!r} of {pause.pipeline!r} needs an LLM answer "
        f"(attempt {pause.attempt}/{pause.max_attempts}).",
    ]
    if pause.errors:
        lines.append("Your previous answer was rejected: " + "; ".join(pause.errors))
    shape = "JSON that matches the schema below" if pause.schema else "text"
    lines += [
        f"Answer the prompt below with {shape}, then call the tool `{reserved['resume']}` with "
        f'{{"session": "{pause.session}", "answer": <your answer>}}. To give up, call '
        f'`{reserved["abandon"]}` with {{"session": "{pause.session}"}} (the destructor runs).',
        "",
        "Prompt:",
        pause.prompt,
    ]
    if pause.schema is not None:
        lines += ["", "Schema:", json.dumps(pause.schema, ensure_ascii=False, indent=2)]
    return "\n".join(lines)


def _pause_data(result: RunResult, reserved: dict[str, str]) -> dict[str, Any]:
    data = result.to_dict()
    data["resume_tool"], data["abandon_tool"] = reserved["resume"], reserved["abandon"]
    return data
