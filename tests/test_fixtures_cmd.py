"""`app-run test`: pipelines run on their samples/ and compared with samples/expected.json."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

from skill2app.runtime.run import sandbox


@pytest.fixture
def app(tmp_path: Path, runtime_env: Path) -> Path:
    return make_app(
        tmp_path / "app",
        {
            "greet": {"input": {"who": "string"}, "steps": [code("hello", "ok", "hi")]},
            "untested": [code("x")],
            "judged": {"steps": [{"name": "judge", "type": "llm", "prompt": "Judge."}]},
        },
        files={
            "pipelines/greet/samples/input.json": '{"who": "ann"}',
            "pipelines/judged/samples/input.json": "{}",
            "pipelines/judged/samples/answers.yaml": "answers:\n  judged/judge: [{ok: true}]\n",
        },
    )


def results(result) -> dict[str, dict]:
    return {r["pipeline"]: r for r in json.loads(result.stdout)}


def test_runs_each_pipeline_on_its_samples(app: Path) -> None:
    """Ran fine but nothing to compare with: "no expectation", never "passed"."""
    result = invoke("test", app, "--json")
    assert result.exit_code == 0, result.stderr
    got = results(result)
    assert {k: v["status"] for k, v in got.items()} == {
        "greet": "no_expectation",
        "judged": "no_expectation",
        "untested": "skipped",
    }


def test_update_says_what_it_recorded_and_the_summary_counts_each_kind(app: Path) -> None:
    first = invoke("test", app)
    assert first.exit_code == 0
    assert first.stdout == (
        "no expectation  greet     ran; no samples/expected.json (record it with --update)\n"
        "no expectation  judged    ran; no samples/expected.json (record it with --update)\n"
        "skipped         untested  no samples/input.json\n"
        "0 passed, 0 failed, 2 no expectation, 0 placeholders, 1 skipped\n"
    )
    updated = invoke("test", app, "--update")
    assert updated.exit_code == 0
    assert updated.stdout.splitlines()[-1] == "recorded 2 expectations, 1 skipped"
    assert updated.stdout.startswith(f"recorded  greet     {app}/pipelines/greet/samples/")
    assert invoke("test", app).stdout.splitlines()[-1] == (
        "2 passed, 0 failed, 0 no expectation, 0 placeholders, 1 skipped"
    )


def test_a_placeholder_sample_is_not_run_nor_counted_as_passed(app: Path) -> None:
    placeholders = app / "pipelines/greet/samples/placeholders.json"
    placeholders.write_text('{"inputs": {"who": "a real name: the skill shows none"}}')
    (app / "pipelines/greet/samples/input.json").write_text('{"who": 1}')  # would fail
    result = invoke("test", app, "greet", "judged")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines() == [
        "placeholder     greet   not run: placeholder sample input — who: a real name: the "
        "skill shows none",
        "no expectation  judged  ran; no samples/expected.json (record it with --update)",
        "0 passed, 0 failed, 1 no expectation, 1 placeholder",
    ]
    updated = invoke("test", app, "greet", "--update")
    assert updated.stdout.splitlines()[-1] == "recorded 0 expectations, 1 placeholder"
    assert not (app / "pipelines/greet/samples/expected.json").exists()
    placeholders.write_text('{"inputs": {}, "why": "x.sh installs mq on this machine"}')
    assert results(invoke("test", app, "greet", "--json"))["greet"]["detail"] == (
        "not run: x.sh installs mq on this machine"  # the plan's reason, as app-convert wrote it
    )
    placeholders.write_text("[not json")
    assert results(invoke("test", app, "greet", "--json"))["greet"] == {
        "pipeline": "greet",
        "status": "placeholder",
        "detail": "not run: placeholder sample input",
        "run_id": "",
    }


def test_quiet_by_default_verbose_shows_progress(app: Path) -> None:
    assert invoke("test", app, "greet").stderr == ""
    verbose = invoke("test", app, "greet", "--verbose")
    assert verbose.exit_code == 0 and "hello" in verbose.stderr


def test_update_then_compare_then_detect_a_change(app: Path) -> None:
    assert invoke("test", app, "greet", "--update").exit_code == 0
    expected = app / "pipelines/greet/samples/expected.json"
    assert json.loads(expected.read_text()) == {"step": "hello", "value": "hi"}
    ok = invoke("test", app, "greet")
    assert ok.exit_code == 0
    assert ok.stdout.endswith("1 passed, 0 failed, 0 no expectation, 0 placeholders\n")
    expected.write_text('{"step": "hello", "value": "bye"}')
    changed = invoke("test", app, "greet")
    assert changed.exit_code == 1
    assert 'output.value: expected "bye", got "hi" (accept it with --update)' in changed.stdout


def test_llm_step_without_recorded_answers_fails_not_pauses(app: Path) -> None:
    (app / "pipelines/judged/samples/answers.yaml").unlink()
    result = invoke("test", app, "judged", "--json")
    assert result.exit_code == 1
    assert "needs an LLM provider" in results(result)["judged"]["detail"]


def test_unknown_pipeline_is_a_usage_error(app: Path) -> None:
    result = invoke("test", app, "nope")
    assert result.exit_code == 2 and "no pipeline named 'nope'" in result.stderr


def test_a_failing_constructor_is_named_with_its_reason(tmp_path: Path, runtime_env: Path) -> None:
    """Not just "step exited with 1": which phase, and what the program said last."""
    check = (
        "import sys\nprint('warning: jq is missing', file=sys.stderr)\n"
        "sys.exit(\"the Python package 'pypdf' is not installed: pip install pypdf\")\n"
    )
    app = make_app(
        tmp_path / "app",
        {
            "greet": {"input": {"who": "string"}, "steps": [code("hello")]},
            "_constructor": [{"name": "check", "type": "code", "command": "python3 check.py"}],
        },
        files={
            "pipelines/greet/samples/input.json": '{"who": "ann"}',
            "pipelines/_constructor/check.py": check,
        },
    )
    detail = results(invoke("test", app, "--json"))["greet"]["detail"]
    assert detail.startswith("constructor failed: step exited with 1")
    assert detail.endswith("— the Python package 'pypdf' is not installed: pip install pypdf")


FIX_PY = """import json, os, sys
from pathlib import Path
data = json.load(sys.stdin)["input"]
source = Path(os.environ["APP_CALLER_CWD"]) / data["table"]
fixed = source.with_name(source.stem + "_fixed" + source.suffix)
if fixed.exists():
    print("refusing to overwrite " + fixed.name, file=sys.stderr)
    sys.exit(3)
fixed.write_text(source.read_text().upper())
(Path(os.environ["APP_CALLER_CWD"]) / "junk.txt").write_text("left here")
json.dump({"output": {"fixed": fixed.name}}, sys.stdout)
"""


def test_samples_run_in_a_copy_the_app_is_unchanged_and_a_rerun_passes(
    tmp_path: Path, runtime_env: Path
) -> None:
    """Rounds 27 and 28's judges: a sample that writes beside its input (excel-automation's
    table_fixed.xlsx, a folder of chunks) changed the APP's samples/, and a second
    `app-run test` then failed on the file the first left there; another left a junk file
    in the APP folder."""
    app = make_app(
        tmp_path / "app",
        {
            "fix": {
                "input": {"table": "string"},
                "steps": [{"name": "fix", "type": "code", "command": "python3 steps/fix.py"}],
            }
        },
        files={
            "pipelines/fix/steps/fix.py": FIX_PY,
            "pipelines/fix/samples/input.json": '{"table": "pipelines/fix/samples/t.csv"}',
            "pipelines/fix/samples/t.csv": "a,b\n",
        },
    )
    other = app / "pipelines" / "other"  # a sample naming another pipeline's file
    other.mkdir()
    (other / "pipeline.yaml").write_text(
        (app / "pipelines/fix/pipeline.yaml").read_text().replace("name: fix", "name: other")
    )
    (other / "steps").symlink_to(app / "pipelines/fix/steps")
    (other / "samples").mkdir()
    (other / "samples/input.json").write_text('{"table": "pipelines/fix/samples/t.csv"}')
    (app / "loop").symlink_to(app / "loop")  # a link loop in the APP: linked, not resolved
    before = {p.relative_to(app) for p in app.rglob("*")}
    assert invoke("test", app, "--update").exit_code == 0
    again = invoke("test", app)
    assert again.exit_code == 0, again.stdout + again.stderr
    assert again.stdout.splitlines()[-1].startswith("2 passed")
    after = {p.relative_to(app) for p in app.rglob("*")}
    records = {Path(f"pipelines/{n}/samples/expected.json") for n in ("fix", "other")}
    assert after == before | records  # only the records
    assert (app / "pipelines/fix/samples/t.csv").read_text() == "a,b\n"
    copies = Path(os.environ["APP_RUN_HOME"]) / "tests"  # each copy is removed after its run
    left = [p.relative_to(copies) for p in copies.rglob("*") if ".locks" not in p.parts]
    assert [len(p.parts) for p in left] == [1]  # the APP's folder, no copy in it


def test_a_sample_that_cannot_be_copied_fails_with_the_reason(
    tmp_path: Path, runtime_env: Path
) -> None:
    """A named pipe in samples/ (a hostile APP): the copy stops with the reason, one line,
    nothing half-copied is left, and the sample never runs in the APP folder."""
    app = make_app(
        tmp_path / "app",
        {"greet": {"input": {"who": "string"}, "steps": [code("hello", "ok", "hi")]}},
        files={"pipelines/greet/samples/input.json": '{"who": "ann"}'},
    )
    os.mkfifo(app / "pipelines/greet/samples/fifo")
    result = invoke("test", app)
    assert result.exit_code == 1
    assert "is a named pipe" in result.stdout and "Traceback" not in result.stdout + result.stderr
    copies = Path(os.environ["APP_RUN_HOME"]) / "tests"
    assert not [p for p in copies.rglob("*") if p.is_dir() and p.name == "greet"]


def test_update_never_writes_through_a_link_out_of_the_app(
    tmp_path: Path, runtime_env: Path
) -> None:
    """A reviewer's: a samples/ linked to a folder outside the APP had `--update` write
    expected.json there (over a file of that name, if any)."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "input.json").write_text('{"who": "ann"}')
    (outside / "expected.json").write_text("keep me")
    app = make_app(
        tmp_path / "app",
        {"greet": {"input": {"who": "string"}, "steps": [code("hello", "ok", "hi")]}},
    )
    (app / "pipelines/greet/samples").symlink_to(outside)
    result = invoke("test", app, "--update")
    assert result.exit_code == 1 and "outside the APP" in result.stdout
    assert (outside / "expected.json").read_text() == "keep me"


REGISTER = """import json, pathlib, sys
sys.stdin.read()
target = pathlib.Path.home() / ".lobsters.json"
target.write_text('{"nick": "/tmp/sample"}')
print(json.dumps({"output": {"wrote": str(target)}}))
"""


def _one_step_app(root: Path, name: str, script: str, **files: str) -> Path:
    """An APP of one pipeline ``name`` whose one step runs ``script``, with an empty sample."""
    return make_app(
        root,
        {name: [{"name": "run", "type": "code", "command": f"python3 steps/{name}.py"}]},
        files={
            f"pipelines/{name}/steps/{name}.py": script,
            f"pipelines/{name}/samples/input.json": "{}",
            **files,
        },
    )


@pytest.mark.usefixtures("need_sandbox")
def test_sandbox_keeps_a_sample_out_of_the_users_home(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 43: a judge's `app-run test` of an APP ran its register sample, which wrote a
    nickname into the real `~/.openclaw/lobsters.json`.  With --sandbox the sample runs with a
    private HOME and passes; the user's home is untouched."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    app = _one_step_app(tmp_path / "app", "register", REGISTER)
    monkeypatch.chdir(tmp_path)  # a relative APP folder: bwrap needs its folder absolute
    boxed = invoke("test", "app", "--sandbox", "--json")
    assert boxed.exit_code == 0, boxed.stderr
    assert results(boxed)["register"]["status"] == "no_expectation"
    assert not (home / ".lobsters.json").exists()
    # the reviewer's: its output names a file in the private home, the same path each run
    assert invoke("test", "app", "--sandbox", "--update").exit_code == 0
    again = invoke("test", "app", "--sandbox")
    assert again.exit_code == 0 and again.stdout.startswith("passed  register"), again.stdout
    invoke("test", app, "--json")  # without it, the sample writes the real home
    assert (home / ".lobsters.json").exists()


PROBE = """import json, os, pathlib, sys
sys.stdin.read()
shared = (pathlib.Path(os.environ["APP_ROOT"]) / "assets" / "note.txt").read_text()
print(json.dumps({"output": {"customer": os.environ.get("CUSTOMER_NO", "absent"),
                             "shared": shared}}))
"""


@pytest.mark.usefixtures("need_sandbox")
def test_sandbox_drops_configured_secrets_and_reads_linked_assets(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reviewer's: a name in app-run.yaml's `secrets:` reached the sandboxed program, and
    an APP folder linked to a place outside (`assets -> /srv/shared`) vanished in it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "note.txt").write_text("shared")
    monkeypatch.setattr(sandbox, "HIDDEN", ("/run",))  # /tmp, where `shared` is, as /srv
    app = _one_step_app(
        tmp_path / "app", "probe", PROBE, **{"app-run.yaml": "secrets: [CUSTOMER_NO]\n"}
    )
    (app / "assets").symlink_to(shared, target_is_directory=True)
    monkeypatch.setenv("CUSTOMER_NO", "custno12345678")
    assert invoke("test", app, "--sandbox", "--update").exit_code == 0
    recorded = json.loads((app / "pipelines/probe/samples/expected.json").read_text())
    assert recorded == {"customer": "absent", "shared": "shared"}


READ_PY = """import json, os, sys
path = json.load(sys.stdin)["input"]["path"]
try:
    text = open(os.path.join(os.environ.get("APP_CALLER_CWD", "."), path)).read()
except OSError as exc:
    text = type(exc).__name__
print(json.dumps({"output": {"read": text.strip()}}))
"""


@pytest.mark.usefixtures("need_sandbox")
def test_links_in_an_app_bring_no_home_into_a_sandboxed_sample(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An attack run: with --sandbox, a top-level link `cache -> /` re-exposed the whole host
    (the sample read ~/.ssh/id_rsa), and `samples -> ~/.ssh` was copied into the test copy;
    `app-run check` said ok."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("DECOY-KEY")
    monkeypatch.setenv("HOME", str(home))
    key = str(home / ".ssh" / "id_rsa")
    step = {"name": "run", "type": "code", "command": "python3 steps/readit.py"}
    app = make_app(
        tmp_path / "app",
        {"readit": {"input": {"path": "string"}, "steps": [step]}},
        files={
            "pipelines/readit/steps/readit.py": READ_PY,
            "pipelines/readit/samples/input.json": json.dumps({"path": key}),
        },
    )
    (app / "cache").symlink_to("/", target_is_directory=True)
    boxed = invoke("test", app, "--sandbox", "--update")
    assert boxed.exit_code == 0, boxed.stdout
    recorded = (app / "pipelines/readit/samples/expected.json").read_text()
    assert "DECOY-KEY" not in recorded
    samples = app / "pipelines/readit/samples"
    shutil.rmtree(samples)
    (home / ".ssh" / "input.json").write_text('{"path": "pipelines/readit/samples/id_rsa"}')
    samples.symlink_to(home / ".ssh", target_is_directory=True)
    boxed = invoke("test", app, "--sandbox")
    assert "pipelines/readit/samples leads to" in boxed.stdout and "DECOY-KEY" not in boxed.stdout
    checked = invoke("check", app)
    assert "samples leads to" in checked.stdout + checked.stderr
    # a reviewer's: no file of samples/ read through a link out (expected.json's text was
    # printed in the difference), and one such folder fails no other pipeline's test
    samples.unlink()
    samples.mkdir()
    (samples / "input.json").write_text(json.dumps({"path": key}))
    (samples / "expected.json").symlink_to(home / ".ssh" / "id_rsa")
    boxed = invoke("test", app, "--sandbox")
    assert "expected.json leads to" in boxed.stdout and "DECOY-KEY" not in boxed.stdout
    # a reviewer's: nor a target inside a hidden place (`/run/user`: agents' sockets)
    (app / "cache").unlink()
    (app / "agent").symlink_to("/run", target_is_directory=True)
    box = sandbox.for_sample(tmp_path / "h", [tmp_path / "w"], app)
    assert Path("/run") not in box.readable


OPEN_PY = """import json, os, pathlib, sys
data = json.load(sys.stdin)["input"]
folder = pathlib.Path(os.environ["APP_CALLER_CWD"], data["project"])
folder.mkdir(parents=True, exist_ok=True)
log = folder / "run.log"
log.write_text((log.read_text() if log.exists() else "") + "x")
print(json.dumps({"output": {"opened": data["project"]}}))
"""

RECORD_PY = """import json, os, pathlib, sys
data = json.load(sys.stdin)["input"]
log = pathlib.Path(os.environ["APP_CALLER_CWD"], data["project"], "run.log")
if not log.exists():
    sys.exit("no run is open in this project")
print(json.dumps({"output": {"entries": len(log.read_text())}}))
"""


def ordered_app(tmp_path: Path, after: dict[str, str]) -> Path:
    """open-run makes a run log in the sample project; record and report need one (round 46:
    rp-telemetry's samples failed alone with "no active telemetry run")."""
    steps = {
        "open-run": "open.py",
        "record": "record.py",
        "report": "record.py",
    }
    files: dict[str, str] = {"steps/open.py": OPEN_PY, "steps/record.py": RECORD_PY}
    for name in steps:
        files[f"pipelines/{name}/samples/input.json"] = '{"project": "samples/project"}'
    for name, text in after.items():
        files[f"pipelines/{name}/samples/after.json"] = text
    return make_app(
        tmp_path / "app",
        {
            name: {
                "input": {"project": "string"},
                "steps": [{"name": "go", "type": "code", "command": f"python3 ../../steps/{py}"}],
            }
            for name, py in steps.items()
        },
        files=files,
    )


def test_a_sample_runs_after_the_samples_its_after_json_names(
    tmp_path: Path, runtime_env: Path
) -> None:
    app = ordered_app(tmp_path, {"record": '["open-run"]', "report": '["record"]'})
    got = results(invoke("test", app, "--json"))
    assert {k: v["status"] for k, v in got.items()} == dict.fromkeys(
        ("open-run", "record", "report"), "no_expectation"
    )
    assert invoke("test", app, "--update").exit_code == 0
    expected = json.loads((app / "pipelines/report/samples/expected.json").read_text())
    assert expected == {"entries": 1}  # open-run's sample ran once before it, via record's
    assert not (app / "samples").exists()  # in the copy, as every sample
    alone = ordered_app(tmp_path / "alone", {})
    got = results(invoke("test", alone, "record", "--json"))
    assert got["record"]["status"] == "failed"
    assert "no run is open in this project" in got["record"]["detail"]


def test_what_a_sample_runs_after_decides_its_status_with_the_reason(
    tmp_path: Path, runtime_env: Path
) -> None:
    app = ordered_app(tmp_path, {"record": '["open-run"]', "report": '["record"]'})
    (app / "pipelines/open-run/samples/placeholders.json").write_text(
        '{"inputs": {"project": "a real project"}}'
    )
    got = results(invoke("test", app, "--json"))
    assert got["report"]["status"] == "placeholder"
    assert "it runs after open-run's sample" in got["report"]["detail"]
    (app / "pipelines/open-run/samples/placeholders.json").unlink()
    (app / "pipelines/open-run/samples/input.json").write_text('{"project": 7}')
    got = results(invoke("test", app, "report", "--json"))
    assert got["report"]["status"] == "failed"
    assert got["report"]["detail"].startswith("it runs after open-run's sample, which failed")
    (app / "pipelines/open-run/samples/input.json").unlink()
    got = results(invoke("test", app, "report", "--json"))
    assert got["report"]["detail"] == (
        "it runs after open-run's sample, and open-run has none (no samples/input.json)"
    )


@pytest.mark.parametrize(
    ("after", "problem"),
    [
        ({"record": '["record"]'}, "pipelines/record/samples/after.json: 'record' is itself"),
        ({"record": '["nope"]'}, "'nope' is no business pipeline of this APP"),
        ({"record": '["_constructor"]'}, "'_constructor' is no business pipeline"),
        ({"record": '{"a": 1}'}, "not a JSON list of pipeline names"),
        ({"record": "[oops"}, "not a readable JSON list"),
        ({"record": "LINK"}, "pipelines/record/samples/after.json: leads to "),
        (
            {"record": '["report"]', "report": '["record"]'},
            "the samples wait for each other (record -> report -> record)",
        ),
    ],
)
def test_a_broken_after_json_fails_the_sample_with_the_file_and_the_fix(
    tmp_path: Path, runtime_env: Path, after: dict[str, str], problem: str
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('["open-run"]')
    app = ordered_app(tmp_path, {k: v for k, v in after.items() if v != "LINK"})
    if after.get("record") == "LINK":  # a link out of the APP is not read
        (app / "pipelines/record/samples/after.json").symlink_to(outside)
    result = invoke("test", app, "record", "--json")
    assert result.exit_code == 1
    detail = results(result)["record"]["detail"]
    assert problem in detail, detail


def test_a_long_chain_of_samples_is_refused_without_recursing_through_it(
    tmp_path: Path, runtime_env: Path
) -> None:
    """A review of round 47: 1,200 pipelines each after the one before crashed `app-run
    test` with a RecursionError, and exactly 50 prerequisites were refused as "more"."""
    from skill2app.runtime.records.prerequisites import MAX_CHAIN

    def chain(root: Path, length: int) -> Path:
        files = {f"pipelines/p{i}/samples/input.json": "{}" for i in range(length)}
        files |= {f"pipelines/p{i}/samples/after.json": f'["p{i - 1}"]' for i in range(1, length)}
        return make_app(root, {f"p{i}": [code("x")] for i in range(length)}, files=files)

    app = chain(tmp_path / "long", 1200)
    detail = results(invoke("test", app, "p1199", "--json"))["p1199"]["detail"]
    assert f"more than {MAX_CHAIN} samples before it" in detail, detail
    exact = chain(tmp_path / "exact", MAX_CHAIN + 1)
    last = f"p{MAX_CHAIN}"
    assert results(invoke("test", exact, last, "--json"))[last]["status"] == "no_expectation"
    (exact / "pipelines/p1/samples/after.json").write_text(json.dumps(["p0"] * 5 + ["p2"] * 60))
    detail = results(invoke("test", exact, "p1", "--json"))["p1"]["detail"]
    assert "the samples wait for each other (p1 -> p2 -> p1)" in detail  # names: once each
    many = json.dumps([f"x{i}" for i in range(MAX_CHAIN + 2)])  # more than there are
    (exact / "pipelines/p1/samples/after.json").write_text(many)
    detail = results(invoke("test", exact, "p1", "--json"))["p1"]["detail"]
    assert "more names than the APP has pipelines" in detail


@pytest.mark.usefixtures("need_sandbox")
def test_under_sandbox_the_chain_shares_one_private_home(
    tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    app = ordered_app(tmp_path, {"record": '["open-run"]'})
    for name in ("open-run", "record"):  # the run log in the home folder, not the project
        (app / f"pipelines/{name}/samples/input.json").write_text('{"project": "~"}')
    for step in ("open.py", "record.py"):
        text = (app / "steps" / step).read_text()
        (app / "steps" / step).write_text(
            text.replace('os.environ["APP_CALLER_CWD"], data["project"]', 'os.environ["HOME"]')
        )
    monkeypatch.chdir(tmp_path)
    boxed = invoke("test", "app", "record", "--sandbox", "--json")
    assert results(boxed)["record"]["status"] == "no_expectation", boxed.stdout
    assert not (home / "run.log").exists()
