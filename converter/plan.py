"""The conversion plan: what app-convert will create from a skill, for a person to review.

An analyzer turns an inventory into a ``Plan``; ``dump_plan`` writes it as YAML (deterministic,
block style, no timestamps), a person edits it, ``load_plan`` reads it back and validates it
against ``schemas/plan.schema.json``, and ``check_plan`` checks it against the skill's
inventory.  A minimal plan::

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
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from converter.errors import PlanError, Where

if TYPE_CHECKING:
    from converter.inventory import Inventory

PLAN_VERSION = 1
MAX_PLAN_BYTES = 2_000_000


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


# -- schema, YAML --------------------------------------------------------------------------


@cache
def plan_schema() -> dict[str, Any]:
    text = resources.files("converter").joinpath("schemas/plan.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def schema_errors(data: Any) -> list[tuple[list[str | int], str]]:
    """(path, message) of every schema violation, in a stable order."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(plan_schema())
    found = [(list(e.absolute_path), e.message) for e in validator.iter_errors(data)]
    return sorted(found, key=lambda item: ([str(p) for p in item[0]], item[1]))


def format_path(path: list[str | int]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(plan)"


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # indent list items under their key

    def ignore_aliases(self, data: Any) -> bool:
        return True  # a value used twice is written twice, never as &anchor / *alias


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def plan_to_yaml(plan: Plan) -> str:
    header = (
        f"# Conversion plan for {plan.app_name} (app-convert, analyzer: {plan.analyzer}).\n"
        "# Review and edit, then render it with: app-convert <skill> --plan <this file>\n"
    )
    body: str = yaml.dump(
        plan.to_dict(),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )
    return header + body


def dump_plan(plan: Plan, path: Path) -> None:
    path.write_text(plan_to_yaml(plan), encoding="utf-8")


def load_plan(path: Path) -> Plan:
    """Read a plan file; PlanError names the file and line of the first problem."""
    shown = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PlanError(
            f"cannot read the plan: {exc.strerror}",
            where=Where(shown),
            hint="check the --plan path; write a plan with --plan-only -o plan.yaml",
        ) from exc
    if len(raw) > MAX_PLAN_BYTES:
        raise PlanError(f"the plan is larger than {MAX_PLAN_BYTES} bytes", where=Where(shown))
    text = raw.decode("utf-8-sig", errors="replace")
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise PlanError(
            f"broken YAML: {exc.problem}", where=Where(shown, line), hint="fix the YAML syntax"
        ) from exc
    except yaml.YAMLError as exc:
        raise PlanError(f"broken YAML: {exc}", where=Where(shown)) from exc
    errors = schema_errors(data)
    if errors:
        messages = [f"{format_path(p)}: {m}" for p, m in errors]
        raise PlanError(
            f"the plan does not match its schema: {messages[0]}",
            errors=messages,
            where=Where(shown, line_of(root, errors[0][0])),
            hint="compare with converter/schemas/plan.schema.json",
        )
    return plan_from_dict(data)


def line_of(node: yaml.Node | None, path: list[str | int]) -> int:
    """The 1-based line of the YAML node at ``path`` (or of its nearest ancestor)."""
    line = node.start_mark.line + 1 if node is not None else 0
    for part in path:
        child = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            child = node.value[part] if part < len(node.value) else None
        if child is None:
            break
        node, line = child, child.start_mark.line + 1
    return line


def check_plan(plan: Plan, inventory: Inventory) -> list[str]:
    """Every problem that would stop the plan from rendering into a working APP."""
    from converter.plan_check import check  # plan_check builds on this module's model

    return check(plan, inventory)
