"""The conversion plan: what app-convert will create from a skill, for a person to review.

An analyzer turns an inventory into a ``Plan`` (this module: the model); ``file`` writes
it as YAML (deterministic, block style, no timestamps), a person edits it, ``file`` reads
it back and validates it against ``schemas/plan.schema.json``, and ``check.check_plan`` checks it
against the skill's inventory.  A minimal plan::

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

Plan version 2 (version 1 plans are still read; they are version 2 plans that use none of
this) adds what real skills need:

- a **written step**: a code step whose program the analyst writes, ``write: {language:
  python|bash|node, source: ...}`` instead of ``program`` — for what SKILL.md shows as a
  snippet (pypdf's merge) or glue between programs; it follows the APP contract itself (JSON
  on stdin, ``{"output": ...}`` on stdout);
- **data flow**: ``from: steps.<step>.output.<field>`` (or ``<step>.output.<field>``) in args,
  stdin and prompts, checked against the fields the earlier step declares: ``output:
  {field: type}`` on a code step, its schema's properties on an llm step;
- **exit codes with meaning**: ``ok_exit_codes: [0, 1]`` on a program step — an exit status
  listed there is a result, surfaced as ``exit_code`` in the step's output;
- **validate rules that check something**: an llm step's ``rules`` may be objects
  (``{check: subset, field: values[].id, of: steps.extract.output.fields[].id}``, see
  ``RULE_CHECKS``; ``{check: sentence, text: ..., field: ...}`` scopes a checkable sentence to
  one field) besides sentences; a sentence no program can check stays in the prompt;
- **samples**: ``sample: {input: {...}, answers: {<llm step>: answer}}`` per pipeline, so its
  smoke run uses values that work (``input`` may name ``samples/<fixture>`` files the
  converter creates; ``after: [<pipeline>]``: earlier pipelines whose samples run first, in
  the same folder — the sample reads what theirs make).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

PLAN_VERSION = 2
READ_VERSIONS = (1, 2)
LANGUAGES = {"python": ".py", "bash": ".sh", "node": ".cjs"}  # written steps: file suffix
_ESM = re.compile(r"^\s*(?:import\s+(?:[\w{*].*?\s+from\s+)?['\"]|export\s)", re.M)
OUTPUT_TYPES = ("string", "integer", "number", "boolean", "array", "object")
# Structured validate rules (llm steps): what each ``check`` takes besides ``field``.
RULE_CHECKS = {
    "required": ("fields",),  # these fields are present and not empty
    "subset": ("of",),  # every value at field is among the values at `of`
    "covers": ("of",),  # every value at `of` is among the values (an object: keys) at field
    "count": ("equals",),  # len(field) == that number, the number at `equals`, or its length
    "equals": ("to",),  # the value at field equals the value at `to`
    "pattern": ("pattern",),  # every string at field matches the regular expression
    "enum": ("values",),  # every value at field is one of values
    "max_length": ("limit",),  # every string at field is at most limit characters
    "sentence": ("text",),  # one of the skill's sentences a program can check, at field only
}


def step_ref(ref: str) -> str:
    """``steps.x.output.f`` -> ``x.output.f`` (the runtime's own spelling); others as given."""
    return ref.removeprefix("steps.") if ref.startswith("steps.") else ref


@dataclass
class Arg:
    flag: str = ""  # "" for a positional
    value: Any = None  # a literal; None when unset
    ref: str = ""  # "input.x" / "step.output[.field]" (YAML key `from`)
    pass_as: str = "value"  # value | file | json (YAML key `as`)
    spread: bool = False  # an array after one flag (--set a b) instead of the flag repeated

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
        if self.spread:
            data["spread"] = True
        return data


@dataclass
class StdinFeed:
    """What a code step feeds its program on stdin (YAML: ``stdin: {from: ..., as: ...}``)."""

    ref: str  # "input.x" / "step.output[.field]" (YAML key `from`)
    pass_as: str = "file"  # file: the content of the file it names | text: the value itself

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.ref, "as": self.pass_as}


# Variables a step may not give its program: what decides which code runs or how it loads
# (a shell's options, an interpreter's start-up hooks, where programs, modules and
# certificates are found, proxies), and app-run's own.
RESERVED_ENV = re.compile(
    r"^(?:PATH|HOME|SHELL|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|TMPDIR|"
    r"LD_\w+|DYLD_\w+|PYTHON(?!UNBUFFERED$|IOENCODING$|UTF8$)\w*|NODE_(?!ENV$)\w+|"
    r"npm_config_\w+|PERL5\w*|PERLLIB|RUBY\w*|GEM_\w+|"
    r"JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|GIT_\w+|\w*_PROXY|"
    r"SSL_CERT_\w+|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|APP_\w+)$",
    re.I,
)


@dataclass(frozen=True)
class EnvVar:
    """An environment variable a code step gives its program (YAML: ``env: [{name, from |
    value}]``): what SKILL.md sets before the command (``DOUBAN_USER=<id> python3 x.py``)."""

    name: str
    value: Any = None  # a literal
    ref: str = ""  # "input.x" / "step.output[.field]" (YAML key `from`)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name}
        if self.ref:
            data["from"] = self.ref
        else:
            data["value"] = self.value
        return data


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

    def allows(self, value: Any) -> bool:
        """Whether ``value`` is one of the allowed values (``enum``); of an array input, the
        enum is what each item may be (argparse ``nargs="+", choices=[...]``)."""
        if not self.enum:
            return True
        if self.type == "array" and isinstance(value, list):
            return all(v in self.enum for v in value)
        return value in self.enum


@dataclass
class Written:
    """The program of a written step: the analyst's own code, following the APP contract."""

    language: str  # python | bash | node
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"language": self.language, "source": self.source}

    def imports(self) -> set[str]:
        """The top-level modules a written Python step imports (none for other languages, or
        for source that does not parse)."""
        return {module.split(".")[0] for module in self.modules()}

    def modules(self) -> set[str]:
        """The modules a written Python step imports, dotted in full (``core.gif_builder``)."""
        import ast

        if self.language != "python":
            return set()
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError):
            return set()
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
        return found

    @property
    def suffix(self) -> str:
        """``.py``, ``.sh``; a node program is ``.mjs`` when it is an ES module (import/export
        statements) and ``.cjs`` otherwise, so ``require`` works (``.js`` would depend on the
        package.json found above it)."""
        if self.language == "node":
            return ".mjs" if _ESM.search(self.source) else ".cjs"
        return LANGUAGES.get(self.language, ".txt")


@dataclass
class CodeStep:
    name: str
    program: str  # "" for a written step
    args: list[Arg] = field(default_factory=list)
    subcommand: str = ""
    stdout: str = "text"  # json | text
    type: str = "code"
    stdin: StdinFeed | None = None  # None: the program reads nothing on stdin
    write: Written | None = None  # a written step: its program, instead of the skill's
    ok_exit_codes: list[int] = field(default_factory=list)  # besides 0: results, not failures
    output: dict[str, str] = field(default_factory=dict)  # declared output fields -> type
    env: list[EnvVar] = field(default_factory=list)  # variables the program is given

    @property
    def written(self) -> bool:
        return self.write is not None

    def declared_output(self) -> dict[str, str] | None:
        """The fields of this step's output (None: not declared, so unknown)."""
        fields = dict(self.output)
        if not self.written and self.stdout == "text":
            fields.setdefault("stdout", "string")
        if self.ok_exit_codes:
            fields.setdefault("exit_code", "integer")
            fields.setdefault("stderr", "string")
        return fields if (fields or self.written) else None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": "code"}
        if self.write is not None:
            data["write"] = self.write.to_dict()
        else:
            data["program"] = self.program
            if self.subcommand:
                data["subcommand"] = self.subcommand
            data["args"] = [a.to_dict() for a in self.args]
            if self.stdin is not None:
                data["stdin"] = self.stdin.to_dict()
            if self.env:
                data["env"] = [e.to_dict() for e in self.env]
            data["stdout"] = self.stdout
            if self.ok_exit_codes:
                data["ok_exit_codes"] = list(self.ok_exit_codes)
        if self.output:
            data["output"] = dict(self.output)
        return data


@dataclass
class LlmStep:
    name: str
    prompt: str
    model: str = "standard"
    schema: dict[str, Any] | None = None
    rules: list[Any] = field(default_factory=list)  # sentences, or {check: ..., ...} objects
    retry: int = 2
    type: str = "llm"

    def declared_output(self) -> dict[str, Any] | None:
        """The schema of this step's answer (None: any text)."""
        return self.schema

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
            data["rules"] = copy.deepcopy(self.rules)
        data["retry"] = self.retry
        return data


Step = CodeStep | LlmStep


@dataclass
class Sample:
    """What a pipeline's smoke run and ``app-run test`` use: input values that work, and an
    answer per llm step that the steps after it can use."""

    input: dict[str, Any] | None = None  # None: derived from the inputs (samples.py)
    answers: dict[str, Any] = field(default_factory=dict)
    skip: str = ""  # why no sample can make it run here (a git repository, a login, ...)
    files: dict[str, str] = field(default_factory=dict)  # small text files: samples/<name>
    after: list[str] = field(default_factory=list)  # earlier pipelines whose samples run first

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.input is not None:
            data["input"] = copy.deepcopy(self.input)
        if self.answers:
            data["answers"] = copy.deepcopy(self.answers)
        if self.skip:
            data["skip"] = self.skip
        if self.files:
            data["files"] = dict(self.files)
        if self.after:
            data["after"] = list(self.after)
        return data


@dataclass
class Pipeline:
    name: str
    description: str
    triggers: list[str] = field(default_factory=list)
    input: list[Input] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    output: str = ""
    source: str = ""
    sample: Sample = field(default_factory=Sample)
    probes: list[str] = field(default_factory=list)  # an analyst's test requests (not rendered)

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "triggers": list(self.triggers),
            **({"probes": list(self.probes)} if self.probes else {}),
            "input": [i.to_dict() for i in self.input],
            "steps": [s.to_dict() for s in self.steps],
        }
        if self.output:
            data["output"] = self.output
        if self.source:
            data["source"] = self.source
        sample = self.sample.to_dict()
        if sample:
            data["sample"] = sample
        return data


@dataclass
class Check:
    kind: str  # binary | env | python-package | node-package | file | auth
    name: str
    required: bool = True
    why: str = ""
    where: list[str] = field(default_factory=list)
    pipelines: list[str] | None = None  # the analyst's scope (None: inferred when rendered)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "name": self.name, "required": self.required}
        if self.why:
            data["why"] = self.why
        if self.where:
            data["where"] = list(self.where)
        if self.pipelines is not None:
            data["pipelines"] = list(self.pipelines)
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
