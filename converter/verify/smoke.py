"""The smoke test: each business pipeline of a converted APP run on its samples.

In a temporary copy of the APP, after its constructor (with the pipeline's own checks) and
before its destructor: code steps for real, llm steps answered from ``samples/answers.yaml``.
A configuration variable the constructor checks and that names a path (``*_FILE``, ``*_PATH``,
``*_DIR``, ``*_HOME``) and is not set gets a scratch path.  A step that fails only because this
machine lacks what the skill needs (the constructor's checks fail, a module or program is not
installed, the network is out of reach) is ``skipped`` with what is missing — not a fault of
the APP.  The steps run through app-run's own step runner inside the sandbox
(``runtime.run.sandbox``: no network, nothing writable but the temporary copy, no view of the
user's home; the caller has made sure one is available, or the user asked to go without:
``sandboxed``).

A program the skill runs that is not installed here gets a stand-in (``standins.py``): the
pipeline runs, and what its steps ran through the stand-in is recorded (status ``traced``),
so the glue around the program is run too.  Files a pipeline's steps write inside the APP's
``pipelines/`` folder (they run there: a program given a relative output path writes into
the APP) are recorded as well (``Seen.inside``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2app.converter.render.literals import read_literal
from skill2app.converter.verify.failures import lacks, missing_program, needs_of, reason
from skill2app.converter.verify.sequence import (
    changed_files,
    named_paths,
    snapshot,
    watched_paths,
)
from skill2app.converter.verify.standins import Call, StandIns
from skill2app.runtime.app.config import Config
from skill2app.runtime.app.document import read_bounded
from skill2app.runtime.app.model import CONSTRUCTOR, DESTRUCTOR, App, Pipeline, load_app
from skill2app.runtime.app.secrets import Scrubber
from skill2app.runtime.errors import AppRunError
from skill2app.runtime.run.sandbox import Sandbox, scratch_folder
from skill2app.runtime.run.steps import StepContext, run_code_step

if TYPE_CHECKING:
    pass

SMOKE_TIMEOUT = 60.0
MAX_SHOWN = 20  # entries a pipeline put in the HOME, named in the report
PATH_LIKE = re.compile(r"(?:_FILE|_PATH|_DIR|_HOME|_DB)$")
MAX_RERUNS = 3  # a pipeline run again with one more stand-in, at most this many times


@dataclass(frozen=True)
class SmokeResult:
    pipeline: str
    step: str
    status: str  # passed | failed | skipped | traced (ran with stand-ins: standins.py)
    detail: str = ""
    calls: tuple[Call, ...] = ()  # what the step ran through stand-ins
    lacks: str = ""  # skipped: the program this machine lacks, when the failure names one
    stopped: bool = False  # traced: it failed after (or on) what a stand-in printed

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pipeline": self.pipeline,
            "step": self.step,
            "status": self.status,
            "detail": self.detail,
        }
        if self.calls:
            data["stand_in_calls"] = [c.to_dict() for c in self.calls]
        return data


@dataclass
class Seen:
    """What a smoke run saw its pipelines do besides their results: pipeline -> the files
    it wrote inside the APP's ``pipelines/`` folder (``inside``), what it put in the
    sandbox's HOME (``at_home``: ``~/.openclaw``; a sample run by ``app-run test`` without
    ``--sandbox`` would write the user's own), the files it changed at or under a path a
    sample names (``changed``: what a later sample reads, ``sequence.py``), whether there
    were more of those than a snapshot notes (``cut_short``), and the paths each sample
    names, in the run's order (``named``)."""

    inside: dict[str, list[str]] = field(default_factory=dict)
    at_home: dict[str, list[str]] = field(default_factory=dict)
    changed: dict[str, list[str]] = field(default_factory=dict)
    cut_short: bool = False
    named: dict[str, list[str]] = field(default_factory=dict)  # the paths each sample names


@dataclass
class Scratch:
    """What every pipeline of one smoke run shares: the scratch folder, its environment, the
    stand-ins, what blanks secrets in what they record, and what the run sees."""

    work: Path
    env: dict[str, str]
    standins: StandIns
    scrubber: Scrubber
    seen: Seen
    home: Path | None = None  # the sandbox's HOME (None unsandboxed: the user's own)
    watched: list[str] = field(default_factory=list)  # the paths the samples name


def smoke_test(
    root: Path,
    timeout: float,
    progress: Callable[[str], None],
    order: list[str] | None = None,
    *,
    sandboxed: bool = True,
    outside: dict[str, Path] | None = None,
    seen: Seen | None = None,
) -> list[SmokeResult]:
    """Run every business pipeline on its samples in a temporary copy of the APP, inside its
    lifecycle, the way app-run runs it (same environment, working folder, stdin/stdout
    contract and timeout kill), in ``order`` (the plan's: what one pipeline makes, a later one
    may use), then the rest by name — in the sandbox unless not ``sandboxed``.  A pipeline
    whose sample is a placeholder (``samples/placeholders.json``) is skipped, with its
    reason.  ``outside``: files outside the skill its programs name (target relative to the
    APP -> the file), put where they are named from the copy.  ``seen`` (filled when given):
    what the pipelines did besides their results."""
    results: list[SmokeResult] = []
    with (
        scratch_folder("app-convert-smoke-") as tmp,
        scratch_folder("app-convert-stand-ins-") as own,
    ):
        # the stand-ins' scripts: app-convert's, read-only in the sandbox (standins.py)
        readable = (Path(own).resolve(),)
        sandbox = Sandbox(writable=(Path(tmp).resolve(),), readable=readable) if sandboxed else None
        copy = deep_enough(Path(tmp), outside or {}) / "app"
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        place_outside(copy, outside or {})
        work = Path(tmp) / "work"
        work.mkdir()
        try:
            app = load_app(copy)
        except AppRunError as exc:  # app-run check has reported it already
            return [SmokeResult("", "", "failed", exc.one_line())]
        standins = StandIns(Path(own).resolve(), Path(tmp).resolve() / "calls" / "calls.jsonl")
        for name in missing_binaries(copy):
            standins.add(name)
        env = scratch_env(copy, work)
        env["PATH"] = standins.path(os.environ.get("PATH", ""))
        scratch = Scratch(work, env, standins, Scrubber.from_env(), seen or Seen())
        scratch.home = Path(tmp).resolve() if sandboxed else None
        ordered = run_order(app.business_names(), order)
        scratch.seen.named = named_paths(copy, ordered)
        scratch.watched = watched_paths(scratch.seen.named)
        missing: list[str] = []  # pipelines skipped for what this machine lacks
        for name in ordered:
            done = _smoke_business(app, name, scratch, timeout, progress, sandbox, missing)
            if any(r.status == "skipped" and lacks(r.detail) for r in done):
                missing.append(name)
            results += done
    return results


def run_order(names: list[str], order: list[str] | None) -> list[str]:
    """The business pipelines ``names`` in the smoke run's order: ``order`` (the plan's),
    then the rest by name."""
    return [n for n in order or [] if n in names] + [n for n in names if n not in (order or [])]


def missing_binaries(app_root: Path) -> list[str]:
    """The programs the constructor checks for that are not on PATH here."""
    return [
        str(check.get("name", ""))
        for check in _checks(app_root)
        if check.get("kind") == "binary" and not shutil.which(str(check.get("name", "")))
    ]


def _checks(app_root: Path) -> list[dict[str, Any]]:
    checker = app_root / "pipelines" / CONSTRUCTOR / "steps" / "check_environment.py"
    try:
        checks = read_literal(checker.read_text(encoding="utf-8"), "CHECKS") or []
    except (OSError, SyntaxError, ValueError):
        return []
    return [c for c in checks if isinstance(c, dict)] if isinstance(checks, list) else []


def _made_by_skipped(
    app_root: Path, inputs: dict[str, Any], skipped: list[str], results: list[SmokeResult]
) -> list[SmokeResult]:
    """``results`` with a failure that reads a sample file which is not there, made by an
    earlier pipeline that was skipped here (samples share one scratch state), as skipped: the
    pipeline cannot run here, its plan is not at fault.  Only a failure that names the file:
    an output path in the sample is not there either, and a real failure stays one."""
    values: list[Any] = []
    for value in inputs.values():
        values += value if isinstance(value, list) else [value]
    absent = [
        v for v in values
        if isinstance(v, str) and FILE_LIKE.fullmatch(v) and not v.startswith("/")
        and not (app_root / v).exists()
    ]  # fmt: skip
    if not skipped or not absent:
        return results
    kept = []
    for result in results:
        named = next((v for v in absent if Path(v).name in result.detail), None)
        if result.status == "failed" and named:
            why = (
                f"its sample uses {named}, which is not there: an earlier pipeline "
                f"({', '.join(skipped)}) that would make it was skipped here"
            )
            result = replace(result, status="skipped", detail=why)
        kept.append(result)
    return kept


def deep_enough(tmp: Path, outside: dict[str, Path]) -> Path:
    """A folder under ``tmp`` deep enough that every ``../`` of ``outside`` stays in it."""
    ups = max((t.split("/").count("..") for t in outside), default=0)
    return tmp.joinpath(*["up"] * ups)


def place_outside(app: Path, outside: dict[str, Path]) -> None:
    """Copy each file outside the skill to where the APP's programs name it from ``app``."""
    for target, source in outside.items():
        dest = Path(os.path.normpath(app / target))
        if source.is_file() and not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)


def scratch_env(app_root: Path, work: Path) -> dict[str, str]:
    """Scratch paths for the constructor's path-like variables that are not set here."""
    env: dict[str, str] = {}
    for check in _checks(app_root):
        name = str(check.get("name", ""))
        if check.get("kind") == "env" and PATH_LIKE.search(name) and name not in os.environ:
            path = work / "env" / name.lower()
            if name.endswith(("_DIR", "_HOME")):
                path.mkdir(parents=True, exist_ok=True)
            env[name] = str(path)
    (work / "env").mkdir(exist_ok=True)
    return env


def _smoke_business(
    app: App,
    name: str,
    scratch: Scratch,
    timeout: float,
    progress: Callable[[str], None],
    sandbox: Sandbox | None = None,
    skipped: list[str] | None = None,
) -> list[SmokeResult]:
    """One business pipeline with its lifecycle (``_one_run``), run again with a stand-in
    when a step fails on a program this machine lacks that has none yet."""
    before = _files_inside(app.root)
    copy, cut = snapshot(app.root, scratch.watched)
    home = set(os.listdir(scratch.home)) if scratch.home is not None else set()
    for _rerun in range(MAX_RERUNS + 1):
        results = _one_run(app, name, scratch, timeout, progress, sandbox, skipped)
        lacking = [r.lacks for r in results if r.status == "skipped"]
        if not any(scratch.standins.add(n) for n in lacking if n):
            break
        progress(f"smoke: {name}: again, with a stand-in for {', '.join(filter(None, lacking))}")
    now, cut_now = snapshot(app.root, scratch.watched)
    scratch.seen.cut_short |= cut or cut_now
    made = changed_files(copy, now)
    if made:
        scratch.seen.changed[name] = made
    written = sorted(_files_inside(app.root) - before)
    if written:
        scratch.seen.inside[name] = written
    if scratch.home is not None:
        put = sorted(e for e in set(os.listdir(scratch.home)) - home if _config(e))[:MAX_SHOWN]
        if put:
            scratch.seen.at_home[name] = [f"~/{entry}" for entry in put]
    return results


def _one_run(
    app: App,
    name: str,
    scratch: Scratch,
    timeout: float,
    progress: Callable[[str], None],
    sandbox: Sandbox | None = None,
    skipped: list[str] | None = None,
) -> list[SmokeResult]:
    """One business pipeline with its lifecycle: its steps are skipped (with what is missing)
    when its constructor's checks fail here, or when it fails on a sample file that an earlier
    pipeline, ``skipped`` here for the same reason, would have made."""
    try:
        pipeline = app.pipeline(name)
    except AppRunError as exc:
        return [SmokeResult(name, "", "failed", exc.one_line())]
    placeholder = _placeholder(pipeline)
    if placeholder:
        return [SmokeResult(name, s.name, "skipped", placeholder) for s in pipeline.steps]
    try:
        inputs = _sample_inputs(pipeline)
    except AppRunError as exc:  # bounded: a huge or bomb-like sample is said, not parsed
        return [SmokeResult(name, "", "failed", exc.one_line())]
    scratch.scrubber.hide(inputs)
    results: list[SmokeResult] = []
    run = (scratch, timeout, progress, inputs, name, sandbox)
    if app.has(CONSTRUCTOR):
        before = _smoke_pipeline(app, app.pipeline(CONSTRUCTOR), *run)
        failed = next((r for r in before if r.status not in ("passed", "traced")), None)
        if failed is not None:
            missing = needs_of(failed.detail)
            if not missing:
                return [replace(failed, pipeline=f"{name} ({CONSTRUCTOR})")]
            return [SmokeResult(name, s.name, "skipped", missing) for s in pipeline.steps]
    ran = _smoke_pipeline(app, pipeline, *run)
    results += _made_by_skipped(app.root, inputs, skipped or [], ran)
    if app.has(DESTRUCTOR):
        after = _smoke_pipeline(app, app.pipeline(DESTRUCTOR), *run)
        results += [
            replace(r, pipeline=f"{name} ({DESTRUCTOR})") for r in after if r.status == "failed"
        ]
    return results


# What programs put in a home folder that is no one's settings: caches, package stores.
_CACHES = frozenset(
    ".cache .npm .node-gyp .yarn .pnpm-store .bun .local .pki .matplotlib .fontconfig "
    ".python_history .wget-hsts .lesshst".split()
)


def _config(entry: str) -> bool:
    """Whether an entry a sample put in the home folder is a program's settings or data
    (``.openclaw``, ``.config``): a dot name, not a cache."""
    return entry.startswith(".") and entry not in _CACHES


def _files_inside(app_root: Path) -> set[str]:
    """The files under the APP's ``pipelines/`` folder, but for its samples (a step may
    rightly write into the sample project its input names) and bytecode caches."""
    found = set()
    for path in (app_root / "pipelines").rglob("*"):
        parts = path.relative_to(app_root).parts
        if "__pycache__" in parts or "node_modules" in parts or parts[2:3] == ("samples",):
            continue
        if path.is_file() or path.is_symlink():
            found.add(path.relative_to(app_root).as_posix())
        if len(found) > 20_000:  # a runaway step: enough to say so
            break
    return found


FILE_LIKE = re.compile(r"[\w./-]*[\w-]\.[A-Za-z0-9]{1,5}")


def _placeholder(pipeline: Pipeline) -> str:
    """Why the pipeline's sample is only a placeholder ("": it is real)."""
    path = pipeline.dir / "samples" / "placeholders.json"
    if not path.is_file():
        return ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "placeholder sample"
    why = data.get("why") if isinstance(data, dict) else None
    inputs = data.get("inputs") if isinstance(data, dict) else None
    named = ", ".join(sorted(inputs)) if isinstance(inputs, dict) and inputs else ""
    if why:
        return f"not run, as the plan says: {why}"
    return f"placeholder sample values for {named}" if named else "placeholder sample"


def _sample_inputs(pipeline: Pipeline) -> dict[str, Any]:
    sample_file = pipeline.dir / "samples" / "input.json"
    if not sample_file.is_file():
        return {}
    data = read_bounded(sample_file, "json")
    return data if isinstance(data, dict) else {}


def _smoke_pipeline(
    app: App,
    pipeline: Pipeline,
    scratch: Scratch,
    timeout: float,
    progress: Callable[[str], None],
    inputs: dict[str, Any],
    business: str,
    sandbox: Sandbox | None = None,
) -> list[SmokeResult]:
    try:
        answers = _answers(pipeline.dir / "samples" / "answers.yaml")
    except AppRunError as exc:  # bounded: an alias bomb in the answers is said, not expanded
        return [SmokeResult(pipeline.name, "", "failed", exc.one_line())]
    context = StepContext(
        app=app,
        pipeline=pipeline,
        inputs=inputs,
        run_id="smoke",
        config=Config(),
        extra_env={
            **scratch.env,
            "APP_WORK_DIR": str(scratch.work),
            "APP_CALLER_CWD": str(app.root),
            "APP_BUSINESS_PIPELINE": business,
        },
        sandbox=sandbox,
    )
    results: list[SmokeResult] = []
    traced: list[str] = []  # the steps of this run that ran a stand-in
    for step in pipeline.steps:
        if step.type == "llm":
            queue = answers.get(f"{pipeline.name}/{step.name}") or answers.get(step.name)
            if not queue:
                results.append(SmokeResult(pipeline.name, step.name, "skipped", "no sample answer"))
                break
            problems = _judge_sample(context, step, queue[0])
            if problems:
                detail = f"its sample answer fails its own checks: {'; '.join(problems[:3])}"
                results.append(SmokeResult(pipeline.name, step.name, "failed", detail))
                break
            results.append(SmokeResult(pipeline.name, step.name, "passed", "sample answer"))
            context.outputs[step.name] = queue[0]
            continue
        progress(f"smoke: {pipeline.name}/{step.name}")
        mark = scratch.standins.mark()
        try:
            outcome = run_code_step(context, replace(step, timeout=min(step.timeout, timeout)))
        except AppRunError as exc:
            calls = tuple(scratch.standins.calls_since(mark, app.root, scratch.scrubber))
            fed = [t for t in traced if _reads(pipeline, step.command, t)]
            results.append(_stopped(pipeline.name, step.name, reason(exc), calls, fed))
            break
        calls = tuple(scratch.standins.calls_since(mark, app.root, scratch.scrubber))
        if calls:
            traced.append(step.name)
            detail = f"ran with a stand-in for {_named(calls)}, which is not installed here"
            results.append(SmokeResult(pipeline.name, step.name, "traced", detail, calls))
        else:
            results.append(SmokeResult(pipeline.name, step.name, "passed"))
        context.outputs[step.name] = outcome.output
    return results


def _stopped(
    pipeline: str, step: str, said: str, calls: tuple[Call, ...], fed: list[str]
) -> SmokeResult:
    """A step that failed: ``skipped`` when this machine lacks a program it runs (a stand-in
    comes next) or what it needs; ``traced`` when it ran a stand-in, or reads the output of
    an earlier step that did (``fed``: what the stand-in printed, nothing, may be why); else
    ``failed``."""
    program = missing_program(said)
    if program and not calls:
        return SmokeResult(pipeline, step, "skipped", needs_of(said) or said, lacks=program)
    if calls or fed:
        whose = f"a stand-in for {_named(calls)}" if calls else f"the stand-in's output of {fed[0]}"
        detail = (
            f"ran with {whose}, as a program is not installed here; then stopped, perhaps on "
            f"the stand-in's empty output: {said}"
        )
        return SmokeResult(pipeline, step, "traced", detail, calls, stopped=True)
    missing = needs_of(said) if pipeline not in (CONSTRUCTOR, DESTRUCTOR) else ""
    if not missing:
        return SmokeResult(pipeline, step, "failed", said)
    return SmokeResult(pipeline, step, "skipped", missing)


def _reads(pipeline: Pipeline, command: str, earlier: str) -> bool:
    """Whether the step run by ``command`` reads the output of step ``earlier``: its program
    (an adapter's SPEC, a written step's source) names it."""
    words = command.split()
    path = pipeline.dir / words[-1] if words else None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:200_000] if path else ""
    except OSError:
        return True  # cannot tell: as it was before, the stand-in's output may be why
    return bool(re.search(rf"(?<![\w-]){re.escape(earlier)}(?![\w-])", text))


def _named(calls: tuple[Call, ...]) -> str:
    return ", ".join(dict.fromkeys(c.program for c in calls))


def _judge_sample(context: StepContext, step: Any, answer: Any) -> list[str]:
    """The problems app-run's own check of an llm answer finds in ``answer`` (schema, then
    the validate script): a sample answer stands for the model's, so it must pass them — and
    running the validate script on it shows the script works."""
    from skill2app.runtime.run.llm_step import judge, load_schema

    try:
        _output, errors = judge(context, step, answer, load_schema(context, step))
    except AppRunError as exc:  # the validate script itself broke
        return [reason(exc)]
    return errors


def _answers(path: Path) -> dict[str, list[Any]]:
    if not path.is_file():
        return {}
    data = read_bounded(path, "yaml") or {}
    table = data.get("answers") if isinstance(data, dict) else None
    return table if isinstance(table, dict) else {}
