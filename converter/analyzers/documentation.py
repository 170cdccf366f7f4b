"""What a skill's documents say about the task of one pipeline: its sections, the prose
before its commands, the requests they quote — as triggers and as its description.

The sections documenting a main path are those, in any Markdown file, that show its
commands and no others; their titles name the task ("Step 2: Edit XML" → "Edit XML").  The
prose right before a command says what it does ("Convert the PDF to PNGs with this script:"
→ "Convert the PDF to PNGs").  A request a document quotes goes to the pipeline sharing the
most words with it.  ``triggers`` has the rules every phrase passes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache

from skill2app.converter.analyzers.glossary import common_nouns, glossary, kept_in_latin, noun_for
from skill2app.converter.analyzers.languages import ja_action_phrases, ja_nouns, languages_of
from skill2app.converter.analyzers.paths import MainPath, describe_path, path_name, what_it_does
from skill2app.converter.analyzers.text import (
    capital,
    has_cjk,
    humanize,
    keys,
    strip_markdown,
)
from skill2app.converter.analyzers.triggers import (
    AGENT_WORDS,
    BRACKETED,
    INSTRUCTION,
    align_nouns,
    as_task,
    clean,
    describing,
    first_of,
    label_phrase,
    labels_the_code,
    quoted_requests,
    title_text,
    usage_request,
    verb_and_object,
    zh_action_phrases,
    zh_nouns,
)
from skill2app.converter.inventory.invocations import Invocation, is_placeholder
from skill2app.converter.inventory.markdown import Section
from skill2app.converter.inventory.model import Doc, Inventory
from skill2app.converter.inventory.programs.interface import parse_argv
from skill2app.converter.inventory.programs.program import Program
from skill2app.converter.plan.model import Pipeline, Plan


def section_at(document: Doc, line: int) -> Section | None:
    """The section whose own text (up to the next heading of any level) holds ``line``."""
    before = [s for s in document.sections if s.line <= line]
    return max(before, key=lambda s: s.line) if before else None


def section_text(document: Doc, section: Section) -> str:
    """The prose of a section's own text: its lines up to the next heading, code left out."""
    later = [s.line for s in document.sections if s.line > section.line]
    end = min(later) - 1 if later else document.first_line + document.text.count("\n")
    lines = document.text.split("\n")[
        section.line + 1 - document.first_line : end + 1 - document.first_line
    ]
    kept, fenced = [], False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept).strip()


def documenting(inventory: Inventory, invocations: list[Invocation]) -> list[tuple[str, str]]:
    """(title, prose) of each section, in any document, that shows these commands and no
    others: what the skill says about this task."""
    mine = {(i.file, i.line) for i in invocations}
    everyone = [(i.file, i.line) for p in inventory.programs for i in p.invocations]
    found = []
    for document in inventory.documents:
        seen: set[int] = set()
        for inv in invocations:
            section = section_at(document, inv.line) if inv.file == document.path else None
            if section is None or section.line in seen:
                continue
            seen.add(section.line)
            later = [s.line for s in document.sections if s.line > section.line]
            end = min(later) if later else 10**9
            inside = [
                at for at in everyone if at[0] == document.path and section.line < at[1] < end
            ]
            if all(at in mine for at in inside):
                found.append((section.title, section_text(document, section)))
    return found


def distribute_quotes(plan: Plan, inventory: Inventory) -> None:
    """Give each request a document quotes to the pipeline it is about: the only one, the
    one whose command the same section shows, or the one sharing the most words with it
    (none when two share as many)."""
    pipelines = plan.pipelines
    if not pipelines:
        return
    topics = [keys(" ".join([p.name, p.description, *p.triggers])) for p in pipelines]
    for document, line, text in quoted_in(inventory):
        owner = section_owner(document, line, pipelines)
        owner = owner if owner is not None else _owner_of(text, topics)
        if owner is not None:
            pipelines[owner].triggers.append(text)


def quoted_in(inventory: Inventory) -> Iterator[tuple[Doc, int, str]]:
    """(document, file line, text) of each request the skill's documents quote as what a user
    says (``triggers.quoted_requests``)."""
    for document in inventory.documents:
        for index, text in quoted_requests(document.text.split("\n")):
            yield document, document.first_line + index, text


def section_owner(document: Doc, line: int, pipelines: list[Pipeline]) -> int | None:
    """The index of the one pipeline whose ``source`` is in the section of ``document`` that
    holds ``line`` (None when none is, or several are)."""
    here = [i for i, p in enumerate(pipelines) if _same_section(document, p.source, line)]
    return here[0] if len(here) == 1 else None


def _same_section(document: Doc, source: str, line: int) -> bool:
    """Whether ``source`` (``file:line``) is in the section of ``document`` holding ``line``."""
    file, _, number = source.rpartition(":")
    if file != document.path or not number.isdigit():
        return False
    here, there = section_at(document, line), section_at(document, int(number))
    return here is not None and here is there


def path_candidates(
    inventory: Inventory, path: MainPath, clauses: list[str], description: str
) -> list[str]:
    """What the skill says about one main path, as candidate triggers, best first: the
    titles of its sections, the description's situations about it, what the prose before
    its commands says, its action's name, a subcommand's own help, its command as a
    request.  The program's help for itself is its description, not a trigger (often
    shared with its siblings: "Summarise the numeric columns of a CSV file"), and the
    pipeline's name only stands in when nothing else does."""
    program = path.program
    stem = humanize(program.path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    candidates = [as_task(title) for title, _prose in documenting(inventory, path.invocations)]
    if path.label:  # an action among a list of them, each under its bold label
        candidates += [as_task(b) for b in bold_labels(inventory, path.invocations)]
    comments = comments_above(inventory, path.invocations)  # one word is a label: "# Filters"
    candidates += [as_task(c) for c in comments if len(c.split()) > 1 or has_cjk(c)]
    written = languages_of(inventory)  # the action, else the program ("create-doc.js"), ...
    action = path.label or stem
    made = []  # said from its name, not in the skill's words
    if "zh" in written:  # ... in Chinese
        made += zh_action_phrases(action, _zh_nouns(inventory, path, action))
    if "ja" in written:  # ... in Japanese
        text = "\n".join(d.text for d in inventory.documents)
        made += ja_action_phrases(action, {**kept_in_latin(text), **ja_nouns(text)})
    candidates += made
    candidates += clauses
    if not path.label:  # a program's one task: what a table of its scripts says it does
        candidates += [as_task(said) for said in said_of(inventory, program)]
    named = [stem, humanize(path.label), *(c for c in candidates if c)]
    verbs = keys(" ".join(w.split()[0] for w in named if w.split()))
    candidates += [  # "Convert the PDF to PNGs", never "pushover-prune handles this"
        c
        for c in lead_ins(inventory, path.invocations)
        if keys(c.split()[0]) & verbs and c.split()[0].lower() not in _names(program)
    ]
    candidates.append(label_phrase(path.label))
    if path.command is not program.cli:
        candidates.append(first_of(path.command.description))  # a subcommand's own help
    phrase = label_phrase(path.label) or (stem if not path.label else "")
    task = next((as_task(t) for t, _prose in documenting(inventory, path.invocations)), "")
    for shown, parsed in list(zip(path.invocations, path.parsed(), strict=True))[:3]:
        # each documented command, as the request it answers; what follows `--` is a
        # command it runs ("mutate.py --target x.py -- python3 calibrate.py"), no value
        run = len(shown.argv) - shown.argv.index("--") - 1 if "--" in shown.argv else 0
        given = parsed.positionals[: len(parsed.positionals) - run]
        candidates.append(usage_request(phrase, _values(given)))
        candidates.append(usage_request(task, _values(given, files=True)))
    if not any(clean(c) for c in candidates if c not in made):
        candidates.append(humanize(path_name(path)))  # nothing else: its name in words
    return [c for c in candidates if c]


# "| `pack.py` | Repack with validation |", "- `scripts/with_server.py` - Manages servers"
_ROW = re.compile(r"^\s*\|\s*`([^`|]+)`\s*\|\s*([^|]+?)\s*\|")
_ITEM = re.compile(r"^\s*[-*+]\s+`([^`]+)`\s+[-–—:]\s+(.+?)\s*$")


def said_of(inventory: Inventory, program: Program) -> list[str]:
    """What the rows of a table of scripts, or the items of a list of them, in the skill's
    documents say ``program`` does ("| `pack.py` | Repack with validation |"), each cut at
    its first clause, a short label before it left out ("Sender: generates a UUID")."""
    names = _names(program) | {program.path.lower()}
    found = []
    for document in inventory.documents:
        for line in document.text.split("\n"):
            match = _ROW.match(line) or _ITEM.match(line)
            named = match.group(1).strip().lower() if match else ""
            if not match or (named not in names and named.rsplit("/", 1)[-1] not in names):
                continue
            text = re.split(r"[,;(]| [-–—] ", match.group(2), maxsplit=1)[0]
            label, colon, rest = text.partition(":")
            found.append(rest if colon and len(label.split()) <= 3 else text)
    return found


def _names(program: Program) -> set[str]:
    """What prose calls a program: its file name with and without the extension."""
    base = program.path.rsplit("/", 1)[-1].lower()
    return {base, base.rsplit(".", 1)[0]}


def _zh_nouns(inventory: Inventory, path: MainPath, action: str) -> dict[str, str]:
    """English objects → Chinese nouns for ``action`` (this path's, or its program's name):
    for an action, its section title's; else the skill's own pairings ("`--followers` 为关注人
    （follower）": ``glossary``); else the usual word the skill uses ("日程" for event:
    ``common_nouns``)."""
    nouns = _section_nouns(inventory, path) if path.label else {}
    obj = verb_and_object(action)[1]
    if obj and obj not in nouns:
        text = "\n".join(d.text for d in inventory.documents)
        words = {**kept_in_latin(text), **common_nouns(text), **glossary(text), **nouns}
        noun = noun_for(obj, words)
        nouns |= {obj: noun} if noun else {}
    return nouns


def _section_nouns(inventory: Inventory, path: MainPath) -> dict[str, str]:
    """English objects of the actions shown in the section of this path's first command →
    the Chinese nouns of that section's title ("## 任务清单" shows create_tasklist, ...)."""
    first = path.invocations[0] if path.invocations else None
    document = next((d for d in inventory.documents if first and d.path == first.file), None)
    section = section_at(document, first.line) if document and first else None
    if section is None or document is None:
        return {}
    later = [s.line for s in document.sections if s.line > section.line]
    end = min(later) if later else 10**9
    shown = sorted(
        (i for i in path.program.invocations if i.file == document.path),
        key=lambda i: i.line,
    )
    objects = []
    for inv in shown:
        if section.line < inv.line < end:
            label = _label_of(path, inv)
            objects += [verb_and_object(label)[1]] if label else []
    return align_nouns(objects, zh_nouns(section.title))


def _label_of(path: MainPath, inv: Invocation) -> str:
    """The action or subcommand ``inv`` runs, the way ``path`` picks its own."""
    parsed = parse_argv(inv.argv, path.program.cli)
    if path.action is not None:
        return next((v or "" for n, v in parsed.flags if n == path.action[0]), "")
    return parsed.subcommand or (parsed.positionals[0] if parsed.positionals else "")


def _values(argv: list[str], *, files: bool = False) -> list[str]:
    """The values of a documented command a user would name: no flags, placeholders,
    folders or markup; file names only with ``files`` (``doc.docx`` is in every command of
    a skill: alone, with the action's name, it tells them apart from nothing)."""
    return [
        w
        for w in argv
        if not w.startswith("-")
        and not is_placeholder(w)
        and not re.search(r"[/\\&#;<>{}]", w)
        and (files or not re.search(r"\.\w{1,5}$", w))
        and 0 < len(w) <= 24
    ]


_LEADING = re.compile(
    r"^(?:(?:if|when|once)\s+you\s+(?:need|want)\s+to\s+|to\s+|(?:first|then|next|also|"
    r"and|so|now|finally)\b,?\s+|(?:you\s+can|you\s+should|please)\s+)+",
    re.I,
)


def lead_ins(inventory: Inventory, invocations: list[Invocation]) -> list[str]:
    """What the prose right before each documented command says it does ("Convert the PDF
    to PNGs with this script:" → "Convert the PDF to PNGs"), clause by clause."""
    found: list[str] = []
    for inv in invocations:
        document = next((d for d in inventory.documents if d.path == inv.file), None)
        if document is None:
            continue
        lines = document.text.split("\n")
        offset = inv.line - document.first_line
        if inv.source == "inline" and 0 <= offset < len(lines):
            text = lines[offset].split("`", 1)[0]
        else:
            text = prose_before(lines, offset)
        text = _PROGRAM_SPAN.sub("", text)  # "`tools/stats.py` prints ..." → "prints ..."
        text = re.sub(r"`-{0,2}([\w-]+)`", r"\1", text)  # "every `--where`" → "every where"
        for clause in re.split(r"(?<=[.!?;:。；：])\s*|,\s+|，", strip_markdown(text)):
            clause = _LEADING.sub("", AGENT_WORDS.sub("", clause)).strip(" -:：.,")
            clause = BRACKETED.sub(" ", clause).strip()  # "Merge command (Step 5)": no step
            if clause and not INSTRUCTION.match(clause) and not labels_the_code(clause):
                found.append(clause)
    return [c for c in found if not re.search(r"[/`<>{}]|\b(?:python|node|bash)\b", c)]


def bold_labels(inventory: Inventory, invocations: list[Invocation]) -> list[str]:
    """The bold line that names the task of each documented command's block, in a section
    that sets out two commands or more so (a list of actions without headings: "-
    **列出文件夹内容**", "**Download a file**" with "Save it locally:" between it and the
    block): the skill's own title for that command.  A one-word English label ("**Good:**",
    "**Windows**") is the kind of example, not a task."""
    found: list[str] = []
    for inv in invocations:
        document = next((d for d in inventory.documents if d.path == inv.file), None)
        if document is None or inv.source == "inline":
            continue
        openings, labels = _fence_labels(document.text)  # computed once per document
        at = bisect_right(openings, inv.line - document.first_line - 1) - 1  # its block
        if at >= 0 and labels[at]:
            found.append(labels[at])
    return found


@lru_cache(maxsize=8)
def _fence_labels(text: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The opening lines (0-based) of the code blocks, and each one's bold label: "" when it
    has none or its section labels fewer than two blocks.  One pass: headings are read
    outside blocks only."""
    lines = text.split("\n")
    opening: list[tuple[int, int]] = []  # (line, section number)
    section, inside = 0, False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            if not inside:
                opening.append((index, section))
            inside = not inside
        elif not inside and line.startswith("#"):
            section += 1
    labels = {index: _label_above(lines, index) for index, _section in opening}
    counts: dict[int, int] = {}
    for index, number in opening:
        counts[number] = counts.get(number, 0) + bool(labels[index])
    return (
        tuple(index for index, _number in opening),
        tuple(labels[index] if counts[number] >= 2 else "" for index, number in opening),
    )


def _label_above(lines: list[str], fence: int) -> str:
    for line in reversed(lines[max(0, fence - _LABEL_REACH) : max(0, fence)]):
        text = line.strip()
        label = _BOLD_LINE.match(text)
        if label and not _CONDITION.search(label.group(1)):
            words = label.group(1).strip()
            return words if has_cjk(words) or len(words.split()) >= 2 else ""
        if text and not (text.endswith((":", "：")) and len(text) <= _SHORT_LEAD):
            return ""  # other prose, a heading, another block: no label of this one
    return ""


# A line that is only a bold phrase, maybe a list item: "- **创建文件夹**", "**Upload a file:**".
_BOLD_LINE = re.compile(r"^(?:[-*+]\s+|\d+[.)]\s+)?\*\*([^*`]{2,60}?)[:：]?\*\*[:：]?$")
_LABEL_REACH = 5  # lines above a block that may hold its label
_SHORT_LEAD = 40  # a lead-in between the label and the block ("保存到本地：")


def comments_above(inventory: Inventory, invocations: list[Invocation]) -> list[str]:
    """The comment beside or right above each documented command in its code block
    ("node $WDS search <keyword>   # Find components by keyword", "# 发送带附件" above it):
    the skill's own words for what that command does."""
    found: list[str] = []
    for inv in invocations:
        document = next((d for d in inventory.documents if d.path == inv.file), None)
        if document is None or inv.source == "inline":
            continue
        lines = document.text.split("\n")
        offset = inv.line - document.first_line
        beside = _BESIDE.search(lines[offset]) if 0 <= offset < len(lines) else None
        if beside and not _CONDITION.search(beside.group(1)):
            found.append(beside.group(1).strip())
        above = lines[offset - 1].strip() if 0 < offset <= len(lines) else ""
        comment = above.lstrip("#/ ").strip()
        if re.match(r"(?:#|//)(?!!)", above) and not _CONDITION.search(comment):
            found.append(comment)  # a shell, Python or JavaScript comment
    return found


# A comment after the command on its line, no quote in it (a quoted "#" is an argument).
_BESIDE = re.compile(r"\s{2,}#\s+([^#'\"]{4,})$")


# A comment that says when to run the command, not what it does: "if ACCEPT — promote this
# version", "check lore.md exists; if not".
_CONDITION = re.compile(
    r"^(?:if|when|once|unless|after|before)\b|\bif not\b|[;,]\s*if\b|如果|若", re.I
)


_PROGRAM_SPAN = re.compile(r"`[^`\s]*\.(?:py|js|mjs|cjs|ts|sh|rb|pl)`\s*")


def prose_before(lines: list[str], offset: int) -> str:
    """The line of prose that introduces the code block holding line ``offset``: above
    its opening fence, blank lines skipped; "" when a heading comes first."""
    index = offset - 1
    while index >= 0 and not lines[index].lstrip().startswith(("```", "~~~")):
        index -= 1  # the block's own lines
    for line in reversed(lines[max(0, index - 3) : max(0, index)]):
        stripped = line.strip()
        if stripped:
            return "" if stripped.startswith(("#", "```", "~~~")) else stripped
    return ""


def path_description(inventory: Inventory, path: MainPath) -> str:
    """What the path gives the user, never "Run <program>": a subcommand's own help; for an
    action, the title of the section showing it, else the action in words (never with what
    the whole program is for, which its siblings share); else the
    program's help, what its section says, its title, its name in words."""
    texts = documenting(inventory, path.invocations)
    tasks = [as_task(title) for title, _prose in texts if as_task(title)]
    if path.command is not path.program.cli and what_it_does(path.command.description):
        return capital(what_it_does(path.command.description))
    if path.label:  # the action alone: "Create an event", in any language
        # What the program is for, added to each of its actions ("Download a single file —
        # Google Drive CLI - Access Google Drive via command line"), is what the siblings
        # share: the router found each description nearer a sibling's (on the 298 corpus
        # skills, with it the self-test passed 90.0 % of the phrases and matched 6.1 % to a
        # sibling; without, 90.9 % and 5.0 %).
        said = [t for c in comments_above(inventory, path.invocations) if (t := title_text(c))]
        said = [t for b in bold_labels(inventory, path.invocations) if (t := as_task(b))] + said
        task = capital(tasks[0] if tasks else said[0] if said else humanize(path.label))
        if inventory.language == "zh":  # in the skill's language ("添加关注人")
            said = [t for t in said if has_cjk(t)] + zh_action_phrases(
                path.label, _zh_nouns(inventory, path, path.label)
            )
            return tasks[0] if tasks and has_cjk(tasks[0]) else (said[0] if said else task)
        return task
    described = describe_path(path)
    if described != f"Run {path.program.path}":
        return described
    sentence = next((s for _t, p in texts if (s := describing(p))), "")
    stem = humanize(path.program.path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return capital(sentence or (tasks[0] if tasks else stem))


def _owner_of(text: str, topics: list[set[str]]) -> int | None:
    if len(topics) == 1:
        return 0
    scores = [len(keys(text) & topic) for topic in topics]
    best = max(scores)
    return scores.index(best) if best >= 1 and scores.count(best) == 1 else None
