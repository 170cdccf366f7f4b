#!/usr/bin/env python3
"""Constructor step `check_environment`: runs before every business pipeline of this APP.

When it exits non-zero the business pipeline does not run, so check here what every
pipeline needs. Same contract as any code step: one JSON object on stdin, one
{"output": ...} object on stdout, diagnostics on stderr.
"""

import json
import os
import shutil
import sys
from pathlib import Path

# TODO(app-new): list what every pipeline of this APP needs.
REQUIRED_COMMANDS: list[str] = ["python3"]  # programs that must be on PATH, e.g. "git"
REQUIRED_ENV: list[str] = []  # environment variables that must be set, e.g. "GITHUB_TOKEN"
REQUIRED_FILES: list[str] = ["SKILL.md"]  # files relative to the APP folder


def main() -> int:
    json.loads(sys.stdin.read() or "{}")  # the runner's payload; not needed for these checks
    app_root = Path(os.environ.get("APP_ROOT") or Path(__file__).resolve().parents[3])
    problems = []
    for name in REQUIRED_COMMANDS:
        if shutil.which(name) is None:
            problems.append(f"command {name!r} is not on PATH")
    for name in REQUIRED_ENV:
        if not os.environ.get(name):
            problems.append(f"environment variable {name} is not set")
    for name in REQUIRED_FILES:
        if not (app_root / name).is_file():
            problems.append(f"{name} is missing from {app_root}")
    if problems:
        print("check_environment: " + "; ".join(problems), file=sys.stderr)
        return 1
    output = {"commands": REQUIRED_COMMANDS, "env": REQUIRED_ENV, "files": REQUIRED_FILES}
    json.dump({"output": output}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
