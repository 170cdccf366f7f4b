"""Skill mode: what a request that matches no pipeline falls back to (spec 1, "brain mode").

By default app-run does not improvise: it prints a structured fallback result so that the host
agent (Claude Code and the like) carries on with SKILL.md and the skill's programs.
"""

from __future__ import annotations

import os
from typing import Any

from .app import App

EXIT_SKILL = 7
PROGRAM_DIRS = ("tools", "scripts")
NOT_PROGRAMS = (".md", ".txt", ".json", ".yaml", ".yml", ".csv", ".lock")


def frontmatter(text: str) -> dict[str, Any]:
    """The YAML between a first line ``---`` and the next line that is exactly ``---``."""
    import yaml

    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    for end, line in enumerate(lines[1:], 1):
        if line.strip() == "---":
            try:
                data = yaml.safe_load("\n".join(lines[1:end]))
            except yaml.YAMLError:
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def programs(app: App) -> list[dict[str, Any]]:
    found = []
    for folder in PROGRAM_DIRS:
        base = app.root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(app.root)
            if (
                not path.is_file()
                or any(part.startswith((".", "__")) for part in rel.parts)
                or path.suffix.lower() in NOT_PROGRAMS
            ):
                continue
            found.append({"path": str(rel), "executable": os.access(path, os.X_OK)})
    return found


def fallback(app: App, request: str, decision: dict[str, Any]) -> dict[str, Any]:
    """The structured result that hands the request to the host agent in Skill mode."""
    skill = app.skill_md
    text = skill.read_text(encoding="utf-8", errors="replace") if skill.is_file() else ""
    return {
        "mode": "skill",
        "status": "no_match",
        "request": request,
        "app": str(app.root),
        "skill_md": str(skill) if skill.is_file() else None,
        "frontmatter": _jsonable(frontmatter(text)),
        "programs": programs(app),
        "routing": decision,
        "next": (
            "No pipeline matches this request. Follow SKILL.md to handle it, using the "
            'programs listed; or run `app-run <APP> "<request>" --agent` with a provider.'
            if skill.is_file()
            else "No pipeline matches and this APP has no SKILL.md to fall back to."
        ),
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
