"""app-convert's core functions: a skill folder and options in, a ``Report`` out.

::

    skill folder ─build_inventory→ Inventory ─analyzer, or --plan FILE→ Plan ─check_plan→
      --plan-only:  plan.yaml written (--out FILE), or its text in the report (--out -)
      otherwise:    render_app → files ─write_app→ APP (in place or --out) ─verify_app→ Report

With an LLM analyst (``host``: the calling agent; ``llm``: an API) the plan is judged before
anything is written: rendered into a temporary copy and verified (check, smoke, ...), and sent
back with its problems, up to a bound (``analyzers.loop``).  ``convert`` with ``--analyzer
host`` returns at once with ``report.pause`` (the ``needs_llm`` object); ``resume`` takes the
agent's answer and returns the next pause, the finished conversion, or — attempts used up —
``report.exhausted`` with what still fails (nothing written).

Raises ``ConvertError`` subclasses (the CLI shows them); a conversion whose verification
found problems returns normally with ``report.ok`` false.  Progress messages go to the
``progress`` callback.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from skill2app.converter.analyzers import ANALYZERS, Analysis, default_analyzer, run_analyzer
from skill2app.converter.errors import ConvertError, PlanError, UsageError, Where
from skill2app.converter.inventory.model import Inventory, build_inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import line_of, load_plan, plan_to_yaml
from skill2app.converter.plan.model import Plan
from skill2app.converter.render.render import RenderedFile, render_app
from skill2app.converter.render.write import (
    atomic_write,
    check_destination,
    check_plan_file,
    choose_readme,
    write_app,
    write_plan_file,
)
from skill2app.converter.verify.report import Report
from skill2app.converter.verify.requests import route_requests
from skill2app.converter.verify.sequence import with_after
from skill2app.converter.verify.smoke import SMOKE_TIMEOUT
from skill2app.converter.verify.verify import Verification, verify_app

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Options:
    skill_dir: Path
    out: Path | None = None
    analyzer: str | None = None  # None: llm with a key, else host with an agent, else heuristic
    plan: Path | None = None  # render this (edited) plan instead of analysing
    plan_only: bool = False
    output: Path | None = None  # where --plan-only writes the plan; Path("-"): stdout
    force: bool = False
    smoke: bool = False
    probe: bool = False
    unsafe_no_sandbox: bool = False  # run the skill's programs (--probe, --smoke) unconfined
    has_api_key: bool = False
    agent: str | None = None  # the coding agent running app-convert (analyzers/caller.py)
    smoke_timeout: float = SMOKE_TIMEOUT
    max_attempts: int = 3
    review: bool = True  # show an LLM analyst's passing plan back once (verify/requests.py)
    each: bool = False  # a collection: one APP per skill (collection/conversion.py)
    as_one_skill: bool = False  # a folder holding other skills is still one skill
    skip: frozenset[str] = frozenset()  # folders that are not this skill's (its members')
    limit: Path | None = None  # how far up files outside the skill are looked for
    defer_outside: bool = False  # --each: files outside the skill are checked once all exist


def convert(options: Options, progress: Progress | None = None) -> Report:
    say: Progress = progress or (lambda _message: None)
    check_options(options)
    to_stdout = is_stdout(options.output)
    if options.output is not None and not to_stdout:  # before an analysis that costs tokens
        check_plan_file(options.output, force=options.force)
    if not options.plan_only:
        check_destination(options.skill_dir, options.out, force=options.force)
    say(f"reading the skill in {options.skill_dir}")
    inventory = read_skill(options)
    name = analyzer_name(options, say)
    if name == "host" and options.plan is None:
        return start_host(options, inventory, say)
    plan, analysis, warnings = make_plan(options, inventory, say)
    return finish(options, inventory, plan, analysis, warnings, say)


def read_skill(options: Options) -> Inventory:
    return build_inventory(
        options.skill_dir,
        probe=options.probe,
        unsafe=options.unsafe_no_sandbox,
        skip=options.skip,
        limit=options.limit,
    )


def analyzer_name(options: Options, say: Progress | None = None) -> str:
    """The analyzer to use; ``say`` hears why when an agent's presence chose ``host``."""
    name = options.analyzer or default_analyzer(options.has_api_key, options.agent)
    if name not in ANALYZERS:
        raise UsageError(f"unknown analyzer {name!r}", hint=f"use one of: {', '.join(ANALYZERS)}")
    if say is not None and options.analyzer is None and name == "host" and options.plan is None:
        say(
            f"{options.agent} is running app-convert and ANTHROPIC_API_KEY is not set: it writes "
            "the plan (needs_llm, exit 6); --analyzer heuristic drafts one offline instead"
        )
    return name


def start_host(
    options: Options,
    inventory: Inventory,
    say: Progress,
    extra: dict[str, Any] | None = None,
) -> Report:
    """Save a host session; the report carries its first ``needs_llm`` pause.  ``extra``:
    more to keep in the session's options (a collection's state)."""
    from skill2app.converter.analyzers import host
    from skill2app.runtime.app.config import state_home

    say("drafting a plan with the heuristic analyzer for the host agent to improve")
    pause = host.start(
        state_home(),
        inventory,
        session_options(options) | (extra or {}),
        draft_yaml=host.draft_of(inventory),
        max_attempts=options.max_attempts,
    )
    report = Report(skill=str(options.skill_dir), mode=_mode(options), analyzer="host")
    report.pause = pause.to_dict()
    return report


def session_options(options: Options) -> dict[str, Any]:
    """What a resume needs to finish the conversion the way it was asked for (paths made
    absolute: the agent may resume from another folder)."""
    readme, _warning = choose_readme(options.skill_dir)
    return {
        "out": str(options.out.resolve()) if options.out is not None else None,
        "plan_only": options.plan_only,
        "output": (
            None
            if options.output is None
            else str(options.output)
            if is_stdout(options.output)
            else str(options.output.resolve())
        ),
        "force": options.force,
        "probe": options.probe,
        "smoke": options.smoke,
        "unsafe_no_sandbox": options.unsafe_no_sandbox,
        "review": options.review,
        "readme": readme,
        "skip": sorted(options.skip),
        "defer_outside": options.defer_outside,
        "limit": str(options.limit.resolve()) if options.limit is not None else None,
    }


def resume(
    session: str, answer: str, progress: Progress | None = None, max_attempts: int | None = None
) -> Report:
    """Judge the host agent's answer: the next pause, the finished conversion, or exhausted.
    ``max_attempts`` raises the session's bound (and reopens one whose attempts ran out)."""
    say: Progress = progress or (lambda _message: None)
    options, outcome = judge_answer(session, answer, say, max_attempts)
    return host_report(options, outcome, say)


def judge_answer(
    session: str, answer: str, say: Progress, max_attempts: int | None = None
) -> tuple[Options, Any]:
    """(the options the session was started with, ``host.resume``'s outcome)."""
    from skill2app.converter.analyzers import host
    from skill2app.runtime.app.config import state_home

    outcome = host.resume(
        state_home(), session, answer, progress=say, max_attempts=max_attempts, ready=_writable
    )
    return saved_options(outcome.session), outcome


def _writable(data: dict[str, Any]) -> None:
    """Raise when the session's APP could not be written where it was asked for: the session
    stays paused, to be resumed once the folder is emptied or moved."""
    options = saved_options(data)
    if options.plan_only:
        return
    try:
        check_destination(options.skill_dir, options.out, force=options.force)
    except ConvertError as exc:
        exc.hint = (  # `resume` has no --force: the first command's hint does not fit here
            f"this session stays paused: empty or move the folder, then run the same "
            f"app-convert resume {data['session']} command again"
        )
        raise


def saved_options(data: dict[str, Any]) -> Options:
    """The options a host session was started with."""
    return options_from(data["options"], Path(data["skill"]))


def options_from(saved: dict[str, Any], skill_dir: Path, *, each: bool = False) -> Options:
    """The options ``session_options`` saved, for ``skill_dir`` (a skill, or a collection
    converted ``each`` skill apart or not)."""
    return Options(
        skill_dir=skill_dir,
        out=Path(saved["out"]) if saved.get("out") else None,
        analyzer="host",
        plan_only=bool(saved.get("plan_only")),
        output=Path(saved["output"]) if saved.get("output") else None,
        force=bool(saved.get("force")),
        smoke=bool(saved.get("smoke")),
        probe=bool(saved.get("probe")),
        unsafe_no_sandbox=bool(saved.get("unsafe_no_sandbox")),
        review=bool(saved.get("review", True)),
        skip=frozenset(saved.get("skip") or ()),
        limit=Path(saved["limit"]) if saved.get("limit") else None,
        defer_outside=bool(saved.get("defer_outside")),
        each=each,
    )


def host_report(options: Options, outcome: Any, say: Progress) -> Report:
    """A resumed session's report: paused again, exhausted, or the conversion finished."""
    if outcome.pause is not None:
        report = Report(skill=str(options.skill_dir), mode=_mode(options), analyzer="host")
        report.pause = outcome.pause.to_dict()
        return report
    assert outcome.inventory is not None
    if outcome.verdict is None:  # attempts used up: nothing is written
        report = Report(skill=str(options.skill_dir), mode=_mode(options), analyzer="host")
        report.exhausted = list(outcome.problems)
        report.attempts = int(outcome.session["attempt"])
        return report
    assert outcome.verdict.plan is not None
    analysis = Analysis(
        outcome.verdict.plan,
        attempts=int(outcome.session["attempt"]),
        files=outcome.verdict.files,
        verification=outcome.verdict.verification,
        notes=list(outcome.notes),
        requests=outcome.verdict.requests,
    )
    if not options.plan_only:
        check_destination(options.skill_dir, options.out, force=options.force)
    return finish(options, outcome.inventory, analysis.plan, analysis, [], say)


def finish(
    options: Options,
    inventory: Inventory,
    plan: Plan,
    analysis: Analysis | None,
    warnings: list[str],
    say: Progress,
    extra: list[RenderedFile] | None = None,
) -> Report:
    """Write what the plan makes (the plan file, or the APP, with ``extra`` files: a
    collection's generated SKILL.md) and verify it."""
    report = Report.from_plan(plan, inventory, skill=str(options.skill_dir), mode=_mode(options))
    if analysis is not None:
        report.usage = _usage(analysis)
        report.attempts = analysis.attempts
        report.warnings += analysis.notes
    report.warnings += warnings
    report.plan_file = str(options.plan or options.output or "")
    if options.plan_only and is_stdout(options.output):  # `--out -`: the caller prints it
        report.plan_text = plan_to_yaml(plan)
        return report
    if options.plan_only:
        assert options.output is not None  # check_options
        check_plan_file(options.output, force=options.force)  # again: it may have appeared
        write_plan_file(options.output, plan_to_yaml(plan))
        say(f"wrote the plan to {options.output}")
        return report
    readme, warning = choose_readme(options.skill_dir)
    report.warnings += [warning] if warning else []
    files = analysis.files if analysis is not None and analysis.files else None
    if files is None:
        say(f"rendering {len(plan.pipelines)} pipelines")
        files = render_app(plan, inventory, readme=readme)
    files = sorted([*files, *(extra or [])], key=lambda f: f.path)
    _write_and_verify(options, inventory, files, analysis, report, say, plan)
    judged = analysis.requests if analysis is not None else None  # routed when it was judged
    report.requests = judged if judged is not None else route_requests(plan, inventory)
    return report


def _write_and_verify(
    options: Options,
    inventory: Inventory,
    files: list[RenderedFile],
    analysis: Analysis | None,
    report: Report,
    say: Progress,
    plan: Plan,
) -> None:
    written = write_app(
        options.skill_dir, files, out=options.out, force=options.force, skip=options.skip
    )
    report.app = str(written.root)
    report.files = written.written
    report.copied = len(written.copied)
    report.overwritten, report.removed, report.kept = (
        written.overwritten,
        written.removed,
        written.kept,
    )
    report.backup, report.backed_up = written.backup, written.backed_up
    report.warnings += written.warnings
    judged = analysis.verification if analysis is not None else None
    smoke = options.smoke and judged is None  # the analyst's plan was smoke-run already
    say("verifying: app-run check, compiling, argument mappings, routing" + (", smoke" * smoke))
    verification = verify_app(
        written.root,
        files,
        inventory,
        smoke=smoke,
        sandboxed=not options.unsafe_no_sandbox,
        timeout=options.smoke_timeout,
        progress=say,
        order=[p.name for p in plan.pipelines],
    )
    if smoke:  # app-run test runs a sample after those the smoke run saw it need
        added = _write_after(written.root, files, plan, verification, report.files)
        report.files = sorted({*report.files, *added})
        report.removed = [r for r in report.removed if r not in added]  # written again
    report.verification = _with_smoke(verification, judged)
    report.outside = {o.target: [] for o in inventory.outside}
    for item in inventory.outside:
        report.outside[item.target].append(item.where())
    if not options.defer_outside:
        missing, beside = outside_problems(report.outside, written.root, options.out is not None)
        report.verification.outside_errors = missing
        report.warnings += beside


def _write_after(
    root: Path,
    files: list[RenderedFile],
    plan: Plan,
    verification: Verification,
    written: list[str],
) -> list[str]:
    """Write the ``samples/after.json`` files that the smoke run's findings add to the
    rendered ones (``sequence.with_after``), into the pipelines just generated; their paths."""
    rendered = {f.path: f.content for f in files}
    added = []
    for item in with_after(files, plan, verification.after):
        generated = item.path.rsplit("/", 1)[0] + "/input.json" in written
        if rendered.get(item.path) != item.content and generated:
            atomic_write(root / item.path, item.content)
            added.append(item.path)
    return added


def outside_problems(
    users: dict[str, list[str]], root: Path, copied: bool
) -> tuple[list[str], list[str]]:
    """(errors, warnings) about files outside the skill that its programs name (``users``:
    target -> the file:line naming it): an error for each the written APP cannot reach (a
    copy made with --out has no sibling folders), a warning for those it reaches only
    because they sit beside it."""
    errors, warnings = [], []
    for target, wheres in users.items():
        named = f"{target} (outside the skill) is needed by {', '.join(wheres[:3])}"
        named += f" and {len(wheres) - 3} more" if len(wheres) > 3 else ""
        if (root / target).exists():
            warnings.append(f"{named}: keep it beside the APP")
        elif copied:
            errors.append(
                f"{named}, and the APP lacks it: convert in place, or convert the folder "
                "holding the skills with --each --out DIR (which keeps it)"
            )
        else:
            errors.append(f"{named}, and it is missing")
    return errors, warnings


def _with_smoke(verification: Verification, judged: Verification | None) -> Verification:
    """The final verification, with the smoke runs of the judged copy (the same files)."""
    if judged is None or not judged.smoke_ran:
        return verification
    return replace(verification, smoke_ran=True, smoke=list(judged.smoke), after=judged.after)


def _usage(analysis: Analysis) -> dict[str, Any]:
    usage: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0, **analysis.usage}
    if analysis.model:  # a model was asked: say which, and how many times
        usage |= {"model": analysis.model, "attempts": analysis.attempts}
    return usage


def _mode(options: Options) -> str:
    return "plan-only" if options.plan_only else ("out" if options.out else "in-place")


def is_stdout(output: Path | None) -> bool:
    """Whether the plan file is standard output (``--plan-only --out -``; a file named ``-`` is
    ``--out $PWD/-``)."""
    return output is not None and str(output) == "-"


def check_options(options: Options) -> None:
    conflicts = [
        (
            options.plan_only and options.output is None,
            "--plan-only needs --out FILE (- for stdout)",
        ),
        (options.output is not None and not options.plan_only, "-o FILE goes with --plan-only"),
        (options.plan_only and options.out is not None, "--plan-only writes no APP: drop --out"),
        (options.plan_only and options.smoke, "--plan-only runs nothing: drop --smoke"),
        (
            options.plan_only and options.plan is not None,
            "--plan-only and --plan exclude each other",
        ),
        (options.plan is not None and options.analyzer is not None, "--plan replaces --analyzer"),
        (options.max_attempts < 1, "--max-attempts must be at least 1"),
    ]
    for bad, message in conflicts:
        if bad:
            raise UsageError(message, hint="see app-convert --help")
    check_sandbox(options)


def check_sandbox(options: Options) -> None:
    """--probe and --smoke run the skill's own programs: only in the sandbox, unless the user
    explicitly accepts running them unconfined (--unsafe-no-sandbox)."""
    from skill2app.runtime.run import sandbox

    flags = [f for f, on in (("--probe", options.probe), ("--smoke", options.smoke)) if on]
    if not flags or options.unsafe_no_sandbox or sandbox.available():
        return
    raise UsageError(
        f"{' and '.join(flags)} run the skill's programs, and there is no sandbox here "
        "(bubblewrap's bwrap is not installed, or cannot create namespaces)",
        hint=f"{sandbox.INSTALL_HINT}; or pass --unsafe-no-sandbox to run them unconfined",
    )


def make_plan(
    options: Options, inventory: Inventory, say: Progress
) -> tuple[Plan, Analysis | None, list[str]]:
    """(plan, the analysis that made it — None for --plan FILE —, warnings); the plan fits
    the skill."""
    analysis: Analysis | None = None
    if options.plan is not None:
        say(f"reading the plan {options.plan}")
        plan = load_plan(options.plan)
    else:
        name = analyzer_name(options)
        say(f"analysing with the {name} analyzer")
        readme, _warning = choose_readme(options.skill_dir)
        analysis = run_analyzer(
            name,
            inventory,
            progress=say,
            readme=readme,
            max_attempts=options.max_attempts,
            review=options.review,
        )
        plan = analysis.plan
    errors = check_plan(plan, inventory)
    if errors:
        where = None
        hint = "save it with --plan-only --out plan.yaml, fix it, and render it with --plan"
        if options.plan is not None:
            where = Where(str(options.plan), plan_line(options.plan, errors[0]))
            hint = "fix the plan file and run again"
        raise PlanError(
            f"the plan does not fit the skill: {errors[0]}", errors=errors, where=where, hint=hint
        )
    return plan, analysis, []


_PART = re.compile(r"([A-Za-z_][\w-]*)|\[(\d+)\]")


def plan_line(path: Path, message: str) -> int:
    """The line of plan file ``path`` that a check_plan message (``pipelines[0].steps[1]...:
    ...``) is about; 0 when it cannot be found."""
    where = message.split(":", 1)[0].strip()
    parts: list[str | int] = [
        int(index) if index else key for key, index in _PART.findall(where) if key or index
    ]
    try:
        root: yaml.Node | None = yaml.compose(path.read_text(encoding="utf-8-sig"))
    except (OSError, yaml.YAMLError):
        return 0
    return line_of(root, parts)
