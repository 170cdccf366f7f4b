"""What the llm analyzer shows the model: conversion rules, the plan format, the skill.

``SYSTEM`` holds the fixed instructions (APP spec §7 in brief, what each part of the plan
means, how it is checked).  ``gather`` collects the skill as the model sees it: the inventory
as JSON and the skill's Markdown documents with their line numbers (SKILL.md first, then the
other ``.md`` files), and ``user_prompt`` renders it, with the problems of the previous attempt
when there was one.

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

SYSTEM = """\
You convert an Agent Skill into an APP (Agent Pipeline Protocol v0.4). An APP keeps SKILL.md \
and the skill's programs unchanged and adds pipelines: fixed, repeatable paths that a runner \
executes step by step, so that a model is asked only for the parts that need judgement. A \
request that no pipeline matches falls back to SKILL.md (Skill mode).

How to convert (APP spec section 7):
1. Read SKILL.md and the inventory: what the skill is for, which programs it has, how its \
documents run them.
2. Find the main paths: flows that are fixed and repeated, usually one per program action, \
subcommand, or documented workflow. Each main path becomes one pipeline.
3. Split each pipeline into ordered steps:
   - code step: deterministic work one of the skill's programs already does. Use only programs \
listed in the inventory, with subcommands and flags their command line declares or the \
documents show, and literal values among a flag's choices.
   - llm step: work that needs language understanding (summarise, classify, draft, choose). \
Write a prompt template that names its data as {{input.<name>}}, {{<step>.output}} or \
{{<step>.output.<field>}}; give the JSON Schema of its answer, the skill's content rules it must \
follow, and a tier: lite (extraction, classification, formatting), standard (writing, \
summarising, ordinary reasoning), reasoning (multi-step judgement, planning, risky decisions).
4. Constructor: when the skill needs binaries, environment variables, packages, files or a \
login (see the inventory's requirements), set needed to true with one check for each; optional \
things get required: false.
5. Destructor: only when the skill asks for cleanup after a run (temporary files, locks).
6. Skill mode: judgement-heavy parts (open-ended advice, questions to ask the user, rules for \
the model's own writing, situations no program covers) stay in Skill mode; list each with the \
reason and where it is. Never invent a program, subcommand or flag to cover them.
7. Triggers: short phrases a user would say, in the skill's own language, taken from section \
titles, the description's "Use when ..." and the skill's wording; unique across pipelines.

The plan (its format is enforced; every field is always present, and "", [] or null means \
"not set"):
- app: name (lowercase words joined by hyphens, usually the skill's name), description, \
language (the skill's language code, as in the inventory).
- pipelines: one per main path.
  - name: lowercase words joined by hyphens, unique. description: one sentence; routing reads it.
  - triggers: see above. source: where the path comes from, as "SKILL.md:22".
  - input: what the user supplies. name (snake_case), type (string, integer, number, boolean, \
array, object), required, description (what it is, e.g. an example value), enum (the allowed \
values, or []), default (or null).
  - steps, in order: name (snake_case, unique in the pipeline) and type (code or llm).
    code: program (its path as in the inventory), subcommand ("" when none), args in order, \
stdout (json when the program prints JSON, else text).
    each arg: flag ("" for a positional), then value (a literal) or from (input.<name> or \
<earlier step>.output[.<field>]), never both; a flag with neither is passed bare; a boolean \
input passes the bare flag when true; an array input repeats the flag. as: value (the text), \
file (written to a temporary file whose path is passed) or json (JSON text).
    stdin: what the program reads on its standard input, when the documents feed it data \
there (an invocation's stdin in the inventory: `cat FILE | program`, `program < FILE`, \
`echo TEXT | program`, `a | program`): from (input.<name> or <earlier step>.output[.<field>]) \
and as: file (the value names a file whose content is fed) or text (the value itself is fed). \
from "" when the program reads nothing on stdin. A path whose data only comes from another \
command's output that no step reproduces (`curl URL | program`) stays in Skill mode: run \
without its data, the program would give a wrong answer.
    llm: prompt, model (the tier), schema (the answer's JSON Schema written as JSON text, e.g. \
"{\\"type\\": \\"object\\", ...}"), rules, retry (usually 2).
    Fields that belong to the other step type are ignored; fill them with "", [], 0 or any \
allowed value.
  - output: the step whose output is the pipeline's (usually the last).
- constructor: needed, reason, checks (kind: binary, env, python-package, node-package, file \
or auth; name; required; why; where as ["SKILL.md:10"]).
- destructor: needed, reason, actions (kind: remove-files, log, release-lock or custom; \
description; paths; where).
- skill_mode: topic, reason, where. ("Requests no pipeline matches" is added for you.)
- notes: what a reviewer should check (guesses, ambiguities).

The plan is checked before it is accepted: programs must be in the inventory; subcommands and \
flags must be ones the program has; literal values and input enums must fit a flag's choices; \
a program's required flags must be given; a program the documents always feed on stdin must \
get stdin; references must name declared inputs or earlier steps; pipeline names, triggers \
and step names must be unique. A plan that fails comes back with its problems.

Documents are shown with their line numbers in the left column; use them in source and where.\
"""


@dataclass
class Material:
    """The skill as the model sees it, and what was summarised to fit the budget."""

    skill: str
    inventory: dict[str, Any]
    documents: list[Document]
    full_tokens: int = 0
    tokens: int = 0
    summarised: list[str] = field(default_factory=list)

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


# -- the prompt --------------------------------------------------------------------------------


def user_prompt(
    material: Material, *, problems: list[str] | None = None, previous: Any = None
) -> str:
    """The request for one attempt: the skill, and the previous attempt's problems if any."""
    parts = [f"Write the conversion plan for the skill {material.skill!r}."]
    if material.summarised:
        parts.append(
            "The skill is too large to show in full, so parts are summarised: "
            + "; ".join(material.summarised)
            + ". Left-out lines are marked ⋮. Do not guess what they say: keep what depends "
            "on them in Skill mode, or say so in the notes."
        )
    parts.append(f"<inventory>\n{inventory_json(material.inventory)}\n</inventory>")
    parts.extend(doc.render() for doc in material.documents)
    if problems:
        listed = "\n".join(f"- {p}" for p in problems)
        answer = previous if isinstance(previous, str) else json.dumps(previous, ensure_ascii=False)
        parts.append(
            f"Your previous answer was rejected because of these problems:\n{listed}\n"
            f"<previous_answer>\n{answer}\n</previous_answer>\n"
            "Answer again with the whole plan, corrected: fix every problem listed and keep "
            "what was right."
        )
    return "\n\n".join(parts) + "\n"
