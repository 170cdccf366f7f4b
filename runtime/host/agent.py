"""Skill mode's built-in, bounded agent loop: SKILL.md as the system prompt, the programs in
``tools/`` and ``scripts/`` as tools (Anthropic tool use, through the provider's ``converse``).

Each tool call runs as a subprocess (no shell, cwd = the APP folder, a timeout that kills its
process group) and goes back as a ``tool_result``: exit code, stdout, stderr tail.  The loop ends
when the model answers without calling a tool, or after ``max_turns`` turns.  Run record: one
``agent_turn`` event per turn and one ``agent_tool`` per call — never a tool's stdin or output.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skill2app.runtime.app.bounds import inside
from skill2app.runtime.app.model import App
from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.app.skill_md import read_skill_md
from skill2app.runtime.errors import ProviderError, StepTimeout, SubprocessError
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.run.llm_step import INTERPRETERS
from skill2app.runtime.run.process import run_program, tail
from skill2app.runtime.run.steps import Emit

TOOL_FOLDERS = ("tools", "scripts")
SKIP_SUFFIXES = {".md", ".txt", ".json", ".yaml", ".yml", ".csv", ".pyc", ".lock"}
SKIP_DIRS = {"__pycache__", "node_modules"}
DESCRIPTION_CHARS = 400
RESULT_CHARS = 8000  # the whole tool_result text the model gets back
STDERR_CHARS = 2000
_BAD_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
_DOCSTRING = re.compile(r'^\s*(?:#[^\n]*\n\s*)*[rRuU]?("""|\'\'\')(.*?)\1', re.DOTALL)
_USAGE = re.compile(r"usage:[^\"'\n]*", re.IGNORECASE)
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "args": {
            "type": "array",
            "items": {"type": "string"},
            "description": "command-line arguments",
        },
        "stdin": {"type": "string", "description": "text for standard input"},
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class AgentTool:
    """One program of the APP, as the model sees it (``spec``) and as app-run runs it."""

    name: str
    path: Path  # absolute
    relpath: str  # relative to the APP folder, e.g. "tools/count.py"
    description: str

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": INPUT_SCHEMA}

    def argv(self, args: list[str]) -> list[str]:
        interpreter = INTERPRETERS.get(self.path.suffix)
        if interpreter == "python3" and shutil.which("python3") is None:
            interpreter = sys.executable
        return [interpreter, str(self.path), *args] if interpreter else [str(self.path), *args]


@dataclass
class ToolCall:
    name: str
    args: list[str]
    exit_code: int | None  # None: the program never ran (unknown tool, bad input, not found)
    seconds: float
    is_error: bool


@dataclass
class AgentResult:
    answer: str
    turns: int
    stop_reason: str  # "end_turn" | "turn_limit"
    usage: dict[str, int] = field(default_factory=dict)
    tool_calls: list[ToolCall] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def discover_tools(app: App) -> list[AgentTool]:
    """Every program in ``tools/`` and ``scripts/`` (and one level of sub-folders), then the
    scripts beside SKILL.md (``calendar.js``: many skills keep them there), sorted: regular
    files inside the APP only — a folder or file that is a link out of it (``tools`` ->
    /usr/bin) offers nothing."""
    tools: list[AgentTool] = []
    taken: set[str] = set()
    beside = [
        p
        for p in sorted(app.root.iterdir())
        if p.suffix in INTERPRETERS and not p.is_symlink() and _is_program(p)
    ]
    found = [p for folder in TOOL_FOLDERS for p in _candidates(app.root / folder, app.root)]
    for path in [*found, *beside]:
        rel = path.relative_to(app.root)
        name = _unique_name("_".join((*rel.parent.parts, path.stem)), taken)
        taken.add(name)
        tools.append(AgentTool(name, path, rel.as_posix(), describe(path, rel.as_posix())))
    return tools


def _candidates(folder: Path, root: Path) -> list[Path]:
    if folder.is_symlink() or not folder.is_dir():
        return []
    found: list[Path] = []
    for entry in sorted(folder.iterdir()):
        if entry.is_symlink():
            if _is_program(entry) and _inside(entry, root):
                found.append(entry)  # a link to another program of the APP
        elif entry.is_dir() and not _skipped(entry) and entry.name not in SKIP_DIRS:
            found += [p for p in sorted(entry.iterdir()) if _is_program(p) and _inside(p, root)]
        elif _is_program(entry):
            found.append(entry)
    return found


def _inside(path: Path, root: Path) -> bool:
    """A regular file whose real place is inside the APP."""
    return inside(path, root) and path.is_file()


def _skipped(path: Path) -> bool:
    name = path.name
    return name.startswith((".", "_")) or name.upper().startswith("README")


def _is_program(path: Path) -> bool:
    if not path.is_file() or _skipped(path) or path.suffix.lower() in SKIP_SUFFIXES:
        return False
    return path.suffix in INTERPRETERS or os.access(path, os.X_OK)


def _unique_name(raw: str, taken: set[str]) -> str:
    base = _BAD_NAME_CHARS.sub("_", raw)[:64] or "tool"
    name, number = base, 2
    while name in taken:
        suffix = f"_{number}"
        name, number = base[: 64 - len(suffix)] + suffix, number + 1
    return name


def describe(path: Path, relpath: str) -> str:
    """The file's docstring or leading comments, plus its ``usage:`` line; else "Run <relpath>"."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            text = fh.read(16_000)
    except OSError:
        text = ""
    if "\0" in text:  # a compiled program: nothing readable to show
        text = ""
    summary = _docstring(text) if path.suffix == ".py" else ""
    summary = summary or _leading_comments(text)
    usage = _USAGE.search(text)
    parts = [summary] if summary else []
    if usage and usage.group(0).strip().lower() not in summary.lower():
        parts.append(usage.group(0).strip())
    description = "\n".join(parts).strip()
    if not description:
        return f"Run {relpath}"
    return description if len(description) <= DESCRIPTION_CHARS else description[:399] + "…"


def _docstring(text: str) -> str:
    found = _DOCSTRING.match(text)
    return found.group(2).strip() if found else ""


def _leading_comments(text: str) -> str:
    lines: list[str] = []
    for number, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if number == 0 and stripped.startswith("#!"):
            continue
        if not stripped and not lines:
            continue
        marker = next((m for m in ("#", "//") if stripped.startswith(m)), None)
        if marker is None:
            break
        body = stripped[len(marker) :].strip()
        if re.match(r"(-\*-|shellcheck|eslint|type:|noqa)", body):
            continue
        lines.append(body)
    return "\n".join(lines).strip()


def system_prompt(app: App, max_turns: int, tool_timeout: float) -> str:
    skill = read_skill_md(app.skill_md).text
    note = (
        "The tools you can call are this skill's own programs (from tools/ and scripts/). "
        f"Each call runs the program as a subprocess with the APP folder ({app.root}) as its "
        "working directory: pass command-line arguments in `args` and standard input in "
        "`stdin`; you get back its exit code, stdout and the tail of stderr. A call is stopped "
        f"after {tool_timeout:g} seconds, and you have at most {max_turns} turns."
    )
    return f"{skill.rstrip()}\n\n{note}\n" if skill.strip() else note + "\n"


def run_agent(
    app: App,
    request: str,
    *,
    provider: Provider,
    model: str,
    max_tokens: int,
    emit: Emit,
    max_turns: int = 12,
    tool_timeout: float = 60.0,
) -> AgentResult:
    """Answer ``request`` in Skill mode: converse, run the tools asked for, until done or bounded.

    A tool that fails, times out or does not exist becomes an ``is_error`` tool_result for the
    model, never an exception; a provider error is raised as is.
    """
    converse = getattr(provider, "converse", None)
    if converse is None:
        raise ProviderError(
            f"the {getattr(provider, 'name', '?')} provider cannot run the agent loop",
            hint="use provider: anthropic (or scripted with `_agent` answers) for Skill mode",
        )
    tools = discover_tools(app)
    by_name = {tool.name: tool for tool in tools}
    specs = [tool.spec() for tool in tools]
    system = system_prompt(app, max_turns, tool_timeout)
    messages: list[dict[str, Any]] = [{"role": "user", "content": request}]
    result = AgentResult(answer="", turns=0, stop_reason="turn_limit")
    for turn in range(1, max_turns + 1):
        reply = converse(
            system=system, messages=messages, tools=specs, model=model, max_tokens=max_tokens
        )
        content = list(reply.get("content") or [])
        messages.append({"role": "assistant", "content": content})
        result.turns = turn
        _add_usage(result.usage, reply.get("usage") or {})
        result.answer = _text_of(content) or result.answer
        uses = [block for block in content if block.get("type") == "tool_use"]
        emit(_turn_event(turn, reply, uses))
        if not uses:
            result.answer = _text_of(content)
            result.stop_reason = "end_turn"
            return result
        if turn == max_turns:
            break  # nobody would read the results: do not run the tools
        answers = [_call(app, by_name, use, tool_timeout, emit, result) for use in uses]
        messages.append({"role": "user", "content": answers})
    return result


def _turn_event(turn: int, reply: dict[str, Any], uses: list[dict[str, Any]]) -> dict[str, Any]:
    calls = [{"name": u.get("name"), "args": _args_of(u.get("input"))} for u in uses]
    return {
        "event": "agent_turn",
        "turn": turn,
        "stop_reason": reply.get("stop_reason"),
        "tool_calls": calls,
        "usage": reply.get("usage") or {},
    }


def _args_of(raw: Any) -> Any:
    return raw.get("args") if isinstance(raw, dict) else None


def _text_of(content: list[dict[str, Any]]) -> str:
    return "".join(str(b.get("text", "")) for b in content if b.get("type") == "text").strip()


def _add_usage(total: dict[str, int], usage: dict[str, Any]) -> None:
    for key, value in usage.items():
        if isinstance(value, int):
            total[key] = total.get(key, 0) + value


def _call(
    app: App,
    by_name: dict[str, AgentTool],
    use: dict[str, Any],
    timeout: float,
    emit: Emit,
    result: AgentResult,
) -> dict[str, Any]:
    """Run one tool_use; the tool_result block for it (``is_error`` when it did not succeed)."""
    name = str(use.get("name"))
    tool = by_name.get(name)
    scrubber = getattr(emit, "scrubber", None)
    scrubber = scrubber if isinstance(scrubber, Scrubber) else Scrubber.from_env()
    args, stdin, problem = _arguments(use.get("input"))
    if tool is None:
        known = ", ".join(by_name) or "none"
        problem = f"there is no tool named {name!r}; the tools are: {known}"
    code: int | None = None
    seconds = 0.0
    if problem is None and tool is not None:
        code, seconds, text = _execute(app, tool, args, stdin, timeout, scrubber)
    else:
        text = f"error: {problem}"
    is_error = code != 0
    call = ToolCall(name, args, code, round(seconds, 3), is_error)
    result.tool_calls.append(call)
    emit({"event": "agent_tool", **asdict(call)})
    # the model's context is an output too: no secret value goes back in a tool's result
    block = {"type": "tool_result", "tool_use_id": use.get("id"), "content": scrubber.text(text)}
    return block | {"is_error": True} if is_error else block


def _arguments(raw: Any) -> tuple[list[str], str, str | None]:
    """(args, stdin, problem) from a tool_use input; scalars in ``args`` become strings."""
    if not isinstance(raw, dict):
        return [], "", "the input must be an object with `args` and `stdin`"
    args, stdin = raw.get("args", []), raw.get("stdin", "")
    if isinstance(args, str) or not isinstance(args, list):
        return [], "", "`args` must be an array of strings, one per argument"
    if any(isinstance(a, dict | list) or a is None for a in args):
        return [], "", "every item of `args` must be a string"
    if not isinstance(stdin, str):
        return [], "", "`stdin` must be a string"
    return [str(a) for a in args], stdin, None


def _execute(
    app: App, tool: AgentTool, args: list[str], stdin: str, timeout: float, scrubber: Scrubber
) -> tuple[int | None, float, str]:
    """(exit code, seconds, tool_result text); the code is None when the program never ran."""
    env = dict(os.environ, APP_ROOT=str(app.root), APP_TOOLS_DIR=str(app.tools_dir))
    argv = tool.argv(args)
    started = time.monotonic()
    try:
        done = run_program(
            argv, stdin=stdin, cwd=app.root, env=env, timeout=timeout, scrubber=scrubber
        )
    except StepTimeout as exc:
        text = f"error: {tool.relpath} timed out after {timeout:g}s and was killed"
        if exc.stderr_tail:
            text += f"\nstderr (tail):\n{tail(exc.stderr_tail, STDERR_CHARS)}"
        code = exc.returncode if exc.returncode is not None else -1
        return code, time.monotonic() - started, text
    except SubprocessError as exc:
        return None, 0.0, f"error: {exc.one_line()}"
    text = _result_text(done.returncode, done.stdout, done.stderr, scrubber)
    return done.returncode, done.seconds, text


def _result_text(code: int, stdout: str, stderr: str, scrubber: Scrubber) -> str:
    err = scrubber.tail(stderr, STDERR_CHARS)
    room = RESULT_CHARS - len(err) - 60
    out = stdout if len(stdout) <= room else _clip(stdout, room)
    text = f"exit code: {code}\nstdout:\n{out}"
    return text + f"\nstderr (tail):\n{err}" if err else text


def _clip(text: str, limit: int) -> str:
    """The head and the tail of ``text``, with how much was cut in between."""
    half = max(limit // 2 - 40, 0)
    cut = len(text) - 2 * half
    return f"{text[:half]}\n… [{cut} characters cut] …\n{text[-half:]}"
