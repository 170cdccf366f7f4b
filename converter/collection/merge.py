"""A skill collection as one APP: its members' inventories and plans put together.

Each member (``members.py``) is read and analysed as the skill it is; then
``collection_inventory`` and ``merge_plans`` put them together with every path made relative
to the collection's folder::

    feishu-calendar/calendar.js    the program a pipeline runs (steps name it so)
    feishu-calendar/SKILL.md:12    where a pipeline, a check or a Skill-mode topic comes from

Pipeline names several skills use are prefixed with the skill's name (``feishu-task-list``), a
trigger two skills share goes to neither (it cannot tell them apart), the constructor checks
what any pipeline needs (each check scoped to the pipelines needing it, as for one skill),
and Skill mode lists each skill's topics under its name.  The collection's fallback is its
own SKILL.md, or a generated one that lists the skills and links each one's SKILL.md.

Files a program names outside its own skill (``require('../feishu-auth/token-utils.js')``)
are inside the collection: one APP keeps them; ``--each`` (one APP per skill, see
``convert.py``) copies them beside it.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import replace
from pathlib import Path

from skill2app.converter.collection.members import Member, slug
from skill2app.converter.inventory.model import Doc, FileEntry, Inventory, build_inventory
from skill2app.converter.inventory.requirements import Requirement
from skill2app.converter.inventory.siblings import Outside
from skill2app.converter.inventory.skill import parse_skill_md
from skill2app.converter.marker import MARKER
from skill2app.converter.plan.model import (
    Action,
    Check,
    CodeStep,
    Constructor,
    Pipeline,
    Plan,
    SkillModeItem,
)

NAME_LIMIT = 64
FALLBACK = "Requests no pipeline matches"


# -- reading ---------------------------------------------------------------------------------


def member_inventories(
    root: Path, members: list[Member], *, probe: bool = False, unsafe: bool = False
) -> list[Inventory]:
    """Each member read as the skill it is (the root's own skill without the others)."""
    others = frozenset(m.rel for m in members if m.rel)
    return [
        build_inventory(
            m.folder,
            probe=probe,
            unsafe=unsafe,
            skip=others if not m.rel else frozenset(),
            limit=root,
        )
        for m in members
    ]


def collection_inventory(
    root: Path, members: list[Member], inventories: list[Inventory]
) -> Inventory:
    """One inventory of the collection: the members' programs, files, requirements and
    documents with paths relative to ``root``; its SKILL.md is the root's, or the one
    ``skill_md_text`` generates."""
    if members and not members[0].rel:
        doc = inventories[0].skill
    else:
        text = skill_md_text(root, members, inventories)
        doc = parse_skill_md(text, file="SKILL.md", folder_name=root.name)
    programs, files, documents, outside = [], [], [], []
    requirements: dict[tuple[str, str], Requirement] = {}
    warnings: list[str] = []
    for member, inv in zip(members, inventories, strict=True):
        programs += [replace(p, path=member.path(p.path)) for p in inv.programs]
        files += [FileEntry(member.path(f.path), f.role) for f in inv.files]
        documents += [replace(d, path=member.path(d.path)) for d in inv.documents]
        for req in inv.requirements:
            key = (req.kind, req.name)
            where = [member.spot(w) for w in req.where]
            if key in requirements:
                known = requirements[key]
                known.where += where
                known.required = known.required or req.required
            else:
                requirements[key] = Requirement(req.kind, req.name, req.required, where)
        warnings += [f"{member.name}: {w}" for w in inv.warnings]
        outside += [
            Outside(member.path(o.file), o.line, member.path(o.target))
            for o in inv.outside
            if member.path(o.target).startswith("../")  # still outside the collection
        ]
    if members[0].rel:  # the generated SKILL.md comes first, as a skill's own does
        first = Doc(doc.path, doc.code_blocks, doc.inline_code, doc.body, doc.sections)
        documents.insert(0, replace(first, first_line=doc.body_line))
    languages = Counter(inv.language for inv in inventories)
    language = inventories[0].language if not members[0].rel else languages.most_common(1)[0][0]
    return Inventory(
        root,
        doc,
        language,
        programs,
        files,
        list(requirements.values()),
        warnings,
        documents,
        outside,
    )


def skill_md_text(root: Path, members: list[Member], inventories: list[Inventory]) -> str:
    """The fallback SKILL.md of a collection without one: what each skill is for, and where
    its own instructions are."""
    from skill2app.templates import environment

    skills = [
        {
            "name": inv.skill.frontmatter.name or member.name,
            "description": " ".join((inv.skill.frontmatter.description or "").split()),
            "path": f"{member.rel}/SKILL.md",
        }
        for member, inv in zip(members, inventories, strict=True)
    ]
    return (
        environment(sandboxed=True)
        .get_template("convert/collection/SKILL.md.j2")
        .render(name=slug(root.name) or "skills", marker=MARKER, skills=skills)
    )


# -- planning ----------------------------------------------------------------------------------


def merge_plans(
    name: str,
    description: str,
    language: str,
    members: list[Member],
    plans: list[Plan],
    inventories: list[Inventory],
) -> tuple[Plan, list[str]]:
    """The members' plans as one plan of the collection, and what merging changed (renamed
    pipelines, triggers dropped because two skills share them)."""
    analyzer = plans[0].analyzer if plans else "heuristic"
    merged = Plan(name, description, language, analyzer)
    counts = Counter(p.name for plan in plans for p in plan.pipelines)
    shared = _shared_triggers(plans)
    changes: list[str] = []
    checks: dict[tuple[str, str], Check] = {}
    reasons: list[str] = []
    for member, plan, inv in zip(members, plans, inventories, strict=True):
        renamed = {
            p.name: _prefixed(member.name, p.name) for p in plan.pipelines if counts[p.name] > 1
        }
        changes += [
            f"{member.name}: pipeline {old} is {new} (another skill has a pipeline {old})"
            for old, new in renamed.items()
        ]
        files = {f.path for f in inv.files}
        for pipeline in plan.pipelines:
            moved = _rebased(pipeline, member, renamed.get(pipeline.name, pipeline.name), files)
            dropped = [t for t in moved.triggers if t.casefold() in shared]
            if dropped:
                moved.triggers = [t for t in moved.triggers if t.casefold() not in shared]
                changes.append(
                    f"{member.name}: trigger(s) {', '.join(dropped)} of {moved.name} left out: "
                    "another skill's pipeline has them too"
                )
            merged.pipelines.append(moved)
        if plan.constructor.needed:
            reasons.append(plan.constructor.reason)
            for check in plan.constructor.checks:
                _add_check(checks, check, member)
        if plan.destructor.needed:
            merged.destructor.actions += [
                _rebased_action(a, member) for a in plan.destructor.actions
            ]
            merged.destructor.reason = merged.destructor.reason or plan.destructor.reason
        merged.skill_mode += [
            SkillModeItem(f"{member.name}: {item.topic}", item.reason, member.spot(item.where))
            for item in plan.skill_mode
            if item.topic != FALLBACK
        ]
        merged.notes += [f"{member.name}: {note}" for note in plan.notes]
    merged.constructor = Constructor(
        bool(checks), "; ".join(dict.fromkeys(reasons)), list(checks.values())
    )
    merged.destructor.needed = bool(merged.destructor.actions)
    merged.skill_mode.append(
        SkillModeItem(
            FALLBACK,
            "the Runner falls back to SKILL.md, which stays unchanged (APP spec §1, §7 step 3)",
        )
    )
    return merged, changes


def _prefixed(member: str, name: str) -> str:
    text = name if name.startswith(f"{member}-") else f"{member}-{name}"
    if len(text) > NAME_LIMIT:
        text = text[:NAME_LIMIT].rsplit("-", 1)[0]
    return text


def _shared_triggers(plans: list[Plan]) -> set[str]:
    """Triggers (case aside) that pipelines of two different skills have."""
    owners: dict[str, set[int]] = {}
    for index, plan in enumerate(plans):
        for pipeline in plan.pipelines:
            for trigger in pipeline.triggers:
                owners.setdefault(trigger.casefold(), set()).add(index)
    return {t for t, who in owners.items() if len(who) > 1}


def _rebased(pipeline: Pipeline, member: Member, name: str, files: set[str]) -> Pipeline:
    """``pipeline`` of ``member`` with paths relative to the collection, named ``name``."""
    moved = copy.deepcopy(pipeline)
    old = moved.name
    moved.name = name
    moved.source = member.spot(moved.source)
    for step in moved.steps:
        if isinstance(step, CodeStep) and step.program:
            step.program = member.path(step.program)
    if moved.sample.input is not None:
        moved.sample.input = {
            key: _sample_value(value, member, old, name, files)
            for key, value in moved.sample.input.items()
        }
    return moved


def _sample_value(value: object, member: Member, old: str, new: str, files: set[str]) -> object:
    """A sample value naming a file of the skill names it in the collection; one naming the
    pipeline's own samples follows its new name."""
    if isinstance(value, list):
        return [_sample_value(v, member, old, new, files) for v in value]
    if not isinstance(value, str):
        return value
    if value in files:
        return member.path(value)
    own = f"pipelines/{old}/"
    return f"pipelines/{new}/{value[len(own) :]}" if value.startswith(own) else value


def _add_check(checks: dict[tuple[str, str], Check], check: Check, member: Member) -> None:
    name = member.file(check.name) if check.kind == "file" else check.name
    where = [member.spot(w) for w in check.where]
    key = (check.kind, name)
    if key in checks:
        known = checks[key]
        known.where += [w for w in where if w not in known.where]
        known.required = known.required or check.required
        return
    checks[key] = Check(check.kind, name, check.required, check.why, where)


def _rebased_action(action: Action, member: Member) -> Action:
    return Action(
        action.kind,
        action.description,
        [member.file(p) for p in action.paths],
        member.spot(action.where),
    )
