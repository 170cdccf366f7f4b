"""The lifecycle pipelines: ``_constructor`` (before every pipeline) and ``_destructor`` (after).

Each comes with one working example step (check the environment; delete scratch files) that
the user edits; the templates live under templates/new/lifecycle/.
"""

from __future__ import annotations

from pathlib import Path

from skill2app.scaffold import files, layout, render

KINDS = ("constructor", "destructor")
# kind -> (path in the pipeline folder, executable) of every file it gets
_FILES: dict[str, tuple[tuple[str, bool], ...]] = {
    "constructor": (("pipeline.yaml", False), ("steps/check_environment.py", True)),
    "destructor": (("pipeline.yaml", False), ("steps/cleanup.py", True)),
}


def plan_lifecycle(app_dir: Path, kind: str, *, check_app: bool = True) -> list[files.Change]:
    """The files of ``pipelines/_constructor`` or ``pipelines/_destructor`` of ``app_dir``."""
    if check_app:
        layout.require_app(app_dir)
    folder = f"_{kind}"
    return [
        render.file(
            app_dir / "pipelines" / folder / path,
            f"new/lifecycle/{folder}/{path}.j2",
            executable=executable,
        )
        for path, executable in _FILES[kind]
    ]


def new_lifecycle(
    app_dir: Path, kind: str, *, force: bool = False, dry_run: bool = False
) -> list[files.Change]:
    """Add the ``kind`` ("constructor" or "destructor") pipeline to an existing APP."""
    return files.apply(plan_lifecycle(app_dir, kind), force=force, dry_run=dry_run)
