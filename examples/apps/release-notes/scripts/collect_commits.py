#!/usr/bin/env python3
"""Collect the commits between two revisions of a git repository.

Runs `git log` (read-only) and prints one record per commit: hash, subject, author and the
conventional-commit kind (feat, fix, docs, chore, ... or "other").
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

KIND = re.compile(r"^(?P<kind>[a-z]+)(\([^)]*\))?!?:\s*")
SEPARATOR = "\x1f"


def commits(repo: str, since: str, until: str) -> list[dict[str, str]]:
    fmt = SEPARATOR.join(["%H", "%s", "%an", "%P"])
    done = subprocess.run(
        ["git", "-C", repo, "log", "--no-color", f"--pretty=format:{fmt}", f"{since}..{until}"],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"error: git log failed: {done.stderr.strip()}")
    records = []
    for line in done.stdout.splitlines():
        sha, subject, author, parents = line.split(SEPARATOR)
        match = KIND.match(subject)
        records.append({
            "hash": sha[:12],
            "subject": subject,
            "author": author,
            "kind": match.group("kind") if match else "other",
            "merge": len(parents.split()) > 1,
        })
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", default=".", help="path of the git repository")
    parser.add_argument("--since", required=True, help="previous tag or revision (excluded)")
    parser.add_argument("--until", default="HEAD", help="last revision (included)")
    parser.add_argument("--format", choices=["json", "text"], default="json")
    args = parser.parse_args(argv)
    records = commits(args.repo, args.since, args.until)
    if args.format == "json":
        json.dump({"commits": records}, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        for record in records:
            print(f"{record['hash']} {record['kind']:<6} {record['subject']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
