"""An analyst's answer (host agent or API model), turned into a plan and checked.

The answer is a plan document as plan.yaml holds it (schemas/plan.schema.json).  Models often
write every field, with "", [] or null for "not set", the fields of the other step type too,
and an llm step's schema as JSON text: ``plan_data`` takes those out, so such an answer reads
as the plan it means.  ``accept`` validates the result against the plan schema and
``check_plan``, and adds Skill mode's fallback entry when the answer has none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skill2app.converter.plan.check import check_plan
from skill2app.converter.plan.file import format_path, plan_from_dict, schema_errors
from skill2app.converter.plan.model import PLAN_VERSION, Plan, SkillModeItem

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory

FALLBACK_TOPIC = "Requests no pipeline matches"
FALLBACK_REASON = (
    "the Runner falls back to SKILL.md, which stays unchanged (APP spec §1, §7 step 3)"
)


# -- the answer --------------------------------------------------------------------------------


def accept(
    answer: Any, inventory: Inventory, analyzer: str = "llm"
) -> tuple[Plan | None, list[str]]:
    """The plan in ``answer`` and its problems (schema, then ``check_plan``)."""
    if not isinstance(answer, dict):
        shown = json.dumps(answer, ensure_ascii=False)[:200] if answer is not None else "no JSON"
        return None, [f"the answer is not a JSON object: {shown}"]
    data, errors = plan_data(answer, inventory.language, analyzer)
    errors += [f"{format_path(p)}: {m}" for p, m in schema_errors(data)]
    if errors:
        return None, errors
    plan = plan_from_dict(data)
    problems = check_plan(plan, inventory)
    if not any(_says_fallback(item) for item in plan.skill_mode):
        plan.skill_mode.append(SkillModeItem(FALLBACK_TOPIC, FALLBACK_REASON))
    return plan, problems


# "the Runner falls back to SKILL.md", "由 Runner 回退到未改动的 SKILL.md"
_FALLBACK = re.compile(r"fall(?:s|ing)?[ -]?back|回退|兜底|退回", re.I)


def _says_fallback(item: SkillModeItem) -> bool:
    """Whether the analyst's own entry already says that requests no pipeline matches go to
    SKILL.md, in whatever language (then app-convert's English one would say it twice)."""
    if item.topic == FALLBACK_TOPIC:
        return True
    return "SKILL.md" in item.reason and bool(_FALLBACK.search(f"{item.topic} {item.reason}"))


def plan_data(
    answer: dict[str, Any], language: str, analyzer: str = "llm"
) -> tuple[dict[str, Any], list[str]]:
    """A plan mapping from an answer: unset fields dropped, llm step schemas parsed."""
    errors: list[str] = []
    data: dict[str, Any] = {"plan_version": answer.get("plan_version", PLAN_VERSION)}
    app = answer.get("app")
    if isinstance(app, dict):
        app = _prune(app, ("language",))
        app.setdefault("language", language)
    data |= {"app": app} if "app" in answer else {}
    data["analyzer"] = analyzer
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
    for key in answer.keys() - {*data, "analyzer", "notes", "plan_version", "app"}:
        data[key] = answer[key]  # not the plan's: the schema names it
    return {k: v for k, v in data.items() if v is not None}, errors


_OPTIONAL = {
    "pipeline": ("output", "source", "sample"),
    "input": ("description", "enum"),  # and default, when null: [] is a real default
    "arg": ("flag", "value", "from", "as"),
    "code": ("subcommand", "stdout", "ok_exit_codes", "output", "write"),
    "llm": ("model", "schema", "rules"),
    "checks": ("why", "where"),
    "actions": ("paths", "where"),
}
_ONLY = {  # the fields of one step type, which the other type leaves unset
    "code": (
        "program",
        "subcommand",
        "args",
        "stdin",
        "stdout",
        "write",
        "ok_exit_codes",
        "output",
    ),
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
    if kind == "code" and isinstance(step.get("write"), dict):  # a written step: no program
        unset = ("program", "subcommand", "args", "stdin", "stdout", "ok_exit_codes")
        step = _prune(step, unset)
        step.pop("stdout", None)  # a written step prints the contract's JSON, always
        if isinstance(step.get("stdin"), dict) and _unset(step["stdin"].get("from")):
            del step["stdin"]
        return {k: v for k, v in step.items() if v is not None}
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
