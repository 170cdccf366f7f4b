"""calc_stats: numbers about the change and the review, from fetch_diff + analyze_files.

Score: 100 minus 25 per critical, 10 per major, 3 per minor finding (info costs nothing),
never below 0.  Verdict: "changes requested" with any critical or major finding, "approve with
comments" with only minor ones, else "approve".

stdout: ``{"output": {"files_changed", "lines_added", "lines_removed", "lines_changed",
"hunks", "languages", "issues", "issues_by_severity", "issues_per_file",
"issues_per_100_lines", "score", "verdict"}}``
"""

from __future__ import annotations

import json
import sys
from typing import Any

SEVERITIES = ("critical", "major", "minor", "info")
PENALTY = {"critical": 25, "major": 10, "minor": 3, "info": 0}


def verdict(by_severity: dict[str, int]) -> str:
    if by_severity["critical"] or by_severity["major"]:
        return "changes requested"
    if by_severity["minor"]:
        return "approve with comments"
    return "approve"


def stats(diff: dict[str, Any], analysis: dict[str, Any]) -> dict[str, Any]:
    findings = [f for entry in analysis["files"] for f in entry["findings"]]
    by_severity = {s: sum(1 for f in findings if f["severity"] == s) for s in SEVERITIES}
    languages: dict[str, int] = {}
    for diff_file in diff["files"]:
        languages[diff_file["language"]] = languages.get(diff_file["language"], 0) + 1
    added, removed = diff["totals"]["added"], diff["totals"]["removed"]
    changed = added + removed
    return {
        "files_changed": diff["totals"]["files"],
        "lines_added": added,
        "lines_removed": removed,
        "lines_changed": changed,
        "hunks": diff["totals"]["hunks"],
        "languages": languages,
        "issues": len(findings),
        "issues_by_severity": by_severity,
        "issues_per_file": {e["file"]: len(e["findings"]) for e in analysis["files"]},
        "issues_per_100_lines": round(100 * len(findings) / changed, 1) if changed else 0.0,
        "score": max(0, 100 - sum(PENALTY[s] * n for s, n in by_severity.items())),
        "verdict": verdict(by_severity),
    }


def main() -> None:
    steps = json.load(sys.stdin)["steps"]
    output = stats(steps["fetch_diff"]["output"], steps["analyze_files"]["output"])
    print(json.dumps({"output": output}))


if __name__ == "__main__":
    main()
