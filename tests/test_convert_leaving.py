"""Programs the heuristic leaves to Skill mode because no pipeline step can run them as a
user's task: a sign-in helper that waits for a person in the browser it opens
(controlling-spotify's ``get-refresh-token.js``, round 42), and a library the skill's code
imports whose own run is a demo (academic-scientific-visualization's ``figure_export.py``,
round 42).  Each with the case that must stay a pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.inventory.programs.browser import waits_for_browser
from skill2app.converter.plan.model import CodeStep

OAUTH_JS = """const http = require('http');
const { exec } = require('child_process');
const clientId = process.argv[2];
function openBrowser(url) { exec(`xdg-open "${url}"`); }
// server.listen(8888) below waits for the redirect
const server = http.createServer((req, res) => { res.end('ok'); server.close(); });
server.listen(8888, () => openBrowser('https://accounts.example.com/authorize'));
"""


def _kept_reason(plan, program: str) -> str:
    """Why ``program`` is left to Skill mode, after checking no pipeline runs it."""
    assert _running(plan, program) == []
    [item] = [k for k in plan.skill_mode if k.topic == program]
    return item.reason


def _running(plan, program: str) -> list[str]:
    return [
        pipeline.name
        for pipeline in plan.pipelines
        for step in pipeline.steps
        if isinstance(step, CodeStep) and step.program == program
    ]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        (OAUTH_JS, 6),  # the comment on line 5 is not where it serves
        ("import webbrowser\nfrom http.server import HTTPServer\n"
         "s = HTTPServer(('127.0.0.1', 0), H)\nwebbrowser.open(url)\ns.serve_forever()\n", 3),
        ("import http from 'http';\nhttp.createServer(h).listen(3000);\n", 0),  # serves only
        ("import webbrowser\nwebbrowser.open('https://example.com/docs')\n", 0),  # opens only
        # the reviewer's: a help text naming xdg-open opens nothing
        ("p = Parser(description='open it with xdg-open')\ns = HTTPServer(a, H)\n"
         "s.handle_request()\n", 0),
    ],
)  # fmt: skip
def test_where_a_program_waits_for_the_browser_it_opens(source: str, line: int) -> None:
    assert waits_for_browser(source) == line


def test_a_sign_in_helper_waiting_for_the_browser_is_left_to_skill_mode(tmp_path: Path) -> None:
    skill = write_tree(
        tmp_path / "spotify",
        {
            "SKILL.md": "---\nname: spotify\ndescription: Control Spotify.\n---\n## Setup\n\n"
            "Get a refresh token:\n\n```bash\nnode scripts/get-token.js YOUR_ID YOUR_SECRET\n```\n",
            "scripts/get-token.js": OAUTH_JS,
        },
    )
    reason = _kept_reason(analyze(build_inventory(skill)), "scripts/get-token.js")
    assert "browser" in reason and "scripts/get-token.js:6" in reason


def test_a_viewer_that_can_write_its_page_always_writes_it(tmp_path: Path) -> None:
    """skill-creator's generate_review.py serves for the browser unless ``--static FILE``:
    its pipelines pass --static (by default a page named after it) instead of waiting for
    ever."""
    viewer = (
        "import argparse, webbrowser\nfrom http.server import HTTPServer\n"
        "p = argparse.ArgumentParser()\np.add_argument('workspace')\n"
        "p.add_argument('--static', default=None)\na = p.parse_args()\n"
        "if a.static:\n    open(a.static, 'w').write('<html/>')\n    raise SystemExit(0)\n"
        "s = HTTPServer(('127.0.0.1', 0), None)\nwebbrowser.open('http://127.0.0.1')\n"
        "s.serve_forever()\n"
    )
    skill = write_tree(
        tmp_path / "review",
        {
            "SKILL.md": "---\nname: review\ndescription: Review eval results.\n---\n"
            "## Show the results\n\n```bash\npython scripts/viewer.py workspace/\n```\n",
            "scripts/viewer.py": viewer,
        },
    )
    plan = analyze(build_inventory(skill))
    [name] = _running(plan, "scripts/viewer.py")
    pipeline = next(p for p in plan.pipelines if p.name == name)
    step = next(s for s in pipeline.steps if isinstance(s, CodeStep))
    [arg] = [a for a in step.args if a.flag == "--static"]
    [given] = [i for i in pipeline.input if f"input.{i.name}" == arg.ref]
    assert given.required or given.default == "viewer.html"  # never left unset


LIBRARY = (
    "import matplotlib.pyplot as plt\n\n"
    "def save_publication_figure(fig, name, formats=('pdf',)):\n"
    "    for f in formats:\n        fig.savefig(f'{name}.{f}')\n\n"
    "if __name__ == '__main__':\n    # Example usage\n"
    "    fig, ax = plt.subplots()\n    save_publication_figure(fig, 'example_figure')\n"
)


def test_a_library_the_skill_imports_is_no_pipeline_of_its_demo(tmp_path: Path) -> None:
    skill = write_tree(
        tmp_path / "figures",
        {
            "SKILL.md": "---\nname: figures\ndescription: Publication figures.\n---\n"
            "## Export\n\nRun `python scripts/figure_export.py` for examples, and in your "
            "code:\n\n```python\nfrom figure_export import save_publication_figure\n"
            "save_publication_figure(fig, 'fig1')\n```\n",
            "scripts/figure_export.py": LIBRARY,
        },
    )
    reason = _kept_reason(analyze(build_inventory(skill)), "scripts/figure_export.py")
    assert "SKILL.md:10" in reason and "demo" in reason


def test_a_program_a_document_runs_is_no_demo_though_imported(tmp_path: Path) -> None:
    """The reviewer's: `python scripts/prices.py` under "## Today's prices" (live data, no
    arguments) is a task, though SKILL.md also shows `from prices import get`."""
    prices = (
        "import urllib.request\n\ndef get():\n    return urllib.request.urlopen('https://x').read()\n"
        "\nif __name__ == '__main__':\n    print(get())\n"
    )
    skill = write_tree(
        tmp_path / "prices",
        {
            "SKILL.md": "---\nname: prices\ndescription: Prices.\n---\n## Today's prices\n\n"
            "```bash\npython scripts/prices.py\n```\n\n```python\nfrom prices import get\n```\n",
            "scripts/prices.py": prices,
        },
    )
    assert _running(analyze(build_inventory(skill)), "scripts/prices.py")


def test_an_imported_module_that_reads_its_command_line_stays_a_pipeline(tmp_path: Path) -> None:
    tool = (
        "import sys\n\ndef convert(path):\n    return path.upper()\n\n"
        "if __name__ == '__main__':\n    print(convert(sys.argv[1]))\n"
    )
    skill = write_tree(
        tmp_path / "conv",
        {
            "SKILL.md": "---\nname: conv\ndescription: Convert names.\n---\n## Convert\n\n"
            "```bash\npython scripts/conv.py notes.txt\n```\n\nor in Python:\n\n"
            "```python\nfrom conv import convert\n```\n",
            "scripts/conv.py": tool,
        },
    )
    plan = analyze(build_inventory(skill))
    assert _running(plan, "scripts/conv.py")


def _adapter_skill(tmp_path: Path, documents: int, in_skill_md: list[str]) -> Path:
    """A program of 9 subcommands, shown spread over ``documents`` references."""
    words = [f"step{i}" for i in range(9)]
    adapter = "import argparse\np = argparse.ArgumentParser()\nsub = p.add_subparsers(dest='c')\n"
    adapter += "".join(f"s = sub.add_parser('{w}')\ns.add_argument('--root')\n" for w in words)
    adapter += "p.parse_args()\n"
    files = {f"references/part{n}.md": f"# Part {n}\n\n" for n in range(documents)}
    for i, word in enumerate(words):
        files[f"references/part{i % documents}.md"] += (
            f"Then:\n\n```bash\npython3 scripts/adapter.py {word} --root R\n```\n\n"
        )
    shown = "".join(f"```bash\npython3 scripts/adapter.py {w} --root R\n```\n" for w in in_skill_md)
    links = " ".join(f"[part {n}](references/part{n}.md)" for n in range(documents))
    return write_tree(
        tmp_path / "loop",
        {
            "SKILL.md": "---\nname: loop\ndescription: Run the issue loop.\n---\n# Loop\n\n"
            f"## Tick\n\nSee {links}.\n\n{shown}",
            **files,
            "scripts/adapter.py": adapter,
        },
    )


def test_many_subcommands_several_references_run_are_a_workflows_steps(tmp_path: Path) -> None:
    """github-issue's polling_adapter.py (FRESH41): 18 subcommands, which SKILL.md never
    names, shown across four references as steps of the polling loop; 13 wrapper pipelines
    of state plumbing (`claim-lock`, `kill-files`) came out of the heuristic."""
    plan = analyze(build_inventory(_adapter_skill(tmp_path, 3, [])))
    assert _running(plan, "scripts/adapter.py") == []
    kept = [k for k in plan.skill_mode if k.topic.startswith("scripts/adapter.py ")]
    assert len(kept) == 9 and all("steps of what they describe" in k.reason for k in kept)


@pytest.mark.parametrize(("documents", "in_skill_md"), [(1, []), (3, ["step3"])])
def test_a_command_reference_or_skill_md_keeps_the_subcommands(
    tmp_path: Path, documents: int, in_skill_md: list[str]
) -> None:
    """The reviewer's: an ordinary CLI whose commands one reference lists, or one SKILL.md
    runs, keeps a pipeline per subcommand."""
    plan = analyze(build_inventory(_adapter_skill(tmp_path, documents, in_skill_md)))
    assert len(_running(plan, "scripts/adapter.py")) == 9


def test_a_sign_in_helper_that_only_skips_the_browser_still_waits(tmp_path: Path) -> None:
    """The reviewer's: `--no-browser` prints the URL but the helper still waits on its port."""
    helper = (
        "import argparse, webbrowser\nfrom http.server import HTTPServer\n"
        "p = argparse.ArgumentParser()\np.add_argument('--no-browser', action='store_true')\n"
        "a = p.parse_args()\nif not a.no_browser:\n    webbrowser.open('https://auth')\n"
        "HTTPServer(('127.0.0.1', 8888), None).handle_request()\n"
    )
    skill = write_tree(
        tmp_path / "auth",
        {
            "SKILL.md": "---\nname: auth\ndescription: Sign in.\n---\n## Sign in\n\n"
            "```bash\npython scripts/auth.py --no-browser\n```\n",
            "scripts/auth.py": helper,
        },
    )
    assert _running(analyze(build_inventory(skill)), "scripts/auth.py") == []


def test_a_table_of_contents_is_no_topic_left_to_skill_mode(tmp_path: Path) -> None:
    """A newcomer's trial: the heuristic listed "Table of Contents" (the document's own map)
    among what stays in Skill mode; a section of guidance still is."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: csm\ndescription: Customer success.\n---\n# CSM\n\n"
            "## Table of Contents\n\n- [Health](#health)\n- [Churn](#churn)\n\n"
            "## Health\n\nWeigh usage, engagement and support when you judge an account.\n",
        },
    )
    topics = [k.topic for k in analyze(build_inventory(tmp_path)).skill_mode]
    assert "Table of Contents" not in topics
    assert "Health" in topics
