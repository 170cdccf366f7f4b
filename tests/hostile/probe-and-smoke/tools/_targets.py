"""Where the attacks aim: targets.json beside SKILL.md (written by the test)."""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "targets.json")) as fh:
    TARGETS = json.load(fh)
