"""The heuristic analyzer: a deterministic plan from the inventory, without any network.

1. Each documented workflow (a numbered list that runs programs and asks for judgement, or
   steps under sub-headings that hand a file on) becomes one pipeline of code and llm steps
   (``workflow.py`` finds it, ``step_builder.py`` makes its steps).
2. Each program not used only inside a workflow gives one pipeline per main path: per
   subcommand, per value of an action flag (``--action create_event``), or one for the
   program (``paths.py``).
3. A skill without programs whose SKILL.md states rules or steps gets one llm pipeline that
   applies them to the user's text; a judgement-led skill with programs gets one that
   applies its method, a survey program first and the files the model makes saved last
   (``method.py``).
4. Triggers come from the skill's own words (section titles, subcommand help, "Use when ..."
   clauses of the description), so they are in the skill's language.
5. Binaries, env vars, packages, config files and auth the skill mentions become constructor
   checks (what only programs no pipeline runs need is left out); cleanup the skill asks for
   becomes destructor actions (``lifecycle.py``); prose sections no pipeline covers, every
   documented use of a program no pipeline runs (its data piped in from a command no step
   reproduces), and programs no document runs or names (helpers of the others), stay in
   Skill mode with a reason (``leaving.py``).
6. A pipeline that does not fit the skill after all (``check_plan`` finds a flag the program
   lacks, a positional it cannot be given) is left to Skill mode with the error as its
   reason: one unusual program never stops the conversion of the others.
"""

from __future__ import annotations

import posixpath
import re

from skill2app.converter.analyzers.claims import adopt, described, settle
from skill2app.converter.analyzers.commands import command_pipelines
from skill2app.converter.analyzers.consent import gated_flags, gated_programs
from skill2app.converter.analyzers.coverage import unaccounted
from skill2app.converter.analyzers.document import (
    Item,
    own_range,
    section_prose,
)
from skill2app.converter.analyzers.documentation import (
    distribute_quotes,
    path_candidates,
    path_description,
    section_at,
)
from skill2app.converter.analyzers.leaving import (
    leave_demos,
    leave_gated,
    leave_gated_flags,
    leave_interactive,
    leave_reaching_out,
    leave_unmappable,
    skill_mode_items,
)
from skill2app.converter.analyzers.lifecycle import constructor, destructor
from skill2app.converter.analyzers.method import method_pipeline, prose_pipeline, skill_purpose
from skill2app.converter.analyzers.paths import (
    MainPath,
    code_step,
    fed_by_command,
    main_paths,
    path_name,
    piped_reason,
    what_it_does,
)
from skill2app.converter.analyzers.separation import dedupe
from skill2app.converter.analyzers.situations import situations
from skill2app.converter.analyzers.snippets import snippet_pipelines
from skill2app.converter.analyzers.step_builder import workflow_steps
from skill2app.converter.analyzers.subcommands import documented_tool, subcommand_pipelines
from skill2app.converter.analyzers.text import (
    GENERIC_TITLES,
    capital,
    first_sentence,
    has_cjk,
    humanize,
    keys,
    skill_braces,
    slug,
    strip_markdown,
    unique,
)
from skill2app.converter.analyzers.triggers import (
    as_task,
    describing,
    title_text,
    worth,
)
from skill2app.converter.analyzers.verbs import verb_of
from skill2app.converter.analyzers.when_clauses import use_when_phrases
from skill2app.converter.analyzers.workflow import find_workflows, unreproduced_pipe
from skill2app.converter.inventory.exits import ok_exit_codes
from skill2app.converter.inventory.invocations import Invocation, order_key
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.inventory.programs.language import windows_twins
from skill2app.converter.inventory.programs.program import Program
from skill2app.converter.plan.model import CodeStep, LlmStep, Pipeline, Plan
from skill2app.converter.plan.model import SkillModeItem as Kept

UNMENTIONED = "no document of the skill runs or names it: a helper of its programs, not a task"
SHOWN_ONLY = "SKILL.md shows how (code or a command); no pipeline reproduces it, the model does"


def analyze(inventory: Inventory) -> Plan:
    fm = inventory.skill.frontmatter
    name = slug(fm.name, 12) or slug(inventory.root.name, 12) or "skill"
    plan = Plan(name, fm.description, inventory.language, "heuristic")
    covered: set[int] = set()  # sections a pipeline comes from
    in_workflow: set[tuple[str, str, int]] = set()
    kept: set[tuple[str, str, int]] = set()  # piped into, in a workflow kept in Skill mode
    claims: list[tuple[Pipeline, str, float]] = []  # "Use when" clauses the paths matched
    judged: set[str] = set()  # programs a workflow runs beside steps of judgement
    for index, items in find_workflows(inventory):
        covered.add(index)
        unreproduced = unreproduced_pipe(items)
        if unreproduced is not None:  # its data comes from a pipe no step reproduces
            where = f"{unreproduced.file}:{unreproduced.line}"
            title = inventory.skill.sections[index].title
            plan.skill_mode.append(Kept(title, piped_reason(unreproduced), where))
            kept |= {_at(inv) for item in items for inv in fed_by_command(item.invocations)}
            continue
        pipeline, found = _workflow_pipeline(inventory, index, items, plan)
        plan.pipelines.append(pipeline)
        if any(isinstance(step, LlmStep) for step in pipeline.steps):
            judged |= {inv.program for item in items for inv in item.invocations}
        claims.extend((pipeline, clause, strength) for clause, strength in found.items())
        if items[0].heading:  # each step has its own heading: a task of its own too
            doc = inventory.skill
            covered |= {doc.section_of(item.line) for item in items}
        else:
            in_workflow |= {_at(inv) for item in items for inv in item.invocations}
    twins = windows_twins(
        [p.path for p in inventory.programs], {p.path: p.language for p in inventory.programs}
    )
    for program in sorted(inventory.programs, key=_first_use):
        invs = program.invocations
        if program.path in twins:  # the pipeline runs the POSIX one
            why = f"the Windows twin of {twins[program.path]}: the model runs it on Windows"
            plan.skill_mode.append(Kept(program.path, why))
            continue
        if invs and all(_at(inv) in in_workflow for inv in invs):
            plan.notes.append(f"{program.path} runs only inside a workflow pipeline")
            continue
        claims += _program_pipelines(
            inventory, program, in_workflow | kept, covered, plan, program.path in judged
        )
    settle(claims)
    plan.pipelines += snippet_pipelines(inventory, {p.name for p in plan.pipelines})
    shown = documented_tool(inventory)
    tool = subcommand_pipelines(inventory, {p.name for p in plan.pipelines}, shown) if shown else []
    plan.pipelines += command_pipelines(  # a tool's commands are its subcommands' pipelines'
        inventory,
        {p.name for p in [*plan.pipelines, *tool]},
        frozenset(shown[0][:1]) if shown and tool else frozenset(),
    )
    plan.pipelines += tool
    leave_interactive(plan, inventory)
    leave_demos(plan, inventory)
    leave_reaching_out(plan, inventory)
    gated = gated_programs(inventory)  # read once: the method's steps may name them too
    leave_gated(plan, gated)
    leave_gated_flags(plan, gated_flags(inventory))
    if not plan.pipelines:  # no programs, or none a step can run: the model does the task
        prose = prose_pipeline(inventory, plan.app_name, covered)
        plan.pipelines.extend([prose] if prose else [])
    method = method_pipeline(inventory, plan.app_name, plan.pipelines, covered, gated)
    plan.pipelines.extend([method] if method else [])
    adopt(plan, situations(inventory.skill), {clause for _p, clause, _s in claims})
    distribute_quotes(plan, inventory)
    dedupe(plan)
    for pipeline in plan.pipelines:  # `{{PROJECT_NAME}}` in the skill's text is no reference
        steps = {s.name for s in pipeline.steps}
        for step in pipeline.steps:
            if isinstance(step, LlmStep):
                step.prompt = skill_braces(step.prompt, steps)
    leave_unmappable(plan, inventory)
    _installers_not_sampled(plan, inventory)
    _told_apart(plan, inventory)
    plan.constructor = constructor(inventory, plan)
    plan.destructor = destructor(inventory)
    plan.skill_mode = skill_mode_items(inventory, covered, plan) + plan.skill_mode
    plan.skill_mode += [
        Kept(task.title, SHOWN_ONLY, f"{inventory.skill.path}:{task.line}")
        for task in unaccounted(plan, inventory)
    ]
    plan.skill_mode.append(
        Kept(
            "Requests no pipeline matches",
            "the Runner falls back to SKILL.md, which stays unchanged (APP spec §1, §7 step 3)",
        )
    )
    plan.notes = unique([*plan.notes, *_warnings(inventory)])
    return plan


def _told_apart(plan: Plan, inventory: Inventory) -> None:
    """Pipelines of different programs whose descriptions are the same action ("List" of
    drive.py and of calendar.py: an action's description is the action alone) say which
    program's, with what it is for ("List — Google Drive from the command line"); a
    description that is a bare word ("Init", "Status": a subcommand's name, 65 of the
    corpus's 809 pipelines, "one-word descriptions" to round 48's judge) names its program
    ("Init (blackboard)"), or for one named main.ts what the skill does."""
    programs = {p.path: p for p in inventory.programs}
    alike: dict[str, list[tuple[Pipeline, Program]]] = {}
    for pipeline in plan.pipelines:
        step = next((s for s in pipeline.steps if isinstance(s, CodeStep) and s.program), None)
        if step is not None and step.program in programs:
            key = pipeline.description.casefold().strip()
            alike.setdefault(key, []).append((pipeline, programs[step.program]))
    for group in alike.values():
        shared = len({program.path for _p, program in group}) >= 2
        for pipeline, program in group:
            if shared:
                stem = humanize(posixpath.splitext(posixpath.basename(program.path))[0])
                pipeline.description = f"{pipeline.description} — {_help(program) or stem}"
            elif _bare(pipeline.description):
                pipeline.description = _named(pipeline.description, program, inventory)


def _bare(description: str) -> bool:
    """A description that is a word ("Init", "Status", "Main"), or two that are not a verb and
    its object ("Wiki nodes", "Import from"; "List events" and "Split PDF" say enough)."""
    words = re.findall(r"[^\W\d_]+", description)
    if has_cjk(description) or len(words) > 2 or description.rstrip().endswith((".", "!")):
        return False  # a sentence of the author's ("Greet someone.")
    return len(words) < 2 or not verb_of(words[0]) or words[1].lower() in _PREPOSITIONS


_PREPOSITIONS = frozenset("from to into in on at by for with of as via".split())
_GENERIC_STEMS = frozenset("main index cli run app script tool tools entry start".split())


def _named(description: str, program: Program, inventory: Inventory) -> str:
    """A bare ``description`` with its program's name ("Init (blackboard)"): what the program
    is for, said after each of its bare actions, drew them together (on the 26 corpus skills
    whose descriptions that changed, the self-test fell from 91.8 to 85.6 %; the name
    instead, on the 27 it changes, raised it from 91.5 to 92.6 %). A program named
    ``main``, ``index``, ``cli`` … names nothing: what the skill does is said instead ("Main —
    Fetch any URL and convert it to Markdown"); one the description names already, its help."""
    stem = posixpath.splitext(posixpath.basename(program.path))[0]
    said = keys(stem)  # empty for `gh`, `jq`: named all the same
    if stem.lower() not in _GENERIC_STEMS and not (said and said <= keys(description)):
        return f"{description} ({humanize(stem)})"
    if stem.lower() in _GENERIC_STEMS:
        about = skill_purpose(inventory.skill.frontmatter.description)
    else:  # named as its program is ("Compliance check" of compliance_check.py): its help
        about = _help(program) or first_sentence(what_it_does(program.doc))
    if not about or len(about) > MAX_ABOUT or keys(about) <= keys(description):
        return description
    if use_when_phrases(about):  # the description says only when to use the skill
        return description
    return f"{description} — {about}"


MAX_ABOUT = 120  # characters of what a skill does, said after a bare description


def _help(program: Program) -> str:
    """The first sentence of what ``program``'s own help says it does ("" without help)."""
    return first_sentence(what_it_does(program.cli.description if program.cli else ""))


def _installers_not_sampled(plan: Plan, inventory: Inventory) -> None:
    """A pipeline running a program that installs tools on this machine (``Program.installs``:
    install-mq.sh puts mq into /usr/local/bin, with sudo if it must) has no sample to run:
    ``app-run test`` ran the installer for real (a newcomer's trial)."""
    installs = {p.path: p.installs for p in inventory.programs if p.installs}
    for pipeline in plan.pipelines:
        program = next(
            (
                s.program
                for s in pipeline.steps
                if isinstance(s, CodeStep) and s.program in installs
            ),
            "",
        )
        if program and not pipeline.sample.skip:
            tools = ", ".join(sorted(installs[program]))
            pipeline.sample.skip = (
                f"{program} installs {tools} on this machine: its sample is not run by app-run "
                "test or the smoke run (run the pipeline by hand)"
            )


def _program_pipelines(
    inventory: Inventory,
    program: Program,
    handled: set[tuple[str, str, int]],
    covered: set[int],
    plan: Plan,
    judged: bool = False,
) -> list[tuple[Pipeline, str, float]]:
    """Add a pipeline per main path of ``program`` to ``plan``, and a Skill-mode entry per
    path or use of it that no pipeline runs (``handled``: uses a workflow already covers);
    return the "Use when" clauses the paths matched."""
    claims: list[tuple[Pipeline, str, float]] = []
    if not program.mentioned:
        plan.skill_mode.append(Kept(program.path, UNMENTIONED, program.path))
        return claims
    paths, left = main_paths(program, lambda inv: _title_at(inventory, inv))
    if program.cli is not None and len(program.cli.subcommands) > MAX_SUBCOMMANDS:
        paths, left, plumbing = _tasks_among(inventory, program, paths, left)
        plan.skill_mode.extend(plumbing)
    for path in paths:
        piped = fed_by_command(path.invocations)
        path.invocations = [inv for inv in path.invocations if inv not in piped]
        dropped = [inv for inv in piped if _at(inv) not in handled]  # no workflow runs them
        if piped and not path.invocations:  # its data only ever comes from a pipe
            if dropped:
                topic = f"{program.path} {path.label}".strip()
                where = f"{dropped[0].file}:{dropped[0].line}"
                plan.skill_mode.append(Kept(topic, piped_reason(dropped[0]), where))
            continue
        for inv in dropped:  # the uses the pipeline leaves out, each with its reason
            plan.skill_mode.append(_piped_use(inventory, inv, covered))
        # a program a workflow runs before judgement is a step of the skill, not the skill
        alone = len(paths) == 1 and not judged and _is_the_skill(inventory, program)
        pipeline, found = _path_pipeline(inventory, path, covered, alone)
        plan.pipelines.append(pipeline)
        claims.extend((pipeline, clause, strength) for clause, strength in found.items())
    for label in left:
        topic = f"{program.path} {label}".strip()
        reason = (
            "SKILL.md never shows this action, so its arguments are unknown"
            if label
            else "SKILL.md never shows how to run it, and its interface could not be read"
        )
        plan.skill_mode.append(Kept(topic, reason, program.path))
    return claims


MAX_SUBCOMMANDS = 8  # a program with more: not each of them is a task of the user's
MIN_STEP_DOCUMENTS = 3  # documents running one such program: steps of their workflows


def _tasks_among(
    inventory: Inventory, program: Program, paths: list[MainPath], left: list[str]
) -> tuple[list[MainPath], list[str], list[Kept]]:
    """No path of a program of many subcommands that SKILL.md never names and that several
    of the skill's other documents run, each as a step of what it describes (github-issue's
    polling adapter: 18 subcommands shown across four references: the plumbing of the
    polling loop): each subcommand is kept in Skill mode with why.  A command reference
    (one document showing them all) keeps its paths."""
    documents = {i.file for p in paths for i in p.invocations}
    named = posixpath.basename(program.path) in inventory.skill.body
    if named or inventory.skill.path in documents or len(documents) < MIN_STEP_DOCUMENTS:
        return paths, left, []
    count = len(program.cli.subcommands) if program.cli is not None else 0
    why = (
        f"one of the {count} subcommands of a program SKILL.md never names, run by "
        f"{len(documents)} of the skill's other documents as steps of what they describe"
    )
    kept = [
        Kept(f"{program.path} {p.label}", why, next(f"{i.file}:{i.line}" for i in p.invocations))
        for p in paths
        if p.invocations
    ]
    return [], [*left, *(p.label for p in paths if not p.invocations)], kept


# Names of a program that is a skill's entry point, whatever the skill is called.
_ENTRY_POINTS = frozenset({"main", "cli", "index"})


def _is_the_skill(inventory: Inventory, program: Program) -> bool:
    """Whether ``program`` is what the skill is: its one program, named like the skill
    (``bm25.py`` of bm25, ``make_bundle.sh`` of heic-to-jpeg-bundle) or as an entry point
    (``main.ts``).  A helper the skill happens to ship alone (``with_server.py`` of
    webapp-testing, a scope detector of a release skill) is not: what the skill is for is
    not what it does."""
    if any(p is not program and p.mentioned for p in inventory.programs):
        return False
    stem = program.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    name = inventory.skill.frontmatter.name.replace("-", " ")
    if _checks(stem) and not _checks(name):  # validate_weekly_brief.py of hit-weekly-brief
        return False  # checks what the skill makes: the skill is the making
    return stem in _ENTRY_POINTS or bool(keys(humanize(stem)) & keys(name))


# A program that checks what the skill makes: its name's first or last word says so
# (``paper_audit_gate.py`` of a paper-reading skill, ``grade_issue_spot.py``).
_CHECKING = re.compile(r"^(?:validat\w*|check\w*|lint\w*|verif\w*|audit\w*|gate|grad(?:e|er|ing))$")


def _checks(name: str) -> bool:
    words = humanize(name).lower().split()
    return bool(words) and bool(_CHECKING.match(words[0]) or _CHECKING.match(words[-1]))


def _piped_use(inventory: Inventory, inv: Invocation, covered: set[int]) -> Kept:
    """The Skill-mode entry of one use of a program whose data another command pipes in,
    named by its section (which then needs no entry of its own)."""
    doc = inventory.skill
    index = doc.section_of(inv.line) if inv.file == doc.path else -1
    topic = doc.sections[index].title if index != -1 else inv.program
    if index != -1:
        covered.add(index)
    return Kept(topic, piped_reason(inv), f"{inv.file}:{inv.line}")


def _title_at(inventory: Inventory, inv: Invocation) -> str:
    """The title of the section whose own text shows ``inv``; "" when none does."""
    document = next((d for d in inventory.documents if d.path == inv.file), None)
    section = section_at(document, inv.line) if document is not None else None
    return section.title if section is not None else ""


def _at(inv: Invocation) -> tuple[str, str, int]:
    return (inv.program, inv.file, inv.line)


def _first_use(program: Program) -> tuple[bool, str, int, str]:
    first = program.invocations[0] if program.invocations else None
    return (*(order_key(first) if first else (True, "~", 0)), program.path)


def _path_pipeline(
    inventory: Inventory, path: MainPath, covered: set[int], alone: bool = False
) -> tuple[Pipeline, dict[str, float]]:
    """The pipeline of one main path, and the "Use when" clauses it matched, by strength."""
    doc = inventory.skill
    step, inputs = code_step(path, set())
    step.ok_exit_codes = ok_exit_codes(inventory, path.program, path.command, path.invocations)
    sections = {doc.section_of(inv.line) for inv in path.invocations if inv.file == doc.path}
    titles: list[str] = []
    source = path.program.path
    if path.invocations:
        source = f"{path.invocations[0].file}:{path.invocations[0].line}"
    # The first section that documents this path alone names it (a later workflow section
    # that runs several programs does not).
    own = [i for i in sorted(sections) if i != -1 and _specific(inventory, path, i)]
    if own:
        covered.add(own[0])
        titles.append(doc.sections[own[0]].title)
    # a mode's verb is its siblings' too ("generate single/batch QR codes"): its title tells
    verb = keys(humanize(path.label).split()[0]) if path.label and not path.mode else set()
    named = keys(" ".join([*titles, humanize(path.program.path.rsplit("/", 1)[-1])]))
    if path.label:  # siblings share nouns ("event"): match the verb, or the title closely
        named = keys(" ".join(titles))
    named -= keys(humanize(doc.frontmatter.name))  # the skill's own name says nothing here
    closeness = 1.5 if path.label and not path.mode else 1
    closeness = 0 if alone else closeness  # the skill's one task: what it is for is this
    found = described(situations(doc), verb, named, closeness)
    description = path_description(inventory, path)
    pipeline = Pipeline(
        path_name(path),
        description,
        path_candidates(inventory, path, list(found), description),
        inputs,
        [step],
        step.name,
        source,
    )
    return pipeline, found


def _specific(inventory: Inventory, path: MainPath, index: int) -> bool:
    """Whether every invocation in the section belongs to this path."""
    start, end = own_range(inventory.skill, index)
    mine = {_at(inv) for inv in path.invocations}
    return all(
        _at(inv) in mine
        for p in inventory.programs
        for inv in p.invocations
        if inv.file == inventory.skill.path and start <= inv.line <= end
    )


def _workflow_pipeline(
    inventory: Inventory, index: int, items: list[Item], plan: Plan
) -> tuple[Pipeline, dict[str, float]]:
    """The pipeline of one documented workflow, and the "Use when" clauses about it (all of
    them when it is the skill's only workflow and the skill has no other program)."""
    doc = inventory.skill
    title = doc.sections[index].title
    told = index  # the section that says what the workflow is for
    parent = doc.parents[index]
    if GENERIC_TITLES.match(title.strip()) and parent >= 0 and doc.sections[parent].level > 1:
        told = parent  # "## Workflow 1: AI臭診断" over "### Steps" (not the skill's own title)
        title = doc.sections[told].title
    task = as_task(title) or _labelled_task(title)
    generic = bool(GENERIC_TITLES.match(title.strip())) or not slug(task)  # no task, or no name
    # a task in CJK leaves little of itself in a name ("AI臭診断" → "ai"): the skill's then
    short = has_cjk(task) and len(slug(task)) < 4
    name = plan.app_name if generic or short else slug(task)
    description = first_sentence(doc.frontmatter.description)
    if not generic:
        description = describing(section_prose(doc, told)) or capital(task)
    builder = workflow_steps(inventory, items)
    topic = keys(" ".join([title, *(item.text for item in items)]))
    topic -= keys(humanize(doc.frontmatter.name))
    alone = {inv.program for item in items for inv in item.invocations} >= {
        p.path for p in inventory.programs
    }
    found = described(situations(doc), set(), topic, 0 if alone else 2)
    # "### Mode 1 — Full Audit" over "Use when you have a dataset you've never assessed
    # before.": the situation its own section names
    own = use_when_phrases(section_prose(doc, told).split("\n\n")[0])
    own = [o for o in own if len(o.split()) >= 3 or (has_cjk(o) and len(o) >= 4)]
    triggers = [task, description, *own, *found]
    pipeline = Pipeline(
        name,
        description,
        triggers,
        list(builder.inputs.values()),
        builder.steps,
        builder.steps[-1].name,
        f"{doc.path}:{doc.sections[index].line}",
    )
    return pipeline, found


# "Primary Workflow: Data Upload → Chart Explorer": which workflow, then what it does.
_WORKFLOW_LABEL = re.compile(
    r"^[^:：]{0,30}\b(?:workflow|process|procedure)\s*[:：]\s*(\S.*)$|^[^:：]{0,10}(?:流程|工作流)\s*[:：]\s*(\S.*)$",
    re.I,
)


def _labelled_task(title: str) -> str:
    """What a workflow labelled in its title does ("Secondary Workflow: Specific Chart
    Request" → "Specific Chart Request"); "" when the title is no such label."""
    found = _WORKFLOW_LABEL.match(strip_markdown(title).lstrip("# ").strip())
    rest = next((g for g in found.groups() if g), "") if found else ""
    return title_text(rest) if rest and worth(rest) else ""


def _warnings(inventory: Inventory) -> list[str]:
    out = list(inventory.warnings)
    for program in inventory.programs:
        out += [f"{program.path}: {w}" for w in program.warnings]
    return out
