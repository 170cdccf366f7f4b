"""`app-run`'s entry (``bin/app-run`` calls ``main``): quiet about Ctrl-C while the command
line is still loading.

Importing the command line takes tens of milliseconds (more on a busy machine); a SIGINT in
that window used to end app-run with a KeyboardInterrupt traceback.  Here it ends it with
exit 130 and one line instead; once loaded, ``cli.app_run`` handles signals itself.  This
module imports nothing but built-in modules (``_signal`` is C: no import of its own), and
``bin/app-run`` is installed as a script rather than a console script, whose generated wrapper
imports ``re`` first: the window left is Python's own start-up (``site`` and the ``.pth``
files of the environment).  Once the command has returned, SIGINT is ignored on the way out.
"""

from __future__ import annotations

import _signal
import sys

EXIT_INTERRUPTED = 130


def _interrupted_while_loading(signum: int, frame: object) -> None:
    sys.stderr.write("Error: interrupted\n")
    raise SystemExit(EXIT_INTERRUPTED)


def main(argv: list[str] | None = None) -> None:
    previous = _signal.signal(_signal.SIGINT, _interrupted_while_loading)
    from skill2app.runtime.cli import app_run

    _signal.signal(_signal.SIGINT, previous)
    code = app_run(argv)
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # done: nothing to interrupt on the way out
    sys.exit(code)
