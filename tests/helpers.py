"""Test helpers for the runtime: build small APP trees from dicts, run `app-run`, and one
assertion helper, ``assert_run``, for what a run did (which steps ran, in which order, which
error) as its run record tells it.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from skill2app.runtime.cli import app_run
from skill2app.runtime.records.record import read_events

TESTS = Path(__file__).resolve().parent
APPS = TESTS / "apps"
MALFORMED = TESTS / "malformed"

# The documented exit code of each final run status (interrupted: 128 + the signal's number).
EXIT_CODES = {"succeeded": 0, "failed": 1, "constructor_failed": 4, "destructor_failed": 5}

# One script serves every generated step: `python3 steps/step.py ACTION [VALUE]`.
STEP_PY = '''\
"""A fixture step.  ACTION: ok [VALUE] | fail | hang | nap [SECONDS] | noisy | nojson | nooutput.

Before acting it writes $APP_TEST_MARKERS/<pipeline>.<step>.json: the stdin it got, its APP_*
environment, cwd, pid and process group (and the pid of the grandchild that `hang` starts).
"""
import json
import os
import subprocess
import sys
import time

stdin = sys.stdin.read()
action = sys.argv[1]
value = sys.argv[2] if len(sys.argv) > 2 else None
seen = {
    "stdin": stdin,
    "env": {k: v for k, v in os.environ.items() if k.startswith("APP_")},
    "cwd": os.getcwd(),
    "pid": os.getpid(),
    "pgid": os.getpgid(0),
}
if action == "hang":
    seen["grandchild"] = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]).pid
markers = os.environ.get("APP_TEST_MARKERS")
if markers:
    name = os.path.join(markers, f"{os.environ['APP_PIPELINE']}.{os.environ['APP_STEP']}.json")
    with open(name + ".tmp", "w") as fh:
        json.dump(seen, fh)
    os.replace(name + ".tmp", name)  # a test waiting for the marker never reads half of it
if action == "ok":
    print(json.dumps({"output": {"step": os.environ["APP_STEP"], "value": value}}))
elif action == "fail":
    print("working...")
    print(f"{os.environ['APP_STEP']} failed on purpose", file=sys.stderr)
    sys.exit(3)
elif action == "hang":
    time.sleep(60)
elif action == "nap":
    time.sleep(float(value or 1))
    print(json.dumps({"output": "rested"}))
elif action == "nojson":
    print("all done!")
elif action == "nooutput":
    print(json.dumps({"result": 1}))
elif action == "noisy":
    print("a log line on stderr", file=sys.stderr)
    print(json.dumps({"output": value}))
'''


def code(name: str, action: str = "ok", value: str | None = None, **extra: Any) -> dict:
    """A code step running the shared fixture script."""
    command = f"python3 steps/step.py {action}" + (f" {value}" if value is not None else "")
    return {"name": name, "type": "code", "command": command, **extra}


def write_tree(root: Path, files: Mapping[str, Any]) -> Path:
    """Write ``files`` under ``root``: str as text, bytes as bytes, anything else as YAML."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(
                yaml.safe_dump(content, sort_keys=False, allow_unicode=True), encoding="utf-8"
            )
    return root


def make_app(
    root: Path,
    pipelines: Mapping[str, Sequence[dict] | dict],
    files: Mapping[str, Any] | None = None,
) -> Path:
    """An APP under ``root``: each pipeline is a list of steps or a full pipeline.yaml dict
    (``name`` and ``description`` filled in); every pipeline gets the shared steps/step.py."""
    tree: dict[str, Any] = {"SKILL.md": "# Test APP\n"}
    for name, spec in pipelines.items():
        data = {"steps": list(spec)} if isinstance(spec, Sequence) else dict(spec)
        data = {"name": name, "description": f"the {name} pipeline", **data}
        tree[f"pipelines/{name}/pipeline.yaml"] = data
        tree[f"pipelines/{name}/steps/step.py"] = STEP_PY
    tree.update(files or {})
    return write_tree(root, tree)


@dataclass
class Outcome:
    """A finished `app-run`: in-process (``invoke``) or a subprocess."""

    exit_code: int
    stdout: str
    stderr: str


def invoke(*args: Any, input: str | None = None) -> Outcome:
    """`app-run ARGS` in-process, ``input`` on stdin; stdout and stderr are kept apart."""
    streams = (sys.stdin, sys.stdout, sys.stderr)
    stdout, stderr = io.StringIO(), io.StringIO()
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(input or ""), stdout, stderr
    try:
        code = app_run([str(a) for a in args])
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
    return Outcome(code, stdout.getvalue(), stderr.getvalue())


def assert_run(
    result: Outcome,
    *,
    status: str,
    ran: list[str],
    error: str | None = None,
    exit_code: int | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Check a `run --json` result against its run record.

    ``ran``: every step that started, as ``pipeline/step``, in order.  ``error``: a fragment of
    the run's first error as ``Type: message`` (None: the run had no error).  The exit code must
    be the one documented for ``status`` (or ``exit_code``).  Returns (result JSON, events).
    """
    data = json.loads(result.stdout)
    assert data["status"] == status, result.stderr
    expected_code = EXIT_CODES.get(status) if exit_code is None else exit_code
    assert result.exit_code == expected_code, (result.exit_code, result.stderr)
    events = read_events(Path(data["record"]))
    started = [f"{e['pipeline']}/{e['step']}" for e in events if e["event"] == "step_start"]
    assert started == ran
    end = events[-1]
    assert end["event"] == "run_end"
    assert (end["status"], end["exit_code"]) == (status, result.exit_code)
    if error is None:
        assert end["error"] is None
    else:
        assert end["error"] is not None, "the run had no error"
        assert error in f"{end['error']['type']}: {end['error']['message']}"
    return data, events


def marker(markers: Path, pipeline: str, step: str) -> dict[str, Any] | None:
    """What the fixture step ``pipeline/step`` wrote when it ran (None: it never ran)."""
    path = markers / f"{pipeline}.{step}.json"
    return json.loads(path.read_text()) if path.exists() else None


def wait_for(condition: Callable[[], bool], what: str, limit: float = 30.0) -> None:
    """Poll until ``condition()`` holds; the limit only stops a broken test from hanging."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie nobody reaped yet counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    """Live processes in process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members
