"""Where the calling agent (the host) takes part: paused runs kept as ``session`` files and
resumed (``delegation``), ``skill_mode`` for requests no pipeline fits, and the bounded
``agent`` loop that can carry Skill mode out itself."""
