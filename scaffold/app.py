"""A new APP folder: SKILL.md, README.md, pipelines/, tools/ and, if asked, the lifecycle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill2app.scaffold import files, lifecycle, names, render
from skill2app.scaffold.errors import Conflict, Where

APP_FILES = (  # paths in the APP; each is rendered from new/app/<path>.j2
    "SKILL.md",
    "README.md",
    "pipelines/.gitkeep",
    "tools/README.md",
)


def default_description(name: str) -> str:
    return f"TODO: say what {name} does and when an agent should use it."


def plan_app(
    parent: Path, name: str, *, description: str | None = None, with_lifecycle: bool = False
) -> list[files.Change]:
    """The files of a new APP ``parent/name``; raises before planning anything invalid."""
    names.app_name(name)
    text = names.description(description or default_description(name), what="APP description")
    app_dir = parent / name
    if app_dir.exists() and not app_dir.is_dir():
        raise Conflict(
            "a file is in the way of the APP folder", where=Where(app_dir), hint="pick another name"
        )
    context: dict[str, Any] = {"name": name, "description": text, "with_lifecycle": with_lifecycle}
    changes = [render.file(app_dir / path, f"new/app/{path}.j2", **context) for path in APP_FILES]
    if with_lifecycle:
        for which in lifecycle.KINDS:
            changes += lifecycle.plan_lifecycle(app_dir, which, check_app=False)
    return changes


def new_app(
    parent: Path,
    name: str,
    *,
    description: str | None = None,
    with_lifecycle: bool = False,
    force: bool = False,
    dry_run: bool = False,
) -> list[files.Change]:
    """Create (or with ``dry_run`` only plan) a new APP; returns the file changes."""
    changes = plan_app(parent, name, description=description, with_lifecycle=with_lifecycle)
    return files.apply(changes, force=force, dry_run=dry_run)
