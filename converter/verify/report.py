"""The conversion report: what app-convert made of a skill, for people and for machines.

``Report.to_dict()`` is what ``--json`` prints (stable keys, sorted lists where order means
nothing); ``human_lines()`` is the same for a person, printed on stderr.  Built from the
plan, the inventory, what was written and the verification, with ``from_plan``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2app.converter.analyzers.coverage import unaccounted
from skill2app.converter.plan.model import CodeStep
from skill2app.converter.plan.samples import pipeline_samples
from skill2app.converter.verify.requests import RequestCheck

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.plan.model import Plan
    from skill2app.converter.verify.verify import Verification

REPORT_VERSION = 2  # 2: attempts, exhausted (LLM analysts)


@dataclass
class Report:
    skill: str
    mode: str  # in-place | out | plan-only
    analyzer: str
    usage: dict[str, Any] = field(default_factory=dict)  # the analyzer's token use
    app: str = ""  # where the APP was written ("" for plan-only)
    plan_file: str = ""  # --plan given, or -o written ("-": stdout)
    plan_text: str = ""  # the plan, for the caller to print (--out -); not in to_dict
    pipelines: list[dict[str, Any]] = field(default_factory=list)
    lifecycle: dict[str, bool] = field(default_factory=dict)
    covered: list[str] = field(default_factory=list)
    not_covered: list[dict[str, str]] = field(default_factory=list)
    skill_mode: list[dict[str, str]] = field(default_factory=list)
    # tasks SKILL.md shows that no pipeline covers and no skill_mode entry names
    unaccounted: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    copied: int = 0
    overwritten: list[str] = field(default_factory=list)  # existing files whose content changed
    removed: list[str] = field(default_factory=list)  # what --force deleted
    kept: list[str] = field(default_factory=list)  # entries of pipelines/ it did not generate
    backup: str = ""  # the folder holding what --force overwrote, or removed but had not made
    backed_up: list[str] = field(default_factory=list)  # those files
    verification: Verification | None = None
    pause: dict[str, Any] | None = None  # host analyzer: the needs_llm object to print
    exhausted: list[str] = field(default_factory=list)  # attempts used up: what still fails
    attempts: int = 0  # how many answers an LLM analyst gave (0: none asked)
    # pipeline -> input -> why its sample is a placeholder (samples/placeholders.json)
    placeholders: dict[str, dict[str, str]] = field(default_factory=dict)
    # files outside the skill its programs name -> where (a sibling skill's helper)
    outside: dict[str, list[str]] = field(default_factory=dict)
    # a collection converted as one APP: each skill, its folder and its pipelines
    collection: list[dict[str, Any]] = field(default_factory=list)
    # the skill's own requests routed through the APP (verify/requests.py)
    requests: RequestCheck = field(default_factory=RequestCheck)

    @property
    def ok(self) -> bool:
        if self.exhausted:
            return False
        return self.verification is None or not self.verification.errors

    @classmethod
    def from_plan(cls, plan: Plan, inventory: Inventory, *, skill: str, mode: str) -> Report:
        code = [s for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)]
        used = {s.program for s in code if s.write is None}
        sources = [s.write.source for s in code if s.write is not None]
        used |= {  # a written step that runs a program of the skill (its file name in the code)
            prog.path
            for prog in inventory.programs
            if any(Path(prog.path).name in source for source in sources)
        }
        reasons = {item.topic: item.reason for item in plan.skill_mode}  # "tools/x.py"
        reasons |= {item.where: item.reason for item in plan.skill_mode if item.where}
        report = cls(skill=skill, mode=mode, analyzer=plan.analyzer)
        report.pipelines = [
            {
                "name": p.name,
                "description": p.description,
                "steps": [_step(s) for s in p.steps],
                "source": p.source,
            }
            for p in plan.pipelines
        ]
        report.lifecycle = {
            "constructor": plan.constructor.needed,
            "destructor": plan.destructor.needed,
        }
        report.covered = sorted(used)
        report.not_covered = [
            {"path": p.path, "reason": reasons.get(p.path, "no pipeline runs it")}
            for p in sorted(inventory.programs, key=lambda p: p.path)
            if p.path not in used
        ]
        report.skill_mode = [s.to_dict() for s in plan.skill_mode]
        report.unaccounted = [t.cite(inventory.skill.path) for t in unaccounted(plan, inventory)]
        data = [f.path for f in inventory.files if f.role in ("context", "other")]
        for p in plan.pipelines:  # the plan's own sample is what is written, as it is
            if p.sample.input is None and (found := pipeline_samples(p, data).placeholders):
                report.placeholders[p.name] = found
        report.warnings = list(inventory.warnings)
        report.notes = [n for n in plan.notes if n not in report.warnings]  # said once
        return report

    def to_dict(self) -> dict[str, Any]:
        return {
            "report_version": REPORT_VERSION,
            "ok": self.ok,
            "skill": self.skill,
            "mode": self.mode,
            "app": self.app,
            "plan": self.plan_file,
            "analyzer": {"name": self.analyzer, "usage": dict(sorted(self.usage.items()))},
            "pipelines": self.pipelines,
            "lifecycle": self.lifecycle,
            "programs": {"covered": self.covered, "not_covered": self.not_covered},
            "skill_mode": self.skill_mode,
            "unaccounted": self.unaccounted,
            "placeholders": self.placeholders,
            "warnings": self.warnings,
            "notes": self.notes,
            "files": self.files,
            "copied": self.copied,
            "overwritten": self.overwritten,
            "removed": self.removed,
            "kept": self.kept,
            "backup": {"folder": self.backup, "files": self.backed_up},
            "verification": self.verification.to_dict() if self.verification else None,
            "attempts": self.attempts,
            "exhausted": self.exhausted,
            "outside": self.outside,
            "collection": self.collection,
            "requests": self.requests.to_dict(),
        }

    def human_lines(self) -> list[str]:
        if self.exhausted:
            head = (
                f"Not converted: the analyst's plan still failed after {self.attempts} attempts "
                "(nothing was written). What still fails:"
            )
            return [head, *(f"  {problem}" for problem in self.exhausted)]
        lines = [self._headline()]
        lines += _section("Overwritten", self.overwritten) + _section("Removed", self.removed)
        lines += _section("Kept in pipelines/ (not generated by app-convert)", self.kept)
        if self.backup:
            title = f"Backed up to {self.backup} (overwritten, or removed and not generated)"
            lines += _section(title, self.backed_up)
        tries = f", {self.attempts} attempts" if self.attempts > 1 else ""
        lines.append(f"Analyzer: {self.analyzer} ({cost_text(self.usage)}{tries})")
        if self.collection:
            lines.append(f"Skills ({len(self.collection)}):")
            lines += [
                f"  {c['name']} ({c['folder']}): {', '.join(c['pipelines']) or 'Skill mode only'}"
                for c in self.collection
            ]
        lines.append(f"Pipelines ({len(self.pipelines)}):")
        width = max((len(p["name"]) for p in self.pipelines), default=0)
        for p in self.pipelines:
            steps = ", ".join(
                f"{s['name']} ({'written ' + s['written'] if 'written' in s else s['type']})"
                for s in p["steps"]
            )
            lines.append(f"  {p['name']:<{width}}  {steps}")
        hooks = [name for name, needed in self.lifecycle.items() if needed]
        if hooks:
            lines.append("Lifecycle: " + ", ".join(f"_{name}" for name in hooks))
        lines.append(f"Programs covered ({len(self.covered)}): {', '.join(self.covered) or '-'}")
        lines.append(f"Programs not covered ({len(self.not_covered)}):")
        lines += [f"  {item['path']}: {item['reason']}" for item in self.not_covered]
        lines.append(f"Left to Skill mode ({len(self.skill_mode)}):")
        for item in self.skill_mode:
            where = f" ({item['where']})" if item.get("where") else ""
            lines.append(f"  {item['topic']}: {item['reason']}{where}")
        title = "Tasks SKILL.md shows that no pipeline covers and Skill mode does not name"
        lines += _section(title, self.unaccounted)
        samples = [
            f"{name}: {item} — {why}"
            for name, found in self.placeholders.items()
            for item, why in found.items()
        ]
        lines += _section("Placeholder samples (samples/placeholders.json)", samples)
        lines += _section("Warnings", self.warnings) + _section("Notes", self.notes)
        if self.verification is not None:
            lines += verification_lines(self.verification)
        return lines + request_lines(self.requests)

    def _headline(self) -> str:
        if self.mode == "plan-only":
            target = "stdout" if self.plan_file == "-" else self.plan_file
            return f"Planned {self.skill} -> {target} (nothing rendered)"
        source = f" from {self.plan_file}" if self.plan_file else ""
        copied = f", {self.copied} skill files copied" if self.copied else ""
        return (
            f"Converted {self.skill}{source} -> {self.app} "
            f"({len(self.files)} files written{copied})"
        )


def _step(step: Any) -> dict[str, str]:
    if isinstance(step, CodeStep) and step.write is not None:
        return {"name": step.name, "type": "code", "written": step.write.language}
    if isinstance(step, CodeStep):
        return {"name": step.name, "type": "code", "program": step.program}
    return {"name": step.name, "type": "llm", "model": step.model}


def _section(title: str, items: list[str]) -> list[str]:
    return [f"{title} ({len(items)}):", *(f"  {item}" for item in items)] if items else []


def cost_text(usage: dict[str, Any]) -> str:
    """``claude-x, 2 attempts; 1,200 input + 300 output tokens, $0.0081`` (whatever the
    analyzer told; no tokens: ``no tokens used``)."""
    tokens_in = int(usage.get("input_tokens") or 0)
    tokens_out = int(usage.get("output_tokens") or 0)
    text = (
        f"{tokens_in:,} input + {tokens_out:,} output tokens"
        if tokens_in or tokens_out
        else "no tokens used"
    )
    cost = usage.get("cost_usd")
    text = f"{text}, ${float(cost):.4f}" if isinstance(cost, int | float) else text
    how = [str(usage["model"])] if usage.get("model") else []
    attempts = usage.get("attempts")
    how += [f"{attempts} attempt{'s' if attempts != 1 else ''}"] if attempts else []
    return f"{', '.join(how)}; {text}" if how else text


def routing_lines(verification: Verification) -> list[str]:
    routing = verification.routing
    if not routing.ran:
        why = f" ({routing.skipped})" if routing.skipped else ""
        return [f"Routing self-test: not run{why}"]
    lines = [
        f"Routing self-test: {routing.passed} of {routing.phrases} descriptions and triggers "
        "reach their own pipeline"
    ]
    return lines + [f"  {e}" for e in [*routing.errors, *routing.warnings]]


def request_lines(requests: RequestCheck) -> list[str]:
    """Where the skill's own requests land, and those that land off a pipeline."""
    if not requests.ran:
        return []
    head = (
        [
            f"The skill's own requests: {requests.matched} of {len(requests.own)} reach a "
            "pipeline (quoted in its documents, or situations its description names)"
        ]
        if requests.own
        else []
    )
    if requests.probes:
        head.append(
            f"The analyst's probes: {requests.probes_home} of {len(requests.probes)} reach "
            "their own pipeline"
        )
    return [*head, *(f"  {line}" for line in requests.lines())]


def verification_lines(verification: Verification) -> list[str]:
    v = verification
    lines = [
        f"app-run check: {len(v.check_errors)} errors, {len(v.check_warnings)} warnings",
        f"Python files compiled: {v.compiled}, {len(v.compile_errors)} failed",
        f"Argument mappings checked against the programs: {v.mappings} flags, "
        f"{len(v.mapping_errors)} unknown",
    ]
    lines += [f"  {e}" for e in [*v.check_errors, *v.check_warnings, *v.compile_errors]]
    lines += [f"  {e}" for e in v.mapping_errors]
    if v.outside_errors:
        lines.append(f"Files outside the skill that the APP lacks: {len(v.outside_errors)}")
        lines += [f"  {e}" for e in v.outside_errors]
    lines += routing_lines(v)
    if not v.smoke_ran:
        lines.append("Smoke test: not run (--smoke runs each code step on its samples)")
        return lines
    passed = sum(1 for s in v.smoke if s.status == "passed")
    if not v.smoke:
        lines.append("Smoke test: no code steps to run")
        return lines
    skipped = sum(1 for s in v.smoke if s.status == "skipped")
    traced = sum(1 for s in v.smoke if s.status == "traced")
    failed = len(v.smoke) - passed - skipped - traced
    lines.append(
        f"Smoke test: {passed} of {len(v.smoke)} steps passed"
        + (f", {skipped} skipped, {failed} failed" if skipped or traced else "")
        + (f", {traced} ran with stand-ins for programs not installed here" if traced else "")
    )
    for s in v.smoke:
        if s.status != "passed":
            lines.append(
                f"  {s.pipeline}/{s.step}: {s.status}{': ' + s.detail if s.detail else ''}"
            )
        lines += [f"    ran: {c.line()}" for c in s.calls]
    if v.after:  # samples/after.json: app-run test runs these first
        lines.append("Samples that read what earlier samples make (app-run test runs those first):")
        lines += [f"  {name}: after {', '.join(names)}" for name, names in v.after.items()]
    if v.notices:
        lines.append(f"Smoke findings to check: {len(v.notices)}")
        lines += [f"  {n}" for n in v.notices]
    return lines


@dataclass
class EachReport:
    """``app-convert FOLDER --each``: one APP per skill of a collection.  ``reports``: those
    converted by this command; ``earlier``: summaries of those a host agent's earlier
    answers finished (``summary``)."""

    root: str
    reports: list[Report] = field(default_factory=list)
    earlier: list[dict[str, Any]] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)  # sibling files copied beside the APPs
    pause: dict[str, Any] | None = None
    plan_text: str = ""
    exhausted: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.reports) and all(e["ok"] for e in self.earlier)

    def to_dict(self) -> dict[str, Any]:
        return {
            "report_version": REPORT_VERSION,
            "ok": self.ok,
            "collection": self.root,
            "skills": [*self.earlier, *(summary(r) for r in self.reports)],
            "siblings_copied": self.copied,
            "reports": [r.to_dict() for r in self.reports],
        }

    def human_lines(self) -> list[str]:
        lines: list[str] = []
        for report in self.reports:
            lines += [f"== {report.skill}", *report.human_lines(), ""]
        skills = [*self.earlier, *(summary(r) for r in self.reports)]
        good = sum(1 for s in skills if s["ok"])
        lines.append(
            f"Collection {self.root}: {good} of {len(skills)} skills converted and verified"
        )
        for item in skills:
            state = "ok" if item["ok"] else "NOT VERIFIED: " + "; ".join(item["errors"][:2])
            lines.append(
                f"  {item['skill']} -> {item['app']} ({item['pipelines']} pipelines): {state}"
            )
        lines += _section("Sibling files copied beside the APPs", self.copied)
        return lines


def summary(report: Report) -> dict[str, Any]:
    """One skill of ``--each``, in a line: where its APP is and whether it passed."""
    errors = report.verification.errors if report.verification else []
    return {
        "skill": report.skill,
        "app": report.app,
        "ok": report.ok,
        "pipelines": len(report.pipelines),
        "errors": [*report.exhausted, *errors],
        "outside": report.outside,
    }
