"""Name and text validation: what app-new accepts before it plans a single file.

APP and pipeline names are lowercase-hyphenated (``code-review``) as the Agent Skills standard
asks for ``name``; step and input names are snake_case (``fetch_diff``) because prompts refer
to them as ``{{fetch_diff.output}}`` and ``{{input.pr_number}}``.
"""

from __future__ import annotations

import re

from skill2app.scaffold.errors import InvalidName

HYPHEN_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
SNAKE_NAME = re.compile(r"[a-z][a-z0-9_]*")
# What app-run accepts for step and input names in an existing pipeline.yaml.
EXISTING_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
XML_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(\s[^<>]*)?/?>")

MAX_NAME = 64
MAX_DESCRIPTION = 1024

# Agent Skills: a skill name may not contain these words.
RESERVED_APP_WORDS = ("anthropic", "claude")
# The lifecycle pipelines have their own command (`app-new constructor|destructor`).
RESERVED_PIPELINES = frozenset({"constructor", "destructor"})
# A step named like the prompt roots would shadow them: `{{input.x}}`, `{{steps...}}`.
RESERVED_STEPS = frozenset({"input", "output", "steps"})


def app_name(name: str) -> str:
    """Return ``name`` if it is a valid APP name (the SKILL.md ``name``), else raise."""
    _hyphenated(name, "APP")
    for word in RESERVED_APP_WORDS:
        if word in name.split("-"):
            raise InvalidName(
                f"APP name {name!r} contains the reserved word {word!r}",
                hint="Agent Skills reserve it; pick another name",
            )
    return name


def pipeline_name(name: str) -> str:
    """Return ``name`` if it is a valid business pipeline name, else raise."""
    _hyphenated(name, "pipeline")
    if name in RESERVED_PIPELINES:
        raise InvalidName(
            f"pipeline name {name!r} is reserved",
            hint=f"use `app-new {name} APP_DIR` for the _{name} pipeline, or pick another name",
        )
    return name


def step_name(name: str) -> str:
    """Return ``name`` if it is a valid step name, else raise."""
    _snake(name, "step")
    if name in RESERVED_STEPS:
        raise InvalidName(
            f"step name {name!r} is reserved",
            hint="prompts use `{{input.x}}`; pick another name, e.g. 'read_" + name + "'",
        )
    return name


def input_name(name: str) -> str:
    """Return ``name`` if it is a valid pipeline input parameter name, else raise."""
    return _snake(name, "input")


def description(text: str, *, what: str = "description") -> str:
    """Return ``text`` stripped if it is a usable Agent Skills / pipeline description."""
    text = text.strip()
    if not text:
        raise InvalidName(f"the {what} is empty", hint="say what it does and when to use it")
    if len(text) > MAX_DESCRIPTION:
        raise InvalidName(
            f"the {what} is {len(text)} characters long",
            hint=f"Agent Skills allow at most {MAX_DESCRIPTION}; shorten it",
        )
    if XML_TAG.search(text):
        raise InvalidName(
            f"the {what} contains an XML tag", hint="Agent Skills forbid them; remove the <...>"
        )
    return text


def _hyphenated(name: str, kind: str) -> str:
    if not HYPHEN_NAME.fullmatch(name):
        raise InvalidName(
            f"{kind} name {name!r} is not lowercase-hyphenated",
            hint="use a-z, 0-9 and single hyphens between words, e.g. 'code-review'",
        )
    return _short(name, kind)


def _snake(name: str, kind: str) -> str:
    if not SNAKE_NAME.fullmatch(name):
        raise InvalidName(
            f"{kind} name {name!r} is not snake_case",
            hint="start with a-z, then use a-z, 0-9 and '_', e.g. 'fetch_diff'",
        )
    return _short(name, kind)


def _short(name: str, kind: str) -> str:
    if len(name) > MAX_NAME:
        raise InvalidName(
            f"{kind} name is {len(name)} characters long",
            hint=f"use at most {MAX_NAME} characters",
        )
    return name
