"""The skill's own requests, routed through a plan: where does what the skill says a user asks land?

The requests are the ones the skill's documents quote as what a user says ("users say
'merge these PDFs'": ``triggers.quoted_requests``) and the situations its description names
("Use when the user wants to fill a PDF form": ``when_clauses.use_when_phrases``).  Each is routed
with the embedded router against the plan's pipelines, as ``app-run`` would route it.  The
routing self-test (``routes.py``) asks whether a plan's own phrases reach their pipelines;
this asks the converse, with phrases the plan's author did not write: held-out requests.

An LLM analyst may add its own test requests to a pipeline (``probes``: worded as users would
ask, not copied from the triggers); they are routed the same way, expected on their pipeline.
A probe that is one of the plan's triggers word for word tests nothing: it is a finding as is.

A request is a finding when it reaches no pipeline (Skill mode), when the router is unsure
(the agent is asked to pick), or when it lands on another pipeline than the one whose
``source`` is in the same section of the document that quotes it.  None of these is an error
— a request may rightly be left to Skill mode — but each is something only the analyst can
judge: the host and API analysts are shown them once, after their plan passes (``review``),
and every report lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skill2app.converter.analyzers.documentation import quoted_in, section_owner
from skill2app.converter.analyzers.text import has_cjk
from skill2app.converter.analyzers.triggers import clean
from skill2app.converter.analyzers.verbs import names_an_action
from skill2app.converter.analyzers.when_clauses import use_when_phrases
from skill2app.runtime.errors import AppRunError

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.plan.model import Plan

MAX_REQUESTS = 40  # routed per plan (a skill quoting more is rare; the first are kept)
MAX_PROBES = 10  # an analyst's probes routed per pipeline (the plan schema's cap), besides
SKILL_MODE = "Skill mode"


@dataclass(frozen=True)
class Request:
    """A request the skill quotes (``kind`` "quoted", at ``where``: file:line), a situation
    its description names ("situation") or an analyst's probe of a pipeline ("probe");
    ``expected``: the pipeline whose source is in the same section (a probe's: its own),
    when one is."""

    text: str
    kind: str
    where: str
    expected: str = ""


@dataclass(frozen=True)
class Routed:
    request: Request
    decision: str  # match | unsure | no_match
    pipeline: str  # the match, or the best candidate when unsure ("" when none)
    candidates: tuple[str, ...] = ()  # the short list when unsure

    copied: str = ""  # a probe that is this pipeline's trigger word for word
    nearest: tuple[str, ...] = ()  # the phrases that drew it: 'count-words: trigger "…" (0.71)'

    @property
    def finding(self) -> str:
        """Why the analyst should look at it ("" when it lands where expected)."""
        if self.copied:
            return f'is a trigger of "{self.copied}" word for word: a probe tests other words'
        if self.decision == "no_match":
            return "reaches no pipeline (Skill mode)"
        if self.decision == "unsure":
            named = " and ".join(f'"{c}"' for c in self.candidates)
            between = "between" if len(self.candidates) > 1 else "about"
            return f"the router is unsure {between} {named}"
        expected = self.request.expected
        if expected and self.pipeline != expected:
            if self.request.kind == "probe":
                return f'is matched to "{self.pipeline}", though it is a probe of "{expected}"'
            return (
                f'is matched to "{self.pipeline}", though the section quoting it is "{expected}"\'s'
            )
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": self.request.text,
            "kind": self.request.kind,
            "where": self.request.where,
            "decision": self.decision,
            "routes_to": {"match": self.pipeline, "no_match": SKILL_MODE}.get(self.decision),
            "candidates": list(self.candidates),
            "expected": self.request.expected or None,
            "finding": self.finding or None,
            "nearest": list(self.nearest),
        }


@dataclass
class RequestCheck:
    ran: bool = False
    skipped: str = ""
    routed: list[Routed] = field(default_factory=list)

    @property
    def findings(self) -> list[Routed]:
        return [r for r in self.routed if r.finding]

    @property
    def own(self) -> list[Routed]:
        """The skill's own requests (quoted, situations): not the analyst's probes."""
        return [r for r in self.routed if r.request.kind != "probe"]

    @property
    def probes(self) -> list[Routed]:
        return [r for r in self.routed if r.request.kind == "probe"]

    @property
    def matched(self) -> int:
        """The skill's own requests that reach a pipeline."""
        return sum(r.decision == "match" for r in self.own)

    @property
    def probes_home(self) -> int:
        """The analyst's probes that reach their own pipeline."""
        return sum(not r.finding for r in self.probes)

    def lines(self) -> list[str]:
        """One line per finding, as the report shows them."""
        said = {"quoted": "quoted at", "situation": "a situation in", "probe": "a probe in"}
        return [
            f'"{_short(r.request.text)}" ({said.get(r.request.kind, r.request.kind)} '
            f"{r.request.where}) {r.finding}"
            for r in self.findings
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "skipped": self.skipped,
            "requests": len(self.own),
            "matched": self.matched,
            "findings": len(self.findings),
            "probes": len(self.probes),
            "probes_home": self.probes_home,
            "routed": [r.to_dict() for r in self.routed],
        }


def skill_requests(inventory: Inventory, plan: Plan) -> list[Request]:
    """The requests the skill's documents quote, then its description's situations, without
    duplicates (case and spacing aside), at most MAX_REQUESTS."""
    found: list[Request] = []
    seen: set[str] = set()

    def add(request: Request) -> None:
        key = " ".join(request.text.lower().split())
        if key not in seen and len(found) < MAX_REQUESTS:
            seen.add(key)
            found.append(request)

    for document, line, text in quoted_in(inventory):
        owner = section_owner(document, line, plan.pipelines)
        expected = plan.pipelines[owner].name if owner is not None else ""
        add(Request(text, "quoted", f"{document.path}:{line}", expected))
    skill_md = inventory.documents[0].path if inventory.documents else "SKILL.md"
    for phrase in use_when_phrases(inventory.skill.frontmatter.description or ""):
        if _a_request(phrase):
            add(Request(clean(phrase), "situation", f"{skill_md}'s description"))
    return found + probes(plan)


def probes(plan: Plan) -> list[Request]:
    """The analyst's probes of each pipeline, at most MAX_PROBES of each."""
    return [
        Request(text, "probe", f"the plan's probes of {pipeline.name}", pipeline.name)
        for pipeline in plan.pipelines
        for text in list(dict.fromkeys(t.strip() for t in pipeline.probes if t.strip()))[
            :MAX_PROBES
        ]
    ]


def route_requests(plan: Plan, inventory: Inventory) -> RequestCheck:
    """Route the skill's own requests over ``plan``'s pipelines with the embedded router."""
    from skill2app.runtime.routing.models.embedded import EmbeddedRouter
    from skill2app.runtime.routing.route import RouteEntry
    from skill2app.runtime.routing.selftest import model_cache

    requests = skill_requests(inventory, plan)
    if not requests:
        return RequestCheck(skipped="the skill quotes no request and names no situation")
    if not plan.pipelines:
        return RequestCheck(skipped="the plan has no pipeline")
    entries = [RouteEntry(p.name, p.description, tuple(p.triggers)) for p in plan.pipelines]
    try:
        router = EmbeddedRouter(entries, cache_dir=model_cache())
        decisions = [router.route(r.text) for r in requests]
    except AppRunError as exc:  # the encoder cannot load here: say so, judge nothing
        return RequestCheck(skipped=exc.message)
    triggers = {t.casefold(): p.name for p in plan.pipelines for t in p.triggers}
    routed = []
    for request, decided in zip(requests, decisions, strict=True):
        best = decided.candidates[0].pipeline if decided.candidates else ""
        shown = (
            tuple(c.pipeline for c in decided.candidates) if decided.decision == "unsure" else ()
        )
        copied = triggers.get(request.text.casefold(), "") if request.kind == "probe" else ""
        nearest = tuple(f"{c.pipeline}: {c.why}" for c in decided.candidates[:2] if c.why)
        routed.append(
            Routed(request, decided.decision, decided.pipeline or best, shown, copied, nearest)
        )
    return RequestCheck(ran=True, routed=routed)


def _a_request(phrase: str) -> bool:
    """Whether a situation says what a user wants done ("filling PDF forms"), not only what it
    is about ("Node/TypeScript") or a fragment ("create", "output")."""
    text = clean(phrase)
    return bool(text) and (has_cjk(text) or len(text.split()) > 1) and names_an_action(text)


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
