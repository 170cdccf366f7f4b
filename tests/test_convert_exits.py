"""Exit statuses a skill documents as results: the heuristic's steps take them as answers
(``ok_exit_codes``), never an error status.  Built from the DEV skills that showed each
form: spark-video's doctor and storyboard estimate, gh-fix-ci's inspector, uipath's
synthesize-formdata, and verbatim-audit-notify's sender (whose statuses are all errors)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import write_tree

from skill2app.converter.analyzers.heuristic import analyze
from skill2app.converter.inventory.exits import result_statuses
from skill2app.converter.inventory.model import build_inventory
from skill2app.converter.plan.model import CodeStep


@pytest.mark.parametrize(
    ("text", "statuses"),
    [
        ("verify runtime dependencies. Exit 0 = ready, 1 = something missing.", {1}),
        ("Exits non-zero when failures remain so it can be used in automation.", {1}),
        ("uv run scripts/storyboard.py estimate    # exit 2 if over budget", {2}),
        ("Exit 3 = no contributions for this product in these clauses → skip it.", {3}),
        ("退出码 1 表示发现硬编码", {1}),
        # llm-wiki-setup (round 12): a lint's hard fail is its verdict, however it is spelled
        ("退出码：0 = 通过（可含软警告）；1 = 硬 fail；2 = 环境错误", {1}),
        ("Exit codes: 1 = hard fail, 2 = bad arguments", {1}),
        ("Exit codes: 1 = HARD FAIL", {1}),
        # obsidian-mermaid-visualizer (round 25): a count of verdicts
        ("# Exit: 0 = all blocks parsed, 1 = at least one FAIL, 2 = bad usage.", {1}),
        ("exit 1 = at least one FAILURE (could not connect)", set()),
        # errors, never results
        ("Exit 1 = bad/missing flag or no credentials, 2 = JSONL write failed", set()),
        ("Exit 3 = Pushover API failed (JSONL written)", set()),
        ("exit 1 on invalid arguments; exit 2 when the file is not found", set()),
        ("```\nexit 1\n```", set()),
        ("Exits non-zero on failure.", set()),
        ("exit 1 if the input file is missing", set()),
        ("Exit 1 when checks fail, 2 on usage errors", {1}),
        ("Returns 1 finding per line; the exit status is 0.", set()),
        # code-hardcode-audit (judge, round 6): "not an error" says it is no error
        ("Bandit returns exit code 1 when findings exist — not an error", {1}),
        # design-lint, ascii-graph (judges, round 10): a verdict, emphasis, a parenthesis
        ("- Exit codes: `0` = PASS / `1` = FAIL (errors present) / `2` = tokens.json absent", {1}),
        ("終了コード: 0 = PASS / 1 = FAIL (error あり) / 2 = 前提条件不足", {1}),
        ("prints both and exits 0 (clean) / 1 (drift).", {1}),
        ("lists drift, and exits **0 clean / 1 on\ndrift**. Loop:", {1}),
        ("Exit codes: 0 = ok / 1 = failed to connect", set()),
        ("Exit codes: 0 = success, 1 = FAILURE (could not connect)", set()),
        # changelog-generator (judge, round 13): the status said before the exit word
        ("Use --strict for non-zero exit on violations.", {1}),
        ("- Returns non-zero in `--strict` mode on violations", {1}),
        ("Returns non-zero on invalid arguments", set()),
        ("Non-zero exit code when ffmpeg is missing.", set()),  # the machine's, no finding
        ("Returns non-zero when a dependency is missing.", set()),
    ],
)
def test_statuses_with_a_finding_for_meaning(text: str, statuses: set[int]) -> None:
    assert set(result_statuses([text])) == statuses


SKILL = (
    "---\nname: deps\ndescription: Checks a project's dependencies.\n---\n# Deps\n\n"
    "## Check\n\nReports what is missing. Exit 0 = ready, 1 = something missing.\n\n"
    "```bash\npython scripts/check.py --root .\n```\n\n"
    "## Plan\n\n```bash\npython scripts/plan.py estimate --root .    # exit 2 if over budget\n"
    "python scripts/plan.py compile --root .\n```\n"
)
CHECK = (
    "import argparse, json, sys\np = argparse.ArgumentParser()\np.add_argument('--root')\n"
    "a = p.parse_args()\nprint(json.dumps({'missing': ['jq']}))\nsys.exit(1)\n"
)
PLAN = (
    '"""Plan.\n\ncommands:\n  estimate   Print the cost. Exit 2 if over budget.\n'
    '  compile    Compile the plan.\n"""\nimport argparse, json\n'
    "p = argparse.ArgumentParser()\ns = p.add_subparsers(dest='cmd')\n"
    "e = s.add_parser('estimate')\ne.add_argument('--root')\n"
    "c = s.add_parser('compile')\nc.add_argument('--root')\n"
    "print(json.dumps({'ok': True}))\n"
)


def test_a_documented_result_status_is_taken_by_that_step_only(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "skill", {"SKILL.md": SKILL, "scripts/check.py": CHECK, "scripts/plan.py": PLAN}
    )
    plan = analyze(build_inventory(root))
    codes = {
        step.program + (f" {step.subcommand}" if step.subcommand else ""): step.ok_exit_codes
        for pipeline in plan.pipelines
        for step in pipeline.steps
        if isinstance(step, CodeStep)
    }
    assert codes == {
        "scripts/check.py": [0, 1],
        "scripts/plan.py estimate": [0, 2],
        "scripts/plan.py compile": [],  # the header's estimate line is estimate's alone
    }


def test_the_converted_checker_answers_with_its_status_instead_of_failing(tmp_path: Path) -> None:
    """End to end: app-convert, then app-run of the checker, which exits 1 with what it found."""
    root = write_tree(tmp_path / "skill", {"SKILL.md": SKILL, "scripts/check.py": CHECK})
    out = tmp_path / "app"
    convert = [sys.executable, "-c", "from skill2app.converter.cli import main; main()"]
    done = subprocess.run(
        [*convert, str(root), "--out", str(out), "--analyzer", "heuristic"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (pipeline,) = [p.parent.name for p in (out / "pipelines").glob("[!_]*/pipeline.yaml")]
    run = [sys.executable, "-c", "from skill2app.runtime.cli import main; main()"]
    ran = subprocess.run(
        [*run, "run", str(out), pipeline, "--input", "root=.", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert '"exit_code": 1' in ran.stdout and "jq" in ran.stdout


SCANNER = (  # code-hardcode-audit's run_bandit.py (judge, round 6), in short
    "import argparse, json, subprocess, sys\n\n\ndef scan(path, fmt):\n"
    "    done = subprocess.run(['true'])\n"
    "    # Bandit returns exit code 1 when findings exist — not an error\n"
    "    found = [{'line': 3}]\n"
    "    print(json.dumps({'findings': found}) if fmt == 'json' else 'x.py:3 finding')\n"
    "    return 1 if found else 0\n\n\ndef main():\n"
    "    p = argparse.ArgumentParser(description='Run Bandit hardcoded secret detection')\n"
    "    p.add_argument('path')\n"
    "    p.add_argument('--output', choices=['json', 'text'], default='text')\n"
    "    a = p.parse_args()\n    return scan(a.path, a.output)\n\n\n"
    "if __name__ == '__main__':\n    sys.exit(main())\n"
)


def test_a_status_the_code_comments_on_and_its_json_output_are_taken(tmp_path: Path) -> None:
    """code-hardcode-audit (judge, round 6): run_bandit.py exits 1 when it finds secrets (a
    comment in its code says so: "not an error"), and prints JSON with ``--output json``, a
    flag whose every choice is a format; the step failed on findings and returned text."""
    skill = (
        "---\nname: audit\ndescription: Finds hardcoded secrets.\n---\n# Audit\n\n"
        "```bash\nuv run scripts/run_bandit.py src/\n```\n"
    )
    root = write_tree(tmp_path / "skill", {"SKILL.md": skill, "scripts/run_bandit.py": SCANNER})
    plan = analyze(build_inventory(root))
    (step,) = [s for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)]
    assert step.ok_exit_codes == [0, 1]
    assert step.stdout == "json"
    assert [(a.flag, a.value) for a in step.args if a.flag] == [("--output", "json")]


VERDICTS = [
    # session-handoff (round 11): a validator's and a staleness check's verdicts
    ("ok = check()\nsys.exit(0 if success else 1)\n", {1}),
    (
        "def main():\n    if len(sys.argv) < 2:\n        sys.exit(1)\n"
        "    level = grade()\n    if level in ['FRESH', 'SLIGHTLY_STALE']:\n        sys.exit(0)\n"
        "    elif level == 'STALE':\n        sys.exit(1)\n    else:\n        sys.exit(2)\n",
        {1, 2},
    ),
    ("def main():\n    return 1 if errors else 0\nsys.exit(main())\n", {1}),
    # "it failed to do it", a usage error, a crash: failures
    ("result = package()\nif result:\n    sys.exit(0)\nelse:\n    sys.exit(1)\n", set()),
    ("if len(sys.argv) < 2:\n    sys.exit(1)\nelse:\n    sys.exit(0)\n", set()),
    ("try:\n    run()\nexcept OSError:\n    sys.exit(3)\nsys.exit(0)\n", set()),
    ("sys.exit(0 if result else 1)\n", set()),
    # the review's: a word inside another, an argument's value, an error message, a status
    # no shell can give, code too deep to read
    ("sys.exit(0 if password else 1)\n", set()),
    (
        "if args.mode == 'fix':\n    sys.exit(0)\nelse:\n"
        "    print('unknown mode')\n    sys.exit(2)\n",
        set(),
    ),
    (
        "found = load()\nif found:\n    sys.exit(0)\nelse:\n"
        "    print('config file not found')\n    sys.exit(1)\n",
        set(),
    ),
    ("sys.exit(0 if not errors else 300)\n", set()),
    # hit-weekly-brief (round 16): `if errors: print(FAIL ...); return 1`, last `return 0`
    (
        "def main(argv=None):\n    args = parse(argv)\n    errors = validate(args.file)\n"
        "    if errors:\n        for e in errors:\n            print(f'FAIL: {e}')\n"
        "        return 1\n    print('OK')\n    return 0\nsys.exit(main())\n",
        {1},
    ),
    (  # the reviewer's: a key or a variable looked up, not an outcome
        "def main():\n    if os.environ.get('API_TOKEN') is None:\n        return 1\n"
        "    if resp['error']:\n        return 2\n    if cfg['mode'] != 'prod':\n"
        "        return 3\n    return 0\nsys.exit(main())\n",
        set(),
    ),
    (  # the same shape on a missing file, or a usage check: failures
        "def main():\n    if not path.exists():\n        print('error: file not found')\n"
        "        return 1\n    if len(sys.argv) < 2:\n        return 2\n    return 0\n"
        "sys.exit(main())\n",
        set(),
    ),
    ("sys.exit(0 if (" + "x+" * 600 + "x) else 1)\n", set()),
    (  # meeting-minutes-reviewer (round 20): exit 1 = critical issues found, before exit(0)
        "if not args.minutes.exists():\n    print('Error: not found')\n    sys.exit(1)\n"
        "if result.summary['critical_count'] > 0:\n    sys.exit(1)\nsys.exit(0)\n",
        {1},
    ),
    ("if len(sys.argv) < 2:\n    sys.exit(2)\nsys.exit(0)\n", set()),  # a usage check
    ("if problems_count > 0:\n    sys.exit(3)\nwork()\nsys.exit(0)\n", set()),  # not right before
    (  # two verdicts, and a message between the last and the end
        "if errors > 0:\n    sys.exit(1)\nif warnings > 0:\n    sys.exit(2)\n"
        "print('All checks passed')\nsys.exit(0)\n",
        {1, 2},
    ),
    ("if not ok:\n    print('Error: config not found')\n    sys.exit(2)\nsys.exit(0)\n", set()),
    (  # implement-plan-preflight (round 24): a compound name, a verdict that counts errors
        "if len(sys.argv) != 2:\n    print('Usage: v.py <id>')\n    sys.exit(1)\n"
        "all_errors = check()\nif all_errors:\n"
        "    print(f'[FAIL] validation failed with {len(all_errors)} error(s):')\n"
        "    sys.exit(1)\nelse:\n    print('[PASS] ok')\n    sys.exit(0)\n",
        {1},
    ),
    ("sys.exit(1 if has_issues else 0)\n", {1}),
    ("sys.exit(2 if issue_count else 0)\n", {2}),
    # compound names that are no outcome: a message, a missing file
    ("if error_message:\n    sys.exit(1)\nelse:\n    sys.exit(0)\n", set()),
    ("sys.exit(1 if file_not_found else 0)\n", set()),
    # the reviewer's: an operation that broke or worked is no finding
    ("sys.exit(1 if download_failed else 0)\n", set()),
    ("if download_failed:\n    sys.exit(1)\nelse:\n    sys.exit(0)\n", set()),
    ("if api_error:\n    sys.exit(1)\nsys.exit(0)\n", set()),
    ("sys.exit(0 if fetch_ok else 1)\n", set()),
    ("sys.exit(0 if module_found else 1)\n", set()),
    ("sys.exit(0 if upload_success else 1)\n", set()),
    ("sys.exit(1 if lint_errors else 0)\n", {1}),
    (
        "if not ok:\n    print('FAILED: could not connect to the server')\n    sys.exit(1)\n"
        "else:\n    sys.exit(0)\n",
        set(),
    ),
    (  # a verdict mark does not turn an error message into a verdict elsewhere
        "if all_errors:\n    print('cannot read the config')\n    sys.exit(1)\n"
        "else:\n    sys.exit(0)\n",
        set(),
    ),
    # markitdown (round 27): whether the conversion worked is no verdict; a check's is
    ("success = convert_with_ai(src, out)\nsys.exit(0 if success else 1)\n", set()),
    ("ok = self.upload(path)\nsys.exit(0 if ok else 1)\n", set()),
    ("success = validate_handoff(path)\nsys.exit(0 if success else 1)\n", {1}),
    # a reviewer's: the assignment that counts is the last one before the exit
    (
        "def a():\n    ok = build_index()\n    return ok\n"
        "def main():\n    ok = check_all()\n    sys.exit(0 if ok else 1)\n",
        {1},
    ),
    ("errors = process(files)\nsys.exit(1 if errors else 0)\n", {1}),
    # codex-reviewer (round 42): whether a run it started worked, unpacked with its result
    (
        "success, result = run_codex_review(target)\nif success:\n    sys.exit(0)\n"
        "else:\n    print(f'レビュー失敗: {result}')\n    sys.exit(1)\n",
        set(),
    ),
    ("ok, report = run_checks(files)\nsys.exit(0 if ok else 1)\n", {1}),
    # FRESH40/41: `raise SystemExit(main())`; a count of conflicts; survivors found, and the
    # argparse program's 2 (its parser's usage status; here also "the gate was red"): none
    ("failures = run(tests)\nif failures:\n    sys.exit(1)\nsys.exit(0)\n", {1}),
    ("issues = checker.run(paths)\nsys.exit(1 if issues else 0)\n", {1}),
    ("def main():\n    return 1 if errors else 0\nraise SystemExit(main())\n", {1}),
    (
        "def main():\n    report = scan()\n    return 0 if report['total_conflicts'] == 0 else 1\n"
        "sys.exit(main())\n",
        {1},
    ),
    (
        "import argparse\ndef main():\n    ok, why = run(cmd)\n    if not ok:\n"
        "        print(f'BASELINE RED ({why})')\n        return 2\n    survivors = mutate()\n"
        "    if survivors:\n        return 1\n"
        "    return 0\nsys.exit(main())\n",
        {1},
    ),
    # round 45: mentat's validator prints VALIDATION_FAIL and its reasons, then exits 1,
    # in an except of its own ValidationError; VALIDATION_PASS is the other verdict
    (
        "class ValidationError(Exception):\n    pass\n"
        "try:\n    check(sys.argv[1])\nexcept FileNotFoundError:\n"
        "    print('VALIDATION_FAIL: file not found')\n    sys.exit(3)\n"
        "except json.JSONDecodeError as exc:\n    print(f'VALIDATION_FAIL: invalid json: {exc}')\n"
        "    sys.exit(4)\nexcept ValidationError as exc:\n    print('VALIDATION_FAIL:')\n"
        "    for line in str(exc).splitlines():\n        print(f' - {line}')\n    sys.exit(1)\n"
        "print('VALIDATION_PASS')\n",
        {1},
    ),
    # no PASS verdict printed, the FAIL on stderr, a broad or system error caught, or what
    # is printed says the program broke (a review of round 47): a failure's message
    (
        "class Bad(Exception):\n    pass\n"
        "try:\n    check()\nexcept Bad:\n    print('FAIL: bad')\n    sys.exit(1)\n",
        set(),
    ),
    (
        "class Bad(Exception):\n    pass\n"
        "try:\n    check()\nexcept Bad:\n    print('FAIL', file=sys.stderr)\n"
        "    sys.exit(1)\nprint('PASS')\n",
        set(),
    ),
    (
        "try:\n    check()\nexcept Exception as e:\n    print(f'FAILED: {e}')\n"
        "    sys.exit(1)\nprint('OK')\n",
        set(),
    ),
    (
        "class Bad(Exception):\n    pass\n"
        "try:\n    check()\nexcept (Bad, OSError) as e:\n    print('VALIDATION_FAIL:')\n"
        "    sys.exit(1)\nprint('VALIDATION_PASS')\n",
        set(),
    ),
    (
        "class Bad(Exception):\n    pass\n"
        "try:\n    check()\nexcept Bad:\n    print('VALIDATION_FAIL:')\n"
        "    print('  cannot read the report')\n    sys.exit(1)\nprint('VALIDATION_PASS')\n",
        set(),
    ),
]


@pytest.mark.parametrize(("source", "statuses"), VERDICTS)
def test_the_statuses_a_programs_code_gives_as_its_verdict(source: str, statuses: set) -> None:
    from skill2app.converter.inventory.programs.verdicts import python_verdicts

    assert set(python_verdicts("import sys\n" + source)) == statuses


def test_a_verdict_the_code_gives_is_a_result_of_the_step(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: handoff\ndescription: Check a handoff.\n---\n# Handoff\n\n"
            "```bash\npython3 scripts/validate.py notes.md\n```\n",
            "scripts/validate.py": (
                "import sys\nsuccess = 'TODO' not in open(sys.argv[1]).read()\n"
                "print('Verdict: READY' if success else 'Verdict: NEEDS WORK')\n"
                "sys.exit(0 if success else 1)\n"
            ),
        },
    )
    inventory = build_inventory(root)
    program = inventory.program("scripts/validate.py")
    assert program is not None and set(program.verdicts) == {1}
    assert "result_exits" in program.to_dict()
    (pipeline,) = analyze(inventory).pipelines
    step = pipeline.steps[0]
    assert isinstance(step, CodeStep) and step.ok_exit_codes == [0, 1]


CHECK_TOOL = """#!/bin/bash
TOOL_NAME="$1"
if [ -z "$TOOL_NAME" ]; then
    echo "Usage: check-tool.sh <tool-name> [install-command]"
    exit 1
fi
if command -v "$TOOL_NAME" &> /dev/null; then
    echo "OK: $TOOL_NAME is installed"
    exit 0
else
    echo "MISSING: $TOOL_NAME is not installed"
    if [ -n "$2" ]; then
        echo "Install with: $2"
    fi
    exit 1
fi
"""


@pytest.mark.parametrize(
    ("source", "statuses"),
    [
        (CHECK_TOOL, {1}),  # dependency-updater (round 19): MISSING on stdout, then exit 1
        (
            'if ! command -v taze; then\n  echo "ERROR: taze is not installed"\n  exit 1\nfi\n',
            set(),
        ),
        ('if [ -n "$x" ]; then\n  echo "FAIL: drift" >&2\n  exit 1\nfi\n', set()),  # stderr
        ('echo "FAIL: $n checks"\nif [ "$n" -gt 0 ]; then\n  exit 2\nfi\n', set()),  # elsewhere
        # a reviewer's second read: the last message before the exit decides
        (
            'if x; then\n  echo "MISSING: jq"\n  echo "ERROR: cannot go on" >&2\n  exit 1\nfi\n',
            set(),
        ),
        ('for f in *; do\n  echo "FOUND $f"\ndone\necho "download aborted"\nexit 2\n', set()),
        ("if x; then\n  echo MISSING: ${T}\n  exit 1\nfi\n", {1}),
        ('if x; then\n  echo "DRIFT: files differ"\n  echo\n  exit 3\nfi\n', {3}),  # more output
        (
            'if x; then\n  echo "MISSING: 2"\n  for t in a b; do\n    echo "- $t"\n'
            "  done\n  exit 1\nfi\n",
            {1},
        ),
        ("echo " + " " * 50_000 + "x\nexit 1\n", set()),  # a long line: no backtracking
        # systematic-debugging's find-polluter.sh (round 28): an emoji before the verdict
        (
            'if x; then\n  echo ""\n  echo "🎯 FOUND POLLUTER!"\n'
            '  echo "   Test: $f"\n  exit 1\nfi\n',
            {1},
        ),
        ('if x; then\n  echo "⚠️ ERROR: no tests"\n  exit 1\nfi\n', set()),
        # ima-copilot's diagnose.sh (FRESH42): its summary's counts, at its end
        (
            'echo "--- Summary ---"\nif [ "$FAIL" -gt 0 ] || [ "$WARN" -gt 0 ]; then\n'
            '  echo "Next step: walk through the warnings above."\n  exit 1\nfi\n\nexit 0\n',
            {1},
        ),
        # counters of commands that failed, not of findings (a second reviewer's)
        (
            'npm run build || BUILD_FAILED=1\nif [ "$BUILD_FAILED" -ne 0 ]; then\n'
            '  echo "Build did not complete"\n  exit 1\nfi\n',
            set(),
        ),
        (
            'for u in a b; do curl "$u" || FAILED=$((FAILED+1)); done\n'
            'if [ "$FAILED" -gt 0 ]; then\n  exit 1\nfi\n',
            set(),
        ),
        (
            "trap 'ERRORS=$((ERRORS+1))' ERR\nterraform apply\n"
            'if [ "$ERRORS" -gt 0 ]; then\n  exit 1\nfi\n',
            set(),
        ),
        # a preflight's count before the work (project-directory-migration): a failure
        (
            'if [[ "${PREFLIGHT_FAIL}" -ne 0 ]]; then\n  echo "Aborting."\n  exit 1\nfi\n'
            'mv "$OLD" "$NEW"\n',
            set(),
        ),
    ],
)
def test_the_statuses_a_shell_script_gives_after_its_verdict(source: str, statuses: set) -> None:
    from skill2app.converter.inventory.programs.shell_exits import shell_verdicts

    assert set(shell_verdicts(source)) == statuses


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ('echo "Bug title:"\nread -r title\n', 2),  # qa-test-planner (round 19)
        ('read -r -p "Continue? [y/N] " answer\n', 1),
        ('exec < /dev/tty\nread -p "Title: " t\n', 2),  # reads the terminal outright
        ('{\n  read -r header\n  while read -r row; do :; done\n} < "$1"\n', 0),  # data
        ("cat list | while true; do\n  read -r item\ndone\n", 0),
        ("read -r -u 3 line\n", 0),
        ("if [ -t 0 ]; then read -r x; fi\n", 0),  # asks only with a terminal
        ("read " + "-a " * 40 + "!\n", 0),  # no backtracking between options: instant
        ('if [ ! -t 0 ]; then\n  input=$(cat)\nelse\n  read -r -p "Text: " input\nfi\n', 0),
        ('while read -r f; do :; done < list.txt\necho "Delete? [y/N]"\nread -r answer\n', 3),
        ('read -u "$fd" line\n', 0),
        ('read -n 1 -s -r -p "Press any key"\n', 1),
        ('IFS= read -r -p "Name: " name\n', 1),
    ],
)
def test_the_question_a_shell_script_asks_on_the_terminal(source: str, line: int) -> None:
    from skill2app.converter.inventory.programs.prompts import terminal_prompt

    assert terminal_prompt(source) == line


def test_a_workflow_running_an_interactive_script_is_left_to_skill_mode(tmp_path: Path) -> None:
    """A reviewer's second read: only the per-program pipelines were left to Skill mode; a
    workflow running `new_bug.sh` still got a step that stops at its first question."""
    skill = write_tree(
        tmp_path / "qa",
        {
            "SKILL.md": "---\nname: qa\ndescription: File bugs.\n---\n## Filing a bug\n\n"
            "1. Run `bash scripts/new_bug.sh` and answer its questions.\n"
            "2. Review the report it wrote.\n",
            "scripts/new_bug.sh": '#!/bin/bash\nread -p "Bug title: " title\necho "# $title"\n',
        },
    )
    plan = analyze(build_inventory(skill))
    assert not any(
        isinstance(step, CodeStep) and step.program == "scripts/new_bug.sh"
        for pipeline in plan.pipelines
        for step in pipeline.steps
    )
    assert any("terminal" in item.reason for item in plan.skill_mode)


VALIDATE_LAYERS = """const results = [];
let passed = 0, failed = 0;
check('layers', () => true);
results.forEach(r => {
  console.log(`${r.status}  ${r.label}`);
});
console.log(`Passed: ${passed}  |  Failed: ${failed}`);

if (failed === 0) {
  console.log('All checks passed!');
} else {
  console.log(`Fix the ${failed} issue(s) above before shipping.`);
  process.exit(1);
}
"""


@pytest.mark.parametrize(
    ("source", "statuses"),
    [
        (VALIDATE_LAYERS, {1}),  # epic-design (FRESH43): its checks' count, at its end
        ("const errors = lint(doc);\nprocess.exitCode = errors.length ? 1 : 0;\n", {1}),
        ("if (issues.length > 0) process.exit(2);\n", {2}),
        # failures, however the test is worded
        (
            "if (!user) { console.error('Error: DOUBAN_USER is not set'); process.exit(1); }\n",
            set(),
        ),
        ("if (!stageA.ok) {\n  emit('RETRY');\n  process.exit(2);\n}\nbuild();\n", set()),
        (
            "if (errors.length) {\n  console.log(errors);\n  process.exit(1);\n}\nwrite(out);\n",
            set(),
        ),
        (
            "if (args.length < 1) {\n  console.log('usage: x <file>');\n  process.exit(1);\n}\n",
            set(),
        ),
        ("const r = await fetch(u);\nif (!res.ok) process.exit(1);\n", set()),
        # a second reviewer's: whether an operation worked, however it is given
        ("const success = await deploy(site);\nprocess.exit(success ? 0 : 1);\n", set()),
        ("main().then((success) => process.exit(success ? 0 : 1));\n", set()),
        ("const ok = await publish(pkg);\nif (!ok) process.exit(1);\n", set()),
        (
            "let failed = 0;\nfor (const u of urls) {\n  try { await get(u) } catch (e) {\n"
            "    failed++;\n  }\n}\nif (failed > 0) process.exit(1);\n",
            set(),
        ),
        # the test of an outer `if`, a block closed on its line, stderr, a hoisted check
        (
            "if (res.status === 200) {\n  const data = await res.json();\n  if (data.errors) {\n"
            "    console.log(1);\n  }\n} else {\n  console.log('request failed');\n"
            "  process.exit(1);\n}\n",
            set(),
        ),
        (
            "try { x() } catch (e) {\n  if (e.issues) { console.log(e.issues); }\n"
            "  process.exit(1);\n}\n",
            set(),
        ),
        ("if (errors.length) {\n  console.error(errors);\n  process.exit(1);\n}\n", set()),
        (
            "if (errors.length) {\n  process.stderr.write('invalid');\n  process.exit(1);\n}\n",
            set(),
        ),
        (
            "main();\nfunction check() {\n  if (issues.length) {\n    console.log('x');\n"
            "    process.exit(1);\n  }\n}\n",
            set(),
        ),
        ("await build();\n/*\nif (errors.length) {\n  process.exit(1);\n}\n*/\n", set()),
        # the branch's own test in an `else if` chain, not the first `if`'s
        (
            "if (!fs.existsSync(f)) {\n  console.log('no file');\n} else if (issues.length) {\n"
            "  console.log(issues);\n  process.exit(1);\n}\n",
            {1},
        ),
        (
            "if (issues.length) {\n  console.log(issues);\n} else if (!fs.existsSync(f)) {\n"
            "  console.log('gone');\n  process.exit(1);\n}\n",
            set(),
        ),
    ],
)
def test_the_statuses_a_node_programs_code_gives_as_its_verdict(source: str, statuses: set) -> None:
    from skill2app.converter.inventory.programs.node_exits import node_verdicts

    assert set(node_verdicts(source)) == statuses


def test_an_unresolved_link_is_a_checkers_finding() -> None:
    """wiki-ingest's check-wikilink-targets.py (FRESH42): `return 1 if unresolved else 0`
    to `raise SystemExit(main(sys.argv))` failed the step exactly when links were to fix."""
    from skill2app.converter.inventory.programs.verdicts import python_verdicts

    source = (
        "import sys\n\ndef main(argv):\n    if len(argv) < 3:\n        return 2\n"
        "    unresolved = [t for t in argv[3:] if t]\n    for t in unresolved:\n"
        "        print(t)\n    return 1 if unresolved else 0\n\n"
        "if __name__ == '__main__':\n    raise SystemExit(main(sys.argv))\n"
    )
    assert set(python_verdicts(source)) == {1}
    # a second reviewer's: missing modules, invalid arguments, missing files are failures
    deps = (
        "import importlib.util, sys\ndef main():\n"
        "    missing = [m for m in ('pandas',) if importlib.util.find_spec(m) is None]\n"
        "    if missing:\n        print('pip install pandas')\n        return 1\n"
        "    run_report()\n    return 0\nsys.exit(main())\n"
    )
    assert python_verdicts(deps) == {}
    files = "import os, sys\nmissing = [p for p in sys.argv if not os.path.exists(p)]\n"
    assert python_verdicts(files + "sys.exit(1 if missing else 0)\n") == {}
