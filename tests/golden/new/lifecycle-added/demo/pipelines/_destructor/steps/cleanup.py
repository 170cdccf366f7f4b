#!/usr/bin/env python3
"""Destructor step `cleanup`: runs after every business pipeline of this APP, even a failed one.

It deletes the scratch paths listed below (relative to the APP folder) and never anything
outside the APP folder. Same contract as any code step: one JSON object on stdin, one
{"output": ...} object on stdout, diagnostics on stderr.
"""

import json
import os
import shutil
import sys
from pathlib import Path

# TODO(app-new): list the scratch files and folders your pipelines create.
SCRATCH: list[str] = [".app-tmp"]


def main() -> int:
    json.loads(sys.stdin.read() or "{}")  # the runner's payload; not needed to clean up
    app_root = Path(os.environ.get("APP_ROOT") or Path(__file__).resolve().parents[3]).resolve()
    removed = []
    for name in SCRATCH:
        path = (app_root / name).resolve()
        if path == app_root or not path.is_relative_to(app_root):
            print(f"cleanup: {name!r} is not inside the APP folder", file=sys.stderr)
            return 1
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        else:
            continue
        removed.append(name)
    json.dump({"output": {"removed": removed}}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
