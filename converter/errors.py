"""Every error app-convert raises on purpose.  Imports nothing else from the package (the
shared ``ToolError`` root and ``Where`` come from ``runtime.errors``).

Exceptions never print; the CLI turns them into one line
``Error: <what> (<file>:<line>) — <how to fix>`` on stderr and exits with ``exit_code``::

    ConvertError                  root; .where (file, line), .hint, .exit_code
    ├── UsageError          2     bad command line (unknown analyzer, conflicting options),
    │   │                         an unknown, ended or busy conversion session
    │   └── EmptyAnswer     2     an analyst's answer with nothing in it (no attempt used)
    ├── SkillError          3     the folder is not a readable skill (no SKILL.md, not UTF-8,
    │   │                         oversized file)
    │   └── FrontmatterError 3    SKILL.md frontmatter missing, unterminated, broken YAML,
    │                             not a mapping, required field missing or of the wrong type
    ├── PlanError           3     a conversion plan that cannot be read, or fails its schema or
    │                             `check_plan` (carries every message in .errors)
    ├── AnalyzerError       1     an analyzer could not produce a plan
    ├── RenderError         1     rendering the plan into APP files failed
    ├── WriteError          1     the APP or the plan file could not be written (a file where
    │                             a folder should be, a folder given as -o, permissions)
    └── ExistsError         4     the output folder already holds files (use --force)
"""

from __future__ import annotations

from skill2app.runtime.errors import ToolError
from skill2app.runtime.errors import (
    Where as Where,  # re-exported: converter modules import it from here
)


class ConvertError(ToolError):
    """Root of every error app-convert raises on purpose."""

    exit_code = 1

    def __str__(self) -> str:
        return self.one_line()


class UsageError(ConvertError):
    exit_code = 2


class EmptyAnswer(UsageError):
    """An answer with nothing in it: refused without using up an attempt."""


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


class WriteError(ConvertError):
    exit_code = 1


class ExistsError(ConvertError):
    """Writing would replace existing output; ``--force`` allows it."""

    exit_code = 4
