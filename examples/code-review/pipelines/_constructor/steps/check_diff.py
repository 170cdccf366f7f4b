"""Constructor step 2: the diff to review exists, is readable and is a unified diff.

app-run hands over an ``--input diff_file`` made absolute from where it was started; one that
is still relative (``samples/input.json``, read by ``app-run test``) is resolved against the
APP folder (``APP_ROOT``).

stdin: ``{"input": {"diff_file": ...}, "steps": {...}}``
stdout: ``{"output": {"diff_file": "<absolute path>", "files": N, "bytes": N}}``
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NoReturn

sys.dont_write_bytecode = True  # importing from tools/ must not leave __pycache__ in the APP
sys.path.insert(0, os.environ["APP_TOOLS_DIR"])
from diffparse import DiffError, parse_diff  # noqa: E402


def fail(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    sys.exit(1)


def main() -> None:
    payload = json.load(sys.stdin)
    raw = payload["input"].get("diff_file")
    if not isinstance(raw, str) or not raw.strip():
        fail("input diff_file is missing: pass --input diff_file=PATH")
    root = Path(os.environ["APP_ROOT"])
    path = root / Path(raw).expanduser()  # an absolute diff_file stays as it is
    if not path.is_file():
        fail(
            f"diff_file {raw!r} not found: looked for {path} "
            f"(a relative path that reaches the step is resolved against the APP folder {root})"
        )
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        fail(f"diff_file {path} is not readable: {exc.strerror}")
    try:
        files = parse_diff(text)
    except DiffError as exc:
        fail(f"diff_file {path} is not a usable unified diff: {exc}")
    output = {"diff_file": str(path), "files": len(files), "bytes": len(text.encode("utf-8"))}
    print(json.dumps({"output": output}))


if __name__ == "__main__":
    main()
