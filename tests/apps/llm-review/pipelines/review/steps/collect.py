import json
import sys

data = json.load(sys.stdin)
print(json.dumps({"output": {"files": ["cache.py", "db.py"], "topic": data["input"]["topic"]}}))
