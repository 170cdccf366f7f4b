"""What the user asked for, parsed: pipeline inputs (``name:type``) and steps (``name:code``).

``--input`` takes ``name[:type]`` where type is a JSON type (default ``string``).
``--step`` takes ``name[:code|llm[:variant]]`` where the variant is the language of a code step
(python, bash, node; default python) or the tier of an llm step (lite, standard, reasoning;
default standard).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from skill2app.runtime.run.inputs import OPTIONAL, TYPES, base_type
from skill2app.scaffold import names
from skill2app.scaffold.errors import UsageError

INPUT_TYPES = TYPES  # each may end in OPTIONAL (`string?`: an optional input, app-run)
STEP_TYPES = ("code", "llm")
TIERS = ("lite", "standard", "reasoning")
# language -> (file suffix, interpreter used in the step's `command`)
LANGS: dict[str, tuple[str, str]] = {
    "python": (".py", "python3"),
    "bash": (".sh", "bash"),
    "node": (".mjs", "node"),
}
_SAMPLES: dict[str, Any] = {
    "integer": 1,
    "number": 1.5,
    "boolean": True,
    "array": [],
    "object": {},
}


@dataclass(frozen=True)
class InputSpec:
    name: str
    type: str = "string"

    @property
    def sample(self) -> Any:
        """A placeholder value of the right type for samples/input.json."""
        return _SAMPLES.get(base_type(self.type), f"example {self.name}")


@dataclass(frozen=True)
class StepSpec:
    name: str
    type: str = "code"
    lang: str = "python"  # code steps only
    tier: str = "standard"  # llm steps only

    @property
    def script(self) -> str:
        """The stub of a code step, relative to the pipeline folder."""
        return f"steps/{self.name}{LANGS[self.lang][0]}"

    @property
    def command(self) -> str:
        return f"{LANGS[self.lang][1]} {self.script}"

    @property
    def schema(self) -> str:
        return f"schemas/{self.name}.json"

    @property
    def validate(self) -> str:
        return f"steps/validate_{self.name}.py"


def step(name: str, type_: str = "code", *, lang: str | None = None, tier: str | None = None):
    """Build a checked ``StepSpec``; ``lang`` only for code steps, ``tier`` only for llm."""
    names.step_name(name)
    _one_of(type_, STEP_TYPES, "step type")
    if type_ == "code":
        if tier is not None:
            raise UsageError("--tier is for llm steps", hint="drop --tier or use --type llm")
        return StepSpec(name, "code", lang=_one_of(lang or "python", tuple(LANGS), "language"))
    if lang is not None:
        raise UsageError("--lang is for code steps", hint="drop --lang or use --type code")
    return StepSpec(name, "llm", tier=_one_of(tier or "standard", TIERS, "tier"))


def parse_step(text: str) -> StepSpec:
    """``fetch`` / ``fetch:code`` / ``fetch:code:bash`` / ``judge:llm:reasoning``."""
    parts = text.split(":")
    if len(parts) > 3 or not parts[0]:
        raise UsageError(
            f"--step {text!r} is not name[:code|llm[:variant]]",
            hint="e.g. --step fetch_diff:code:bash --step analyze:llm:standard",
        )
    type_ = parts[1] if len(parts) > 1 else "code"
    variant = parts[2] if len(parts) > 2 else None
    if type_ == "code":
        return step(parts[0], "code", lang=variant)
    return step(parts[0], type_, tier=variant)


def parse_input(text: str) -> InputSpec:
    """``repo`` / ``repo:string`` / ``pr_number:integer`` / ``limit:integer?`` (optional)."""
    name, _, type_ = text.partition(":")
    names.input_name(name)
    base = _one_of(base_type(type_ or "string"), INPUT_TYPES, "input type")
    return InputSpec(name, base + OPTIONAL * type_.endswith(OPTIONAL))


def unique(items: Iterable[InputSpec | StepSpec], what: str) -> None:
    """Raise if two inputs (or two steps) share a name."""
    seen: set[str] = set()
    for item in items:
        if item.name in seen:
            raise UsageError(f"{what} {item.name!r} is given twice", hint="use each name once")
        seen.add(item.name)


def _one_of(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise UsageError(f"unknown {what} {value!r}", hint="use one of: " + ", ".join(allowed))
    return value
