"""Secrets never reach an output: every path a secret value can travel, one test each.

| path | test |
|---|---|
| a step's error (stderr tail): stderr, --json, record | test_a_failing_step_echoing_a_secret |
| a secret straddling the stderr tail's cut | test_a_secret_straddling_the_tail_cut |
| validate errors: attempts, retry lines, --json, record | test_validate_errors_echoing_a_secret |
| resume: needs_llm errors and prompt, session, error.message | test_resume_never_shows_the_secret |
| nested inputs (object, array, Bearer in a string): record | test_nested_secrets_are_redacted |
| wider names: passphrase, cookie, pin, DATABASE_URL, *_PAT | test_wider_secret_names |
| the `secrets:` config key | test_the_config_key_adds_names |
| run records and sessions are 0600 | test_records_and_sessions_are_private |
| a 30 MB input gives a small record | test_a_huge_input_gives_a_small_record |
| records rotate | test_records_rotate |
| Skill mode: a tool's stderr sent back to the model | test_agent_tool_results_are_scrubbed |
| a step's output: host prompt, session, run, expected.json | test_a_step_printing_a_secret_var |
| scrubbing an output: keys, numbers, 300 deep, untouched when clean | test_scrubbing_a_value |
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from helpers import code, invoke, make_app

from skill2app.runtime.app.secrets import Scrubber, is_secret_name, secret_values
from skill2app.runtime.records import record

pytestmark = pytest.mark.usefixtures("runtime_env")

SECRET = "sk-live-0123456789abcdef-SECRET"
ECHO = """\
import json, os, sys
payload = json.load(sys.stdin)
print("using key", payload["input"]["api_key"], file=sys.stderr)
sys.exit(2)
"""
VALIDATE = """\
import json, sys
data = json.load(sys.stdin)
print(json.dumps({"valid": False, "errors": ["bad answer for key " + data["input"]["api_key"]]}))
sys.exit(1)
"""
SCHEMA = {"type": "object"}


def everything(app_run_home: Path) -> str:
    """Every file app-run wrote: records and sessions."""
    return "\n".join(p.read_text(errors="replace") for p in app_run_home.rglob("*") if p.is_file())


def echo_app(tmp_path: Path, program: str = ECHO) -> Path:
    step = {"name": "use", "type": "code", "command": "python3 steps/echo.py"}
    return make_app(
        tmp_path / "app",
        {"hello": {"input": {"api_key": "string"}, "steps": [step]}},
        {"pipelines/hello/steps/echo.py": program},
    )


def llm_app(tmp_path: Path) -> Path:
    judge = {
        "name": "judge",
        "type": "llm",
        "prompt": "Judge {{input.api_key}}",
        "schema": "schemas/s.json",
        "validate": "steps/validate.py",
        "retry": 1,
    }
    return make_app(
        tmp_path / "app",
        {"hello": {"input": {"api_key": "string"}, "steps": [judge]}},
        {
            "pipelines/hello/schemas/s.json": json.dumps(SCHEMA),
            "pipelines/hello/steps/validate.py": VALIDATE,
            "answers.yaml": {"answers": {"hello/judge": [{"a": 1}, {"a": 2}]}},
        },
    )


def test_a_failing_step_echoing_a_secret(tmp_path: Path, app_run_home: Path) -> None:
    app = echo_app(tmp_path)
    for extra in ([], ["--json"]):
        result = invoke("run", app, "hello", "-i", f"api_key={SECRET}", *extra)
        assert result.exit_code == 1
        assert "using key ***" in result.stderr + result.stdout
        assert SECRET not in result.stderr + result.stdout
    assert SECRET not in everything(app_run_home)


def test_a_secret_straddling_the_tail_cut(tmp_path: Path, app_run_home: Path) -> None:
    """The tail is cut after scrubbing: no end piece of the secret is left at its start."""
    from skill2app.runtime.run.process import TAIL_CHARS

    program = ECHO.replace(
        'print("using key", payload["input"]["api_key"], file=sys.stderr)',
        f'sys.stderr.write(payload["input"]["api_key"] + "x" * {TAIL_CHARS - 20})',
    )
    app = echo_app(tmp_path, program)
    result = invoke("run", app, "hello", "-i", f"api_key={SECRET}", "--json")
    shown = result.stderr + result.stdout + everything(app_run_home)
    assert SECRET[-20:] not in shown and SECRET[-12:] not in shown


def test_validate_errors_echoing_a_secret(tmp_path: Path, app_run_home: Path) -> None:
    app = llm_app(tmp_path)
    answers = app / "answers.yaml"
    result = invoke(
        "run", app, "hello", "-i", f"api_key={SECRET}", "--provider", "scripted",
        "--answers", answers, "--json",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["error"]["attempts"][0]["errors"] == ["bad answer for key ***"]
    assert "↻ judge attempt 1 rejected:" in result.stderr
    assert SECRET not in result.stderr + result.stdout
    assert SECRET not in everything(app_run_home)


def test_resume_never_shows_the_secret(tmp_path: Path, app_run_home: Path) -> None:
    app = llm_app(tmp_path)
    paused = invoke("run", app, "hello", "-i", f"api_key={SECRET}", "--json")
    assert paused.exit_code == 6, paused.stderr
    session = json.loads(paused.stdout)["session"]
    again = invoke("resume", session, "--output", "-", "--json", input='{"a": 1}')
    assert again.exit_code == 6, again.stderr
    asked = json.loads(again.stdout)
    assert asked["errors"] == ["bad answer for key ***"]
    assert "bad answer for key ***" in asked["prompt"]
    kept = json.loads((app_run_home / "sessions" / f"{session}.json").read_text())
    assert kept["position"]["attempts"] == [["bad answer for key ***"]]
    assert (
        kept["inputs"]["api_key"] == SECRET
    )  # a session holds the inputs (0600): resume needs them
    last = invoke("resume", session, "--output", "-", "--json", input='{"a": 2}')
    assert last.exit_code == 1
    shown = again.stderr + last.stdout + last.stderr
    assert "bad answer for key ***" in json.loads(last.stdout)["error"]["message"]
    assert SECRET not in shown
    records = "\n".join(p.read_text() for p in (app_run_home / "runs").iterdir())
    assert SECRET not in records


def test_nested_secrets_are_redacted(tmp_path: Path, app_run_home: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {"hello": {"input": {"cfg": "object", "headers": "array"}, "steps": [code("a")]}},
    )
    bearer = "Bearer abcdefghijklmnop0123456789"
    cfg = json.dumps({"api_key": SECRET, "region": "eu"})
    headers = json.dumps(["Accept: json", f"Authorization: {bearer}"])
    result = invoke("run", app, "hello", "-i", f"cfg={cfg}", "-i", f"headers={headers}")
    assert result.exit_code == 0, result.stderr
    written = everything(app_run_home)
    assert SECRET not in written and "abcdefghijklmnop0123456789" not in written
    start = record.read_events(next((app_run_home / "runs").iterdir()))[0]
    assert start["inputs"]["cfg"] == {"api_key": "***", "region": "eu"}
    assert start["inputs"]["headers"] == ["Accept: json", "Authorization: Bearer ***"]


@pytest.mark.parametrize(
    "name",
    ["passphrase", "bearer", "cookie", "pin", "user_pin", "DATABASE_URL", "GITHUB_PAT", "dsn",
     "sentry_dsn", "sessionCookie", "apiKey", "oauth_token", "db_password", "private_key"],
)  # fmt: skip
def test_wider_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["author", "pipeline", "path", "spinner", "mapping", "text", "count", "PATH", "HOME"]
)
def test_ordinary_names_are_not_secret(name: str) -> None:
    assert not is_secret_name(name)


def test_wider_secret_variables_are_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://app:hunter2hunter2@db/x")
    monkeypatch.setenv("GITHUB_PAT", "pat-0123456789abcdef")
    scrubber = Scrubber.from_env()
    text = scrubber.text("db postgres://app:hunter2hunter2@db/x and pat-0123456789abcdef")
    assert text == "db *** and ***"
    assert scrubber.text("see https://bob:s3cr3tpass@example.org/x") == (
        "see https://bob:***@example.org/x"
    )


def test_the_config_key_adds_names(tmp_path: Path, app_run_home: Path) -> None:
    program = ECHO.replace('"api_key"', '"customer_no"')
    step = {"name": "use", "type": "code", "command": "python3 steps/echo.py"}
    app = make_app(
        tmp_path / "app",
        {"hello": {"input": {"customer_no": "string"}, "steps": [step]}},
        {"pipelines/hello/steps/echo.py": program, "app-run.yaml": {"secrets": ["customer_no"]}},
    )
    result = invoke("run", app, "hello", "-i", "customer_no=CUST-998877665544", "--json")
    assert result.exit_code == 1
    shown = result.stdout + result.stderr + everything(app_run_home)
    assert "CUST-998877665544" not in shown, shown
    assert "using key ***" in result.stdout
    assert secret_values({"customer_no": "CUST-998877665544"}, ["customer_no"])
    bad = make_app(tmp_path / "bad", {"hello": [code("a")]}, {"app-run.yaml": {"secrets": 3}})
    refused = invoke("run", bad, "hello")
    assert refused.exit_code == 2 and "secrets must be a list" in refused.stderr


def test_records_and_sessions_are_private(tmp_path: Path, app_run_home: Path) -> None:
    app = llm_app(tmp_path)
    paused = invoke("run", app, "hello", "-i", f"api_key={SECRET}", "--json")
    assert paused.exit_code == 6
    files = [p for p in app_run_home.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")]
    assert {p.parent.name for p in files} >= {"runs", "sessions"}
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((app_run_home / "runs").stat().st_mode) == 0o700


def test_a_huge_input_gives_a_small_record(tmp_path: Path, app_run_home: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": {"input": {"text": "string"}, "steps": [code("a")]}})
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"text": "x" * 30_000_000}))
    result = invoke("run", app, "hello", "--input-json", big)
    assert result.exit_code == 0, result.stderr[-500:]
    path = next((app_run_home / "runs").iterdir())
    assert path.stat().st_size < 50_000
    text = record.read_events(path)[0]["inputs"]["text"]
    assert text.endswith("… [29996000 more characters not recorded]")


def test_records_rotate(
    tmp_path: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = app_run_home / "runs"
    runs.mkdir()
    for n in range(12):
        old = runs / f"old-{n:02d}.jsonl"
        old.write_text("{}\n")
        os.utime(old, (1000 + n, 1000 + n))
    monkeypatch.setattr(record, "KEEP_RUNS", 5)
    app = make_app(tmp_path / "app", {"hello": [code("a")]})
    assert invoke("run", app, "hello").exit_code == 0
    kept = sorted(p.name for p in runs.iterdir())
    assert len(kept) == 5
    assert kept[-4:] == ["old-08.jsonl", "old-09.jsonl", "old-10.jsonl", "old-11.jsonl"]


def test_agent_tool_results_are_scrubbed(
    tmp_path: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.host.agent import run_agent

    monkeypatch.setenv("SERVICE_TOKEN", SECRET)
    app = make_app(
        tmp_path / "app",
        {"hello": [code("a")]},
        {"tools/leak.py": "import os, sys\nprint(os.environ['SERVICE_TOKEN'], file=sys.stderr)\n"},
    )
    sent: list[object] = []

    class Model:
        name = "fake"
        replies = [
            {"content": [{"type": "tool_use", "id": "t1", "name": "tools_leak", "input": {}}]},
            {"content": [{"type": "text", "text": "done"}]},
        ]

        def converse(self, **kw: object) -> dict:
            sent.append(json.dumps(kw["messages"]))
            return self.replies[len(sent) - 1]

    emitted: list[dict] = []
    recorder = record.Recorder(None, emitted.append)
    run_agent(load_app(app), "go", provider=Model(), model="m", max_tokens=10, emit=recorder)  # type: ignore[arg-type]
    assert "***" in sent[-1]
    assert SECRET not in "".join(map(str, sent)) + json.dumps(emitted)


ENV_SECRET = "envtok-CUSTOM-SECRET-777"
DUMP = """\
import json, os, sys
token = os.environ["SERVICE_TOKEN"]
escaped = "".join("\\\\u%04x" % ord(c) for c in token)  # JSON escapes: not clear on stdout
sys.stdout.write('{"output": {"plain": "%s", "escaped": "%s", "text": "hi"}}' % (token, escaped))
"""


def test_a_step_printing_a_secret_var(
    tmp_path: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A code step prints a secret environment variable's value in its output (a6): it is
    blanked wherever the output leaves app-run or is kept, in memory the next step has it."""
    monkeypatch.setenv("SERVICE_TOKEN", ENV_SECRET)
    ask = {"name": "ask", "type": "llm", "prompt": "Summarise {{dump.output}}", "retry": 0}
    app = make_app(
        tmp_path / "app",
        {"leak": {"steps": [{"name": "dump", "type": "code", "command": "python3 steps/dump.py"},
                            ask], "output": "dump"}},
        {
            "pipelines/leak/steps/dump.py": DUMP,
            "pipelines/leak/samples/input.json": "{}",
            "pipelines/leak/samples/answers.yaml": {"answers": {"leak/ask": ["a summary"]}},
        },
    )  # fmt: skip
    answers = app / "pipelines/leak/samples/answers.yaml"
    shown = []
    paused = invoke("run", app, "leak")
    assert paused.exit_code == 6, paused.stderr
    asked = json.loads(paused.stdout)
    assert "Summarise {" in asked["prompt"] and '"plain": "***"' in asked["prompt"]
    assert '"escaped": "***"' in asked["prompt"]
    session = app_run_home / "sessions" / f"{asked['session']}.json"
    assert json.loads(session.read_text())["position"]["outputs"]["dump"]["plain"] == "***"
    resumed = invoke("resume", asked["session"], "--answer", "-", "--json", input="done")
    assert resumed.exit_code == 0, resumed.stderr
    assert json.loads(resumed.stdout)["output"] == {"plain": "***", "escaped": "***", "text": "hi"}
    shown += [paused.stdout, paused.stderr, resumed.stdout, resumed.stderr]
    for extra in ([], ["--json"], ["--field", "plain"]):
        done = invoke("run", app, "leak", "--provider", "scripted", "--answers", answers, *extra)
        assert done.exit_code == 0, done.stderr
        assert "***" in done.stdout
        shown += [done.stdout, done.stderr]
    updated = invoke("test", app, "--update")
    assert updated.exit_code == 0, updated.stdout + updated.stderr
    expected = app / "pipelines/leak/samples/expected.json"
    assert json.loads(expected.read_text())["plain"] == "***"
    again = invoke("test", app)
    assert again.exit_code == 0, again.stdout + again.stderr  # *** equals *** next time too
    shown += [expected.read_text(), everything(app_run_home)]
    assert ENV_SECRET not in "\n".join(shown)


def test_scrubbing_a_value() -> None:
    scrubber = Scrubber({ENV_SECRET, "1234567890123"})
    deep: list = []
    inner = deep
    for _ in range(300):  # the walk once stopped at 64 levels, leaving the rest as it was
        inner.append([])
        inner = inner[0]
    inner.append(f"x {ENV_SECRET}")
    value = {ENV_SECRET: 1, "n": 1234567890123, "ok": [1.5, True, None, "fine"], "deep": deep}
    scrubbed = scrubber.value(value)
    assert scrubbed["***"] == 1 and scrubbed["n"] == "***"
    assert scrubbed["ok"] == [1.5, True, None, "fine"]
    assert ENV_SECRET not in json.dumps(scrubbed) and "x ***" in json.dumps(scrubbed)
    assert value["n"] == 1234567890123  # a copy: the run's own value is not changed
    clean = {"a": ["b", 2]}
    assert scrubber.value(clean) is clean
    # a reviewer's: an output is the step's own; only the secret values are blanked in it, not
    # what merely looks like a credential ("basic understanding", "xoxo-see-you")
    said = {"note": "a basic understanding of SQL; xoxo-see-you-soon-friend", "k": ENV_SECRET}
    assert scrubber.value(said) == {"note": said["note"], "k": "***"}
    assert Scrubber(set()).value(said) is said
    both = scrubber.value({ENV_SECRET: 1, "***": 2})  # two keys blanked alike: both kept
    assert sorted(both.values()) == [1, 2]


def test_a_secret_is_blanked_as_a_prompt_or_a_program_writes_it() -> None:
    """An attack run: a secret holding a quote or a backslash reached the model's prompt
    escaped as JSON (`\\"`), and one read with its newline stripped was not blanked; a key
    file of 20,000 BEGIN lines took the key pattern a minute."""
    import time

    quoted, spaced = 'sekret-Quote"Back\\slash-0042', "tok-abcdefgh12345\n"
    scrubber = Scrubber({quoted, spaced})
    assert scrubber.known(json.dumps({"v": quoted})) == '{"v": "***"}'
    assert scrubber.known("x tok-abcdefgh12345 y") == "x *** y"
    start = time.monotonic()
    Scrubber(set()).text("-----BEGIN PRIVATE KEY-----\n" * 20_000)
    assert time.monotonic() - start < 5
