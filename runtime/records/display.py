"""Text for people: the lines `app-run` prints on stderr (progress, errors) and its short
human summaries. Pure functions returning strings; ``cli`` decides where they go."""

from __future__ import annotations

import re
from typing import Any

from skill2app.runtime.errors import AppRunError, UsageError, Where

# What must not reach a terminal raw: control characters (a newline that forges a line, ESC
# sequences that move the cursor or retitle the window), C1 controls, bidi overrides.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(line: str) -> str:
    """``line`` with every character a terminal would act on written as an escape (``\\x1b``,
    ``\\n``): a folder name or a step's stderr is shown, never obeyed."""
    if not _UNSAFE.search(line):
        return line
    return _UNSAFE.sub(lambda m: repr(m.group(0))[1:-1], line)


def abbreviated(text: str, limit: int = 80) -> str:
    """``text`` as an error quotes what it was given: its head when it is long (a 5,000-character
    session name makes no line anyone reads)."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}… ({len(text):,} characters)"


def counted(n: int, noun: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def retries_text(count: int) -> str:
    return f", {count} retr{'y' if count == 1 else 'ies'}" if count else ""


def warning_line(diagnostic: dict[str, Any]) -> str:
    """A diagnostic given as its dict (``Diagnostic.to_dict``) as ``<what> (<file>:<line>) —
    <fix>``."""
    text = f"{diagnostic['message']} ({Where(diagnostic['file'], diagnostic['line'])})"
    return f"{text} — {diagnostic['hint']}" if diagnostic.get("hint") else text


def error_lines(error: AppRunError) -> list[str]:
    """One line ``<what> (<file>:<line>) — <fix>``, then check diagnostics and a stderr tail."""
    prefix = f"step {error.step!r}: " if error.step else ""
    lines = [f"{prefix}{error.one_line()}"]
    lines += [f"  {d.one_line()}" for d in getattr(error, "diagnostics", [])]
    stderr_tail = getattr(error, "stderr_tail", "")
    if stderr_tail:
        lines.append("  stderr:")
        lines += [f"  | {line}" for line in stderr_tail.splitlines()[-20:]]
    return lines


def run_error_lines(result: Any) -> list[str]:
    """What went wrong in a run (a RunResult), as `run` prints it on stderr: each failed
    phase's error, a signal let wait while the destructor ran, an incomplete run record."""
    lines: list[str] = []
    for phase in (result.constructor, result.business, result.destructor):
        if phase is not None and phase.error is not None:
            first, *rest = error_lines(phase.error)
            lines += [f"Error: {phase.phase} failed — {first}", *rest]
    if result.signal is not None:
        import signal

        name, code = signal.Signals(result.signal).name, 128 + result.signal
        lines.append(f"Stopped by {name} while the destructor ran: it was let finish (exit {code})")
    if result.record_error:
        fix = "check the free space and permissions of APP_RUN_HOME; the run itself went on"
        lines.append(f"Warning: {result.record_error} — {fix}")
    return lines


def constructor_warnings(result: Any) -> list[str]:
    """What the constructor warned about while it passed (a converted APP's check_environment:
    ``{"warnings": [...]}``): a program a pipeline needs that is missing, a variable unset."""
    phase = getattr(result, "constructor", None)
    output = getattr(phase, "output", None)
    found = output.get("warnings") if isinstance(output, dict) else None
    if not isinstance(found, list):
        return []
    return [terminal_safe(str(item))[:300] for item in found[:20] if str(item).strip()]


def progress_lines(event: dict[str, Any]) -> list[str]:
    """What a run-record event looks like as progress on stderr (most events print nothing)."""
    kind = event.get("event")
    if kind == "routed":
        return [f"→ {event['pipeline']} ({event['strategy']}, score {event['score']:.3f})"]
    if kind == "free_text":
        return [f"· input {event['input']!r} filled with {event['how']} (free text)"]
    if kind == "phase_start" and event["phase"] != "business":
        return [f"· {event['phase']} ({event['pipeline']})"]
    if kind == "step_retry":
        head = f"  ↻ {event['step']} attempt {event['attempt']} rejected:"
        return [head, *(f"      - {e}" for e in event["errors"][:10])]
    if kind == "step_end":
        status = "ok" if event["status"] == "succeeded" else "FAILED"
        extra = retries_text(event.get("retries") or 0)
        return [f"  {event['pipeline']}/{event['step']}: {status} ({event['seconds']:.2f}s{extra})"]
    if kind == "agent_turn":
        calls = ", ".join(c["name"] for c in event.get("tool_calls", [])) or "answer"
        return [f"  agent turn {event['turn']}: {calls}"]
    return []


def pause_line(pause: Any) -> str:
    """The pause, for people, with its `resume` command (it reads the answer on stdin)."""
    return (
        f"Paused: step {pause.step!r} needs an LLM answer (attempt {pause.attempt}/"
        f"{pause.max_attempts}); answer with `{pause.commands['resume']} < ANSWER.json`"
    )


def decision_lines(decision: dict[str, Any]) -> list[str]:
    chosen = decision["pipeline"] or {
        "unsure": "unsure (the caller chooses among the candidates)",
    }.get(decision.get("decision", ""), "no match (Skill mode)")
    lines = [
        f"{chosen}  score {decision['score']:.3f}  [{decision['strategy']}]",
        f"  why: {decision['reason']}",
    ]
    lines += [f"  {c['score']:.3f}  {c['pipeline']}  — {c['why']}" for c in decision["candidates"]]
    return lines


def session_line(row: dict[str, Any], removed: bool = False) -> str:
    parts = ["removed"] if removed else []
    parts += [row["session"], str(row["status"])]
    if row["status"] == "corrupt":
        parts.append("(cannot be read: `app-run sessions --clean` removes it)")
    else:
        parts += [row.get("pipeline") or "", row.get("step") or "", f"{row.get('age_hours', 0)}h"]
    if row.get("error"):
        parts.append(f"— {row['error']}")
    return "  ".join(p for p in parts if p)


def clean_line(row: dict[str, Any]) -> str:
    """What `sessions --clean` did to one session: removed, kept (not ended) or skipped."""
    if row["status"] == "corrupt":  # not "`--clean` removes it": that is being done
        return f"{row['action']}  {row['session']}  corrupt  ({row['reason']})"
    if row["action"] == "removed":
        return session_line(row, removed=True)
    reason = f"  — {row['reason']}" if row.get("reason") else ""
    return f"{row['action']}  {session_line(row)}{reason}"


def select_field(output: Any, field: str) -> Any:
    """``output`` at the dot path ``field`` (list items by index)."""
    for key in field.split("."):
        if isinstance(output, dict) and key in output:
            output = output[key]
        elif isinstance(output, list) and key.isdigit() and int(key) < len(output):
            output = output[int(key)]
        else:
            there = ""
            if isinstance(output, dict) and output:
                there = f"there: {', '.join(list(map(str, output))[:12])}; "
            elif isinstance(output, list):
                there = f"there: a list of {len(output)}; "
            raise UsageError(
                f"the output has no field {field!r} (the run itself succeeded)",
                hint=f"{there}drop --field to print the whole output",
            )
    return output
