"""A run request from the command line turned into a RunResult — or into a question for the
caller.

Gathers what a command needs — the loaded APP, its config, the provider, the inputs from
``--input``/``--input-json`` (or, after routing, from the request) — and hands them to the
router, the runner and host delegation.  What the caller must settle comes back as a value,
never printed here: ``needs_route`` (routing was unsure: pick from a short list, each with its
command) and ``needs_input`` (routed, but required inputs are missing: their JSON Schema and
the command that completes the run).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2app.runtime.app.cache import cached_table
from skill2app.runtime.app.config import Config, load_config, state_home
from skill2app.runtime.app.model import App, Pipeline, load_app
from skill2app.runtime.errors import ProviderNotConfigured, UsageError
from skill2app.runtime.providers import make_provider
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.records.result import Position, RunResult
from skill2app.runtime.run.inputs import caller_path, parse_pairs, read_input_json
from skill2app.runtime.run.runner import begin, checked

if TYPE_CHECKING:
    from skill2app.runtime.routing.filling import Filled

Listener = Callable[[dict[str, Any]], None] | None


def gather_inputs(
    declared: dict[str, str],
    pairs: list[str],
    input_json: str | None,
    stdin_text: str | None,
    app_root: Path | None = None,
) -> dict[str, Any]:
    """``--input-json`` first, then each ``--input key=value`` on top; relative paths made
    absolute from where app-run was started (``caller_path``) — those of a pipeline's
    ``samples/input.json`` given as ``--input-json`` that name what the APP folder has from
    there, as ``app-run test`` reads them (what a sample writes still goes where app-run
    was started)."""
    values: dict[str, Any] = {}
    if input_json:
        given = read_input_json(input_json, stdin_text)
        base = _sample_base(input_json, app_root)
        values.update({k: caller_path(k, v, named_only=True, base=base) for k, v in given.items()})
    values.update({k: caller_path(k, v) for k, v in parse_pairs(pairs, declared).items()})
    return values


def _sample_base(input_json: str, app_root: Path | None) -> str:
    """The APP folder when ``input_json`` is a sample's (``pipelines/<p>/samples/…``, read by
    hand from anywhere); else "" (paths mean where app-run was started)."""
    if app_root is None or input_json == "-":
        return ""
    root = os.path.realpath(app_root)
    parts = Path(os.path.relpath(os.path.realpath(input_json), root)).parts
    sample = len(parts) >= 4 and parts[0] == "pipelines" and parts[2] == "samples"
    return root if sample and ".." not in parts else ""


@dataclass
class Setting:
    """What a run needs besides its pipeline and inputs."""

    app: App
    config: Config
    provider: Provider | None
    listener: Listener
    delegate: bool


@dataclass
class NeedsInput:
    """A routed run whose required inputs are not all there: what to ask the caller for."""

    setting: Setting
    pipeline: str
    request: str
    declared: dict[str, str]
    info: dict[str, dict[str, Any]]  # the long form's description, enum, default
    filled: Filled
    confirmed: bool = False  # the caller chose the pipeline (run --request): learn it when run

    def to_dict(self) -> dict[str, Any]:
        from skill2app.runtime.routing.schema import input_schema

        missing = input_schema(self.declared, self.info, self.filled.missing)
        command = run_command(self.setting.app, self.pipeline, self.request, self.filled.values)
        example = json.dumps({k: f"<{k}>" for k in self.filled.missing}, ensure_ascii=False)
        return {
            "status": "needs_input",
            "app": str(self.setting.app.root),
            "pipeline": self.pipeline,
            "request": self.request,
            "filled": self.filled.report(),
            "missing": missing,
            "command": command + " --input-json -",
            "next": "Ask the user for the missing inputs (JSON Schema in `missing`) and pipe "
            f"them as a JSON object into `command`, e.g. echo {example!r} | <command>.",
        }

    def complete(self, values: dict[str, Any]) -> RunResult:
        """Run with ``values`` for the missing inputs (answered on a terminal, so a path is
        meant from where app-run was started, as with ``--input``)."""
        values = {k: caller_path(k, v) for k, v in values.items()}
        self.filled.values.update(values)
        self.filled.sources.update(dict.fromkeys(values, "given"))
        if self.confirmed:
            _learn(self.setting, self.request, self.pipeline, "run")
        return _run_filled(self.setting, self.pipeline, self.request, self.filled)


@dataclass
class Answer:
    """What a command did: ran a pipeline, handed routing or inputs back to the caller, or
    fell back to Skill mode."""

    decision: dict[str, Any]
    run: RunResult | None = None
    fallback: dict[str, Any] | None = None  # Skill mode handed to the host agent
    agent: dict[str, Any] | None = None  # Skill mode run by app-run's own agent loop
    needs_route: dict[str, Any] | None = None  # unsure: the caller picks a pipeline
    needs_input: NeedsInput | None = None  # routed; inputs missing


def execute(
    app_dir: Path,
    pipeline: str,
    *,
    pairs: list[str],
    input_json: str | None = None,
    stdin_text: str | None = None,
    provider: str | None = None,
    answers: str | None = None,
    listener: Listener = None,
    delegate: bool = True,
    request: str | None = None,
) -> Answer:
    """Run ``pipeline``; with no provider and ``delegate``, llm steps pause for the host.

    With ``request`` (the user's words the pipeline was chosen for): inputs not given are filled
    from it as after routing, missing ones come back as ``needs_input``, and the request is
    learned as an example of ``pipeline`` (memory.py)."""
    app = load_app(app_dir)
    model = checked(app, pipeline, state_home())
    given = gather_inputs(model.inputs, pairs, input_json, stdin_text, app.root)
    config = load_config(app.root, provider=provider, answers=answers)
    setting = Setting(app, config, make_provider(config), listener, delegate)
    decided = {"pipeline": pipeline, "decision": "given"}
    if request is None:
        return Answer(decided, run=_run(setting, pipeline, given))
    _said(request)
    answer = _filled(setting, model, request, given, decided)
    if answer.needs_input is None:
        _learn(setting, request, pipeline, "run")
    else:
        answer.needs_input.confirmed = True
    return answer


def _run(setting: Setting, pipeline: str, inputs: dict[str, Any]) -> RunResult:
    """Run from the constructor on; a run paused for the host agent is kept as a session."""
    home = state_home()
    run = begin(
        setting.app,
        pipeline,
        inputs,
        config=setting.config,
        provider=setting.provider,
        home=home,
        listener=setting.listener,
        delegate=setting.delegate,
    )
    result = run.advance(Position())
    if result.pause is not None:
        from skill2app.runtime.host.delegation import save  # only a paused run needs it

        return save(home, result, run)
    return result


def _filled(
    setting: Setting, model: Pipeline, request: str, given: dict[str, Any], decided: dict[str, Any]
) -> Answer:
    """Fill the inputs of ``model`` from the request; run it, or say what is missing."""
    from skill2app.runtime.routing.filling import fill_inputs

    filled = fill_inputs(
        request,
        model.inputs,
        given,
        provider=setting.provider,
        config=setting.config,
        phrases=(model.description, *model.triggers),
        choices={k: list(v["enum"]) for k, v in model.input_info.items() if v.get("enum")},
    )
    if filled.missing:
        asked = NeedsInput(setting, model.name, request, model.inputs, model.input_info, filled)
        return Answer(decided, needs_input=asked)
    return Answer(decided, run=_run_filled(setting, model.name, request, filled))


def _run_filled(setting: Setting, pipeline: str, request: str, filled: Filled) -> RunResult:
    if setting.listener is not None:
        for name, how in filled.how.items():
            setting.listener({"event": "free_text", "input": name, "how": how})
    result = _run(setting, pipeline, filled.values)
    result.free_text = dict(filled.how)
    return result


def _learn(setting: Setting, request: str, pipeline: str, source: str) -> None:
    """Remember ``request`` as confirmed for ``pipeline`` (unless ``learn: false``)."""
    if setting.config.learn:
        from skill2app.runtime.routing.memory import Memory

        memory = Memory(state_home(), setting.app.root)
        memory.learn(request, pipeline, source=source, secrets=setting.config.secrets)


def listing(app_dir: Path) -> list[dict[str, Any]]:
    """`app-run list`: the routing table."""
    app = load_app(app_dir)
    return cached_table(app, state_home())


def _said(request: str) -> None:
    if not request.strip():
        raise UsageError(
            "the request is empty", hint='say what you want: app-run APP_DIR "summarise sales.csv"'
        )


def decide(
    app_dir: Path, request: str, *, strategy: str | None, provider: str | None, answers: str | None
) -> dict[str, Any]:
    """`app-run route`: the routing decision only."""
    from skill2app.runtime.routing.router import decision_dict, route

    _said(request)
    app = load_app(app_dir)
    cached_table(app, state_home())  # what routing reads, unparsed if unchanged
    config = load_config(app.root, provider=provider, answers=answers, routing=strategy)
    decision = route(
        app, request, strategy=config.routing, config=config, provider=make_provider(config)
    )
    return decision_dict(decision, app)


def ask(
    app_dir: Path,
    request: str,
    *,
    pairs: list[str],
    input_json: str | None = None,
    stdin_text: str | None = None,
    strategy: str | None = None,
    provider: str | None = None,
    answers: str | None = None,
    listener: Listener = None,
    delegate: bool = True,
    agent: bool = False,
    max_turns: int = 12,
    skill_mode: bool = False,
) -> Answer:
    """Route ``request``, fill the pipeline's inputs, run it — or hand the choice back
    (``needs_route``), ask for inputs (``needs_input``), or fall back to Skill mode."""
    from skill2app.runtime.host.skill_mode import fallback
    from skill2app.runtime.routing.router import decision_dict, route

    _said(request)
    app = load_app(app_dir)
    cached_table(app, state_home())
    config = load_config(app.root, provider=provider, answers=answers, routing=strategy)
    setting = Setting(app, config, make_provider(config), listener, delegate)
    confirmed = False
    if skill_mode:
        summary = _skipped()
    else:
        decision = route(
            app, request, strategy=config.routing, config=config, provider=setting.provider
        )
        summary, confirmed = decision_dict(decision, app), decision.confirmed
    if summary["decision"] == "unsure":
        given = _given_pairs(pairs, input_json, stdin_text)
        return Answer(summary, needs_route=needs_route(app, request, summary, given))
    if summary["pipeline"] is None and agent:
        return _agent(setting, request, summary, max_turns)
    if summary["pipeline"] is None:
        return Answer(summary, fallback=fallback(app, request, summary))
    pipeline = summary["pipeline"]
    model = checked(app, pipeline, state_home())
    given = gather_inputs(model.inputs, pairs, input_json, stdin_text, app.root)
    if confirmed:  # hybrid's LLM chose it: the caller's stand-in
        _learn(setting, request, pipeline, "hybrid")
    if listener is not None:  # before the run's own progress
        listener({"event": "routed", **summary})
    return _filled(setting, model, request, given, summary)


def _skipped() -> dict[str, Any]:
    return {
        "pipeline": None,
        "decision": "no_match",
        "score": 0.0,
        "strategy": "none",
        "reason": "Skill mode was asked for (--skill-mode): not routed",
        "candidates": [],
    }


def _agent(setting: Setting, request: str, summary: dict[str, Any], max_turns: int) -> Answer:
    from skill2app.runtime.host.skill_mode import run_with_agent

    if setting.provider is None:
        raise ProviderNotConfigured(
            "--agent needs an LLM provider and none is configured",
            hint="set ANTHROPIC_API_KEY, or drop --agent to hand Skill mode to your agent",
        )
    done = run_with_agent(
        setting.app,
        request,
        config=setting.config,
        provider=setting.provider,
        home=state_home(),
        listener=setting.listener,
        max_turns=max_turns,
    )
    return Answer(summary, agent={**done, "routing": summary})


def _given_pairs(pairs: list[str], input_json: str | None, stdin_text: str | None) -> dict:
    """The inputs given on the command line, before a pipeline (and its types) is known."""
    values: dict[str, Any] = dict(read_input_json(input_json, stdin_text)) if input_json else {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--input {pair!r} is not key=value", hint="write --input name=value")
        values[key] = raw
    return values


def needs_route(
    app: App, request: str, summary: dict[str, Any], given: dict[str, Any]
) -> dict[str, Any]:
    """The answer for an unsure routing: the short list, each candidate with the command that
    runs it for this request (and the inputs read from it), and Skill mode's command."""
    from skill2app.runtime.app.model import routing_table
    from skill2app.runtime.app.skill_md import read_skill_md
    from skill2app.runtime.routing.extraction import offline_extract
    from skill2app.runtime.routing.schema import row_declaration

    rows = {row["name"]: row for row in routing_table(app)}
    candidates = []
    for item in summary["candidates"]:
        declared, _ = row_declaration(rows.get(item["pipeline"], {}).get("input"))
        inputs = {k: v for k, v in given.items() if k in declared}
        found = _quietly(offline_extract, request, declared)
        inputs |= {k: v for k, v in found.items() if k not in inputs}
        command = run_command(app, item["pipeline"], request, inputs)
        candidates.append({**item, "inputs": inputs, "command": command})
    skill = read_skill_md(app.skill_md)
    return {
        "status": "needs_route",
        "app": str(app.root),
        "request": request,
        "candidates": candidates,
        "skill_mode": {
            "command": _command(["ask", str(app.root), request, "--skill-mode"]),
            "skill_md": str(skill.path) if skill.exists else None,
            "when": "none of the candidates is what the request asks for",
        },
        "routing": {k: v for k, v in summary.items() if k != "candidates"},
        "next": "Pick the candidate the request is for and run its `command` (app-run learns "
        "the choice); if none fits, run `skill_mode.command`.",
    }


def _quietly(extract: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """What ``extract`` reads, or nothing when the request names a value that does not fit
    (the chosen pipeline's run reports that)."""
    try:
        return extract(*args)
    except UsageError:
        return {}


def run_command(app: App, pipeline: str, request: str, inputs: dict[str, Any]) -> str:
    """`app-run run APP PIPELINE --request "…" -i k=v…`, as it works pasted."""
    words = ["run", str(app.root), pipeline, "--request", request]
    for name, value in inputs.items():
        words += ["-i", f"{name}={_text(value)}"]
    return _command(words)


def _text(value: Any) -> str:
    """A value as ``--input`` takes it back (converted by the declared type)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _command(words: list[str]) -> str:
    from skill2app.runtime.host.session import pasteable

    return pasteable(words, state_home())
