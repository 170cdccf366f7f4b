"""Every error app-convert raises on purpose.  Imports nothing else from the package.

Exceptions never print; the CLI turns them into one line
``Error: <what> (<file>:<line>) — <how to fix>`` on stderr and exits with ``exit_code``::

    ConvertError                  root; .where (file, line), .hint, .exit_code
    ├── UsageError          2     bad command line (unknown analyzer, conflicting options)
    ├── SkillError          3     the folder is not a readable skill (no SKILL.md, not UTF-8,
    │   │                         oversized file)
    │   └── FrontmatterError 3    SKILL.md frontmatter missing, unterminated, broken YAML,
    │                             not a mapping, required field missing or of the wrong type
    ├── PlanError           3     a conversion plan that cannot be read, or fails its schema or
    │                             `check_plan` (carries every message in .errors)
    ├── AnalyzerError       1     an analyzer could not produce a plan
    ├── RenderError         1     rendering the plan into APP files failed
    └── SubprocessError     1     a program app-convert ran (probe, verification) failed:
                                  command, exit code, signal name, stderr tail
"""

from __future__ import annotations

import signal as _signal
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Where:
    """A position in a file; ``line`` is 1-based, 0 when unknown."""

    file: Path | str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else str(self.file)


class ConvertError(Exception):
    """Root of every error app-convert raises on purpose."""

    exit_code = 1

    def __init__(self, message: str, *, where: Where | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.hint = hint

    def one_line(self) -> str:
        text = self.message
        if self.where:
            text += f" ({self.where})"
        if self.hint:
            text += f" — {self.hint}"
        return text

    def __str__(self) -> str:
        return self.one_line()


class UsageError(ConvertError):
    exit_code = 2


class SkillError(ConvertError):
    exit_code = 3


class FrontmatterError(SkillError):
    pass


class PlanError(ConvertError):
    exit_code = 3

    def __init__(
        self,
        message: str,
        *,
        errors: list[str] | None = None,
        where: Where | None = None,
        hint: str = "",
    ) -> None:
        super().__init__(message, where=where, hint=hint)
        self.errors = list(errors or [])


class AnalyzerError(ConvertError):
    exit_code = 1


class RenderError(ConvertError):
    exit_code = 1


class SubprocessError(ConvertError):
    """A program app-convert ran failed; carries everything needed to see why."""

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        command: str = "",
        returncode: int | None = None,
        stderr_tail: str = "",
        where: Where | None = None,
        hint: str = "",
    ) -> None:
        super().__init__(message, where=where, hint=hint)
        self.command = command
        self.returncode = returncode
        self.stderr_tail = stderr_tail

    @property
    def signal_name(self) -> str:
        if self.returncode is not None and self.returncode < 0:
            try:
                return _signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return ""
