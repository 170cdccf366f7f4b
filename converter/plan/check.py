"""Check a conversion plan against its schema and against the skill it was made from.

Each message names where in the plan it applies (``pipelines[0].steps[1]``) so that a person
editing plan.yaml can find it.  Programs must exist, subcommands and flags must be ones the
program has (declared in its source or shown in SKILL.md), literal values must be among a
flag's choices, references (``input.x``, ``steps.x.output.field``) must resolve to declared
inputs and to fields earlier steps declare (``flow``), and names must be valid and unique.  A
program that SKILL.md always feeds data on stdin must get it (``stdin``), or the step would run
it on nothing.  A written step's Python must compile; an llm step's rules and a pipeline's
sample must fit (``flow``).
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from skill2app.converter.inventory.programs.interface import (
    AUTHORITATIVE,
    Command,
    as_run,
    parse_argv,
)
from skill2app.converter.plan.file import format_path, schema_errors
from skill2app.converter.plan.flow import (
    earlier_steps,
    is_type,
    prompt_references,
    reference,
    rule_problems,
    sample_problems,
    written_problems,
)
from skill2app.converter.plan.model import (
    RESERVED_ENV,
    Check,
    CodeStep,
    Input,
    LlmStep,
    Pipeline,
    Plan,
    Step,
)
from skill2app.runtime.app.secrets import is_secret_name
from skill2app.runtime.run.inputs import path_kind

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory
    from skill2app.converter.inventory.programs.program import Program


def check_plan(plan: Plan, inventory: Inventory) -> list[str]:
    errors = [f"{format_path(p)}: {m}" for p, m in schema_errors(plan.to_dict())]
    seen_names: dict[str, int] = {}
    seen_triggers: dict[str, str] = {}
    for index, pipeline in enumerate(plan.pipelines):
        where = f"pipelines[{index}]"
        if pipeline.name in seen_names:
            errors.append(
                f"{where}.name: {pipeline.name!r} is also pipeline {seen_names[pipeline.name]}"
            )
        seen_names.setdefault(pipeline.name, index)
        for trigger in pipeline.triggers:
            other = seen_triggers.setdefault(trigger.casefold(), pipeline.name)
            if other != pipeline.name:
                errors.append(f"{where}.triggers: {trigger!r} also routes to {other}")
        errors.extend(_pipeline(pipeline, where, inventory))
        errors.extend(_after(pipeline, where, seen_names))
        if plan.analyzer != "heuristic":  # an analyst names its inputs; the draft, the flags
            errors.extend(_named_as_folder(pipeline, where))
    if plan.constructor.needed and not plan.constructor.checks:
        errors.append("constructor: needed is true but there are no checks")
    for index, check in enumerate(plan.constructor.checks):
        errors.extend(_outside_file(check, f"constructor.checks[{index}]", inventory))
        unknown = [n for n in check.pipelines or [] if n not in seen_names]
        if unknown:
            errors.append(
                f"constructor.checks[{index}].pipelines: no pipeline {', '.join(unknown)} in "
                f"the plan (it has {', '.join(seen_names) or 'none'})"
            )
    if plan.destructor.needed and not plan.destructor.actions:
        errors.append("destructor: needed is true but there are no actions")
    return errors


def _after(pipeline: Pipeline, where: str, earlier: dict[str, int]) -> list[str]:
    """``sample.after`` names earlier pipelines of the plan: the smoke run runs the samples
    in the plan's order, and `app-run test` runs those first."""
    errors = []
    for name in pipeline.sample.after:
        if name == pipeline.name:
            errors.append(f"{where}.sample.after: {name!r} is this pipeline")
        elif name not in earlier:
            errors.append(
                f"{where}.sample.after: {name!r} is no earlier pipeline of the plan (samples "
                f"run in the plan's order: put {name} before {pipeline.name})"
            )
    return errors


def _outside_file(check: Check, at: str, inventory: Inventory) -> list[str]:
    """A file check above the skill written as the program that loads it spells it, from its
    own folder (azure-provision's ``../../../lib/browser-forge.mjs`` in ``scripts/``), when
    the file it means is one the inventory knows outside the skill (there or required): the
    check is run from the skill's folder, where that path names another place."""
    if check.kind != "file" or not check.name.startswith("../"):
        return []
    known = {o.target for o in inventory.outside}  # found, or named and not there:
    known |= {r.name for r in inventory.requirements if r.kind == "file"}
    if posixpath.normpath(check.name) in known:
        return []
    for where in check.where:
        file = where.rsplit(":", 1)[0]
        meant = posixpath.normpath(posixpath.join(posixpath.dirname(file), check.name))
        if meant in known:
            return [
                f"{at}.name: {check.name!r} is the path as {file} writes it, from its own "
                f"folder; a check's path is from the skill's folder: {meant!r}"
            ]
    return []


def _pipeline(pipeline: Pipeline, where: str, inventory: Inventory) -> list[str]:
    errors: list[str] = []
    inputs: dict[str, Input] = {}
    for i, item in enumerate(pipeline.input):
        if item.name in inputs:
            errors.append(f"{where}.input[{i}]: input {item.name!r} is declared twice")
        inputs[item.name] = item
        errors.extend(_input(item, f"{where}.input[{i}]"))
    shadowed = _modules(pipeline)
    for i, step in enumerate(pipeline.steps):
        at = f"{where}.steps[{i}]"
        earlier = earlier_steps(pipeline, i)
        if step.name in earlier:
            errors.append(f"{at}: step name {step.name!r} is used twice")
        if isinstance(step, CodeStep) and step.name in shadowed:
            errors.append(
                f"{at}: a step named {step.name!r} is written as steps/{step.name}.py, which "
                f"hides Python's {step.name} module from the steps beside it: rename the step"
            )
        if isinstance(step, CodeStep):
            errors.extend(_code_step(step, at, inventory, inputs, earlier))
        elif isinstance(step, LlmStep):
            errors.extend(_llm_step(step, at, inputs, earlier))
    if pipeline.output and pipeline.step(pipeline.output) is None:
        errors.append(f"{where}.output: no step named {pipeline.output!r}")
    errors.extend(sample_problems(pipeline, where))
    return errors


def _modules(pipeline: Pipeline) -> set[str]:
    """Module names a steps/<name>.py must not take: the standard library's, and those the
    pipeline's written steps import (steps/ is first on their import path)."""
    import sys

    names = set(getattr(sys, "stdlib_module_names", ()))
    for step in pipeline.steps:
        if isinstance(step, CodeStep) and step.write is not None:
            names |= step.write.imports()
    return names


def _input(item: Input, at: str) -> list[str]:
    errors = []
    for value in item.enum or []:
        if item.type != "array" and not is_type(value, item.type):  # an array's: its items'
            errors.append(f"{at}.enum: {value!r} is not of type {item.type}")
    if item.default is not None and not is_type(item.default, item.type):
        errors.append(f"{at}.default: {item.default!r} is not of type {item.type}")
    elif item.default is not None and not item.allows(item.default):
        errors.append(f"{at}.default: {item.default!r} is not one of its enum")
    if item.required and item.default is not None:
        errors.append(f"{at}: a required input never uses its default: drop one of them")
    return errors


def _named_as_folder(pipeline: Pipeline, where: str) -> list[str]:
    """An input named like a local folder whose description says it is an id or a link:
    app-run makes a folder input's value a path from the caller's folder (round 47's
    gdrive-access: a Drive folder's id became ``<cwd>/<id>``)."""
    return [
        f"{where}.input[{i}]: {item.name!r} is named like a local folder, so app-run makes its "
        "value a path from the caller's folder, but its description says it is an id or a "
        f"link: name it {item.name}_id or {item.name}_link"
        for i, item in enumerate(pipeline.input)
        if path_kind(item.name) == "dir" and _AN_ID.search(item.description or "")
    ]


# A description saying the value is a service's id or link ("its link (https://…) or its
# folder ID", "(link or folder ID)"), not one naming ids around a path ("holding tokens.json",
# "the site folder whose URL", "<id>.<lang>.srt", "when target is a clause id").
_AN_ID = re.compile(
    r"\b(?:its|the)\s+(?:[\w-]+\s+)?(?:ID|id|link|URL|url)\b\s*(?:\(|\bor\b|[,;:.)]|$)"
    r"|\((?:a\s+|its\s+)?(?:link|URL|ID)\s+or\b"
)


def _code_step(
    step: CodeStep,
    at: str,
    inventory: Inventory,
    inputs: dict[str, Input],
    earlier: dict[str, Step],
) -> list[str]:
    if step.write is not None:
        return written_problems(step, at)
    errors: list[str] = []
    for j, arg in enumerate(step.args):
        if arg.ref:
            errors.extend(reference(arg.ref, f"{at}.args[{j}]", inputs, earlier))
    errors.extend(_stdin(step, at, inputs, earlier))
    for j, var in enumerate(step.env):
        if var.ref:
            errors.extend(reference(var.ref, f"{at}.env[{j}]", inputs, earlier))
        if RESERVED_ENV.match(var.name):
            errors.append(
                f"{at}.env[{j}]: {var.name} is not the plan's to set (it changes how programs "
                "are found or loaded, or is app-run's own): drop it"
            )
        elif var.value is not None and is_secret_name(var.name):
            errors.append(
                f"{at}.env[{j}]: {var.name} holds a secret: take it from an input (from: "
                "input.<name>) or leave it to the user's environment, never a literal"
            )
    if step.ok_exit_codes and 0 not in step.ok_exit_codes:
        errors.append(f"{at}.ok_exit_codes: list 0 too (success is a result as well)")
    program = inventory.program(step.program)
    if program is None:
        known = ", ".join(p.path for p in inventory.programs) or "none"
        return [
            *errors,
            f"{at}.program: the skill has no program {step.program!r} (programs: {known})",
        ]
    errors.extend(_missing_stdin(step, at, program))
    cli = program.cli or Command("none")
    command: Command = cli
    if step.subcommand:
        if step.subcommand not in cli.subcommands and step.subcommand not in (
            program.enumerations.get("<command>") or []
        ):
            return [
                *errors,
                f"{at}.subcommand: {step.program} has no subcommand {step.subcommand!r}",
            ]
        listed = step.subcommand in cli.subcommands
        command = as_run(cli, step.subcommand) if listed else Command("none")
    elif cli.subcommands and cli.framework in AUTHORITATIVE:
        names = ", ".join(sorted(cli.subcommands))
        return [*errors, f"{at}.subcommand: {step.program} needs a subcommand ({names})"]
    errors.extend(_flags(step, at, command, inputs))
    if command.framework in AUTHORITATIVE:
        errors.extend(_required(step, at, command))
    return errors


def _stdin(
    step: CodeStep, at: str, inputs: dict[str, Input], earlier: dict[str, Step]
) -> list[str]:
    feed = step.stdin
    if feed is None:
        return []
    errors = reference(feed.ref, f"{at}.stdin", inputs, earlier)
    source = inputs.get(feed.ref.removeprefix("input.")) if feed.ref.startswith("input.") else None
    if feed.pass_as == "file" and source is not None and source.type != "string":
        errors.append(
            f"{at}.stdin: as file needs the path of a file, but input {source.name} is "
            f"{source.type}: make it a string, or use as: text"
        )
    return errors


def _missing_stdin(step: CodeStep, at: str, program: Program) -> list[str]:
    """A step that gives no stdin to a program SKILL.md always feeds data on stdin."""
    if step.stdin is not None:
        return []
    shown = [
        inv
        for inv in program.invocations
        if not step.subcommand
        or step.subcommand in (parse_argv(inv.argv, program.cli).subcommand, *inv.argv[:1])
    ]
    if not shown or any(inv.stdin is None for inv in shown):
        return []
    first = shown[0]
    assert first.stdin is not None
    where = f"{first.file}:{first.line}"
    if first.stdin.kind in ("file", "text"):
        fix = "add stdin: {from: input.<name>, as: " + first.stdin.kind + "}"
    else:
        fix = "feed it the output of an earlier step (stdin), or leave this path to Skill mode"
    return [
        f"{at}: SKILL.md feeds {step.program} its data on stdin ({where}), but the step "
        f"gives it none: {fix}"
    ]


def _flags(step: CodeStep, at: str, command: Command, inputs: dict[str, Input]) -> list[str]:
    errors: list[str] = []
    for j, arg in enumerate(step.args):
        if not arg.flag:
            continue
        param = command.flag(arg.flag)
        if param is None:
            if command.framework != "none" or command.params:
                errors.append(f"{at}.args[{j}]: {step.program} has no flag {arg.flag}")
            continue
        if not param.choices:
            continue
        choices = [str(c) for c in param.choices]
        values = arg.value if isinstance(arg.value, list) else [arg.value]
        if arg.value is not None:
            errors.extend(
                f"{at}.args[{j}]: {v!r} is not one of {arg.flag} {choices}"
                for v in values
                if str(v) not in choices
            )
        source = inputs.get(arg.ref.removeprefix("input.")) if arg.ref else None
        if source is not None and source.enum:
            errors.extend(
                f"{at}.args[{j}]: input {source.name} allows {v!r}, which {arg.flag} "
                f"does not accept"
                for v in source.enum
                if str(v) not in choices
            )
    return errors


def _required(step: CodeStep, at: str, command: Command) -> list[str]:
    given_flags = {a.flag for a in step.args if a.flag}
    positionals = sum(1 for a in step.args if not a.flag)
    errors = []
    for param in command.params:
        if not param.required:
            continue
        if param.kind == "flag" and not ({param.name, *param.aliases} & given_flags):
            errors.append(f"{at}: {step.program} requires {param.name}")
    required_positionals = [p for p in command.positionals() if p.required]
    if positionals < len(required_positionals):
        missing = ", ".join(p.name for p in required_positionals[positionals:])
        errors.append(f"{at}: {step.program} requires the positional argument(s) {missing}")
    return errors


def _llm_step(
    step: LlmStep, at: str, inputs: dict[str, Input], earlier: dict[str, Step]
) -> list[str]:
    errors = prompt_references(step, at, inputs, earlier)
    if step.schema is not None:
        import jsonschema

        try:
            jsonschema.Draft202012Validator.check_schema(step.schema)
        except jsonschema.SchemaError as exc:
            errors.append(f"{at}.schema: not a valid JSON Schema: {exc.message}")
            return errors
    errors.extend(rule_problems(step, at, inputs, earlier))
    return errors
