"""What runs a skill's program, and whether it can run the way SKILL.md runs it.

The APP runs a program with the interpreter SKILL.md runs it with (the one launcher, as it
is most often shown: ``uv run --no-project``), else with what its ``#!`` line names when
SKILL.md runs it directly (``./x.ts``) or when its language's default cannot stand in for it
(``#!/usr/bin/env bun``), else with its language's default (``interpreter``).  A PEP 723
script whose block lists no dependencies runs with python3: ``uv run`` adds nothing to it,
and a step failed where uv was not installed.  The binary of that interpreter is one of the
program's needs (``interpreter_need``), as are the packages its PEP 723 block lists
(``pep723_dependencies``).  A program SKILL.md runs directly without an exec bit or a ``#!``
line fails there, or in the APP's step too (``direct_run_warning``).
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from skill2app.converter.inventory.invocations import Invocation
from skill2app.converter.inventory.programs.facts import Program, read_source
from skill2app.converter.inventory.programs.language import (
    DEFAULT_INTERPRETER,
    shebang_command,
    shebang_program,
)

_SHELLS = ("bash", "sh", "zsh")  # a shell runs a file without a #! line as a shell script


def interpreter_need(program: Program, source: str) -> tuple[str, str]:
    """(the binary the APP runs ``program`` with, where the program itself says so).

    The binary is the first word of its interpreter (as SKILL.md runs it, else the one of
    its language, from its extension or ``#!`` line), else what its ``#!`` line names when
    it runs directly.  The spot is ``path:1`` when the ``#!`` line names that binary, else
    the program's path (its extension says it): the constructor check for the binary then
    applies to the pipelines running this program.  ("", "") when nothing runs it."""
    shebang = shebang_program(source)
    binary = program.interpreter.split()[0] if program.interpreter else shebang
    if not binary:
        return "", ""
    named = bool(shebang) and posixpath.basename(binary) == shebang
    return binary, f"{program.path}:1" if named else program.path


# Runtimes a program never shown run is written for, when its #! line names one its
# language's default cannot stand in for (Bun's and Deno's APIs; a PEP 723 script's deps).
_OWN_RUNTIMES = {"typescript": ("bun", "deno"), "node": ("bun", "deno"), "python": ("uv",)}


# `uv run` options that change nothing for a script without dependencies.
_PLAIN_UV_OPTIONS = {"--no-project", "--script", "--no-config", "--isolated", "--quiet", "-q"}


def interpreter(language: str, source: str, invocations: list[Invocation]) -> str:
    """``_shown_interpreter``, but python3 for a script to which ``uv run`` adds nothing: its
    PEP 723 block lists no dependencies (``dependencies = []``), so uv is not needed to run
    it (analysis-dcf, ascii-diagram-validator: a step failed where uv was not installed)."""
    interpreter = _shown_interpreter(language, source, invocations)
    words = interpreter.split()
    plain = words[:2] == ["uv", "run"] and set(words[2:]) <= _PLAIN_UV_OPTIONS
    if language == "python" and plain and _no_dependencies(source):
        return DEFAULT_INTERPRETER["python"]
    return interpreter


_PEP723 = re.compile(r"^# /// script\s*$(?P<body>.*?)^# ///\s*$", re.M | re.S)


def pep723_dependencies(source: str) -> list[str] | None:
    """The packages a script's PEP 723 header lists (one line or several); None: no header."""
    block = _PEP723.search(source)
    if block is None:
        return None
    body = "\n".join(line.removeprefix("#").strip() for line in block["body"].splitlines())
    listed = re.search(r"^dependencies\s*=\s*\[(?P<items>[^\]]*)\]", body, re.M)
    return re.findall(r"[\"']([^\"']+)[\"']", listed["items"]) if listed else []


def _no_dependencies(source: str) -> bool:
    """Whether the script's PEP 723 block declares no dependencies and asks for no Python
    newer than 3.11 (``>=3.12``, ``==3.12.*``, ``~=3.12``: uv fetches that one)."""
    block = _PEP723.search(source)
    if block is None:
        return False
    body = "\n".join(line.removeprefix("#").strip() for line in block["body"].splitlines())
    listed = re.search(r"^dependencies\s*=\s*\[(?P<items>[^\]]*)\]", body, re.M)
    wants = re.search(r"^requires-python\s*=\s*[\"'](?P<spec>[^\"']*)", body, re.M)
    for minor in re.findall(r"(?:>=|>|==|~=)\s*3\.(\d+)", wants["spec"] if wants else ""):
        if int(minor) > 11:  # a Python newer than app-run needs: uv fetches it
            return False
    return listed is None or not listed["items"].strip(" \n,")


def _shown_interpreter(language: str, source: str, invocations: list[Invocation]) -> str:
    """What the APP runs a program with: the one interpreter SKILL.md runs it with (or the one
    launcher, as it is most often shown: ``uv run --no-project``); else, when
    SKILL.md runs it directly (``./x.ts``), what its ``#!`` line names, and when it never shows
    it run, the runtime its ``#!`` line names if the language's default cannot stand in for it
    (``_OWN_RUNTIMES``); else its language's."""
    interpreters = sorted({inv.interpreter for inv in invocations if inv.interpreter})
    if len(interpreters) == 1:
        return interpreters[0]
    if interpreters and len({i.split()[0] for i in interpreters}) == 1:
        # one launcher, said more or less fully (`uv run --no-project` five times, `uv run`
        # once): the way the documents run it most, the first one shown on a tie
        shown = [inv.interpreter for inv in invocations if inv.interpreter]
        return max(interpreters, key=lambda i: (shown.count(i), -shown.index(i)))
    direct = any(not inv.interpreter for inv in invocations)
    shebang = shebang_command(source)
    if direct and not interpreters and shebang:
        return shebang
    if not invocations and shebang.split(" ")[0] in _OWN_RUNTIMES.get(language, ()):
        return shebang  # `#!/usr/bin/env bun`: a script tsx cannot run
    return DEFAULT_INTERPRETER.get(language, "")


def direct_run_warning(skill_dir: Path, program: Program) -> str:
    """A warning when SKILL.md runs ``program`` directly (``./x``, no interpreter) although
    it cannot run that way: no exec bit, or no ``#!`` line (a shell runs such a file as a
    shell script: fine for a shell script only); or, for the APP's adapter, which runs a
    program of unknown language as it is, no ``#!`` line or no exec bit.  "" otherwise."""
    direct = [inv for inv in program.invocations if not inv.interpreter]
    if not direct:
        return ""
    path = skill_dir / program.path
    shebang = read_source(path).startswith("#!")
    executable = os.access(path, os.X_OK)
    app_fails = not program.language and not (shebang and executable)
    command_fails = not executable or (not shebang and program.language not in _SHELLS)
    if not app_fails and not command_fails:
        return ""
    lacks = " and ".join([*(["no #! line"] * (not shebang)), *(["no exec bit"] * (not executable))])
    fix = " and ".join([*(["add a #! line"] * (not shebang)), *(["chmod +x"] * (not executable))])
    where = f"{direct[0].file}:{direct[0].line}"
    if not app_fails:
        interpreter = program.interpreter or DEFAULT_INTERPRETER.get(program.language, "")
        return (
            f"{where} runs {program.path} directly, but it has {lacks}, so that command "
            f"fails; the APP runs it with {interpreter} ({fix})"
        )
    return (
        f"{where} runs {program.path} directly, but it has {lacks}: neither that command "
        f"nor the APP's step can run it; {fix}, or run it through its interpreter in SKILL.md"
    )
