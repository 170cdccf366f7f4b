"""Fault injection: every way a run can break, in one table.

Each fault runs `app-run run` on a small APP (constructor, business pipeline, a destructor that
counts its runs) and must give one clear error naming the step and the cause, the documented
exit code, no traceback, a complete run record (run_start … run_end, every started step ended)
and — where the business pipeline started — a destructor that ran exactly once.  No process a
step started outlives the run.  Model calls go through the real Anthropic provider and SDK with
the HTTP layer mocked (httpx2.MockTransport); signals go to a real `app-run` process.

| fault                                                      | case id                        |
|------------------------------------------------------------|--------------------------------|
| step exits non-zero                                        | step_exits_non_zero            |
| step killed by a signal                                    | step_killed_by_signal          |
| step prints non-JSON                                       | step_prints_non_json           |
| step prints nothing (empty output)                         | step_prints_nothing            |
| step prints JSON without `output`                          | step_json_without_output       |
| step prints a huge output                                  | step_huge_output               |
| step prints past APP_RUN_MAX_OUTPUT_MB (stopped)           | step_output_past_the_limit     |
| step floods stderr (only its tail is kept)                 | step_floods_stderr             |
| step writes only to stderr                                 | step_writes_only_stderr        |
| step hangs past its timeout (its children too)             | step_hangs_past_timeout        |
| command not found                                          | command_not_found              |
| command not executable                                     | command_not_executable         |
| command with a bad shebang                                 | command_bad_shebang            |
| command that is no program (no #! line)                    | command_without_shebang        |
| constructor fails                                          | constructor_fails              |
| destructor fails after a business failure (both reported)  | destructor_fails_after_failure |
| SIGINT to app-run during a step                            | sigint_during_step             |
| SIGTERM to app-run during a step                           | sigterm_during_step            |
| SIGINT to app-run during an llm call                       | sigint_during_llm_call         |
| SIGTERM to app-run during an llm call                      | sigterm_during_llm_call        |
| LLM provider 429 with retry-after                          | llm_429_retry_after            |
| LLM provider 500                                           | llm_500                        |
| LLM provider timeout                                       | llm_timeout                    |
| LLM provider connection refused                            | llm_connection_refused         |
| LLM refusal                                                | llm_refusal                    |
| LLM empty answer                                           | llm_empty_answer               |
| LLM non-JSON answer                                        | llm_non_json_answer            |
| LLM schema-invalid answer every time                       | llm_schema_invalid_every_time  |
| LLM answer cut off at max_tokens                           | llm_cut_off                    |
| validate script crashes                                    | validate_crashes               |
| validate script prints garbage                             | validate_prints_garbage        |
| validate script hangs                                      | validate_hangs                 |
| schema file missing at run time                            | schema_missing_at_run_time     |
| a step deletes its own pipeline directory                  | step_deletes_its_pipeline_dir  |
| the runs folder is not writable                            | runs_folder_not_writable       |
| disk full (write error) while writing the run record       | disk_full_run_record           |
| disk full (write error) inside a step                      | disk_full_in_step              |
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import Outcome, alive, code, group_members, invoke, make_app, wait_for
from test_provider_anthropic import Api, error, ok, text

import skill2app.runtime.providers.anthropic as anthropic_provider
import skill2app.runtime.run.process as process
from skill2app.runtime.records.record import read_events

pytestmark = pytest.mark.usefixtures("runtime_env")

APP_RUN = Path(sys.executable).parent / "app-run"

# --- the fixture APP ------------------------------------------------------------------------

CLEANUP_PY = '''\
"""The destructor's step: appends APP_BUSINESS_STATUS to $APP_TEST_MARKERS/destructor.runs."""
import json, os, sys

with open(os.path.join(os.environ["APP_TEST_MARKERS"], "destructor.runs"), "a") as fh:
    fh.write(os.environ["APP_BUSINESS_STATUS"] + "\\n")
if sys.argv[1:] == ["fail"]:
    sys.exit("cleanup failed on purpose")
print(json.dumps({"output": "cleaned"}))
'''
SCHEMA = {
    "type": "object",
    "required": ["ok"],
    "properties": {"ok": {"type": "boolean"}},
    "additionalProperties": False,
}
GOOD_ANSWER = '{"ok": true}'

# Programs the broken steps run, by file name under pipelines/hello/steps/.
PROGRAMS = {
    "killed.py": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
    "silent.py": "import sys\nsys.stdin.read()\n",
    "stderr_only.py": "import sys\nprint('input.csv: no such file', file=sys.stderr)\n",
    # 8 MB of a JSON string that never ends: far past a pipe's buffer, and not JSON.
    "huge.py": "import sys\nsys.stdout.write('{\"output\": \"' + 'x' * 8_000_000)\n",
    "endless.py": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    "chatty.py": (
        "import sys\nfor i in range(20000):\n    sys.stderr.write(f'log line {i}\\n' * 20)\n"
        "sys.exit('gave up after all that logging')\n"
    ),
    "tool.sh": "#!/bin/sh\necho '{\"output\": 1}'\n",
    "bad_shebang.py": "#!/nonexistent/python9\nprint('{\"output\": 1}')\n",
    "no_shebang": "echo '{\"output\": 1}'\n",
    "wipe.py": (
        "import json, os, shutil\nshutil.rmtree(os.environ['APP_PIPELINE_DIR'])\n"
        "print(json.dumps({'output': 'wiped'}))\n"
    ),
    "drop_schema.py": (
        "import json, os\nos.remove('schemas/answer.json')\nprint(json.dumps({'output': 1}))\n"
    ),
    "save.py": (
        "import sys\ntry:\n    with open('/dev/full', 'w') as fh:\n        fh.write('report')\n"
        "except OSError as exc:\n    sys.exit(f'cannot save the report: {exc.strerror}')\n"
    ),
    "validate_crash.py": "import json, sys\nprint(json.load(sys.stdin)['verdict'])\n",
    "validate_garbage.py": "print('looks good to me!')\n",
    "validate_hang.py": "import time\ntime.sleep(60)\n",
}
EXECUTABLE = ("bad_shebang.py", "no_shebang")  # tool.sh is left without its x bit on purpose


def fault_app(
    root: Path, steps: Sequence[dict], *, constructor: str = "ok", destructor: str = "ok"
) -> Path:
    cleanup = program(f"python3 steps/cleanup.py {destructor}", "cleanup")
    files: dict[str, Any] = {
        "pipelines/_destructor/steps/cleanup.py": CLEANUP_PY,
        "pipelines/hello/schemas/answer.json": json.dumps(SCHEMA),
        **{f"pipelines/hello/steps/{name}": body for name, body in PROGRAMS.items()},
    }
    app = make_app(
        root,
        {
            "_constructor": [code("prepare", constructor)],
            "hello": list(steps),
            "_destructor": [cleanup],
        },
        files,
    )
    for name in EXECUTABLE:
        (app / "pipelines/hello/steps" / name).chmod(0o755)
    return app


def program(command: str, name: str = "first", **extra: Any) -> dict:
    return {"name": name, "type": "code", "command": command, **extra}


def judge(**extra: Any) -> dict:
    """An llm step answering about the step before it, held to SCHEMA."""
    prompt = "Is {{collect.output.value}} fine? Answer as JSON."
    step = {"name": "judge", "type": "llm", "prompt": prompt, "schema": "schemas/answer.json"}
    return step | extra


def llm_steps(*before: dict, **judged: Any) -> list[dict]:
    return [*before, code("collect", "ok", "v1"), judge(**judged)]


# --- the table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    id: str
    steps: list[dict]  # the business pipeline `hello`
    exit_code: int
    errors: tuple[str, ...]  # fragments of stderr: each names the step and the cause
    destructor_runs: int = 1  # 0 where the business pipeline never started
    record: str = "complete"  # complete | cut (cut short by the fault) | none
    constructor: str = "ok"
    destructor: str = "ok"
    api: tuple[Any, ...] = ()  # the mocked Messages API's answers (the last one repeats)
    api_calls: int | None = None
    signal: int | None = None  # sent to a real app-run once `started` exists in the markers
    started: str = ""
    arrange: Callable[[pytest.MonkeyPatch, Path], None] | None = None
    stderr_limit: int | None = None  # stderr stays short whatever the step printed


def business(step: str, cause: str) -> str:
    return f"Error: business failed — step {step!r}: {cause}"


def writing_a_record(path: Path, home: Path, mode: str = "r", *_: Any, **__: Any) -> bool:
    return path.parent == home / "runs" and "r" not in mode


def runs_not_writable(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Creating files in APP_RUN_HOME/runs is denied (chmod does not stop root: deny here)."""
    opened = Path.open

    def deny(path: Path, *args: Any, **kw: Any) -> Any:
        if writing_a_record(path, home, *args, **kw):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return opened(path, *args, **kw)

    monkeypatch.setattr(Path, "open", deny)


def disk_fills_up(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The run record's 7th write on (step_start of hello/first) goes to /dev/full: ENOSPC."""
    opened, writes = Path.open, []

    def full(path: Path, *args: Any, **kw: Any) -> Any:
        if writing_a_record(path, home, *args, **kw):
            writes.append(path)
            if len(writes) >= 7:
                return opened(Path("/dev/full"), *args, **kw)
        return opened(path, *args, **kw)

    monkeypatch.setattr(Path, "open", full)


NOT_JSON = "the answer is not JSON (Expecting value at line 1)"
FAULTS = [
    Fault(
        "step_exits_non_zero",
        [code("first", "fail")],
        1,
        (business("first", "step exited with 3"), "  | first failed on purpose"),
    ),
    Fault(
        "step_killed_by_signal",
        [program("python3 steps/killed.py")],
        1,
        (business("first", "step killed by SIGKILL"),),
    ),
    Fault(
        "step_prints_non_json",
        [code("first", "nojson")],
        1,
        (business("first", "stdout is not JSON (Expecting value): 'all done!'"),),
    ),
    Fault(
        "step_prints_nothing",
        [program("python3 steps/silent.py")],
        1,
        (business("first", "printed nothing on stdout"),),
    ),
    Fault(
        "step_json_without_output",
        [code("first", "nooutput")],
        1,
        (business("first", 'stdout JSON has no "output" key'), 'wrap the result: {"output"'),
    ),
    Fault(
        "step_huge_output",
        [program("python3 steps/huge.py")],
        1,
        (business("first", "stdout is not JSON (Unterminated string starting at): '…xxx"),),
        stderr_limit=2000,
    ),
    Fault(
        "step_output_past_the_limit",
        [program("python3 steps/endless.py")],
        1,
        (business("first", "printed more than 2 MB on stdout: stopped"), "APP_RUN_MAX_OUTPUT_MB"),
        arrange=lambda monkeypatch, home: monkeypatch.setenv("APP_RUN_MAX_OUTPUT_MB", "2"),
        stderr_limit=3000,
    ),
    Fault(
        "step_floods_stderr",
        [program("python3 steps/chatty.py")],
        1,
        (business("first", "step exited with 1"), "gave up after all that logging"),
        stderr_limit=3000,
    ),
    Fault(
        "step_writes_only_stderr",
        [program("python3 steps/stderr_only.py")],
        1,
        (
            business("first", "printed nothing on stdout"),
            "(stderr: input.csv: no such file)",
        ),
    ),
    Fault(
        "step_hangs_past_timeout",
        [code("slow", "hang", timeout=1), code("never")],
        1,
        (business("slow", "timed out after 1s"),),
    ),
    Fault(
        "command_not_found",
        [program("no-such-program --flag")],
        1,
        (business("first", "program 'no-such-program' not found"),),
    ),
    Fault(
        "command_not_executable",
        [program("steps/tool.sh")],
        1,
        (business("first", "'steps/tool.sh' is not executable"), "chmod +x steps/tool.sh"),
    ),
    Fault(
        "command_bad_shebang",
        [program("steps/bad_shebang.py")],
        1,
        (
            business(
                "first",
                "'steps/bad_shebang.py' names an interpreter that does not exist: "
                "#!/nonexistent/python9",
            ),
        ),
    ),
    Fault(
        "command_without_shebang",
        [program("steps/no_shebang")],
        1,
        (
            business("first", "cannot run 'steps/no_shebang': Exec format error"),
            "start steps/no_shebang with a #! line",
        ),
    ),
    Fault(
        "constructor_fails",
        [code("first")],
        4,
        ("Error: constructor failed — step 'prepare': step exited with 3",),
        destructor_runs=0,
        constructor="fail",
    ),
    Fault(
        "destructor_fails_after_failure",
        [code("first", "fail")],
        1,
        (
            business("first", "step exited with 3"),
            "Error: destructor failed — step 'cleanup': step exited with 1",
            "  | cleanup failed on purpose",
        ),
        destructor="fail",
    ),
    *(
        Fault(
            f"sig{name.lower()}_during_step",
            [code("slow", "hang"), code("never")],
            128 + signum,
            (business("slow", f"interrupted by SIG{name}"),),
            signal=signum,
            started="hello.slow.json",
        )
        for name, signum in (("INT", signal.SIGINT), ("TERM", signal.SIGTERM))
    ),
    *(
        Fault(
            f"sig{name.lower()}_during_llm_call",
            llm_steps(),
            128 + signum,
            (business("judge", f"interrupted by SIG{name}"),),
            signal=signum,
            started="api.called",
        )
        for name, signum in (("INT", signal.SIGINT), ("TERM", signal.SIGTERM))
    ),
    Fault(
        "llm_429_retry_after",
        llm_steps(),
        1,
        (business("judge", "Anthropic API rate limit reached (429, after 2 retries)"),),
        api=(error(429, "rate_limit_error", "Too many requests", **{"retry-after": "0.01"}),),
        api_calls=3,
    ),
    Fault(
        "llm_500",
        llm_steps(),
        1,
        (business("judge", "Anthropic API failed (500, after 2 retries): Internal error"),),
        api=(error(500, "api_error", "Internal error"),),
        api_calls=3,
    ),
    Fault(
        "llm_timeout",
        llm_steps(),
        1,
        (business("judge", "the Anthropic API did not answer in time"),),
        api=(httpx2.ReadTimeout("timed out"),),
        api_calls=3,
    ),
    Fault(
        "llm_connection_refused",
        llm_steps(),
        1,
        (business("judge", "cannot reach the Anthropic API"),),
        api=(httpx2.ConnectError("[Errno 111] Connection refused"),),
        api_calls=3,
    ),
    Fault(
        "llm_refusal",
        llm_steps(),
        1,
        (business("judge", "the model declined to answer (stop_reason: refusal)"),),
        api=(ok([], stop_reason="refusal"),),
        api_calls=1,
    ),
    Fault(
        "llm_empty_answer",
        llm_steps(),
        1,
        (
            business(
                "judge",
                "no valid answer after 3 attempts — attempt 1: the answer is empty; "
                "attempt 2: the answer is empty; attempt 3: the answer is empty",
            ),
        ),
        api=(ok([]),),
        api_calls=3,
    ),
    Fault(
        "llm_non_json_answer",
        llm_steps(),
        1,
        (business("judge", f"no valid answer after 3 attempts — attempt 1: {NOT_JSON};"),),
        api=(ok([text("Sure! It looks fine.")]),),
        api_calls=3,
    ),
    Fault(
        "llm_schema_invalid_every_time",
        llm_steps(),
        1,
        (
            business(
                "judge",
                "no valid answer after 3 attempts — attempt 1: ok: 'yes' is not of type "
                "'boolean'; attempt 2: ok: 'yes' is not of type 'boolean'; attempt 3:",
            ),
        ),
        api=(ok([text('{"ok": "yes"}')]),),
        api_calls=3,
    ),
    Fault(
        "llm_cut_off",
        llm_steps(),
        1,
        (business("judge", "the answer to step judge was cut off at max_tokens=16000"),),
        api=(ok([text('{"ok": tr')], stop_reason="max_tokens"),),
        api_calls=1,
    ),
    Fault(
        "validate_crashes",
        llm_steps(validate="steps/validate_crash.py"),
        1,
        (business("judge", "validate script exited with 1"), "  | KeyError: 'verdict'"),
        api=(ok([text(GOOD_ANSWER)]),),
        api_calls=1,
    ),
    Fault(
        "validate_prints_garbage",
        llm_steps(validate="steps/validate_garbage.py"),
        1,
        (
            business(
                "judge", 'validate script did not print {"valid": true|false, "errors": [...]}'
            ),
        ),
        api=(ok([text(GOOD_ANSWER)]),),
        api_calls=1,
    ),
    Fault(
        "validate_hangs",
        llm_steps(validate="steps/validate_hang.py", timeout=1),
        1,
        (business("judge", "validate script: timed out after 1s"),),
        api=(ok([text(GOOD_ANSWER)]),),
        api_calls=1,
    ),
    Fault(
        "schema_missing_at_run_time",
        llm_steps(program("python3 steps/drop_schema.py", "drop")),
        1,
        (
            business(
                "judge",
                "cannot read schema file 'schemas/answer.json': No such file or directory",
            ),
        ),
        api=(ok([text(GOOD_ANSWER)]),),
        api_calls=0,
    ),
    Fault(
        "step_deletes_its_pipeline_dir",
        [program("python3 steps/wipe.py", "wipe"), code("after")],
        1,
        (business("after", "its working directory "), "/pipelines/hello is gone"),
    ),
    Fault(
        "runs_folder_not_writable",
        [code("first")],
        2,
        (
            "Error: cannot write the run record ",
            ".jsonl: Permission denied (writing run_start) — make APP_RUN_HOME a writable folder",
        ),
        destructor_runs=0,
        record="none",
        arrange=runs_not_writable,
    ),
    Fault(
        "disk_full_run_record",
        [code("first"), code("second")],
        0,
        (
            "Warning: the run record ",
            ".jsonl is incomplete: No space left on device (writing step_start of hello/first)",
        ),
        record="cut",
        arrange=disk_fills_up,
    ),
    Fault(
        "disk_full_in_step",
        [program("python3 steps/save.py", "save")],
        1,
        (business("save", "step exited with 1"), "  | cannot save the report: No space left"),
    ),
]


# --- running a fault ------------------------------------------------------------------------

# `app-run` with the Anthropic SDK's HTTP layer replaced by a model that never answers.
HANGING_API = """
import functools, os, pathlib, sys, time
import httpx2
import skill2app.runtime.providers.anthropic as provider
from skill2app.runtime.cli import main

def never_answers(request):
    pathlib.Path(os.environ["APP_TEST_MARKERS"], "api.called").touch()
    time.sleep(60)
    return httpx2.Response(500)

client = httpx2.Client(transport=httpx2.MockTransport(never_answers))
provider.AnthropicProvider = functools.partial(provider.AnthropicProvider, http_client=client)
main()
"""


def mock_api(monkeypatch: pytest.MonkeyPatch, api: Api) -> None:
    """The real provider and SDK (configured by the key, as a user would); only HTTP is fake."""
    client = httpx2.Client(transport=httpx2.MockTransport(api))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    provider = partial(anthropic_provider.AnthropicProvider, http_client=client)
    monkeypatch.setattr(anthropic_provider, "AnthropicProvider", provider)


def interrupt(fault: Fault, app: Path, markers: Path, monkeypatch: pytest.MonkeyPatch) -> Outcome:
    """Run a real app-run and send it ``fault.signal`` once the step (or the call) started."""
    argv: list[Any] = [APP_RUN]
    if fault.started == "api.called":
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        argv = [sys.executable, "-c", HANGING_API]
    proc = subprocess.Popen(
        [*argv, "run", app, "hello"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for(lambda: (markers / fault.started).exists(), f"{fault.started} to appear")
        assert fault.signal is not None
        proc.send_signal(fault.signal)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return Outcome(proc.returncode, stdout, stderr)


def run_fault(
    fault: Fault, app: Path, markers: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Outcome, Api | None]:
    if fault.signal is not None:
        return interrupt(fault, app, markers, monkeypatch), None
    api = Api(*fault.api) if fault.api else None
    if api is not None:
        mock_api(monkeypatch, api)
    if fault.arrange is not None:
        fault.arrange(monkeypatch, home)
    result = invoke("run", app, "hello")
    assert "internal error" not in result.stderr, result.stderr
    return result, api


def check_record(fault: Fault, home: Path) -> None:
    records = sorted((home / "runs").glob("*.jsonl"))
    if fault.record == "none":
        assert records == []
        return
    assert len(records) == 1
    events = read_events(records[0])
    assert events[0]["event"] == "run_start"
    ends = [e for e in events if e["event"] == "run_end"]
    if fault.record == "cut":
        assert ends == []
        return
    assert events[-1] == ends[0]
    assert (ends[0]["exit_code"], ends[0]["error"] is not None) == (fault.exit_code, True)
    started = [(e["pipeline"], e["step"]) for e in events if e["event"] == "step_start"]
    ended = [(e["pipeline"], e["step"]) for e in events if e["event"] == "step_end"]
    assert started == ended
    phases = [e["phase"] for e in events if e["event"] == "phase_start"]
    assert phases == [e["phase"] for e in events if e["event"] == "phase_end"]
    assert ("destructor" in phases) == (fault.destructor_runs == 1)


@pytest.mark.parametrize("fault", FAULTS, ids=[f.id for f in FAULTS])
def test_fault(
    fault: Fault,
    tmp_path: Path,
    runtime_env: Path,
    app_run_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if fault.id == "step_output_past_the_limit" and process._pidfd(os.getpid()) is None:
        pytest.skip("no pidfd here: the output limit does not apply (documented)")
    app = fault_app(
        tmp_path / "app", fault.steps, constructor=fault.constructor, destructor=fault.destructor
    )
    outcome, api = run_fault(fault, app, runtime_env, app_run_home, monkeypatch)

    assert outcome.exit_code == fault.exit_code, outcome.stderr
    for fragment in fault.errors:
        assert fragment in outcome.stderr
    assert not [line for line in outcome.stderr.splitlines() if line.startswith("Traceback")]
    if fault.stderr_limit is not None:
        assert len(outcome.stderr) < fault.stderr_limit
    check_record(fault, app_run_home)
    runs = runtime_env / "destructor.runs"  # one line per run: the APP_BUSINESS_STATUS it got
    told = "interrupted" if fault.signal else "succeeded" if fault.exit_code == 0 else "failed"
    assert (runs.read_text().split() if runs.exists() else []) == [told] * fault.destructor_runs
    if api is not None and fault.api_calls is not None:
        assert len(api.requests) == fault.api_calls
    for seen in runtime_env.glob("*.*.json"):  # every step that ran: its process group is gone
        pgid = json.loads(seen.read_text())["pgid"]
        wait_for(lambda pgid=pgid: not group_members(pgid), f"group {pgid} to be gone", 10)


def test_every_fault_is_in_the_docstring_table() -> None:
    rows = [line for line in (__doc__ or "").splitlines() if line.startswith("| ")][1:]
    assert [row.split("|")[2].strip() for row in rows] == [f.id for f in FAULTS]
    assert len(FAULTS) >= 30


# --- hostile sessions and runs (issue 17): each broke a promise before ------------------------

COUNTED = """\
import json, os, sys, time
path = os.path.join(os.environ["APP_TEST_MARKERS"], os.environ["APP_STEP"] + ".count")
with open(path, "a") as fh:
    fh.write("x")
if sys.argv[1:] == ["slow-once"] and os.path.getsize(path) == 1:
    time.sleep(60)
print(json.dumps({"output": os.path.getsize(path)}))
"""
TEXT_SCHEMA = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}


def session_app(root: Path, destructor: str = "") -> Path:
    judge = {"name": "judge", "type": "llm", "prompt": "Judge it", "schema": "schemas/j.json"}
    tail = program(f"python3 steps/counted.py {destructor}".strip(), "tail")
    return make_app(
        root,
        {
            "_constructor": [program("python3 steps/counted.py", "setup")],
            "flow": [judge, program("python3 steps/counted.py", "after")],
            "_destructor": [tail],
        },
        {
            "pipelines/flow/schemas/j.json": json.dumps(TEXT_SCHEMA),
            **{f"pipelines/{p}/steps/counted.py": COUNTED for p in ("_constructor", "flow")},
            "pipelines/_destructor/steps/counted.py": COUNTED,
        },
    )


def paused_session(app: Path) -> str:
    result = invoke("run", app, "flow", "--json")
    assert result.exit_code == 6, result.stderr
    return json.loads(result.stdout)["session"]


def counts(markers: Path) -> dict[str, int]:
    return {p.stem: p.stat().st_size for p in markers.glob("*.count")}


def test_a_resume_killed_in_its_destructor_does_not_replay(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    """SIGKILL while the destructor runs, then `resume` again: the steps after the llm step
    ran once, and only the destructor (which never finished) runs again."""
    app = session_app(tmp_path / "app", destructor="slow-once")
    session = paused_session(app)
    proc = subprocess.Popen(
        [APP_RUN, "resume", session, "--output", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None
    proc.stdin.write(b'{"text": "fine"}')
    proc.stdin.close()
    wait_for(lambda: counts(runtime_env).get("tail") == 1, "the destructor to start")
    proc.kill()
    proc.wait()
    for pid_dir in Path("/proc").iterdir():  # the orphaned destructor step: end it
        if pid_dir.name.isdigit() and "slow-once" in (pid_dir / "cmdline").read_bytes().decode(
            errors="replace"
        ):
            os.kill(int(pid_dir.name), signal.SIGKILL)
    again = invoke("resume", session, "--output", "-", "--json", input='{"text": "fine"}')
    assert again.exit_code == 0, again.stderr
    assert counts(runtime_env) == {"setup": 1, "after": 1, "tail": 2}
    assert json.loads(again.stdout)["status"] == "succeeded"
    third = invoke("resume", session, "--output", "-", input='{"text": "fine"}')
    assert third.exit_code == 2 and "already ended" in third.stderr


def test_a_work_folder_replaced_by_a_symlink_is_refused(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app = session_app(tmp_path / "app")
    session = paused_session(app)
    data = json.loads((app_run_home / "sessions" / f"{session}.json").read_text())
    work = Path(data["work_dir"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    work.rmdir()
    work.symlink_to(elsewhere)
    result = invoke("resume", session, "--output", "-", input='{"text": "fine"}')
    assert result.exit_code == 2, result.stderr
    assert f"the run's work folder {work} is a symlink now: refused" in result.stderr
    assert counts(runtime_env) == {"setup": 1} and list(elsewhere.iterdir()) == []


def test_a_session_edited_to_name_another_app_is_refused(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app, other = session_app(tmp_path / "app"), session_app(tmp_path / "other")
    session = paused_session(app)
    path = app_run_home / "sessions" / f"{session}.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "app": str(other)}))
    result = invoke("resume", session, "--output", "-", input='{"text": "fine"}')
    assert result.exit_code == 2, result.stderr
    assert f"names an APP it was not started with ({other})" in result.stderr
    ended = invoke("abandon", session)
    assert ended.exit_code == 3 and "nothing" not in counts(runtime_env)
    assert counts(runtime_env) == {"setup": 1}  # the other APP's steps never ran


def test_a_deeply_nested_answer_is_a_rejected_answer(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app = session_app(tmp_path / "app")
    session = paused_session(app)
    deep = "[" * 100_000 + "]" * 100_000
    result = invoke("resume", session, "--output", "-", "--json", input=deep)
    assert result.exit_code == 6, result.stderr  # asked again: retries are left
    assert json.loads(result.stdout)["errors"] == [
        "the answer is JSON nested too deeply to read (flatten it)"
    ]
    done = invoke("resume", session, "--output", "-", input='{"text": "fine"}')
    assert done.exit_code == 0, done.stderr


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("deep", "--input-json {path} is JSON nested too deeply to read"),
        ("/dev/zero", "/dev/zero holds more than 256,000,000 bytes"),
    ],
)
def test_bounded_input_json(
    source: str, expected: str, tmp_path: Path, runtime_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skill2app.runtime.run.inputs as inputs

    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 256_000_000 if source == "deep" else 1000)
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    app = make_app(tmp_path / "app", {"hello": [code("a")]})
    given = str(path) if source == "deep" else source
    result = invoke("run", app, "hello", "--input-json", given)
    assert result.exit_code == 2, result.stderr
    assert expected.replace("{path}", str(path)).replace("256,000,000", "1,000") in result.stderr


def test_a_step_printing_deeply_nested_json(tmp_path: Path, runtime_env: Path) -> None:
    deep = "import sys\nsys.stdout.write('{\"output\": ' + '[' * 200000 + ']' * 200000 + '}')\n"
    app = make_app(
        tmp_path / "app", {"hello": [program("python3 steps/deep.py")]},
        {"pipelines/hello/steps/deep.py": deep},
    )  # fmt: skip
    result = invoke("run", app, "hello")
    assert result.exit_code == 1, result.stderr
    assert business("first", "stdout JSON is nested too deeply to read") in result.stderr


def test_background_children_die_with_a_successful_step(tmp_path: Path, runtime_env: Path) -> None:
    starts = (
        "import json, os, subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "open(os.path.join(os.environ['APP_TEST_MARKERS'], 'child.pid'), 'w').write(str(p.pid))\n"
        "print(json.dumps({'output': 1}))\n"
    )
    app = make_app(
        tmp_path / "app", {"hello": [program("python3 steps/bg.py")]},
        {"pipelines/hello/steps/bg.py": starts},
    )  # fmt: skip
    assert invoke("run", app, "hello").exit_code == 0
    child = int((runtime_env / "child.pid").read_text())
    wait_for(lambda: not alive(child), "the step's background child to be gone", 5)


# A real app-run whose run folder is made, then SIGTERM arrives: right after the record's
# first line, before the lifecycle took over (the window 3 of 500 random timings hit).
SIGNAL_AFTER_RUN_START = """
import os, signal, sys
import skill2app.runtime.run.runner as runner
made = runner.new_work_dir
def new_work_dir(run_id):
    folder = made(run_id)
    os.kill(os.getpid(), signal.SIGTERM)
    return folder
runner.new_work_dir = new_work_dir
from skill2app.runtime.cli import main
main()
"""
# SIGINT while the command line is still being imported (the first 20-40 ms)
SIGINT_WHILE_LOADING = """
import builtins, os, signal
real = builtins.__import__
def hook(name, *args, **kw):
    if name == "skill2app.runtime.cli":
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, *args, **kw)
builtins.__import__ = hook
from skill2app.runtime.entry import main
main()
"""


def test_a_signal_right_after_the_record_starts(
    tmp_path: Path, runtime_env: Path, app_run_home: Path
) -> None:
    app = fault_app(tmp_path / "app", [code("first")])
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_AFTER_RUN_START, "run", str(app), "hello"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 143, done.stderr
    assert "Traceback" not in done.stderr
    events = read_events(next((app_run_home / "runs").iterdir()))
    assert (events[-1]["event"], events[-1]["status"]) == ("run_end", "interrupted")
    assert not [e for e in events if e["event"] == "step_start"]  # nothing ran
    assert list(Path(os.environ["TMPDIR"]).glob("app-run-*")) == []


def test_sigint_while_loading_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SIGINT_WHILE_LOADING, "list", str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (130, "Error: interrupted\n")


def test_escapes_never_reach_the_terminal(tmp_path: Path, runtime_env: Path) -> None:
    """A folder name or a step's stderr holding a newline or terminal escapes is shown
    escaped: no forged line, no colour, no retitled window."""
    shout = (
        "import sys\nsys.stderr.write('\\x1b]0;pwned\\x07\\x1b[2Jcleared\\nError: forged\\n')\n"
        "sys.exit(1)\n"
    )
    app = make_app(
        tmp_path / "app", {"hello": [program("python3 steps/shout.py")]},
        {"pipelines/hello/steps/shout.py": shout},
    )  # fmt: skip
    result = invoke("run", app, "hello")
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr and "\\x1b]0;pwned\\x07\\x1b[2Jcleared" in result.stderr
    odd = app / "pipelines" / "x\x1b[31m\nError: fake"
    odd.mkdir()
    checked = invoke("check", app)
    assert "\x1b" not in checked.stderr
    assert not [line for line in checked.stderr.splitlines() if line.startswith("Error: fake")]


def test_an_apps_own_words_are_listed_escaped(tmp_path: Path, runtime_env: Path) -> None:
    """`app-run list` printed a pipeline's description and triggers raw: an APP converted
    from a skill whose docstring held ``\x1b]0;pwned\x07`` retitled the window."""
    app = make_app(
        tmp_path / "app",
        {
            "hello": {
                "description": "Say \x1b]0;pwned\x07\x1b[2Jhello",
                "triggers": ["greet \x1b[31mme", "say hi"],
                "steps": [program("python3 steps/step.py")],
            }
        },
    )
    result = invoke("list", app)
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "Say \\x1b]0;pwned\\x07\\x1b[2Jhello" in result.stdout
    assert "  - greet \\x1b[31mme\n  - say hi\n" in result.stdout


def test_a_signal_before_an_agent_run_takes_over(
    tmp_path: Path, runtime_env: Path, app_run_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Skill mode's agent run: the same window, the same end (interrupted, its run_end, no
    work folder left)."""
    from skill2app.runtime.app.config import Config
    from skill2app.runtime.app.model import load_app
    from skill2app.runtime.host import skill_mode

    made = skill_mode.new_work_dir
    folders: list[Path] = []

    def new_work_dir(run_id: str) -> Path:
        folders.append(made(run_id))
        os.kill(os.getpid(), signal.SIGTERM)
        return folders[-1]

    monkeypatch.setattr(skill_mode, "new_work_dir", new_work_dir)
    app = load_app(fault_app(tmp_path / "app", [code("first")]))
    out = skill_mode.run_with_agent(
        app,
        "hi",
        config=Config(),
        provider=object(),
        home=app_run_home,  # type: ignore[arg-type]
    )
    assert (out["status"], out["exit_code"]) == ("interrupted", 143)
    assert not folders[0].exists()
    events = read_events(Path(out["record"]))
    assert (events[-1]["event"], events[-1]["status"]) == ("run_end", "interrupted")
    assert not (runtime_env / "destructor.runs").exists()


def test_a_control_character_in_a_plain_yaml_file_is_a_load_error() -> None:
    """The YAML reader refuses a control character when the loader is made: `safe_yaml` made
    it outside its `try`, so a plan, a sample, an answers file or an APP's SKILL.md
    frontmatter holding `\\x1b` was an internal error (exit 70) instead of a file:line."""
    from skill2app.runtime.app.document import safe_yaml
    from skill2app.runtime.errors import LoadError

    with pytest.raises(LoadError) as caught:
        safe_yaml("name: x\ndescription: a\x1b[2Jb\n", "SKILL.md", first_line=2)
    assert caught.value.message == "invalid YAML: unacceptable character #x001b"
    assert caught.value.where is not None and caught.value.where.line == 3
