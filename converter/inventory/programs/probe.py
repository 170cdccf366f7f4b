"""``--probe``: a program's own ``--help``, run where it can do no harm.

The program runs in the sandbox (``skill2app.runtime.run.sandbox``: no network, a read-only
file system but for an empty private folder that is its cwd, HOME and TMPDIR, no view of the
user's home, its own PID namespace so nothing it starts outlives it), with a scrubbed
environment (PATH and locale only), no stdin, at most ``PROBE_OUTPUT`` bytes of output read
and a hard ``PROBE_TIMEOUT``.  Without a sandbox it runs only when the caller said so
(``unsafe``: app-convert's ``--unsafe-no-sandbox``), still with those limits.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from skill2app.converter.inventory.programs.language import DEFAULT_INTERPRETER
from skill2app.runtime.errors import StepTimeout, SubprocessError
from skill2app.runtime.run.process import run_program
from skill2app.runtime.run.sandbox import Sandbox, scratch_folder

PROBE_TIMEOUT = 10.0
PROBE_OUTPUT = 1_000_000  # bytes of --help read at most; a flood past it is stopped
TEXT_CHARS = 20_000


def probe_help(
    skill_dir: Path, path: str, language: str, interpreter: str, *, unsafe: bool = False
) -> dict[str, Any]:
    """Run ``<program> --help`` in the sandbox and record what it printed (``unsafe``: run it
    without one, which only the user's explicit flag allows)."""
    skill = skill_dir.resolve()
    target = (skill_dir / path).resolve()
    runner = _runner(language, target)
    shown = " ".join(w for w in (interpreter, path, "--help") if w)
    failed: dict[str, Any] = {"command": shown, "exit_code": None, "text": ""}
    if runner is None:
        return {**failed, "error": "no interpreter"}
    if not target.is_relative_to(skill) or not target.is_file():
        return {**failed, "error": "not a file inside the skill"}
    with scratch_folder("app-convert-probe-") as tmp:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "LANG": "C.UTF-8",
               "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "100"}  # fmt: skip
        sandbox = None if unsafe else Sandbox(writable=(tmp,), readable=(skill,))
        try:
            done = run_program(
                [*runner, "--help"], stdin="", cwd=tmp, env=env, timeout=PROBE_TIMEOUT,
                sandbox=sandbox, max_output=PROBE_OUTPUT,
            )  # fmt: skip
        except StepTimeout:
            return {**failed, "error": "timed out"}
        except SubprocessError as exc:
            return {**failed, "error": exc.message}
    text = (done.stdout or done.stderr).replace(str(target), path)[:TEXT_CHARS]
    return {"command": shown, "exit_code": done.returncode, "text": text.strip()}


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
