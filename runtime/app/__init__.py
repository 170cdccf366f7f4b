"""The APP as app-run sees it before anything runs: the folder loaded (``model``, its YAML
``document``s with line numbers), checked (``check``, ``references``, ``diagnostic``; verdicts
kept by ``cache``), its ``SKILL.md`` (``skill_md``) and the runtime ``config``."""

from pathlib import Path


def is_app_dir(path: Path) -> bool:
    """Whether ``path`` looks like an APP folder: it has pipelines/ or a SKILL.md (what lets
    app-run and app-new take the current folder when APP_DIR is left out)."""
    return (path / "pipelines").is_dir() or (path / "SKILL.md").is_file()
