"""What the benchmarks run: the step programs and the APP folders built around them.

Every APP is written into a temporary folder at benchmark time, one pipeline per APP unless
said otherwise, and dated a minute back, as an APP in daily use is: app-run re-checks an APP
changed in the last 2 s on every run, and reuses an unchanged APP's check (runtime/cache.py).
For each chain pipeline a loop plan (``loop.py``) with the very same argv lists is written next
to it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEP_C = HERE / "step.c"
STEP_PY = HERE / "step.py"
LOOP_PY = HERE / "loop.py"
SKILL_MD = "---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{description}\n"


@dataclass(frozen=True)
class Bench:
    """Where the benchmark writes, and the commands it times."""

    workdir: Path
    env: dict[str, str]  # app-run's state, config and bytecode in workdir; no provider settings
    app_run: tuple[str, ...]
    warmup: bool = True  # run each command once, untimed, before timing it
    python: str = sys.executable

    @classmethod
    def create(cls, workdir: Path, *, warmup: bool = True) -> Bench:
        drop = ("ANTHROPIC_API_KEY", "PYTHONDONTWRITEBYTECODE")
        env = {
            k: v for k, v in os.environ.items() if not k.startswith("APP_RUN_") and k not in drop
        }
        env.update(
            APP_RUN_HOME=str(workdir / "home"),
            XDG_CONFIG_HOME=str(workdir / "config"),
            # Bytecode cached as in an installed package, but in workdir: the repo stays as it is
            # and a stale __pycache__ there (PYTHONDONTWRITEBYTECODE) is not recompiled per run.
            PYTHONPYCACHEPREFIX=str(workdir / "pycache"),
        )
        return cls(workdir, env, (find_app_run(),), warmup)

    def run_command(self, chain: Chain) -> list[str]:
        return [*self.app_run, "run", str(chain.app), chain.pipeline]

    def loop_command(self, chain: Chain) -> list[str]:
        return [self.python, str(LOOP_PY), str(chain.plan)]


def find_app_run() -> str:
    """The app-run next to this interpreter (a venv), else the one on PATH."""
    beside = Path(sys.executable).parent / "app-run"
    found = str(beside) if beside.is_file() else shutil.which("app-run")
    if found is None:
        raise SystemExit("app-run not found: install the package (pip install -e .) first")
    return found


@dataclass(frozen=True)
class Program:
    """A step program: ``argv`` prints ``{"output": 1}``; ``argv + [BYTES]`` a long string."""

    name: str  # "c" | "python"
    argv: tuple[str, ...]
    note: str


def find_compiler() -> str | None:
    return next((cc for cc in ("cc", "gcc", "clang") if shutil.which(cc)), None)


def build_programs(workdir: Path) -> tuple[list[Program], dict[str, str]]:
    """The C step (compiled now, with ``cc -O2``) and the Python one; and why any is skipped."""
    programs: list[Program] = []
    skipped: dict[str, str] = {}
    compiler = find_compiler()
    if compiler is None:
        skipped["c"] = "no C compiler (cc, gcc, clang) on PATH"
    else:
        binary = workdir / "step_c"
        done = subprocess.run(
            [compiler, "-O2", "-o", str(binary), str(STEP_C)], capture_output=True, text=True
        )
        if done.returncode == 0:
            programs.append(Program("c", (str(binary),), f"step.c built with {compiler} -O2"))
        else:
            skipped["c"] = f"{compiler} failed: {done.stderr.strip()[:200]}"
    python = (sys.executable, str(STEP_PY))
    programs.append(Program("python", python, "python step.py (this interpreter)"))
    return programs, skipped


def write_app(
    root: Path, pipelines: dict[str, list[tuple[str, ...]]], *, previous_only: bool = False
) -> Path:
    """An APP at ``root`` with one code-only pipeline per entry: its steps' argv lists;
    ``previous_only``: each step ``needs`` only the step before it."""
    (root / "pipelines").mkdir(parents=True)
    description = "Benchmark APP for app-run"
    (root / "SKILL.md").write_text(
        SKILL_MD.format(name=root.name, description=description), encoding="utf-8"
    )
    for name, steps in pipelines.items():
        folder = root / "pipelines" / name
        folder.mkdir()
        text = pipeline_yaml(name, steps, previous_only)
        (folder / "pipeline.yaml").write_text(text, encoding="utf-8")
    settle(root)
    return root


def settle(root: Path, seconds: float = 60) -> None:
    """Date every file and folder of ``root`` back: an APP not edited just now."""
    when = time.time() - seconds
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            os.utime(Path(folder) / name, (when, when))
    os.utime(root, (when, when))


def pipeline_yaml(name: str, steps: list[tuple[str, ...]], previous_only: bool = False) -> str:
    words = name.replace("-", " ")
    lines = [
        f"name: {name}",
        f"description: Run the {words} benchmark pipeline ({len(steps)} code steps)",
        f'triggers: ["run the {words} pipeline", "benchmark {words}"]',
        "input: {}",
        "steps:",
    ]
    for index, argv in enumerate(steps, start=1):
        lines += [
            f"  - name: {step_name(index)}",
            "    type: code",
            f"    command: {json.dumps(shlex.join(argv))}",
        ]
        if previous_only:
            lines.append(f"    needs: [{step_name(index - 1) if index > 1 else ''}]")
    return "\n".join(lines) + "\n"


def step_name(index: int) -> str:
    return f"s{index:03d}"


def write_loop_plan(
    path: Path, cwd: Path, steps: list[tuple[str, ...]], previous_only: bool = False
) -> Path:
    """The same steps for ``loop.py``."""
    plan = {
        "cwd": str(cwd),
        "input": {},
        "previous_only": previous_only,
        "steps": [{"name": step_name(i), "argv": list(a)} for i, a in enumerate(steps, 1)],
    }
    path.write_text(json.dumps(plan, indent=1), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Chain:
    """One pipeline of ``steps`` steps, as an APP for app-run and as a plan for loop.py."""

    app: Path
    pipeline: str
    plan: Path
    steps: int


def write_chain(
    workdir: Path, label: str, steps: list[tuple[str, ...]], previous_only: bool = False
) -> Chain:
    app = write_app(workdir / label, {"chain": steps}, previous_only=previous_only)
    cwd = app / "pipelines" / "chain"
    plan = write_loop_plan(workdir / f"{label}.loop.json", cwd, steps, previous_only)
    return Chain(app, "chain", plan, len(steps))


def write_wide_app(root: Path, program: Program, count: int) -> Path:
    """An APP of ``count`` pipelines (1 to 3 code steps each) for `list`, `check` and `run`."""
    pipelines = {f"task-{i:03d}": [program.argv] * (1 + i % 3) for i in range(1, count + 1)}
    return write_app(root, pipelines)
