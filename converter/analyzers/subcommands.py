"""Tasks a skill without programs does with one outside command-line tool, made pipelines.

Many skills ship no program: they teach the agent an outside tool (editframe-cli: ``npx
editframe render -o output.mp4``, ``npx editframe transcribe video.mp4``; bailian-cli: ``bl
image generate --prompt "..."``).  Their tasks are the tool's subcommands.  When the skill's
documents (SKILL.md and the files it links) show one tool in at least three command lines
with at least two subcommands (or one, shown three times: ``buf curl``), each subcommand shown
becomes a pipeline of one written step that runs the tool, at most eight, in the order
SKILL.md (then the other documents) shows them; a command continued on the next line with a
backslash is one line:

- its positionals are those of the first line of the subcommand (its usage line when the
  documents give one: ``transcribe <input> [options]``): a placeholder (``<input>``,
  ``[directory]``: optional) or a file literal becomes an input, another word stays as
  written;
- its flags are every flag the lines of the subcommand show: one without a value is a
  boolean input, one given twice in a line an array, one whose values are all numbers a
  number, one naming the file the tool writes (``-o``) an optional input defaulting to the
  shown name; a flag in every line (or in the only one) is required, the others optional;
  a short flag takes the name of the long one the documents pair it with (``-o,
  --output``); one they pair with none is left out, and so are secrets (``--token``);
- what it is for: the description of the document that shows it (its frontmatter, or the
  SKILL.md line linking it), the comment above the command, the title of its section, or a
  table row naming the command (``| Image from text | `bl image generate` |``);
- setup (``auth``, ``login``, ``init``, ``config`` ...) and servers that keep running
  (``preview``, ``serve``, ``dev``, ``watch``) stay in Skill mode.

The step runs in the folder app-run was started from; the tool missing here fails it with one
line naming it, and what it printed is the step's output.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from skill2app.converter.analyzers.commands import NOT_TOOLS, SHELLS
from skill2app.converter.analyzers.documentation import prose_before
from skill2app.converter.analyzers.snippets import GENERIC, situations
from skill2app.converter.analyzers.text import (
    capital,
    slug,
    snake,
    step_name,
    strip_markdown,
    unique,
)
from skill2app.converter.analyzers.tool_args import (
    OPTIONAL_ARG,
    PLACEHOLDER,
    RUNNERS,
    flags_of,
    positionals_of,
    program_source,
)
from skill2app.converter.analyzers.triggers import (
    MIN_TRIGGERS,
    as_task,
    describing,
    in_language,
    more_requests,
    pick,
    trigger_key,
    usage_request,
)
from skill2app.converter.analyzers.verbs import VERBS, imperative, names_an_action
from skill2app.converter.inventory.shell import logical_lines
from skill2app.converter.plan.model import CodeStep, Input, Pipeline, Sample, Written

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Doc, Inventory

MAX_PIPELINES = 8
SETUP = frozenset(
    {"auth", "login", "logout", "init", "config", "configure", "setup", "install", "uninstall",
     "help", "version", "completion", "upgrade", "update", "whoami", "doctor"}
)  # fmt: skip
SERVERS = frozenset({"preview", "serve", "server", "dev", "watch"})
_WORD = re.compile(r"^[a-z][a-z0-9-]*(?::[a-z][a-z0-9-]*)?$")  # `daily:read` too
_TOOL = re.compile(r"^(?:@[a-z0-9][\w.-]*/)?[a-z][a-z0-9_.+-]*$")
_UNSAFE = re.compile(r"[|;&$`(){}\\]|(?<![\w\"'])[<>](?![\w\"'])")
_PAIR = re.compile(r"(?<![\w-])(-[A-Za-z]),\s*(--[A-Za-z][\w-]*)")
_LINKED = re.compile(r"\]\(([^)\s]+\.md)\)\s*[-—–:：]+\s*(.+)$")
_SETUP_TITLE = re.compile(
    r"(?:\b|_)(?:auth|authenticat\w*|authoriz\w*|log ?in|tokens?|install\w*|set ?up|"
    r"config\w*|credentials?|environment variables?|api[ _-]?keys?)\b|"
    r"认证|登录|安装|配置",
    re.I,
)
_LABEL = re.compile(r"^(?:\*\*[^*]{1,30}\*\*|[A-Z][\w ]{0,20}:\s)")
# A comment marking a counter-example: "# Bad — token visible", "# NEVER DO THIS", "# ❌".
_COUNTER = re.compile(
    r"^(?:bad|wrong|incorrect|avoid|don'?t|do not|never|not recommended|insecure|unsafe)\b|"
    r"^(?:❌|✗|×)|错误|不要|禁止|避免",
    re.I,
)
_DESCRIPTION = re.compile(r"^description:\s*[\"']?(.+?)[\"']?\s*$", re.M)
_HELP = frozenset({"--help", "-h", "--version", "-V", "help"})
_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?")  # "${BASE_URL}/...": a value to fill in


@dataclass
class Line:
    """One command line of the tool in the documents."""

    doc: Doc
    line: int
    words: list[str]  # after the launcher and the subcommand
    comment: str  # the comment right above it, as a task
    section: str  # the title of its section
    usage: bool  # it shows placeholders (a usage line), not values
    after: str = ""  # the prose right after its block ("Builds the project, syncs ...")
    before: str = ""  # the lead-in right before it ("**1. Inspect the contract** to ...:")


@dataclass
class Subcommand:
    words: tuple[str, ...]
    lines: list[Line] = field(default_factory=list)


DocumentedTool = tuple[tuple[str, ...], list[Line], list[Subcommand]]  # documented_tool


def subcommand_pipelines(
    inventory: Inventory, taken: set[str], found: DocumentedTool | None = None
) -> list[Pipeline]:
    """One pipeline per subcommand of the outside tool a skill without programs shows
    (``found``: its ``documented_tool``, read here when not given)."""
    found = found or documented_tool(inventory)
    if found is None:
        return []
    launcher, _shown, subcommands = found
    docs = inventory.documents
    pairs = dict(p for doc in docs for p in _PAIR.findall(strip_markdown(doc.text)))
    kept = [sub for sub in subcommands if sub.words[0] not in SETUP | SERVERS]
    said = {sub.words: _said(inventory, sub, _model(sub)) for sub in kept}
    # a phrase said of two subcommands (the title of the section showing both) tells
    # neither apart
    counts = Counter(trigger_key(phrase) for phrases in said.values() for phrase in phrases)
    claimed: set[str] = set()  # the triggers of the pipelines before: never on two
    pipelines = []
    for sub in kept[:MAX_PIPELINES]:
        name = slug(" ".join(sub.words), 4)
        if not name or name in taken:
            continue
        taken.add(name)
        own = [phrase for phrase in said[sub.words] if counts[trigger_key(phrase)] == 1]
        pipelines.append(_pipeline(inventory, launcher, sub, name, pairs, own, claimed))
    return pipelines


def documented_tool(inventory: Inventory) -> DocumentedTool | None:
    """The outside tool a skill without programs shows with subcommands (its launcher, the
    lines showing it, its subcommands); None when there is none."""
    if inventory.programs:
        return None
    docs = inventory.documents  # SKILL.md first (its body), then the files it links
    by_tool: dict[tuple[str, ...], list[Line]] = {}
    for doc in docs:
        doc_lines = doc.text.split("\n")
        for block in doc.code_blocks:
            if block.language not in SHELLS and block.language:
                continue
            section = doc.sections[block.section].title if block.section >= 0 else ""
            fence = block.line - doc.first_line  # the opening fence, in ``doc_lines``
            after, before = _prose_after(doc_lines, fence), _lead_in(doc_lines, fence)
            for line, words, comment in _lines(block.text, block.line):
                launcher, rest = _launcher(words)
                if launcher and not _HELP.intersection(rest):  # `buf curl --help`: no use
                    usage = any(
                        PLACEHOLDER.search(w) or OPTIONAL_ARG.match(w) or _VARIABLE.search(w)
                        for w in rest
                    )
                    seen = Line(doc, line, rest, comment, section, usage, after, before)
                    by_tool.setdefault(launcher, []).append(seen)
    if not by_tool:
        return None
    launcher, shown = max(by_tool.items(), key=lambda item: len(item[1]))
    subcommands = _subcommands(shown)
    # two subcommands or more; or one the documents show three times at least (`buf curl`)
    if (
        len(shown) < 3
        or not subcommands
        or (len(subcommands) == 1 and len(subcommands[0].lines) < 3)
    ):
        return None
    return launcher, shown, subcommands


def _model(sub: Subcommand) -> Line:
    """The line whose positionals the pipeline takes: the usage line, else the first."""
    return next((line for line in sub.lines if line.usage), sub.lines[0])


def _lines(text: str, first: int) -> list[tuple[int, list[str], str]]:
    """(file line, words, the comment above as a task) of each simple command of a block."""
    found = []
    comment = ""
    wrong = False  # under a comment showing what not to do ("# Bad — token visible ...")
    for at, raw, _bodies in logical_lines(text, first + 1):  # continuations joined
        stripped = raw.strip().removeprefix("$ ").strip()
        if stripped.startswith("#"):
            comment = stripped.lstrip("#").strip()
            wrong = bool(_COUNTER.match(comment))
            continue
        code, _, said = stripped.partition(" #")
        if wrong or _COUNTER.match(said.strip()):
            continue
        if code and not code.endswith("\\") and not _UNSAFE.search(_outside_quotes(code)):
            try:
                words = shlex.split(code)
            except ValueError:
                words = []
            if words:
                found.append((at, words, as_task(comment) if comment else ""))
        comment = ""
    return found


def _outside_quotes(code: str) -> str:
    """``code`` without what its quotes hold literally: all of a single-quoted string (JSON
    data: ``--data '{"message":"hello"}'``), a double-quoted one but for ``$(`` and backticks,
    which the shell still runs there."""
    code = re.sub(r"'[^']*'", "''", code)
    # a variable named in double quotes is a value to fill in ("${BASE_URL}/...")
    plain = re.compile(r"\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*|[^$`]")
    return re.sub(r'"[^"]*"', lambda m: plain.sub("", m.group(0)), code)


def _launcher(words: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The words that run the tool (``bl``; ``npx editframe``) and the words after them, or
    ((), []) when the line runs no outside tool."""
    if words[0] in RUNNERS:
        at = next((i for i, w in enumerate(words[1:], 1) if not w.startswith("-")), 0)
        if at and _TOOL.match(words[at]):
            return (words[0], words[at]), words[at + 1 :]
        return (), []
    tool = words[0]
    if tool in NOT_TOOLS or not _TOOL.match(tool) or "." in tool or tool.startswith("@"):
        return (), []
    return (tool,), words[1:]


def _subcommands(shown: list[Line]) -> list[Subcommand]:
    """The tool's subcommands in the order shown (SKILL.md first), each with its lines (their
    words after it): a second word is part of it when the first is shown with two different
    second words, or always with the same one."""
    seconds: dict[str, list[str]] = {}
    for line in shown:
        rest = line.words
        if rest and _WORD.match(rest[0]):
            second = rest[1] if len(rest) > 1 and _WORD.match(rest[1]) else ""
            seconds.setdefault(rest[0], []).append(second)
    subs: dict[tuple[str, ...], Subcommand] = {}
    for line in shown:
        rest = line.words
        if not rest or not _WORD.match(rest[0]):
            continue
        after = seconds[rest[0]]
        nested = len(set(after) - {""}) >= 2 or (after[0] != "" and len(set(after)) == 1)
        depth = 2 if nested and len(rest) > 1 and _WORD.match(rest[1]) else 1
        key = tuple(rest[:depth])
        entry = subs.setdefault(key, Subcommand(key))
        entry.lines.append(replace(line, words=rest[depth:]))
    return list(subs.values())


def _prose_after(doc_lines: list[str], fence: int) -> str:
    """The paragraph right after the code block opening at ``doc_lines[fence]``."""
    lines = doc_lines[fence + 1 :]
    closing = next(
        (i for i, raw in enumerate(lines) if raw.lstrip().startswith(("```", "~~~"))), -1
    )
    paragraph: list[str] = []
    for raw in lines[closing + 1 : closing + 12] if closing >= 0 else []:
        text = raw.strip()
        if not text and paragraph:
            break
        if text.startswith(("#", "```", "~~~", "|")):
            break
        if text:
            paragraph.append(text)
    return " ".join(paragraph)


def _pipeline(
    inventory: Inventory,
    launcher: tuple[str, ...],
    sub: Subcommand,
    name: str,
    pairs: dict[str, str],
    said: list[str],
    claimed: set[str],
) -> Pipeline:
    examples = [line for line in sub.lines if not line.usage] or sub.lines
    model = _model(sub)
    positionals = positionals_of(model, examples[0])
    flags = flags_of(sub.lines, pairs)
    shown = len(sub.lines)
    inputs = [
        Input(p.name, "string", p.required, f"{p.name.replace('_', ' ')} (e.g. {p.sample})")
        for p in positionals
        if p.name
    ]
    for flag in [f for f in flags if f.name]:
        required = flag.lines == shown and not flag.writes and flag.type != "boolean"
        default = flag.sample if flag.writes else None
        what = f"{flag.flag} of {' '.join(sub.words)}"
        inputs.append(Input(flag.name, flag.type, required, what, None, default))
    tool = launcher[0]
    step = CodeStep(
        step_name(snake(name, 4) or "run"),
        "",
        write=Written("python", program_source(launcher, sub.words, positionals, flags)),
        output={"printed": "string"},
    )
    sample: dict[str, Any] = {p.name: p.sample or p.value for p in positionals if p.name}
    sample = {k: v for k, v in sample.items() if v and (v != "[" + k + "]")}
    first = {f.name for f in flags_of([examples[0]], pairs)}
    for f in flags:
        if not f.name or f.sample is None or f.writes:
            continue
        if f.lines == shown or f.name in first:
            sample[f.name] = f.sample
    held = [i.name for i in inputs if i.required and (i.name not in sample)]
    held += [p.name for p in positionals if p.name and p.required and not p.sample]
    for f in flags:
        if f.name in held:
            sample[f.name] = f.shown or f"<{f.name}>"
    for p in positionals:
        if p.name in held:
            sample[p.name] = p.value
    skip = ""
    if held:
        named = ", ".join(unique(held))
        skip = f"the documents show no real value of {named}: give one in samples/input.json"
    named = launcher[-1].rsplit("/", 1)[-1]  # `bl`; `editframe` of `npx editframe`
    asked = _asked(sub.words, named)
    verb_first = [p for p in said if p.split()[0].lower() in VERBS]
    # what is done first ("List recent deployments", "deploy with vercel"), then the rest
    title = [*verb_first, *([asked] if asked else []), *said, " ".join(sub.words)][0]
    description = f"{capital(title)} ({named} {' '.join(sub.words)})"
    given = {str(v) for v in sample.values()}
    shown_values = [v for v in examples[0].words if v in given and not PLACEHOLDER.search(v)]
    candidates = [*verb_first, asked, *said, usage_request(asked or title, shown_values[:2])]
    candidates += situations(inventory, title)
    triggers = pick(candidates, claimed, 8)
    short = MIN_TRIGGERS - in_language(triggers, inventory.language)
    if short > 0:
        taken = claimed | {trigger_key(t) for t in triggers}
        more = more_requests(
            triggers,
            inventory.language,
            description=description,
            domain=inventory.skill.frontmatter.description,
        )
        triggers += pick(more, taken, short)
    claimed.update(trigger_key(t) for t in triggers)
    return Pipeline(
        name=name,
        description=description,
        triggers=triggers[:8] or [f"{tool} {' '.join(sub.words)}"],
        input=inputs,
        steps=[step],
        source=f"{model.doc.path}:{model.line}",
        sample=Sample(input=sample, skip=skip),
    )


def _said(inventory: Inventory, sub: Subcommand, model: Line) -> list[str]:
    """What the subcommand is for, best first, as requests."""
    said: list[str] = []
    doc = model.doc
    stem = doc.path.rsplit("/", 1)[-1].removesuffix(".md").lower()
    if doc.path != inventory.skill.path and stem in (sub.words[0], "-".join(sub.words)):
        described = _DESCRIPTION.search(doc.text.split("\n---", 2)[0])
        said += [_task(described.group(1))] if described else []
        for raw in inventory.skill.body.splitlines():
            linked = _LINKED.search(raw)
            if linked and linked.group(1).removeprefix("./") == doc.path:
                said.append(_task(strip_markdown(linked.group(2))))
    command = " ".join(sub.words)
    for raw in inventory.skill.body.splitlines():
        cells = [c.strip() for c in raw.strip().strip("|").split("|")] if "|" in raw else []
        if len(cells) >= 2 and any(re.search(rf"`[^`]*\b{re.escape(command)}`", c) for c in cells):
            said.append(strip_markdown(cells[0]))
    said += [line.comment for line in sub.lines if line.comment]
    led = [_task(line.before, lead_in=True) for line in sub.lines if line.before]
    # a lead-in that does something ("Render a project:"), not one that explains the syntax
    # ("**Parameters** take a value with `=`:")
    said += [t for t in led if t and names_an_action(t)]
    sections = [  # not a title naming a flag ("`--verbose`"): an option, not a task
        line.section
        for line in sub.lines
        if not GENERIC.match(line.section) and not strip_markdown(line.section).startswith("-")
    ]
    said += [as_task(title) for title in sections if not _SETUP_TITLE.search(title)]
    after = [_acting(_task(line.after)) for line in sub.lines if _describes(line.after)]
    said += [t for t in after if t]
    # a phrase that says what is done ("List recent deployments") before a circumstance
    # ("With a team scope (either via VERCEL_ORG_ID ...)")
    said = unique([s for s in said if s])
    return sorted(said, key=lambda phrase: phrase.split()[0].lower() not in VERBS)


def _acting(text: str) -> str:
    """``text`` as a request when it says what is done ("Builds the project" → "build the
    project"), else "" ("For multiline content use ...")."""
    first, _, rest = text.partition(" ")
    lowered = first.lower()
    for cut, add in (("ies", "y"), ("es", ""), ("s", "")):
        stem = lowered[: -len(cut)] + add if lowered.endswith(cut) else ""
        if stem in VERBS:
            text = f"{stem} {rest}".strip()
            break
    return text if text and names_an_action(text) else ""


def _asked(words: tuple[str, ...], tool: str) -> str:
    """The subcommand as a request, its verb first: ``image generate`` → "generate image",
    ``deploy`` of vercel → "deploy with vercel"; ``property:set`` → "set property", as
    ``daily:append`` → "append daily" (a namespaced command: its parts are words)."""
    if len(words) == 1 and re.fullmatch(r"[a-z][\w-]*(?::[a-z][\w-]*)+", words[0]):
        words = tuple(words[0].split(":"))
    if len(words) == 1:
        verb = words[0].replace("-", " ")
        return f"{verb} with {tool}" if verb.split()[0] in VERBS else ""
    phrase = " ".join(reversed(words)).replace("-", " ")
    return phrase if names_an_action(phrase) else ""


def _lead_in(doc_lines: list[str], fence: int) -> str:
    """The prose right before the code block opening at ``doc_lines[fence]`` when it leads
    into it ("To render a project:", "**1. Inspect the contract** to get ...:")."""
    text = prose_before(doc_lines, fence + 1)
    if not text.endswith((":", "：")) or text.startswith(("|", "-", "*  ")):
        return ""
    text = re.sub(r"^\d+[.)]\s*", "", strip_markdown(text).rstrip(":： "))
    return "" if _SETUP_TITLE.search(text) else re.sub(r"^to\s+", "", text, flags=re.I)


def _describes(paragraph: str) -> bool:
    """Whether the paragraph after a command says what it does: not a label ("**Rule:**
    ..."), nor the lead-in of the next block ("Verify your token:")."""
    text = paragraph.strip()
    return bool(text) and not text.endswith((":", "：")) and not _LABEL.match(text)


def _task(text: str, *, lead_in: bool = False) -> str:
    """A sentence saying what a command does as a request: "Generate word-level captions";
    a lead-in ("Run the action with a JSON payload") is one already."""
    sentence = text if lead_in else describing(text)
    clause = re.split(r"(?<=[a-z])[.,;]\s|\s[—–-]\s", sentence.strip(), maxsplit=1)[0]
    return imperative(clause) if clause else ""
