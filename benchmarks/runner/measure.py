"""Measuring a command: wall time and peak memory of a fresh process, repeated and interleaved.

The peak memory is ``ru_maxrss`` from ``os.wait4`` on the process: the largest resident set
of the process and of the children it waited for.  Two things to know when reading it:

- The step programs stream their stdin and stdout in small chunks, so for app-run and loop.py
  the maximum is their own.
- Linux counts a child's memory from its fork, before it execs the command: the figure is
  never below the benchmark process's own peak at that moment (``floor_mb``, ~10 MB: this
  process imports nothing heavy for that reason).

MB here is 10^6 bytes, everywhere in the benchmark.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

MB = 1_000_000
MAXRSS_UNIT = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
HEAD_BYTES = 4096


def floor_mb() -> float:
    """The benchmark process's own peak: no child's peak can read lower."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * MAXRSS_UNIT / MB


@dataclass(frozen=True)
class Sample:
    seconds: float  # wall clock
    cpu_seconds: float  # user + system, of the process and the children it waited for
    peak_mb: float
    returncode: int
    stdout_bytes: int
    stdout_head: str  # the first HEAD_BYTES of stdout, to check the result
    stderr: str

    def check(self, what: str) -> None:
        if self.returncode != 0:
            raise RuntimeError(f"{what} exited with {self.returncode}: {self.stderr[-2000:]}")


def run_once(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Sample:
    """Run ``argv`` to completion, stdout and stderr into temporary files."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd, env=env
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        size = out.tell()
        out.seek(0)
        head = out.read(HEAD_BYTES).decode("utf-8", "replace")
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    peak = usage.ru_maxrss * MAXRSS_UNIT / MB
    return Sample(seconds, cpu, peak, proc.returncode, size, head, stderr)


def interleaved(
    commands: Mapping[str, Sequence[str]],
    repetitions: int,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    warmup: bool = True,
) -> dict[str, list[Sample]]:
    """Run each command once untimed (``warmup``: bytecode and page cache warm), then
    ``repetitions`` times, taking turns, so a change in the machine's load hits all of them
    alike.  Every run must succeed."""
    for label, argv in commands.items() if warmup else ():
        run_once(argv, env=env, cwd=cwd).check(label)
    samples: dict[str, list[Sample]] = {label: [] for label in commands}
    for _ in range(repetitions):
        for label, argv in commands.items():
            sample = run_once(argv, env=env, cwd=cwd)
            sample.check(label)
            samples[label].append(sample)
    return samples


@dataclass(frozen=True)
class Summary:
    median: float  # wall clock, seconds
    low: float  # the fastest run
    high: float
    cpu: float  # median CPU seconds: less moved than wall time by other work on the machine
    peak_mb: float  # the largest peak over the runs

    def to_dict(self) -> dict[str, float]:
        return {
            "median_s": round(self.median, 5),
            "min_s": round(self.low, 5),
            "max_s": round(self.high, 5),
            "cpu_s": round(self.cpu, 5),
            "peak_mb": round(self.peak_mb, 1),
        }


def summarize(samples: Sequence[Sample]) -> Summary:
    times = [s.seconds for s in samples]
    cpu = statistics.median(s.cpu_seconds for s in samples)
    peak = max(s.peak_mb for s in samples)
    return Summary(statistics.median(times), min(times), max(times), cpu, peak)
