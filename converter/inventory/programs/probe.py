"""``--probe``: a program's own ``--help``, run where it can do no harm.

The program runs in an empty temporary folder, in its own process group (killed whole on
timeout), with a scrubbed environment (PATH only; HOME is the temporary folder) and no stdin.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from skill2app.converter.inventory.programs.language import DEFAULT_INTERPRETER

PROBE_TIMEOUT = 10.0


def probe_help(skill_dir: Path, path: str, language: str, interpreter: str) -> dict[str, Any]:
    """Run ``<program> --help`` in an empty temporary folder and record what it printed.

    The program gets its own process group, killed whole on timeout, a scrubbed environment
    (PATH only; HOME is the temporary folder) and no stdin.
    """
    target = (skill_dir / path).resolve()
    runner = _runner(language, target)
    shown = " ".join(w for w in (interpreter, path, "--help") if w)
    failed: dict[str, Any] = {"command": shown, "exit_code": None, "text": ""}
    if runner is None:
        return {**failed, "error": "no interpreter"}
    with tempfile.TemporaryDirectory(prefix="app-convert-probe-") as tmp:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, "LANG": "C.UTF-8",
               "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "100"}  # fmt: skip
        try:
            proc = subprocess.Popen(
                [*runner, "--help"], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                errors="replace", start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            return {**failed, "error": exc.strerror}
        try:
            stdout, stderr = proc.communicate(timeout=PROBE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {**failed, "error": "timed out"}
    text = (stdout or stderr).replace(str(target), path)[:20_000]
    return {"command": shown, "exit_code": proc.returncode, "text": text.strip()}


def _runner(language: str, target: Path) -> list[str] | None:
    """The command running ``target``: Python with this interpreter, another language with
    its default interpreter when that is one program on PATH (``npx tsx`` may fetch a
    package: never), else the file itself when it is executable; None when nothing can."""
    if language == "python":
        return [sys.executable, str(target)]
    words = DEFAULT_INTERPRETER.get(language, "").split()
    if len(words) != 1:
        return [str(target)] if os.access(target, os.X_OK) else None
    found = shutil.which(words[0])
    return [found, str(target)] if found else None
