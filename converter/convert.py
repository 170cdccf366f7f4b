"""app-convert's one core function: a skill folder and options in, a ``Report`` out.

::

    skill folder ─build_inventory→ Inventory ─analyzer, or --plan FILE→ Plan ─check_plan→
      --plan-only:  plan.yaml written (-o FILE), or its text in the report (-o -)
      otherwise:    render_app → files ─write_app→ APP (in place or --out) ─verify_app→ Report

Raises ``ConvertError`` subclasses (the CLI shows them); a conversion whose verification
found problems returns normally with ``report.ok`` false.  Progress messages go to the
``progress`` callback, also handed to analyzers that accept one (the llm analyzer).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from skill2app.converter.analyzers import ANALYZERS, default_analyzer, run_analyzer
from skill2app.converter.errors import PlanError, UsageError, Where
from skill2app.converter.inventory.model import Inventory, build_inventory
from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import line_of, load_plan, plan_to_yaml
from skill2app.converter.plan.model import Plan
from skill2app.converter.render.render import render_app
from skill2app.converter.render.write import (
    check_plan_file,
    choose_readme,
    write_app,
    write_plan_file,
)
from skill2app.converter.verify.report import Report
from skill2app.converter.verify.verify import SMOKE_TIMEOUT, verify_app

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Options:
    skill_dir: Path
    out: Path | None = None
    analyzer: str | None = None  # None: llm when an API key is configured, else heuristic
    plan: Path | None = None  # render this (edited) plan instead of analysing
    plan_only: bool = False
    output: Path | None = None  # where --plan-only writes the plan; Path("-"): stdout
    force: bool = False
    smoke: bool = False
    probe: bool = False
    unsafe_no_sandbox: bool = False  # run the skill's programs (--probe, --smoke) unconfined
    has_api_key: bool = False
    smoke_timeout: float = SMOKE_TIMEOUT


def convert(options: Options, progress: Progress | None = None) -> Report:
    say: Progress = progress or (lambda _message: None)
    check_options(options)
    to_stdout = is_stdout(options.output)
    if options.output is not None and not to_stdout:  # before an analysis that costs tokens
        check_plan_file(options.output, force=options.force)
    say(f"reading the skill in {options.skill_dir}")
    inventory = build_inventory(
        options.skill_dir, probe=options.probe, unsafe=options.unsafe_no_sandbox
    )
    plan, usage, warnings = make_plan(options, inventory, say)
    mode = "plan-only" if options.plan_only else ("out" if options.out else "in-place")
    report = Report.from_plan(plan, inventory, skill=str(options.skill_dir), mode=mode)
    report.usage = usage
    report.warnings += warnings
    report.plan_file = str(options.plan or options.output or "")
    if options.plan_only and to_stdout:  # `-o -`: the caller prints it on stdout
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
    say(f"rendering {len(plan.pipelines)} pipelines")
    files = render_app(plan, inventory, readme=readme)
    written = write_app(options.skill_dir, files, out=options.out, force=options.force)
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
    say("verifying: app-run check, compiling, argument mappings" + (", smoke" * options.smoke))
    report.verification = verify_app(
        written.root,
        files,
        inventory,
        smoke=options.smoke,
        sandboxed=not options.unsafe_no_sandbox,
        timeout=options.smoke_timeout,
        progress=say,
    )
    return report


def is_stdout(output: Path | None) -> bool:
    """Whether ``-o`` names standard output (``-o -``; a file named ``-`` is ``-o $PWD/-``)."""
    return output is not None and str(output) == "-"


def check_options(options: Options) -> None:
    conflicts = [
        (options.plan_only and options.output is None, "--plan-only needs -o FILE"),
        (options.output is not None and not options.plan_only, "-o FILE goes with --plan-only"),
        (options.plan_only and options.out is not None, "--plan-only writes no APP: drop --out"),
        (options.plan_only and options.smoke, "--plan-only runs nothing: drop --smoke"),
        (
            options.plan_only and options.plan is not None,
            "--plan-only and --plan exclude each other",
        ),
        (options.plan is not None and options.analyzer is not None, "--plan replaces --analyzer"),
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
) -> tuple[Plan, dict[str, Any], list[str]]:
    """(plan, the analyzer's token usage, warnings); the plan fits the skill."""
    warnings: list[str] = []
    usage: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0}
    if options.plan is not None:
        say(f"reading the plan {options.plan}")
        plan = load_plan(options.plan)
    else:
        plan, usage, warnings = analyze(options, inventory, say)
    errors = check_plan(plan, inventory)
    if errors:
        where = None
        hint = "save it with --plan-only -o plan.yaml, fix it, and render it with --plan"
        if options.plan is not None:
            where = Where(str(options.plan), plan_line(options.plan, errors[0]))
            hint = "fix the plan file and run again"
        raise PlanError(
            f"the plan does not fit the skill: {errors[0]}", errors=errors, where=where, hint=hint
        )
    return plan, usage, warnings


def analyze(
    options: Options, inventory: Inventory, say: Progress
) -> tuple[Plan, dict[str, Any], list[str]]:
    """(plan, usage, warnings): usage holds the tokens used, the model and the attempts."""
    name = options.analyzer or default_analyzer(options.has_api_key)
    if name not in ANALYZERS:
        raise UsageError(f"unknown analyzer {name!r}", hint=f"use one of: {', '.join(ANALYZERS)}")
    say(f"analysing with the {name} analyzer")
    analysis = run_analyzer(name, inventory, progress=say)
    usage: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0, **analysis.usage}
    if analysis.model:  # a model was asked: say which, and how many times
        usage |= {"model": analysis.model, "attempts": analysis.attempts}
    return analysis.plan, usage, []


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
