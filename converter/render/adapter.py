"""The argv mapping a generated adapter embeds as ``SPEC``: its program and interpreter, each
arg with what the program's own command line says of it, the inputs it reads and the values
a flag accepts (``strict_choices``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skill2app.converter.inventory.programs.interface import (
    OUTPUT_FILE_NAMES,
    Param,
    as_run,
    before,
)
from skill2app.converter.inventory.programs.language import DEFAULT_INTERPRETER
from skill2app.converter.inventory.programs.program import Program
from skill2app.converter.plan.model import Arg, CodeStep, Pipeline

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory


def adapter_spec(step: CodeStep, pipeline: Pipeline, inventory: Inventory) -> dict[str, Any]:
    """The argv mapping a generated adapter embeds as ``SPEC``."""
    program = inventory.program(step.program)
    interpreter = program.interpreter if program else ""
    if program and not interpreter:
        interpreter = DEFAULT_INTERPRETER.get(program.language, "")
    declared = {item.name: item for item in pipeline.input}
    choices = strict_choices(pipeline, inventory)
    inputs: dict[str, dict[str, Any]] = {}
    refs = [arg.ref for arg in step.args] + ([step.stdin.ref] if step.stdin else [])
    refs += [var.ref for var in step.env if var.ref]
    for ref in refs:
        name = ref.removeprefix("input.") if ref.startswith("input.") else ""
        if name in declared and name not in inputs:
            info: dict[str, Any] = {"required": declared[name].required}
            if declared[name].default is not None:
                info["default"] = declared[name].default
            if name in choices:  # the adapter checks it too (in any letter case)
                info["enum"] = choices[name]
            inputs[name] = info
    spec: dict[str, Any] = {
        "program": step.program,
        "run_with": interpreter.split(),
        "subcommand": step.subcommand,
        "args": [_arg_spec(arg, program, step.subcommand) for arg in step.args],
        "inputs": inputs,
        "stdout": step.stdout,
        "cwd": "caller",
    }
    if step.stdin is not None:  # only then: the adapter has the code that feeds it
        spec["stdin"] = step.stdin.to_dict()
    if step.env:  # only then: the adapter has the code that sets them
        spec["env"] = [var.to_dict() for var in step.env]
    if step.ok_exit_codes:
        spec["ok_exit_codes"] = sorted(step.ok_exit_codes)
    return spec


def strict_choices(pipeline: Pipeline, inventory: Inventory) -> dict[str, list[str]]:
    """Input name -> the values a program's flag accepts (argparse/click ``choices``, or the
    values a script switches on), for the inputs passed to such a flag.  Values merely seen
    in SKILL.md are examples, not a rule: they are not here."""
    found: dict[str, list[str]] = {}
    for step in pipeline.steps:
        if not isinstance(step, CodeStep) or step.write is not None:
            continue
        program = inventory.program(step.program)
        for arg in step.args:
            param = _flag_param(program, step.subcommand, arg.flag)
            if param is not None and param.choices and arg.ref.startswith("input."):
                found.setdefault(arg.ref.removeprefix("input."), [str(c) for c in param.choices])
    return found


def _arg_spec(arg: Arg, program: Program | None, subcommand: str) -> dict[str, Any]:
    """One arg of SPEC; an array flag the program reads as `--flag a b` gets ``spread``, a
    program's option that goes before the subcommand ``before``."""
    data = arg.to_dict()
    param = _flag_param(program, subcommand, arg.flag)
    if param is not None and param.spread:  # the program says so, whatever the plan says
        data["spread"] = True
    if param is not None and program and program.cli and param in before(program.cli, subcommand):
        data["before"] = True
    if param is not None and param.names_output_file:  # the adapter reads the file back
        data["saves"] = True
        if isinstance(param.default, str) and _file_name(param.default):
            data["saves_by_default"] = param.default  # where it writes when not told
    elif not arg.flag and arg.ref.removeprefix("input.") in OUTPUT_FILE_NAMES:
        data["saves"] = True  # `gen.py TYPE OUTPUT_PATH`: ./output/ may not exist yet
    return data


def _file_name(text: str) -> bool:
    """A default that names a file ("report.json"), not stdout ("-", "stdout", "")."""
    return bool(text.strip()) and text.strip().lower() not in ("-", "stdout", "/dev/stdout")


def _flag_param(program: Program | None, subcommand: str, flag: str) -> Param | None:
    """What the program's command line (its subcommand's, if any) says about ``flag``."""
    command = program.cli if program and flag else None
    if command is not None and subcommand:
        command = as_run(command, subcommand)
    return command.flag(flag) if command is not None else None
