"""gen_report: the review as a Markdown report plus a structured summary.

stdout: ``{"output": {"summary": {...}, "findings": ["<one line each>"], "report": "<md>"}}``
Findings are ordered by severity, then by the diff's file order and line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SEVERITIES = ("critical", "major", "minor", "info")


def count_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "none"


def ordered(analysis: dict[str, Any], paths: list[str]) -> list[dict[str, Any]]:
    """Every finding with its file, most severe first."""
    flat = [{**f, "file": e["file"]} for e in analysis["files"] for f in e["findings"]]
    return sorted(
        flat,
        key=lambda f: (
            SEVERITIES.index(f["severity"]),
            paths.index(f["file"]) if f["file"] in paths else len(paths),
            f["line"] or 0,
        ),
    )


def where(finding: dict[str, Any]) -> str:
    return f"{finding['file']}:{finding['line']}" if finding["line"] else finding["file"]


def headline(stats: dict[str, Any]) -> str:
    return (
        f"score {stats['score']}/100 · {stats['files_changed']} files · "
        f"+{stats['lines_added']} −{stats['lines_removed']} lines · {stats['issues']} issues"
        f" ({count_text(stats['issues_by_severity'])})"
    )


def file_table(diff: dict[str, Any], analysis: dict[str, Any]) -> list[str]:
    findings = {e["file"]: e["findings"] for e in analysis["files"]}
    rows = ["| File | Status | Lines | Issues |", "|------|--------|------:|--------|"]
    for f in diff["files"]:
        counts = {
            s: sum(1 for x in findings.get(f["path"], []) if x["severity"] == s) for s in SEVERITIES
        }
        rows.append(
            f"| `{f['path']}` | {f['status']} | +{f['added']} −{f['removed']} "
            f"| {count_text(counts)} |"
        )
    return rows


def findings_section(diff: dict[str, Any], findings: list[dict[str, Any]]) -> list[str]:
    lines = ["## Findings"]
    for f in diff["files"]:
        lines += ["", f"### `{f['path']}`", ""]
        mine = [x for x in findings if x["file"] == f["path"]]
        if not mine:
            lines.append("No issues found.")
        for x in mine:
            at = f"line {x['line']}" if x["line"] else "whole file"
            lines.append(f"- **{x['severity']}** · {at} — {x['message'].strip()}")
            lines.append(f"  - *Fix:* {x['suggestion'].strip()}")
    return lines


def report(source: str, diff: dict, analysis: dict, stats: dict, findings: list) -> str:
    lines = [
        f"# Code review: {source}",
        "",
        f"**{stats['verdict'].capitalize()}** — {headline(stats)}",
        "",
        analysis["summary"].strip(),
        "",
        *file_table(diff, analysis),
        "",
        *findings_section(diff, findings),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    payload = json.load(sys.stdin)
    steps = payload["steps"]
    diff = steps["fetch_diff"]["output"]
    analysis = steps["analyze_files"]["output"]
    stats = steps["calc_stats"]["output"]
    findings = ordered(analysis, [f["path"] for f in diff["files"]])
    output = {
        "summary": {
            "verdict": stats["verdict"],
            "score": stats["score"],
            "files_changed": stats["files_changed"],
            "lines_added": stats["lines_added"],
            "lines_removed": stats["lines_removed"],
            "issues": stats["issues_by_severity"],
            "overview": analysis["summary"].strip(),
        },
        "findings": [f"{x['severity']:<8} {where(x)} — {x['message'].strip()}" for x in findings],
        "report": report(diff["source"], diff, analysis, stats, findings),
    }
    print(json.dumps({"output": output}, ensure_ascii=False))


if __name__ == "__main__":
    main()
