"""app-convert on real skills: what the constructor demands must be true.

Each test is a minimal skill built from dicts that reproduces one defect class seen on public
skills: the skill's own modules taken for packages, platform fallbacks required everywhere,
prose and directory-tree words taken for programs, a list of allowed folders taken for a
required one, needs of a module not tied to the programs importing it.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.document import collect_rules
from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.inventory.requirements import sentence_of
from skill2app.converter.plan.model import Check
from skill2app.converter.render.checks import constructor_checks
from skill2app.converter.render.render import render_app

HEAD = "---\nname: demo\ndescription: Does things with documents.\n---\n# Demo\n\n"


def needs(root: Path) -> set[tuple[str, str, bool]]:
    return {(r.kind, r.name, r.required) for r in build_inventory(root).requirements}


def names(root: Path) -> set[str]:
    return {name for _kind, name, _required in needs(root)}


def test_the_skills_own_modules_are_no_packages(tmp_path: Path) -> None:
    """docx/xlsx: `scripts/office/` holds helpers, validators and soffice; recalc.py imports
    `office.soffice`, unpack.py imports `helpers` after putting its folder on sys.path."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "Run `python scripts/recalc.py book.xlsx`.\n",
            "scripts/recalc.py": "import sys\nfrom office.soffice import env\nimport openpyxl\n"
            "if __name__ == '__main__':\n    print(env)\n",
            "scripts/office/soffice.py": "env = {}\n",
            "scripts/office/unpack.py": (
                "import sys\nfrom pathlib import Path\n"
                "sys.path.insert(0, str(Path(__file__).parent))\n"
                "from helpers.merge import merge\nimport validators\nimport defusedxml\n"
                "if __name__ == '__main__':\n    merge()\n"
            ),
            "scripts/office/helpers/__init__.py": "",
            "scripts/office/helpers/merge.py": "def merge():\n    pass\n",
            "scripts/office/validators/__init__.py": "from .base import check\n",
            "scripts/office/validators/base.py": "import lxml\ndef check():\n    pass\n",
            "scripts/tool.ts": "import { a } from '~/lib/a';\nimport b from '@/b';\n"
            "import z from 'zod';\nconst c = require('./c');\n",
            "tsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./src/*"], "@/*": ["x/*"]}}}',
        },
    )
    found = names(tmp_path)
    assert {"office", "helpers", "validators", "~", "@/b", "lib", "c"}.isdisjoint(found)
    assert {"openpyxl", "defusedxml", "lxml", "zod"} <= found


def test_a_documents_python_example_importing_the_skills_scripts_needs_no_package(
    tmp_path: Path,
) -> None:
    """notion-sdk (round 5): SKILL.md's ``from scripts.create_page import ...`` (the skill's
    own scripts/ folder, no ``__init__.py``) was a package "scripts" to install."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```python\nfrom notion_client import Client\n"
            "from scripts.create_page import create_database_page\n```\n",
            "scripts/create_page.py": "from notion_client import Client\n",
        },
    )
    found = names(tmp_path)
    assert "scripts" not in found and "notion_client" in found


def test_a_platform_branch_or_a_fallback_is_a_warning(tmp_path: Path) -> None:
    """gtimeout only on macOS and only if present; gcc only when a probe says a shim is
    needed; lsof tolerated when missing; LOCALAPPDATA only on Windows; `which gtimeout ||
    which timeout` is a choice of either."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "Run `python scripts/recalc.py a.xlsx` or `bash scripts/go.sh`.\n",
            "scripts/recalc.py": (
                "import platform, socket, subprocess\n"
                "def has_gtimeout():\n"
                "    try:\n        subprocess.run(['gtimeout', '--version'])\n        return True\n"
                "    except FileNotFoundError:\n        return False\n"
                "def needs_shim():\n"
                "    try:\n        socket.socket(socket.AF_UNIX)\n        return False\n"
                "    except OSError:\n        return True\n"
                "def build_shim():\n    subprocess.run(['gcc', '-shared', 'x.c'])\n"
                "def free_port():\n"
                "    try:\n        subprocess.run(['lsof', '-ti', ':80'])\n"
                "    except FileNotFoundError:\n        print('no lsof')\n"
                "def main():\n"
                "    if needs_shim():\n        build_shim()\n"
                "    free_port()\n"
                "    cmd = ['soffice', '--headless']\n"
                "    if platform.system() == 'Linux':\n        cmd = ['timeout', '5'] + cmd\n"
                "    elif platform.system() == 'Darwin' and has_gtimeout():\n"
                "        cmd = ['gtimeout', '5'] + cmd\n"
                "    subprocess.run(cmd)\n"
                "if __name__ == '__main__':\n    main()\n"
            ),
            "scripts/go.sh": (
                "#!/bin/bash\nT=$(command -v gtimeout || command -v timeout)\n"
                "command -v jq >/dev/null || { echo 'install jq'; exit 1; }\n"
                'if [[ "$OSTYPE" == msys* ]]; then\n  D="${LOCALAPPDATA:?}"\nfi\n'
            ),
            "scripts/paths.js": (
                "const base = process.platform === 'win32'\n"
                "  ? process.env.LOCALAPPDATA\n  : process.env.HOME;\n"
                "if (process.platform === 'darwin') {\n  require('child_process')"
                ".execSync('osascript -e x');\n}\n"
                "const id = process.env.APP_ID;\nif (id) { console.log(id); }\n"
                "const key = process.env.APP_KEY;\n"
            ),
        },
    )
    found = needs(tmp_path)
    for name in ("gtimeout", "timeout", "gcc", "lsof", "osascript"):
        assert ("binary", name, False) in found, name
    assert ("binary", "soffice", True) in found
    assert ("binary", "jq", True) in found  # the script stops without it
    assert ("env", "LOCALAPPDATA", False) in found
    assert ("env", "APP_ID", False) in found  # tested before use: the script copes
    assert ("env", "APP_KEY", True) in found


def test_a_variable_read_once_the_program_saw_it_is_set_is_optional(tmp_path: Path) -> None:
    """book-extract (round 10): `elif "X" in os.environ: ... os.environ["X"]` made X a
    blocking requirement, and the skill's own typo `os.environ["ROOT/cache"]` a variable."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "Run `python scripts/out.py book.epub`.\n",
            "scripts/out.py": (
                "import os, sys\n"
                "if len(sys.argv) > 2:\n    out = sys.argv[2]\n"
                'elif "BOOK_DIR" in os.environ:\n    out = os.environ["BOOK_DIR"]\n'
                'elif "BOOK_ROOT/cache" in os.environ:\n    out = os.environ["BOOK_ROOT/cache"]\n'
                "else:\n    out = os.path.expanduser('~/.cache/books')\n"
                'print(out, os.environ["BOOK_TOKEN"])\n'
            ),
        },
    )
    found = needs(tmp_path)
    assert ("env", "BOOK_DIR", False) in found
    assert ("env", "BOOK_TOKEN", True) in found
    assert not [n for kind, n, _required in found if kind == "env" and "/" in n]


def test_a_package_the_program_does_without_is_optional_whatever_installs_it(
    tmp_path: Path,
) -> None:
    """ashare-news-fetcher (round 11): `pip install akshare` in SKILL.md made akshare, which
    the program imports in a `try` and does without, block every run; a flag the program stops
    on (`if not HAS_X: raise`) still needs the package; `/ashare-news-fetcher ...` is the
    agent's own command, and a 登录墙 (login wall) is no login."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "不抓取付费/登录墙后的内容。\n\n```\n/news 000001\n```\n\n"
            "```bash\npip install akshare\npip install scholarly\n"
            "python3 scripts/news.py\n```\n",
            "scripts/news.py": (
                "import requests\nfrom urllib3.util.retry import Retry\n"
                "try:\n    import akshare\nexcept Exception:\n    akshare = None\n"
                "try:\n    import scholarly\n    HAS_SCHOLARLY = True\n"
                "except ImportError:\n    HAS_SCHOLARLY = False\n"
                "def search():\n    if not HAS_SCHOLARLY:\n"
                "        raise ImportError('pip install scholarly')\n"
                "search()\n"
            ),
        },
    )
    found = needs(tmp_path)
    assert ("python-package", "akshare", False) in found
    assert ("python-package", "scholarly", True) in found
    assert ("python-package", "requests", True) in found
    assert not [n for kind, n, _r in found if n == "urllib3"]  # requests brings it
    assert not [n for kind, n, _r in found if kind == "binary" and "news" in n]
    assert not [n for kind, n, _r in found if kind == "auth"]


def test_words_of_prose_and_trees_are_no_programs(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "```\nmy-skill/\n├── SKILL.md\n├── scripts/   # optional\n│   └── etc.\n"
            "└── references/ (overview below)\n```\n\n"
            "```\noptional: the flags below\ndynamic positional arguments are read (see below)\n"
            "container where Claude executes tools\nRecommend: $60K (mid-range of the budget)\n"
            "```\n\n```bash\nffmpeg -i in.mp4 out.gif\n```\n",
        },
    )
    binaries = {name for kind, name, _r in needs(tmp_path) if kind == "binary"}
    assert binaries == {"ffmpeg"}


def test_a_value_to_fill_in_is_no_variable(tmp_path: Path) -> None:
    """feishu: `--chat-id "CHAT_ID"` and, below it, "`CHAT_ID` 不知道可省略" (may be left out
    when unknown) name the value to put in the command; `$TOKEN_DIR` is a variable."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + '```bash\nnode ./auth.js --open-id "SENDER_OPEN_ID" --chat-id "CHAT_ID"\n'
            'ls "$TOKEN_DIR"\n```\n\n- `CHAT_ID` 不知道可省略\n- `SENDER_OPEN_ID` 必填\n'
            "- `API_BASE_URL` sets the server\n",
            "auth.js": "const a = process.argv.slice(2);\nconsole.log(JSON.stringify(a));\n",
        },
    )
    variables = {name for kind, name, _r in needs(tmp_path) if kind == "env"}
    assert variables == {"TOKEN_DIR", "API_BASE_URL"}


def test_a_login_is_one_entry_named_by_what_signs_in(tmp_path: Path) -> None:
    """gh skills: "authenticated", "authentication", "log in", "login" were four checks."""
    prose = (
        "Make sure gh is authenticated. If authentication fails, log in again; the login "
        "needs a token with the repo scope.\n"
    )
    write_tree(tmp_path / "a", {"SKILL.md": HEAD + prose + "Run `gh auth status` first.\n"})
    write_tree(tmp_path / "b", {"SKILL.md": HEAD + prose})
    assert {(k, n) for k, n, _r in needs(tmp_path / "a") if k == "auth"} == {
        ("auth", "gh auth status")
    }
    assert {(k, n) for k, n, _r in needs(tmp_path / "b") if k == "auth"} == {("auth", "token")}


def test_a_file_named_in_passing_is_only_a_warning(tmp_path: Path) -> None:
    """cc-skills: a log the program keeps, a legacy folder, a fallback it tries and a file
    said to be not needed were constructor checks that stopped every pipeline."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "- **Log location**: `~/.local/state/demo/audit.jsonl`, one file per day.\n"
            "- Stale links from a legacy copy in `~/.claude/tools/demo/` masked the script.\n"
            "- Try the service token first (`~/.secrets/demo-token`).\n"
            "- Rotation in `~/.config/rotation.conf` is therefore not needed.\n"
            "- Put your API key in `~/.config/demo/key.json`.\n"
            "- Create `.env.local` (gitignored) for credentials:\n"
            "- 用户级 `~/.claude/CLAUDE.md` 会被所有项目加载，只能放普遍适用的东西。\n"
            "- `~/.claude/settings.json` is read by every session.\n",
        },
    )
    files = {(n, r) for k, n, r in needs(tmp_path) if k == "file"}
    assert files == {
        ("~/.local/state/demo/audit.jsonl", False),
        ("~/.claude/tools/demo/", False),
        ("~/.secrets/demo-token", False),
        ("~/.config/rotation.conf", False),
        ("~/.config/demo/key.json", True),
        (".env.local", False),  # cc-skills mlflow-python: variables the environment may set
        # claude-md-progressive-disclosurer (fresh8): what the skill works on, loaded by others
        ("~/.claude/CLAUDE.md", False),
        ("~/.claude/settings.json", False),
    }


def test_a_file_the_skill_checks_for_is_never_required(tmp_path: Path) -> None:
    """cc-skills worktree-manager (round 5): "loads shared credentials from `~/eon/.env`" made
    the file required, though the next lines say "Script checks if `~/eon/.env` exists"; the
    constructor then stopped every pipeline on a machine without it."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "Worktrees get a `.envrc` that loads shared credentials from `~/eon/.env.af`.\n\n"
            "1. Script checks if `~/eon/.env.af` exists\n"
            "2. 如果 `~/.demo/cache.json` 存在则读取它\n"
            "3. Put your API key in `~/.config/demo/key.json`.\n",
        },
    )
    files = {(n, r) for k, n, r in needs(tmp_path) if k == "file"}
    assert files == {
        ("~/eon/.env.af", False),
        ("~/.demo/cache.json", False),
        ("~/.config/demo/key.json", True),
    }


@pytest.mark.parametrize(
    "prose",
    [
        "天气查询。无需 API Key，支持中文。",
        "Free service: no API key needed.",
        "API key: not required.",
    ],
)
def test_a_login_the_skill_says_it_does_without_is_not_listed(tmp_path: Path, prose: str) -> None:
    """countbot weather (round 5): "无需 API Key" made a required "api key" login; then a
    warning a judge still called spurious (round 6): the skill says it needs none."""
    write_tree(tmp_path, {"SKILL.md": HEAD + prose + "\nThe token is cached for an hour.\n"})
    assert [k for k, _n, _r in needs(tmp_path) if k == "auth"] == []


def test_allowed_folders_and_files_others_make_are_no_file_checks(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "`--image-path` 只允许读取以下目录内的文件：\n\n- `/tmp/`\n- `~/.demo/media`\n"
            "- `~/.demo/tenants/`\n\n"
            "Allowed folders:\n- `~/Documents/in`\n\n"
            "The file downloads to `~/Downloads/eval_set.json`.\n"
            "Set `rmcp = true` in `config.toml`.\n"
            "Put your key in `~/.demo/key.json`.\n",
        },
    )
    files = {(name, required) for kind, name, required in needs(tmp_path) if kind == "file"}
    assert files == {("~/.demo/key.json", True)}


def test_a_package_that_runs_a_program_needs_that_program(tmp_path: Path) -> None:
    """pdf2image runs pdftoppm: a pipeline converting pages fails without it."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython scripts/pages.py in.pdf out/\n```\n",
            "scripts/pages.py": "import sys\nfrom pdf2image import convert_from_path\n"
            "convert_from_path(sys.argv[1])\n",
        },
    )
    found = build_inventory(tmp_path).requirements
    pdftoppm = next(r for r in found if r.name == "pdftoppm")
    assert (pdftoppm.kind, pdftoppm.required) == ("binary", True)
    assert pdftoppm.where == ["scripts/pages.py:2"]


def test_a_command_in_a_variable_is_a_program_the_script_runs(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython scripts/loop.py --model m\n```\n",
            "scripts/loop.py": (
                "import argparse, os, subprocess\n"
                "from anthropic import Anthropic\n"
                "def ask(q):\n    cmd = ['claude', '-p', q]\n"
                "    env = {k: v for k, v in os.environ.items()}\n"
                "    env.pop('CLAUDECODE', None)\n"
                "    return subprocess.run(cmd, env=env)\n"
                "def main():\n    p = argparse.ArgumentParser()\n    p.add_argument('--model')\n"
                "    p.parse_args()\n    ask('x')\n    Anthropic()\n"
                "if __name__ == '__main__':\n    main()\n"
            ),
        },
    )
    found = needs(tmp_path)
    assert ("binary", "claude", True) in found
    assert ("env", "ANTHROPIC_API_KEY", True) in found
    assert not any(name == "CLAUDECODE" for _k, name, _r in found)


def office_skill(root: Path) -> Path:
    return write_tree(
        root,
        {
            "SKILL.md": HEAD
            + "## Pack\n\n```bash\npython scripts/pack.py unpacked/ out.docx\n```\n\n"
            "## Recalculate\n\n```bash\npython scripts/recalc.py book.xlsx\n```\n",
            "scripts/pack.py": (
                "import argparse\nfrom validators import check\n"
                "p = argparse.ArgumentParser()\np.add_argument('input_directory')\n"
                "p.add_argument('output_file')\np.parse_args()\n"
            ),
            "scripts/validators/__init__.py": "from .redline import check\n",
            "scripts/validators/redline.py": (
                "import subprocess\ndef check():\n    subprocess.run(['git', 'diff'])\n"
            ),
            "scripts/recalc.py": "import sys\nimport openpyxl\nprint(sys.argv)\n",
            "scripts/unused.py": (
                "import argparse\nimport lxml\np = argparse.ArgumentParser()\n"
                "p.add_argument('--x')\np.parse_args()\n"
            ),
        },
    )


def test_a_need_of_a_module_names_the_pipelines_running_its_importers(tmp_path: Path) -> None:
    """git is run by a validator module that pack.py imports: the check names the pack
    pipeline, not the recalc one; a program no document mentions gets no pipeline, and its
    needs no check."""
    office_skill(tmp_path / "skill")
    inventory = build_inventory(tmp_path / "skill")
    git = next(r for r in inventory.requirements if r.name == "git")
    assert "scripts/pack.py" in git.where
    plan = analyze(inventory)
    assert sorted(p.name for p in plan.pipelines) == ["pack", "recalc"]
    assert [i.topic for i in plan.skill_mode if i.topic == "scripts/unused.py"]
    assert "lxml" not in {c.name for c in plan.constructor.checks}

    from skill2app.converter.convert import Options, convert

    out = tmp_path / "app"
    convert(Options(tmp_path / "skill", out=out, analyzer="heuristic"))
    source = (out / "pipelines/_constructor/steps/check_environment.py").read_text()
    checks = ast.literal_eval(source.split("CHECKS = ", 1)[1].split("\n\n\n")[0])
    scoped = {c["name"]: c.get("pipelines") for c in checks}
    assert scoped["git"] == ["pack"]
    assert scoped["openpyxl"] == ["recalc"]


@pytest.mark.parametrize("plan_only", [False, True])
def test_an_unusual_program_never_stops_the_conversion(tmp_path: Path, plan_only: bool) -> None:
    """skill-creator: a documented command whose positional is `<workspace>/iteration-N`,
    and a workflow leaving out a positional the program requires."""
    from skill2app.converter.convert import Options, convert

    write_tree(
        tmp_path / "skill",
        {
            "SKILL.md": HEAD + "## Benchmark\n\n1. Run the evals.\n2. Aggregate:\n"
            "   ```bash\n   python -m scripts.aggregate <workspace>/iteration-N --name <name>\n"
            "   ```\n3. Read the summary and tell the user what changed.\n\n"
            "## Package\n\n```bash\npython -m scripts.package <path/to/skill>\n```\n",
            "scripts/__init__.py": "",
            "scripts/aggregate.py": (
                "import argparse\np = argparse.ArgumentParser()\np.add_argument('benchmark_dir')\n"
                "p.add_argument('--name', default='')\np.add_argument('extra')\np.parse_args()\n"
            ),
            "scripts/package.py": "import sys\nprint(sys.argv[1])\n",
        },
    )
    output = tmp_path / "plan.yaml"
    options = Options(
        tmp_path / "skill",
        out=None if plan_only else tmp_path / "app",
        analyzer="heuristic",
        plan_only=plan_only,
        output=output if plan_only else None,
    )
    report = convert(options)
    assert report.ok
    assert report.pipelines  # an APP (or a plan) for what could be mapped
    if not plan_only:
        data = json.loads(
            (tmp_path / "app/pipelines/benchmark/samples/input.json").read_text(encoding="utf-8")
        )
        assert "benchmark_dir" in data and "extra" in data


def test_a_pipeline_that_does_not_fit_is_left_to_skill_mode(tmp_path: Path) -> None:
    """A workflow passing a flag its argparse program does not declare cannot be a pipeline;
    the rest of the skill still converts, and the report says what was left and why."""
    from skill2app.converter.convert import Options, convert

    write_tree(
        tmp_path / "skill",
        {
            "SKILL.md": HEAD
            + "## Review\n\n1. Collect:\n   ```bash\n   python scripts/collect.py --since 2d\n"
            "   ```\n2. Summarise the commits for the user.\n\n"
            "## Count\n\n```bash\npython scripts/count.py notes.txt\n```\n",
            "scripts/collect.py": (
                "import argparse\np = argparse.ArgumentParser()\np.add_argument('--days')\n"
                "p.parse_args()\n"
            ),
            "scripts/count.py": "import sys\nprint(len(open(sys.argv[1]).read().split()))\n",
        },
    )
    report = convert(Options(tmp_path / "skill", out=tmp_path / "app", analyzer="heuristic"))
    assert report.ok
    assert [p["name"] for p in report.pipelines] == ["count"]
    left = next(i for i in report.skill_mode if i["topic"] == "review")
    assert "could not be mapped" in left["reason"] and "--since" in left["reason"]


def test_a_need_of_code_no_pipeline_runs_stops_no_pipeline(tmp_path: Path) -> None:
    """spark-video: PIL, imported by lib modules no script imports, stopped every pipeline."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython scripts/run.py --name x\n```\n",
            "scripts/run.py": "import argparse\nimport httpx\np = argparse.ArgumentParser()\n"
            "p.add_argument('--name')\nif __name__ == '__main__':\n    p.parse_args()\n",
            "lib/__init__.py": "",
            "lib/portraits.py": "from PIL import Image\n",
            "lib/tool.py": "import numpy\nif __name__ == '__main__':\n    print(numpy)\n",
        },
    )
    inventory = build_inventory(tmp_path)
    assert ("python-package", "PIL", False) in needs(tmp_path)  # a warning, in the inventory
    plan = analyze(inventory)
    plan.constructor.checks += [  # an analyst that requires them anyway
        Check("python-package", "PIL", True, where=["lib/portraits.py:1"]),
        Check("python-package", "numpy", True, where=["lib/tool.py:1"]),
    ]
    checks = {c["name"]: c.get("pipelines") for c in constructor_checks(plan, inventory)}
    assert checks["PIL"] == [] and checks["numpy"] == []  # no pipeline runs that code
    assert checks["httpx"] == [plan.pipelines[0].name]


def test_builtins_files_and_arithmetic_are_no_programs(tmp_path: Path) -> None:
    """cc-skills: `mapfile`, `jobs`, `j++` in a script and the file names of an output tree
    (`<src>/site/index.html  # gallery`) were binaries; `$SKILL_DIR/make-bundle.sh` (the
    folder SKILL.md sets SKILL_DIR to) was no program of the skill."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + '```bash\nbash "$SKILL_DIR/make-bundle.sh" --src ~/pics\n```\n\n'
            "```\n<src>/site/index.html   # gallery\n<src>/site/bundle.zip\n```\n",
            "scripts/make-bundle.sh": 'mapfile -t FILES < <(ls "$SRC")\njobs -r\nj=0\n'
            "(( j++ ))\nsips -s format jpeg a.heic\n",
        },
    )
    inventory = build_inventory(tmp_path)
    binaries = {r.name for r in inventory.requirements if r.kind == "binary"}
    assert binaries == {"sips"}
    program = inventory.program("scripts/make-bundle.sh")
    assert program is not None and [i.argv for i in program.invocations] == [["--src", "~/pics"]]


def test_the_sentence_about_a_span_is_bounded_on_a_long_line() -> None:
    line = "x " * 5000 + "Put your key in `~/.k.json` now. " + "y " * 5000
    sentence = sentence_of("~/.k.json", line)
    assert "Put your key in" in sentence and len(sentence) <= 2 * 300 + len("~/.k.json")
    assert sentence_of("`b`", "First one. Then `b` here. Last.") == "Then `b` here."
    assert sentence_of("zz", "no such words") == ""


def test_a_call_in_a_code_block_is_no_program(tmp_path: Path) -> None:
    """``send_media(file_paths=[...], message=...)`` in an unlabelled block is a host tool the
    agent calls, and ``greet() { ... }`` a shell function: neither is a binary to install."""
    inventory = build_inventory(
        write_tree(
            tmp_path / "media",
            {
                "SKILL.md": HEAD + '```\nsend_media(file_paths=["a.jpg"], message="hi")\n```\n'
                "```bash\ngreet() { echo hi; }\ngreet\nconvert a.png b.jpg\n```\n",
            },
        )
    )
    binaries = {r.name for r in inventory.requirements if r.kind == "binary"}
    assert "send_media" not in binaries and "greet" not in binaries
    assert "convert" in binaries  # a real command of the same block still is one


def test_a_tool_installed_with_uv_tool_or_pipx_is_a_program_not_a_package(
    tmp_path: Path,
) -> None:
    """code-hardcode-audit (round 5): a troubleshooting page's ``uv tool install ruff`` made a
    required Python package "ruff" (no program imports it: they run the ruff command)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "See [fixes](references/fix.md).\n",
            "references/fix.md": "```bash\nuv tool install ruff\npipx install semgrep\n"
            "pip install requests\n```\n",
        },
    )
    found = needs(tmp_path)
    assert ("binary", "ruff", False) in found and ("binary", "semgrep", False) in found
    assert not {n for k, n, _r in found if k == "python-package"} - {"requests"}


def test_bash_own_variables_are_no_environment(tmp_path: Path) -> None:
    """worktree-manager (round 5): ``${BASH_REMATCH[1]}`` was an env var to set."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + '```bash\n[[ $b =~ ^(feat)/ ]] && echo "${BASH_REMATCH[1]}"\n'
            'echo "$BASH_VERSION ${PIPESTATUS[0]} $DEMO_HOME"\n```\n',
        },
    )
    assert {n for k, n, _r in needs(tmp_path) if k == "env"} == {"DEMO_HOME"}


def test_a_command_substitution_inside_a_word_keeps_its_command_whole(tmp_path: Path) -> None:
    """cc-skills verbatim-audit-notify (DEV): ``launchctl bootstrap gui/$(id -u)
    ~/Library/LaunchAgents/com.terryli.pushover-quota.plist`` was read as three commands, the
    last one the binary ``com.terryli.pushover-quota.plist``.  The substitution's own command
    is still read (``id``), and one that runs a program of the skill still runs it."""
    from skill2app.converter.inventory.shell import simple_commands

    commands = simple_commands(
        "launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/com.x.plist\n"
        "echo $(date +%F) $(python scripts/a.py --n $(nproc)) done\n",
        1,
        "bash",
    )
    assert [(c.argv, c.nested) for c in commands] == [
        (["launchctl", "bootstrap", "gui/$(id -u)", "~/Library/LaunchAgents/com.x.plist"], False),
        (["id", "-u"], True),
        (["echo", "$(date +%F)", "$(python scripts/a.py --n $(nproc))", "done"], False),
        (["date", "+%F"], True),
        (["python", "scripts/a.py", "--n", "$(nproc)"], True),
        (["nproc"], True),
    ]
    deep = "echo " + "$(a " * 300 + ")" * 300  # read to a bounded depth, never recursing on
    assert len(simple_commands(deep, 1, "bash")) <= 1 + 4
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: d\ndescription: D.\n---\n```bash\n"
            "launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/com.x.plist\n```\n",
        },
    )
    assert "com.x.plist" not in names(root)


def test_a_command_named_like_the_skills_own_script_is_no_tool_to_install(tmp_path: Path) -> None:
    """cc-skills verbatim-audit-notify (DEV): SKILL.md links scripts/pushover-notify.sh onto
    the PATH as ``pushover-notify``; pushover-heartbeat.sh stops when ``command -v
    pushover-notify`` fails.  That blocked the constructor as a binary to install; it is
    the skill's own script: a warning."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: d\ndescription: D.\n---\n```bash\n"
            "ln -sf scripts/pushover-notify.sh ~/.local/bin/pushover-notify\n"
            "bash scripts/heartbeat.sh\npushover-notify --title T\n```\n",
            "scripts/pushover-notify.sh": "#!/bin/bash\necho sent\n",
            "scripts/heartbeat.sh": (
                "#!/bin/bash\nif ! command -v pushover-notify >/dev/null; then\n  exit 1\nfi\n"
                "command -v jq >/dev/null || exit 1\npushover-notify --title beat\n"
            ),
        },
    )
    found = needs(root)
    assert ("binary", "pushover-notify", False) in found
    assert ("binary", "jq", True) in found  # a tool of its own stays required


def test_a_global_npm_install_is_a_tool_no_program_imports(tmp_path: Path) -> None:
    """uipath-governance (DEV): a reference guide's ```npm install -g @uipath/uipcli``` (the
    ``uip`` command-line tool) became a blocking node package: no program imports it, and a
    machine with ``uip`` installed otherwise was stopped."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnpm install -g @uipath/uipcli\n```\n",
        },
    )
    assert ("node-package", "@uipath/uipcli", False) in needs(root)


def test_a_package_npx_runs_is_no_binary_of_its_name(tmp_path: Path) -> None:
    """editframe-cli (fresh2): ``npx @editframe/cli <command>`` gave the binary ``cli``, and
    ``npx editframe render`` the binary ``editframe``; npx fetches the package it runs, so
    npx is what must be on PATH."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "```bash\nnpx @editframe/cli <command>\nnpx editframe render -o out.mp4\n"
            "bunx cowsay hi\n```\n",
        },
    )
    found = names(root)
    assert {"npx", "bunx"} <= found
    assert not {"cli", "editframe", "cowsay", "@editframe/cli"} & found


def test_a_conditional_expression_runs_no_commands(tmp_path: Path) -> None:
    """cc-skills worktree-manager (FRESH, found by a judge in round 6): ``[[ "$B" =~
    ^(feat|fix|refactor|chore)/(.+)$ ]]`` made the binaries ``feat`` and ``chore``: a regex's
    ``(a|b)`` and a test's ``&&`` are part of the expression, not commands and pipes."""
    from skill2app.converter.inventory.shell import simple_commands

    commands = simple_commands(
        'if [[ "$B" =~ ^(feat|fix|chore)/(.+)$ ]]; then echo ok; fi\n'
        "[[ -f x && -d y ]] && rm -rf z || git status\n",
        1,
        "bash",
    )
    assert [c.argv[0] for c in commands] == ["[[", "echo", "fi", "[[", "rm", "git"]
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "Run `scripts/wt.sh`.\n",
            "scripts/wt.sh": '#!/bin/bash\nif [[ "$1" =~ ^(feat|chore)/(.+)$ ]]; then\n'
            '  git worktree add "$1"\nfi\n',
        },
    )
    assert {name for kind, name, _r in needs(root) if kind == "binary"} == {"git"}


def test_a_package_only_the_documents_install_blocks_no_step_that_lacks_it(
    tmp_path: Path,
) -> None:
    """uipath-coded-apps: `npm install @uipath/uipath-typescript` sets up the project the
    skill scaffolds; no step imports it, so it stopped every pipeline for nothing. A package
    a written step imports (the snippet's pypdf) still blocks."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "## Scaffold\n\n```bash\nnpm install @acme/web-sdk\n"
            "pip install pypdf\n```\n\n```bash\nnode scripts/check.js --name x\n"
            "pip install Pillow\n```\n\n## Merge PDFs\n\n```python\nfrom pypdf import PdfReader\n"
            "from PIL import Image\n"
            'reader = PdfReader("in.pdf")\nprint(len(reader.pages))\n```\n',
            "scripts/check.js": "const name = process.argv[3];\nconsole.log(name);\n",
        },
    )
    plan = analyze(build_inventory(tmp_path))
    required = {(c.kind, c.name): c.required for c in plan.constructor.checks}
    assert required[("node-package", "@acme/web-sdk")] is False  # listed, as a warning
    assert required[("python-package", "pypdf")] is True  # the snippet's step imports it
    assert required[("python-package", "PIL")] is True  # installed as Pillow, imported as PIL


def test_a_windows_twin_needs_its_interpreter_on_windows_only(tmp_path: Path) -> None:
    """uipath-planner (fresh2): ``docx-extract.ps1`` beside ``docx-extract.sh`` made pwsh a
    blocking requirement on every platform, and a second pipeline (docx-extract-2)."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/extract.sh in.docx\n```\n\nOn Windows:\n\n"
            "```powershell\npwsh -File scripts/extract.ps1 in.docx\n```\n",
            "scripts/extract.sh": '#!/bin/bash\necho "$1"\n',
            "scripts/extract.ps1": "param($Path)\nWrite-Output $Path\n",
        },
    )
    assert ("binary", "pwsh", False) in needs(root)
    assert ("binary", "pwsh", True) not in needs(root)
    plan = analyze(build_inventory(root))
    programs = [s.program for p in plan.pipelines for s in p.steps if hasattr(s, "program")]
    assert programs == ["scripts/extract.sh"]
    assert any(k.topic == "scripts/extract.ps1" for k in plan.skill_mode)


def test_a_program_npx_runs_needs_npx_not_the_package(tmp_path: Path) -> None:
    """baoyu-compress-image (fresh3): ``npx -y bun scripts/main.ts`` made ``bun`` a blocking
    binary; npx fetches bun and runs the program with it."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnpx -y bun scripts/main.ts image.png\n```\n",
            "scripts/main.ts": "console.log(process.argv[2]);\n",
        },
    )
    inventory = build_inventory(root)
    assert inventory.programs[0].invocations[0].interpreter == "npx -y bun"  # as shown
    assert ("binary", "npx", True) in needs(root)
    assert "bun" not in names(root)


def test_a_module_a_program_imports_when_needed_is_a_warning(tmp_path: Path) -> None:
    """baoyu-compress-image (fresh3): ``(await import("sharp")).default``, the fallback when
    no cwebp or ImageMagick is installed, blocked every pipeline; a static import still
    blocks."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnode scripts/main.mjs image.png\n```\n",
            "scripts/main.mjs": 'import yargs from "yargs";\n'
            'async function viaSharp(p) {\n  const sharp = (await import("sharp")).default;\n'
            "  return sharp(p);\n}\n",
        },
    )
    found = needs(root)
    assert ("node-package", "sharp", False) in found
    assert ("node-package", "yargs", True) in found


def test_a_distribution_giving_a_module_is_one_requirement_with_it() -> None:
    """interpreting-culture-index (fresh3): ``opencv-python-headless`` installs ``cv2``."""
    from skill2app.converter.inventory.packages import package_key

    assert package_key("opencv-python-headless") == package_key("cv2") == "cv2"
    assert package_key("scikit-image") == package_key("skimage")  # reading-business-cards


def test_an_operation_word_shown_alone_is_no_program(tmp_path: Path) -> None:
    """burpsuite-project-parser (fresh3): "### Extract Audit Items" over a block holding only
    ``auditItems`` (an operation ``burp-search.sh`` takes) gave the binaries auditItems,
    proxyHistory and siteMap; a real command shown alone still counts."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/search.sh project.burp auditItems\n"
            "bash scripts/search.sh project.burp siteMap.request.headers\n```\n\n"
            "### Extract audit items\n```bash\nauditItems\n```\n\n"
            "### Dump the site map\n```bash\nsiteMap\n```\n\n"
            "### Check\n```bash\nshellcheck\n```\n",
            "scripts/search.sh": '#!/bin/bash\necho "$@"\n',
        },
    )
    found = names(root)
    assert not {"auditItems", "siteMap"} & found
    assert "shellcheck" in found


def test_a_comment_of_a_shell_program_checks_for_nothing(tmp_path: Path) -> None:
    """tenzir-ship (fresh4): ``# Detect which files changed`` in a bash script made ``files``
    a blocking binary, read as ``which files``."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/scope.sh\n```\n",
            "scripts/scope.sh": "#!/usr/bin/env bash\n# Detect which files changed\n"
            "command -v git >/dev/null || exit 1\ngit status\n",
        },
    )
    found = needs(root)
    assert "files" not in names(root)
    assert ("binary", "git", True) in found


def test_a_markdown_table_in_a_code_block_names_no_program(tmp_path: Path) -> None:
    """brief (round 12): the run log's header row ``| Datetime | view | Target |`` in an
    untagged block was read as a pipeline, and ``view`` became a binary to check."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "Append one line to the run log:\n\n```\n"
            "| Datetime | view | Target | Read it |\n```\n\n```bash\npandoc a.md | jq .\n```\n",
        },
    )
    assert "view" not in names(root) and {"pandoc", "jq"} <= names(root)


def test_a_letter_in_an_untagged_block_names_no_program(tmp_path: Path) -> None:
    """internal-email-composer (round 27): an e-mail template in an untagged block ("...the
    Request for Quotation (RFQ) documents for {project_name}...") made `documents`, after the
    `(RFQ)` subshell, a binary to check; its labels, fields and greetings outweighed its
    sentences.  A block of commands with a "Usage:" line still names its programs."""
    letter = (
        "Subject: RFQ Request - {project_name}\n\nDear {recipient_name},\n\n"
        "I hope this email finds you well.\n\n"
        "I am writing to forward the Request for Quotation (RFQ) documents for the "
        "{project_name} project. Could you please coordinate with the vendors?\n\n"
        "**Request Details:**\n- Target Vendors: {vendor_list}\n- Quote Deadline: {deadline}\n\n"
        "**Project Overview:**\n{project_summary}\n\n"
        "Please let me know if you have any questions or need more information.\n\n"
        "Best regards,\n{sender_name}\n{sender_department}\n"
    )
    commands = "Usage: run it like this\nconvert-tool --in a.txt\npandoc a.md -o a.pdf\n"
    write_tree(
        tmp_path,
        {"SKILL.md": HEAD + f"```\n{letter}```\n\n```\n{commands}```\n"},
    )
    binaries = {n for k, n, _r in needs(tmp_path) if k == "binary"}
    assert binaries == {"convert-tool", "pandoc"}


def test_pseudo_code_and_term_lists_in_untagged_blocks_name_no_programs(tmp_path: Path) -> None:
    """kouko wiki-lint (round 13): `body_language = rule.body_language` and a vault's term
    list ("wabi-sabi", "yohaku") in untagged blocks were constructor "binaries"; spark-video's
    untagged Python gave 27 more (`def`, `raise`, `rsp.status_code`)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + "```\nfor each rule in tree:\n    body_language = rule.body_language\n"
            "else:\n    preserve_group = None\n```\n\n"
            '```\n# terms\n#group:jp\nwabi-sabi\nyohaku\n"Free Cash Flow"\n```\n\n'
            "```\nrsp = call(url)\nraise SystemExit(rsp)\n```\n\n"
            "```\nconvert-tool --in a.txt\n```\n\n"
            "```\npython3 scripts/lint.py wiki/\n```\n",
            "scripts/lint.py": "import sys\nprint(sys.argv)\n",
        },
    )
    binaries = {n for k, n, _r in needs(tmp_path) if k == "binary"}
    assert binaries == {"convert-tool"}  # an untagged block of commands still counts
    inventory = build_inventory(tmp_path)
    assert [p.path for p in inventory.programs if p.invocations] == ["scripts/lint.py"]


def test_a_query_languages_calls_in_an_untagged_block_name_no_program(tmp_path: Path) -> None:
    """querying-markdown (a newcomer's trial): mq's `nodes | map(fn(x): upcase(x);)` in an
    untagged block of its query language made a constructor binary "map"; a query quoted
    on mq's own command line and a subshell still run what they run."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```\ndef double(x): mul(x, 2);          # named\n"
            "nodes | map(fn(x): upcase(x);)     # anonymous\n"
            "nodes | map(->(x): upcase(x);)\n```\n\n"
            "```bash\nmq 'nodes | map(increase_header_level)' file.md\n"
            "(cd docs && make html)\n"
            "ffmpeg -i a.mp4 b.gif  # as convert(a) would\n"  # a reviewer's: a remark's call
            "[[ $x =~ ^v(1|2)$ ]] && pandoc a.md -o a.pdf\n```\n",
        },
    )
    binaries = {n for k, n, _r in needs(tmp_path) if k == "binary"}
    assert binaries == {"mq", "make", "ffmpeg", "pandoc"}


def test_a_models_tokens_and_an_illustrated_snippet_need_nothing(tmp_path: Path) -> None:
    """claude-md-progressive-disclosurer (round 13): "零 token 成本", "~0.42 token/byte" made a
    login check "token", and a JavaScript snippet shown as the right way to write a lazy
    require ("**正确**：...", "// ✅") made node and better-sqlite3 checks."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "维护者备注零 token 成本；中文实测 ~0.42 token/byte。\n"
            "Keep the context's token budget small.\n\n"
            "**正确**：保留完整的代码：\n"
            '```javascript\nconst db = require("better-sqlite3");\n```\n\n'
            '```javascript\nconst docx = require("docx");\n```\n\n'
            "Set your GitHub token in `GH_TOKEN` first.\n",
        },
    )
    found = needs(tmp_path)
    assert ("auth", "token", False) in found or ("auth", "token", True) in found  # GH_TOKEN's
    inventory = build_inventory(tmp_path)
    token = next(r for r in inventory.requirements if r.kind == "auth")
    assert token.where == ["SKILL.md:19"]  # the login line alone
    packages = {n for k, n, _r in found if k == "node-package"}
    assert packages == {"docx"}  # the snippet the skill has the model write, not the pattern


def test_a_setting_with_its_default_in_the_program_is_no_need(tmp_path: Path) -> None:
    """mermaid-tools (round 13): `${MERMAID_WIDTH:-1200}` warned on every run that a setting
    the script defaults itself was missing; spark-video had 24 such, code-hardcode-audit 7.
    An empty default (`${PUSHOVER_TOKEN:-}`) is no default: the program checks it itself."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/render.sh in.md\npython3 scripts/p.py\n"
            "node scripts/n.js\n```\n",
            "scripts/render.sh": '#!/bin/bash\nW="${MERMAID_WIDTH:-1200}"\n'
            'T="${PUSHOVER_TOKEN:-}"\nH="${HOME_DIR:-$HOME}"\necho "$W $T $H"\n',
            "scripts/p.py": "import os\nw = os.getenv('PY_WIDTH', '1200')\n"
            "k = os.environ.get('PY_KEY')\n",
            "scripts/n.js": "const port = process.env.PORT || 3000;\n"
            "const key = process.env.NODE_KEY || process.env.OTHER_KEY;\n",
        },
    )
    envs = {n for k, n, _r in needs(tmp_path) if k == "env"}
    assert not envs & {"MERMAID_WIDTH", "PY_WIDTH", "PORT"}
    assert {"PUSHOVER_TOKEN", "HOME_DIR", "PY_KEY", "NODE_KEY"} <= envs


def test_a_bun_program_runs_with_bun_and_a_lexers_token_is_no_login(tmp_path: Path) -> None:
    """cc-skills markdown-table-validator (fresh9): `#!/usr/bin/env bun` and `import { Glob }
    from "bun"` made a node package "bun" and `npx tsx` the runner (which cannot load Bun's
    API); "An alignment token like `:--:`" made a login check."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + 'SCAN="$(tool-root)/scan.ts"\n\n```bash\nbun "$SCAN" FILE.md\n```\n\n'
            "An alignment token like `:--:` sits in a data row.\n",
            "scripts/scan.ts": "#!/usr/bin/env bun\n/**\n * Usage:\n"
            " *   bun scan.ts <file>...\n */\n"
            'import { Glob } from "bun";\nconsole.log(process.argv);\n',
        },
    )
    inventory = build_inventory(tmp_path)
    assert inventory.programs[0].interpreter == "bun"
    found = needs(tmp_path)
    assert ("binary", "bun", True) in found
    assert not {(k, n) for k, n, _r in found} & {("node-package", "bun"), ("binary", "npx")}
    assert not [n for k, n, _r in found if k == "auth"]


def test_diagrams_prose_lists_and_fallback_imports_are_no_needs(tmp_path: Path) -> None:
    """fresh9: an untagged Mermaid diagram made binaries `subgraph`, `direction`, `end`; a
    list of sentences ("2. Check ... if available") made `available`; the fallback import
    `from backports.zoneinfo import ZoneInfo` (in an `except ImportError`) blocked every
    pipeline; `markdown_it` is installed as markdown-it-py."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD
            + '```\ngraph TB\nsubgraph r1["Stage"]\ndirection LR\n  A --> B\nend\n```\n\n'
            "```\nStrategy:\n1. Flag as ambiguous\n2. Check the offset if available\n```\n\n"
            "```bash\npython3 scripts/tz.py parse logs.csv\n```\n",
            "scripts/tz.py": "import sys\ntry:\n    from zoneinfo import ZoneInfo\n"
            "except ImportError:\n    from backports.zoneinfo import ZoneInfo\n"
            "from markdown_it import MarkdownIt\nprint(sys.argv)\n",
        },
    )
    found = needs(tmp_path)
    assert {n for k, n, _r in found if k == "binary"} == set()
    packages = {(n, r) for k, n, r in found if k == "python-package"}
    assert ("backports", False) in packages and ("markdown_it", True) in packages
    from skill2app.converter.inventory.packages import PIP_NAMES

    assert PIP_NAMES["markdown_it"] == "markdown-it-py"


def test_the_second_reads_cases_keep_their_needs(tmp_path: Path) -> None:
    """What the reviewer of the fresh8/fresh9 fixes showed dropped: a fallback import of the
    same package (`from yaml import SafeLoader` after CSafeLoader), a bot token said without
    the word "API", a file "read by the script", `npm install` under a prose list item, and
    `process.env.API_KEY || ''` (an empty default is none)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "Provide your Slack bot token.\n\n"
            "The config `~/.mytool/config.json` is read by the script at startup.\n\n"
            "```\n1. Install deps\nnpm install left-pad\n2. Run it\npython3 scripts/a.py\n```\n",
            "scripts/a.py": "try:\n    from yaml import CSafeLoader as L\nexcept ImportError:\n"
            "    from yaml import SafeLoader as L\n",
            "scripts/b.js": "const k = process.env.API_KEY || '';\n",
        },
    )
    found = needs(tmp_path)
    assert ("python-package", "yaml", True) in found
    assert ("auth", "token", True) in found or ("auth", "token", False) in found
    assert ("file", "~/.mytool/config.json", True) in found
    assert any(k == "node-package" and n == "left-pad" for k, n, _r in found)
    assert any(k == "env" and n == "API_KEY" for k, n, _r in found)


@pytest.mark.parametrize(
    ("line", "login"),
    [
        ("于是授权你删掉真正在起作用的正文", False),  # permission given to the reader
        ("zsh 是现代 macOS 的默认登录 shell", False),
        ("public + 0 stars 且用户明确授权", False),
        ("the default login shell", False),
        ("需要用户授权后才能调用", True),  # the feishu skills' OAuth consent
        ("Log in with `gh auth login` first.", True),
        # round 19's judges: permission, a prohibition, the skill's subject, code names
        ("不得在未获授权时安装或升级依赖。", False),
        ("- 不绕过登录、验证码、付费、访问控制或 robots/站点限制。", False),
        ('"Compare the login page against the Figma design at [URL]"', False),
        ("If a credential-shaped string is detected, rendering stops.", False),
        ("The script uses `secrets` for cryptographic randomness.", False),
        ('print "tokens.json not found. Generate it with the scaffold" and stop', False),
        ("Only pass `--allow-secrets` after a human has looked.", False),
        ("Verify users can successfully login with valid credentials", False),
        ("| Login | 8 | 12 | Complete |", False),
        # yara-rule-authoring (round 25): what malware does to credentials is the rule's subject
        ("- Credential theft: `security find-generic-password`, `keychain`", False),
        ("- No additional API keys required beyond email access", False),  # email-triage
        ("Save the service account credentials path in `config.yaml` first.", True),
        ("编辑 config.json，填写邮箱地址和授权码。", True),  # an app password: a need
        ("若返回 auth_required，不要询问用户是否授权，直接执行以下命令发送授权链接", True),
        ("If not signed in, run `uip login` first.", True),
        # a reviewer's second read: real logins the filters must keep, and two they missed
        ("Set your API key; the script autodetects the region.", True),
        ("Requires a Slack bot token. Messages are scanned for keywords.", True),
        ("首次使用需要登录，之后自动检测登录状态", True),
        ("If you cannot log in, ask the user.", True),
        ("不要忘记登录账号", True),
        ("You need a valid API key.", True),
        ("| API key | required | from platform.openai.com |", True),
        ("确保已经授权飞书应用", True),
        ("请先获得授权后再使用", True),
        ("Set your API key(s) in .env", True),
        ("Do not run `oo auth login` proactively.", True),  # English: the login stays
        ("Never commit your API key; export OPENAI_API_KEY instead.", True),
        ("Don't forget to set your API key.", True),
        ("Do not proceed until you have authenticated with `gh auth login`.", True),
        ("使用前请先扫描二维码登录", True),  # a QR-code login is a login
        ("Requires an API key (detected automatically from env).", True),
        ("Export your API key (see the leak-free setup guide).", True),
        ("运行前扫描密钥，发现泄露立即停止", False),  # 扫描密钥: looking for secrets
        ("- [ ] No potential secrets detected (API keys, passwords, tokens)", False),
        # customer-success-manager (a newcomer's trial): a health score measures logins
        ("| Usage | 30% | Login frequency, feature adoption, DAU/MAU ratio |", False),
        ("| Usage Decline | 30% | Login trend, feature adoption change |", False),
    ],
)
def test_a_login_word_in_prose_means_a_login(tmp_path: Path, line: str, login: bool) -> None:
    """claude-md-progressive-disclosurer: "授权你删掉" and "默认登录 shell" made a login check."""
    write_tree(tmp_path, {"SKILL.md": HEAD + line + "\n"})
    assert any(k == "auth" for k, _n, _r in needs(tmp_path)) is login


def test_a_skill_that_looks_for_secrets_lists_no_login(tmp_path: Path) -> None:
    """code-hardcode-audit: its scanners' tables ("Config file secrets", "credentials, retry
    config") made a required "api key" login for a skill that finds them in code.  Only its
    description says so: advice in the prose ("Rotate leaked API keys") keeps a real login."""
    head = (
        "---\nname: audit\ndescription: Detect leaked secrets. TRIGGERS - secret scanning.\n---\n"
    )
    prose = "| Whispers | Config file secrets (YAML, JSON) |\nSet your API token first.\n"
    write_tree(tmp_path / "audit", {"SKILL.md": head + prose})
    assert [k for k, _n, _r in needs(tmp_path / "audit") if k == "auth"] == []
    advice = "Export your OpenAI API key first.\n\nRotate leaked API keys immediately.\n"
    write_tree(tmp_path / "tool", {"SKILL.md": HEAD + advice})
    assert [k for k, _n, _r in needs(tmp_path / "tool") if k == "auth"] == ["auth"]


@pytest.mark.parametrize(
    "block",
    [
        "machine youtube login USERNAME password PASSWORD",  # a .netrc line
        "Compare the login page against the Figma design",  # a request shown as a block
    ],
)
def test_a_login_is_not_named_by_a_line_that_is_no_command(tmp_path: Path, block: str) -> None:
    """yt-dlp-expert's login was named "machine youtube login", qa-test-planner's by a
    request."""
    prose = "Set your API token first.\n\n```\n" + block + "\n```\n"
    write_tree(tmp_path, {"SKILL.md": HEAD + prose})
    assert {(k, n) for k, n, _r in needs(tmp_path) if k == "auth"} == {("auth", "token")}


def test_round_15_runners_wrappers_and_an_optional_tool_raised_as_the_programs_own(
    tmp_path: Path,
) -> None:
    """fresh10: `uv run scripts/collect.py` ran every step through uv, which the constructor
    never checked (the step then failed with exit 127); `env -u http_proxy python3 x.py`
    made `http_proxy` a binary; pip-audit, run in a `try` whose `except OSError` raises the
    program's own `Unavailable` (which its callers catch), was a blocking need."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nuv run scripts/collect.py proj\n"
            "env -u http_proxy -u HTTPS_PROXY python3 scripts/fetch.py --days 3\n```\n",
            "scripts/collect.py": "import subprocess, sys\n\n\nclass Unavailable(Exception):\n"
            "    pass\n\n\ndef audit():\n    try:\n"
            "        return subprocess.run(['pip-audit', '--format', 'json'])\n"
            "    except OSError as exc:\n        raise Unavailable(str(exc)) from exc\n\n\n"
            "def fatal():\n    try:\n        return subprocess.run(['osv-scanner'])\n"
            "    except OSError as exc:\n        raise SystemExit(str(exc))\n\n\n"
            "class ConversionError(Exception):\n    pass\n\n\n"
            "def convert():\n    try:\n        return subprocess.run(['pandoc'])\n"
            "    except OSError as exc:\n        raise ConversionError(str(exc)) from exc\n\n\n"
            "try:\n    audit()\nexcept Unavailable:\n    pass\n"
            "print(fatal(), convert(), sys.argv)\n",
            "scripts/fetch.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--days')\np.parse_args()\n",
        },
    )
    binaries = {(n, r) for k, n, r in needs(tmp_path) if k == "binary"}
    assert ("uv", True) in binaries
    assert ("pip-audit", False) in binaries and ("osv-scanner", True) in binaries
    assert ("pandoc", True) in binaries  # its own error, which nothing catches: it stops
    assert not {n for n, _r in binaries} & {"http_proxy", "HTTPS_PROXY", "-u"}


def test_a_pep_723_script_without_dependencies_runs_with_python3_not_uv(tmp_path: Path) -> None:
    """analysis-dcf and ascii-diagram-validator: `uv run scripts/x.py` of a script whose PEP
    723 block lists no dependencies needs no uv (round 15's judges found its step failing,
    exit 127, where uv was not installed); one with dependencies still runs with uv.  So with
    `--no-config` (let-fate-decide, round 17), which changes nothing for such a script."""
    header = '#!/usr/bin/env python3\n# /// script\n# requires-python = ">=3.10"\n'
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nuv run --no-config scripts/dcf.py --input a.json\n"
            "uv run --no-config scripts/fetch.py --days 3\n```\n",
            "scripts/dcf.py": header + "# dependencies = []\n# ///\nimport argparse\n"
            "p = argparse.ArgumentParser()\np.add_argument('--input')\np.parse_args()\n",
            "scripts/fetch.py": header + '# dependencies = [\n#   "requests",\n# ]\n# ///\n'
            "import argparse\np = argparse.ArgumentParser()\np.add_argument('--days')\n"
            "p.parse_args()\n",
        },
    )
    inventory = build_inventory(tmp_path)
    assert inventory.program("scripts/dcf.py").interpreter == "python3"
    assert inventory.program("scripts/fetch.py").interpreter == "uv run --no-config"
    uv = [r for r in inventory.requirements if r.name == "uv"]
    assert uv and all("scripts/dcf.py" not in w for r in uv for w in r.where)


def test_a_sibling_skills_module_on_sys_path_is_outside_not_a_package(tmp_path: Path) -> None:
    """ledger (fresh11): `sys.path.insert(0, os.path.join(dirname(abspath(__file__)), "..",
    "..", "shared", "scripts"))` then `import secret_detect` required a PyPI package
    `secret_detect`; it is the sibling skill `shared`'s module, a file outside the skill."""
    write_tree(
        tmp_path,
        {
            "shared/scripts/secret_detect.py": "def mask(x):\n    return x\n",
            "ledger/SKILL.md": HEAD + "```bash\npython3 scripts/lint.py notes.md\n```\n",
            "brief/SKILL.md": HEAD,  # a skill of the collection: its folder is one
            "ledger/scripts/lint.py": "import os\nimport sys\n\nsys.path.insert(\n"
            "    0, os.path.join(os.path.dirname(os.path.abspath(__file__)),\n"
            '                    "..", "..", "shared", "scripts"))\n'
            "import secret_detect  # noqa: E402\n\nprint(secret_detect.mask(sys.argv))\n",
        },
    )
    inventory = build_inventory(tmp_path / "ledger")
    assert not [r for r in inventory.requirements if r.name == "secret_detect"]
    assert [(o.where(), o.target) for o in inventory.outside] == [
        ("scripts/lint.py:7", "../shared/scripts/secret_detect.py")
    ]


def test_a_documents_sys_path_written_out_reaches_the_skills_folder(tmp_path: Path) -> None:
    """seeing-images (FRESH35): SKILL.md's setup line `sys.path.insert(0,
    '/mnt/skills/user/seeing-images/scripts')` then `from see import grid` listed a package
    `see`; the path's tail is the skill's scripts/ folder, where see.py is.  A path whose tail
    is no folder of the skill still names a package."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```python\nimport sys; sys.path.insert(0, "
            "'/mnt/skills/user/seeing-images/scripts')\nfrom see import grid\n"
            "sys.path.append('/opt/vendor/lib')\nimport vendored\n```\n",
            "scripts/see.py": "def grid(path):\n    return path\n",
        },
    )
    names = {r.name for r in build_inventory(tmp_path).requirements}
    assert "see" not in names and "vendored" in names


SHIM = (
    '"""Stable CLI entrypoint."""\nimport sys\nfrom pathlib import Path\n\n'
    'ENGINE_DIR = Path(__file__).resolve().parent / "scripts" / "core"\n'
    "sys.path.insert(0, str(ENGINE_DIR))\n\nfrom engine import main  # noqa: E402\n\n"
    'if __name__ == "__main__":\n    raise SystemExit(main())\n'
)
ENGINE = (
    "import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--input', required=True)\n    p.add_argument('--output')\n"
    "    p.add_argument('--strict', action='store_true')\n    p.parse_args()\n    return 0\n"
    "\nif __name__ == '__main__':\n    raise SystemExit(main())\n"
)


def test_a_shim_runs_the_main_of_a_module_a_variable_puts_on_sys_path(tmp_path: Path) -> None:
    """mentat-collaboration-audit (FRESH42): the root shim puts `scripts/core` on sys.path
    through a variable (`ENGINE_DIR = Path(__file__).resolve().parent / "scripts" / "core"`)
    and runs engine's main: `engine` was a Python package to install, blocking the audit,
    and the shim's flags were only the two SKILL.md shows (--output unknown)."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython3 generate_final_report.py --input data.json "
            "--strict\n```\n",
            "generate_final_report.py": SHIM,
            "scripts/core/engine.py": ENGINE,
        },
    )
    inventory = build_inventory(tmp_path)
    assert "engine" not in {r.name for r in inventory.requirements}
    shim = inventory.program("generate_final_report.py")
    assert shim is not None and shim.cli is not None and shim.cli.framework == "argparse"
    flags = {p.name: p for p in shim.cli.params}
    assert set(flags) == {"--input", "--output", "--strict"} and flags["--input"].required
    # a script with a parser of its own keeps it, whatever main it imports too
    own = SHIM.replace("from engine import main", "import argparse\nfrom engine import main")
    own += "argparse.ArgumentParser().add_argument('--mine')\n"
    write_tree(tmp_path, {"generate_final_report.py": own})
    shim = build_inventory(tmp_path).program("generate_final_report.py")
    assert shim is not None and shim.cli is not None and shim.cli.flag("--output") is None


def test_a_legacy_folder_under_when_to_use_is_no_file_to_provide(tmp_path: Path) -> None:
    """kobo-auth (FRESH35): "- Migrating from a previous install (e.g. the legacy
    `~/KobodlLibrarySync/` shell script)" under "## When to Use" blocked every pipeline: the
    section's title, read as the end of the item's sentence, said "Use".  A line that asks
    for the file still does."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "## When to Use\n\n- Migrating from a previous install (e.g. "
            "the legacy\n  `~/KobodlLibrarySync/` shell script)\n\n## Setup\n\n"
            "Put your token in `~/.kobo/token.json` before the first run.\n",
        },
    )
    needs = build_inventory(tmp_path).requirements
    files = {r.name: r.required for r in needs if r.kind == "file"}
    assert files == {"~/KobodlLibrarySync/": False, "~/.kobo/token.json": True}
    # other titles still say what their files are (a reviewer's read of a first fix)
    write_tree(
        tmp_path / "made",
        {
            "SKILL.md": HEAD + "## Files created by the script\n\n- `~/.calls/cache.json`\n\n"
            "## Required configuration\n\n- `~/.calls/c.yaml`\n",
        },
    )
    needs = build_inventory(tmp_path / "made").requirements
    assert {r.name: r.required for r in needs if r.kind == "file"} == {"~/.calls/c.yaml": True}


def test_a_variable_the_program_stops_without_is_required(tmp_path: Path) -> None:
    """tencent-meeting-mcp (FRESH35): `user_token = os.environ.get("TENCENT_MEETING_TOKEN",
    "")` then `if not user_token: print(...); sys.exit(1)` was only a warning, so the
    constructor let every pipeline run into the exit.  A variable whose absence the program
    survives (a message, a default) stays a warning."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/p.py list\n```\n",
            "scripts/p.py": "import os\nimport sys\n\n\ndef main():\n"
            "    token = os.environ.get('MEET_TOKEN', '')\n    if not token:\n"
            "        print('set MEET_TOKEN')\n        sys.exit(1)\n"
            "    proxy = os.getenv('MEET_PROXY')\n    if not proxy:\n"
            "        print('no proxy')\n    region = os.getenv('MEET_REGION')\n"
            "    if region is None:\n        region = 'eu'\n    key = os.getenv('MEET_KEY')\n"
            "    if not sys.argv[1:] or key is None:\n        raise SystemExit(2)\n"
            # a reviewer's read: a fallback from a file in the branch, then a nested exit
            "    chat = os.environ.get('MEET_CHAT')\n    if not chat:\n"
            "        if os.path.exists('c.json'):\n            chat = open('c.json').read()\n"
            "        if not chat:\n            sys.exit('no chat')\n\n\nmain()\n",
        },
    )
    env = {r.name: r.required for r in build_inventory(tmp_path).requirements if r.kind == "env"}
    assert env == {
        "MEET_TOKEN": True,
        "MEET_PROXY": False,
        "MEET_REGION": False,
        "MEET_KEY": True,
        "MEET_CHAT": False,
    }


def test_a_node_variable_tested_in_a_conditional_expression_is_optional(
    tmp_path: Path,
) -> None:
    """rp-source-csv (FRESH34): `const root = process.env.CSV_INPUT_ROOT` then, on the next
    line, `? path.resolve(process.env.CSV_INPUT_ROOT) : dirname` blocked every pipeline (the
    judge's "optional variable demanded"); one read alone stays required."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnode scripts/d.js a.csv\n```\n",
            "scripts/d.js": "const path = require('node:path');\n"
            "const root = process.env.CSV_INPUT_ROOT\n"
            "  ? path.resolve(process.env.CSV_INPUT_ROOT)\n  : path.dirname(process.argv[2]);\n"
            "const key = process.env.CSV_API_KEY;\nconsole.log(root, key.length);\n",
        },
    )
    env = {r.name: r.required for r in build_inventory(tmp_path).requirements if r.kind == "env"}
    assert env == {"CSV_INPUT_ROOT": False, "CSV_API_KEY": True}


def test_a_folder_three_parents_up_is_outside_the_skill(tmp_path: Path) -> None:
    """trigger-eval (round 28): `sys.path.insert(0, str(Path(__file__).resolve().parent.parent
    .parent / "shared" / "scripts"))` then `from frontmatter import ...` made a blocking
    `pip install frontmatter`: the third `.parent` of scripts/x.py stayed inside the skill."""
    write_tree(
        tmp_path,
        {
            "eval/SKILL.md": HEAD + "```bash\npython3 scripts/collect.py skills/\n```\n",
            "eval/scripts/collect.py": "import sys\nfrom pathlib import Path\n\nsys.path.insert(\n"
            '    0, str(Path(__file__).resolve().parent.parent.parent / "shared" / "scripts")\n)\n'
            "from frontmatter import parse  # noqa: E402\n\nprint(parse(sys.argv[1]))\n",
        },
    )
    inventory = build_inventory(tmp_path / "eval")
    assert not [r for r in inventory.requirements if r.name == "frontmatter" and r.required]


def test_a_sys_path_of_the_skills_parent_finds_a_siblings_package(tmp_path: Path) -> None:
    """The reviewer's: `sys.path.insert(0, join(dirname(abspath(__file__)), ".."))` in a
    program beside SKILL.md, then `from shared import mod`: `shared` was a PyPI package."""
    write_tree(
        tmp_path,
        {
            "shared/__init__.py": "",
            "shared/mod.py": "X = 1\n",
            "tool/SKILL.md": HEAD + "```bash\npython3 run.py\n```\n",
            "other/SKILL.md": HEAD,  # a skill of the collection: its folder is one
            "tool/run.py": "import os\nimport sys\n\nsys.path.insert(0, os.path.join("
            "os.path.dirname(os.path.abspath(__file__)), '..'))\nfrom shared import mod\n",
        },
    )
    inventory = build_inventory(tmp_path / "tool")
    assert not [r for r in inventory.requirements if r.name == "shared"]
    assert [o.target for o in inventory.outside] == ["../shared/__init__.py"]


def test_words_that_only_look_like_commands_are_no_binaries(tmp_path: Path) -> None:
    """Found across the corpus (39 false warnings in 13 skills' constructors): search terms
    and tables in untagged blocks (`cancer immunotherapy`, `en  English  vtt`), a choice
    between values (`--mode <drama|narration>`, `{done|doing}`), Python in a block tagged
    bash (`import os`, `api_key = os.getenv(...)`), words in parentheses, the reader's own
    command (`/path/to/your/script.sh`, `some-long-running-job`), dotted identifiers
    (`cs.LG`), and a `$( )` inside double quotes whose own quotes cut it
    (`"$(date -d "${N} days ago")"`)."""
    skill = write_tree(
        tmp_path / "s",
        {
            "SKILL.md": "---\nname: s\ndescription: Search papers.\n---\n# S\n\n"
            "```\ncancer immunotherapy\ndiabetes AND treatment\n```\n\n"
            "```\nen        English          vtt, ttml\ncs.LG    # Machine Learning\n"
            "&status={done|doing|mark}\n```\n\n"
            "```bash\nimport os\napi_key = os.getenv('KEY')\n"
            "python3 scripts/s.py --mode <drama|narration>\n"
            "/path/to/your/script.sh > log\nsome-long-running-job 2>&1 | tail\n"
            "echo ok  # Exit code: 0 (validates nested boxes)\n```\n\n"
            "```\nrg --files src\n```\n",
            "scripts/s.py": "import argparse\np = argparse.ArgumentParser()\n"
            "p.add_argument('--mode')\np.parse_args()\n",
            "scripts/prune.sh": '#!/bin/bash\nCUTOFF="$(/bin/date -u -d "${KEEP_DAYS} days ago" '
            '+%Y%m%d)"\n# eval "$(install_x.sh)"\necho "$CUTOFF"\n',
        },
    )
    names = {r.name for r in build_inventory(skill).requirements if r.kind == "binary"}
    assert names & {
        "cancer", "diabetes", "en", "cs.LG", "doing", "import", "api_key", "narration",
        "script.sh", "some-long-running-job", "validates", "days", "install_x.sh",
    } == set()  # fmt: skip
    assert "rg" in names  # an untagged line with an option is a command line


def test_either_key_of_a_fallback_chain_and_a_dotenv_in_a_folder_block_nothing(
    tmp_path: Path,
) -> None:
    """baoyu-image-gen (round 18): `process.env.GOOGLE_API_KEY || process.env.GEMINI_API_KEY`
    made GEMINI_API_KEY required (the first read's `||` was taken by the regex before the
    second was read), and `~/.baoyu-skills/.env` in "Load Priority: CLI args > env vars >
    ~/.baoyu-skills/.env" was a required file; the constructor stopped every run."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnode scripts/main.js --prompt cat\n```\n\n"
            "**Load Priority**: CLI args > env vars > `~/.baoyu-skills/.env`\n",
            "scripts/main.js": "const key = process.env.GOOGLE_API_KEY || "
            "process.env.GEMINI_API_KEY || null;\nconsole.log(key, process.argv);\n",
        },
    )
    required = {(k, n) for k, n, r in needs(tmp_path) if r}
    assert not required & {
        ("env", "GOOGLE_API_KEY"), ("env", "GEMINI_API_KEY"), ("file", "~/.baoyu-skills/.env")
    }  # fmt: skip


def test_a_substitution_is_a_command_and_an_example_under_a_rule_no_rule(tmp_path: Path) -> None:
    """A reviewer's second read: `TOKEN=$(gh auth token)` lost gh (three plain words were
    taken for words in parentheses), and an indented example after a rule's prose became a
    rule of its own."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nTOKEN=$(gh auth token)\ncd $(go env GOPATH)\n"
            "echo ok  # (validates nested boxes, crosses)\n```\n\n## Rules\n\n- Keep it short.\n"
            "- Never invent quotes.\n\nFor example:\n\n  Release 2.0 is out today.\n",
            "scripts/a.py": "import sys\n",
        },
    )
    binaries = {n for k, n, _r in needs(tmp_path) if k == "binary"}
    assert {"gh", "go"} <= binaries and "validates" not in binaries
    rules = [text for text, _line in collect_rules(build_inventory(tmp_path).skill)]
    assert rules == ["Keep it short.", "Never invent quotes."]


def test_a_module_imported_from_a_siblings_folder_blocks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ledger (round 16's skill, converted alone): `sys.path.insert(0, ../../shared/scripts)`
    then `import secret_detect` made a blocking `pip install secret_detect`.  What is imported
    after the sibling's folder joins sys.path may be its module or a package: a warning."""
    source = (
        "import os, sys\nimport requests\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),\n"
        "                '..', '..', 'shared', 'scripts'))\n"
        "import secret_detect  # noqa: E402\nimport yaml  # noqa: E402\n"
    )
    write_tree(
        tmp_path, {"SKILL.md": HEAD + "Run `python scripts/lint.py`.\n", "scripts/lint.py": source}
    )
    monkeypatch.delenv("APP_ROOT", raising=False)
    packages = {(n, r) for k, n, r in needs(tmp_path) if k == "python-package"}
    assert packages == {("requests", True), ("secret_detect", False), ("yaml", False)}
    # round 34's skill-improve: its check said only "pip install secret_detect"; it names the
    # file it may be, and passes when that file is there (the skill in its collection)
    inventory = build_inventory(tmp_path)
    beside = {r.name: r.beside for r in inventory.requirements if r.kind == "python-package"}
    assert beside == {"requests": "", "secret_detect": "../shared/scripts/secret_detect.py",
                      "yaml": "../shared/scripts/yaml.py"}  # fmt: skip
    plan = analyze(inventory)
    check = next(c for c in constructor_checks(plan, inventory) if c["name"] == "secret_detect")
    assert check["beside"] == "../shared/scripts/secret_detect.py"
    script = next(f for f in render_app(plan, inventory) if f.path.endswith("check_environment.py"))
    target = tmp_path / "app" / script.path  # the APP beside `shared/`, as in its collection
    target.parent.mkdir(parents=True)
    target.write_text(script.text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("check_env", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.problem(check).startswith(
        "the module 'secret_detect' is not found: the skill imports it from "
        "../shared/scripts/secret_detect.py, outside its folder (keep the skill beside it), "
        "unless it is a package: pip install secret_detect"
    )
    write_tree(tmp_path, {"shared/scripts/secret_detect.py": "X = 1\n"})
    assert module.problem(check) == ""


def test_an_installer_does_not_need_what_it_installs(tmp_path: Path) -> None:
    """querying-markdown (round 20): install-mq.sh's `command -v mq` made mq a required check
    of the install-mq pipeline, which then refused to run exactly when mq was missing."""
    from skill2app.converter.convert import Options, convert

    installer = (
        "#!/usr/bin/env bash\n# Idempotent installer for `mq`, the jq-for-Markdown CLI.\n"
        'if command -v mq >/dev/null 2>&1; then\n  echo "mq already installed"\n  exit 0\nfi\n'
        'curl -fsSL https://example.org/mq -o "$HOME/.local/bin/mq"\n'
        'echo "Installed: $(mq --version)"\n'
    )
    prose = "Install mq with `bash scripts/install-mq.sh`, then run `mq '.h' README.md`.\n"
    write_tree(tmp_path / "skill", {"SKILL.md": HEAD + prose, "scripts/install-mq.sh": installer})
    inventory = build_inventory(tmp_path / "skill")
    assert inventory.program("scripts/install-mq.sh").installs == {"mq"}
    from skill2app.converter.inventory.programs.program import installed_by

    assert installed_by("scripts/setup_git.sh", "Configure the git identity") == set()
    assert installed_by("scripts/get.sh", "Installs pandoc if missing") == {"pandoc"}
    assert installed_by("scripts/get.sh", "Installs into ~/.local/bin") == set()
    assert installed_by("scripts/setup.sh", "Installs Python dependencies") == set()
    assert installed_by("scripts/boot.sh", "Installs npm packages for the app") == set()
    assert installed_by("scripts/boot.sh", "Installing required tools") == set()
    out = tmp_path / "app"
    convert(Options(tmp_path / "skill", out=out, analyzer="heuristic"))
    source = (out / "pipelines/_constructor/steps/check_environment.py").read_text()
    checks = ast.literal_eval(source.split("CHECKS = ", 1)[1].split("\n\n\n")[0])
    mq = next(c for c in checks if c["name"] == "mq")
    assert "install-mq" not in mq.get("pipelines", ["every pipeline"])


def test_a_paragraph_in_an_untagged_block_names_no_program(tmp_path: Path) -> None:
    """venue-templates (judge, round 22): example abstracts in untagged blocks of its asset
    files gave the constructor the programs `drug`, `hazard`, `mean` and `available`."""
    abstract = (
        "# Example\n\n```\nDrug discovery is a costly and time-consuming process, with the\n"
        "drug requiring 10-15 years and $2.6 billion to develop [1]. Machine learning\n"
        "offers the potential to accelerate this process by predicting molecular\n"
        "standard 31·8%; hazard ratio 1·16; 95% CI, 0·79 to 1·70). Hyperglycemia was\n```\n\n"
        "```\n# Build the paper from its source with the default settings of latexmk\n"
        "latexmk -pdf paper.tex\n```\n"
    )
    root = write_tree(
        tmp_path,
        {"SKILL.md": "---\nname: v\ndescription: Venues.\n---\n\nSee [it](assets/ex.md).\n",
         "assets/ex.md": abstract},
    )  # fmt: skip
    names = {r.name for r in build_inventory(root).requirements if r.kind == "binary"}
    assert not {"drug", "hazard", "offers", "standard"} & names
    assert "latexmk" in names  # a command in an untagged block still is one


def test_a_condition_the_method_checks_is_no_environment_variable(tmp_path: Path) -> None:
    """daily-meeting-update (judge, round 22): "If `HAS_GH` or `HAS_GIT`:" warned that the
    variables HAS_GH and HAS_GIT were not set."""
    md = (
        "---\nname: s\ndescription: Standup.\n---\n\n## Sources\n\nIf `HAS_GH` or `HAS_GIT`:\n"
        "- pull the commits\n\nSteps:\n\n1. If `HAS_HG`: export `HG_TOKEN` first\n\n"
        "Set `GITHUB_TOKEN` for private repositories.\n"
    )
    root = write_tree(tmp_path, {"SKILL.md": md})
    envs = {r.name for r in build_inventory(root).requirements if r.kind == "env"}
    assert envs == {"GITHUB_TOKEN", "HG_TOKEN"}


def test_a_name_in_capitals_is_a_variable_only_where_the_skill_says_so(tmp_path: Path) -> None:
    """flutter-xcodegen-ios and wiki-query (round 24's judge): an Xcode build setting and a key
    of the skill's config file, named in inline code, became environment checks; a name the
    line calls a variable of the environment, or a secret's, stays one."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "* `PRODUCT_NAME` / 表示名\n"
            "1. Read `.wiki.config` to find `WIKI_VAULT_PATH` (defaults `wiki/`).\n"
            "* `DEVELOPMENT_TEAM`（`xcodegen` 実行時の環境変数）\n"
            "Put your key in `GEMINI_API_KEY`.\n",
            "run.py": "import sys\nprint(sys.argv)\n",
        },
    )
    variables = {name for kind, name, _r in needs(tmp_path) if kind == "env"}
    assert variables == {"DEVELOPMENT_TEAM", "GEMINI_API_KEY"}


def test_a_package_uv_installs_from_a_pep_723_header_only_warns(tmp_path: Path) -> None:
    """yara-rule-authoring (round 25's judge): `uv run scripts/lint.py` of a script whose
    PEP 723 header lists `yara-x` gets it from uv; the constructor stopped every pipeline for
    want of yara_x in app-run's own Python.  Imported by a program run with plain python3,
    the package still blocks."""
    header = '# /// script\n# dependencies = ["yara-x>=0.10"]\n# ///\nimport yara_x\n'
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nuv run scripts/lint.py rule.yar\n```\n",
            "scripts/lint.py": header + "print(yara_x)\n",
        },
    )
    found = {(k, n): r for k, n, r in needs(tmp_path)}
    assert found[("python-package", "yara_x")] is False
    assert found[("binary", "uv")] is True
    multi = '# /// script\n# dependencies = [\n#     "yara-x>=0.10",\n# ]\n# ///\nimport yara_x\n'
    (tmp_path / "scripts" / "lint.py").write_text(multi + "print(yara_x)\n")  # uv's own layout
    found = {(k, n): r for k, n, r in needs(tmp_path)}
    assert found[("python-package", "yara_x")] is False
    (tmp_path / "SKILL.md").write_text(HEAD + "```bash\npython3 scripts/lint.py rule.yar\n```\n")
    found = {(k, n): r for k, n, r in needs(tmp_path)}
    assert found[("python-package", "yara_x")] is True


@pytest.mark.parametrize(
    ("body", "variables"),
    [  # the reviewer's second read
        (
            "## Environment variables\n\n| Name | Use |\n|---|---|\n"
            "| `OPENAI_BASE_URL` | server |\n",
            {"OPENAI_BASE_URL"},
        ),
        ("`JIRA_BASE_URL` must point to your Jira server.\n", {"JIRA_BASE_URL"}),
        ("Requires `AWS_ACCESS_KEY_ID` and `AWS_REGION`.\n", {"AWS_ACCESS_KEY_ID", "AWS_REGION"}),
        ("The script sets `RESULT_CODE` when it ends.\n", set()),
        ("Count the tokens in `MAX_LEN` first.\n", set()),
        ("The table's `PRIMARY_KEY` column is kept.\n", set()),
    ],
)
def test_where_a_name_in_capitals_is_a_variable(tmp_path: Path, body: str, variables: set) -> None:
    write_tree(tmp_path, {"SKILL.md": HEAD + body, "run.py": "print(1)\n"})
    assert {name for kind, name, _r in needs(tmp_path) if kind == "env"} == variables


def test_a_path_in_a_table_is_listed_not_required(tmp_path: Path) -> None:
    """disk-hygiene (round 26's frozen inventory): a table of the caches the skill measures
    made `~/.cargo/registry/cache/` a blocking file check."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "| Tool | Cache | Size |\n|---|---|---|\n"
            "| cargo | `~/.cargo/registry/cache/` | 1-5 GB, needed by builds |\n",
            "run.sh": "echo hi\n",
        },
    )
    found = {(k, n): r for k, n, r in needs(tmp_path) if k == "file"}
    assert found[("file", "~/.cargo/registry/cache/")] is False  # listed: a warning at most


def test_a_program_reaching_the_workspace_of_a_private_skill_is_left_to_skill_mode(
    tmp_path: Path,
) -> None:
    """cognitive-book-mirror (round 27, judged 1): its extractor read USER.md and 14 days of
    diary from `SKILL_ROOT.parent.parent.parent` (the workspace) unasked, and the heuristic
    made it a pipeline any request runs, though SKILL.md reads private files only with the
    user's consent.  A sibling skill's folder (`../feishu-auth/config.json`) is no workspace,
    and a skill that guards nothing private keeps its program (cron-manager's database)."""
    from skill2app.converter.analyzers.heuristic import analyze
    from skill2app.converter.inventory.imports import reaches_out

    program = (
        "import sys\nfrom pathlib import Path\n"
        "SKILL_ROOT = Path(__file__).resolve().parent.parent\n"
        'WORKSPACE = SKILL_ROOT.parent.parent.parent\nDIARY = WORKSPACE / "MEMORY" / "Diary"\n'
        'AUTH = SKILL_ROOT.parent / "feishu-auth" / "config.json"\n'
        "print(sorted(p.name for p in DIARY.glob('*.md')), sys.argv[1])\n"
    )
    assert reaches_out("scripts/pack.py", program) == [
        ("../../..", 4),
        ("../../../MEMORY/Diary", 5),
    ]
    for guards, left in (("只有用户明确同意后，才读取日记等私人资料。", True), ("", False)):
        root = write_tree(
            tmp_path / str(left),
            {
                "SKILL.md": HEAD
                + f"{guards}\n\n## Pack\n\n```bash\npython3 scripts/pack.py book.md\n```\n",
                "scripts/pack.py": program,
            },
        )
        plan = analyze(build_inventory(root))
        runs = [s.program for p in plan.pipelines for s in p.steps if hasattr(s, "program")]
        assert ("scripts/pack.py" in runs) is not left
        assert any("MEMORY/Diary" in k.reason for k in plan.skill_mode) is left


def test_a_note_under_commands_leaves_them_commands(tmp_path: Path) -> None:
    """A reviewer's read of the letter rule: a "Note:" line under two command lines made the
    block prose, and the commands' example values were lost."""
    from skill2app.converter.inventory.shell import prose_block

    block = (
        "python scripts/convert.py input.docx output.pdf\npython scripts/validate.py output.pdf\n"
        "Note: the second command exits with 1 when the file is not valid at all\n"
    )
    assert not prose_block(block)
    assert not prose_block("Step 1: python scripts/x.py a.txt\nStep 2: python scripts/y.py b.txt\n")


def test_a_path_climbing_a_million_folders_is_read_at_once() -> None:
    """A reviewer's: `Path(__file__).parents[1000000]` on sys.path hung app-convert (each
    level made the path longer); a climb above MAX_UP folders names no place."""
    import time

    from skill2app.converter.inventory.imports import sys_path_dirs

    source = "import sys\nfrom pathlib import Path\n"
    started = time.perf_counter()
    for index in (1_000_000, 40):
        code = source + f"sys.path.insert(0, str(Path(__file__).parents[{index}]))\n"
        assert sys_path_dirs("scripts/x.py", code) == []
    assert time.perf_counter() - started < 5  # not minutes
    code = source + "sys.path.insert(0, str(Path(__file__).parents[2]))\n"
    assert sys_path_dirs("scripts/x.py", code) == [".."]


def test_a_shell_scripts_own_variable_is_no_environment_need(tmp_path: Path) -> None:
    """project-directory-migration (round 30): `PROJECTS_DIR="${CLAUDE_DIR}/projects"` then
    `rm -rf "${PROJECTS_DIR:?}/${SAVED_NEW_ENCODED:?}"` made two blocking env checks, and no
    pipeline started; a variable taken from the environment it was given still is one."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nbash scripts/migrate.sh old new\n```\n",
            "scripts/migrate.sh": '#!/bin/bash\nPROJECTS_DIR="$HOME/.claude/projects"\n'
            "if [ -f meta.json ]; then\n    SAVED=$(cat meta.json)\nfi\n"
            'rm -rf "${PROJECTS_DIR:?}/${SAVED:?}"\nAPI_KEY="${API_KEY:?set API_KEY}"\n'
            'curl -H "key: $API_KEY" https://example.org\n',
        },
    )
    env = {n: required for k, n, required in needs(tmp_path) if k == "env"}
    assert "PROJECTS_DIR" not in env and env.get("SAVED") is False  # set in a branch: maybe
    assert env.get("API_KEY") is True


def test_a_program_in_a_function_for_one_platform_is_no_requirement(tmp_path: Path) -> None:
    """baoyu-post-to-x (round 29): paste-from-clipboard.ts runs `osascript` in `pasteMac`
    (after `if (process.platform !== 'darwin') return false;` in another function) and
    `powershell.exe` in `pasteWindows`, each called from a `case` of `switch
    (process.platform)`: both were required, so the pipeline failed on every platform."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnpx -y bun scripts/paste.ts\n```\n",
            "scripts/paste.ts": "import { spawnSync } from 'node:child_process';\n"
            "function activate(app: string): boolean {\n"
            "  if (process.platform !== 'darwin') return false;\n"
            "  const r = spawnSync('osascript', ['-e', app]);\n  return r.status === 0;\n}\n"
            "function pasteWindows(): boolean {\n"
            "  const r = spawnSync('powershell.exe', ['-Command', 'x']);\n"
            "  return r.status === 0;\n}\n"
            "switch (process.platform) {\n  case 'win32':\n    pasteWindows();\n    break;\n"
            "  default:\n    activate('Chrome');\n}\nspawnSync('xdotool', ['key', 'ctrl+v']);\n",
        },
    )
    binaries = {n: required for k, n, required in needs(tmp_path) if k == "binary"}
    assert binaries.get("osascript") is False and binaries.get("powershell.exe") is False
    assert binaries.get("xdotool") is True  # outside any platform's code


def test_the_environment_rules_read_no_more_than_they_should(tmp_path: Path) -> None:
    """A reviewer's read: a `.env` template written by a heredoc, a variable set only in a
    branch, an early return that skips one platform and a name that merely contains a
    platform word kept their requirements; a 1 MB line of assignments is read at once."""
    import time

    from skill2app.converter.inventory.node_needs import _node_lines
    from skill2app.converter.inventory.program_needs import _own_variables

    script = (
        "cat > .env.example <<EOF\nAPI_KEY=your-key\nEOF\n"
        "if [ -f /run/key ]; then\n  TOKEN=$(cat /run/key)\nfi\n"
        'curl -H "$API_KEY" "${API_KEY:?}" "${TOKEN:?}"\n'
    )
    assert _own_variables(script) == (set(), {"TOKEN"})
    started = time.perf_counter()
    _own_variables("read A " * 150_000)
    assert time.perf_counter() - started < 5
    node = (
        "function a() {\n  if (process.platform === 'win32') return false;\n"
        "  execSync('ffmpeg -i x');\n}\nfunction getLinuxStyleName() {\n"
        "  execSync('ffprobe x');\n}\n"
    )
    assert [p for _n, line, p in _node_lines(node) if "Sync" in line] == [False, False]


def test_a_here_string_is_no_heredoc_for_the_scripts_own_variables() -> None:
    """The second read of this change: the variables pass kept its own heredoc pattern, which
    took `grep x <<< input` for a heredoc and skipped the rest of the script; it now uses the
    shell parser's (``shell.HEREDOC``)."""
    from skill2app.converter.inventory.program_needs import _own_variables

    assert _own_variables("grep x <<< input\nTOKEN=1\n") == ({"TOKEN"}, set())
    assert _own_variables("cat > .env <<EOF\nAPI_KEY=x\nEOF\nB=2\n") == ({"B"}, set())


def test_the_values_of_an_array_over_several_lines_are_no_programs(tmp_path: Path) -> None:
    """agent-browser (round 34): `URLS=(` then `"https://site.com/page1"` one a line made
    page1, page2 and page3 programs the constructor warned about."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "See references/proxy.md.\n",
            "references/proxy.md": '# Proxies\n\n```bash\nURLS=(\n    "https://site.com/page1"\n'
            '    "https://site.com/page2"\n)\nfor u in "${URLS[@]}"; do\n  curl "$u"\ndone\n'
            "local -a tools=(\n  jq\n)\nURLS+=(\n  page9\n)\nffmpeg -i in.mp4 out.gif\n```\n",
        },
    )
    found = names(tmp_path)
    assert {"curl", "ffmpeg"} <= found  # the commands around and after the arrays
    assert not found & {"page1", "page2", "page9", "https", "jq", "tools"}, found


def test_a_command_passed_to_a_helper_that_runs_it_needs_its_binary(tmp_path: Path) -> None:
    """video2minutes (FRESH37, frozen facts): ``cmd = ["ffmpeg", ...]`` then ``run(cmd)``, where
    ``def run(cmd): subprocess.run(cmd, check=True)``: ffmpeg was no requirement and the step
    failed without a word (now a warning).  A command built in the caller is followed one
    call up, by position or keyword; a method's callers are its ``self.`` calls."""
    program = (
        "import subprocess\n\n"
        "def run(cmd, check=True):\n    subprocess.run(cmd, check=check)\n\n"
        "class Tool:\n    def call(self, argv):\n        subprocess.run(argv)\n\n"
        "    def convert(self):\n        self.call(['pandoc', 'a.md'])\n\n"
        "class Db:\n    def execute(self, sql):\n        return subprocess.run(sql, shell=True)\n\n"
        "def query(cur):\n    cur.execute('SELECT id FROM t')\n\n"
        "def extract(video):\n    cmd = [\n        'ffmpeg',\n        '-i',\n"
        "        video,\n    ]\n    run(cmd)\n\n"
        "def probe():\n    run(cmd=['ffprobe', 'x'])\n\n"
        "def unknown(arguments):\n    run(arguments)\n\n"
        "extract('talk.mp4')\n"
    )
    md = HEAD + "```bash\npython3 scripts/minutes.py\n```\n"
    root = write_tree(tmp_path, {"SKILL.md": md, "scripts/minutes.py": program})
    found = names(root)
    assert {"ffmpeg", "ffprobe", "pandoc"} <= found
    assert "SELECT" not in found  # `cur.execute(sql)` is another object's method
    # a warning the constructor prints, naming the pipelines: a helper may be handed one of
    # several ways (skill-installer's git runs only after a failed download)
    assert ("binary", "ffmpeg", False) in needs(root)


def test_a_variable_a_node_program_sets_itself_is_no_requirement(tmp_path: Path) -> None:
    """baoyu-danger-gemini-web (FRESH36, frozen facts): ``process.env.GEMINI_WEB_LOGIN = '1'``
    (the program asks its own login helper to log in) blocked every pipeline; the helper
    reads it as ``process.env.GEMINI_WEB_LOGIN?.trim() || ...``, a test.  A comparison
    (``process.env.MODE === 'x'``) is still a read."""
    write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\nnode scripts/main.js\n```\n",
            "scripts/main.js": "if (process.argv.includes('--login')) {\n"
            "  process.env.GEMINI_WEB_LOGIN = '1';\n}\nprocess.env.SESSION_DIR = '/tmp/s';\n"
            "const token = process.env.API_TOKEN;\nif (process.env.MODE === 'x') {}\n"
            "const force = process.env.GEMINI_WEB_LOGIN?.trim() || '';\n",
        },
    )
    found = {(n, r) for k, n, r in needs(tmp_path) if k == "env"}
    assert ("GEMINI_WEB_LOGIN", True) not in found
    assert not {n for n, _r in found} & {"SESSION_DIR"}
    assert ("API_TOKEN", True) in found
    assert "MODE" in {n for n, _r in found}


def test_a_file_listed_per_platform_is_no_blocking_need(tmp_path: Path) -> None:
    """baoyu-danger-gemini-web (FRESH36, frozen facts): under "## Consent Check (REQUIRED)",
    "- Linux: `~/.local/share/x/consent.json`" (one place per platform, which the skill's own
    flow creates once the user accepts) blocked every pipeline."""
    md = HEAD + (
        "## Consent Check (REQUIRED)\n\n**Consent file locations**:\n"
        "- macOS: `~/Library/Application Support/x/consent.json`\n"
        "- Linux: `~/.local/share/x/consent.json`\n\n"
        "## Setup\n\nPut your key in `~/.config/x/key.json` (required).\n"
    )
    write_tree(tmp_path, {"SKILL.md": md})
    files = {(n, r) for k, n, r in needs(tmp_path) if k == "file"}
    assert ("~/.local/share/x/consent.json", False) in files
    assert ("~/.config/x/key.json", True) in files


def test_a_binary_shown_as_one_platforms_beside_another_only_warns(tmp_path: Path) -> None:
    """full-page-screenshot (FRESH38, frozen facts): SKILL.md shows `sips` under "# macOS"
    and `file` under "# Linux" to check the output, and the script calls sips only to stitch
    tiles of a very tall page: sips blocked every screenshot on Linux.  A block that names
    one platform only is the skill's own setting (a macOS skill's sips stays required)."""
    script = (
        "const { execSync } = require('child_process');\nconst tiles = [];\n"
        "if (tiles.length > 1) {\n  execSync(`sips -g pixelWidth ${tiles[0]}`);\n}\n"
        "execSync('ffmpeg -version');\n"
    )
    md = HEAD + (
        "```bash\nnode scripts/shot.js\n```\n\n### Verify\n\n```bash\n# macOS\n"
        "sips -g pixelWidth -g pixelHeight /tmp/s.png\n\n# Linux\nfile /tmp/s.png\n```\n"
    )
    write_tree(tmp_path / "both", {"SKILL.md": md, "scripts/shot.js": script})
    binaries = {(n, r) for k, n, r in needs(tmp_path / "both") if k == "binary"}
    assert ("sips", False) in binaries
    assert ("ffmpeg", True) in binaries
    only_mac = md.replace("# Linux\nfile /tmp/s.png\n", "")
    write_tree(tmp_path / "mac", {"SKILL.md": only_mac, "scripts/shot.js": script})
    assert ("sips", True) in {(n, r) for k, n, r in needs(tmp_path / "mac") if k == "binary"}


def test_a_binary_shown_for_every_platform_or_an_interpreter_stays_required(
    tmp_path: Path,
) -> None:
    """A reviewer's cases: `ffmpeg` under both "# macOS" and "# Linux" is every platform's;
    `node scripts/run.js` is the program's interpreter; "# Linux is not supported" makes the
    block the skill's own platform, not an alternative."""
    script = "const { execSync } = require('child_process');\nexecSync('ffmpeg -version');\n"
    both = HEAD + (
        "```bash\n# macOS\nffmpeg -version\nnode scripts/run.js\n\n# Linux\nffmpeg -version\n"
        "node scripts/run.js\n```\n"
    )
    write_tree(tmp_path / "both", {"SKILL.md": both, "scripts/run.js": script})
    binaries = {(n, r) for k, n, r in needs(tmp_path / "both") if k == "binary"}
    assert {("ffmpeg", True), ("node", True)} <= binaries
    mac = HEAD + (
        "```bash\n# macOS (required)\nosascript -e 'x'\n\n# Linux is not supported\n"
        "echo unsupported\n```\n"
    )
    script = "const { execSync } = require('child_process');\nexecSync('osascript -e 1');\n"
    write_tree(tmp_path / "mac", {"SKILL.md": mac, "scripts/run.js": script})
    assert ("osascript", True) in {(n, r) for k, n, r in needs(tmp_path / "mac") if k == "binary"}


def test_a_package_one_mode_imports_when_it_runs_is_a_warning(tmp_path: Path) -> None:
    """duckdb-expert (round 48): ``load_config_from_yaml`` imports yaml in a ``try`` that
    says to install PyYAML, and is called only for a .yaml config; yaml blocked every run of
    the ETL.  main's own guarded import, and a helper called every time, still block."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/etl.py config.yaml\n```\n",
            "scripts/etl.py": (
                "import sys\n\n"
                "def load_yaml(path):\n    try:\n        import yaml\n    except ImportError:\n"
                "        raise ImportError('PyYAML is required: pip install pyyaml')\n"
                "    return yaml.safe_load(open(path))\n\n"
                "def load_csv(path):\n    try:\n        import pandas\n    except ImportError:\n"
                "        sys.exit('pip install pandas')\n    return pandas.read_csv(path)\n\n"
                "def main():\n    try:\n        import duckdb\n    except ImportError:\n"
                "        sys.exit('pip install duckdb')\n"
                "    if sys.argv[1].endswith('.yaml'):\n        config = load_yaml(sys.argv[1])\n"
                "    rows = load_csv('data.csv')\n    return duckdb, config, rows\n\n"
                "if __name__ == '__main__':\n    main()\n"
            ),
        },
    )
    found = needs(root)
    assert ("python-package", "yaml", False) in found
    assert ("python-package", "pandas", True) in found  # called on every run
    assert ("python-package", "duckdb", True) in found  # main's own


@pytest.mark.parametrize(
    "call",
    [
        "    if a.input:\n        load_pdf(a.input)\n",  # given or not: a required flag
        "    if not os.path.exists('index.npy'):\n        load_pdf('x')\n",  # a cache miss
        "    if a.cmd == 'a':\n        pass\n    else:\n        load_pdf('x')\n",  # an else
        "    if a.cmd == 'a':\n        load_pdf('x')\n    else:\n        load_pdf('y')\n",
    ],
)
def test_a_guarded_import_of_a_helper_called_on_the_main_path_still_blocks(
    tmp_path: Path, call: str
) -> None:
    """A reviewer's cases: a helper called under a test of whether something is given or
    there, or in an else, is no mode's own package."""
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": HEAD + "```bash\npython3 scripts/run.py --input a.pdf\n```\n",
            "scripts/run.py": (
                "import argparse, os, sys\n\n"
                "def load_pdf(path):\n    try:\n        import pypdf\n    except ImportError:\n"
                "        sys.exit('pip install pypdf')\n    return pypdf.PdfReader(path)\n\n"
                "def main():\n    p = argparse.ArgumentParser()\n"
                "    p.add_argument('--input', required=True)\n    p.add_argument('--cmd')\n"
                "    a = p.parse_args()\n" + call + "\n"
                "if __name__ == '__main__':\n    main()\n"
            ),
        },
    )
    found = needs(root)
    assert ("python-package", "pypdf", True) in found, found
