"""What the analyst (an LLM: the calling agent, or the reasoning tier through an API) is told.

One text for both: the task, what makes a good APP, the plan format (version 2), the facts of
the inventory and the skill's documents (``llm_prompt.gather``: numbered lines, summarised to
fit), the tasks SKILL.md shows (``coverage``: each must be a pipeline or left to Skill mode with
a reason), the heuristic draft plan to improve, and — from the second attempt on — the exact
problems app-convert found in the previous answer.  The answer is one plan document (JSON, or
YAML), checked against ``schemas/plan.schema.json`` (handed to the analyst with the prompt),
the skill, and by rendering and verifying the APP it describes.

A plan that passes is shown back once with the skill's own requests routed through it and its
own phrases that the routing self-test matches to another pipeline (``review_prompt``): the
analyst keeps it or answers with a better one.
"""

from __future__ import annotations

from pathlib import Path

from skill2app.converter.analyzers.coverage import shown_tasks
from skill2app.converter.analyzers.llm_prompt import (
    BUDGET_TOKENS,
    Material,
    estimate_tokens,
    gather,
    inventory_json,
)
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.verify.requests import RequestCheck
from skill2app.converter.verify.verify import Verification

GUIDE = """\
# Convert an Agent Skill into an APP

You are the analyst of app-convert. An Agent Skill is a folder with SKILL.md (instructions for \
a model) and programs that a model orchestrates anew on every request. An APP (Agent Pipeline \
Protocol v0.4) keeps SKILL.md and the programs unchanged and adds pipelines: fixed, repeatable \
paths that a runner (app-run) executes step by step, asking a model only where judgement is \
needed. A request no pipeline fits falls back to SKILL.md (Skill mode).

Your answer is a conversion plan: ONE JSON object (YAML is accepted too), nothing else, that \
follows the plan JSON Schema given with this prompt. app-convert checks it against the skill, \
renders the APP into a temporary copy, and verifies it: app-run check, every program compiles \
(and a written Python step defines every name it reads), \
every pipeline runs on its sample (code steps for real, llm steps answered by the sample \
answers), and every description and trigger routes to its own pipeline. When anything fails \
you get the exact problems and answer again with the whole corrected plan.

## What a good APP is (what its author would accept)

1. Pipelines are the skill's main user tasks — what users come to the skill for — not one per \
script. A task SKILL.md shows as a code snippet (no script) is a pipeline too, built from a \
written step. Several programs the documents run in sequence for one task are one pipeline. \
Making something new from what the user describes (a PDF, a workbook, a document, a report) is \
a pipeline as well: an llm step writes the content as JSON (the fields the renderer needs), \
then a written step renders it with the library SKILL.md shows.
2. A description says what the user gets ("Merge several PDF files into one PDF, in the \
order given"), never "Run scripts/x.py".
3. Triggers: 5 to 10 per pipeline, phrased the way users ask, including indirect requests \
("my scanner saved every page as its own PDF, I need one document"), in every language the \
skill is written in. Never a section heading, never a negative condition ("Do NOT use \
when…"), never the same trigger on two pipelines. Pipelines must be told apart by their \
triggers. Test them: give each pipeline 3 to 5 probes — requests a real user would make for \
it, in other words than its triggers, at least one indirect (it names neither the tool nor \
the file type: "the clip from yesterday's stream, I want it on my phone"), one close to a \
sibling pipeline's task. app-convert routes them once the plan passes and shows you where \
they land; a probe that lands on a sibling means the triggers do not yet say what only that \
pipeline does.
4. Deterministic work is a code step: a program of the skill (only ones in the inventory, \
with flags and subcommands its command line declares), or a written step (your own short \
program) for what SKILL.md shows as a snippet or for glue between programs. Work that needs \
judgement is an llm step with a JSON Schema of exactly the fields the next step needs, and a \
tier by difficulty: lite (extraction, classification, formatting), standard (writing, \
summarising, mapping data to fields), reasoning (multi-step judgement, risky decisions).
5. Data flows: a step takes what it needs from the inputs or an earlier step's declared \
output (from: steps.<step>.output.<field>), never by guessing file names.
6. Validate rules check something: required fields, cross-checks against earlier outputs \
(every field_id the answer uses is one the extract step found), a pattern or enum in the \
schema. A rule that only exists as prose belongs in the prompt, not in rules.
7. Inputs have names that say what they are (pdf_file, output_path; never path_2), a \
description, and optional ones a default where the program has one. app-run makes the value \
of an input named like a folder (folder, out_dir) a path from the caller's folder: a \
service's folder id or link is folder_id or folder_link.
8. A program whose non-zero exit status is a result (exit 1 = "found some" / "checks \
failed") gets ok_exit_codes. A program with asks_at calls input() there: a step has no \
terminal, so it dies there unless the step feeds the answer on stdin or avoids that branch. \
A program with reaches_out reads or writes the workspace above the skill by a fixed path \
(a diary, USER.md, a memory folder): in the APP that path names another place, so no step \
runs it unless the user names those files (a written step can do its work on what they give).
9. What needs open-ended judgement or conversation, and situations no program covers, stay \
in Skill mode: list each under skill_mode with the reason and where it is. A main task is \
not one of them because it takes several steps, runs long or waits on the user: a design \
task is an llm step (reasoning tier) with a schema and the code steps that write its result; \
a server that keeps running (a preview, a dev server) is a written step that starts it in \
the background and answers with its address; a step the user must approve first is a \
pipeline that stops after the plan and one that carries it out. The tasks the skill's other \
documents show (references/*.md, one per command or topic) count like those of SKILL.md.

## What authors rejected in earlier conversions (check your plan for each)

- A use the skill names only in prose — its "use when" list, a phase of its workflow, an \
operations section pointing to a reference ("compare two runs", "ingest a new source", "edit \
an existing diagram") — with no pipeline and no skill_mode entry. List the uses first, then \
give each a pipeline or a reason.
- A step that runs a program through a runner (uv run, npx, bun, poetry run) the constructor \
does not require. Run it with the plain interpreter when the program needs nothing the \
runner brings (a standard-library script), else make the runner a required check of that \
pipeline.
- One variant of an input handled, the ones users give next not: an output path whose \
extension picks the format (.jpg, .jpeg, .tif — read how the program maps it), a folder \
where a file was expected, text where a path was expected (never test a long text as a \
path), an output folder that does not exist yet. Read the program's code for each input and \
try the variants with --plan … --smoke.
- Options placed after a `--` or after a positional that takes the rest of the command \
line: the program then reads them as operands.
- A verdict read as a failure (a linter's or checker's exit 1), or a check that reports \
"clean" while what the skill says to look for is still there.
- A prompt that asks the model for facts it cannot see: an llm step works only on its \
prompt's data, so the code steps that collect them come first.

## The plan, version 2 (the JSON Schema is authoritative)

- plan_version: 2; app: {name, description, language}; analyzer: "host" or "llm".
- pipelines[]: name (lowercase-hyphenated), description, triggers, probes, input[] ({name, type: \
string|integer|number|boolean|array|object, required, description, enum?, default?}), \
steps[], output (the step whose output is the pipeline's, default the last), source \
("SKILL.md:22"), sample.
- A code step running a program of the skill: {name, type: code, program: "scripts/x.py", \
subcommand?, args: [...], stdin?, env?, stdout: json|text, ok_exit_codes?, output?}. Each arg, in \
order: flag ("" or absent for a positional) and value (a literal) or from (input.<name> or \
steps.<step>.output[.<field>]); as: value|file|json. A boolean source passes the bare flag \
when true; an array repeats the flag. stdin: {from, as: file|text} when the documents pipe \
data into the program. env: [{name, value | from}] when the documents set variables \
before the command (DOUBAN_USER=<id> python3 x.py). output: {field: type} — the fields of \
the JSON it prints, which later steps may use (a program printing text has output field \
stdout; one with ok_exit_codes also exit_code).
- A written step: {name, type: code, write: {language: python|bash|node, source}, output: \
{field: type}}. The source is a complete program following the APP step contract (below).
- Declare in output only the fields a step always prints: a later step or prompt that \
names a field the program sometimes leaves out fails at run time.
- An llm step: {name, type: llm, model: lite|standard|reasoning, prompt, schema, rules, \
retry}. The prompt names its data as {{input.<name>}}, {{steps.<step>.output}} or \
{{steps.<step>.output.<field>}}. rules[]: objects {check: required (fields) | subset (field, \
of) | covers (field, of) | count (field, equals) | equals (field, to) | pattern (field, \
pattern) | enum (field, values) | max_length (field, limit) | sentence (text, field?): one \
of the skill's sentences a program can check — line or sentence length, forbidden words, CJK \
spacing, full-width punctuation — on one field of the answer; message?}; paths are dotted \
fields of the answer with [] for every item of a list (field_values[].field_id); of/to/equals \
may be input.<name> or steps.<step>.output.<field>. required means present and not empty \
(an empty list fails it); subset and covers take an object's keys as its members (values \
keyed by name cover a list of names); count's equals may be a number, or a path to a list \
or to a number (an item_count an earlier step printed).
- sample: {input: {...}, answers: {<llm step>: <answer>}} — input values that make the \
pipeline run: real files of the skill when it has some, else sample files app-convert \
creates when a value names them: samples/one-page.pdf, samples/form.pdf (a fillable form: \
text fields name and email, checkbox agree whose checked value is /Yes), samples/table.csv \
(region,product,units,price), samples/table.xlsx (sheet Sales: region, units, price), \
samples/document.docx (a heading "Project update" and two paragraphs; no comments, no \
tracked changes), samples/image.png, samples/text.txt (meeting notes), \
samples/data.json; or small text files you write in sample.files ({"worklog.txt": \
"...", "demo-skill/SKILL.md": "..."}) and name as samples/worklog.txt or samples/demo-skill \
(a folder); and one answer per llm step that the \
steps after it can use (it must pass the step's schema and rules). Pipelines run in the \
plan's order on one scratch state, so a later sample may use what an earlier pipeline made \
(the event it created); `app-run test` runs each sample alone, so name those earlier \
pipelines in sample.after (["start-run"]): their samples then run first there too \
(app-convert adds the ones it sees a sample read in the files an earlier one wrote). Only \
when no sample can make a pipeline run here (it needs a git repository with commits, a \
login, a device), say why in skip instead: it is reported, not run.
- constructor: {needed, reason, checks[]: {kind: binary|env|python-package|node-package|file\
|auth, name, required, why, where: ["SKILL.md:10"], pipelines?}} — what must be present; \
optional things required: false; pipelines: the ones that need it (by default those running \
the programs where names, or whose written steps run, import or read it; else all). A \
written step's imports count too. A file's name is its path from the skill's folder (a \
program's `../../lib/x.mjs` in scripts/ is `../lib/x.mjs` here).
- destructor: {needed, reason, actions[]} — only when the skill asks for cleanup.
- skill_mode[]: {topic, reason, where}. notes[]: what a reviewer should check.

## The APP step contract (written steps)

A step reads one JSON object on stdin: {"input": {<input>: value, ...}, "steps": {<earlier \
step>: {"output": ...}, ...}}, and prints one JSON object on stdout: {"output": ...}. It runs \
in its pipeline's folder; paths in the inputs are as the user gave them (relative to \
APP_CALLER_CWD, the folder app-run was started from — during the smoke run, the APP folder); \
APP_ROOT is the APP folder (the skill's own files and programs are there, at the paths the \
inventory gives); APP_WORK_DIR is a private scratch folder. On failure it exits non-zero with \
a one-line message on stderr. A node step is CommonJS (require) unless it uses import/export \
statements (then an ES module). Example (Python):

    import json, os, sys
    from pypdf import PdfReader, PdfWriter

    payload = json.load(sys.stdin)
    args = payload["input"]
    base = os.environ.get("APP_CALLER_CWD", ".")
    writer = PdfWriter()
    for name in args["pdf_files"]:
        for page in PdfReader(os.path.join(base, name)).pages:
            writer.add_page(page)
    out = os.path.join(base, args.get("output_path") or "merged.pdf")
    with open(out, "wb") as fh:
        writer.write(fh)
    print(json.dumps({"output": {"path": out, "pages": len(writer.pages)}}))
"""

ANSWER = """\
## Your answer

Reply with the complete plan (plan_version 2) as one JSON object — the whole plan, not a \
diff — and nothing else. To try a plan before you send it (it uses no attempt): save it and \
run app-convert SKILL_DIR --plan PLAN_FILE --out SOME_NEW_FOLDER --smoke."""


def material_for(inventory: Inventory, draft_yaml: str, budget: int = BUDGET_TOKENS) -> Material:
    """The skill's facts and documents, summarised so that the whole prompt — guide and draft
    included — fits ``budget`` tokens."""
    tasks = [task.cite(inventory.skill.path) for task in shown_tasks(inventory)]
    frame = estimate_tokens(GUIDE) + estimate_tokens(ANSWER) + estimate_tokens(draft_yaml)
    frame += estimate_tokens("\n".join(tasks))
    material = gather(inventory, max(budget - frame, 4_000))
    material.tasks = tasks
    return material


def analyst_prompt(
    material: Material,
    draft_yaml: str,
    *,
    problems: list[str] | None = None,
    attempt: int = 1,
    max_attempts: int = 1,
) -> str:
    """The whole prompt of one attempt: guide, the skill's facts and documents, the draft,
    and the previous attempt's problems (first, so they are not missed)."""
    parts = [GUIDE]
    if problems:
        listed = "\n".join(f"- {p}" for p in problems)
        parts.append(
            f"## Attempt {attempt} of {max_attempts}: your previous plan was not accepted\n\n"
            f"Fix every problem below and answer with the whole corrected plan (keep what was "
            f"right):\n\n{listed}"
        )
    parts.append(f"## The skill {material.skill!r}: facts app-convert found")
    if material.summarised:
        parts.append(
            "The skill is too large to show in full, so parts are summarised: "
            + "; ".join(material.summarised)
            + ". Left-out lines are marked ⋮. Do not guess what they say: keep what depends "
            "on them in Skill mode, or say so in the notes."
        )
    parts.append(
        "The inventory (programs with their real command lines — flags, types, choices, "
        "positionals, subcommands —, where the documents run them, requirements, files; "
        "programs_elsewhere: programs of other skills the documents run, as they show them — "
        "no step may name one as its program, a written step may run it by its path from "
        "APP_ROOT, with a constructor check of kind file for it):\n"
        f"<inventory>\n{inventory_json(material.inventory)}\n</inventory>"
    )
    parts.append("The skill's documents, with line numbers:")
    parts.extend(doc.render() for doc in material.documents)
    if material.tasks:
        listed = "\n".join(f"- {task}" for task in material.tasks)
        parts.append(
            "## The tasks SKILL.md shows: account for every one\n\n"
            "These sections show how to do something (code, or a command running a program). "
            "Each must be a pipeline (or part of one: its source names a line of the section, "
            "or the heading of a section around it), or a skill_mode entry whose where names "
            "it, with the reason. A task left out of both is the commonest reason an author "
            "rejects an APP; app-convert lists such tasks in its report.\n\n" + listed
        )
    parts.append(
        "## The heuristic draft plan (offline, by rules): improve it\n\n"
        "It runs, but it is usually one pipeline per program with weak triggers; rebuild it "
        "around the main user tasks.\n\n"
        f"```yaml\n{draft_yaml.rstrip()}\n```"
    )
    parts.append(ANSWER)
    return "\n\n".join(parts) + "\n"


RETRY = """\
# Attempt {attempt} of {max_attempts}: your plan for the skill {skill!r} was not accepted

Fix every problem below and answer with the whole corrected plan (keep what was right) as one \
JSON object, as before. The task, the skill's facts, the rules and the draft have not changed: \
they are in this session's first prompt, kept in {prompt_file}.

{problems}
"""


def retry_prompt(
    skill: str, problems: list[str], attempt: int, max_attempts: int, prompt_file: Path
) -> str:
    """A host's next attempt: the problems only (the host still holds the first prompt, and
    can read it again from ``prompt_file``) — not the whole prompt resent."""
    listed = "\n".join(f"- {p}" for p in problems)
    return RETRY.format(
        attempt=attempt,
        max_attempts=max_attempts,
        skill=skill,
        prompt_file=prompt_file,
        problems=listed,
    )


REVIEW = """\
# Review: your plan for the skill {skill!r} passed verification

Before app-convert writes it, see where app-run's embedded router (no model) sends the requests \
the skill itself quotes, the situations its description names, and your probes. A row marked ⚠ \
reaches no pipeline (Skill mode), leaves the router unsure (the user is asked to pick), or lands \
on another pipeline than the one whose source section quotes it (a probe: the one it probes); \
its "nearest" names the phrases that drew it there, with their scores. Check the other rows \
too: a request matched to the wrong pipeline runs the wrong thing.

| request | from | routes to |
|---|---|---|
{rows}

For each row that is wrong, change the plan:
- it should reach a pipeline: give that pipeline triggers phrased like it (5 to 10 in all, in \
the skill's languages), or a description that says it;
- it lands on the wrong pipeline: make the triggers of the two pipelines say what only each does;
- it is a task of the skill that no pipeline does: add the pipeline, or a skill_mode entry with \
the reason;
- it is rightly left to Skill mode (or is no request at all): nothing.

Before you answer with a change, try it: `app-convert SKILL_DIR --plan PLAN_FILE --out \
SOME_NEW_FOLDER --smoke` verifies it (its routing self-test line says whether new triggers now \
pull the pipelines' own phrases elsewhere), and `app-run route SOME_NEW_FOLDER "a request" \
--json` shows where a request goes. Triggers that make two sibling pipelines alike help no one.

{strays}{ran}Answer with `{{"keep": true}}` to keep the plan as verified, or with the whole \
changed plan (YAML or one JSON object). A changed plan is verified again (this review is not \
asked twice); if it fails and no attempt is left, the plan below is the one written.

Your plan as verified:

```yaml
{plan}
```
"""


STRAYS = """\
## Your own phrases that run the wrong pipeline

Each description and trigger of your plan was routed as a request with itself left out, as a \
user's request worded like it would be. These are matched, with no question asked, to another \
pipeline than their own ("drawn by": that pipeline's phrase nearest to it). Reword each with \
what only its pipeline does (its object, its input, its outcome), move it to the pipeline \
whose task it says, or drop it; reword the drawing phrase when it is the vague one.

{lines}

"""


RAN = """\
## What your steps ran, through stand-ins

These programs are not installed where app-convert runs, so the smoke run gave each a \
stand-in that records its command line, prints nothing and exits 0 (a step may have stopped \
after it on the empty output: that is not held against the plan). Read each command line as \
the real program would: the order of options and operands, every flag and its value, what \
goes on stdin, the working folder (a step runs in its pipeline's folder unless it changes \
to APP_CALLER_CWD).

{calls}
{notices}
"""


def review_prompt(
    skill: str, plan_yaml: str, check: RequestCheck, verification: Verification | None = None
) -> str:
    """The review of a plan that passed: where the skill's own requests route, which of its
    own phrases the routing self-test matches to another pipeline, what its steps ran through
    stand-ins and what the smoke run found (``verification``), and the plan."""
    rows = []
    for routed in check.routed:
        mark = "⚠ " if routed.finding else ""
        decided = {"match": routed.pipeline, "no_match": "Skill mode"}.get(routed.decision)
        where = decided or "unsure: " + ", ".join(routed.candidates)
        text = routed.request.text.replace("|", "/")
        if routed.finding and routed.decision != "no_match" and routed.nearest:
            drew = "; ".join(routed.nearest).replace("|", "/")
            where += f" — nearest: {drew}"  # the phrases to reword, or to give the other
        rows.append(f"| {mark}{text} | {routed.request.where} | {where} |")
    return REVIEW.format(
        skill=skill,
        rows="\n".join(rows) or "| (the skill quotes no request) | | |",
        strays=_strays(verification),
        ran=_ran(verification),
        plan=plan_yaml.rstrip(),
    )


SHOWN_STRAYS = 20


def misrouted_rows(verification: Verification | None) -> list[dict[str, object]]:
    """The plan's own phrases matched to another pipeline, as the host's pause carries them."""
    wrong = verification.routing.misrouted if verification is not None else []
    return [s.to_dict() for s in wrong]


def _strays(verification: Verification | None) -> str:
    """The review's section on the plan's phrases matched to another pipeline ("" when none)."""
    wrong = verification.routing.misrouted if verification is not None else []
    if not wrong:
        return ""
    lines = [
        f'- {s.kind} "{s.text}" of `{s.own}` → `{s.other}` ({s.score:.2f} against {s.mine:.2f})'
        + (f', drawn by "{s.nearest}"' if s.nearest else "")
        for s in wrong[:SHOWN_STRAYS]
    ]
    if len(wrong) > SHOWN_STRAYS:
        lines.append(f"- ... and {len(wrong) - SHOWN_STRAYS} more")
    return STRAYS.format(lines="\n".join(lines))


def _ran(verification: Verification | None) -> str:
    """The review's section on the smoke run: command lines run through stand-ins and the
    findings to check ("" when there are none)."""
    if verification is None or not (verification.calls or verification.notices):
        return ""
    calls = [
        f"- {where}: `{call.line()}`"
        + (f" (in {call.cwd})" if call.cwd not in ("", ".") else "")
        + (f", stdin: {call.stdin[:80]!r}" if call.stdin else "")
        for where, call in verification.calls[:30]
    ]
    notices = [f"- ⚠ {n}" for n in verification.notices[:20]]
    return RAN.format(
        calls="\n".join(calls) or "(no program was stood in)",
        notices=("Findings — fix the step, or keep it when it is right:\n" + "\n".join(notices))
        if notices
        else "",
    )
