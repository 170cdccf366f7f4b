"""A skill's own README.md and SKILL.md as app-convert and app-run read them, its links as
`--out` copies them, and the session ids `resume` and `abandon` take (an attack run, round 44).

| attack                                                     | test                            |
|------------------------------------------------------------|---------------------------------|
| README.md a named pipe (hung) or a link to /dev/zero (8 GB) | test_a_readme_that_is_no_file_… |
| SKILL.md a named pipe or a link to /dev/zero (app-run)      | test_a_readme_that_is_no_file_… |
| a 300 MB README.md without a newline, a 300 MB SKILL.md     | test_big_files_are_read_no_…    |
| SKILL.md -> ~/notes/private.md: read into the APP's README  | test_a_skill_md_linking_out_…   |
| the same in an APP: `check` passed, Skill mode printed it   | test_a_skill_md_linking_out_…   |
| `--out` copied `abs.txt -> /…/skill/notes.txt` as it was    | test_out_never_links_back_…     |
| `--out DIR --force`, DIR with your README.md: "report this bug" | test_your_readme_in_the_out_… |
| `resume`/`abandon` of a 5,000-character id: exit 70         | test_an_id_no_session_can_…     |
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import code, invoke, make_app, write_tree

from skill2app.converter.convert import Options, convert
from skill2app.converter.errors import SkillError

CONVERT = [sys.executable, "-c", "from skill2app.converter.cli import main; main()"]
SKILL_MD = (
    "---\nname: words\ndescription: Count the words of a text file. Use when the user asks "
    "how many words a file has.\n---\n\n# Words\n\n```bash\npython3 scripts/count.py notes.txt\n"
    "```\n"
)
COUNT_PY = '"""Usage: count.py FILE"""\nimport json, sys\nprint(json.dumps({"words": 1}))\n'
DECOY = "PRIVATE-NOTES-DECOY-7c1e"
PRIVATE_MD = f"---\nname: private\ndescription: {DECOY} my pin is 4242.\n---\n# {DECOY}\n"

# Runs app-convert with at most 1 GB of address space (a read without a bound fails at once
# instead of taking the machine's memory) and writes the peak RSS (MB) of what it waited for.
MEASURED = """
import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
code = subprocess.run(sys.argv[2:]).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
open(sys.argv[1], "w").write(str(peak))
sys.exit(code)
"""


def skill(root: Path, **files: str) -> Path:
    return write_tree(root, {"SKILL.md": SKILL_MD, "scripts/count.py": COUNT_PY, **files})


def app_convert(tmp_path: Path, *args: str) -> tuple[int, str, float, int]:
    """(exit code, stdout+stderr, seconds, peak RSS in MB) of a real app-convert."""
    peak_file = tmp_path / ".peak"
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(peak_file), *CONVERT, *args],
        capture_output=True,
        timeout=60,  # a read that waits for a writer would never end
        check=False,
    )
    seconds = time.monotonic() - started
    peak = int(peak_file.read_text()) if peak_file.exists() else 0
    return done.returncode, (done.stdout + done.stderr).decode(errors="replace"), seconds, peak


def plan_only(tmp_path: Path, folder: Path) -> tuple[int, str, float, int]:
    """``app_convert`` of ``folder`` with the heuristic, the plan to stdout only."""
    return app_convert(
        tmp_path, str(folder), "--analyzer", "heuristic", "--plan-only", "--out", "-"
    )


def errors(shown: str) -> list[str]:
    return [line for line in shown.splitlines() if line.startswith("Error: ")]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_readme_that_is_no_file_is_refused_at_once(
    tmp_path: Path, kind: str, runtime_env: Path
) -> None:
    """README.md a named pipe hung app-convert (even --plan-only) in the check whether it
    generated it; a link to /dev/zero grew to 8 GB.  Both are refused now, exit 3, and so is
    such a SKILL.md in app-run (it was read through the link to /dev/zero's first MB)."""
    folder = skill(tmp_path / "skill")
    readme = folder / "README.md"
    not_a_file(readme, kind)
    what = "a named pipe" if kind == "fifo" else "a device"
    code_, shown, seconds, peak = plan_only(tmp_path, folder)
    assert code_ == 3, shown
    assert errors(shown) == [
        f"Error: README.md is {what}, not a file: not read ({readme}) — remove it, or make "
        "README.md a Markdown file"
    ]
    assert seconds < 30 and peak < 300, (seconds, peak)

    app = make_app(tmp_path / "app", {"hello": [code("greet")]})
    (app / "SKILL.md").unlink()
    not_a_file(app / "SKILL.md", kind)
    said = (  # /dev/zero is outside the APP too, which is said first
        "SKILL.md is a named pipe, not a file: not read"
        if kind == "fifo"
        else "SKILL.md is a link to /dev/zero, outside the APP: not read"
    )
    for args in (["check", app], ["ask", app, "what is the capital of Peru", "--skill-mode"]):
        result = invoke(*args)
        assert result.exit_code == 3, result.stderr
        assert f"Error: {said} ({app / 'SKILL.md'})" in result.stderr


def not_a_file(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def test_big_files_are_read_no_further_than_their_bound(tmp_path: Path) -> None:
    """A 2 GB README.md without a newline took 4.2 GB, a 3 GB SKILL.md 6.3 GB (read whole,
    then its size checked).  Sparse files of 300 MB here: the first 64 KB of the README is
    read, one byte past the limit of SKILL.md."""
    folder = skill(tmp_path / "skill")
    with (folder / "README.md").open("wb") as handle:
        handle.truncate(300 * 2**20)
    code_, shown, seconds, peak = plan_only(tmp_path, folder)
    assert code_ == 0, shown
    assert peak < 200, peak
    (folder / "README.md").unlink()
    with (folder / "SKILL.md").open("ab") as handle:
        handle.truncate(300 * 2**20)
    code_, shown, seconds, peak = plan_only(tmp_path, folder)
    assert code_ == 3, shown
    assert errors(shown) == [
        f"Error: SKILL.md is more than 1000000 bytes ({folder / 'SKILL.md'}) — move long "
        "material into references/ and keep SKILL.md short"
    ]
    assert peak < 200, peak


def test_a_skill_md_linking_out_is_refused_by_app_convert_and_app_run(
    tmp_path: Path, runtime_env: Path
) -> None:
    """`SKILL.md -> ~/notes/private.md`: app-convert warned "not read" yet planned from it and
    put it in the APP's README; `app-run check` passed and Skill mode printed it.  Now both
    refuse it (exit 3, one line); a SKILL.md linking inside its folder is read as before."""
    private = write_tree(tmp_path / "home" / "notes", {"private.md": PRIVATE_MD}) / "private.md"
    folder = skill(tmp_path / "skill")
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").symlink_to(private)
    with pytest.raises(SkillError) as caught:
        convert(Options(skill_dir=folder, out=tmp_path / "out", analyzer="heuristic"))
    assert caught.value.exit_code == 3
    assert caught.value.one_line() == (
        f"SKILL.md is a link to {private}, outside the skill: not read ({folder / 'SKILL.md'})"
        " — copy that file into the skill as SKILL.md if it is the skill's"
    )
    assert not (tmp_path / "out").exists()

    app = make_app(tmp_path / "app", {"hello": [code("greet")]})
    (app / "SKILL.md").unlink()
    (app / "SKILL.md").symlink_to(private)
    line = f"Error: SKILL.md is a link to {private}, outside the APP: not read ({app / 'SKILL.md'})"
    for args in (["check", app], ["ask", app, f"tell me about {DECOY}", "--skill-mode"]):
        result = invoke(*args, "--json") if args[0] == "ask" else invoke(*args)
        assert result.exit_code == 3, result.stderr
        assert line in result.stderr
        assert DECOY not in result.stdout + result.stderr

    write_tree(app, {"docs/skill.md": PRIVATE_MD.replace(DECOY, "inside")})
    (app / "SKILL.md").unlink()
    (app / "SKILL.md").symlink_to("docs/skill.md")
    assert invoke("check", app).exit_code == 0
    asked = invoke("ask", app, "what is the capital of Peru", "--skill-mode", "--json")
    assert asked.exit_code == 7, asked.stderr
    assert json.loads(asked.stdout)["frontmatter"]["name"] == "private"


def test_out_never_links_back_into_the_skill(tmp_path: Path) -> None:
    """`abs.txt -> /…/skill/notes.txt` was copied as it was: the APP linked to the skill (and
    out of itself once the skill moved), and `app-run check` said ok.  Now it is relative in
    the copy; a relative link that names its file is copied byte for byte."""
    folder = skill(tmp_path / "skill", **{"notes.txt": "one two\n", "docs/x.md": "# x\n"})
    (folder / "abs.txt").symlink_to(folder / "notes.txt")
    (folder / "docs" / "notes.txt").symlink_to("../notes.txt")
    (folder / "docs" / "abs-docs").symlink_to(folder / "docs")
    out = tmp_path / "app"
    report = convert(Options(skill_dir=folder, out=out, analyzer="heuristic"))
    assert report.ok, report.human_lines()
    assert os.readlink(out / "abs.txt") == "notes.txt"
    assert os.readlink(out / "docs" / "notes.txt") == "../notes.txt"
    assert os.readlink(out / "docs" / "abs-docs") == "."
    shutil.move(folder, tmp_path / "moved")
    assert (out / "abs.txt").read_text() == "one two\n"
    assert (out / "docs" / "abs-docs" / "x.md").read_text() == "# x\n"
    again = convert(  # a second --force run finds the links as they should be: not overwritten
        Options(skill_dir=tmp_path / "moved", out=out, analyzer="heuristic", force=True)
    )
    assert again.ok and not again.to_dict().get("overwritten"), again.human_lines()


def test_your_readme_in_the_out_folder_is_backed_up_then_replaced(tmp_path: Path) -> None:
    """`--out DIR --force` where DIR holds your README.md stopped with "README.md belongs to
    the skill — report this bug".  It is backed up, as any file --force overwrites, and said."""
    folder = skill(tmp_path / "skill")
    out = write_tree(tmp_path / "mine", {"README.md": "my own notes\n", "keep.txt": "kept\n"})
    report = convert(Options(skill_dir=folder, out=out, analyzer="heuristic", force=True))
    assert report.ok, report.human_lines()
    data = report.to_dict()
    backup = data["backup"]["folder"]
    assert (out / backup / "README.md").read_text() == "my own notes\n"
    assert "Generated by app-convert" in (out / "README.md").read_text()
    assert (out / "keep.txt").read_text() == "kept\n"
    assert (
        "README.md in the output folder was not written by app-convert: replaced by the "
        f"generated one (yours is in {backup}README.md)"
    ) in data["warnings"]


@pytest.mark.parametrize("session", ["x" * 5000, "a\tb", "a\x00b", "../x", ".hidden"])
def test_an_id_no_session_can_have_is_no_session(tmp_path: Path, session: str) -> None:
    """`resume` and `abandon` of a 5,000-character id failed with exit 70 (the file name was
    too long); an id app-convert cannot have made is "no conversion session", exit 2."""
    if "\x00" in session:  # not on a command line: the function the commands call
        from skill2app.converter.analyzers.sessions import path_of
        from skill2app.converter.errors import UsageError

        with pytest.raises(UsageError, match="no conversion session"):
            path_of(tmp_path, session)
        return
    shown = repr(session if len(session) <= 64 else session[:64] + "…")
    for args in (["resume", session, "--answer", "-"], ["abandon", session]):
        done = subprocess.run([*CONVERT, *args], capture_output=True, text=True, input="{}")
        assert done.returncode == 2, done.stderr
        assert done.stderr == (
            f"Error: no conversion session {shown} — see app-convert sessions\n"
        ), done.stderr
