"""The plan as a file: its JSON Schema, the YAML app-convert writes, and reading it back
(``plan_from_dict``: a plan from a mapping that passed the schema, as files and analysts'
answers give it).

``plan_to_yaml`` / ``dump_plan`` write a ``Plan`` deterministically (block style, no anchors,
no timestamps); ``load_plan`` reads one back, checks it against ``schemas/plan.schema.json``
and names the file and line of the first problem (``line_of``).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from skill2app.converter.errors import PlanError, Where
from skill2app.converter.plan.model import (
    Action,
    Arg,
    Check,
    CodeStep,
    Constructor,
    Destructor,
    EnvVar,
    Input,
    LlmStep,
    Pipeline,
    Plan,
    Sample,
    SkillModeItem,
    StdinFeed,
    Step,
    Written,
    step_ref,
)
from skill2app.runtime.app.document import safe_yaml
from skill2app.runtime.errors import LoadError

MAX_PLAN_BYTES = 2_000_000
_STEPS_IN_PROMPT = re.compile(r"\{\{\s*steps\.")  # {{steps.x.output}} is {{x.output}}


@cache
def plan_schema() -> dict[str, Any]:
    text = (
        resources.files("skill2app.converter.plan")
        .joinpath("schemas/plan.schema.json")
        .read_text("utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


def schema_errors(data: Any) -> list[tuple[list[str | int], str]]:
    """(path, message) of every schema violation, in a stable order."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(plan_schema())
    found = [(list(e.absolute_path), _message(e)) for e in validator.iter_errors(data)]
    return sorted(found, key=lambda item: ([str(p) for p in item[0]], item[1]))


def _message(error: Any) -> str:
    """jsonschema's message, said in the plan's terms where its own would show a regex."""
    if error.validator == "pattern" and error.schema is plan_schema()["$defs"]["reference"]:
        return (
            f"{error.instance!r} is not input.<name> or steps.<step>.output[.<field>] "
            "(lowercase names)"
        )
    return str(error.message)


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


MAX_PLAN_NODES = 200_000


def load_plan(path: Path) -> Plan:
    """Read a plan file; PlanError names the file and line of the first problem."""
    shown = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PlanError(
            f"cannot read the plan: {exc.strerror}",
            where=Where(shown),
            hint="check the --plan path; write a plan with --plan-only --out plan.yaml",
        ) from exc
    if len(raw) > MAX_PLAN_BYTES:
        raise PlanError(f"the plan is larger than {MAX_PLAN_BYTES} bytes", where=Where(shown))
    text = raw.decode("utf-8-sig", errors="replace")
    try:  # bounded: an alias bomb, or nesting thousands deep, is a clear error
        data = safe_yaml(text, shown, max_nodes=MAX_PLAN_NODES)
    except LoadError as exc:
        message = exc.message.replace("invalid YAML", "broken YAML")
        raise PlanError(message, where=exc.where, hint=exc.hint) from None
    root = yaml.compose(text)  # only for lines: bounded by the load above
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
    sample = data.get("sample") or {}
    return Pipeline(
        name=data["name"],
        description=data["description"],
        triggers=list(data["triggers"]),
        probes=list(data.get("probes") or []),
        input=[Input(**i) for i in data["input"]],
        steps=[_step(s) for s in data["steps"]],
        output=data.get("output", ""),
        source=data.get("source", ""),
        sample=Sample(
            sample.get("input"),
            dict(sample.get("answers") or {}),
            str(sample.get("skip") or ""),
            {str(k): str(v) for k, v in (sample.get("files") or {}).items()},
            [str(n) for n in sample.get("after") or []],
        ),
    )


def _step(data: dict[str, Any]) -> Step:
    if data["type"] == "code":
        args = [
            Arg(
                a.get("flag", ""),
                a.get("value"),
                step_ref(a.get("from", "")),
                a.get("as", "value"),
                bool(a.get("spread", False)),
            )
            for a in data.get("args", [])
        ]
        feed = data.get("stdin")
        write = data.get("write")
        return CodeStep(
            data["name"],
            data.get("program", ""),
            args,
            data.get("subcommand", ""),
            data.get("stdout", "json" if write else "text"),
            stdin=StdinFeed(step_ref(feed["from"]), feed["as"]) if feed else None,
            write=Written(write["language"], write["source"]) if write else None,
            ok_exit_codes=list(data.get("ok_exit_codes", [])),
            output={str(k): str(v) for k, v in (data.get("output") or {}).items()},
            env=[
                EnvVar(e["name"], e.get("value"), step_ref(e.get("from", "")))
                for e in data.get("env", [])
            ],
        )
    return LlmStep(
        data["name"],
        _STEPS_IN_PROMPT.sub("{{", data["prompt"]),
        data.get("model", "standard"),
        data.get("schema"),
        list(data.get("rules", [])),
        data.get("retry", 2),
    )
