"""Shared by the steps (found through APP_TOOLS_DIR): read stdin, note what the step saw."""

import json
import os
import sys


def capture() -> dict:
    """The step's stdin JSON; also noted in $APP_TEST_MARKERS/<pipeline>.<step>.json if set."""
    raw = sys.stdin.read()
    markers = os.environ.get("APP_TEST_MARKERS")
    if markers:
        seen = {
            "stdin": raw,
            "env": {k: v for k, v in os.environ.items() if k.startswith("APP_")},
            "cwd": os.getcwd(),
        }
        name = f"{os.environ['APP_PIPELINE']}.{os.environ['APP_STEP']}.json"
        with open(os.path.join(markers, name), "w") as fh:
            json.dump(seen, fh)
    return json.loads(raw)
