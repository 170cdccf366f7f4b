import json

print(json.dumps({"output": None}))
