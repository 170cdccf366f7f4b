"""Stand-ins: programs this machine lacks, replaced during the smoke run by ones that record.

A skill often drives a program that is not installed where app-convert runs (``yt-dlp``,
``vercel``, ``gh``, ``uvx``).  Its pipelines used to be skipped whole, so the glue a plan
wrote around the program — the command line it builds, the order of its arguments, what it
pipes in — was never run.  During the smoke run each such program is a *stand-in*: a small
script of the same name, last on PATH (an installed program always wins), that records the
command line it was given (its arguments, working folder and the start of what it read on
stdin), prints nothing and exits 0.

What a step ran through a stand-in is shown — in the report and to the analyst at the review
— and checked for what is wrong whatever the program does:

- options after a ``--`` that ends the options (``yt-dlp -f best -- URL -P out``: the program
  reads ``-P`` and ``out`` as more operands), unless the skill's documents themselves pass
  options after ``--`` to it (``npm run build -- --watch``);
- options the skill's documents never show for the program (an invented flag, or one that
  only its own help has): listed for the analyst to check, not an error.

Names come from the skill (untrusted): only plain program names get a stand-in.  Secrets are
blanked in what is recorded before anyone sees it.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.runtime.app.secrets import MASK, Scrubber, is_secret_name

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
MAX_STANDINS = 12  # per smoke run: more missing programs than this is no glue worth tracing
MAX_CALLS = 20  # recorded per step
STDIN_KEPT = 400  # characters of what a stand-in read on stdin
# Shells and the interpreters app-convert itself needs are never stood in (nor sudo).
NEVER = frozenset("sh bash zsh dash env python python3 node nodejs sudo su".split())
# What a failure says when a program it runs is not installed.
_MISSING = re.compile(
    r"(?:^|[\s:'\"])([A-Za-z0-9][A-Za-z0-9._+-]{0,63}): (?:command )?not found"
    r"|the program '([^'/]+)' is not on PATH"
    r"|\b([A-Za-z0-9][A-Za-z0-9._+-]{0,63}) is not on PATH"
    r"|No such file or directory: '([A-Za-z0-9][A-Za-z0-9._+-]{0,63})'"
    r"|spawn(?:Sync)? ([A-Za-z0-9][A-Za-z0-9._+-]{0,63}) ENOENT"
    r"|needs the program '?([A-Za-z0-9][A-Za-z0-9._+-]{0,63})'? on PATH"
)
RECORDER = Path(__file__).with_name("recorder.py")


@dataclass(frozen=True)
class Call:
    """One command line a step ran through a stand-in."""

    program: str
    argv: tuple[str, ...]
    cwd: str = ""  # relative to the APP when inside it
    stdin: str = ""

    def line(self) -> str:
        return shlex.join([self.program, *self.argv])

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"program": self.program, "argv": list(self.argv)}
        if self.cwd:
            data["cwd"] = self.cwd
        if self.stdin:
            data["stdin"] = self.stdin
        return data


@dataclass
class StandIns:
    """The stand-in folder of one smoke run and the log its stand-ins write."""

    folder: Path
    names: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = self.folder / ".calls.jsonl"
        self.log.touch()
        self._recorder = self.folder / ".recorder.py"
        shutil.copyfile(RECORDER, self._recorder)

    def add(self, name: str) -> bool:
        """Make a stand-in for ``name``; False when it may not have one (or has one)."""
        if not NAME.match(name) or name.lower() in NEVER or name in self.names:
            return False
        if len(self.names) >= MAX_STANDINS:
            return False
        script = self.folder / name
        python = shlex.quote(sys.executable)
        script.write_text(
            f"#!/bin/sh\nexec {python} -S {shlex.quote(str(self._recorder))} "
            f'{shlex.quote(name)} {shlex.quote(str(self.log))} {STDIN_KEPT} "$@"\n',
            encoding="utf-8",
        )
        script.chmod(0o755)
        self.names.append(name)
        return True

    def path(self, current: str) -> str:
        """``current`` PATH with the stand-ins last: a program installed here always wins."""
        return f"{current}:{self.folder}" if current else str(self.folder)

    def mark(self) -> int:
        return self.log.stat().st_size

    def calls_since(self, mark: int, app_root: Path, scrubber: Scrubber) -> list[Call]:
        """The calls recorded after ``mark``, their secrets blanked."""
        with self.log.open("rb") as fh:
            fh.seek(mark)
            lines = fh.read().decode("utf-8", "replace").splitlines()
        calls = []
        for line in lines[:MAX_CALLS]:
            try:
                data = json.loads(line)
            except ValueError:
                continue
            argv = [scrubber.text(str(a)) for a in data.get("argv") or []]
            calls.append(
                Call(
                    str(data.get("program", "")),
                    tuple(_mask_after_secret_flags(argv)),
                    _relative(str(data.get("cwd", "")), app_root),
                    scrubber.text(str(data.get("stdin", ""))),
                )
            )
        return calls


def missing_program(detail: str) -> str:
    """The program a failure says is not installed ("" when it names none)."""
    found = _MISSING.search(detail)
    if not found:
        return ""
    name = next(g for g in found.groups() if g)
    return name if NAME.match(name) and "." not in name.rstrip(".") else ""


def _mask_after_secret_flags(argv: list[str]) -> list[str]:
    """``--token X`` and ``--api-key=X`` keep the flag and lose the value."""
    masked: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            masked.append(MASK)
            hide_next = False
            continue
        flag, eq, _value = arg.partition("=")
        if arg.startswith("-") and is_secret_name(flag.lstrip("-")):
            if eq:
                masked.append(f"{flag}={MASK}")
            else:
                masked.append(arg)
                hide_next = True
            continue
        masked.append(arg)
    return masked


def _relative(cwd: str, app_root: Path) -> str:
    try:
        return Path(cwd).resolve().relative_to(app_root.resolve()).as_posix() or "."
    except (ValueError, OSError):
        return cwd


# -- what is wrong with a recorded command line ------------------------------------------------


def shown_options(lines: Iterable[str], program: str) -> tuple[set[str], bool]:
    """(the options the documents show ``program`` with, whether they put an option after
    ``--``), from the command lines in ``lines`` that run it."""
    options: set[str] = set()
    after_dashes = False
    for line in lines:
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        for start, word in enumerate(words):
            if Path(word).name != program:
                continue
            rest = words[start + 1 :]
            cut = rest.index("--") if "--" in rest else len(rest)
            options |= {_option(w) for w in rest[:cut] if _is_option(w)}
            after_dashes |= any(_is_option(w) for w in rest[cut + 1 :])
            break
    return options, after_dashes


def problems(call: Call, dashes_shown: bool) -> list[str]:
    """What is wrong with one recorded command line (``dashes_shown``: whether the skill's
    documents pass options after ``--`` to its program)."""
    found = []
    argv = list(call.argv)
    if "--" in argv and not dashes_shown:
        after = [w for w in argv[argv.index("--") + 1 :] if _is_option(w)]
        if after:
            listed = ", ".join(dict.fromkeys(after[:4]))
            found.append(
                f"passes {listed} after `--`: {call.program} reads everything after `--` as "
                "operands, not options; put the options before `--`"
            )
    return found


def unshown(call: Call, shown: set[str]) -> list[str]:
    """The options of a recorded command line that the skill's documents never show."""
    if not shown:
        return []
    argv = list(call.argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    used = [_option(w) for w in argv[:cut] if _is_option(w)]
    return list(dict.fromkeys(o for o in used if o not in shown))


def _is_option(word: str) -> bool:
    return (
        len(word) > 1
        and word.startswith("-")
        and word != "--"
        and not re.match(r"^-\d", word)  # a negative number
    )


def _option(word: str) -> str:
    return word.split("=", 1)[0]


def findings(traced: Iterable[tuple[str, Call]], lines: list[str]) -> list[str]:
    """What is wrong, or worth a look, in the command lines steps ran through stand-ins
    (``traced``: "pipeline/step" and a call; ``lines``: the skill's documented command
    lines): options after ``--``, a program run inside the APP's pipeline folder, and
    options the documents never show for the program."""
    said: list[str] = []
    shown: dict[str, tuple[set[str], bool]] = {}
    for where, call in traced:
        if call.program not in shown:
            shown[call.program] = shown_options(lines, call.program)
        options, dashes = shown[call.program]
        head = f"{where} ran `{_short(call.line())}`"
        said += [f"{head}: it {p}" for p in problems(call, dashes)]
        if call.cwd.startswith("pipelines/"):
            said.append(
                f"{head} in the pipeline's own folder ({call.cwd}): what it reads or writes "
                "by a relative path is inside the APP, not the user's folder; run it in "
                "APP_CALLER_CWD or give it absolute paths"
            )
        extra = unshown(call, options)
        if extra:
            said.append(
                f"{head}: the skill's documents never show {', '.join(extra[:5])} for "
                f"{call.program}; check them against its help"
            )
    return list(dict.fromkeys(said))


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
