"""Content validation of analyze_files (spec 4.3): is the analysis true to the diff?

The JSON Schema has already checked the shape.  This checks what a schema cannot:

* every analysed file is in the diff, none twice, and every changed file is analysed;
* a finding's line lies inside one of its file's hunks (new-version numbering), or is null;
* no empty message, suggestion or summary.

stdin:  ``{"output": <the answer>, "input": {...}, "steps": {"fetch_diff": {"output": ...}}}``
stdout: ``{"valid": true|false, "errors": [...]}`` — exit 1 when invalid; the errors go back to
the model in the retry prompt, so each one names the file and says how to fix it.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.dont_write_bytecode = True  # importing from tools/ must not leave __pycache__ in the APP
sys.path.insert(0, os.environ["APP_TOOLS_DIR"])
from diffparse import describe_ranges  # noqa: E402


def check_files(answer: dict[str, Any], diff_files: list[dict[str, Any]]) -> list[str]:
    errors: list[str] = []
    changed = [f["path"] for f in diff_files]
    analysed = [entry["file"] for entry in answer["files"]]
    for path in dict.fromkeys(analysed):
        if path not in changed:
            errors.append(f"{path!r} is not in the diff (changed files: {', '.join(changed)})")
        elif analysed.count(path) > 1:
            errors.append(f"{path} is analysed {analysed.count(path)} times; give it one entry")
    missing = [p for p in changed if p not in analysed]
    if len(analysed) != len(changed) or missing:
        text = f"analysed {len(analysed)} files but the diff changes {len(changed)}"
        errors.append(text + (f": missing {', '.join(missing)}" if missing else ""))
    return errors


def check_findings(answer: dict[str, Any], diff_files: list[dict[str, Any]]) -> list[str]:
    errors: list[str] = []
    by_path = {f["path"]: f for f in diff_files}
    for entry in answer["files"]:
        diff_file = by_path.get(entry["file"])
        for number, finding in enumerate(entry["findings"], start=1):
            where = f"{entry['file']} finding {number}"
            for key in ("message", "suggestion"):
                if not finding[key].strip():
                    errors.append(f"{where}: empty {key}")
            line = finding["line"]
            if line is None or diff_file is None:
                continue
            spans = diff_file["new_ranges"]
            if not any(first <= line <= last for first, last in spans):
                errors.append(
                    f"{where}: line {line} is outside the changed hunks "
                    f"(lines {describe_ranges(spans)}); cite a line inside them or use null"
                )
    return errors


def validate(payload: dict[str, Any]) -> list[str]:
    answer = payload["output"]
    diff_files = payload["steps"]["fetch_diff"]["output"]["files"]
    errors = check_files(answer, diff_files) + check_findings(answer, diff_files)
    if not answer["summary"].strip():
        errors.append("empty summary")
    return errors


def main() -> int:
    errors = validate(json.load(sys.stdin))
    print(json.dumps({"valid": not errors, "errors": errors}, ensure_ascii=False))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
