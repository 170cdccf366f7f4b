"""templates.environment(): the one Jinja environment, its settings and its filters."""

from __future__ import annotations

import subprocess
import sys

import jinja2
import jinja2.sandbox
import pytest
import yaml
from ruamel.yaml import YAML

from skill2app.templates import TEMPLATES_DIR, app_ref, comment, environment, tojson, yaml_str


@pytest.mark.parametrize("sandboxed", [False, True])
def test_settings(sandboxed: bool) -> None:
    env = environment(sandboxed=sandboxed)
    assert isinstance(env, jinja2.sandbox.SandboxedEnvironment) == sandboxed
    assert env.undefined is jinja2.StrictUndefined
    text = "{% if x %}\n  {% for i in x %}\n{{ i }}\n  {% endfor %}\n{% endif %}\n"
    assert env.from_string(text).render(x=[1, 2]) == "1\n2\n"  # trim_blocks, lstrip_blocks
    assert env.from_string("a\n").render() == "a\n"  # keep_trailing_newline
    assert env.from_string("{{ '<&>' }}").render() == "<&>"  # no HTML autoescape
    for name in ("tojson", "yaml_str", "sh_quote", "app_ref", "comment"):
        assert name in env.filters


@pytest.mark.parametrize("sandboxed", [False, True])
def test_undefined_variables_are_errors(sandboxed: bool) -> None:
    with pytest.raises(jinja2.UndefinedError):
        environment(sandboxed=sandboxed).from_string("{{ missing }}").render()


def test_the_sandbox_refuses_unsafe_attributes() -> None:
    env = environment(sandboxed=True)
    with pytest.raises(jinja2.exceptions.SecurityError):
        env.from_string("{{ ''.__class__.__mro__[1].__subclasses__() }}").render()


def test_templates_load_from_the_package_folder() -> None:
    env = environment()
    assert TEMPLATES_DIR.name == "templates"
    assert "new/step/code.py.j2" in env.list_templates()


def test_importing_templates_does_not_import_jinja2() -> None:
    code = "import sys, templates; print('jinja2' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


def test_tojson_is_deterministic_and_keeps_non_ascii() -> None:
    assert tojson({"b": 1, "a": "ü <&>"}) == '{"a": "ü <&>", "b": 1}'
    assert tojson({"b": 1, "a": 2}, sort_keys=False) == '{"b": 1, "a": 2}'
    assert tojson([1], indent=2) == "[\n  1\n]"


TRICKY = [
    "",
    "plain",
    "yes",
    "null",
    "1.0",
    "~",
    "a: b",
    "#not a comment",
    "- item",
    "'",
    '"',
    "\\",
    "{{step.output}}",
    "tab\there",
    "new\nline",
    "cr\rhere",
    "\x00\x07\x1b",
    "\x7f",
    "\x85",
    "\u2028\u2029",
    "\ufeff",
    "ü 中文 😀",
    " padded ",
    "%YAML",
    "*alias",
    "&anchor",
    "!tag",
]


@pytest.mark.parametrize("value", TRICKY, ids=[repr(v) for v in TRICKY])
def test_yaml_str_reads_back_unchanged(value: str) -> None:
    text = f"key: {yaml_str(value)}\n"
    assert yaml.safe_load(text) == {"key": value}
    assert YAML(typ="safe").load(text) == {"key": value}
    assert "\n" not in yaml_str(value)


def test_app_ref_and_comment() -> None:
    assert app_ref("fetch.output") == "{{fetch.output}}"
    assert comment("a\n\nb") == "# a\n#\n# b"
    assert comment("a", prefix="// ") == "// a"


def test_sh_quote_filter() -> None:
    assert environment().from_string("{{ x | sh_quote }}").render(x='"it\'s"') == "'\"it'\"'\"'s\"'"
