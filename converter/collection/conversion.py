"""``app-convert FOLDER``: one skill, or a collection of skills.

A folder holding several skills (``members.find_members``) becomes **one APP** (its members
analysed one by one, their plans merged: ``merge.py``), or with ``--each`` one APP per skill,
laid out as the collection is (``--out DIR``: DIR/<skill folder>) so that the files one skill
takes from another (``require('../feishu-auth/token-utils.js')``) are where its programs look;
a needed file that belongs to no skill is copied beside them and reported.  A folder with one
skill goes to ``convert.convert`` unchanged, as does any folder with ``--as-one-skill``.

With the host analyst the members are asked for one after the other: each pause carries
``collection: {skill, index, of}``; the session of skill k, once accepted, starts the session
of skill k+1 (its pause is what ``resume`` returns), and the last one writes the APP (or, with
``--each``, each skill's APP is written as its plan is accepted).  The collection's state
travels in the sessions' options.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from skill2app.converter import convert as single
from skill2app.converter.analyzers import run_analyzer
from skill2app.converter.analyzers.analysis import Analysis
from skill2app.converter.collection.members import Member, find_members
from skill2app.converter.collection.merge import (
    collection_inventory,
    member_inventories,
    merge_plans,
    skill_md_text,
)
from skill2app.converter.convert import Options, Progress
from skill2app.converter.errors import PlanError, UsageError
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import plan_from_dict
from skill2app.converter.plan.model import Plan
from skill2app.converter.render.render import RenderedFile
from skill2app.converter.render.write import check_destination, choose_readme
from skill2app.converter.verify.report import EachReport, Report, summary


def convert(options: Options, progress: Progress | None = None) -> Report | EachReport:
    say: Progress = progress or (lambda _message: None)
    members = [] if options.as_one_skill else find_members(options.skill_dir)
    if not members:
        if options.each:
            raise UsageError(
                f"--each converts a folder holding several skills; {options.skill_dir} holds "
                "one skill",
                hint="drop --each",
            )
        return single.convert(options, progress=say)
    _check(options)
    say(f"{options.skill_dir} holds {len(members)} skills: " + ", ".join(m.name for m in members))
    if options.each:
        return convert_each(options, members, say)
    return convert_whole(options, members, say)


def _check(options: Options) -> None:
    single.check_options(options)
    if options.each and (options.plan_only or options.plan is not None):
        raise UsageError(
            "--each writes an APP per skill: --plan-only and --plan take one skill",
            hint="run app-convert SKILL --plan-only on the skill you want to review",
        )


# -- one APP -------------------------------------------------------------------------------


def convert_whole(options: Options, members: list[Member], say: Progress) -> Report:
    root = options.skill_dir
    if not options.plan_only:
        check_destination(root, options.out, force=options.force)
    say("reading " + ", ".join(m.rel or "." for m in members))
    inventories = member_inventories(
        root, members, probe=options.probe, unsafe=options.unsafe_no_sandbox
    )
    inventory = collection_inventory(root, members, inventories)
    name = single.analyzer_name(options, say)
    if name == "host" and options.plan is None:
        return start_host(options, members, 0, {"plans": []}, say)
    if options.plan is not None:  # a merged plan, as --plan-only wrote it
        plan, analysis, warnings = single.make_plan(options, inventory, say)
        return _finish_whole(
            options, members, inventories, inventory, plan, analysis, warnings, say
        )
    plans: list[Plan] = []
    total = Analysis(Plan("", ""), attempts=0)
    for member, inv in zip(members, inventories, strict=True):
        say(f"analysing {member.name} with the {name} analyzer")
        readme, _warning = choose_readme(member.folder)
        analysis = run_analyzer(name, inv, progress=say, readme=readme)
        plans.append(analysis.plan)
        for key, value in analysis.usage.items():
            if isinstance(value, int | float):
                total.usage[key] = total.usage.get(key, 0) + value  # type: ignore[assignment]
        total.attempts = max(total.attempts, analysis.attempts)
        total.model = total.model or analysis.model
    plan, changes = _merged(root, members, inventories, inventory, plans)
    total.plan = plan
    return _finish_whole(options, members, inventories, inventory, plan, total, changes, say)


def _merged(
    root: Path,
    members: list[Member],
    inventories: list[Inventory],
    inventory: Inventory,
    plans: list[Plan],
) -> tuple[Plan, list[str]]:
    fm = inventory.skill.frontmatter
    plan, changes = merge_plans(
        members[0].name if not members[0].rel else (fm.name or root.name),
        fm.description or "",
        inventory.language,
        members,
        plans,
        inventories,
    )
    errors = check_plan(plan, inventory)
    if errors:
        raise PlanError(
            f"the skills' plans do not fit together: {errors[0]}",
            errors=errors,
            hint="convert the skills one by one (--each), or save the merged plan with "
            "--plan-only --out plan.yaml, fix it and render it with --plan",
        )
    return plan, changes


def _finish_whole(
    options: Options,
    members: list[Member],
    inventories: list[Inventory],
    inventory: Inventory,
    plan: Plan,
    analysis: Analysis | None,
    warnings: list[str],
    say: Progress,
) -> Report:
    extra = []
    if members[0].rel:  # no SKILL.md of its own: the generated one is the fallback
        extra.append(
            RenderedFile("SKILL.md", skill_md_text(options.skill_dir, members, inventories))
        )
    report = single.finish(options, inventory, plan, analysis, warnings, say, extra=extra)
    report.collection = [
        {
            "name": member.name,
            "folder": member.rel or ".",
            "pipelines": [
                p.name for p in plan.pipelines if _owner(p.source, members) == member.rel
            ],
        }
        for member in members
    ]
    return report


def _owner(source: str, members: list[Member]) -> str:
    """The member a plan's ``source`` (file:line, relative to the collection) belongs to."""
    file = source.rpartition(":")[0] or source
    found = [m.rel for m in members if m.rel and file.startswith(m.rel + "/")]
    return max(found, key=len) if found else ""


# -- one APP per skill -------------------------------------------------------------------------


def member_options(options: Options, members: list[Member], member: Member) -> Options:
    out = None
    if options.out is not None:
        out = options.out / member.rel if member.rel else options.out
    others = frozenset(m.rel for m in members if m.rel) if not member.rel else frozenset()
    return replace(
        options,
        skill_dir=member.folder,
        out=out,
        each=False,
        as_one_skill=True,
        skip=others,
        limit=options.skill_dir,
        defer_outside=True,
    )


def convert_each(options: Options, members: list[Member], say: Progress) -> Report | EachReport:
    if single.analyzer_name(options, say) == "host":
        return start_host(options, members, 0, {"reports": []}, say)
    result = EachReport(str(options.skill_dir))
    for member in members:  # the root's own skill first: its copy leaves the others out
        say(f"converting {member.rel or '.'}")
        result.reports.append(single.convert(member_options(options, members, member), say))
    result.copied = copy_siblings(options, members, [summary(r) for r in result.reports])
    for report in result.reports:
        _check_outside(report)
    return result


def copy_siblings(options: Options, members: list[Member], done: list[dict[str, Any]]) -> list[str]:
    """Copy each file a skill needs outside its folder that belongs to no skill (a shared
    helper) beside the APPs, as the collection lays it out; the copied paths."""
    if options.out is None or not members[0].rel:  # in place, or the root's copy has them
        return []
    root = options.skill_dir.resolve()
    copied = []
    for item in done:
        folder = Path(item["skill"]).resolve()
        for target in item["outside"]:
            source = (folder / target).resolve()
            if not source.is_relative_to(root) or not source.is_file():
                continue
            rel = source.relative_to(root).as_posix()
            if any(rel.startswith(m.rel + "/") for m in members):
                continue  # another skill's file: its APP has it
            dest = options.out / rel
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)
                copied.append(rel)
    return sorted(set(copied))


def _check_outside(report: Report) -> None:
    """Now that every skill's APP is written: the files each needs outside its folder."""
    if report.verification is None or not report.app:
        return
    errors, warnings = single.outside_problems(report.outside, Path(report.app), True)
    report.verification.outside_errors = errors
    report.warnings += warnings


# -- the host analyst, one skill after the other ------------------------------------------------


def start_host(
    options: Options, members: list[Member], index: int, state: dict[str, Any], say: Progress
) -> Report:
    """Start the host session of member ``index``; its pause is the report."""
    member = members[index]
    own = (
        member_options(options, members, member)
        if options.each
        else replace(
            options,
            skill_dir=member.folder,
            out=None,
            as_one_skill=True,
            skip=frozenset(m.rel for m in members if m.rel) if not member.rel else frozenset(),
            limit=options.skill_dir,
        )
    )
    collection = {
        **state,
        "root": str(options.skill_dir.resolve()),
        "members": [[m.rel, m.name] for m in members],
        "index": index,
        "each": options.each,
        "base": single.session_options(options),
    }
    say(f"skill {index + 1} of {len(members)}: {member.name}")
    inventory = single.read_skill(own)
    return single.start_host(own, inventory, say, extra={"collection": collection})


def resume(
    session: str, answer: str, progress: Progress | None = None, max_attempts: int | None = None
) -> Report | EachReport:
    say: Progress = progress or (lambda _message: None)
    options, outcome = single.judge_answer(session, answer, say, max_attempts)
    state = outcome.session["options"].get("collection")
    if not isinstance(state, dict) or outcome.pause is not None or outcome.verdict is None:
        return single.host_report(options, outcome, say)
    base = _base_options(state)
    members = [
        Member(rel, base.skill_dir / rel if rel else base.skill_dir, name)
        for rel, name in state["members"]
    ]
    index = int(state["index"])
    if state.get("each"):
        report = single.host_report(options, outcome, say)  # this skill's APP, written
        state["reports"] = [*state.get("reports", []), summary(report)]
        if index + 1 < len(members):
            return start_host(base, members, index + 1, _kept(state), say)
        result = EachReport(str(base.skill_dir), earlier=list(state["reports"]))
        result.copied = copy_siblings(base, members, result.earlier)
        for item in result.earlier:
            errors, _warnings = single.outside_problems(item["outside"], Path(item["app"]), True)
            item["errors"] += errors
            item["ok"] = item["ok"] and not errors
        return result
    assert outcome.verdict.plan is not None
    state["plans"] = [*state.get("plans", []), outcome.verdict.plan.to_dict()]
    if index + 1 < len(members):
        return start_host(base, members, index + 1, _kept(state), say)
    root = base.skill_dir
    inventories = member_inventories(root, members, probe=base.probe, unsafe=base.unsafe_no_sandbox)
    inventory = collection_inventory(root, members, inventories)
    plans = [plan_from_dict(data) for data in state["plans"]]
    plan, changes = _merged(root, members, inventories, inventory, plans)
    if not base.plan_only:
        check_destination(root, base.out, force=base.force)
    analysis = Analysis(plan, attempts=int(outcome.session["attempt"]))
    return _finish_whole(base, members, inventories, inventory, plan, analysis, changes, say)


def _kept(state: dict[str, Any]) -> dict[str, Any]:
    """What a collection's state carries to its next session."""
    return {k: state[k] for k in ("plans", "reports") if k in state}


def _base_options(state: dict[str, Any]) -> Options:
    """The options the collection was converted with (as ``session_options`` saved them)."""
    return single.options_from(state["base"], Path(state["root"]), each=bool(state.get("each")))
