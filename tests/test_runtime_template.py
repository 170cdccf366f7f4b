"""Prompt templates (spec 4.2): ``{{s.output}}`` JSON-serialised, ``{{s.output.field}}``,
``{{input.p}}``; one pass of substitution, so substituted values are data, never template."""

from __future__ import annotations

import json

import pytest

from skill2app.runtime.errors import TemplateError
from skill2app.runtime.run.template import (
    BadReference,
    Reference,
    parse_reference,
    references,
    render,
)

INPUTS = {"topic": "caching", "n": 3, "tags": ["a", "b"]}
STEPS = {
    "fetch": {"files": ["app.py", "db.py"], "meta": {"lines": 12, "author": "Zoë"}},
    "plain": "just text",
    "empty": None,
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("Topic: {{input.topic}}", "Topic: caching"),
        ("{{ input.topic }}", "caching"),
        ("n={{input.n}}", "n=3"),
        ("{{input.tags}}", json.dumps(["a", "b"], indent=2)),
        ("{{input}}", json.dumps(INPUTS, indent=2)),
        ("{{fetch.output}}", json.dumps(STEPS["fetch"], indent=2, ensure_ascii=False)),
        ("{{fetch.output.files}}", '[\n  "app.py",\n  "db.py"\n]'),
        ("{{fetch.output.files.1}}", "db.py"),
        ("{{fetch.output.meta.lines}}", "12"),
        ("by {{fetch.output.meta.author}}", "by Zoë"),
        ("{{plain.output}}", "just text"),
        ("{{empty.output}}", "null"),
        ("no placeholders {here}", "no placeholders {here}"),
        ("{{input.topic}}/{{input.topic}}", "caching/caching"),
    ],
)
def test_render(template: str, expected: str) -> None:
    assert render(template, INPUTS, STEPS, "ask") == expected


@pytest.mark.parametrize(
    "value",
    [
        "{{steps.x.output}}",
        "{{fetch.output}}",
        "{{input.topic}}",
        "{{ nonsense }}",
        "{{{{fetch.output.files.0}}}}",
    ],
)
def test_substituted_values_are_never_read_as_template(value: str) -> None:
    inputs = {"q": value}
    steps = {"echo": {"said": value}}
    assert render("Q: {{input.q}}", inputs, steps) == f"Q: {value}"
    assert render("{{echo.output.said}}!", inputs, steps) == f"{value}!"


def test_a_value_in_json_keeps_its_braces_literal() -> None:
    steps = {"echo": {"said": "{{input.q}}"}}
    assert render("{{echo.output}}", {"q": "secret"}, steps) == '{\n  "said": "{{input.q}}"\n}'


@pytest.mark.parametrize(
    ("template", "expected_error"),
    [
        (
            "{{fetch.output.missing}}",
            "prompt refers to {{fetch.output.missing}} but fetch.output has no 'missing'",
        ),
        (
            "{{fetch.output.meta.size}}",
            "prompt refers to {{fetch.output.meta.size}} but fetch.output.meta has no 'size'",
        ),
        (
            "{{fetch.output.files.2}}",
            "prompt refers to {{fetch.output.files.2}} but fetch.output.files has no '2'",
        ),
        (
            "{{fetch.output.files.x}}",
            "prompt refers to {{fetch.output.files.x}} but fetch.output.files has no 'x'",
        ),
        ("{{plain.output.x}}", "prompt refers to {{plain.output.x}} but plain.output has no 'x'"),
        ("{{input.nope}}", "prompt refers to {{input.nope}} but input has no 'nope'"),
        ("{{later.output}}", "prompt refers to {{later.output}} but step 'later' has not run"),
        ("{{fetch}}", "{{fetch}} must be {{input.<name>}} or {{<step>.output}}"),
        ("{{fetch.result}}", "{{fetch.result}} must be {{input.<name>}} or {{<step>.output}}"),
        ("{{ the user }}", "{{the user}} is not a reference"),
        ("{{fetch.output..x}}", "{{fetch.output..x}} is not a reference"),
    ],
)
def test_render_errors_name_the_placeholder(template: str, expected_error: str) -> None:
    with pytest.raises(TemplateError) as caught:
        render(template, INPUTS, STEPS, "ask")
    assert caught.value.message == expected_error
    assert caught.value.step == "ask"


def test_references_lists_every_placeholder_with_its_offset() -> None:
    template = "A {{input.topic}}\nB {{fetch.output.files.0}}\nC {{bad ref}}"
    found = references(template)
    assert found[:2] == [
        Reference("input.topic", "input", ("topic",), 2),
        Reference("fetch.output.files.0", "fetch", ("files", "0"), 20),
    ]
    assert isinstance(found[2], BadReference) and found[2].offset == 47


def test_parse_reference_roots() -> None:
    assert parse_reference("input").is_input and parse_reference("input").path == ()
    assert parse_reference("s-1.output").root == "s-1"
    with pytest.raises(BadReference):
        parse_reference("input.a b")
