"""app-convert on real skills: one program, several tasks; what a skill says it is for.

Minimal skills reproduce what held-out skills showed: takusaotome's qr-code-generator runs one
argparse script three ways (``--data``, ``--batch``, ``--vcard``), each under its own section,
and got one catch-all pipeline; the items of a "When to Use" section never became triggers;
bm25's only trigger was "architecture", the title above a call tree whose first line
("bm25.py CLI") was read as a run of the program.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.analyzers.situations import as_request, when_items
from skill2app.converter.analyzers.when_clauses import use_when_phrases
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.model import CodeStep, Pipeline, Plan

HEAD = "---\nname: qr-maker\ndescription: Make QR code images.\n---\n\n# QR maker\n\n"
QR_PY = """import argparse
parser = argparse.ArgumentParser(description="Generate QR code images.")
parser.add_argument("--data", help="Data to encode")
parser.add_argument("--output", default="qr.png", help="Output PNG file path")
parser.add_argument("--box-size", type=int, default=10, help="Pixels per module")
parser.add_argument("--vcard", action="store_true", help="Generate a vCard QR code")
parser.add_argument("--name", help="Contact name for vCard")
parser.add_argument("--phone", help="Phone number for vCard")
parser.add_argument("--org", help="Organization for vCard")
parser.add_argument("--batch", help="Batch input file (CSV or JSON)")
parser.add_argument("--output-dir", default="out", help="Output directory for batch generation")
args = parser.parse_args()
"""
MODES_MD = (
    HEAD
    + "## When to Use\n\n"
    + "- User wants to generate a single QR code from a URL\n"
    + "- User needs to create QR codes in batch from a CSV file\n"
    + "- User asks to encode a contact card (vCard) as a QR code\n\n"
    + "## Generate a Single QR Code\n\n```bash\n"
    + 'python3 scripts/qr.py --data "https://example.com" --output ./one.png --box-size 12\n```\n\n'
    + "## Generate Batch QR Codes (Optional)\n\n```bash\n"
    + "python3 scripts/qr.py --batch ./list.csv --output-dir ./qr_out/\n```\n\n"
    + "## Generate a vCard QR Code\n\n```bash\n"
    + 'python3 scripts/qr.py --vcard --name "Jo Doe" --phone "+1-555-0100" --output ./card.png\n'
    + "```\n"
)


def plan_of(root: Path, files: dict[str, Any]) -> Plan:
    return analyze(build_inventory(write_tree(root, files)))


def by_name(plan: Plan) -> dict[str, Pipeline]:
    return {p.name: p for p in plan.pipelines}


def step_of(pipeline: Pipeline) -> CodeStep:
    step = pipeline.steps[0]
    assert isinstance(step, CodeStep)
    return step


def test_a_program_shown_for_three_tasks_gets_a_pipeline_per_task(tmp_path: Path) -> None:
    """qr-code-generator: one catch-all pipeline mirrored the script's argparse."""
    plan = plan_of(tmp_path, {"SKILL.md": MODES_MD, "scripts/qr.py": QR_PY})
    pipelines = by_name(plan)
    assert list(pipelines) == [
        "generate-a-single-qr-code",
        "generate-batch-qr-codes",
        "generate-a-vcard-qr-code",
    ]
    single, batch, vcard = pipelines.values()
    # each task offers its own flags and the shared options, never another task's
    assert {i.name for i in single.input} == {"data", "box_size", "output"}
    assert {i.name: i.required for i in single.input}["data"] is True
    assert {i.name for i in batch.input} >= {"batch", "output_dir"}
    assert {i.name: i.required for i in batch.input}["batch"] is True
    assert not {"data", "name", "phone", "vcard"} & {i.name for i in batch.input}
    assert {i.name for i in vcard.input} >= {"name", "phone", "org"}  # org: its help says vCard
    assert not {"data", "batch", "output_dir", "vcard"} & {i.name for i in vcard.input}
    # the vCard switch is on in its step, and in no other
    assert [a.to_dict() for a in step_of(vcard).args][0] == {"flag": "--vcard"}
    assert all(a.flag != "--vcard" for p in (single, batch) for a in step_of(p).args)
    # the "When to Use" item about each task is one of its triggers
    assert "create QR codes in batch from a CSV file" in batch.triggers
    assert any("contact card" in t for t in vcard.triggers)


def test_the_same_task_with_more_options_stays_one_pipeline(tmp_path: Path) -> None:
    """A basic use and the same use "with options" are one task: the basic one has no flag
    of its own."""
    md = (
        HEAD
        + "## Generate a QR Code\n\n```bash\npython3 scripts/qr.py --data https://a.example\n```\n\n"
        + "## Generate a Larger QR Code\n\n```bash\n"
        + "python3 scripts/qr.py --data https://a.example --box-size 20\n```\n"
    )
    plan = plan_of(tmp_path, {"SKILL.md": md, "scripts/qr.py": QR_PY})
    assert [p.name for p in plan.pipelines] == ["qr"]


def test_when_to_use_items_are_said_as_requests(tmp_path: Path) -> None:
    md = (
        HEAD
        + "## When to Use This Skill\n\nUse this skill when:\n"
        + "- Searching for specific papers on PubMed\n"
        + "- User wants to **convert** DOIs to BibTeX → see the DOI section\n"
        + "- What's your read on [person]?\n"
        + "- Do not use it for scanned forms\n\n"
        + "## When NOT to Use\n\n- Converting Word files\n\n## Usage\n\nText.\n"
    )
    inventory = build_inventory(write_tree(tmp_path, {"SKILL.md": md}))
    assert when_items(inventory.skill) == [
        "search for specific papers on PubMed",
        "convert DOIs to BibTeX",
    ]
    assert as_request("用户想查询明天的天气") == "查询明天的天气"
    assert as_request("`policy / rule` requests") == ""
    # "You" is a word: git-worktree-manager's "Your current branch is blocked ..." became the
    # trigger "r current branch is blocked ..."
    said = as_request("Your current branch is blocked but you need to ship a quick fix now")
    assert said.startswith("your current branch")


def test_a_description_naming_its_trigger_phrases_gives_them(tmp_path: Path) -> None:
    """bm25: 'Triggers on "rank these documents", "search this corpus", ...' gave nothing."""
    text = (
        'Ranked search over a corpus. Use when picking the "most relevant files". '
        'Triggers on "rank these documents", "search this corpus", or "find content about X".'
    )
    assert use_when_phrases(text) == [
        'picking the "most relevant files"',
        "rank these documents",  # a tail of quoted requests gives each, unquoted
        "search this corpus",
        "find content about X",
    ]


def test_the_skills_own_program_takes_what_the_skill_is_for(tmp_path: Path) -> None:
    """bm25: the one program named like the skill got the trigger "architecture" (the title
    above a call tree) instead of the description's situations."""
    md = (
        "---\nname: ranker\ndescription: Ranked search. Use when ranking documents for a query,"
        " or when finding the files most about a topic.\n---\n\n# ranker\n\n## Usage\n\n"
        "```bash\npython3 scripts/ranker.py ./repo 'csrf middleware'\n```\n\n"
        "## Architecture\n\n```\nranker.py CLI\n  ├── resolve(spec)  → a local path\n"
        "  └── query(q, k)     → ranked pairs\n```\n"
    )
    program = (
        "import argparse\np = argparse.ArgumentParser(description='Ranked search.')\n"
        "p.add_argument('corpus')\np.add_argument('queries', nargs='*')\np.parse_args()\n"
    )
    plan = plan_of(tmp_path / "a", {"SKILL.md": md, "scripts/ranker.py": program})
    (pipeline,) = plan.pipelines
    assert "ranking documents for a query" in pipeline.triggers
    assert "finding the files most about a topic" in pipeline.triggers
    assert not any("architecture" in t.lower() for t in pipeline.triggers)
    # a helper the skill ships alone is not what the skill is for
    helper = md.replace("scripts/ranker.py", "scripts/with_server.py")
    plan = plan_of(tmp_path / "b", {"SKILL.md": helper, "scripts/with_server.py": program})
    (pipeline,) = plan.pipelines
    assert "ranking documents for a query" not in pipeline.triggers


def test_a_program_run_through_a_variable_is_found_with_its_comments(tmp_path: Path) -> None:
    """wix-design-system: `WDS="<this-skill-dir>/scripts/wds.cjs"`, then `node $WDS search
    <keyword>   # Find components by keyword`: the commands were not read as runs of the
    program (only its own usage header was), so the pipelines were "Search", "Icons"."""
    md = (
        "---\nname: lookup\ndescription: Look things up.\n---\n\n# Lookup\n\n```bash\n"
        'LK="<this-skill-dir>/scripts/lk.cjs"\n\n'
        "node $LK search <keyword>     # Find components by keyword\n"
        "node $LK icons <query>        # Search for icons\n```\n\n"
        "## Examples\n\n```bash\nnode ${LK} search modal dialog\n```\n"
    )
    program = (
        "const [cmd, ...rest] = process.argv.slice(2);\n"
        "switch (cmd) {\n  case 'search': console.log(rest); break;\n"
        "  case 'icons': console.log(rest); break;\n}\n"
    )
    inventory = build_inventory(write_tree(tmp_path, {"SKILL.md": md, "scripts/lk.cjs": program}))
    (found,) = inventory.programs
    assert [(i.file, i.argv[0]) for i in found.invocations] == [
        ("SKILL.md", "search"),
        ("SKILL.md", "icons"),
        ("SKILL.md", "search"),
    ]
    plan = analyze(inventory)
    described = {p.name: p.description for p in plan.pipelines}
    assert described["lk-search"].startswith("Find components by keyword")
    assert described["lk-icons"].startswith("Search for icons")
