"""Which coding agent, if any, is running app-convert: the variables agents set for the
commands they run.

With no API key, a conversion started by an agent defaults to the host analyzer (the agent
writes the plan through needs_llm/resume) rather than to the offline heuristic draft.  Only
variables an agent sets for its own commands count — not an editor's terminal
(``CURSOR_TRACE_ID`` is set in every Cursor terminal, a person's too).
"""

from __future__ import annotations

from collections.abc import Mapping

# (variable, the agent's name); the first one set wins.  AI_AGENT and AGENT carry the name;
# AGENT, a common word, counts only with the name of an agent known to set it.
_KNOWN = (
    ("AI_AGENT", ""),
    ("CLAUDECODE", "Claude Code"),
    ("CODEX_THREAD_ID", "Codex"),
    ("CODEX_SANDBOX", "Codex"),
    ("CURSOR_AGENT", "Cursor's agent"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("GOOSE_TERMINAL", "goose"),
    ("AGENT", ""),
)
AGENT_VARIABLES = tuple(variable for variable, _name in _KNOWN)
_OFF = {"", "0", "false", "no", "off"}
_AGENT_NAMES = frozenset("goose amp opencode crush claude codex cursor gemini aider cline".split())

__all__ = ["AGENT_VARIABLES", "calling_agent"]


def calling_agent(environ: Mapping[str, str]) -> str | None:
    """``"<agent> (VARIABLE)"`` for the agent whose variable is set in ``environ``, else None."""
    for variable, name in _KNOWN:
        value = environ.get(variable, "").strip()
        if value.lower() in _OFF or (variable == "AGENT" and value.lower() not in _AGENT_NAMES):
            continue
        named = "".join(c for c in value if c.isprintable())[:40]
        return f"{name or named} ({variable})"
    return None
