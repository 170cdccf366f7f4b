"""What the heuristic leaves to Skill mode, and why.

A pipeline running a program that asks its questions on the terminal (a step has none to
answer them) or waits for a person in the browser it opens, a library's demo, or one the
skill runs only with the user's approval (no heuristic step stops for it), or one whose
code reaches the workspace above the skill by a fixed path (another place in an APP
folder), or one whose command line the steps cannot satisfy (``check_plan``'s error), is
taken out of the plan and listed with its reason: one unusual program never stops the
conversion of the rest.  The sections of SKILL.md no pipeline covers are listed too, with
what they are for the model (rules, examples, judgement, guidance).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from skill2app.converter.analyzers.document import section_prose
from skill2app.converter.analyzers.text import (
    EXAMPLE_TITLES,
    RULE_TITLES,
    is_rule,
    tier_for,
    unique,
)
from skill2app.converter.inventory.markdown import WHEN_TITLES
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.inventory.programs.facts import Program, read_source
from skill2app.converter.inventory.programs.interface import Param
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.model import Arg, CodeStep, Input, LlmStep, Pipeline, Plan
from skill2app.converter.plan.model import SkillModeItem as Kept


def leave_interactive(plan: Plan, inventory: Inventory) -> None:
    """Leave to Skill mode every pipeline running a program that asks its questions on the
    terminal (``Program.prompts_at``): a step has none, so it would stop at the first one;
    and one that waits for a person in the browser it opens (``Program.waits_at``)."""

    def kept(pipeline: Pipeline, path: str) -> Kept:
        program = inventory.program(path)
        if program is not None and program.waits_at:
            why = (
                f"opens the user's browser and waits for it on a local port "
                f"({path}:{program.waits_at}); a pipeline step has no one to sign in or click"
            )
        else:
            line = program.prompts_at if program is not None else 0
            why = (
                f"asks its questions on the terminal ({path}:{line}); "
                "a pipeline step has none to answer them"
            )
        return Kept(_topic(pipeline, path), why, pipeline.source)

    waiting = set()
    for program in [p for p in inventory.programs if p.waits_at]:
        page = program.cli.flag(PAGE_FLAG) if program.cli is not None else None
        if page is None:
            waiting.add(program.path)
        else:
            _pass_always(plan, program.path, page)
    asking = {p.path for p in inventory.programs if p.prompts_at}
    _leave_running(plan, asking | waiting, kept)


# The flag with which a program that serves a page for the browser writes it instead
# (skill-creator's ``generate_review.py --static review.html``); not opening the browser
# (``--no-browser``) still leaves it waiting on its port.
PAGE_FLAG = "--static"


def _pass_always(plan: Plan, path: str, escape: Param) -> None:
    """Make every step running ``path`` pass ``escape``: a switch as a bare flag, a value
    flag from an input (the one the step had, or a new one named after it) that defaults to
    a page named after the program (``generate_review.html``)."""
    for pipeline in plan.pipelines:
        for step in [s for s in pipeline.steps if isinstance(s, CodeStep) and s.program == path]:
            arg = next((a for a in step.args if a.flag == escape.name), None)
            if escape.type == "boolean":
                if arg is not None:
                    step.args.remove(arg)
                step.args.append(Arg(flag=escape.name))
                continue
            name = arg.ref.removeprefix("input.") if arg and arg.ref.startswith("input.") else ""
            if arg is None or not name:
                name = escape.dest
                if arg is not None:
                    step.args.remove(arg)
                step.args.append(Arg(flag=escape.name, ref=f"input.{name}"))
            known = next((i for i in pipeline.input if i.name == name), None)
            page = f"{posixpath.splitext(posixpath.basename(path))[0]}.html"
            if known is None:
                why = f"where {path} writes its page ({escape.name}) instead of serving it"
                pipeline.input.append(Input(name, "string", description=why, default=page))
            elif known.default is None and not known.required:
                known.default = page


def leave_gated_flags(plan: Plan, gated: dict[tuple[str, str], str]) -> None:
    """Take out of every pipeline a flag the skill adds only after the user approves
    (``consent.gated_flags``: ``--apply`` of a cleaner that previews by default): a step
    passing it from an input no longer takes that input, and a pipeline that always passes
    it (the flag's own mode) is left to Skill mode.  Each is listed with the reason."""
    for pipeline in list(plan.pipelines):
        for step in [s for s in pipeline.steps if isinstance(s, CodeStep)]:
            for arg in [a for a in step.args if (step.program, a.flag) in gated]:
                where = gated[(step.program, arg.flag)]
                topic = f"{step.program} {arg.flag}"
                if not arg.ref.startswith("input."):  # the mode itself: no pipeline runs it
                    why = f"the skill adds {arg.flag} only after the user approves ({where})"
                    plan.pipelines.remove(pipeline)
                    plan.skill_mode.append(Kept(topic, why, where))
                    break
                step.args.remove(arg)
                name = arg.ref.removeprefix("input.")
                used = re.compile(rf"\binput\.{re.escape(name)}\b")
                if not any(used.search(str(s.to_dict())) for s in pipeline.steps):
                    pipeline.input = [i for i in pipeline.input if i.name != name]
                    if pipeline.sample.input is not None:
                        pipeline.sample.input.pop(name, None)
                why = (
                    f"the skill adds {arg.flag} only after the user approves ({where}); "
                    f"the {pipeline.name} pipeline runs without it"
                )
                plan.skill_mode.append(Kept(topic, why, where))
            if pipeline not in plan.pipelines:
                break


def leave_demos(plan: Plan, inventory: Inventory) -> None:
    """Leave to Skill mode every pipeline running a Python library the skill's own code
    imports (a block of a document: ``from figure_export import save_publication_figure``),
    that no block of a document runs (a mention, "`python scripts/figure_export.py` for
    examples", is no task) and that takes nothing from its command line, stdin or
    environment: run alone, its ``__main__`` block is the author's demo
    (``example_figure.pdf`` written into the caller's folder), whatever the request."""
    imported = {
        program.path: where
        for program in inventory.programs
        if program.language == "python"
        and not any(i.source == "block" and i.file != program.path for i in program.invocations)
        if (where := _imported_at(inventory, program.path))
        and _takes_nothing(inventory, program)  # last: it reads the program's file
    }  # fmt: skip

    def kept(pipeline: Pipeline, path: str) -> Kept:
        why = (
            f"a library the skill's code imports ({imported[path]}); run alone it runs its own "
            "demo and takes no input"
        )
        return Kept(_topic(pipeline, path), why, imported[path])

    _leave_running(plan, set(imported), kept)


# What a program reads from whoever runs it, besides a parser's flags.
_READS_CALLER = re.compile(
    r"\bsys\.(?:argv|stdin)\b|\binput\(|\benviron\b|\bgetenv\(|\bfileinput\b|\bgetopt\b"
)


def _takes_nothing(inventory: Inventory, program: Program) -> bool:
    cli = program.cli
    if cli is not None and (cli.params or cli.subcommands):
        return False
    return not _READS_CALLER.search(read_source(inventory.root / program.path))


def _imported_at(inventory: Inventory, path: str) -> str:
    """Where a Python block of a document imports the module ``path`` is ("file:line")."""
    module = re.escape(path.rsplit("/", 1)[-1].removesuffix(".py"))
    imports = re.compile(
        rf"^\s*(?:from\s+(?:[\w.]+\.)?{module}\s+import\b|import\s+{module}\b)", re.M
    )
    for doc in inventory.documents:
        for block in doc.code_blocks:
            if block.language in ("python", "py", "") and (found := imports.search(block.text)):
                line = block.line + 1 + block.text.count("\n", 0, found.start())
                return f"{doc.path}:{line}"
    return ""


def leave_reaching_out(plan: Plan, inventory: Inventory) -> None:
    """Leave to Skill mode every pipeline running a program whose code reads or writes the
    host's folders above the skill by a fixed path (``Program.reaches_out``: a diary, a
    USER.md, a memory folder of the workspace the skill is installed in), when the skill
    guards the user's private data: in an APP folder that path names another place, and a
    pipeline any request runs would read or write it without the user choosing it."""

    def kept(pipeline: Pipeline, path: str) -> Kept:
        program = inventory.program(path)
        places = program.reaches_out if program is not None else []
        named = [p for p in places if p[0].strip("./")] or places
        place, line = named[0] if named else ("..", 0)
        why = (
            f"its code reads or writes {place} above the skill's folder by a fixed path "
            f"({path}:{line}): the workspace it is installed in, another place in an APP"
        )
        return Kept(_topic(pipeline, path), why, pipeline.source)

    doc = inventory.skill
    if not _GUARDS_PRIVACY.search(f"{doc.frontmatter.description}\n{doc.body}"):
        return  # cron-manager's session commands open the host app's database: its design
    _leave_running(plan, {p.path for p in inventory.programs if p.reaches_out}, kept)


# A skill that guards the user's private data or files ("只有用户明确同意…才读取日记", "never
# read private files without consent"): a program reaching the workspace is what it guards.
_GUARDS_PRIVACY = re.compile(
    r"隐私|私人|个人资料|个人信息|授权|プライバシー|個人情報|\b(?:privacy|private|consent|"
    r"personal (?:data|files|information))\b",
    re.I,
)


def leave_gated(plan: Plan, gated: dict[str, str]) -> None:
    """Leave to Skill mode every pipeline running a program the skill runs only with the
    user's approval (``consent.gated_programs``: program -> where it says so): no heuristic
    step stops for it."""

    def kept(_pipeline: Pipeline, path: str) -> Kept:
        why = (
            f"the skill runs {path} only with the user's approval ({gated[path]}); "
            "a pipeline would not stop to ask"
        )
        return Kept(path, why, gated[path])

    _leave_running(plan, set(gated), kept)


def _leave_running(plan: Plan, programs: set[str], kept: Callable[[Pipeline, str], Kept]) -> None:
    """Remove every pipeline a step of which runs one of ``programs``, and list it as left to
    Skill mode (``kept`` of the pipeline and its first such program; each reason once)."""
    for pipeline in list(plan.pipelines):
        running = [
            s.program for s in pipeline.steps if isinstance(s, CodeStep) and s.program in programs
        ]
        if not running:
            continue
        plan.pipelines.remove(pipeline)
        item = kept(pipeline, running[0])
        if not any(k.topic == item.topic and k.reason == item.reason for k in plan.skill_mode):
            plan.skill_mode.append(item)


def _topic(pipeline: Pipeline, program: str) -> str:
    """What a Skill-mode entry is about: the program a one-step pipeline runs, else the
    pipeline."""
    return program if len(pipeline.steps) == 1 else pipeline.name


def leave_unmappable(plan: Plan, inventory: Inventory) -> None:
    """Leave to Skill mode, with the reason, every pipeline that does not fit the skill (a
    program whose command line the steps cannot satisfy): one unusual program never stops
    the conversion of the rest."""
    errors: dict[int, list[str]] = {}
    for message in check_plan(plan, inventory):
        match = re.match(r"pipelines\[(\d+)\]", message)
        if match:
            errors.setdefault(int(match.group(1)), []).append(message.split(": ", 1)[-1])
    for index in sorted(errors, reverse=True):
        pipeline = plan.pipelines.pop(index)
        programs = unique([s.program for s in pipeline.steps if isinstance(s, CodeStep)])
        topic = _topic(pipeline, programs[0]) if programs else pipeline.name
        reason = f"its command line could not be mapped to a pipeline: {errors[index][0]}"
        plan.skill_mode.append(Kept(topic, reason, pipeline.source))


def skill_mode_items(inventory: Inventory, covered: set[int], plan: Plan) -> list[Kept]:
    doc = inventory.skill
    has_llm = any(isinstance(s, LlmStep) for p in plan.pipelines for s in p.steps)
    levels = [s.level for s in doc.sections]
    top = min((lv for lv in levels if lv > min(levels)), default=min(levels, default=1))
    kept = []
    for index, section in enumerate(doc.sections):
        if index in covered or section.level < top or not section_prose(doc, index):
            continue
        if _CONTENTS.match(section.title):  # "Table of Contents", "目录": the document's map
            continue
        kept.append(
            Kept(
                section.title,
                _reason(section_prose(doc, index), section.title, has_llm),
                f"{doc.path}:{section.line}",
            )
        )
    return kept


_CONTENTS = re.compile(r"^\W*(?:table of contents|contents|toc|目录|目次)\W*$", re.I)


def _reason(prose: str, title: str, has_llm: bool) -> str:
    if RULE_TITLES.search(title):
        if has_llm:
            return "rules for the model's own writing; llm steps also carry them as content rules"
        return "rules for the model's own writing; no pipeline step writes text"
    if EXAMPLE_TITLES.search(title):
        return "examples for the model; kept as context in Skill mode"
    if WHEN_TITLES.search(title):
        return "says when the skill applies; routing uses the pipelines' descriptions and triggers"
    if is_rule(prose) or tier_for(prose) == "reasoning" or "?" in prose or "？" in prose:
        return "needs judgement that no program covers"
    return "guidance without a program; the model follows it in Skill mode"
