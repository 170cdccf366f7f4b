"""A program that opens the user's browser and waits for it on a local port.

An OAuth helper (controlling-spotify's ``get-refresh-token.js``: ``http.createServer`` on
127.0.0.1:8888, then ``xdg-open`` of the sign-in page) or a viewer that serves a page and
opens it (skill-creator's ``generate_review.py``) runs until a person acts in a browser.  A
pipeline step has no person and no browser: it would wait for ever, and a sign-in helper
would print the user's token into the run's output.  Both signs must be in the source: a
program that only serves (a dev server a step may start) or only opens a page is not one.
"""

from __future__ import annotations

import re

# Opening the user's browser: Python's webbrowser, the desktop openers, the `open` npm package.
_OPENS_BROWSER = re.compile(
    r"\bwebbrowser\.open(?:_new(?:_tab)?)?\(|\bxdg-open\b|\brequire\(\s*['\"]open['\"]\s*\)|"
    r"\bfrom\s+['\"]open['\"]|\bimport\s+open\s+from\b"
)
# Serving on a local port until a request comes.
_SERVES = re.compile(
    r"\.createServer\(|\b(?:Threading)?HTTPServer\(|\.serve_forever\(|\.handle_request\(|"
    r"\b(?:app|server)\.listen\(|\bsocketserver\.TCPServer\("
)
# Starting another program: what runs a desktop opener.
_SPAWNS = re.compile(r"\b(?:exec|execSync|spawn|spawnSync|execFile|Popen|system|call|run)\(")
MAX_LINE = 2_000


def waits_for_browser(source: str) -> int:
    """The line (1-based) where the program starts serving for the browser it opens, 0 when
    it does not do both.  A desktop opener (``xdg-open``) counts where the program starts
    processes at all: named in a help text, it opens nothing."""
    lines = [line for line in source.splitlines() if len(line) <= MAX_LINE and not _comment(line)]
    opens = [m.group() for line in lines for m in _OPENS_BROWSER.finditer(line)]
    spawns = _SPAWNS.search(source) is not None
    if not any(word != "xdg-open" or spawns for word in opens):
        return 0
    for number, line in enumerate(source.splitlines(), 1):
        if len(line) <= MAX_LINE and _SERVES.search(line) and not _comment(line):
            return number
    return 0


def _comment(line: str) -> bool:
    return line.lstrip().startswith(("#", "//", "*"))
