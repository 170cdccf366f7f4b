"""The skill's method as a pipeline: what a skill teaches the model to do, beyond its programs.

A skill without programs that states rules or steps gets one llm pipeline applying them to the
user's text (``prose_pipeline``).  A skill with programs gets one too (``method_pipeline``)
when its own words say it is for something no program pipeline took (a "Use when" clause left
over) and it teaches a method: steps that run no program.  Then:

1. a program that surveys runs first — one needing no input (``find-tests.sh [dir]``), else
   one told only what to look at (``gather_context.py DOC``) — and its report goes to the
   model, with the files the request is about (the ``files`` input: the text of each, up to
   200 KB, a PDF's and an Office document's too; a folder's file names);
2. the model (reasoning tier) follows SKILL.md's steps and rules on the user's request and
   answers with a summary and, when the skill makes files (a test, a page, a report), the
   files it makes;
3. a written step saves those files in the folder the user names (the working folder by
   default), never outside it and never over a file that exists unless asked to: a file it
   keeps back is in its output with the reason and the content.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from skill2app.converter.analyzers.document import (
    ancestors,
    collect_rules,
    ordered_items,
    own_range,
)
from skill2app.converter.analyzers.method_programs import (
    ANSWER,
    FILES_SCHEMA,
    MAKES_FILES,
    reader,
    save_inputs,
    save_step,
)
from skill2app.converter.analyzers.report_format import (
    report_format,
    report_rules,
    report_schema,
)
from skill2app.converter.analyzers.situations import a_task, situations
from skill2app.converter.analyzers.step_builder import GENERIC_SCHEMA, labels
from skill2app.converter.analyzers.text import (
    SETUP_TITLES,
    first_sentence,
    free_name,
    tier_for,
    unique,
)
from skill2app.converter.analyzers.triggers import MAX_TRIGGERS, trigger_key
from skill2app.converter.analyzers.verbs import imperative
from skill2app.converter.analyzers.when_clauses import use_when_phrases
from skill2app.converter.inventory.markdown import WHEN_TITLES
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.inventory.skill import SkillDoc
from skill2app.converter.plan.model import (
    CodeStep,
    Input,
    LlmStep,
    Pipeline,
    Sample,
    Written,
)

MAX_STEPS = 12  # of the method, in the prompt: a longer list is the skill's whole manual
# Programs that look before anything is done: they may run first.
_SURVEY = re.compile(
    r"find|scan|profil|survey|discover|detect|inspect|collect|list|status|info|inventory|"
    r"overview|context|explore|analy[sz]|audit|stat|gather",
    re.I,
)
SURVEY_LABEL = {"en": "What {program} reports:", "zh": "{program} 的输出："}
READ_LABEL = {"en": "The files the request is about:", "zh": "请求涉及的文件："}
FILES_INPUT = {
    "en": "Files or folders the request is about (read for the model)",
    "zh": "请求涉及的文件或目录（读取后交给模型）",
}


def prose_pipeline(inventory: Inventory, app: str, covered: set[int]) -> Pipeline | None:
    """One llm step that applies the skill's rules and steps to the user's text; None when
    SKILL.md has neither (nothing to apply)."""
    doc = inventory.skill
    rules = collect_rules(doc)
    text = labels(inventory.language)
    steps_text = []
    first_step = 0
    for index in range(len(doc.sections)):
        items = ordered_items(doc, index)
        if len(items) >= 2:
            covered.add(index)
            first_step = first_step or doc.sections[index].line
            steps_text += [f"{i}. {item.text}" for i, item in enumerate(items, start=1)]
    if not rules and not steps_text:
        return None
    covered |= {doc.section_of(line) for _rule, line in rules}
    rule_texts = unique([r for r, _line in rules])
    prompt = doc.frontmatter.description + "\n\n"
    if rule_texts:
        prompt += text["rules"] + "\n" + "".join(f"- {r}\n" for r in rule_texts) + "\n"
    if steps_text:
        prompt += text["steps"] + "\n" + "\n".join(steps_text) + "\n\n"
    prompt += f"{text['input']}\n{{{{input.text}}}}\n"
    form = report_format(doc)
    schema, checks = (report_schema(form), report_rules(form)) if form else (GENERIC_SCHEMA, [])
    step = LlmStep(
        "apply_guidance",
        prompt,
        tier_for(doc.frontmatter.description),
        copy.deepcopy(schema),
        [*rule_texts, *checks],
    )
    triggers = situations(doc) or [first_sentence(doc.frontmatter.description)]
    text_input = Input("text", "string", True, text["text"])
    return Pipeline(
        app,
        first_sentence(doc.frontmatter.description),
        unique(triggers, MAX_TRIGGERS),
        [text_input],
        [step],
        step.name,
        f"{doc.path}:{rules[0][1] if rules else first_step}",
    )


def method_pipeline(
    inventory: Inventory,
    app: str,
    pipelines: list[Pipeline],
    covered: set[int],
    gated: dict[str, str],
) -> Pipeline | None:
    """The pipeline applying the method of a judgement-led skill with programs (module
    docstring), or None when its programs' pipelines do what it is for, or a workflow
    pipeline has an llm step already (log-debugger: two pipelines, one description)."""
    doc = inventory.skill
    if not inventory.programs or any(isinstance(s, LlmStep) for p in pipelines for s in p.steps):
        return None  # a prose skill's pipeline, or a workflow asking for judgement, does it
    taken = {trigger_key(t) for p in pipelines for t in p.triggers}
    left = [c for c in situations(doc) if trigger_key(c) not in taken and a_task(c)]
    method = _method_steps(inventory, gated) if left else []
    if not method:
        return None
    covered |= {index for index, _steps in method}
    covered |= {
        at
        for index, _steps in method
        for at in ancestors(doc, index)
        if _METHOD.search(doc.sections[at].title)
    }  # "Core workflow" over "Phase 1: Reproduce"
    steps_text = [text for _index, steps in method for text in steps][:MAX_STEPS]
    language = "zh" if inventory.language == "zh" else "en"
    text = labels(inventory.language)
    rules = unique([rule for rule, _line in collect_rules(doc)])
    inputs = [Input("request", "string", True, text["request"])]
    steps: list[CodeStep | LlmStep] = []
    survey = _survey(pipelines)
    prompt = doc.frontmatter.description + "\n\n"
    prompt += text["steps"] + "\n" + "".join(f"{i}. {s}\n" for i, s in enumerate(steps_text, 1))
    if rules:
        prompt += "\n" + text["rules"] + "\n" + "".join(f"- {r}\n" for r in rules)
    prompt += f"\n{text['request']}:\n{{{{input.request}}}}\n"
    if survey is not None:
        step, more = survey
        if step.name in ("read_files", "apply_method", "save_files"):
            step.name += "_survey"
        steps.append(step)
        inputs += [i for i in more if i.name not in {j.name for j in inputs}]
        shown = SURVEY_LABEL[language].format(program=step.program)
        prompt += f"\n{shown}\n{{{{{step.name}.output}}}}\n"
    taken = {i.name for i in inputs}  # the survey's own inputs keep their names
    files, folder, replace = (free_name(n, taken) for n in ("files", "out_dir", "overwrite"))
    inputs.append(Input(files, "array", False, FILES_INPUT[language]))
    steps.append(
        CodeStep(
            "read_files", "", write=Written("python", reader(files)), output={"files": "array"}
        )
    )
    prompt += f"\n{READ_LABEL[language]}\n{{{{read_files.output.files}}}}\n"
    makes = bool(MAKES_FILES.search(doc.frontmatter.description + "\n" + doc.body))
    form = None if makes else report_format(doc)
    schema = FILES_SCHEMA if makes else report_schema(form) if form else GENERIC_SCHEMA
    if makes:
        prompt += "\n" + ANSWER[language] + "\n"
    checks = report_rules(form) if form else []
    llm = LlmStep("apply_method", prompt, "reasoning", copy.deepcopy(schema), [*rules, *checks])
    steps.append(llm)
    answer: dict[str, Any] = {"result": "sample"}
    if makes:
        answer = {"summary": "sample", "files": []}
    elif form:
        answer = {"report": schema["properties"]["report"]["examples"][0]}
    if makes:
        inputs += save_inputs(folder, replace)
        steps.append(save_step("save_files", llm.name, folder, replace))
    description = skill_purpose(doc.frontmatter.description)
    title = next((imperative(s.title) for s in doc.sections if s.level == 1), "")
    first = method[0][0]
    return Pipeline(
        app,
        description,
        unique([t for t in [title, *left, description] if t], MAX_TRIGGERS),
        inputs,
        steps,
        steps[-1].name,
        f"{doc.path}:{doc.sections[first].line}",
        Sample(answers={llm.name: answer}),
    )


def skill_purpose(description: str) -> str:
    """The first sentence of a description that says what the skill does, not when to use it
    ("This skill should be used when … . Enforces test-driven bug fixing workflow." → the
    second)."""
    sentences = [first_sentence(s) for s in _SENTENCES.split(description.strip())]
    said = [s for s in sentences if s and not use_when_phrases(s)]
    return (said or [first_sentence(description)])[0]


_SENTENCES = re.compile(r"(?<=[.!?。！？])\s+")


def _method_steps(inventory: Inventory, gated: dict[str, str]) -> list[tuple[int, list[str]]]:
    """(section, step texts) of each numbered list of two steps or more that runs no program
    (but one the skill runs only with approval: ``consent``), outside setup and "when to
    use" sections."""
    doc = inventory.skill
    lines = {  # a program left to Skill mode for want of approval (``gated``) may be named
        (inv.file, inv.line)
        for program in inventory.programs
        if program.path not in gated
        for inv in program.invocations
    }
    found = []
    for index in range(len(doc.sections)):
        titles = _titles(doc, index)
        if not any(_METHOD.search(t) for t in titles) or any(
            _NOT_METHOD.search(t) or SETUP_TITLES.search(t) or WHEN_TITLES.search(t) for t in titles
        ):
            continue
        items = ordered_items(doc, index)
        start, end = own_range(doc, index)
        runs = any(file == doc.path and start <= line <= end for file, line in lines)
        if len(items) >= 2 and not runs:
            found.append((index, [item.text for item in items]))
    return found


# Sections that teach how the work is done, and those that only list what goes wrong, what it
# looks like or what to check.
_METHOD = re.compile(
    r"workflow|process|procedure|\bsteps?\b|method|approach|how (?:to|it works)|\bphase|"
    r"\bstage|\bcore\b|strateg|流程|步骤|工作流|方法|做法|手順|ワークフロー|フロー",
    re.I,
)
_NOT_METHOD = re.compile(
    r"mistake|pitfall|anti-?pattern|avoid|error|troubleshoot|faq|example|sample|output|"
    r"format|checklist|reference|常见|错误|示例|例子|输出|格式|注意|よくある|例",
    re.I,
)


def _titles(doc: SkillDoc, index: int) -> list[str]:
    """The titles of section ``index`` and of the sections it sits under (but the document's
    own title, which says little)."""
    above = [at for at in ancestors(doc, index) if doc.sections[at].level > 1]
    return [doc.sections[index].title, *(doc.sections[at].title for at in above)]


def _survey(pipelines: list[Pipeline]) -> tuple[CodeStep, list[Input]] | None:
    """A copy of the one step of a program pipeline that surveys, and its inputs: one that
    needs no input first (``find-tests.sh [dir]``), else one told only what to look at
    (``gather_context.py DOC``: the document the user names)."""
    found = [
        pipeline
        for pipeline in pipelines
        if len(pipeline.steps) == 1
        and isinstance(step := pipeline.steps[0], CodeStep)
        and not step.written
        and _SURVEY.search(f"{pipeline.name} {step.program} {step.subcommand}")
        and all(not i.required or _WHAT.search(i.name) for i in pipeline.input)
        and sum(1 for i in pipeline.input if i.required) <= 1
    ]
    found.sort(key=lambda p: any(i.required for i in p.input))
    if not found:
        return None
    step = found[0].steps[0]
    assert isinstance(step, CodeStep)
    return copy.deepcopy(step), copy.deepcopy(found[0].input)


# An input naming what a survey looks at: a file, a folder, a document.
_WHAT = re.compile(r"path|file|dir|folder|doc|target|project|repo|root|input", re.I)
