"""A program's facts as the inventory keeps them (``Program``), and how its file is read.

``program`` finds a skill's programs and fills these in (with ``interpreter``: what runs one,
and ``invoked``: what the commands that run it show); the analyzers and the renderer read
them.  ``read_source`` reads a program's file, or any text file of the skill, up to a size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.converter.inventory.invocations import Invocation
from skill2app.converter.inventory.programs.interface import Command

MAX_SOURCE_BYTES = 512_000


@dataclass
class Program:
    path: str
    language: str
    interpreter: str
    location: str  # tools | scripts | beside | invoked | elsewhere (outside the skill)
    doc: str = ""
    cli: Command | None = None
    invocations: list[Invocation] = field(default_factory=list)
    values_seen: dict[str, list[str]] = field(default_factory=dict)
    enumerations: dict[str, list[str]] = field(default_factory=dict)
    emits_json: bool = False
    warnings: list[str] = field(default_factory=list)
    probe: dict[str, Any] | None = None
    mentioned: bool = True  # a document of the skill runs it or names it
    insists: set[str] = field(default_factory=set)  # flags it stops without (``node.insisted``)
    exit_notes: str = ""  # its code's comments on exit statuses ("exit 1 when findings exist")
    verdicts: dict[int, str] = field(default_factory=dict)  # statuses its code gives as answers
    prompts_at: int = 0  # the line of its first question on the terminal (``terminal_prompt``)
    asks_at: int = 0  # a Python program's first input() call, maybe in a branch (``read_prompts``)
    waits_at: int = 0  # where it serves the browser it opens, awaiting a person (``browser``)
    installs: set[str] = field(default_factory=set)  # the tools it installs (``installed_by``)
    # places above the skill's folder its code names by a fixed path (``imports.reaches_out``)
    reaches_out: list[tuple[str, int]] = field(default_factory=list)
    # optional flags a document describes → (file, first line, last line) of each section
    # that describes them: the pipelines of the commands there offer them
    doc_options: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)

    def command_for(self, subcommand: str) -> Command | None:
        if self.cli is None:
            return None
        return self.cli.subcommands.get(subcommand, self.cli) if subcommand else self.cli

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "language": self.language,
            "interpreter": self.interpreter,
            "location": self.location,
            "doc": self.doc,
            "emits_json": self.emits_json,
            "cli": self.cli.to_dict() if self.cli is not None else None,
            "invocations": [inv.to_dict() for inv in self.invocations],
            "values_seen": {k: self.values_seen[k] for k in sorted(self.values_seen)},
            "enumerations": {k: self.enumerations[k] for k in sorted(self.enumerations)},
        }
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.verdicts:  # exit statuses that are answers, not failures
            data["result_exits"] = {str(k): v for k, v in sorted(self.verdicts.items())}
        if self.installs:  # what it installs is none of its needs
            data["installs"] = sorted(self.installs)
        if self.prompts_at:  # it asks its questions on the terminal
            data["prompts_at"] = f"{self.path}:{self.prompts_at}"
        if self.waits_at:  # it waits for a person in the browser it opens
            data["waits_at"] = f"{self.path}:{self.waits_at}"
        if self.asks_at:  # it may ask on the terminal (a branch of it does)
            data["asks_at"] = f"{self.path}:{self.asks_at}"
        if self.reaches_out:  # it reads or writes the host's folders above the skill
            data["reaches_out"] = [f"{self.path}:{line}: {path}" for path, line in self.reaches_out]
        if not self.mentioned:
            data["mentioned"] = False
        if self.doc_options:
            data["doc_options"] = {
                flag: [f"{file}:{first}-{last}" for file, first, last in sorted(set(spots))]
                for flag, spots in sorted(self.doc_options.items())
            }
        if self.probe is not None:
            data["probe"] = self.probe
        return data


def read_source(path: Path) -> str:
    """A text file's content; "" when unreadable or larger than MAX_SOURCE_BYTES."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
