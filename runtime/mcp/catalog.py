"""What `app-run mcp` serves: one tool per business pipeline of each APP, and the tools that
answer a paused llm step.

A tool's name is the pipeline's; when several APPs are served it is prefixed with the APP's
folder name (``csv-report__csv-stats``), in the letters MCP clients accept (``A-Za-z0-9_-``, at
most 64).  Its description is the pipeline's plus its triggers; its ``inputSchema`` is the
pipeline's ``input`` as JSON Schema (``input_schema``: types, required, descriptions, enums,
defaults; an optional input without a default also takes ``null``).  A pipeline that does not
pass `check` is not served (a warning says why).  Plain data here: ``server`` makes MCP types.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.app.model import App, Pipeline, load_app
from skill2app.runtime.errors import AppRunError, UsageError
from skill2app.runtime.run.inputs import input_schema
from skill2app.runtime.run.runner import checked

NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
MAX_NAME = 64
SEPARATOR = "__"  # between the APP's name and the pipeline's, when several APPs are served
RESERVED = ("resume", "abandon")  # the tools that answer (or give up) a paused llm step

RESUME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "session": {"type": "string", "description": "The `session` of the paused run."},
        "answer": {
            "description": "Your answer to the paused step's prompt: JSON matching its schema "
            "(an object, or the JSON text), or plain text when it has no schema.",
        },
    },
    "required": ["session", "answer"],
    "additionalProperties": False,
}
ABANDON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"session": {"type": "string", "description": "The `session` to give up."}},
    "required": ["session"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ToolSpec:
    """One business pipeline, as an MCP tool."""

    name: str
    description: str
    input_schema: dict[str, Any]
    app_root: Path
    pipeline: str


@dataclass(frozen=True)
class Catalog:
    tools: tuple[ToolSpec, ...]
    warnings: tuple[str, ...]  # pipelines that are not served, and why
    reserved: dict[str, str]  # "resume"/"abandon" -> the tool name it has here

    def find(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)


def load_apps(roots: Sequence[Path]) -> list[App]:
    """The served APPs (LoadError: a folder is not an APP); the same folder twice is one."""
    apps: list[App] = []
    for root in roots:
        app = load_app(root)
        if all(a.root != app.root for a in apps):
            apps.append(app)
    return apps


def build_catalog(roots: Sequence[Path], home: Path) -> Catalog:
    """Every servable pipeline of the APPs at ``roots`` (loaded afresh: edits show)."""
    apps = load_apps(roots)
    several = len(apps) > 1
    tools: list[ToolSpec] = []
    warnings: list[str] = []
    for app in apps:
        for name in app.business_names():
            try:
                pipeline = checked(app, name, home)
            except AppRunError as exc:
                warnings.append(f"{app.root.name}/{name} is not served: {exc.one_line()}")
                continue
            tools.append(_spec(app, pipeline, several))
    _no_clashes(tools)
    taken = {t.name for t in tools}
    reserved = {r: (r if r not in taken else f"app_run_{r}") for r in RESERVED}
    return Catalog(tuple(tools), tuple(warnings), reserved)


def tool_name(app: str, pipeline: str, several: bool) -> str:
    raw = f"{app}{SEPARATOR}{pipeline}" if several else pipeline
    return NAME_CHARS.sub("_", raw)[:MAX_NAME]


def describe(pipeline: Pipeline) -> str:
    """The pipeline's description, then its triggers: what the host's model picks tools by."""
    text = pipeline.description.strip()
    if pipeline.triggers:
        text += "\n\nUse it for requests like:\n" + "\n".join(f"- {t}" for t in pipeline.triggers)
    return text


def _spec(app: App, pipeline: Pipeline, several: bool) -> ToolSpec:
    return ToolSpec(
        name=tool_name(app.root.name, pipeline.name, several),
        description=describe(pipeline),
        input_schema=input_schema(pipeline.inputs, pipeline.input_info),
        app_root=app.root,
        pipeline=pipeline.name,
    )


def _no_clashes(tools: list[ToolSpec]) -> None:
    seen: dict[str, ToolSpec] = {}
    for tool in tools:
        other = seen.setdefault(tool.name, tool)
        if other is not tool:
            raise UsageError(
                f"two pipelines would be the same MCP tool {tool.name!r}: "
                f"{other.app_root}/{other.pipeline} and {tool.app_root}/{tool.pipeline}",
                hint="serve APPs whose folder names differ (rename one, or serve it apart)",
            )
