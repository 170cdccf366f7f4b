"""Where things are in an APP folder (APP v0.4 §2) and how app-new finds them.

``my-app/SKILL.md``, ``my-app/pipelines/<name>/pipeline.yaml`` (``_constructor`` and
``_destructor`` are the lifecycle pipelines), ``my-app/tools/``.
"""

from __future__ import annotations

from pathlib import Path

from skill2app.scaffold.errors import InvalidName, NotFound, Where

LIFECYCLE = ("_constructor", "_destructor")


def require_app(app_dir: Path) -> Path:
    """``app_dir`` if it is an APP folder (it has a SKILL.md), else raise ``NotFound``."""
    if not (app_dir / "SKILL.md").is_file():
        raise NotFound(
            "not an APP folder: no SKILL.md",
            where=Where(app_dir),
            hint="give the folder that holds SKILL.md, or create one with `app-new app NAME`",
        )
    return app_dir


def pipeline_names(app_dir: Path) -> list[str]:
    """The pipelines of ``app_dir`` (folders with a pipeline.yaml), sorted."""
    folder = app_dir / "pipelines"
    if not folder.is_dir():
        return []
    return sorted(path.parent.name for path in folder.glob("*/pipeline.yaml"))


def pipeline_file(app_dir: Path, pipeline: str) -> Path:
    """The pipeline.yaml of an existing pipeline, else ``NotFound`` listing the ones there are."""
    if pipeline in ("", ".", "..") or "/" in pipeline or "\\" in pipeline:
        raise InvalidName(
            f"{pipeline!r} is not a pipeline name", hint="give the name of a folder in pipelines/"
        )
    path = require_app(app_dir) / "pipelines" / pipeline / "pipeline.yaml"
    if not path.is_file():
        known = ", ".join(pipeline_names(app_dir)) or "none yet"
        raise NotFound(
            f"pipeline {pipeline!r} not found",
            where=Where(path),
            hint=f"pipelines there: {known}; create it with `app-new pipeline`",
        )
    return path
