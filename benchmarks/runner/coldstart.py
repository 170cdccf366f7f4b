"""Cold start: a fresh `app-run` process for a one-step code pipeline, `list` and `check` on
an APP of 100 pipelines, with `python -c pass` and `python -c "import skill2app.runtime.cli"`
as floors.
The one-step run is timed twice: on an unchanged APP (its check is reused, the everyday case)
and with ``APP_RUN_NO_CACHE=1`` (checked anew, as after every edit; through ``env``, one exec
more).

A probe runs the one-step pipeline once more in-process (``runtime.cli.main``) to tell which
heavy modules a code-only run imports and which line imported each, and once under
``python -X importtime`` for the most expensive imports.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from measure import interleaved, summarize
from workloads import Bench, Program, write_app, write_wide_app

TARGET_RUN_MS = 150.0
HEAVY = (
    "anthropic",
    "httpx",
    "jinja2",
    "jsonschema",
    "numpy",
    "pydantic",
    "rich",
    "ruamel",
    "safetensors",
    "tokenizers",
    "yaml",
)
ROOT = Path(__file__).resolve().parents[2]

# Runs `app-run ARGV...` in this process; writes {module: [importing frames]} to a file.
PROBE = """
import json, os, sys, traceback
HEAVY = set(json.loads(os.environ["BENCH_HEAVY"]))
seen = {}

class Watch:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in HEAVY and top not in seen:
            frames = [f for f in traceback.extract_stack()[:-1] if f.filename[:1] != "<"]
            seen[top] = [f"{f.filename}:{f.lineno} {f.name}" for f in frames]
        return None

sys.meta_path.insert(0, Watch())
sys.argv = ["app-run", *json.loads(os.environ["BENCH_ARGV"])]
from skill2app.runtime.cli import main
try:
    main()
except SystemExit:
    pass
with open(os.environ["BENCH_OUT"], "w") as fh:
    json.dump(seen, fh)
"""


def measure_cold_start(
    bench: Bench, program: Program, pipelines: int, repetitions: int
) -> dict[str, Any]:
    root = bench.workdir / "cold"
    one = write_app(root / "one", {"one": [program.argv]})
    wide = write_wide_app(root / "wide", program, pipelines)
    py, app_run = bench.python, list(bench.app_run)
    commands = {
        "python -c pass": [py, "-c", "pass"],
        'python -c "import skill2app.runtime.cli"': [py, "-c", "import skill2app.runtime.cli"],
        "app-run --version": [*app_run, "--version"],
        "app-run run (1 code step)": [*app_run, "run", str(one), "one"],
        "app-run run (1 code step, checked anew)": [
            "env",
            "APP_RUN_NO_CACHE=1",
            *app_run,
            "run",
            str(one),
            "one",
        ],
        f"app-run run (1 step, {pipelines}-pipeline APP)": [*app_run, "run", str(wide), "task-003"],
        f"app-run list ({pipelines} pipelines)": [*app_run, "list", str(wide)],
        f"app-run check ({pipelines} pipelines)": [*app_run, "check", str(wide)],
        f"app-run route ({pipelines} pipelines)": [*app_run, "route", str(wide), "task 3"],
    }
    samples = interleaved(commands, repetitions, env=bench.env, warmup=bench.warmup)
    rows = [{"command": label, **summarize(runs).to_dict()} for label, runs in samples.items()]
    run_ms = summarize(samples["app-run run (1 code step)"]).median * 1000
    probe_argv = ["run", str(one), "one", "--quiet"]
    return {
        "repetitions": repetitions,
        "step": " ".join(program.argv),
        "rows": rows,
        "run_ms": round(run_ms, 1),
        "target_run_ms": TARGET_RUN_MS,
        "met": run_ms <= TARGET_RUN_MS,
        "heavy_imports": heavy_imports(bench, probe_argv),
        "top_imports": top_imports(bench, probe_argv),
    }


def _probe(bench: Bench, argv: list[str], *flags: str) -> subprocess.CompletedProcess[str]:
    out = bench.workdir / "probe.json"
    env = {
        **bench.env,
        "BENCH_ARGV": json.dumps(argv),
        "BENCH_HEAVY": json.dumps(HEAVY),
        "BENCH_OUT": str(out),
    }
    done = subprocess.run(
        [bench.python, *flags, "-c", PROBE], env=env, capture_output=True, text=True
    )
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"probe failed: {done.stderr[-2000:]}")
    return done


def heavy_imports(bench: Bench, argv: list[str]) -> dict[str, dict[str, str]]:
    """Each heavy module the run imported: the line that imported it first, and the innermost
    line of this project on the way there."""
    _probe(bench, argv)
    seen = json.loads((bench.workdir / "probe.json").read_text(encoding="utf-8"))
    found = {}
    for module, frames in sorted(seen.items()):
        outside = [f for f in frames if f"/{module}/" not in f and f"/{module}." not in f]
        ours = [f for f in frames if f.startswith(str(ROOT))]
        found[module] = {
            "imported_by": _short(outside[-1]) if outside else "?",
            "project_frame": _short(ours[-1]) if ours else "-",
        }
    return found


def _short(frame: str) -> str:
    frame = frame.replace(str(ROOT) + "/", "")
    return re.sub(r"^.*/site-packages/", "", frame)


IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)$")


def top_imports(bench: Bench, argv: list[str], limit: int = 12) -> list[dict[str, Any]]:
    """The costliest top-level imports of the run (cumulative, from ``-X importtime``);
    imports done inside a function show up at top level too."""
    done = _probe(bench, argv, "-X", "importtime")
    found = []
    for line in done.stderr.splitlines():
        match = IMPORTTIME.match(line)
        if match and not match.group(3):
            found.append({"module": match.group(4), "ms": round(int(match.group(2)) / 1000, 1)})
    return sorted(found, key=lambda item: -item["ms"])[:limit]
