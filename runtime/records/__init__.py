"""What a run leaves: its ``result`` (phases, exit code), the run ``record`` on disk, the
lines people read (``display``), and ``fixtures`` (``app-run test``: samples run and compared
with what was recorded)."""
