"""Documented workflows: where a skill's numbered steps mix programs and judgement.

A section whose ordered list runs a program in at least one item, and either has an item
without a program or runs two programs, is a workflow (``find_workflows``); so are steps
written as sub-headings when one reads a file an earlier one saves, or when a step of
judgement follows a program's (``### Step 2: Run Automated Analysis``, ``### Step 3: Review
Quality Scores``) under a section of the document (not its title over its phases) and every
command of them is one its program takes.  A list of things rather
than steps (a document's sections) above one program's command is none.  A step that says to
run a program with no command of its own runs it as SKILL.md first shows it.  Data piped into
a program comes from an input (``cat FILE |``, ``< FILE``, ``echo TEXT |``) or from the step of
the program piping into it (``a.py | b.py``); a workflow with data from any other command's
output cannot be reproduced (``unreproduced_pipe``).  ``step_builder.py`` makes its steps.
"""

from __future__ import annotations

import posixpath
import re

from skill2app.converter.analyzers.document import (
    Item,
    ancestors,
    headed_items,
    ordered_items,
)
from skill2app.converter.analyzers.paths import (
    is_output_file,
)
from skill2app.converter.analyzers.text import (
    SETUP_TITLES,
    has_cjk,
    strip_markdown,
)
from skill2app.converter.analyzers.verbs import names_an_action
from skill2app.converter.inventory.invocations import Invocation
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.inventory.programs.interface import (
    Command,
    ParsedArgs,
    as_run,
    parse_argv,
)
from skill2app.converter.inventory.skill import SkillDoc


def find_workflows(inventory: Inventory) -> list[tuple[int, list[Item]]]:
    """(section index, items) of every workflow section, in document order: a numbered list,
    or steps written as sub-headings (``### Step 2: Parse``), whose steps inside a workflow
    of sub-headings are not read again as workflows of their own."""
    doc = inventory.skill
    found = []
    inside = -1  # last line of the workflow of sub-headings being read
    for index in range(len(doc.sections)):
        if _in_setup(doc, index) or doc.sections[index].line <= inside:
            continue  # "1. Log into your account ... 4. run configure.py": done once, by hand
        headed = _headed_workflow(inventory, index)
        if headed:
            found.append((index, headed))
            inside = doc.sections[index].end_line
            continue
        items = ordered_items(doc, index)
        if len(items) < 2:
            continue
        _place(inventory, items)
        _run_where_named(inventory, items, doc.sections[index].title)
        programs = {inv.program for item in items for inv in item.invocations}
        judgement = [item for item in items if not item.invocations]
        if judgement and len(programs) == 1 and _enumeration(judgement):
            continue  # "1. 件名 (Subject) … 13. 承認欄" over its checker: things, not steps
        if programs and (judgement or len(programs) >= 2):
            found.append((index, items))
    return found


def _enumeration(items: list[Item]) -> bool:
    """Whether items are names of things (the sections a document needs: "件名 (Subject)",
    "Risks"), not steps to take: short, no sentence, no action."""
    for item in items:
        if len(item.text) > 200:
            return False
        name = re.sub(r"[(（][^()（）]*[)）]", "", strip_markdown(item.text)).strip()
        short = len(name) <= 16 if has_cjk(name) else len(name.split()) <= 3
        if not short or re.search(r"[.。:：!?！？]", name) or names_an_action(name):
            return False
        if _JA_PREDICATE.search(name):  # 結果を確認する, 修正します: a step, in Japanese
            return False
    return True


_JA_PREDICATE = re.compile(r"[をにへでと][^\s]*[るすくぐむぶつうた]$|(?:する|します|して|した)$")


def _place(inventory: Inventory, items: list[Item]) -> None:
    """Give each item the invocations of SKILL.md written inside it."""
    for item in items:
        item.invocations = sorted(
            (
                inv
                for p in inventory.programs
                for inv in p.invocations
                if inv.file == inventory.skill.path and item.line <= inv.line <= item.end_line
            ),
            key=lambda inv: (inv.line, inv.position, inv.program),  # a | b | c: a, b, c
        )


def _headed_workflow(inventory: Inventory, index: int) -> list[Item]:
    """The steps of section ``index`` written as sub-headings, when one reads a file an
    earlier one saves, or a step of judgement follows a program's (under a section of the
    document, every command one its program takes); steps before the first that runs a
    program (collecting the input) and setup steps are left out."""
    doc = inventory.skill
    items = [
        item
        for item in headed_items(doc, index, _one_workflow(doc.sections[index].title))
        if not SETUP_TITLES.search(doc.sections[doc.section_of(item.line)].title)
    ]
    _place(inventory, items)
    first = next((i for i, item in enumerate(items) if item.invocations), len(items))
    items = items[first:]
    saved: set[str] = set()
    for item in items:  # a step reads a file an earlier step saved: one chain of data
        for inv in item.invocations:
            if saved & set(inv.argv):
                return items
        saved |= {value for inv in item.invocations for value in _saves(inventory, inv)}
    judging = any(not item.invocations for item in items[1:])
    runnable = all(_maps(inventory, inv) for item in items for inv in item.invocations)
    if doc.sections[index].level > 1 and judging and runnable:
        return items  # a step of judgement on what a program found ("Review Quality Scores")
    return []  # the document's own title over its phases: the skill, not one workflow


def _maps(inventory: Inventory, inv: Invocation) -> bool:
    """Whether every flag a command passes is one its program declares (a parser that says
    which it takes); a document's slip (``--input`` to a program without it) is no step."""
    cli, parsed = read_call(inventory, inv)
    command = as_run(cli, parsed.subcommand) if parsed.subcommand else cli  # its options too
    if command.framework == "none" and not command.params:
        return True
    return all(
        command.flag(name) is not None or name in ("-h", "--help") for name, _v in parsed.flags
    )


def _saves(inventory: Inventory, inv: Invocation) -> list[str]:
    """The files an invocation names to an output-file flag (``--output events.json``)."""
    cli, parsed = read_call(inventory, inv)
    return saves_in(cli.subcommands.get(parsed.subcommand, cli), parsed.flags)


def read_call(inventory: Inventory, inv: Invocation) -> tuple[Command, ParsedArgs]:
    """The command line of the program ``inv`` runs (``Command("none")`` when it declares
    none), and ``inv``'s words read against it."""
    program = inventory.program(inv.program)
    cli = (program.cli if program else None) or Command("none")
    return cli, parse_argv(inv.argv, cli)


def saves_in(command: Command, flags: list[tuple[str, str | None]]) -> list[str]:
    """The file names (with an extension) given to ``command``'s output-file flags."""
    return [
        value
        for name, value in flags
        if value is not None
        and _FILE_NAME.search(value)
        and (param := command.flag(name)) is not None
        and is_output_file(param)
    ]


_FILE_NAME = re.compile(r"[^/\\]\.[A-Za-z0-9]{1,8}$")


def folder_like(value: str) -> bool:
    """``out/``, ``/home/me/cards_work``: a folder, which the program fills, not a file whose
    content it would print instead."""
    return value.endswith(("/", "\\")) or ("/" in value and "." not in value.rsplit("/", 1)[-1])


def _run_where_named(inventory: Inventory, items: list[Item], title: str = "") -> None:
    """A step that says to run a program (``1. `scripts/count.py` を実行する``) runs the
    command the example block under the list shows for it (read as the last step's): the
    program runs first, and the last step is judgement again (workspace-count-tokens ran its
    script after four llm steps that were to present its report).  Only the last step gives
    its command away, and only to a step with a word for running it: "make sure the
    dependencies of `scripts/x.py` are installed" runs nothing.  With no such block, the step
    runs the program as SKILL.md first shows it (a quick start above the list)."""
    if not items:
        return
    last = items[-1]
    for item in items[:-1]:
        if item.invocations or not _RUN_WORD.search(item.raw):
            continue
        named = [
            inv
            for inv in last.invocations
            if f"`{inv.program}`" in item.raw or f"`{posixpath.basename(inv.program)}`" in item.raw
        ]
        if named and not any(posixpath.basename(inv.program) in last.text for inv in named):
            item.invocations = named
            last.invocations = [inv for inv in last.invocations if inv not in named]
            return
    if any(item.invocations for item in items) or not _WORKFLOW_TITLE.search(title):
        return  # "## Tips: 1. If you get a timeout, run `fetch.py` again": no workflow
    for item in items:  # each: "2. Run `missing_value_analyzer.py` to classify ..."
        if _CONDITIONAL.match(item.text) or _FORBIDS.match(item.text):
            continue  # "3. Never run `purge.py` without the user's confirmation"
        if not _RUN_WORD.search(item.raw):
            continue
        shown = [
            first
            for program in inventory.programs
            if _names(item.raw, program.path)
            and (first := _first_shown(inventory, program.invocations)) is not None
        ]
        if len(shown) == 1:
            item.invocations = shown


def _first_shown(inventory: Inventory, invocations: list[Invocation]) -> Invocation | None:
    """The first command of SKILL.md running a program, a block's before a mention in prose
    ("from `data_profiler.py --monitor`" is no way to run it for a full audit)."""
    mine = [inv for inv in invocations if inv.file == inventory.skill.path]
    return next((inv for inv in mine if inv.source == "block"), mine[0] if mine else None)


# A section whose numbered list is the way the work is done, and a step that only applies
# sometimes.
_WORKFLOW_TITLE = re.compile(
    r"workflow|process|procedure|\bsteps?\b|how to|quick ?start|usage|\bmode\b|流程|步骤|手順|"
    r"ワークフロー",
    re.I,
)
# "Key Workflows", "Processes": a list of tasks, each numbered sub-heading one of its own.
_SEVERAL = re.compile(r"\b(?:workflows|processes|procedures|modes|examples)\b", re.I)


def _one_workflow(title: str) -> bool:
    """Whether a section is one workflow whose numbered sub-headings are its steps
    ("## Primary Workflow: Data Upload → Chart Explorer" over "### 1. Analyze Data"; not
    "## Usage" over alternatives: "### 1. Summarize a CSV", "### 2. Compare two CSVs")."""
    return bool(_ONE_WORKFLOW.search(title)) and not _SEVERAL.search(title)


_ONE_WORKFLOW = re.compile(
    r"workflow|process|procedure|\bsteps\b|流程|步骤|手順|ワークフロー", re.I
)


# A step that holds a program back: "Never run `purge.py` …", "不要运行 …".
_FORBIDS = re.compile(
    r"\W*(?:(?:never|do not|don't|avoid|must not|should not)\b|不要|禁止|勿)", re.I
)
_CONDITIONAL = re.compile(r"\s*(?:if|when|unless|in case|如果|若|当|もし)\b", re.I)


def _names(raw: str, path: str) -> bool:
    return f"`{path}`" in raw or f"`{posixpath.basename(path)}`" in raw


_RUN_WORD = re.compile(r"\b(?:run|execute|invoke|call)\b|実行|执行|运行|調用|调用", re.I)


def _fed_by_program(inv: Invocation) -> bool:
    """Whether a program of the skill pipes into ``inv`` (in ``a.py | b.py``, b runs after a)."""
    return inv.stdin is not None and inv.stdin.kind == "program"


def unreproduced_pipe(items: list[Item]) -> Invocation | None:
    """The first invocation whose stdin the workflow cannot feed: another command's output, or
    a program's that no earlier step runs."""
    ran: set[str] = set()
    for item in items:
        for inv in item.invocations:
            stdin = inv.stdin
            if stdin and (
                stdin.kind == "command" or (_fed_by_program(inv) and stdin.value not in ran)
            ):
                return inv
            ran.add(inv.program)
    return None


def _in_setup(doc: SkillDoc, index: int) -> bool:
    """Whether section ``index`` or a section it sits under has a setup-like title."""
    return any(
        SETUP_TITLES.search(doc.sections[at].title) for at in [index, *ancestors(doc, index)]
    )
