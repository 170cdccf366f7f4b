"""The baseline: the simplest runner that keeps the code-step contract of spec 4.1.

    python loop.py PLAN.json

PLAN.json: ``{"cwd": DIR, "input": {...}, "previous_only": bool, "steps": [{"name": ...,
"argv": [...]}, ...]}``.  Each step gets ``{"input": ..., "steps": {"<name>": {"output": ...}}}``
on stdin (every previous output, like app-run; only the last one with ``previous_only``, like
app-run with ``needs``) and must print ``{"output": ...}``; the last output is printed
as JSON on stdout, and ``{"stdin_bytes": N}`` (the bytes piped into all steps) on stderr.

No checks, no lifecycle, no run record, no timeouts, no process groups: whatever app-run
costs beyond this loop is the runner's overhead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def run(plan: dict[str, Any]) -> tuple[Any, int]:
    outputs: dict[str, Any] = {}
    piped = 0
    for step in plan["steps"]:
        passed = list(outputs.items())[-1:] if plan.get("previous_only") else outputs.items()
        payload = {"input": plan["input"], "steps": {n: {"output": o} for n, o in passed}}
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        piped += len(data)
        done = subprocess.run(step["argv"], input=data, capture_output=True, cwd=plan["cwd"])
        if done.returncode != 0:
            sys.exit(f"step {step['name']} exited with {done.returncode}")
        outputs[step["name"]] = json.loads(done.stdout)["output"]
    return outputs[plan["steps"][-1]["name"]], piped


def main() -> None:
    plan = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    output, piped = run(plan)
    sys.stdout.write(json.dumps(output, ensure_ascii=False) + "\n")
    sys.stderr.write(json.dumps({"stdin_bytes": piped}) + "\n")


if __name__ == "__main__":
    main()
