"""Which of a skill's files are programs, and the role of every other one.

A file in scripts/ or tools/ (or beside SKILL.md) is a program by its shape; a file the
documents run is one wherever it is; a file in references/ or assets/ is context unless the
documents run it or say to run it by path (``运行 `assets/scout.py` ``) and it reads as a
program (``program_shaped``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from skill2app.converter.inventory.programs.facts import Program, read_source
from skill2app.converter.inventory.programs.language import language_of
from skill2app.converter.inventory.programs.program import (
    CONTEXT_DIRS,
    describe,
    is_candidate,
    program_shaped,
)

if TYPE_CHECKING:
    from skill2app.converter.inventory.invocations import Invocation
    from skill2app.converter.inventory.markdown import InlineCode


class Document(Protocol):
    """What ``named_to_run`` reads of a document (``model.Doc``)."""

    @property
    def text(self) -> str: ...
    @property
    def inline_code(self) -> list[InlineCode]: ...
    @property
    def first_line(self) -> int: ...


def programs_and_roles(
    skill_dir: Path,
    paths: list[str],
    skill_md: str,
    *,
    invoked: dict[str, list[Invocation]],
    named: set[str],
    probing: tuple[bool, bool],
) -> tuple[list[Program], dict[str, str]]:
    """The skill's programs and the role of each file.  ``invoked``: the invocations the
    documents show, by program; ``named``: the files they say to run by path."""
    probe, unsafe = probing
    roles: dict[str, str] = {skill_md: "skill"}
    programs: list[Program] = []
    for rel in paths:
        if rel == skill_md:
            continue
        # a script in assets/ the documents run (terminal-print's `bash "$SKILL_DIR/assets/
        # print-terminal.sh" --no-preview`), or name when it has a program's shape (hit-
        # lectures-scout's "运行 `assets/deepxiv_preprints_scout.py`", an argparse CLI), is a
        # program; the folder's other files are context
        in_context = rel.split("/", 1)[0] in CONTEXT_DIRS
        if (in_context and rel not in invoked and rel not in named) or rel.lower().endswith(".md"):
            roles[rel] = "context"
            continue
        head = read_source(skill_dir / rel)
        language = language_of(Path(rel), head)
        shaped = in_context and program_shaped(language, head)
        if in_context and rel not in invoked and not shaped:
            roles[rel] = "context"  # named, but no program: a template, a module
            continue
        if is_candidate(rel, language, head, rel in invoked) or shaped:
            found = invoked.get(rel, [])
            programs.append(describe(skill_dir, rel, language, found, probe=probe, unsafe=unsafe))
            roles[rel] = "program"
        elif language:
            roles[rel] = "module"
    return programs, roles


# A line that says to run what it names, right before it ("运行 `assets/scout.py`", "run
# `tools/x.sh` first"), not "git runs it" nor "don't run".
_RUN_BEFORE = re.compile(
    r"(?:\b(?:run|execute|invoke|launch)\b|运行|执行|調用|调用|実行|起動)[^`。.;；]{0,20}$", re.I
)
_NOT = re.compile(r"\b(?:don'?t|do not|never|no longer)\b|不要|勿|别|禁止", re.I)


def named_to_run(docs: Sequence[Document]) -> set[str]:
    """The files an inline span names by path after words that say to run it (not "copy
    `assets/pre-commit.sh` to .git/hooks", "read `references/example.sh`", "don't run
    `assets/old.sh`")."""
    found = set()
    for doc in docs:
        lines = doc.text.split("\n")
        for span in doc.inline_code:
            at = span.line - doc.first_line
            line = lines[at] if 0 <= at < len(lines) else ""
            before = line[: max(line.find(f"`{span.text}`"), 0)]
            if _RUN_BEFORE.search(before) and not _NOT.search(before):
                found.add(span.text.strip().removeprefix("./"))
    return found
