"""The analyst loop's judge: one answer in, its problems (or a verified APP) out.

Both LLM analysts — the calling agent (``host``: pause, answer, resume) and the reasoning tier
through an API (``llm``) — answer the same prompt (``brief``) with a plan.  ``evaluate`` reads
the answer (``parse_answer``: JSON or YAML, fenced or not), checks it against the plan schema
and the skill (``accept``), renders the APP it describes into a temporary copy of the skill and
verifies it there: app-run check, compiling, argument mappings, a smoke run of every pipeline
on its sample (a step that fails only because a dependency is not installed here is skipped,
not held against the plan).  A plan that passes also has the skill's own requests routed
through it (``verify/requests.py``): what lands in Skill mode, unsure or elsewhere is shown to
the analyst once (the review) before the plan is final, with the plan's own descriptions and
triggers that the routing self-test matches to another pipeline.  Nothing reaches the user's
destination until an answer passes; the caller writes the files of an accepted ``Verdict``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2app.converter.analyzers.llm_answer import accept
from skill2app.converter.errors import EmptyAnswer
from skill2app.converter.plan.model import Plan
from skill2app.converter.render.render import RenderedFile, render_app
from skill2app.converter.render.write import write_app
from skill2app.converter.verify.requests import RequestCheck, route_requests
from skill2app.converter.verify.sequence import with_after
from skill2app.converter.verify.smoke import SMOKE_TIMEOUT
from skill2app.converter.verify.verify import Verification, verify_app
from skill2app.runtime.run.fence import candidates, unfenced
from skill2app.runtime.run.sandbox import scratch_folder

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory

MAX_ATTEMPTS = 3
MAX_ANSWER_BYTES = 2_000_000
SHOWN_PROBLEMS = 25  # problems handed back per attempt (the rest are counted)


@dataclass
class Verdict:
    plan: Plan | None
    problems: list[str]
    files: list[RenderedFile] = field(default_factory=list)
    verification: Verification | None = None
    requests: RequestCheck = field(default_factory=RequestCheck)  # of a plan that passed

    @property
    def ok(self) -> bool:
        return self.plan is not None and not self.problems

    @property
    def to_review(self) -> bool:
        """Whether a plan that passed has something only its analyst can judge: requests of
        the skill's own that land off a pipeline, phrases of its own matched to another
        pipeline (``RoutingCheck.misrouted``), command lines run through stand-ins, or
        findings of the smoke run."""
        checked = self.verification
        return bool(self.requests.findings) or bool(
            checked is not None and (checked.calls or checked.notices or checked.routing.misrouted)
        )


def parse_answer(text: str) -> tuple[Any, str]:
    """(the document in ``text``, "") or (None, what is wrong with it).  JSON first, then YAML
    (safe, no tags), each tried on the text as it is and on its fenced block
    (``fence.candidates``): JSON closed at the first fence after which it reads (a truncated
    JSON never does), YAML at the last (a prompt in the plan may hold a fence of its own)."""
    import yaml

    text = text.lstrip("\ufeff").strip()
    if not text:
        raise EmptyAnswer("the answer is empty", hint="send the plan as one JSON object")
    if len(text.encode("utf-8")) > MAX_ANSWER_BYTES:
        return None, f"the answer is larger than {MAX_ANSWER_BYTES} bytes"
    tried = candidates(text)
    for body in tried:
        try:
            return json.loads(body), ""
        except (ValueError, RecursionError):
            continue
    for body in [tried[0], *reversed(tried[1:])][:MAX_YAML_TRIES]:
        try:
            data = yaml.safe_load(body)
        except (yaml.YAMLError, RecursionError, ValueError, OverflowError):
            continue  # ValueError: a 5,000-digit integer, a date that does not exist
        if isinstance(data, dict):
            return data, ""
    return None, _why_unread(unfenced(text))


MAX_YAML_TRIES = 6  # YAML is slow to read: the text and its last few fenced bodies


def _why_unread(body: str) -> str:
    """Why ``body`` (the likeliest document of an answer) is neither JSON nor a YAML mapping."""
    import yaml

    try:
        json.loads(body)
        problem = "not JSON"
    except (ValueError, RecursionError) as exc:
        problem = f"not JSON ({exc})" if isinstance(exc, ValueError) else "not JSON (too deep)"
    try:
        yaml.safe_load(body)
    except yaml.YAMLError as exc:
        return f"the answer is {problem}, nor YAML ({str(exc).splitlines()[0]})"
    except RecursionError:
        return f"the answer is {problem}, nor YAML (nested too deep)"
    except (ValueError, OverflowError) as exc:
        return f"the answer is {problem}, nor YAML (a value Python cannot read: {str(exc)[:80]})"
    return f"the answer is {problem}, nor a YAML mapping"


def evaluate(
    answer: Any,
    inventory: Inventory,
    *,
    analyzer: str,
    readme: str = "README.md",
    smoke_timeout: float = SMOKE_TIMEOUT,
    progress: Callable[[str], None] | None = None,
) -> Verdict:
    """The problems of one answer, or the plan with its rendered and verified files."""
    say = progress or (lambda _message: None)
    plan, problems = accept(answer, inventory, analyzer=analyzer)
    if plan is None or problems:
        return Verdict(plan, problems)
    files = render_app(plan, inventory, readme=readme)
    count = len(plan.pipelines)
    say(f"verifying the plan's {count} pipeline{'s' * (count != 1)} in a temporary copy")
    with scratch_folder("app-convert-verify-") as tmp:  # the smoke run's programs write into it
        written = write_app(inventory.root, files, out=Path(tmp) / "app", force=False)
        from skill2app.runtime.run.sandbox import available  # the skill's programs: sandboxed

        verification = verify_app(
            written.root,
            files,
            inventory,
            smoke=available(),  # no sandbox here: the plan is not smoke-tested (never unconfined)
            timeout=smoke_timeout,
            progress=say,
            order=[p.name for p in plan.pipelines],
        )
    if verification.errors:
        return Verdict(plan, verification.errors, files, verification)
    files = with_after(files, plan, verification.after)  # app-run test: samples in order
    return Verdict(plan, [], files, verification, route_requests(plan, inventory))


KEEP = {"keep": True}  # the answer to a review that keeps the plan as verified


def is_keep(answer: Any) -> bool:
    return isinstance(answer, dict) and answer == KEEP


def review_failed(problems: list[str]) -> str:
    """The report's note when the plan changed at the review fails and the verified one stays."""
    return (
        f"the plan changed after the review failed verification ({shown(problems)[0]}); the "
        "plan verified before the review was written"
    )


def shown(problems: list[str]) -> list[str]:
    """The problems as handed back: the first SHOWN_PROBLEMS, and how many more there are."""
    if len(problems) <= SHOWN_PROBLEMS:
        return list(problems)
    rest = len(problems) - SHOWN_PROBLEMS
    return [*problems[:SHOWN_PROBLEMS], f"... and {rest} more problems of the same kinds"]
