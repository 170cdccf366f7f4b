"""Content check: the score is out of 10 and the summary names the first file."""

import json
import os
import sys

data = json.load(sys.stdin)
markers = os.environ.get("APP_TEST_MARKERS")
if markers:
    with open(os.path.join(markers, "validate.jsonl"), "a") as fh:
        fh.write(json.dumps(data) + "\n")
answer = data["output"]
errors = []
if answer["score"] > 10:
    errors.append(f"score {answer['score']} is above 10")
first = data["steps"]["collect"]["output"]["files"][0]
if first not in answer["summary"]:
    errors.append(f"the summary does not mention {first}")
print(json.dumps({"valid": not errors, "errors": errors}))
sys.exit(1 if errors else 0)
