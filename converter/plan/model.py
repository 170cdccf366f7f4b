"""The conversion plan: what app-convert will create from a skill, for a person to review.

An analyzer turns an inventory into a ``Plan`` (this module: the model); ``file`` writes
it as YAML (deterministic, block style, no timestamps), a person edits it, ``file`` reads
it back and validates it against ``schemas/plan.schema.json``, and ``check.check_plan`` checks it
against the skill's inventory.  A minimal plan::

    plan_version: 1
    app: {name: team-calendar, description: Keep a small team calendar ...}
    analyzer: heuristic
    pipelines:
    - name: calendar-create-event
      description: Create an event
      triggers: [Create an event]
      input:
      - {name: summary, type: string, required: true}
      steps:
      - name: create_event
        type: code
        program: scripts/calendar.js
        args:
        - {flag: --action, value: create_event}
        - {flag: --summary, from: input.summary}
        stdout: json
    constructor: {needed: false, checks: []}
    destructor: {needed: false, actions: []}
    skill_mode: []

A code step whose program reads data on stdin (SKILL.md shows ``cat data.json | x.py`` or
``x.py < data.json``) says where that data comes from: ``stdin: {from: input.data, as: file}``
feeds the content of the file the input names, ``as: text`` the value itself.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

PLAN_VERSION = 1


@dataclass
class Arg:
    flag: str = ""  # "" for a positional
    value: Any = None  # a literal; None when unset
    ref: str = ""  # "input.x" / "step.output[.field]" (YAML key `from`)
    pass_as: str = "value"  # value | file | json (YAML key `as`)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.flag:
            data["flag"] = self.flag
        if self.value is not None:
            data["value"] = self.value
        if self.ref:
            data["from"] = self.ref
        if self.pass_as != "value":
            data["as"] = self.pass_as
        return data


@dataclass
class StdinFeed:
    """What a code step feeds its program on stdin (YAML: ``stdin: {from: ..., as: ...}``)."""

    ref: str  # "input.x" / "step.output[.field]" (YAML key `from`)
    pass_as: str = "file"  # file: the content of the file it names | text: the value itself

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.ref, "as": self.pass_as}


@dataclass
class Input:
    name: str
    type: str
    required: bool = False
    description: str = ""
    enum: list[Any] | None = None
    default: Any = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": self.type, "required": self.required}
        if self.description:
            data["description"] = self.description
        if self.enum is not None:
            data["enum"] = list(self.enum)
        if self.default is not None:
            data["default"] = self.default
        return data


@dataclass
class CodeStep:
    name: str
    program: str
    args: list[Arg] = field(default_factory=list)
    subcommand: str = ""
    stdout: str = "text"  # json | text
    type: str = "code"
    stdin: StdinFeed | None = None  # None: the program reads nothing on stdin

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": "code", "program": self.program}
        if self.subcommand:
            data["subcommand"] = self.subcommand
        data["args"] = [a.to_dict() for a in self.args]
        if self.stdin is not None:
            data["stdin"] = self.stdin.to_dict()
        data["stdout"] = self.stdout
        return data


@dataclass
class LlmStep:
    name: str
    prompt: str
    model: str = "standard"
    schema: dict[str, Any] | None = None
    rules: list[str] = field(default_factory=list)
    retry: int = 2
    type: str = "llm"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "type": "llm",
            "model": self.model,
            "prompt": self.prompt,
        }
        if self.schema is not None:
            data["schema"] = copy.deepcopy(self.schema)
        if self.rules:
            data["rules"] = list(self.rules)
        data["retry"] = self.retry
        return data


Step = CodeStep | LlmStep


@dataclass
class Pipeline:
    name: str
    description: str
    triggers: list[str] = field(default_factory=list)
    input: list[Input] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    output: str = ""
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "triggers": list(self.triggers),
            "input": [i.to_dict() for i in self.input],
            "steps": [s.to_dict() for s in self.steps],
        }
        if self.output:
            data["output"] = self.output
        if self.source:
            data["source"] = self.source
        return data


@dataclass
class Check:
    kind: str  # binary | env | python-package | node-package | file | auth
    name: str
    required: bool = True
    why: str = ""
    where: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "name": self.name, "required": self.required}
        if self.why:
            data["why"] = self.why
        if self.where:
            data["where"] = list(self.where)
        return data


@dataclass
class Action:
    kind: str  # remove-files | log | release-lock | custom
    description: str
    paths: list[str] = field(default_factory=list)
    where: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "description": self.description}
        if self.paths:
            data["paths"] = list(self.paths)
        if self.where:
            data["where"] = self.where
        return data


@dataclass
class Constructor:
    needed: bool = False
    reason: str = ""
    checks: list[Check] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"needed": self.needed}
        if self.reason:
            data["reason"] = self.reason
        data["checks"] = [c.to_dict() for c in self.checks]
        return data


@dataclass
class Destructor:
    needed: bool = False
    reason: str = ""
    actions: list[Action] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"needed": self.needed}
        if self.reason:
            data["reason"] = self.reason
        data["actions"] = [a.to_dict() for a in self.actions]
        return data


@dataclass
class SkillModeItem:
    topic: str
    reason: str
    where: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = {"topic": self.topic, "reason": self.reason}
        if self.where:
            data["where"] = self.where
        return data


@dataclass
class Plan:
    app_name: str
    app_description: str
    language: str = "en"
    analyzer: str = "heuristic"
    pipelines: list[Pipeline] = field(default_factory=list)
    constructor: Constructor = field(default_factory=Constructor)
    destructor: Destructor = field(default_factory=Destructor)
    skill_mode: list[SkillModeItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def pipeline(self, name: str) -> Pipeline | None:
        return next((p for p in self.pipelines if p.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "plan_version": PLAN_VERSION,
            "app": {
                "name": self.app_name,
                "description": self.app_description,
                "language": self.language,
            },
            "analyzer": self.analyzer,
            "pipelines": [p.to_dict() for p in self.pipelines],
            "constructor": self.constructor.to_dict(),
            "destructor": self.destructor.to_dict(),
            "skill_mode": [s.to_dict() for s in self.skill_mode],
        }
        if self.notes:
            data["notes"] = list(self.notes)
        return data


# -- from a (schema-valid) mapping -------------------------------------------------------


def plan_from_dict(data: dict[str, Any]) -> Plan:
    """Build a Plan from a mapping that already passed ``schema_errors``."""
    app = data["app"]
    con, des = data["constructor"], data["destructor"]
    return Plan(
        app_name=app["name"],
        app_description=app["description"],
        language=app.get("language", "en"),
        analyzer=data["analyzer"],
        pipelines=[_pipeline(p) for p in data["pipelines"]],
        constructor=Constructor(
            con["needed"], con.get("reason", ""), [Check(**c) for c in con["checks"]]
        ),
        destructor=Destructor(
            des["needed"], des.get("reason", ""), [Action(**a) for a in des["actions"]]
        ),
        skill_mode=[SkillModeItem(**s) for s in data["skill_mode"]],
        notes=list(data.get("notes", [])),
    )


def _pipeline(data: dict[str, Any]) -> Pipeline:
    return Pipeline(
        name=data["name"],
        description=data["description"],
        triggers=list(data["triggers"]),
        input=[Input(**i) for i in data["input"]],
        steps=[_step(s) for s in data["steps"]],
        output=data.get("output", ""),
        source=data.get("source", ""),
    )


def _step(data: dict[str, Any]) -> Step:
    if data["type"] == "code":
        args = [
            Arg(a.get("flag", ""), a.get("value"), a.get("from", ""), a.get("as", "value"))
            for a in data["args"]
        ]
        feed = data.get("stdin")
        return CodeStep(
            data["name"],
            data["program"],
            args,
            data.get("subcommand", ""),
            data.get("stdout", "text"),
            stdin=StdinFeed(feed["from"], feed["as"]) if feed else None,
        )
    return LlmStep(
        data["name"],
        data["prompt"],
        data.get("model", "standard"),
        data.get("schema"),
        list(data.get("rules", [])),
        data.get("retry", 2),
    )
