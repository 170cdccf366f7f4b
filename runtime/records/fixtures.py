"""`app-run test`: every pipeline run on its own samples, its output compared with the last
accepted one.

A pipeline folder's ``samples/`` holds ``input.json`` (the inputs), optionally
``answers.yaml`` (recorded LLM answers: the scripted provider replays them) and
``expected.json`` (the accepted output; ``--update`` writes it). No LLM is called and nothing
pauses: an llm step without recorded answers fails the test.

Each pipeline gets one status (``STATUSES``): ``passed`` (its output equals expected.json),
``failed`` (the run failed, or the output differs), ``no_expectation`` (it ran, but there is
no expected.json to compare with: not a pass), ``placeholder`` (``samples/placeholders.json``
says its sample input is only a placeholder, as app-convert writes when a skill shows no
real value: not run, as its output would test nothing), ``recorded`` (``--update`` wrote
expected.json) or ``skipped`` (no ``samples/input.json``).

A sample that needs what another pipeline's sample makes (a knowledge base built first, a
run opened first) names those pipelines in ``samples/after.json`` (``prerequisites.py``):
their samples run first, in the same copy, their outputs not compared.

A sample runs as if app-run was started in the APP folder, but in a copy of it
(``workcopy.WorkCopy``): what a sample run writes beside its inputs (``table_fixed.xlsx``
next to ``table.xlsx``, a folder of chunks) or in the folder it runs in lands in the copy,
removed after the run: the APP is not changed by its own tests, and a second ``app-run
test`` does not meet the first one's files.  What a sample writes elsewhere (a config under
``~``) is the user's own, unless ``--sandbox`` runs the programs in bubblewrap
(``sandbox.for_sample``): a private HOME and TMPDIR (beside the copy, the same path from run
to run, removed after it), no network, nothing else writable but the copy and the run's work
folder (round 43: an APP's sample registered a nickname in the judge's
``~/.openclaw/lobsters.json``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.app import numbers
from skill2app.runtime.app.bounds import inside, real
from skill2app.runtime.app.config import Config, state_home
from skill2app.runtime.app.model import App
from skill2app.runtime.errors import AppRunError, UsageError
from skill2app.runtime.jsonfile import write_json
from skill2app.runtime.providers.scripted import ScriptedProvider
from skill2app.runtime.records.prerequisites import prerequisites
from skill2app.runtime.records.result import Position, RunResult
from skill2app.runtime.records.workcopy import WorkCopy, private_home
from skill2app.runtime.run import sandbox
from skill2app.runtime.run.inputs import read_input_json
from skill2app.runtime.run.runner import begin

STATUSES = ("passed", "failed", "no_expectation", "placeholder", "recorded", "skipped")


@dataclass
class FixtureResult:
    pipeline: str
    status: str  # one of STATUSES
    detail: str = ""
    run_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "pipeline": self.pipeline,
            "status": self.status,
            "detail": self.detail,
            "run_id": self.run_id,
        }


def run_fixtures(
    app: App,
    names: list[str],
    *,
    config: Config,
    update: bool = False,
    listener: Callable[[dict[str, Any]], None] | None = None,
    sandboxed: bool = False,
) -> list[FixtureResult]:
    if sandboxed and not sandbox.available():
        raise UsageError(
            "--sandbox runs the samples' programs in bubblewrap, and there is no sandbox here "
            "(bwrap is not installed, or cannot create namespaces)",
            hint=sandbox.INSTALL_HINT,
        )
    results = []
    for name in names or app.business_names():
        app.document(name)  # an unknown name is a usage error, before anything runs
        results.append(
            run_fixture(
                app, name, config=config, update=update, listener=listener, sandboxed=sandboxed
            )
        )
    return results


def run_fixture(
    app: App,
    name: str,
    *,
    config: Config,
    update: bool,
    listener: Callable[[dict[str, Any]], None] | None,
    sandboxed: bool = False,
) -> FixtureResult:
    samples = _samples(app, name)
    if not (samples / "input.json").is_file():
        return FixtureResult(name, "skipped", "no samples/input.json")
    for other in [name, *_named_after(app, name)]:  # `samples -> ~/.ssh`: never read
        for path in _sample_files(app, other):
            if path.exists() and not inside(path, app.root):
                shown = path.relative_to(app.root).as_posix()
                why = f"{shown} leads to {real(path)}, outside the APP"
                return FixtureResult(name, "failed", why)
    try:
        before = prerequisites(app, name)  # samples/after.json: what runs first
    except AppRunError as exc:
        return FixtureResult(name, "failed", exc.one_line())
    for other in [*before, name]:
        placeholders = placeholder_note(_samples(app, other) / "placeholders.json")
        if placeholders is not None:
            after = f" (it runs after {other}'s sample)" if other != name else ""
            return FixtureResult(name, "placeholder", f"not run: {placeholders}{after}")
        if not (_samples(app, other) / "input.json").is_file():
            return FixtureResult(
                name, "failed", f"it runs after {other}'s sample, and {other} has none "
                "(no samples/input.json)"
            )  # fmt: skip
    try:
        with WorkCopy(app, name) as work:
            home = private_home(work) if sandboxed else None  # a sample never writes yours
            try:
                for other in before:  # their outputs are theirs to test
                    why = f"it runs after {other}'s sample, which failed: "
                    try:
                        first = _run_sample(app, other, work, home, config, listener)
                    except AppRunError as exc:
                        return FixtureResult(name, "failed", why + exc.one_line())
                    if first.status != "succeeded":
                        why += failure_line(first)
                        return FixtureResult(name, "failed", why, first.run_id)
                result = _run_sample(app, name, work, home, config, listener)
            finally:
                if home is not None:
                    sandbox.remove_tree(home)
    except AppRunError as exc:
        return FixtureResult(name, "failed", exc.one_line())
    if result.status != "succeeded":
        return FixtureResult(name, "failed", failure_line(result), result.run_id)
    expected = samples / "expected.json"
    if expected.exists() and not inside(expected, app.root):
        where = real(expected)
        return FixtureResult(name, "failed", f"not recorded: {expected} leads to {where}, "
                             "outside the APP", result.run_id)  # fmt: skip
    return compare(expected, result.output, name, result.run_id, update)


def _samples(app: App, name: str) -> Path:
    return app.root / "pipelines" / name / "samples"


def _sample_files(app: App, name: str) -> list[Path]:
    """What a sample run reads of ``name``'s samples/: checked to stay inside the APP."""
    samples = _samples(app, name)
    files = ("input.json", "answers.yaml", "placeholders.json", "expected.json")
    return [samples, *(samples / f for f in files)]


def _named_after(app: App, name: str) -> list[str]:
    """The pipelines ``name``'s sample runs after, as far as they can be read (a bad
    after.json is reported where it is read)."""
    try:
        return prerequisites(app, name)
    except AppRunError:
        return []


def _run_sample(
    app: App,
    name: str,
    work: Path,
    home: Path | None,
    config: Config,
    listener: Callable[[dict[str, Any]], None] | None,
) -> RunResult:
    """``name`` run on its sample in the copy ``work`` (its recorded answers, no LLM), in
    the sandbox with the private ``home`` when there is one."""
    samples = _samples(app, name)
    inputs = read_input_json(str(samples / "input.json"))
    answers = samples / "answers.yaml"
    provider = ScriptedProvider.from_file(answers) if answers.is_file() else None
    run = begin(
        app, name, inputs, config=config, provider=provider, home=state_home(), listener=listener
    )
    run.caller_cwd = str(work)  # samples name files as in the APP: in its copy
    if home is not None:
        done = [work, *([run.work_dir] if run.work_dir is not None else [])]
        run.sandbox = sandbox.for_sample(home, done, app.root, config.secrets)
    return run.advance(Position())


def failure_line(result: RunResult) -> str:
    """Which phase failed, its error, and the last line the failing program wrote on stderr
    (its own reason: a constructor's "package 'pypdf' is not installed")."""
    for phase in (result.constructor, result.business, result.destructor):
        if phase is not None and phase.error is not None:
            words = getattr(phase.error, "last_words", "")
            reason = f" — {words}" if words else ""
            return f"{phase.phase} failed: {phase.error.one_line()}{reason}"
    return result.status


def compare(expected: Path, output: Any, name: str, run_id: str, update: bool) -> FixtureResult:
    if update:
        write_json(expected, output, sort_keys=True)
        return FixtureResult(name, "recorded", str(expected), run_id)
    if not expected.is_file():
        return FixtureResult(
            name,
            "no_expectation",
            "ran; no samples/expected.json (record it with --update)",
            run_id,
        )
    try:
        wanted = numbers.loads(expected.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        return FixtureResult(name, "failed", f"{expected}: not readable JSON ({exc})", run_id)
    if wanted == output:
        return FixtureResult(name, "passed", "output equals samples/expected.json", run_id)
    return FixtureResult(name, "failed", first_difference(wanted, output), run_id)


def placeholder_note(path: Path) -> str | None:
    """What ``samples/placeholders.json`` says of the sample, as one line: why it cannot run
    here (``{"why": "..."}``: "scripts/install-mq.sh installs mq on this machine ..."), else
    which inputs are placeholders (``{"inputs": {"<input>": "<why>"}}``: "placeholder sample
    input — url: a real page to fetch").  None: there is no such file; a file that says
    nothing readable still marks a placeholder."""
    if not path.is_file():
        return None
    told: list[str] = []
    why = ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        why = data.get("why") if isinstance(data.get("why"), str) else ""
        told = [f"{key}: {str(said)[:80]}" for key, said in (data.get("inputs") or {}).items()]
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    if why:
        return why[:200]
    return "placeholder sample input" + (f" — {'; '.join(told)}" if told else "")


def first_difference(wanted: Any, got: Any, path: str = "output") -> str:
    """Where two JSON values first differ, as one line."""
    if isinstance(wanted, dict) and isinstance(got, dict):
        for key in sorted(set(wanted) | set(got)):
            if key not in got:
                return f"{path}.{key} is missing"
            if key not in wanted:
                return f"{path}.{key} is new"
            if wanted[key] != got[key]:
                return first_difference(wanted[key], got[key], f"{path}.{key}")
    if isinstance(wanted, list) and isinstance(got, list) and len(wanted) == len(got):
        for index, (a, b) in enumerate(zip(wanted, got, strict=True)):
            if a != b:
                return first_difference(a, b, f"{path}.{index}")
    shown = [json.dumps(v, ensure_ascii=False)[:80] for v in (wanted, got)]
    return f"{path}: expected {shown[0]}, got {shown[1]} (accept it with --update)"
