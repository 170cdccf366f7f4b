"""The llm analyzer's answer: the schema the Messages API enforces, and the plan in it.

``ANSWER_SCHEMA`` is the plan schema (schemas/plan.schema.json) in the form the API can
enforce with structured output: every field is required, with "", [] or null for "not set"
(the API limits optional fields and union types), one step shape for both step types (the API
has no if/then/else), and an llm step's ``schema`` as JSON text (the API cannot enforce a free
JSON object).  It is its own ``transform_schema`` form, so the SDK sends it unchanged.

``plan_data`` turns an answer back into a plan mapping: unset fields dropped, the fields of the
other step type dropped, llm step schemas parsed.  It also takes a plan mapping as written in
plan.yaml, so scripted answers may use either form.  ``accept`` validates the result against
the plan schema and ``check_plan``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import format_path, schema_errors
from skill2app.converter.plan.model import (
    PLAN_VERSION,
    Plan,
    SkillModeItem,
    plan_from_dict,
)

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory

FALLBACK_TOPIC = "Requests no pipeline matches"
FALLBACK_REASON = (
    "the Runner falls back to SKILL.md, which stays unchanged (APP spec §1, §7 step 3)"
)


# -- the answer --------------------------------------------------------------------------------


def accept(answer: Any, inventory: Inventory) -> tuple[Plan | None, list[str]]:
    """The plan in ``answer`` and its problems (schema, then ``check_plan``)."""
    if not isinstance(answer, dict):
        shown = json.dumps(answer, ensure_ascii=False)[:200] if answer is not None else "no JSON"
        return None, [f"the answer is not a JSON object: {shown}"]
    data, errors = plan_data(answer, inventory.language)
    errors += [f"{format_path(p)}: {m}" for p, m in schema_errors(data)]
    if errors:
        return None, errors
    plan = plan_from_dict(data)
    problems = check_plan(plan, inventory)
    if not any(item.topic == FALLBACK_TOPIC for item in plan.skill_mode):
        plan.skill_mode.append(SkillModeItem(FALLBACK_TOPIC, FALLBACK_REASON))
    return plan, problems


def plan_data(answer: dict[str, Any], language: str) -> tuple[dict[str, Any], list[str]]:
    """A plan mapping from an answer: unset fields dropped, llm step schemas parsed."""
    errors: list[str] = []
    data: dict[str, Any] = {"plan_version": PLAN_VERSION}
    app = answer.get("app")
    if isinstance(app, dict):
        app = _prune(app, ("language",))
        app.setdefault("language", language)
    data |= {"app": app} if "app" in answer else {}
    data["analyzer"] = "llm"
    for key in ("pipelines", "constructor", "destructor", "skill_mode"):
        if key in answer:
            data[key] = answer[key]
    data["pipelines"] = _each(data.get("pipelines"), lambda p, i: _pipeline(p, i, errors))
    for key, items in (("constructor", "checks"), ("destructor", "actions")):
        part = _prune(data.get(key), ("reason",))
        if isinstance(part, dict):
            part[items] = _prune_each(part.get(items), _OPTIONAL[items])
        data[key] = part
    data["skill_mode"] = _prune_each(data.get("skill_mode"), ("where",))
    notes = answer.get("notes")
    if notes:
        data["notes"] = [n for n in notes if n] if isinstance(notes, list) else notes
    return {k: v for k, v in data.items() if v is not None}, errors


_OPTIONAL = {
    "pipeline": ("output", "source"),
    "input": ("description", "enum"),  # and default, when null: [] is a real default
    "arg": ("flag", "value", "from", "as"),
    "code": ("subcommand", "stdout"),
    "llm": ("model", "schema", "rules"),
    "checks": ("why", "where"),
    "actions": ("paths", "where"),
}
_ONLY = {  # the fields of one step type, which the other type leaves unset
    "code": ("program", "subcommand", "args", "stdin", "stdout"),
    "llm": ("model", "prompt", "schema", "rules", "retry"),
}


def _pipeline(pipeline: Any, index: int, errors: list[str]) -> Any:
    pipeline = _prune(pipeline, _OPTIONAL["pipeline"])
    if not isinstance(pipeline, dict):
        return pipeline
    pipeline["input"] = _each(pipeline.get("input"), lambda item, _i: _input(item))
    pipeline["steps"] = _each(
        pipeline.get("steps"), lambda s, j: _step(s, f"pipelines[{index}].steps[{j}]", errors)
    )
    return {k: v for k, v in pipeline.items() if v is not None}


def _input(item: Any) -> Any:
    item = _prune(item, _OPTIONAL["input"])
    if isinstance(item, dict) and item.get("default", 0) is None:
        del item["default"]
    return item


def _step(step: Any, at: str, errors: list[str]) -> Any:
    if not isinstance(step, dict) or step.get("type") not in _ONLY:
        return step
    kind = step["type"]
    other = _ONLY["llm" if kind == "code" else "code"]
    step = _prune({k: v for k, v in step.items() if k not in other}, _OPTIONAL[kind])
    if kind == "code":
        step["args"] = _prune_each(step.get("args"), _OPTIONAL["arg"])
        stdin = step.get("stdin")
        if isinstance(stdin, dict) and _unset(stdin.get("from")):
            del step["stdin"]  # {"from": "", ...}: the program reads nothing on stdin
        return {k: v for k, v in step.items() if v is not None}
    schema = step.get("schema")
    if isinstance(schema, str):
        try:
            step["schema"] = json.loads(schema)
        except ValueError as exc:
            errors.append(f"{at}.schema: not JSON text ({exc})")
            del step["schema"]
    return step


def _prune(item: Any, optional: tuple[str, ...]) -> Any:
    """``item`` without the optional fields that are unset ("", [], null)."""
    if not isinstance(item, dict):
        return item
    return {k: v for k, v in item.items() if not (k in optional and _unset(v))}


def _prune_each(items: Any, optional: tuple[str, ...]) -> Any:
    return _each(items, lambda item, _i: _prune(item, optional))


def _unset(value: Any) -> bool:
    return value is None or (isinstance(value, str | list) and not value)


def _each(items: Any, fn: Callable[[Any, int], Any]) -> Any:
    """``fn`` applied to each item of a list; anything else unchanged, for the schema to report."""
    return [fn(item, i) for i, item in enumerate(items)] if isinstance(items, list) else items


# -- the answer's schema (what the Messages API enforces) --------------------------------------


def _object(note: str = "", /, **properties: Any) -> dict[str, Any]:
    """An object whose every property is required (``note`` is its description)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    return schema | ({"description": note} if note else {})


def _text(description: str = "") -> dict[str, Any]:
    return {"type": "string"} | ({"description": description} if description else {})


def _list(items: dict[str, Any], description: str = "") -> dict[str, Any]:
    return {"type": "array", "items": items} | ({"description": description} if description else {})


def _enum(*values: str) -> dict[str, Any]:
    return {"enum": list(values)}  # without "type": the form the SDK's transform_schema makes


_SCALAR = {"$ref": "#/$defs/scalar"}
_WHERE = _text('a file of the skill, or "file:line"; "" when unknown')

ANSWER_SCHEMA: dict[str, Any] = _object(
    'A conversion plan. Every field is present; "", [] or null means not set.',
    app=_object(
        name=_text("lowercase words joined by hyphens, at most 64 characters"),
        description=_text(),
        language=_text("language code of the skill's own text"),
    ),
    pipelines=_list(
        _object(
            name=_text("lowercase words joined by hyphens, unique"),
            description=_text("one sentence; routing reads it"),
            triggers=_list(_text(), "phrases a user would say, unique across pipelines"),
            input=_list(
                _object(
                    name=_text("snake_case"),
                    type=_enum("string", "integer", "number", "boolean", "array", "object"),
                    required={"type": "boolean"},
                    description=_text(),
                    enum=_list(_SCALAR, "the allowed values, or []"),
                    default={"anyOf": [_SCALAR, _list(_SCALAR), {"type": "null"}]},
                )
            ),
            steps={"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}},
            output=_text("the step whose output is the pipeline's"),
            source=_WHERE,
        )
    ),
    constructor=_object(
        needed={"type": "boolean"},
        reason=_text(),
        checks=_list(
            _object(
                kind=_enum("binary", "env", "python-package", "node-package", "file", "auth"),
                name=_text(),
                required={"type": "boolean", "description": "false: warn instead of failing"},
                why=_text(),
                where=_list(_WHERE),
            )
        ),
    ),
    destructor=_object(
        needed={"type": "boolean"},
        reason=_text(),
        actions=_list(
            _object(
                kind=_enum("remove-files", "log", "release-lock", "custom"),
                description=_text(),
                paths=_list(_text()),
                where=_WHERE,
            )
        ),
    ),
    skill_mode=_list(_object(topic=_text(), reason=_text(), where=_WHERE)),
    notes=_list(_text(), "for the person who reviews the plan"),
)
ANSWER_SCHEMA["$defs"] = {
    "scalar": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]},
    "step": _object(
        "code fields are ignored in an llm step and llm fields in a code step",
        name=_text("snake_case, unique in the pipeline"),
        type=_enum("code", "llm"),
        program=_text("code: the program's path as in the inventory"),
        subcommand=_text('code: "" when none'),
        args=_list(
            _object(
                "one argument, in order: value or from, never both",
                flag=_text('"--name", or "" for a positional'),
                value={"anyOf": [_SCALAR, _list(_SCALAR), {"type": "null"}]},
                **{
                    "from": _text('input.<name> or <step>.output[.<field>], or ""'),
                    "as": _enum("value", "file", "json"),
                },
            )
        ),
        stdin=_object(
            "code: what the program reads on stdin",
            **{
                "from": _text('input.<name> or <step>.output[.<field>]; "" when nothing'),
                "as": _enum("file", "text"),
            },
        ),
        stdout=_enum("json", "text"),
        prompt=_text("llm: the prompt template"),
        model=_enum("lite", "standard", "reasoning"),
        schema=_text('llm: the answer\'s JSON Schema as JSON text, or ""'),
        rules=_list(_text(), "llm: content rules a checker verifies"),
        retry={"type": "integer", "description": "llm: attempts after the first, 0-10"},
    ),
}
