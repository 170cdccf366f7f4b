#!/usr/bin/env python3
"""Content check of llm step `judge` of pipeline `code-review` (APP v0.4 §4.3).

The runner runs this after the answer matched schemas/judge.json. stdin:
    {"output": <the answer>, "input": {...}, "steps": {"<step>": {"output": ...}, ...}}
stdout: {"valid": true}, or {"valid": false, "errors": [...]} with a non-zero exit code;
the runner adds the errors to the prompt and asks again (up to `retry` times).
"""

import json
import sys


def problems(output: dict, inputs: dict, steps: dict) -> list[str]:
    """What is wrong with the answer, in words the model can act on ([] when it is fine)."""
    # TODO(app-new): check what the schema cannot, e.g. that the answer mentions every
    # file in steps["fetch"]["output"] or that numbers add up to the pipeline input.
    errors = []
    if not str(output.get("summary", "")).strip():
        errors.append("`summary` is empty: say what you found")
    return errors


def main() -> int:
    payload = json.load(sys.stdin)
    errors = problems(
        payload.get("output") or {}, payload.get("input") or {}, payload.get("steps") or {}
    )
    if errors:
        json.dump({"valid": False, "errors": errors}, sys.stdout, ensure_ascii=False)
    else:
        json.dump({"valid": True}, sys.stdout)
    sys.stdout.write("\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
