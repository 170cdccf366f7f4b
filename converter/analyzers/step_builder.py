"""The steps of one documented workflow (``workflow.py`` finds it): its items in order.

Items that run a program of the skill become code steps (several examples of one call in a
step are one step; a call shown again with only switches added runs once); items in a row
that run none become one llm step, which gets the user's request, the output of the step
before and the text of the skill's guides they name (a written ``read_guides`` step reads
them from the APP folder).  A file an llm item says it saves (```notes.json```) and a later
command reads becomes that step's output passed as a file; judgement that ends the workflow
and makes a file answers with the files, which a written step saves.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from skill2app.converter.analyzers.document import Item, collect_rules
from skill2app.converter.analyzers.method_programs import (
    ANSWER,
    FILES_SCHEMA,
    MAKES_FILES,
    guide_reader,
    save_inputs,
    save_step,
)
from skill2app.converter.analyzers.paths import (
    MainPath,
    documented_output,
    input_for,
    is_output_file,
    json_switch,
    stdin_input,
)
from skill2app.converter.analyzers.report_format import (
    report_format,
    report_rules,
    report_schema,
)
from skill2app.converter.analyzers.text import (
    free_name,
    snake,
    step_name,
    strip_markdown,
    tier_for,
    unique,
)
from skill2app.converter.analyzers.workflow import folder_like, read_call, saves_in
from skill2app.converter.inventory.exits import ok_exit_codes
from skill2app.converter.inventory.invocations import Invocation
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.inventory.programs.interface import (
    AUTHORITATIVE,
    Command,
    Param,
    dest_of,
    parse_argv,
)
from skill2app.converter.inventory.shell import Stdin
from skill2app.converter.plan.model import (
    Arg,
    CodeStep,
    Input,
    LlmStep,
    StdinFeed,
    Step,
    Written,
)

GENERIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"result": {"type": "string", "minLength": 1}},
    "required": ["result"],
    "additionalProperties": False,
}
LABELS = {
    "en": {"rules": "Follow these rules:", "steps": "Steps:", "input": "Input:",
           "previous": "Output of the previous step:", "request": "The user's request",
           "text": "The text to work on", "guides": "The skill's guides these steps name:",
           "inputs": "The pipeline's inputs:", "answer": "Your answer at step {step}:",
           "output_of": "Output of step {step}:"},
    "zh": {"rules": "遵守以下规则：", "steps": "步骤：", "input": "输入：",
           "previous": "上一步的输出：", "request": "用户的请求", "text": "要处理的文本",
           "guides": "这些步骤提到的技能指南：", "inputs": "流水线的输入：",
           "answer": "你在步骤 {step} 的回答：", "output_of": "步骤 {step} 的输出："},
}  # fmt: skip
_FILE_WORD = re.compile(r"`([\w.-]+\.(?:json|ya?ml|csv|md|txt))`")
# The skill's own folder as an agent's placeholder: `{baseDir}/references/GUIDE.md`.
_BASE_DIR = re.compile(r"\{(?:baseDir|base_dir|skillDir|SKILL_DIR)\}/(?=[\w.])")
_BASE_DIR_ALONE = re.compile(r"`?\{(?:baseDir|base_dir|skillDir|SKILL_DIR)\}/?`?")
# "Fill the onboarding template in `references/onboarding-template.md`": a document to make.
_FILLS = re.compile(
    r"\bfill (?:in |out )?(?:the |a |an )?[\w -]{0,30}template\b|填写.{0,10}模板", re.I
)
_SKILL_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:md|txt))\b")


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


def _without_base_dir(text: str) -> str:
    """``text`` with the skill folder's placeholder read: ``{baseDir}/references/X.md`` is
    ``references/X.md`` in the APP, a bare ``{baseDir}/`` the skill's folder."""
    return _BASE_DIR_ALONE.sub("the skill's folder", _BASE_DIR.sub("", text))


class StepBuilder:
    """Builds the steps of one pipeline, sharing inputs and step names between them."""

    def __init__(self, inventory: Inventory, rules: list[str]) -> None:
        self.inventory = inventory
        self.rules = rules
        self.labels = labels(inventory.language)
        self.steps: list[Step] = []
        self.inputs: dict[str, Input] = {}
        self.produced: dict[str, str] = {}  # file a step saves → the reference to its output
        self.ran: dict[str, CodeStep] = {}  # program → the last step running it
        self.ran_argv: dict[str, list[str]] = {}  # program → the command line it ran with
        self.pipes: set[tuple[str, int, str]] = set()  # (file, line, program) piping onwards

    def unique_name(self, name: str) -> str:
        return free_name(step_name(name), {s.name for s in self.steps})

    def llm_items(self, items: list[Item], last: bool = False) -> None:
        """One llm step for consecutive items that run no program: the model does them in
        one go (a step of its own each, they saw only a heading and the step before), with
        the skill's guides they name read for it.  When they end the workflow and make a
        file (write a report, fill a template), the model answers with the files and a
        written step saves them (``method_programs.save_step``)."""
        texts = [_without_base_dir(item.text) for item in items]
        first = snake(texts[0], 3) or f"step_{len(self.steps) + 1}"
        name = self.unique_name(first if len(items) == 1 else "apply_steps")
        context = self._context()
        guides = self._guides(items)
        if len(items) == 1:
            prompt = texts[0] + "\n\n"
        else:
            numbered = "".join(f"{i}. {text}\n" for i, text in enumerate(texts, start=1))
            prompt = self.labels["steps"] + "\n" + numbered + "\n"
        if self.rules:
            prompt += self.labels["rules"] + "\n" + "".join(f"- {r}\n" for r in self.rules) + "\n"
        prompt += context
        if guides:
            prompt += f"\n{self.labels['guides']}\n{{{{{guides}.output.files}}}}\n"
        schema = next((s for item in items if (s := schema_from_example(item))), None)
        joined = "\n".join(texts)
        makes = last and not schema and bool(MAKES_FILES.search(joined) or _FILLS.search(joined))
        if makes:
            language = "zh" if self.inventory.language == "zh" else "en"
            prompt += "\n" + ANSWER[language] + "\n"
            schema = copy.deepcopy(FILES_SCHEMA)
        form = report_format(self.inventory.skill) if last and not schema else None
        if form:  # the skill shows its answer's sections: the report has them
            schema = report_schema(form)
        self.steps.append(
            LlmStep(
                name,
                prompt.rstrip() + "\n",
                "reasoning" if len(items) > 1 else tier_for(texts[0]),
                schema or GENERIC_SCHEMA,
                [*self.rules, *(report_rules(form) if form else [])],
            )
        )
        for item in items:
            for word in _FILE_WORD.findall(item.raw):
                self.produced[word] = f"{name}.output"
        if makes:
            taken = set(self.inputs)
            folder, replace = (free_name(n, taken) for n in ("out_dir", "overwrite"))
            self.inputs |= {i.name: i for i in save_inputs(folder, replace)}
            self.steps.append(save_step(self.unique_name("save_files"), name, folder, replace))

    def _context(self) -> str:
        """The user's request for the first llm step (a program may have run before it: the
        model still needs the task), and the output of the step before."""
        asked = "request" in self.inputs
        if not self.steps:
            request = Input("request", "string", True, self.labels["request"])
            self.inputs.setdefault("request", request)
            return f"{self.labels['input']}\n{{{{input.request}}}}\n"
        ran: list[str] = []  # the code steps since the last llm step: the model sees each
        for step in reversed(self.steps):
            if isinstance(step, LlmStep):
                break
            ran.insert(0, step.name)
        if len(ran) > 1:  # profile, missing values, outliers: then score and report
            context = "".join(
                f"{self.labels['output_of'].format(step=name)}\n{{{{{name}.output}}}}\n\n"
                for name in ran
            )
        else:
            context = f"{self.labels['previous']}\n{{{{{self.steps[-1].name}.output}}}}\n"
        if not asked:  # what the programs were given may say it all: "" then
            needed = not any(i.required for i in self.inputs.values())
            request = Input("request", "string", needed, self.labels["request"])
            request.default = None if needed else ""
            self.inputs["request"] = request
            context = f"{self.labels['request']}:\n{{{{input.request}}}}\n\n" + context
        return context

    def show_what_it_needs(self) -> None:
        """Every llm step sees the pipeline's inputs (the text to rewrite, a file's path: an
        input a later code step asked for is the model's data too) and, after code steps,
        the model's own answer at the llm step before: personal-write-humanizer's rewrite step
        saw only the checker's findings, never the text nor its first answer (round 20)."""
        told = self.labels["inputs"]
        data = [name for name in self.inputs if name != "request"]
        last_llm = ""
        for index, step in enumerate(self.steps):
            if not isinstance(step, LlmStep):
                continue
            missing = [n for n in data if f"input.{n}" not in step.prompt]
            extra = "".join(f"- {n}: {{{{input.{n}}}}}\n" for n in missing)
            before = self.steps[index - 1] if index else None
            if last_llm and before is not None and before.name != last_llm:
                if f"{last_llm}.output" not in step.prompt:
                    answer = self.labels["answer"].format(step=last_llm)
                    step.prompt = (
                        step.prompt.rstrip() + f"\n\n{answer}\n{{{{{last_llm}.output}}}}\n"
                    )
            if extra:
                step.prompt = step.prompt.rstrip() + f"\n\n{told}\n{extra}"
            last_llm = step.name

    def _guides(self, items: list[Item]) -> str:
        """The name of a step reading the skill's Markdown files the items name (``[guide](
        {baseDir}/references/GUIDE.md)``), added before the llm step; "" when they name
        none."""
        have = {f.path for f in self.inventory.files}
        named = unique(
            [
                path
                for item in items
                for found in _SKILL_FILE.findall(_BASE_DIR.sub("", item.raw))
                if (path := found.removeprefix("./")) in have and path != self.inventory.skill.path
            ]
        )
        if not named:
            return ""
        name = self.unique_name("read_guides")
        step = CodeStep(name, "", write=Written("python", guide_reader(named)))
        step.output = {"files": "array"}
        self.steps.append(step)
        return name

    def repeats(self, inv: Invocation) -> bool:
        """Whether ``inv`` is a call this pipeline already made, shown again with switches
        added ("for faster reads, use `--content`") and nothing a step made since: the same
        subcommand, positionals and flag values; another value is a call of its own."""
        before = self.ran_argv.get(inv.program)
        if before is None:
            return False
        cli, now = read_call(self.inventory, inv)
        then = parse_argv(before, cli)
        if now.subcommand != then.subcommand or now.positionals != then.positionals:
            return False  # `tickets.py --action close --id 42` after `--action list`: a call
        added = set(now.flags) - set(then.flags)
        if not set(then.flags) <= set(now.flags) or any(v is not None for _n, v in added):
            return False  # another value, or one more value: a call of its own
        made = set(self.produced)
        return not (made & set(inv.argv)) and not (inv.stdin and inv.stdin.value in made)

    def code_invocation(self, inv: Invocation, shown: list[Invocation] | None = None) -> None:
        """A code step running ``inv``; ``shown``: the examples of the same call its step
        gives beside it ("Deploy current directory", "Deploy specific project"), which say
        what may be left out."""
        program = self.inventory.program(inv.program)
        assert program is not None
        cli, parsed = read_call(self.inventory, inv)
        command = cli.subcommands.get(parsed.subcommand, cli)
        path = MainPath(program, command, parsed.subcommand, None, shown or [inv])
        fewest = min(len(parse_argv(i.argv, cli).positionals) for i in shown or [inv])
        fixed, stdout = json_switch(command, program)
        if (inv.file, inv.line, inv.program) in self.pipes:
            fixed, stdout = [], "text"  # the next program reads what it prints, as documented
        if fixed:  # `--format markdown --output report.md`: as documented
            given_format = {str(v).lower() for n, v in parsed.flags if n == fixed[0].flag and v}
            fixed, stdout = documented_output(fixed, stdout, [given_format])
        fixed_flags = {a.flag for a in fixed}
        given = [(name, value) for name, value in parsed.flags if name not in fixed_flags]
        saved = saves_in(command, given)  # files it writes, which now travel on stdout
        args: list[Arg] = []
        for name, value in given:
            args.extend(self._flag(path, command, name, value))
        for index, value in enumerate(parsed.positionals):
            args.append(self._positional(path, command, index, value, index >= fewest))
        args.extend(self._missing_required(path, command, args))
        if stdout == "text" and program.emits_json and any(v.endswith(".json") for v in saved):
            stdout = "json"  # what it saves as JSON it prints instead
        stem = inv.program.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        step = CodeStep(
            self.unique_name(snake(parsed.subcommand or stem) or "run"),
            inv.program,
            args + fixed,
            parsed.subcommand,
            stdout,
            stdin=self._feed(inv.stdin) if inv.stdin is not None else None,
        )
        step.ok_exit_codes = ok_exit_codes(self.inventory, program, command, shown or [inv])
        self.steps.append(step)
        self.ran[inv.program] = step
        self.ran_argv[inv.program] = list(inv.argv)
        for value in saved:  # `--output events.json` read by a later `--input events.json`
            self.produced[value] = f"{step.name}.output" + (".stdout" if stdout == "text" else "")

    def _feed(self, stdin: Stdin) -> StdinFeed:
        """What a step feeds its program on stdin: the output of the step piping into it, or
        a new input (``unreproduced_pipe`` has ruled out the rest)."""
        if stdin.kind == "program":
            producer = self.ran[stdin.value]
            text = ".stdout" if producer.stdout == "text" else ""
            return StdinFeed(f"{producer.name}.output{text}", "text")
        if stdin.kind == "file" and stdin.value in self.produced:  # `< notes.json` it saved
            return StdinFeed(self.produced[stdin.value], "text")
        item, feed = stdin_input([stdin], True, set(self.inputs))
        self.inputs[item.name] = item
        return feed

    def _flag(self, path: MainPath, command: Command, name: str, value: str | None) -> list[Arg]:
        param = command.flag(name) or Param(name, "flag", dest_of(name), source="invocation")
        if value is None:
            return [Arg(name)]  # a switch the workflow uses
        if is_output_file(param) and not folder_like(value):
            return []  # the output travels on stdout instead
        if value in self.produced:
            return [Arg(name, ref=self.produced[value], pass_as="file")]
        return [Arg(name, ref=f"input.{self._input(path, param)}")]

    def _positional(
        self, path: MainPath, command: Command, index: int, value: str, optional: bool = False
    ) -> Arg:
        """The argument passing positional ``value``: an earlier step's file, else an input
        (``optional`` when an example of the same call leaves it out)."""
        if value in self.produced:
            return Arg(ref=self.produced[value], pass_as="file")
        declared = command.positionals()
        param = (
            declared[index]
            if index < len(declared)
            else Param(
                dest_of(value), "positional", dest_of(value), required=True, source="invocation"
            )
        )
        name = self._input(path, param)
        if optional:
            self.inputs[name].required = False
        return Arg(ref=f"input.{name}")

    def _missing_required(self, path: MainPath, command: Command, args: list[Arg]) -> list[Arg]:
        """Inputs for what the program requires and the documented command leaves out:
        required flags, and positionals after the ones it shows."""
        if command.framework not in AUTHORITATIVE:
            return []
        given = {a.flag for a in args}
        missing = [
            Arg(p.name, ref=f"input.{self._input(path, p)}")
            for p in command.params
            if p.kind == "flag" and p.required and p.name not in given
        ]
        shown = sum(1 for a in args if not a.flag)
        missing += [
            Arg(ref=f"input.{self._input(path, p)}")
            for p in command.positionals()[shown:]
            if p.required
        ]
        return missing

    def _input(self, path: MainPath, param: Param) -> str:
        name = dest_of(param.dest)
        if name not in self.inputs:
            self.inputs[name] = input_for(path, param, name)
        return name


def _one_call_each(
    builder: StepBuilder, invocations: list[Invocation]
) -> list[tuple[Invocation, list[Invocation]]]:
    """One step's commands, each program and subcommand once: several examples of the same
    call in one step are ways to make it ("# Deploy current directory", "# Deploy specific
    project", "# Deploy existing tarball"), not calls to make in turn (an upload script ran
    three times).  The fullest example runs, with the others to tell what it may leave out;
    a call fed by another's output stays as it is."""
    groups: dict[tuple[str, str], list[Invocation]] = {}
    for inv in invocations:
        key = (inv.program, read_call(builder.inventory, inv)[1].subcommand or "")
        if inv.stdin is not None:
            key = (inv.program, f"{key[1]}@{inv.line}")  # piped: a call of its own
        groups.setdefault(key, []).append(inv)
    return [(max(group, key=lambda i: len(i.argv)), group) for group in groups.values()]


def schema_from_example(item: Item) -> dict[str, Any] | None:
    """A JSON Schema inferred from a JSON example the item shows in inline code."""
    for match in re.finditer(r"(\{.*\})", item.raw):
        try:
            example = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(example, dict) and example:
            return _schema_of(example)
    return None


def _schema_of(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {
            "type": "object",
            "properties": {str(k): _schema_of(v) for k, v in value.items()},
            "required": [str(k) for k in value],
        }
    if isinstance(value, list):
        items = [_schema_of(v) for v in value if v not in ("...", "…")]
        return {"type": "array", "items": items[0] if items else {"type": "string"}}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int | float):
        return {"type": "number"}
    return {"type": "string"}


# A step that reads the slash command's arguments ("Parse `$ARGUMENTS`: if empty or `check`,
# use check mode"): what the runner does when it fills the pipeline's inputs.
_PARSES_ARGUMENTS = re.compile(
    r"^\s*(?:parse|read|interpret|check)\s+(?:the\s+)?(?:\$ARGUMENTS\b|"
    r"(?:slash[- ]command|command|user's)\s+arguments?\b)|"
    r"^\s*解析\s*(?:\$ARGUMENTS|命令参数|用户参数)",
    re.I,
)


def workflow_steps(inventory: Inventory, items: list[Item]) -> StepBuilder:
    rules = unique([text for text, _line in collect_rules(inventory.skill)])
    builder = StepBuilder(inventory, rules)
    builder.pipes = {
        (inv.file, inv.line, inv.stdin.value)
        for item in items
        for inv in item.invocations
        if inv.stdin is not None and inv.stdin.kind == "program"
    }
    run: list[Item] = []  # items in a row that run no program
    for item in items:
        said = strip_markdown(item.text)
        if not item.invocations and _PARSES_ARGUMENTS.match(said) and len(said) < 300:
            continue  # the runner reads the inputs from the request: no step of the APP's
        fresh = [inv for inv in item.invocations if not builder.repeats(inv)]
        if not fresh:
            run.append(item)
            continue
        if run:
            builder.llm_items(run)
            run = []
        calls = [(inv, [inv]) for inv in fresh]
        if not item.heading:  # a numbered step; a section under a heading shows many uses
            calls = _one_call_each(builder, fresh)
        for inv, shown in calls:
            builder.code_invocation(inv, shown)
    if run:
        builder.llm_items(run, last=True)
    builder.show_what_it_needs()
    return builder
