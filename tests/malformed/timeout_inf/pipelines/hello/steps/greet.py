import json

print(json.dumps({"output": 1}))
