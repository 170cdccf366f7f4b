"""Every error app-run raises on purpose.  Imports nothing else from the package.

Exceptions never print; ``cli`` turns them into one line
``Error: <what> (<file>:<line>) — <how to fix>`` and exits with ``exit_code``::

    ToolError                        shared root of app-run, app-new and app-convert errors
    AppRunError                      app-run's root; .where (file, line) and .hint
    ├── UsageError            2      bad command line, unknown pipeline, unknown run
    │   └── InputError        2      inputs that do not match the pipeline's `input`
    ├── ConfigError           2      an app-run.yaml that cannot be used; APP_RUN_HOME not writable
    ├── LoadError             3      not an APP, unreadable/oversized/bomb YAML
    ├── CheckFailed           3      `check` found errors (carries the diagnostics)
    ├── StepError             1      a step failed
    │   ├── SubprocessError   1      a program exited non-zero / was killed (exit code, signal,
    │   │   └── StepTimeout   1      command, stderr tail); a step ran past its timeout
    │   ├── OutputError       1      a program's stdout is not the `{"output": ...}` contract
    │   ├── TemplateError     1      a prompt refers to something that is not there
    │   └── AttemptsExhausted 1      an llm step failed validation on every attempt
    ├── ProviderError         1      the LLM provider failed or is not configured
    │   └── ProviderNotConfigured
    └── Interrupted         130/143  app-run itself got SIGINT / SIGTERM

    SignalReceived (a BaseException)   what the signal handler raises mid-run; becomes Interrupted
"""

from __future__ import annotations

import signal as _signal
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Where:
    """A position in a file; ``line`` is 1-based, 0 when unknown."""

    file: Path | str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else str(self.file)


class ToolError(Exception):
    """Root of the errors of all three commands (app-run, app-new, app-convert): a message,
    where it happened and how to fix it, shown as one line; ``exit_code`` per class."""

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


class AppRunError(ToolError):
    exit_code = 1
    step = ""  # the step it happened in, when it happened in one (the runner fills it in)


class UsageError(AppRunError):
    exit_code = 2


class InputError(UsageError):
    pass


class ConfigError(AppRunError):
    exit_code = 2


class LoadError(AppRunError):
    exit_code = 3


class CheckFailed(AppRunError):
    exit_code = 3

    def __init__(self, message: str, diagnostics: list | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


class StepError(AppRunError):
    exit_code = 1

    def __init__(self, message: str, *, step: str = "", **kw) -> None:
        super().__init__(message, **kw)
        self.step = step


class SubprocessError(StepError):
    """A program run by app-run failed; carries everything needed to see why."""

    def __init__(
        self,
        message: str,
        *,
        step: str = "",
        command: str = "",
        returncode: int | None = None,
        stderr_tail: str = "",
        **kw,
    ) -> None:
        super().__init__(message, step=step, **kw)
        self.command = command
        self.returncode = returncode
        self.stderr_tail = stderr_tail

    @property
    def last_words(self) -> str:
        """The last line the program itself wrote on stderr ("" if none): its own reason."""
        return last_words(self.stderr_tail)

    @property
    def signal_name(self) -> str:
        if self.returncode is not None and self.returncode < 0:
            try:
                return _signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return ""


class StepTimeout(SubprocessError):
    pass


class OutputError(StepError):
    pass


class TemplateError(StepError):
    pass


@dataclass
class Attempt:
    """One try of an llm step: what came back and why it was rejected."""

    number: int
    errors: list[str] = field(default_factory=list)
    raw: str = ""


class AttemptsExhausted(StepError):
    def __init__(self, message: str, *, step: str, attempts: list[Attempt], **kw) -> None:
        super().__init__(message, step=step, **kw)
        self.attempts = attempts


class ProviderError(AppRunError):
    exit_code = 1


class ProviderNotConfigured(ProviderError):
    """No provider where one is required: a setup error; nothing ran (inside a step, the
    run's own status decides the exit code)."""

    exit_code = 2


class Interrupted(AppRunError):
    """app-run received SIGINT or SIGTERM; exit code is 128 + signal number."""

    def __init__(self, signum: int) -> None:
        name = _signal.Signals(signum).name
        super().__init__(f"interrupted by {name}")
        self.signum = signum
        self.exit_code = 128 + signum


class SignalReceived(BaseException):
    """What app-run's signal handler raises during a run.  A BaseException, like
    KeyboardInterrupt, so that no library's ``except Exception`` swallows it (the Anthropic SDK
    would take it for a broken connection and retry the call); the runner turns it into
    ``Interrupted`` where the step or phase ends."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def last_words(stderr: str) -> str:
    """The last non-blank line of ``stderr``, passing over a trailing summary line that a
    generated step adapter adds ("... failed with exit status N") when the program wrote more."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if len(lines) > 1 and "failed with exit status" in lines[-1]:
        lines.pop()
    return lines[-1] if lines else ""
