"""The `app-run` console script: quiet about Ctrl-C while the command line is still loading.

Importing the command line takes tens of milliseconds (more on a busy machine); a SIGINT in
that window used to end app-run with a KeyboardInterrupt traceback.  Here it ends it with
exit 130 and one line instead; once loaded, ``cli.app_run`` handles signals itself.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

EXIT_INTERRUPTED = 130


def _interrupted_while_loading(signum: int, frame: Any) -> None:
    sys.stderr.write("Error: interrupted\n")
    raise SystemExit(EXIT_INTERRUPTED)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    previous = signal.signal(signal.SIGINT, _interrupted_while_loading)
    from skill2app.runtime.cli import app_run

    signal.signal(signal.SIGINT, previous)
    sys.exit(app_run(argv))
