"""``python -m skill2app.runtime.cli`` is ``app-run``."""

from skill2app.runtime.cli import main

main()
