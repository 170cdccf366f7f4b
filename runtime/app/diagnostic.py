"""One finding of `app-run check`: an error or a warning, where it is, and what to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skill2app.runtime.errors import Where


@dataclass(frozen=True)
class Diagnostic:
    level: str  # "error" | "warning"
    message: str
    where: Where
    hint: str = ""

    def one_line(self) -> str:
        text = f"{self.level}: {self.message} ({self.where})"
        return f"{text} — {self.hint}" if self.hint else text

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "message": self.message,
            "file": str(self.where.file),
            "line": self.where.line,
            "hint": self.hint,
        }
