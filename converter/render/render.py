"""Render a conversion plan into the files of an APP.  Pure: nothing is read or written here.

``render_app(plan, inventory)`` returns every generated file (relative POSIX path, text,
executable bit), sorted by path; all text comes from ``templates/convert/`` through the one
Jinja environment, sandboxed because prompts, descriptions and rules come from the skill::

    README.md (or APP.md)                   how to run the APP (never a skill file)
    pipelines/<pipeline>/pipeline.yaml      routing info, inputs, steps
    pipelines/<pipeline>/steps/<step>.py    code step: an adapter that runs the skill's program
    pipelines/<pipeline>/steps/<step>.py|.sh|.mjs    written step: the analyst's own program
    pipelines/<pipeline>/schemas/<step>.json         llm step: JSON Schema of the answer
    pipelines/<pipeline>/steps/validate_<step>.py    llm step with rules: content checks
    pipelines/<pipeline>/samples/input.json, answers.yaml   run it offline at once
    pipelines/_constructor/..., pipelines/_destructor/...   when the plan asks for them

Generated Python embeds its data (argv mapping: ``adapter.py``; the constructor's checks:
``checks.py``) as a Python literal (``py_literal``) so the template stays one file per kind
and the output passes ruff.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from skill2app.converter.errors import RenderError, Where
from skill2app.converter.marker import MARKER
from skill2app.converter.plan.fixtures import FIXTURES, with_fixtures
from skill2app.converter.plan.model import CodeStep, Input, LlmStep, Pipeline, Plan, Written
from skill2app.converter.plan.rules import check_for, checks_for
from skill2app.converter.plan.samples import Samples, pipeline_samples, sample_answer
from skill2app.converter.render.adapter import adapter_spec, strict_choices
from skill2app.converter.render.checks import constructor_checks
from skill2app.converter.render.literals import one_line, py_literal, yaml_block
from skill2app.runtime.records.display import terminal_safe
from skill2app.runtime.records.prerequisites import AFTER_FILE, after_json

if TYPE_CHECKING:
    import jinja2

    from skill2app.converter.inventory.model import Inventory

README_NAMES = ("README.md", "APP.md")
RUNS = {"python": "python3", "bash": "bash", "node": "node"}  # written steps: their command
COMMENT = {"python": "# ", "bash": "# ", "node": "// "}
SHEBANG = {
    "python": "#!/usr/bin/env python3",
    "bash": "#!/usr/bin/env bash",
    "node": "#!/usr/bin/env node",
}
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
DATA_ROLES = ("context", "other")


@dataclass(frozen=True)
class RenderedFile:
    path: str  # relative to the APP folder, POSIX
    content: str | bytes  # bytes: a binary sample fixture (samples/one-page.pdf)
    executable: bool = False

    @property
    def text(self) -> str:
        """The content of a text file ("" for a binary one)."""
        return self.content if isinstance(self.content, str) else ""


def render_app(
    plan: Plan, inventory: Inventory, *, readme: str = "README.md"
) -> list[RenderedFile]:
    """Every file of the APP that ``plan`` describes; ``readme``: README.md, APP.md or ""."""
    from skill2app.templates import environment

    env = environment(sandboxed=True)
    data_files = [f.path for f in inventory.files if f.role in DATA_ROLES]
    files: list[RenderedFile] = []
    contexts = []
    for pipeline in plan.pipelines:
        context = pipeline_context(pipeline, data_files, strict_choices(pipeline, inventory))
        contexts.append(context)
        files += _pipeline_files(env, plan, pipeline, context, inventory)
    files += _lifecycle_files(env, plan, inventory)
    if readme:
        files.append(RenderedFile(readme, _readme(env, plan, contexts)))
    paths = [f.path for f in files]
    clash = next((p for p in paths if paths.count(p) > 1), None)
    if clash:
        raise RenderError(
            f"two generated files would be {clash}",
            hint="rename a step in the plan (a code step validate_X clashes with llm step X)",
        )
    return sorted(files, key=lambda f: f.path)


def pipeline_context(
    pipeline: Pipeline, data_files: list[str], choices: dict[str, list[str]] | None = None
) -> dict[str, Any]:
    """What the templates need to know about one pipeline (``choices``: the values each input
    must take, where the program says so)."""
    choices = choices or {}
    steps = [_step_context(step) for step in pipeline.steps]
    inputs = [_input_context(i, choices.get(i.name, [])) for i in pipeline.input]
    given = pipeline.sample.input  # the plan's own sample, else the heuristic's
    heuristic = pipeline_samples(pipeline, data_files) if given is None else Samples()
    sample, fixtures = with_fixtures(
        dict(given) if given is not None else heuristic.inputs,
        pipeline.name,
        set(pipeline.sample.files),
    )
    return {
        "name": pipeline.name,
        "description": pipeline.description,
        "triggers": pipeline.triggers,
        "inputs": inputs,
        "optional": [i for i in inputs if not i["required"]],
        "steps": steps,
        "output": pipeline.output or pipeline.steps[-1].name,
        "source": pipeline.source,
        "has_llm": any(s["type"] == "llm" for s in steps),
        "sample": sample,
        "fixtures": fixtures,
        "fixture_files": heuristic.files,
        "placeholders": heuristic.placeholders,
    }


def typed(values: list[str], kind: str) -> list[Any]:
    """A program's choices as an input of type ``kind`` holds them (argparse ``type=int,
    choices=[0, 1, 2]``: the integers); as they are when one does not read as that type."""
    if kind not in ("integer", "number"):
        return list(values)
    try:
        numbers = [int(v) if kind == "integer" else float(v) for v in values]
    except ValueError:
        return list(values)
    return list(dict.fromkeys(numbers))  # "1" and "1.0" are one number


def _input_context(item: Input, choices: list[str]) -> dict[str, Any]:
    """One input as pipeline.yaml declares it: ``name: type`` (``type?`` when optional), or
    the long form (app-run extension) when it has a description, allowed values or a default:
    what agents see (MCP tools, needs_input) and what app-run checks before any step runs."""
    enum = list(item.enum) if item.enum else typed(choices, item.type)
    described = one_line(item.description)
    long: dict[str, Any] = {"type": item.type}
    if not item.required and item.default is None:
        long["required"] = False
    if item.default is not None:
        long["default"] = item.default
    if enum and item.type == "array":  # an input's enum holds whole values: say the items'
        each = ", ".join(str(v) for v in enum)
        described = f"{described} (each one of: {each})" if described else f"each one of: {each}"
    elif enum:
        long["enum"] = enum
    if described:
        long["description"] = described
    return {
        "name": item.name,
        "type": item.type + ("" if item.required else "?"),  # `string?`: optional (app-run)
        "required": item.required,
        "default": item.default,
        "description": described,
        "enum": [] if item.type == "array" else enum,
        "long": (
            [(key, _flow(value)) for key, value in long.items()]
            if set(long) - {"type", "required"}
            else None
        ),
    }


def _flow(value: Any) -> str:
    """``value`` as one line of YAML (flow style) that reads back as the same value."""
    from skill2app.templates import yaml_str

    if isinstance(value, str):
        return yaml_str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{yaml_str(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _step_context(step: CodeStep | LlmStep) -> dict[str, Any]:
    if isinstance(step, CodeStep):
        command = f"python3 steps/{step.name}.py"
        if step.write is not None:
            command = f"{RUNS[step.write.language]} steps/{step.name}{step.write.suffix}"
        return {
            "name": step.name,
            "type": "code",
            "command": command,
            "program": step.program,
            "written": step.write is not None,
            "subcommand": step.subcommand,
            "stdin": step.stdin.to_dict() if step.stdin else None,
        }
    block, chomp = yaml_block(step.prompt)
    return {
        "name": step.name,
        "type": "llm",
        "model": step.model,
        "prompt": step.prompt,
        "block": block,
        "chomp": chomp,
        "body": step.prompt.rstrip("\n"),
        "schema": f"schemas/{step.name}.json" if step.schema is not None else "",
        "validate": f"steps/validate_{step.name}.py" if rule_checks(step) else "",
        "retry": step.retry,
    }


def _pipeline_files(
    env: jinja2.Environment,
    plan: Plan,
    pipeline: Pipeline,
    context: dict[str, Any],
    inventory: Inventory,
) -> list[RenderedFile]:
    base = f"pipelines/{pipeline.name}"
    common = {"skill": plan.app_name, "pipeline": pipeline.name, "analyzer": plan.analyzer}
    text = env.get_template("convert/pipeline.yaml.j2").render(
        p=context, skill=plan.app_name, analyzer=plan.analyzer
    )
    _check_yaml(text, pipeline, f"{base}/pipeline.yaml")
    files = [RenderedFile(f"{base}/pipeline.yaml", text)]
    sample = context["sample"]
    files.append(
        RenderedFile(
            f"{base}/samples/input.json",
            env.get_template("convert/samples/input.json.j2").render(sample=sample),
        )
    )
    for name in context["fixtures"]:  # real sample data of the right kind
        files.append(RenderedFile(f"{base}/samples/{name}", FIXTURES[name]()))
    files += [RenderedFile(path, data) for path, data in sorted(context["fixture_files"].items())]
    for name, text in sorted(pipeline.sample.files.items()):  # the plan's own sample files
        files.append(RenderedFile(f"{base}/samples/{name}", text))
    if pipeline.sample.skip or context["placeholders"]:  # app-run test and smoke: not run
        placeholders = {"inputs": context["placeholders"]}
        placeholders |= {"why": pipeline.sample.skip} if pipeline.sample.skip else {}
        text = env.get_template("convert/samples/placeholders.json.j2").render(
            placeholders=placeholders
        )
        files.append(RenderedFile(f"{base}/samples/placeholders.json", text))
    if pipeline.sample.after:  # app-run test runs these samples first (prerequisites.py)
        text = after_json(pipeline.sample.after)
        files.append(RenderedFile(f"{base}/samples/{AFTER_FILE}", text))
    answers = []
    for step in pipeline.steps:
        if isinstance(step, CodeStep) and step.write is not None:
            files.append(_written_file(env, step.write, step.name, base, common))
            continue
        if isinstance(step, CodeStep):
            spec = adapter_spec(step, pipeline, inventory)
            content = env.get_template("convert/step/adapter.py.j2").render(
                step=step.name,
                spec=py_literal(spec, prefix="SPEC = "),
                stdin="stdin" in spec,
                environment="env" in spec,
                saves=any(arg.get("saves") for arg in spec["args"]),
                **common,
            )
            files.append(RenderedFile(f"{base}/steps/{step.name}.py", content, executable=True))
            continue
        given = pipeline.sample.answers
        answer = given[step.name] if step.name in given else None
        if step.name not in given:
            answer = sample_answer(step.schema, step.name, sample)
        answer = with_fixtures({"answer": answer}, pipeline.name, set(pipeline.sample.files))[0][
            "answer"
        ]
        answers.append({"key": f"{pipeline.name}/{step.name}", "answer": answer})
        files += _llm_files(env, step, base, common)
    if answers:
        template = env.get_template("convert/samples/answers.yaml.j2")
        files.append(
            RenderedFile(f"{base}/samples/answers.yaml", template.render(answers=answers, **common))
        )
    return files


def _llm_files(
    env: jinja2.Environment, step: LlmStep, base: str, common: dict[str, str]
) -> list[RenderedFile]:
    files = []
    if step.schema is not None:
        schema = {"$schema": SCHEMA_DRAFT, "title": f"Answer of step {step.name}"}
        schema.update({k: v for k, v in step.schema.items() if k != "$schema"})
        content = env.get_template("convert/step/schema.json.j2").render(schema=schema)
        files.append(RenderedFile(f"{base}/schemas/{step.name}.json", content))
    checks_found = rule_checks(step)
    if checks_found:
        checks = py_literal(checks_found, prefix="CHECKS = ")
        content = env.get_template("convert/step/validate.py.j2").render(
            step=step.name, checks=checks, **common
        )
        files.append(RenderedFile(f"{base}/steps/validate_{step.name}.py", content, True))
    return files


def rule_checks(step: LlmStep) -> list[dict[str, Any]]:
    """What the step's validate script checks: its structured rules, and the sentences a
    program can check; a sentence that stays prose (``manual``) is left to the prompt, never
    rendered as a check that cannot fail."""
    sentences = checks_for([r for r in step.rules if isinstance(r, str)])
    structured = []
    for rule in step.rules:
        if isinstance(rule, dict) and rule.get("check") == "sentence":  # scoped to its field
            scoped = check_for(str(rule["text"]))
            structured.append({**scoped, **({"field": rule["field"]} if "field" in rule else {})})
        elif isinstance(rule, dict):
            structured.append(dict(rule))
    return [c for c in sentences if c["kind"] != "manual"] + structured


def _written_file(
    env: jinja2.Environment, write: Written, step: str, base: str, common: dict[str, str]
) -> RenderedFile:
    """A written step's program: the analyst's source under a header saying what it is."""
    source = write.source.rstrip("\n")
    first, _, rest = source.partition("\n")
    shebang, body = (first, rest.lstrip("\n")) if first.startswith("#!") else ("", source)
    header = textwrap.fill(
        f"Step `{step}` of pipeline `{common['pipeline']}` of the skill {common['skill']}: "
        f"a written step ({MARKER}, analyzer: {common['analyzer']}). It follows the APP step "
        'contract: {"input": {...}, "steps": {...}} as JSON on stdin, {"output": ...} as JSON '
        "on stdout, a non-zero exit status with a message on stderr when it fails. Edit it "
        "here, or in the plan and run app-convert again.",
        width=92,
    )
    content = env.get_template("convert/step/written.j2").render(
        shebang=shebang or SHEBANG[write.language],
        header=header,
        prefix=COMMENT[write.language],
        body=body,
    )
    return RenderedFile(f"{base}/steps/{step}{write.suffix}", content, executable=True)


def _lifecycle_files(
    env: jinja2.Environment, plan: Plan, inventory: Inventory
) -> list[RenderedFile]:
    files = []
    if plan.constructor.needed:
        base = "pipelines/_constructor"
        context = {"skill": plan.app_name, "reason": one_line(plan.constructor.reason)}
        checks = constructor_checks(plan, inventory)
        files += [
            RenderedFile(
                f"{base}/pipeline.yaml",
                env.get_template("convert/lifecycle/constructor.yaml.j2").render(**context),
            ),
            RenderedFile(
                f"{base}/steps/check_environment.py",
                env.get_template("convert/lifecycle/check_environment.py.j2").render(
                    checks=py_literal(checks, prefix="CHECKS = "), **context
                ),
                executable=True,
            ),
        ]
    if plan.destructor.needed:
        base = "pipelines/_destructor"
        context = {"skill": plan.app_name, "reason": one_line(plan.destructor.reason)}
        actions = [a.to_dict() for a in plan.destructor.actions]
        files += [
            RenderedFile(
                f"{base}/pipeline.yaml",
                env.get_template("convert/lifecycle/destructor.yaml.j2").render(**context),
            ),
            RenderedFile(
                f"{base}/steps/cleanup.py",
                env.get_template("convert/lifecycle/cleanup.py.j2").render(
                    actions=py_literal(actions, prefix="ACTIONS = "), **context
                ),
                executable=True,
            ),
        ]
    return files


def _readme(env: jinja2.Environment, plan: Plan, contexts: list[dict[str, Any]]) -> str:
    """The APP's README, every line terminal-safe: it quotes the skill's own words (a
    docstring holding ``\x1b]0;pwned\x07`` retitled the window of whoever ran `cat
    README.md`), and those are escaped, not obeyed."""
    constructor = plan.constructor.checks if plan.constructor.needed else []
    destructor = plan.destructor.actions if plan.destructor.needed else []
    text = env.get_template("convert/README.md.j2").render(
        marker=MARKER,
        skill=plan.app_name,
        analyzer=plan.analyzer,
        description=plan.app_description.strip(),
        pipelines=contexts,
        constructor=constructor,
        destructor=destructor,
        skill_mode=plan.skill_mode,
    )
    return "\n".join(terminal_safe(line) for line in text.split("\n"))


def _check_yaml(text: str, pipeline: Pipeline, path: str) -> None:
    """The rendered pipeline.yaml must read back with the plan's exact text."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RenderError(f"rendered YAML does not parse: {exc}", where=Where(path)) from exc
    prompts = [s.prompt for s in pipeline.steps if isinstance(s, LlmStep)]
    got = [s.get("prompt") for s in data["steps"] if s.get("type") == "llm"]
    same = (
        data["description"] == pipeline.description
        and data.get("triggers", []) == pipeline.triggers
        and got == prompts
    )
    if not same:
        raise RenderError(
            "rendered pipeline.yaml does not read back as the plan says",
            where=Where(path),
            hint="report this bug with the plan (app-convert --plan-only --out plan.yaml)",
        )
