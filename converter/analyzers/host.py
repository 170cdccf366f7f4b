"""Host-delegated analysis: the agent that called app-convert is the analyst, no API key needed.

``start`` saves a session and returns the pause: the prompt (``brief``), the plan's JSON
Schema and the exact command that carries on.  The agent answers with a plan and runs
``app-convert resume SESSION --answer FILE|-``; ``resume`` judges the answer (``loop.evaluate``:
schema, the skill, a rendered and verified copy) and either pauses again with the problems
and the attempt count, or ends the session: accepted (the caller writes the APP) or, after
``max_attempts``, exhausted (nothing is written).  An empty answer is refused without using up
an attempt; the skill changing under a session ends nothing but is refused (start again).

A plan that passes pauses once more when the skill's own requests do not all land on a
pipeline (``step: review``, ``verify/requests.py``): the agent answers with the plan, kept or
changed.  A changed plan is verified like any answer; when it fails and no attempt is left,
the plan verified before the review is the one written.

Sessions are ``<APP_RUN_HOME>/convert-sessions/<id>.json``, written atomically, mode 0600,
locked while one app-convert acts on them (as app-run's sessions are).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.converter.analyzers.brief import analyst_prompt, material_for, review_prompt
from skill2app.converter.analyzers.loop import MAX_ATTEMPTS, Verdict, evaluate, parse_answer, shown
from skill2app.converter.errors import UsageError
from skill2app.converter.inventory.model import Inventory, build_inventory
from skill2app.converter.plan.file import plan_schema, plan_to_yaml
from skill2app.runtime.jsonfile import lock, write_json

VERSION = 1
FOLDER = "convert-sessions"
SKIPPED = {".git", "node_modules", "__pycache__", ".venv", "pipelines", ".app-convert-backup"}
MAX_FILES = 20_000
ANSWER_FORMAT = (
    "the plan as one JSON object (or YAML) that validates against `schema`; send it on stdin "
    "to the `resume` command (or save it and add --answer FILE)"
)


@dataclass
class HostPause:
    """The conversion waits for the analyst's answer (printed as ``needs_llm``, exit 6)."""

    session: str
    attempt: int
    max_attempts: int
    prompt: str
    problems: list[str]
    resume: str
    abandon: str
    part: dict[str, Any] | None = None  # a collection: which skill of how many this plan is for
    step: str = "analyze"  # or "review": the plan passed; where the skill's requests route
    review: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        part = {"collection": self.part} if self.part else {}
        review = {"review": self.review} if self.review is not None else {}
        return (
            part
            | {
                "status": "needs_llm",
                "session": self.session,
                "step": self.step,
                "attempt": self.attempt,
                "max_attempts": self.max_attempts,
                "errors": self.problems,
                "prompt": self.prompt,
                "schema": plan_schema(),
                "answer_format": ANSWER_FORMAT,
                "resume": self.resume,
                "abandon": self.abandon,
            }
            | review
        )


@dataclass
class Outcome:
    """What a resume came to: a pause (asked again), or the end: ``verdict`` accepted, or the
    last attempt's problems (exhausted)."""

    session: dict[str, Any]
    pause: HostPause | None = None
    verdict: Verdict | None = None
    inventory: Inventory | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the report (a review that failed)


def sessions_dir(home: Path) -> Path:
    return home / FOLDER


def start(
    home: Path,
    inventory: Inventory,
    options: dict[str, Any],
    *,
    draft_yaml: str,
    max_attempts: int = MAX_ATTEMPTS,
) -> HostPause:
    """Save a new session for ``inventory``'s skill and return its first pause."""
    skill = inventory.root.resolve()
    session = f"{time.strftime('%Y%m%dT%H%M%S')}-{_slug(skill.name)}-{secrets.token_hex(3)}"
    data = {
        "version": VERSION,
        "session": session,
        "status": "paused",
        "skill": str(skill),
        "fingerprint": fingerprint(skill),
        "options": options,
        "attempt": 1,
        "max_attempts": max_attempts,
        "problems": [],
        "draft": draft_yaml,
        "created": time.time(),
        "updated": time.time(),
    }
    _write(home, data)
    return _pause(home, data, inventory)


def resume(
    home: Path,
    session: str,
    answer_text: str,
    *,
    progress: Callable[[str], None] | None = None,
    max_attempts: int | None = None,
) -> Outcome:
    """Judge the answer to ``session``'s pause: pause again, or end it (accepted/exhausted).
    ``max_attempts`` above the attempts made so far raises the bound, and reopens a session
    whose attempts were used up (the answer is then the next attempt)."""
    with held(home, session) as data:
        if max_attempts is not None and max_attempts > data["attempt"]:
            if data["status"] == "exhausted":
                data |= {"status": "paused", "attempt": data["attempt"] + 1}
            data["max_attempts"] = max_attempts
        if data["status"] != "paused":
            more = " (or --max-attempts N to try again)" if data["status"] == "exhausted" else ""
            raise UsageError(
                f"session {session} has ended ({data['status']})",
                hint=f"start a new conversion with app-convert SKILL --analyzer host{more}",
            )
        skill = Path(data["skill"])
        if not skill.is_dir() or fingerprint(skill) != data["fingerprint"]:
            raise UsageError(
                f"the skill {skill} changed since session {session} started",
                hint=f"abandon it (app-convert abandon {session}) and start again",
            )
        answer, problem = parse_answer(answer_text)  # EmptyAnswer: refused, no attempt used
        options = data["options"]
        unsafe = bool(options.get("unsafe_no_sandbox"))
        inventory = build_inventory(skill, probe=bool(options.get("probe")), unsafe=unsafe)
        verdict = (
            Verdict(None, [problem])
            if problem
            else evaluate(
                answer,
                inventory,
                analyzer="host",
                readme=data["options"].get("readme", "README.md"),
                progress=progress,
            )
        )
        data["updated"] = time.time()
        if verdict.ok and verdict.plan is not None and _reviews(data, verdict):
            data |= {
                "stage": "review",
                "reviewed": True,
                "problems": [],
                "verified": json.dumps(answer),
                "review": [r.to_dict() for r in verdict.requests.routed],
                "review_prompt": review_prompt(
                    inventory.skill.frontmatter.name or skill.name,
                    plan_to_yaml(verdict.plan),
                    verdict.requests,
                ),
            }
            _write(home, data)
            return Outcome(data, pause=_pause(home, data, inventory), inventory=inventory)
        data["stage"] = "analyze"
        if verdict.ok:
            data["status"] = "accepted"
            _write(home, data)
            return Outcome(data, verdict=verdict, inventory=inventory)
        if data["attempt"] >= data["max_attempts"]:
            return _last(home, data, inventory, verdict.problems, progress)
        data |= {"attempt": data["attempt"] + 1, "problems": shown(verdict.problems)}
        _write(home, data)
        return Outcome(data, pause=_pause(home, data, inventory), inventory=inventory)


def _reviews(data: dict[str, Any], verdict: Verdict) -> bool:
    """Whether a plan that passed is shown back once: requests of the skill's own land in
    Skill mode, unsure or elsewhere, and the review was neither asked already nor turned off."""
    wanted = data["options"].get("review", True)
    return bool(wanted) and not data.get("reviewed") and bool(verdict.requests.findings)


def _last(
    home: Path,
    data: dict[str, Any],
    inventory: Inventory,
    problems: list[str],
    progress: Callable[[str], None] | None,
) -> Outcome:
    """The last attempt failed: the session is exhausted — unless a plan passed before the
    review, which then stands (verified again, as the files are not kept)."""
    if data.get("verified"):
        readme = data["options"].get("readme", "README.md")
        verdict = evaluate(
            json.loads(data["verified"]),
            inventory,
            analyzer="host",
            readme=readme,
            progress=progress,
        )
        if verdict.ok:
            data["status"] = "accepted"
            _write(home, data)
            note = (
                "the plan changed after the review failed verification "
                f"({shown(problems)[0]}); the plan verified before the review was written"
            )
            return Outcome(data, verdict=verdict, inventory=inventory, notes=[note])
    data |= {"status": "exhausted", "problems": problems}
    _write(home, data)
    return Outcome(data, inventory=inventory, problems=problems)


def abandon(home: Path, session: str) -> dict[str, Any]:
    with held(home, session) as data:
        data |= {"status": "abandoned", "updated": time.time()}
        _write(home, data)
        return data


def _pause(home: Path, data: dict[str, Any], inventory: Inventory) -> HostPause:
    reviewing = data.get("stage") == "review"
    if reviewing:
        prompt = str(data["review_prompt"])
    else:
        prompt = analyst_prompt(
            material_for(inventory, data["draft"]),
            data["draft"],
            problems=data["problems"],
            attempt=data["attempt"],
            max_attempts=data["max_attempts"],
        )
    resume_cmd, abandon_cmd = commands(data["session"], home)
    state = data["options"].get("collection")
    part = None
    if isinstance(state, dict):
        part = {
            "folder": state.get("root"),
            "skill": inventory.skill.frontmatter.name,
            "index": int(state.get("index", 0)) + 1,
            "of": len(state.get("members", [])),
            "note": "one plan per skill, for this skill alone; the next skill's pause follows",
        }
    return HostPause(
        data["session"],
        data["attempt"],
        data["max_attempts"],
        prompt,
        list(data["problems"]),
        resume_cmd,
        abandon_cmd,
        part,
        step="review" if reviewing else "analyze",
        review=list(data["review"]) if reviewing else None,
    )


def commands(session: str, home: Path) -> tuple[str, str]:
    """The pasteable commands that carry a session on (APP_RUN_HOME said when it is set)."""
    prefix = ""
    if os.environ.get("APP_RUN_HOME"):
        prefix = f"APP_RUN_HOME={shlex.quote(str(home))} "
    program = "app-convert"
    argv0 = Path(sys.argv[0]).name if sys.argv else ""
    if argv0 != "app-convert":  # run another way (python -m, a test): name this interpreter
        program = f"{shlex.quote(sys.executable)} -m skill2app.converter.cli"
    return (
        f"{prefix}{program} resume {session} --answer -",
        f"{prefix}{program} abandon {session}",
    )


# -- session files ---------------------------------------------------------------------------


def _path(home: Path, session: str) -> Path:
    if not session or "/" in session or session.startswith("."):
        raise UsageError(f"no conversion session {session!r}", hint="see app-convert sessions")
    return sessions_dir(home) / f"{session}.json"


def _write(home: Path, data: dict[str, Any]) -> None:
    write_json(_path(home, data["session"]), data, mode=0o600)


def load(home: Path, session: str) -> dict[str, Any]:
    path = _path(home, session)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            f"no conversion session {session!r}", hint="see app-convert sessions"
        ) from None
    except (OSError, ValueError, RecursionError) as exc:
        raise UsageError(
            f"conversion session {session} cannot be read ({type(exc).__name__})",
            hint=f"remove {path} and start again",
        ) from None
    if not _valid(data, session):
        raise UsageError(
            f"conversion session {session} is not one app-convert wrote",
            hint=f"remove {path} and start again",
        )
    return data


def _valid(data: Any, session: str) -> bool:
    shapes = {"session": str, "status": str, "skill": str, "fingerprint": str,
              "options": dict, "attempt": int, "max_attempts": int, "problems": list,
              "draft": str}  # fmt: skip
    return (
        isinstance(data, dict)
        and data.get("version") == VERSION
        and all(isinstance(data.get(k), t) for k, t in shapes.items())
        and data["session"] == session
    )


@contextlib.contextmanager
def held(home: Path, session: str) -> Iterator[dict[str, Any]]:
    """The session's data while this process alone acts on it."""
    path = _path(home, session)
    if not path.is_file():
        raise UsageError(f"no conversion session {session!r}", hint="see app-convert sessions")
    with lock(path.with_suffix(".lock")) as mine:
        if not mine:
            raise UsageError(
                f"conversion session {session} is in use by another app-convert",
                hint="wait for it to finish",
            )
        yield load(home, session)


def list_sessions(home: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(sessions_dir(home).glob("*.json")):
        try:
            data = load(home, path.stem)
        except UsageError:
            rows.append({"session": path.stem, "status": "corrupt"})
            continue
        keys = ("session", "status", "skill", "attempt", "max_attempts", "updated")
        rows.append({k: data.get(k) for k in keys})
    return rows


def clean(home: Path, older_than_hours: float = 24.0) -> list[str]:
    """Remove ended and corrupt sessions, and paused ones older than ``older_than_hours``."""
    removed = []
    now = time.time()
    for row in list_sessions(home):
        stale = row["status"] == "paused" and now - (row.get("updated") or 0) > (
            older_than_hours * 3600
        )
        if row["status"] == "paused" and not stale:
            continue
        path = _path(home, row["session"])
        with lock(path.with_suffix(".lock")) as mine:
            if mine:
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(row["session"])
    return removed


def fingerprint(skill: Path) -> str:
    """A hash of the skill's files as they are (paths, sizes, modification times), without
    what conversions add (pipelines/, backups) or tools keep (.git, node_modules)."""
    digest = hashlib.sha256()
    count = 0
    for folder, dirs, files in os.walk(skill):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in sorted(files):
            path = Path(folder) / name
            with contextlib.suppress(OSError):
                stat = path.lstat()
                rel = path.relative_to(skill).as_posix()
                digest.update(f"{rel}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
            count += 1
            if count > MAX_FILES:
                return digest.hexdigest() + "+"
    return digest.hexdigest()


def _slug(name: str) -> str:
    text = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    return text[:32] or "skill"


def draft_of(inventory: Inventory) -> str:
    """The heuristic analyzer's plan, as the draft the analyst improves."""
    from skill2app.converter.analyzers.heuristic import analyze

    return plan_to_yaml(analyze(inventory))
