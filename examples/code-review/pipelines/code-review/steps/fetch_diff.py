"""fetch_diff: read the diff the constructor staged in the work dir and parse it.

stdin:  ``{"input": {"diff_file": ...}, "steps": {}}``
stdout: ``{"output": {"source", "files", "totals", "outline", "diff"}}``

Each of ``files``: ``path``, ``status`` (added | modified | deleted | renamed), ``language``,
``added``/``removed`` line counts, ``hunks`` and ``new_ranges`` — see tools/diffparse.py.
``outline`` is the same as one line per file, for the prompt; ``diff`` is the diff's text.
"""

from __future__ import annotations

import json
import os
import sys

sys.dont_write_bytecode = True  # importing from tools/ must not leave __pycache__ in the APP
sys.path.insert(0, os.environ["APP_TOOLS_DIR"])
from diffparse import DiffError, outline, parse_diff, totals  # noqa: E402
from workdir import work_dir  # noqa: E402


def shown(path: str) -> str:
    """The diff's path as the caller would write it: relative to where app-run was started
    (app-run made it absolute there), when it lies below that folder."""
    caller = os.environ.get("APP_CALLER_CWD", "")
    if caller and os.path.isabs(path) and path.startswith(caller.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, caller)
    return path


def main() -> int:
    payload = json.load(sys.stdin)
    staged = work_dir() / "input.diff"
    if not staged.is_file():
        print(f"{staged} is missing: the _constructor stages the diff there", file=sys.stderr)
        return 1
    text = staged.read_text(encoding="utf-8", errors="replace")
    try:
        files = parse_diff(text)
    except DiffError as exc:
        print(f"{payload['input']['diff_file']}: {exc}", file=sys.stderr)
        return 1
    output = {
        "source": shown(payload["input"]["diff_file"]),
        "files": files,
        "totals": totals(files),
        "outline": outline(files),
        "diff": text,
    }
    print(json.dumps({"output": output}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
