"""Sample inputs and scripted answers, so a converted pipeline runs offline at once.

``samples/input.json`` of a pipeline gives every required input, and the optional ones that
have a default.  A value is the example its description gives ("... (e.g. sales.csv)": the value
SKILL.md shows, which the analyzer puts there) when it fits the input's type and enum, else
the input's default, else its first enum value, else a placeholder of its type.  An example
that names a file the skill does not have is replaced by a skill file with the same
suffix (``sales.csv`` → ``assets/sample.csv``), unless the input is something to write.
An optional input without a default is left out: app-run hands the steps ``null`` for it,
which the generated adapters treat as absent.

``samples/answers.yaml`` gives one answer per llm step: the smallest value matching the
step's JSON Schema, with a property named like an input taking the input's sample value.
"""

from __future__ import annotations

import json
import re
from typing import Any

from skill2app.converter.inventory.invocations import is_json_literal
from skill2app.converter.plan.model import Input, Pipeline

_EXAMPLE = re.compile(r"(?:\be\.g\.|\bfor example\b|例如|比如)[:：,]?\s*", re.I)
_FILE_LIKE = re.compile(r"^[\w./~-]*[\w-]\.[A-Za-z0-9]{1,6}$")
_WRITES = re.compile(r"\b(?:out|output|write|writes|save|dest|destination|target)\b", re.I)
_QUOTES = "`'\"“”"
_QUOTED = re.compile(r'"(.*)"|\'(.*)\'|`(.*)`|“(.*)”', re.S)
_PLACEHOLDER = {"string": "example", "integer": 1, "number": 1, "boolean": False}


def sample_inputs(pipeline: Pipeline, files: list[str]) -> dict[str, Any]:
    """A sample value for every required input of ``pipeline`` and every optional one with
    a default (``files``: the skill's data files)."""
    return {
        item.name: sample_value(item, files)
        for item in pipeline.input
        if item.required or item.default is not None
    }


def sample_value(item: Input, files: list[str]) -> Any:
    example = _typed(example_of(item.description), item.type)
    if example is not None and (not item.enum or example in item.enum):
        if isinstance(example, str) and not _WRITES.search(f"{item.name} {item.description}"):
            return _existing_file(example, files)
        return example  # what SKILL.md shows (--width 800), not the program's default
    if item.default is not None:
        return item.default
    if item.enum:
        return item.enum[0]
    return _PLACEHOLDER.get(item.type, [] if item.type == "array" else {})


def example_of(description: str) -> str | None:
    """The text after the last "e.g." of ``description``, without a closing parenthesis; a
    quoted example (``e.g. ">> "``) is what is inside the quotes, spaces and all."""
    matches = list(_EXAMPLE.finditer(description))
    if not matches:
        return None
    text = description[matches[-1].end() :].strip()
    if text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1].rstrip()
    quoted = _QUOTED.fullmatch(text)
    if quoted:
        return next(part for part in quoted.groups() if part is not None) or None
    text = text.strip("`'\"“”")
    return text or None


def with_example(description: str, value: str) -> str:
    """``description`` with `` (e.g. VALUE)`` added, in the form ``example_of`` reads back: a
    JSON literal on one line, a value that starts or ends with a space or quote quoted."""
    if is_json_literal(value):
        value = json.dumps(json.loads(value), ensure_ascii=False)
    elif value != value.strip() or value[:1] in _QUOTES or value[-1:] in _QUOTES:
        value = f'"{value}"'
    return f"{description} (e.g. {value})" if description else f"e.g. {value}"


def _typed(example: str | None, kind: str) -> Any:
    if example is None:
        return None
    if kind == "integer":
        return int(example) if re.fullmatch(r"-?\d+", example) else None
    if kind == "number":
        return float(example) if re.fullmatch(r"-?\d+(?:\.\d+)?", example) else None
    if kind == "boolean":
        return {"true": True, "false": False}.get(example.lower())
    if kind == "array":
        return [example]
    if kind == "object":
        return None
    return example


def _existing_file(example: str, files: list[str]) -> str:
    if not _FILE_LIKE.match(example) or example.lstrip("./") in files:
        return example
    suffix = "." + example.rsplit(".", 1)[1].lower()
    same = [f for f in files if f.lower().endswith(suffix)]
    preferred = [f for f in same if f.startswith(("assets/", "examples/", "samples/"))]
    return (preferred or same or [example])[0]


# -- answers -----------------------------------------------------------------------------


def sample_answer(schema: dict[str, Any] | None, step: str, inputs: dict[str, Any]) -> Any:
    """The smallest answer that matches ``schema`` (any text when there is none)."""
    text = f"Sample answer of step {step}"
    if schema is None:
        return text
    return _instance(schema, text, inputs, "")


def _instance(schema: Any, text: str, inputs: dict[str, Any], name: str) -> Any:
    if not isinstance(schema, dict):
        return text
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return _instance(schema[key][0], text, inputs, name)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: _instance(sub, text, inputs, key) for key, sub in properties.items()}
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        if schema.get("maxItems") == 0:
            return []
        return [_instance(schema.get("items") or {}, text, inputs, name)] * count
    if name in inputs and _matches(inputs[name], kind):
        return inputs[name]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return text


def _matches(value: Any, kind: str) -> bool:
    checks: dict[str, Any] = {"string": str, "integer": int, "number": (int, float)}
    wanted = checks.get(kind)
    return wanted is not None and isinstance(value, wanted) and not isinstance(value, bool)
