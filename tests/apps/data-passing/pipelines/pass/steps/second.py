"""Reads the first step's output; its own output is not the pipeline's (output: first)."""

import json
import os
import sys

sys.dont_write_bytecode = True  # keep the fixture tree clean
sys.path.insert(0, os.environ["APP_TOOLS_DIR"])
from capture import capture  # noqa: E402

data = capture()
print("second: read the first step's output", file=sys.stderr)
print(json.dumps({"output": {"seen": sorted(data["steps"])}}))
