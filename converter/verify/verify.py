"""Verify a converted APP before calling the conversion done.

1. ``app-run check`` on the written APP (the runtime's own checks: schema, files, prompts).
2. Every generated Python file compiles.
3. Every argument mapping of a generated adapter (its ``SPEC``, read back from the file as
   written) names a subcommand and flags its program has, per the skill's inventory.
4. With ``smoke``: each code step (lifecycle steps included) runs on its pipeline's
   ``samples/input.json`` in a temporary copy of the APP, earlier llm steps answered from
   ``samples/answers.yaml``; off by default, since real programs may have side effects.
"""

from __future__ import annotations

import ast
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from skill2app.converter.inventory.programs.interface import Command
from skill2app.runtime.app.config import Config
from skill2app.runtime.app.model import CONSTRUCTOR, DESTRUCTOR, App, Pipeline, load_app
from skill2app.runtime.errors import AppRunError, SubprocessError
from skill2app.runtime.run.steps import StepContext, run_code_step

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.render.render import RenderedFile

SMOKE_TIMEOUT = 60.0
TAIL = 300


@dataclass(frozen=True)
class SmokeResult:
    pipeline: str
    step: str
    status: str  # passed | failed | skipped
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "pipeline": self.pipeline,
            "step": self.step,
            "status": self.status,
            "detail": self.detail,
        }


@dataclass
class Verification:
    check_errors: list[str] = field(default_factory=list)
    check_warnings: list[str] = field(default_factory=list)
    compiled: int = 0
    compile_errors: list[str] = field(default_factory=list)
    mappings: int = 0
    mapping_errors: list[str] = field(default_factory=list)
    smoke_ran: bool = False
    smoke: list[SmokeResult] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        failed = [
            f"smoke {s.pipeline}/{s.step}: {s.detail}" for s in self.smoke if s.status == "failed"
        ]
        return [*self.check_errors, *self.compile_errors, *self.mapping_errors, *failed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.errors,
            "check": {"errors": self.check_errors, "warnings": self.check_warnings},
            "compile": {"files": self.compiled, "errors": self.compile_errors},
            "arguments": {"mappings": self.mappings, "errors": self.mapping_errors},
            "smoke": {"ran": self.smoke_ran, "steps": [s.to_dict() for s in self.smoke]},
        }


def verify_app(
    root: Path,
    files: list[RenderedFile],
    inventory: Inventory,
    *,
    smoke: bool = False,
    timeout: float = SMOKE_TIMEOUT,
    progress: Callable[[str], None] | None = None,
) -> Verification:
    result = Verification()
    result.check_errors, result.check_warnings = run_check(root)
    python = [f for f in files if f.path.endswith(".py")]
    result.compiled = len(python)
    result.compile_errors = [e for f in python for e in compile_errors(f)]
    adapters = [f for f in python if "SPEC = " in f.content]
    for item in adapters:
        count, errors = mapping_errors(item, inventory)
        result.mappings += count
        result.mapping_errors += errors
    if smoke:
        result.smoke_ran = True
        result.smoke = smoke_test(root, timeout, progress or (lambda _message: None))
    return result


def run_check(root: Path) -> tuple[list[str], list[str]]:
    """(errors, warnings) of ``app-run check``, each ``file:line: message``."""
    from skill2app.runtime.app.check import check_app
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.errors import ToolError

    try:
        app = load_app(root)
    except ToolError as exc:
        return [exc.one_line()], []
    found: dict[str, list[str]] = {"error": [], "warning": []}
    for diagnostic in check_app(app):
        where = diagnostic.where
        shown = _relative(Path(where.file), app.root)
        line = f"{shown}:{where.line}" if where.line else shown
        found.setdefault(diagnostic.level, []).append(f"{line}: {diagnostic.message}")
    return found["error"], found["warning"]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def compile_errors(item: RenderedFile) -> list[str]:
    try:
        compile(item.content, item.path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [f"{item.path}:{exc.lineno or 0}: does not compile: {exc.msg}"]
    except ValueError as exc:
        return [f"{item.path}: does not compile: {exc}"]
    return []


def read_spec(source: str) -> dict[str, Any] | None:
    """The ``SPEC = {...}`` literal of a generated adapter, as written."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "SPEC" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            return value if isinstance(value, dict) else None
    return None


def mapping_errors(item: RenderedFile, inventory: Inventory) -> tuple[int, list[str]]:
    """(flags checked, problems) for one adapter: its program, subcommand and flags."""
    try:
        spec = read_spec(item.content) if isinstance(item.content, str) else None
    except (SyntaxError, ValueError):
        return 0, []  # reported by compile_errors
    if spec is None:
        return 0, []
    program = inventory.program(str(spec.get("program")))
    if program is None:
        return 0, [f"{item.path}: the skill has no program {spec.get('program')!r}"]
    cli = program.cli or Command("none")
    command = cli
    subcommand = str(spec.get("subcommand") or "")
    if subcommand:
        known = [*cli.subcommands, *(program.enumerations.get("<command>") or [])]
        if subcommand not in known:
            return 0, [f"{item.path}: {program.path} has no subcommand {subcommand!r}"]
        command = cli.subcommands.get(subcommand, Command("none"))
    authoritative = command.framework != "none" or bool(command.params)
    flags = [str(a["flag"]) for a in spec.get("args", []) if a.get("flag")]
    errors = [
        f"{item.path}: {program.path} has no flag {flag}"
        for flag in flags
        if authoritative and command.flag(flag) is None
    ]
    return len(flags), errors


# -- smoke ---------------------------------------------------------------------------------


def smoke_test(root: Path, timeout: float, progress: Callable[[str], None]) -> list[SmokeResult]:
    """Run every code step on its samples in a temporary copy of the APP, the way app-run
    runs it (same environment, working folder, stdin/stdout contract and timeout kill)."""
    results: list[SmokeResult] = []
    with tempfile.TemporaryDirectory(prefix="app-convert-smoke-") as tmp:
        copy = Path(tmp) / "app"
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        work = Path(tmp) / "work"
        work.mkdir()
        try:
            app = load_app(copy)
        except AppRunError as exc:  # app-run check has reported it already
            return [SmokeResult("", "", "failed", exc.one_line())]
        names = [n for n in (CONSTRUCTOR,) if app.has(n)] + app.business_names()
        names += [n for n in (DESTRUCTOR,) if app.has(n)]
        for name in names:
            try:
                pipeline = app.pipeline(name)
            except AppRunError as exc:
                results.append(SmokeResult(name, "", "failed", exc.one_line()))
                continue
            results += _smoke_pipeline(app, pipeline, work, timeout, progress)
    return results


def _smoke_pipeline(
    app: App, pipeline: Pipeline, work: Path, timeout: float, progress: Callable[[str], None]
) -> list[SmokeResult]:
    samples = pipeline.dir / "samples"
    sample_file = samples / "input.json"
    inputs = json.loads(sample_file.read_text(encoding="utf-8")) if sample_file.is_file() else {}
    answers = _answers(samples / "answers.yaml")
    context = StepContext(
        app=app,
        pipeline=pipeline,
        inputs=inputs,
        run_id="smoke",
        config=Config(),
        extra_env={
            "APP_WORK_DIR": str(work),
            "APP_CALLER_CWD": str(app.root),
            "APP_BUSINESS_PIPELINE": pipeline.name,
        },
    )
    results: list[SmokeResult] = []
    for step in pipeline.steps:
        if step.type == "llm":
            queue = answers.get(f"{pipeline.name}/{step.name}") or answers.get(step.name)
            if not queue:
                results.append(SmokeResult(pipeline.name, step.name, "skipped", "no sample answer"))
                break
            context.outputs[step.name] = queue[0]
            continue
        progress(f"smoke: {pipeline.name}/{step.name}")
        try:
            outcome = run_code_step(context, replace(step, timeout=min(step.timeout, timeout)))
        except AppRunError as exc:
            results.append(SmokeResult(pipeline.name, step.name, "failed", _reason(exc)))
            break
        results.append(SmokeResult(pipeline.name, step.name, "passed"))
        context.outputs[step.name] = outcome.output
    return results


def _reason(exc: AppRunError) -> str:
    """What went wrong, ending with the last line the program itself wrote to stderr."""
    if not isinstance(exc, SubprocessError):
        return exc.message
    return f"{exc.message}: {exc.last_words[:TAIL] or '(no stderr)'}"


def _answers(path: Path) -> dict[str, list[Any]]:
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    table = data.get("answers") if isinstance(data, dict) else None
    return table if isinstance(table, dict) else {}
