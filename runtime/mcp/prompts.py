"""What `app-run mcp` offers besides tools: each APP's SKILL.md as a prompt (Skill mode, for
requests no tool fits) and, as resources, its routing table and its SKILL.md.

Plain data (``server`` makes MCP types, and loads the APPs afresh for each request, so edits
show).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.app.cache import cached_table
from skill2app.runtime.app.config import state_home
from skill2app.runtime.app.model import App
from skill2app.runtime.app.skill_md import read_skill_md
from skill2app.runtime.errors import LoadError, UsageError
from skill2app.runtime.host.skill_mode import programs

SCHEME = "app-run"


@dataclass(frozen=True)
class PromptSpec:
    name: str
    description: str
    root: Path


@dataclass(frozen=True)
class ResourceSpec:
    uri: str
    name: str
    description: str
    mime_type: str


def prompt_specs(apps: list[App]) -> list[PromptSpec]:
    """One Skill-mode prompt per APP that has a SKILL.md it may read (not one that links out
    of the APP or is no regular file: that APP alone has no prompt)."""
    specs = []
    for app in apps:
        try:
            skill = read_skill_md(app.skill_md)
        except LoadError:
            continue
        if not skill.exists:
            continue
        about = str(skill.frontmatter.get("description") or "").strip()
        description = (
            f"Skill mode of {app.name}: its SKILL.md, for a request none of its tools fits."
        )
        specs.append(PromptSpec(app.name, f"{description} {about}".strip(), app.root))
    return specs


def skill_prompt(app: App, request: str | None) -> str:
    """SKILL.md as a user message, with the request and the programs it may run."""
    skill = read_skill_md(app.skill_md)
    lines = [
        f"Handle this with the skill below (Skill mode: no pipeline of {app.name} fits it). "
        f"Its programs are relative to {app.root}.",
    ]
    if request:
        lines += ["", f"Request: {request}"]
    found = programs(app)
    if found:
        lines += ["", "Programs:"]
        lines += [f"- {p['path']} — {p['description'].splitlines()[0]}" for p in found]
    lines += ["", "---", skill.text.lstrip("\ufeff")]
    return "\n".join(lines)


def resource_specs(apps: list[App]) -> list[ResourceSpec]:
    specs = []
    for app in apps:
        specs.append(
            ResourceSpec(
                f"{SCHEME}://{app.name}/routing",
                f"{app.name} routing table",
                "Every pipeline of the APP: name, description, triggers, inputs",
                "application/json",
            )
        )
        if app.skill_md.is_file():
            specs.append(
                ResourceSpec(
                    f"{SCHEME}://{app.name}/SKILL.md",
                    f"{app.name} SKILL.md",
                    "The skill's instructions (Skill mode)",
                    "text/markdown",
                )
            )
    return specs


def read_resource(apps: list[App], uri: str) -> tuple[str, str]:
    """(mime type, text) of a resource ``resource_specs`` lists."""
    for app in apps:
        if uri == f"{SCHEME}://{app.name}/routing":
            table: Any = cached_table(app, state_home())
            return "application/json", json.dumps(table, ensure_ascii=False, indent=2)
        if uri == f"{SCHEME}://{app.name}/SKILL.md" and app.skill_md.is_file():
            return "text/markdown", read_skill_md(app.skill_md).text
    raise UsageError(f"no resource {uri!r}", hint="list them with resources/list")
