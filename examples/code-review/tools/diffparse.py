#!/usr/bin/env python3
"""Parse a unified diff (``git diff`` or ``diff -u``) into changed files and hunks.

Shared by both modes of the APP:

* the pipelines import it (``_constructor/check_diff`` and ``code-review/fetch_diff``);
* in Skill mode a host agent runs it: ``python3 tools/diffparse.py FILE`` prints the same JSON.

Line numbers of a hunk's ``new_start``/``new_lines`` refer to the new version of the file; each
file's ``new_ranges`` lists the (first, last) new lines its hunks cover, the only lines a
review finding may cite.  A diff cut short, or with a line no hunk can hold, raises DiffError.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
GIT_HEADER = re.compile(r"^diff --git (\"?a/.+?\"?) (\"?b/.+\"?)$")
LANGUAGES = {
    ".py": "Python",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".rb": "Ruby",
    ".sh": "Shell",
    ".c": "C",
    ".h": "C",
    ".cpp": "C++",
    ".md": "Markdown",
    ".json": "JSON",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".toml": "TOML",
    ".html": "HTML",
    ".css": "CSS",
    ".sql": "SQL",
}


class DiffError(ValueError):
    """The text is not a unified diff this parser can trust."""


def language_of(path: str) -> str:
    return LANGUAGES.get(Path(path).suffix.lower(), "other")


def unquote(path: str) -> str:
    """Git quotes unusual paths C-style ("a/caf\\303\\251.py"); undo that."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "replace")


def strip_side(path: str) -> str | None:
    """``a/x`` / ``b/x`` -> ``x``; ``/dev/null`` -> None; a ``diff -u`` timestamp is dropped."""
    path = unquote(path.split("\t", 1)[0].strip())
    if path == "/dev/null":
        return None
    return path[2:] if path[:2] in ("a/", "b/") else path


class _Parser:
    def __init__(self) -> None:
        self.files: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None
        self.old_left = 0  # lines the current hunk still owes, old side and new side
        self.new_left = 0
        self.done = False  # the patch ended (a mail signature); the rest is not diff

    def new_file(self, old: str | None, new: str | None) -> dict[str, Any]:
        self.current = {
            "old": old,
            "new": new,
            "flags": set(),
            "hunks": [],
            "added": 0,
            "removed": 0,
        }
        self.files.append(self.current)
        return self.current

    def feed(self, number: int, line: str) -> None:
        if self.done:
            return
        if self.old_left > 0 or self.new_left > 0:
            self.hunk_line(number, line)
        elif line.startswith("diff --git "):
            match = GIT_HEADER.match(line)
            old, new = (match.group(1), match.group(2)) if match else (None, None)
            self.new_file(strip_side(old) if old else None, strip_side(new) if new else None)
            self.current["flags"].add("git")
        elif line.startswith("--- "):
            # A git file header already opened the file; plain `diff -u` starts one here.
            if self.current is None or self.current["hunks"] or "minus" in self.current["flags"]:
                self.new_file(None, None)
            assert self.current is not None
            self.current["old"] = strip_side(line[4:])
            self.current["flags"].add("minus")
        elif line.startswith("+++ ") and self.current is not None:
            self.current["new"] = strip_side(line[4:])
            if self.current["old"] is None:
                self.current["flags"].add("added")
            if self.current["new"] is None:
                self.current["flags"].add("deleted")
        elif line.startswith("@@"):
            self.hunk_header(number, line)
        elif self.current is not None and self.current["hunks"] and line[:1] in ("+", "-", " "):
            if line == "-- ":  # the signature that ends a `git format-patch` mail
                self.done = True
                return
            raise DiffError(
                f"line {number}: {line[:60]!r} comes after its hunk ended: "
                "a hunk header's line count is wrong (was the diff edited by hand?)"
            )
        elif self.current is not None:
            self.file_header(line)
        # Anything before the first file (a commit message, an email header) is ignored.

    def file_header(self, line: str) -> None:
        assert self.current is not None
        flags = self.current["flags"]
        if line.startswith("new file mode"):
            flags.add("added")
        elif line.startswith("deleted file mode"):
            flags.add("deleted")
        elif line.startswith("rename from "):
            self.current["old"] = unquote(line[len("rename from ") :])
        elif line.startswith("rename to "):
            self.current["new"] = unquote(line[len("rename to ") :])
        elif line.startswith("Binary files") or line.startswith("GIT binary patch"):
            flags.add("binary")

    def hunk_header(self, number: int, line: str) -> None:
        match = HUNK.match(line)
        if match is None:
            raise DiffError(f"line {number}: malformed hunk header {line[:60]!r}")
        if self.current is None:
            raise DiffError(f"line {number}: hunk before any file header")
        old_start, old_lines, new_start, new_lines = (
            int(g) if g is not None else 1 for g in match.groups()[:4]
        )
        self.current["hunks"].append(
            {
                "old_start": old_start,
                "old_lines": old_lines,
                "new_start": new_start,
                "new_lines": new_lines,
                "section": match.group(5).strip(),
            }
        )
        self.old_left, self.new_left = old_lines, new_lines

    def hunk_line(self, number: int, line: str) -> None:
        assert self.current is not None
        tag = line[:1]
        if tag == "+" and self.new_left > 0:
            self.current["added"] += 1
            self.new_left -= 1
        elif tag == "-" and self.old_left > 0:
            self.current["removed"] += 1
            self.old_left -= 1
        elif tag in (" ", "") and self.old_left > 0 and self.new_left > 0:
            self.old_left -= 1  # context; some editors strip the lone space of an empty line
            self.new_left -= 1
        elif tag != "\\":  # "\ No newline at end of file" belongs to the line before it
            raise DiffError(
                f"line {number}: {line[:60]!r} does not fit the hunk "
                f"({self.old_left} old / {self.new_left} new lines still expected)"
            )

    def result(self) -> list[dict[str, Any]]:
        if self.old_left > 0 or self.new_left > 0:
            raise DiffError(
                f"the diff ends inside a hunk ({self.old_left} old / {self.new_left} new lines "
                "missing): it was cut short"
            )
        return [_summary(f) for f in self.files if f["old"] or f["new"]]


def _status(flags: set[str], old: str | None, new: str | None, hunks: list[dict]) -> str:
    if "git" in flags:  # git says so in its extended headers
        if "added" in flags or "deleted" in flags:
            return "added" if "added" in flags else "deleted"
        return "renamed" if old and new and old != new else "modified"
    # Plain `diff -u`: /dev/null, or with `diff -N` an empty range, marks the missing side;
    # `diff -ru old/ new/` names every file twice, which is not a rename.
    if "added" in flags or (hunks and all(h["old_start"] == h["old_lines"] == 0 for h in hunks)):
        return "added"
    if "deleted" in flags or (hunks and all(h["new_start"] == h["new_lines"] == 0 for h in hunks)):
        return "deleted"
    return "modified"


def _summary(raw: dict[str, Any]) -> dict[str, Any]:
    flags = raw["flags"]
    old, new = raw["old"], raw["new"]
    status = _status(flags, old, new, raw["hunks"])
    path = old if status == "deleted" else new or old
    summary: dict[str, Any] = {
        "path": path,
        "status": status,
        "language": language_of(path),
        "added": raw["added"],
        "removed": raw["removed"],
        "hunks": raw["hunks"],
        "new_ranges": [
            [h["new_start"], h["new_start"] + h["new_lines"] - 1]
            for h in raw["hunks"]
            if h["new_lines"] > 0
        ],
    }
    if status == "renamed":
        summary["old_path"] = old
    if "binary" in flags:
        summary["binary"] = True
    return summary


def parse_diff(text: str) -> list[dict[str, Any]]:
    """Every changed file of ``text``, in diff order; DiffError if it is not a usable diff."""
    parser = _Parser()
    # Not splitlines(): a form feed or U+2028 inside a source line must not split it.
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        parser.feed(number, line[:-1] if line.endswith("\r") else line)
    files = parser.result()
    if not files:
        raise DiffError("no changed files found: is this a unified diff (git diff, diff -u)?")
    return files


def totals(files: list[dict[str, Any]]) -> dict[str, int]:
    return {
        "files": len(files),
        "added": sum(f["added"] for f in files),
        "removed": sum(f["removed"] for f in files),
        "hunks": sum(len(f["hunks"]) for f in files),
    }


def describe_ranges(ranges: list[list[int]]) -> str:
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges) or "none"


def outline(files: list[dict[str, Any]]) -> str:
    """One line per file: path, status, language, +/- counts and the new lines it covers."""
    return "\n".join(
        f"{f['path']} ({f['status']}, {f['language']}, +{f['added']} -{f['removed']}): "
        f"new lines {describe_ranges(f['new_ranges'])}"
        for f in files
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(
            "usage: python3 diffparse.py FILE.diff   (prints the changed files as JSON)",
            file=sys.stderr,
        )
        return 2
    try:
        files = parse_diff(Path(argv[1]).read_text(encoding="utf-8", errors="replace"))
    except (OSError, DiffError) as exc:
        print(f"diffparse: {argv[1]}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"files": files, "totals": totals(files)}, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
