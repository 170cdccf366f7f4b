"""The skill as an LLM analyst sees it (``brief`` frames it): the inventory and the documents.

``gather`` collects the inventory as JSON and the skill's Markdown documents with their line
numbers (SKILL.md first, then the other ``.md`` files).

Budget: tokens are estimated as one per 4 ASCII characters and one per other character.  When
the inventory and documents exceed the budget they are summarised, never cut off blindly, in
this order until they fit:

1. the other documents, largest first: headings and the code blocks that run a program;
2. the inventory: each program to its command line (flags, types, choices), its doc's first
   line and where it is invoked; the section, code-block and unclassified-file lists dropped;
3. SKILL.md: frontmatter, headings, the first paragraph of each section, and every line and
   fenced block that runs a program;
4. SKILL.md: the same without the paragraphs.

Left-out lines are marked in place, and ``Material.summarised`` says what was summarised (the
analyzer copies it into the plan's notes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skill2app.converter.analyzers.llm_documents import Document, outline, read_documents
from skill2app.converter.inventory.programs.interface import Command

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.inventory.programs.program import Program

BUDGET_TOKENS = 60_000  # inventory + documents, as estimated by ``estimate_tokens``
FRAME_TOKENS = 1_000  # kept free for the prompt's own words around them


@dataclass
class Material:
    """The skill as the model sees it, and what was summarised to fit the budget."""

    skill: str
    inventory: dict[str, Any]
    documents: list[Document]
    full_tokens: int = 0
    tokens: int = 0
    summarised: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)  # coverage.Task.cite() of SKILL.md's tasks

    def measure(self) -> int:
        return estimate_tokens(inventory_json(self.inventory)) + sum(
            estimate_tokens(d.render()) for d in self.documents
        )

    def note(self, budget: int) -> str:
        """For the plan's notes: what the model saw in summary."""
        if not self.summarised:
            return ""
        text = (
            f"The skill is about {self.full_tokens:,} tokens, more than the llm analyzer's "
            f"budget of {budget:,}, so the model saw a summary: {'; '.join(self.summarised)}."
        )
        if self.tokens + FRAME_TOKENS > budget:
            text += f" Even summarised it is about {self.tokens:,} tokens."
        return text + " Check the plan against the parts left out."


def estimate_tokens(text: str) -> int:
    """About one token per 4 ASCII characters and one per other character (CJK, accents)."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def inventory_json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# -- gathering and summarising ----------------------------------------------------------------


def gather(inventory: Inventory, budget: int = BUDGET_TOKENS) -> Material:
    """The inventory and documents, summarised stage by stage until they fit ``budget``."""
    material = Material(
        inventory.skill.frontmatter.name, inventory.to_dict(), read_documents(inventory)
    )
    material.full_tokens = material.tokens = material.measure()
    limit = budget - FRAME_TOKENS
    stages = (_shrink_documents, _shrink_inventory, _shrink_skill_md, _outline_skill_md)
    for stage in stages:
        if material.tokens <= limit:
            break
        stage(material, inventory, limit)
        material.tokens = material.measure()
    return material


def _shrink_documents(material: Material, inventory: Inventory, limit: int) -> None:
    sizes = {d.path: estimate_tokens(d.render()) for d in material.documents[1:]}
    shrunk: list[str] = []
    for path in sorted(sizes, key=lambda p: (-sizes[p], p)):
        if material.tokens <= limit:
            break
        index = next(i for i, d in enumerate(material.documents) if d.path == path)
        short = outline(inventory, material.documents[index], paragraphs=False)
        material.documents[index] = short
        material.tokens += estimate_tokens(short.render()) - sizes[path]
        shrunk.append(path)
    if shrunk:
        material.summarised.append(
            f"{', '.join(shrunk)} to {'its' if len(shrunk) == 1 else 'their'} headings "
            "and program invocations"
        )


def _shrink_inventory(material: Material, inventory: Inventory, limit: int) -> None:
    data = dict(material.inventory)
    data.pop("sections", None)
    data.pop("code_blocks", None)
    others = [f for f in data["files"] if f["role"] == "other"]
    data["files"] = [f for f in data["files"] if f["role"] != "other"]
    if others:
        data["other_files"] = len(others)
    data["programs"] = [_program_cli(p) for p in inventory.programs]
    material.inventory = data
    material.summarised.append(
        "the inventory's programs to their command lines (flags, types, choices) and first "
        "doc line, without its section, code-block and unclassified-file lists"
    )


def _shrink_skill_md(material: Material, inventory: Inventory, limit: int) -> None:
    material.documents[0] = outline(inventory, material.documents[0], paragraphs=True)
    material.summarised.append(
        f"{material.documents[0].path} to its frontmatter, headings, the first paragraph of "
        "each section and every program invocation"
    )


def _outline_skill_md(material: Material, inventory: Inventory, limit: int) -> None:
    material.documents[0] = outline(inventory, material.documents[0], paragraphs=False)
    material.summarised[-1] = (
        f"{material.documents[0].path} to its frontmatter, headings and every program invocation"
    )


def _program_cli(program: Program) -> dict[str, Any]:
    return {
        "path": program.path,
        "language": program.language,
        "interpreter": program.interpreter,
        "doc": _first_line(program.doc),
        "emits_json": program.emits_json,
        "cli": _command(program.cli) if program.cli is not None else None,
        "enumerations": {k: program.enumerations[k] for k in sorted(program.enumerations)},
        "invoked_at": [f"{inv.file}:{inv.line}" for inv in program.invocations],
    } | _stdin_at(program)


def _stdin_at(program: Program) -> dict[str, Any]:
    """Where the documents feed ``program`` data on stdin, and what (only when they do)."""
    fed = [
        {"at": f"{inv.file}:{inv.line}", **inv.stdin.to_dict()}
        for inv in program.invocations
        if inv.stdin is not None
    ]
    return {"stdin": fed} if fed else {}


def _command(command: Command) -> dict[str, Any]:
    params = []
    for param in command.params:
        entry: dict[str, Any] = {"name": param.name, "kind": param.kind, "type": param.type}
        entry |= {"required": True} if param.required else {}
        entry |= {"aliases": sorted(param.aliases)} if param.aliases else {}
        entry |= {"choices": list(param.choices)} if param.choices is not None else {}
        params.append(entry)
    data: dict[str, Any] = {"framework": command.framework, "params": params}
    if command.description:
        data["description"] = _first_line(command.description)
    if command.subcommands:
        data["subcommands"] = {n: _command(c) for n, c in sorted(command.subcommands.items())}
    return data


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].strip() if text else ""
