"""Stand-ins: a program this machine lacks is replaced, in the smoke run, by one that records.

Round 9's judge found every download of a host's yt-dlp APP failing: its shared helper put
`--newline -P <dir>` after `-- URL`, which yt-dlp reads as more URLs, and ran yt-dlp in the
pipeline's folder, so the media landed inside the APP.  yt-dlp was not installed where
app-convert ran, so the smoke run skipped the step and nobody saw the command line.  Now the
step runs against a stand-in that records its command line; the line is in the report and shown
to the analyst at the review, with what is wrong in it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import write_tree

from skill2app.converter.convert import Options, convert, resume
from skill2app.converter.verify.failures import missing_program
from skill2app.converter.verify.standins import Call, StandIns, findings, shown_options
from skill2app.runtime.app.secrets import Scrubber

pytestmark = pytest.mark.usefixtures("runtime_env")

TOOL = "fakeget-xyz"  # installed nowhere
SKILL_MD = f"""\
---
name: grab
description: Download videos with {TOOL}. Use when the user wants to download a video.
---
# Grab

## Download a video

```bash
{TOOL} -f best -P downloads https://videos.example.org/watch/abc
```

## Download a video with the helper

```bash
python3 scripts/dl.py https://videos.example.org/watch/abc --format best
```
"""
HELPER = f"""\
import argparse, json, subprocess
p = argparse.ArgumentParser()
p.add_argument("url")
p.add_argument("--format", default="best")
a = p.parse_args()
r = subprocess.run(["{TOOL}", "-f", a.format, "--", a.url, "-P", "out"])
print(json.dumps({{"ok": r.returncode == 0}}))
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "grab", {"SKILL.md": SKILL_MD, "scripts/dl.py": HELPER})


def written_step(source: str) -> dict[str, Any]:
    return {
        "plan_version": 2,
        "app": {"name": "grab", "description": "Download videos."},
        "analyzer": "host",
        "pipelines": [
            {
                "name": "download-video",
                "description": "Download a video from its address into a folder",
                "source": "SKILL.md:8",
                "triggers": ["download a video", "save this video offline",
                             "grab the clip at this link", "get me that video as a file",
                             "download the video at this URL"],
                "input": [{"name": "url", "type": "string", "required": True,
                           "description": "the video's address"}],
                "steps": [{"name": "download", "type": "code",
                           "write": {"language": "python", "source": source},
                           "output": {"code": "integer"}}],
                "sample": {"input": {"url": "https://videos.example.org/watch/abc"}},
            }
        ],
        "constructor": {"needed": True, "checks": [
            {"kind": "binary", "name": TOOL, "required": True, "where": ["SKILL.md:10"]}]},
        "destructor": {"needed": False, "actions": []},
        "skill_mode": [],
    }  # fmt: skip


AFTER_DASHES = (
    "import json, subprocess, sys\n"
    'url = json.load(sys.stdin)["input"]["url"]\n'
    f'code = subprocess.run(["{TOOL}", "-f", "best", "--", url, "-P", "downloads"]).returncode\n'
    'print(json.dumps({"output": {"code": code}}))\n'
)
IN_CALLER = (
    "import json, os, subprocess, sys\n"
    'url = json.load(sys.stdin)["input"]["url"]\n'
    f'argv = ["{TOOL}", "-f", "best", "-P", "downloads", "--", url]\n'
    'code = subprocess.run(argv, cwd=os.environ["APP_CALLER_CWD"]).returncode\n'
    'print(json.dumps({"output": {"code": code}}))\n'
)


def test_a_missing_program_of_a_skill_is_stood_in_and_its_command_line_reported(
    skill: Path, tmp_path: Path
) -> None:
    report = convert(Options(skill, out=tmp_path / "app", analyzer="heuristic", smoke=True))
    assert report.verification is not None
    steps = [s for s in report.verification.smoke if s.calls]
    assert steps, report.verification.smoke
    traced = steps[0]
    assert traced.status == "traced"
    assert f"a stand-in for {TOOL}" in traced.detail
    call = traced.calls[0]
    assert call.argv == ("-f", "best", "--", "https://videos.example.org/watch/abc", "-P", "out")
    lines = "\n".join(report.human_lines())
    assert f"ran: {TOOL} -f best -- https://videos.example.org/watch/abc -P out" in lines
    assert "passes -P after `--`" in lines
    assert report.ok  # a finding, not an error: only the analyst can judge it


def test_the_host_sees_the_command_line_and_what_is_wrong_with_it_at_the_review(
    skill: Path, tmp_path: Path
) -> None:
    report = convert(Options(skill, out=tmp_path / "app", analyzer="host"))
    assert report.pause is not None
    review = resume(report.pause["session"], json.dumps(written_step(AFTER_DASHES))).pause
    assert review is not None and review["step"] == "review"
    prompt = review["prompt"]
    line = f"`{TOOL} -f best -- https://videos.example.org/watch/abc -P downloads`"
    assert f"- download-video/download: {line} (in pipelines/download-video)" in prompt
    assert "passes -P after `--`" in prompt
    assert "in the pipeline's own folder (pipelines/download-video)" in prompt

    fixed = resume(review["session"], json.dumps(written_step(IN_CALLER)))
    assert fixed.pause is None and fixed.ok
    assert fixed.verification is not None and fixed.verification.notices == []
    (call,) = fixed.verification.calls
    assert call[1].argv[-2:] == ("--", "https://videos.example.org/watch/abc")
    assert call[1].cwd == "."


def test_a_step_that_breaks_before_the_program_runs_still_fails(
    skill: Path, tmp_path: Path
) -> None:
    broken = AFTER_DASHES.replace('["input"]["url"]', '["input"]["address"]')
    report = convert(Options(skill, out=tmp_path / "app", analyzer="host"))
    assert report.pause is not None
    again = resume(report.pause["session"], json.dumps(written_step(broken))).pause
    assert again is not None and again["step"] == "analyze" and again["attempt"] == 2
    assert any("smoke download-video/download" in e and "address" in e for e in again["errors"])


def test_a_program_a_step_finds_missing_gets_a_stand_in_and_the_pipeline_runs_again(
    skill: Path, tmp_path: Path
) -> None:
    plan = written_step(IN_CALLER.replace(TOOL, "othertool-xyz"))
    plan["constructor"] = {"needed": False, "checks": []}  # the plan forgot to check for it
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    report = convert(Options(skill, out=tmp_path / "app", plan=plan_file, smoke=True))
    assert report.verification is not None
    (step,) = report.verification.smoke
    assert step.status == "traced", step
    assert [c.program for c in step.calls] == ["othertool-xyz"]


def test_what_the_documents_show_is_no_finding() -> None:
    docs = ["npm run build -- --watch", "fakeget -f best -P out URL", "# fakeget --quiet"]
    assert shown_options(docs, "npm") == (set(), True)
    assert shown_options(docs, "fakeget") == ({"-f", "-P"}, False)
    watch = Call("npm", ("run", "build", "--", "--watch"))
    assert findings([("p/s", watch)], docs) == []
    invented = Call("fakeget", ("-f", "best", "--no-progress", "URL"))
    assert findings([("p/s", invented)], docs) == [
        "p/s ran `fakeget -f best --no-progress URL`: the skill's documents never show "
        "--no-progress for fakeget; check them against its help"
    ]
    negative = Call("fakeget", ("-f", "best", "--", "-5"))
    assert findings([("p/s", negative)], docs) == []


def test_a_flag_table_shows_options_and_absolute_paths_run_anywhere() -> None:
    """A newcomer's trial (querying-markdown): `-o` in the cheatsheet's table of flags was
    "never shown", and a step giving mq only absolute paths was told that it ran in the
    pipeline's own folder."""
    docs = ["mq '.h1' file.md", "-o FILE", "-U, --in-place"]
    assert shown_options(docs, "mq") == ({"-o", "-U", "--in-place"}, False)
    absolute = Call("mq", ("-o", "/tmp/x/out.md", ".h1", "/tmp/x/notes.md"), cwd="pipelines/q")
    assert findings([("q/s", absolute)], docs) == []
    relative = Call("mq", (".h1", "notes.md"), cwd="pipelines/q")
    assert "in the pipeline's own folder" in findings([("q/s", relative)], docs)[0]


@pytest.mark.parametrize(
    ("detail", "program"),
    [
        ("step exited with 127: sh: 1: yt-dlp: not found", "yt-dlp"),
        ("FileNotFoundError: [Errno 2] No such file or directory: 'vercel'", "vercel"),
        ("Error: spawn gh ENOENT", "gh"),
        ("check_environment: the program 'uvx' is not on PATH: install it", "uvx"),
        ("No such file or directory: 'notes.txt'", ""),  # a file, not a program
        ("ModuleNotFoundError: No module named 'pypdf'", ""),
    ],
)
def test_the_program_a_failure_says_is_missing(detail: str, program: str) -> None:
    assert missing_program(detail) == program


def test_stand_in_names_and_secrets_are_kept_safe(tmp_path: Path) -> None:
    (tmp_path / "stand-ins").mkdir()
    standins = StandIns(tmp_path / "stand-ins", tmp_path / "work" / "calls.jsonl")
    assert not standins.add("../evil") and not standins.add("a b") and not standins.add("sh")
    assert standins.add("tool-x") and not standins.add("tool-x")
    assert [p.name for p in (tmp_path / "stand-ins").iterdir() if not p.name.startswith(".")] == [
        "tool-x"
    ]
    mark = standins.mark()
    record = {"program": "tool-x", "argv": ["--token", "s3cr3t-value-123", "--api-key=abcdefgh1"],
              "cwd": str(tmp_path), "stdin": ""}  # fmt: skip
    with standins.log.open("a") as fh:
        fh.write(json.dumps(record) + "\n")
    (call,) = standins.calls_since(mark, tmp_path, Scrubber())
    assert call.argv == ("--token", "***", "--api-key=***")


def test_secrets_are_blanked_however_a_command_line_spells_them() -> None:
    from skill2app.converter.verify.standins import _mask_after_secret_flags

    argv = [
        "--token", "--verbose", "-H", "Authorization: token X12345", "-H", "X-Api-Key: k1",
        "-u", "bob:pw", "api_key=zzz", "https://h/x?access_token=s3cret&page=2", "name=ok",
    ]  # fmt: skip
    assert _mask_after_secret_flags(argv) == [
        "--token", "--verbose", "-H", "Authorization: ***", "-H", "X-Api-Key: ***", "-u",
        "bob:***", "api_key=***", "https://h/x?access_token=***&page=2", "name=ok",
    ]  # fmt: skip


def _writer(source: str) -> dict[str, Any]:
    plan = written_step(source)
    pipeline = plan["pipelines"][0]
    pipeline["input"] = [{"name": "project", "type": "string", "required": True,
                          "description": "the project folder"}]  # fmt: skip
    pipeline["sample"] = {"input": {"project": "samples/proj"}, "files": {"proj/a.txt": "a\n"}}
    plan["constructor"] = {"needed": False, "checks": []}
    return plan


def _smoke_verification(skill: Path, tmp_path: Path, source: str) -> Any:
    """The verification of a one-step plan running ``source`` (``_writer``), smoke-tested."""
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(_writer(source)))
    report = convert(Options(skill, out=tmp_path / "app", plan=plan_file, smoke=True))
    assert report.verification is not None and report.ok
    return report.verification


@pytest.mark.parametrize(
    ("target", "noticed"),
    [
        ("'report.txt'", True),  # the step's own folder: pipelines/download-video/
        ("os.path.join(os.environ['APP_CALLER_CWD'], args['project'], 'report.txt')", False),
    ],
)
def test_a_file_written_inside_the_pipelines_folder_is_a_finding(
    skill: Path, tmp_path: Path, target: str, noticed: bool
) -> None:
    source = (
        "import json, os, sys\n"
        'args = json.load(sys.stdin)["input"]\n'
        f"open({target}, 'w').write('done')\n"
        'print(json.dumps({"output": {"code": 0}}))\n'
    )
    verification = _smoke_verification(skill, tmp_path, source)
    assert [s.status for s in verification.smoke] == ["passed"]
    if noticed:
        wrote = {"download-video": ["pipelines/download-video/report.txt"]}
        assert verification.seen.inside == wrote
        assert (
            "smoke download-video: its steps wrote pipelines/download-video/report.txt"
            in (verification.notices[0])
        )
    else:
        assert verification.seen.inside == {} and verification.notices == []


@pytest.mark.parametrize(
    ("target", "noticed"),
    [
        ("os.path.expanduser('~/.lobsters.json')", True),  # round 43: the user's settings
        ("os.path.expanduser('~/.cache/x.bin')", False),  # a cache is nobody's settings
    ],
)
@pytest.mark.usefixtures("need_sandbox")
def test_a_sample_writing_in_the_home_folder_is_a_finding(
    skill: Path, tmp_path: Path, target: str, noticed: bool
) -> None:
    """Round 43: a host APP's register sample wrote the judge's real ~/.openclaw when he ran
    `app-run test`; the smoke run, in the sandbox's home, said nothing."""
    source = (
        "import json, os, sys\n"
        "sys.stdin.read()\n"
        f"os.makedirs(os.path.dirname({target}), exist_ok=True)\n"
        f"open({target}, 'w').write('nick')\n"
        'print(json.dumps({"output": {"code": 0}}))\n'
    )
    verification = _smoke_verification(skill, tmp_path, source)
    if noticed:
        assert verification.seen.at_home == {"download-video": ["~/.lobsters.json"]}
        assert any("wrote ~/.lobsters.json in the home folder" in n for n in verification.notices)
    else:
        assert verification.seen.at_home == {}


def test_options_shown_on_continued_lines_are_shown(tmp_path: Path) -> None:
    from skill2app.converter.inventory.model import build_inventory
    from skill2app.converter.verify.verify import document_lines

    skill_md = (
        "---\nname: rpc\ndescription: Call RPCs.\n---\n# RPC\n\n```bash\n"
        "buf curl \\\n  --schema api.proto \\\n  -H 'X: 1' \\\n  --data '{}' https://h/x.Y/Z\n```\n"
    )
    skill = write_tree(tmp_path / "rpc", {"SKILL.md": skill_md})
    lines = document_lines(build_inventory(skill))
    assert shown_options(lines, "buf") == ({"--schema", "-H", "--data"}, False)
    call = Call("buf", ("curl", "--schema", "api.proto", "-H", "X: 1", "--data", "{}", "u"))
    assert findings([("p/s", call)], lines) == []


def _two_steps(first: str, second: str) -> dict[str, Any]:
    plan = written_step(first)
    pipeline = plan["pipelines"][0]
    pipeline["steps"].append({"name": "measure", "type": "code", "output": {"n": "integer"},
                              "write": {"language": "python", "source": second}})  # fmt: skip
    return plan


INDEPENDENT = (
    "import json, sys\npayload = json.load(sys.stdin)\n"
    "int('not a number')  # fails, whatever ran before\nprint(json.dumps({'output': {'n': 1}}))\n"
)
READING = (
    "import json, sys\npayload = json.load(sys.stdin)\n"
    "size = payload['steps']['download']['output']['size']\n"
    "print(json.dumps({'output': {'n': size}}))\n"
)


@pytest.mark.parametrize(("second", "status"), [(INDEPENDENT, "failed"), (READING, "traced")])
def test_a_later_step_fails_unless_it_reads_what_a_stand_in_printed(
    skill: Path, tmp_path: Path, second: str, status: str
) -> None:
    """Review of round 10's change: once a stand-in had run, every later failure passed as
    traced, a NameError included (now a ValueError: the plan check refuses a name never
    defined)."""
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(_two_steps(IN_CALLER, second)))
    report = convert(Options(skill, out=tmp_path / "app", plan=plan_file, smoke=True))
    assert report.verification is not None
    statuses = {s.step: s.status for s in report.verification.smoke}
    assert statuses == {"download": "traced", "measure": status}
    assert report.ok is (status == "traced")


def test_a_second_missing_program_gets_its_stand_in_too(skill: Path, tmp_path: Path) -> None:
    second = IN_CALLER.replace(TOOL, "secondtool-xyz").replace(
        '"output": {"code"', '"output": {"n"'
    )
    plan = _two_steps(IN_CALLER, second)
    plan["constructor"] = {"needed": False, "checks": []}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    report = convert(Options(skill, out=tmp_path / "app", plan=plan_file, smoke=True))
    assert report.verification is not None
    ran = {s.step: [c.program for c in s.calls] for s in report.verification.smoke}
    assert ran == {"download": [TOOL], "measure": ["secondtool-xyz"]}


PLANT = (
    "import json, os, sys\njson.load(sys.stdin)\n"
    'folder = os.environ["PATH"].split(":")[-1]\n'
    "try:\n    os.symlink(os.environ['VICTIM'], os.path.join(folder, 'evilprog'))\n"
    "except OSError as exc:\n    print(json.dumps({'output': {'code': 1}}))\n    sys.exit(0)\n"
    "sys.stderr.write('sh: 1: evilprog: not found\\n')\nsys.exit(127)\n"
)


def test_a_step_cannot_plant_a_link_where_stand_ins_are_written(
    skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review's attack: a link planted in the stand-ins' folder, then 'evilprog: not
    found', made app-convert write a stand-in through it over any file of the user's."""
    victim = tmp_path / "victim.txt"
    victim.write_text("ORIGINAL\n")
    monkeypatch.setenv("VICTIM", str(victim))
    plan = written_step(PLANT)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    convert(Options(skill, out=tmp_path / "app", plan=plan_file, smoke=True))
    assert victim.read_text() == "ORIGINAL\n"


@pytest.mark.parametrize("forged", ["fifo", "link", "junk"])
def test_a_forged_call_log_neither_stops_nor_fools_app_convert(
    skill: Path, tmp_path: Path, forged: str
) -> None:
    source = (
        "import json, os, shlex, subprocess, sys\njson.load(sys.stdin)\n"
        'JUNK = \'[1]\\n{"argv": 5}\\n{"program": "x", "argv": ["y"]}\\n\'\n'
        f"subprocess.run(['{TOOL}', '-f', 'best'])\n"
        'folder = os.environ["PATH"].split(":")[-1]\n'
        f"log = shlex.split(open(os.path.join(folder, '{TOOL}')).read().splitlines()[1])[5]\n"
        "os.remove(log)\n"
        f"MODE = {forged!r}\n"
        "if MODE == 'fifo':\n    os.mkfifo(log)\n"
        "elif MODE == 'link':\n    os.symlink('/dev/zero', log)\n"
        "else:\n    open(log, 'w').write(JUNK)\n"
        "print(json.dumps({'output': {'code': 0}}))\n"
    )
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(written_step(source)))
    report = convert(Options(skill, out=tmp_path / "app", plan=plan_file, smoke=True))
    assert report.verification is not None
    (step,) = report.verification.smoke
    assert [c.program for c in step.calls] in ([], [TOOL])  # nothing forged is taken


def test_a_recorded_command_line_cannot_drive_the_terminal() -> None:
    call = Call("tool", ("\x1b]0;PWNED\x07", "a\nSmoke test: 1 of 1 steps passed"))
    line = call.line()
    assert "\x1b" not in line and "\n" not in line and "\x07" not in line
    assert "\\x1b" in line and "\\n" in line
