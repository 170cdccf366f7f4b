"""Greets with the shared tools/greeting.txt and doubles the count."""

import json
import os
import sys

sys.dont_write_bytecode = True  # keep the fixture tree clean
sys.path.insert(0, os.environ["APP_TOOLS_DIR"])
from capture import capture  # noqa: E402

data = capture()
with open(os.path.join(os.environ["APP_TOOLS_DIR"], "greeting.txt")) as fh:
    greeting = fh.read().strip()
inp = data["input"]
output = {
    "greeting": f"{greeting}, {inp['text']}",
    "double": inp["count"] * 2,
    "first_item": inp["items"][0],
    "unicode": "žluťoučký kůň",
}
print(json.dumps({"output": output}, ensure_ascii=False))
