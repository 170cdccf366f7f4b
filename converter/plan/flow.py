"""The data that flows through a pipeline of the plan, checked before anything is rendered.

A step may take an input (``input.<name>``) or an earlier step's output
(``steps.<step>.output`` or one of its fields, ``steps.<step>.output.<field>...``, also
written ``<step>.output...`` as prompt templates do).  A field must be one the earlier step
declares: a code step's ``output: {field: type}`` (a program printing text has ``stdout``; one
with ``ok_exit_codes`` has ``exit_code``), an llm step's schema properties.  Structured rules
of an llm step (``RULE_CHECKS``) name fields of the answer and may compare them with inputs
or earlier outputs; a pipeline's ``sample`` must fit its inputs and its llm steps' schemas.

Every function returns messages ``<where in the plan>: <problem>``.
"""

from __future__ import annotations

import re
from typing import Any

from skill2app.converter.plan.model import (
    RULE_CHECKS,
    CodeStep,
    Input,
    LlmStep,
    Pipeline,
    Step,
    step_ref,
)
from skill2app.converter.plan.names import undefined_names
from skill2app.converter.plan.rules import check_for

_REQUIRE = re.compile(r"(?<![\w.$])require\s*\(")
_RESERVED = {"input.json", "answers.yaml", "expected.json", "placeholders.json", "after.json"}
_TEMPLATE_REF = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,),
}  # fmt: skip


def is_type(value: Any, kind: str) -> bool:
    kinds = _PY_TYPES.get(kind, ())
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def reference(ref: str, at: str, inputs: dict[str, Input], earlier: dict[str, Step]) -> list[str]:
    """Problems of one reference: an input that is declared, or an earlier step (and, for a
    field, a field that step declares)."""
    ref = step_ref(ref)
    head, _, rest = ref.partition(".")
    if head == "input":
        name = rest.split(".", 1)[0]
        return [] if name in inputs else [f"{at}: {ref!r} names no declared input"]
    if rest != "output" and not rest.startswith("output."):
        return [f"{at}: {ref!r} is neither input.<name> nor steps.<step>.output[.<field>]"]
    step = earlier.get(head)
    if step is None:
        return [f"{at}: {ref!r} names no earlier step (earlier: {', '.join(earlier) or 'none'})"]
    path = [p for p in rest.split(".")[1:] if p]
    return [f"{at}: {problem}" for problem in field_problems(step, path, ref)]


def field_problems(step: Step, path: list[str], ref: str) -> list[str]:
    """Whether ``path`` (field, subfield, ...) is in what ``step`` declares it outputs."""
    if not path:
        return []
    if isinstance(step, LlmStep):
        return _schema_path(step.schema, path, ref, step.name)
    fields = step.declared_output()
    if fields is None:
        return [
            f"{ref!r}: step {step.name} declares no output fields; add output: "
            f"{{{path[0]}: <type>}} to it (the fields its JSON has)"
        ]
    if path[0] not in fields:
        known = ", ".join(sorted(fields)) or "none"
        return [f"{ref!r}: step {step.name} has no output field {path[0]!r} (declared: {known})"]
    return []


def _schema_path(schema: dict[str, Any] | None, path: list[str], ref: str, step: str) -> list[str]:
    if schema is None:
        return [f"{ref!r}: llm step {step} has no schema, so its answer has no fields; give it one"]
    node: Any = schema
    for part in path:
        while isinstance(node, dict) and isinstance(node.get("items"), dict):
            node = node["items"]  # a list's fields are its items' (fields[].id)
        props = node.get("properties") if isinstance(node, dict) else None
        if not isinstance(props, dict):
            return []  # not described further: any field may be there
        if part not in props:
            known = ", ".join(sorted(props)) or "none"
            return [f"{ref!r}: the schema of step {step} has no field {part!r} (has: {known})"]
        node = props[part]
    return []


def prompt_references(
    step: LlmStep, at: str, inputs: dict[str, Input], earlier: dict[str, Step]
) -> list[str]:
    return [
        problem
        for match in _TEMPLATE_REF.finditer(step.prompt)
        for problem in reference(match.group(1), f"{at}.prompt", inputs, earlier)
    ]


# -- structured rules ------------------------------------------------------------------------


def rule_problems(
    step: LlmStep, at: str, inputs: dict[str, Input], earlier: dict[str, Step]
) -> list[str]:
    errors: list[str] = []
    for index, rule in enumerate(step.rules):
        if not isinstance(rule, dict):
            continue
        where = f"{at}.rules[{index}]"
        check = rule.get("check", "")
        needs = RULE_CHECKS.get(check)
        if needs is None:
            errors.append(f"{where}: unknown check {check!r} (one of {', '.join(RULE_CHECKS)})")
            continue
        missing = [k for k in needs if k not in rule]
        if check not in ("required", "sentence") and "field" not in rule:
            missing.insert(0, "field")
        if missing:
            errors.append(f"{where}: check {check} needs {', '.join(missing)}")
            continue
        for path in [rule.get("field"), *rule.get("fields", [])]:
            if isinstance(path, str):
                errors += _answer_path(step, path, where)
        for key in ("of", "to", "equals"):
            value = rule.get(key)
            if isinstance(value, str):
                errors += _operand(step, value, f"{where}.{key}", inputs, earlier)
        if check == "pattern":
            errors += _regex(rule["pattern"], where)
        if check == "sentence" and check_for(str(rule["text"]))["kind"] == "manual":
            errors.append(
                f"{where}: no program can check {rule['text']!r}: keep it in the prompt "
                "(sentences it can check: line or sentence length, forbidden words or phrases, "
                "CJK spacing, full-width punctuation)"
            )
    return errors


def _operand(
    step: LlmStep, value: str, where: str, inputs: dict[str, Input], earlier: dict[str, Step]
) -> list[str]:
    if value.startswith("input.") or ".output" in value:
        return reference(value.replace("[]", ""), where, inputs, earlier)
    return _answer_path(step, value, where)


def _answer_path(step: LlmStep, path: str, where: str) -> list[str]:
    parts = [p for p in path.replace("[]", "").split(".") if p]
    problems = _schema_path(step.schema, parts, path, step.name)
    return [f"{where}: {p}" for p in problems]


def _regex(pattern: str, where: str) -> list[str]:
    try:
        re.compile(pattern)
    except re.error as exc:
        return [f"{where}.pattern: not a regular expression: {exc}"]
    return []


# -- samples ---------------------------------------------------------------------------------


def sample_problems(pipeline: Pipeline, where: str) -> list[str]:
    errors: list[str] = []
    declared = {i.name: i for i in pipeline.input}
    given = pipeline.sample.input
    if given is not None:
        at = f"{where}.sample.input"
        for name, value in given.items():
            item = declared.get(name)
            if item is None:
                errors.append(f"{at}: {name!r} is not an input of the pipeline")
            elif value is not None and not is_type(value, item.type):
                errors.append(f"{at}.{name}: {value!r} is not {item.type}")
            elif not item.allows(value):
                errors.append(f"{at}.{name}: {value!r} is not one of {item.enum}")
        for name, item in declared.items():
            if item.required and item.default is None and name not in given:
                errors.append(f"{at}: required input {name!r} has no sample value")
    for name in pipeline.sample.files:
        if name in _RESERVED:
            errors.append(f"{where}.sample.files: {name!r} is a file app-convert writes there")
    llm = {s.name: s for s in pipeline.steps if isinstance(s, LlmStep)}
    for name, answer in pipeline.sample.answers.items():
        at = f"{where}.sample.answers.{name}"
        step = llm.get(name)
        if step is None:
            errors.append(f"{at}: no llm step {name!r} in this pipeline")
        elif step.schema is not None:
            errors += [f"{at}: {m}" for m in _schema_errors(answer, step.schema)]
    return errors


def _schema_errors(value: Any, schema: dict[str, Any]) -> list[str]:
    import jsonschema

    try:
        validator = jsonschema.Draft202012Validator(schema)
        found = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except jsonschema.SchemaError:
        return []  # reported with the step's schema
    return [e.message for e in found[:3]]


def earlier_steps(pipeline: Pipeline, before: int) -> dict[str, Step]:
    return {s.name: s for s in pipeline.steps[:before]}


def written_problems(step: CodeStep, at: str) -> list[str]:
    """A written Python step must compile and define every name it reads (``names.py``); a
    node one that is an ES module (``import``/``export``: rendered ``.mjs``) cannot call
    ``require()`` (round 35: every run crashed).  Their syntax is checked by verify, which
    runs each language's own checker."""
    assert step.write is not None
    called = _REQUIRE.search(step.write.source) if step.write.language == "node" else None
    if called and step.write.suffix == ".mjs" and "createRequire" not in step.write.source:
        line = step.write.source[: called.start()].count("\n") + 1
        return [
            f"{at}.write.source: line {line}: require() in an ES module (it uses import or "
            "export, so it runs as .mjs, where require is not defined): import it instead"
        ]
    if step.write.language != "python":
        return []
    try:
        compile(step.write.source, f"{step.name}.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [f"{at}.write.source: line {exc.lineno or 0}: does not compile: {exc.msg}"]
    except (ValueError, RecursionError, MemoryError) as exc:
        return [f"{at}.write.source: does not compile: {type(exc).__name__}"]
    return [
        f"{at}.write.source: line {line}: name {name!r} is never defined (a NameError when "
        "that line runs): define it, import it or fix its spelling"
        for name, line in undefined_names(step.write.source)[:5]
    ]
