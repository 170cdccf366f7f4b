"""Host-delegated analysis: the agent that called app-convert is the analyst, no API key needed.

``start`` saves a session and returns the pause: the prompt (``brief``), the plan's JSON
Schema and the exact command that carries on.  The agent answers with a plan and runs
``app-convert resume SESSION --answer FILE|-``; ``resume`` judges the answer (``loop.evaluate``:
schema, the skill, a rendered and verified copy) and either pauses again with the problems
and the attempt count (a retry's prompt is the problems alone: the whole first prompt is
kept in ``prompt_file`` to read again), or ends the session: accepted (the caller writes the
APP) or, after ``max_attempts``, exhausted (nothing is written).  An empty answer is refused
without using up an attempt; the skill changing under a session ends nothing but is refused
(start again).

A plan that passes pauses once more when the skill's own requests do not all land on a
pipeline (``step: review``, ``verify/requests.py``): the agent answers with the plan, kept or
changed.  A changed plan is verified like any answer; when it fails and no attempt is left,
the plan verified before the review is the one written.

Sessions are ``<APP_RUN_HOME>/convert-sessions/<id>.json`` (``sessions.py``), written
atomically, mode 0600, locked while one app-convert acts on them (as app-run's sessions are).
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.converter.analyzers.brief import (
    analyst_prompt,
    material_for,
    misrouted_rows,
    retry_prompt,
    review_prompt,
)
from skill2app.converter.analyzers.loop import (
    MAX_ATTEMPTS,
    Verdict,
    evaluate,
    is_keep,
    parse_answer,
    review_failed,
    shown,
)
from skill2app.converter.analyzers.sessions import (
    VERSION,
    fingerprint,
    held,
    keep_prompt,
    prompt_path,
    write,
)
from skill2app.converter.errors import UsageError
from skill2app.converter.inventory.model import Inventory, build_inventory
from skill2app.converter.plan.file import plan_schema, plan_to_yaml

ANSWER_FORMAT = (
    "the plan as one JSON object (or YAML) that validates against `schema`; send it on stdin "
    "to the `resume` command (or save it and add --answer FILE)"
)
REVIEW_FORMAT = (
    '{"keep": true} to keep the plan as verified, or the whole changed plan as one JSON object '
    "(or YAML) that validates against `schema`; send it on stdin to the `resume` command (or "
    "save it and add --answer FILE)"
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
    misrouted: list[dict[str, object]] | None = None  # the plan's own phrases matched elsewhere
    prompt_file: str | None = None  # the whole first prompt, kept (a retry's prompt is short)

    def to_dict(self) -> dict[str, Any]:
        part = {"collection": self.part} if self.part else {}
        review: dict[str, Any] = {"review": self.review} if self.review is not None else {}
        if self.misrouted is not None:
            review["misrouted"] = self.misrouted
        if self.prompt_file is not None:
            review["prompt_file"] = self.prompt_file
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
                "answer_format": REVIEW_FORMAT if self.step == "review" else ANSWER_FORMAT,
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
    write(home, data)
    return _pause(home, data, inventory)


def resume(
    home: Path,
    session: str,
    answer_text: str,
    *,
    progress: Callable[[str], None] | None = None,
    max_attempts: int | None = None,
    ready: Callable[[dict[str, Any]], None] | None = None,
) -> Outcome:
    """Judge the answer to ``session``'s pause: pause again, or end it (accepted/exhausted).
    ``max_attempts`` above the attempts made so far raises the bound, and reopens a session
    whose attempts were used up (the answer is then the next attempt).  ``ready`` raises
    when what the session writes could not be written (its ``--out`` filled since it
    started): asked before the answer is judged and again before it is accepted, it leaves
    the session paused and its attempts as they were."""
    check = ready or (lambda _data: None)
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
        check(data)  # before any work: a second session may have written there meanwhile
        answer, problem = parse_answer(answer_text)  # EmptyAnswer: refused, no attempt used
        if data.get("stage") == "review" and is_keep(answer):  # the plan as verified
            answer = json.loads(data["verified"])
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
                "misrouted": misrouted_rows(verdict.verification),
                "review_prompt": review_prompt(
                    inventory.skill.frontmatter.name or skill.name,
                    plan_to_yaml(verdict.plan),
                    verdict.requests,
                    verdict.verification,
                ),
            }
            write(home, data)
            return Outcome(data, pause=_pause(home, data, inventory), inventory=inventory)
        data["stage"] = "analyze"
        if verdict.ok:
            check(data)  # and before the session ends in what cannot be written
            data["status"] = "accepted"
            write(home, data)
            return Outcome(data, verdict=verdict, inventory=inventory)
        if data["attempt"] >= data["max_attempts"]:
            return _last(home, data, inventory, verdict.problems, progress)
        data |= {"attempt": data["attempt"] + 1, "problems": shown(verdict.problems)}
        write(home, data)
        return Outcome(data, pause=_pause(home, data, inventory), inventory=inventory)


def _reviews(data: dict[str, Any], verdict: Verdict) -> bool:
    """Whether a plan that passed is shown back once: it has something to review
    (``Verdict.to_review``), and the review was neither asked already nor turned off."""
    wanted = data["options"].get("review", True)
    return bool(wanted) and not data.get("reviewed") and verdict.to_review


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
            write(home, data)
            notes = [review_failed(problems)]
            return Outcome(data, verdict=verdict, inventory=inventory, notes=notes)
    data |= {"status": "exhausted", "problems": problems}
    write(home, data)
    return Outcome(data, inventory=inventory, problems=problems)


def abandon(home: Path, session: str) -> dict[str, Any]:
    with held(home, session) as data:
        data |= {"status": "abandoned", "updated": time.time()}
        write(home, data)
        return data


def _pause(home: Path, data: dict[str, Any], inventory: Inventory) -> HostPause:
    reviewing = data.get("stage") == "review"
    if reviewing:
        prompt = str(data["review_prompt"])
    else:
        kept = prompt_path(home, data["session"])
        if data["problems"] and kept.is_file():  # a retry: the problems, not the whole again
            prompt = retry_prompt(
                inventory.skill.frontmatter.name or inventory.root.name,
                data["problems"],
                data["attempt"],
                data["max_attempts"],
                kept,
            )
        else:  # the first pause, or the kept prompt gone: the whole prompt, kept without the
            material = material_for(inventory, data["draft"])  # problems of this attempt
            kept = keep_prompt(home, data["session"], analyst_prompt(material, data["draft"]))
            prompt = analyst_prompt(
                material,
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
        misrouted=list(data.get("misrouted", [])) if reviewing else None,
        prompt_file=None if reviewing else str(kept),
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


def _slug(name: str) -> str:
    text = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    return text[:32] or "skill"


def draft_of(inventory: Inventory) -> str:
    """The heuristic analyzer's plan, as the draft the analyst improves."""
    from skill2app.converter.analyzers.heuristic import analyze

    return plan_to_yaml(analyze(inventory))
