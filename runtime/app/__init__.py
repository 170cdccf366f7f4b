"""The APP as app-run sees it before anything runs: the folder loaded (``model``, its YAML
``document``s with line numbers), checked (``check``, ``references``, ``diagnostic``; verdicts
kept by ``cache``), its ``SKILL.md`` (``skill_md``) and the runtime ``config``."""
