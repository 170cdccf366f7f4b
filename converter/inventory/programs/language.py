"""Which language a skill's program is written in, and what runs it: by extension, by its
``#!`` line, and each language's default interpreter."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

LANG_BY_EXT = {
    ".py": "python", ".sh": "bash", ".bash": "bash", ".zsh": "zsh", ".js": "node",
    ".mjs": "node", ".cjs": "node", ".ts": "typescript", ".rb": "ruby", ".pl": "perl",
    ".php": "php", ".r": "r", ".ps1": "powershell",
}  # fmt: skip

DEFAULT_INTERPRETER = {
    "python": "python3", "bash": "bash", "sh": "sh", "zsh": "zsh", "node": "node",
    "typescript": "npx tsx", "ruby": "ruby", "perl": "perl", "php": "php", "r": "Rscript",
    "powershell": "pwsh",
}  # fmt: skip

_SHEBANG_LANG = {
    "python": "python", "python3": "python", "uv": "python", "bash": "bash", "sh": "sh",
    "zsh": "zsh", "node": "node", "bun": "node", "deno": "node", "ruby": "ruby",
    "perl": "perl", "php": "php", "Rscript": "r", "pwsh": "powershell",
}  # fmt: skip


WINDOWS_ONLY = frozenset({"powershell"})  # a twin for Windows of a POSIX program


def windows_twins(paths: list[str], languages: dict[str, str]) -> dict[str, str]:
    """Each Windows-only program (``scripts/extract.ps1``) that has a POSIX twin beside it
    (``scripts/extract.sh``, ``.py``): twin path → the POSIX one.  The skill's documents run
    one or the other by platform, so the twin needs its interpreter on Windows only."""
    stems: dict[str, str] = {}
    for path in paths:
        if languages.get(path) not in WINDOWS_ONLY:
            stems.setdefault(posixpath.splitext(path)[0], path)
    return {
        path: stems[posixpath.splitext(path)[0]]
        for path in paths
        if languages.get(path) in WINDOWS_ONLY and posixpath.splitext(path)[0] in stems
    }


def language_of(path: Path, head: str) -> str:
    """Language by extension, else by shebang; "" when neither says."""
    lang = LANG_BY_EXT.get(path.suffix.lower(), "")
    if lang:
        return lang
    runs = shebang_program(head)
    if runs:
        base = re.sub(r"\d+(\.\d+)*$", "", runs)
        return _SHEBANG_LANG.get(base, _SHEBANG_LANG.get(runs, ""))
    return ""


def shebang_program(head: str) -> str:
    """The program a ``#!`` line runs (``#!/usr/bin/env -S node --x`` → ``node``); ""."""
    if not head.startswith("#!"):
        return ""
    words = [w for w in head[2:].split("\n", 1)[0].split() if not w.startswith("-")]
    if words and posixpath.basename(words[0]) == "env":
        words = words[1:]
    return posixpath.basename(words[0]) if words else ""


def shebang_command(head: str) -> str:
    """The command a ``#!`` line runs the file with, its program by name
    (``#!/usr/bin/env -S deno run --allow-read`` → ``deno run --allow-read``); ""."""
    if not head.startswith("#!"):
        return ""
    words = head[2:].split("\n", 1)[0].split()
    if words and posixpath.basename(words[0]) == "env":
        words = words[1:]
        while words and (words[0].startswith("-") or "=" in words[0]):  # -S, VAR=value
            words = words[1:]
    return " ".join([posixpath.basename(words[0]), *words[1:]]) if words else ""
