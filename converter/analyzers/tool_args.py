"""The arguments of an outside tool's subcommand, and the written step that passes them.

``subcommands`` finds the subcommands a skill shows; this module reads their lines: the
positionals of the usage line (a placeholder or a file name an input, another word kept as
written) with samples from the first example, and every flag the lines show, typed from the
values they give (none: a boolean; twice in a line: an array; numbers: a number; ``-o``: the
file the tool writes).  ``program_source`` writes the step that builds the tool's argv from
the inputs (no shell: every word is a list item) and runs it in the caller's folder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from skill2app.converter.analyzers.snippets import FIXTURE, PATH, SECRET, reading
from skill2app.converter.analyzers.text import snake
from skill2app.converter.inventory.programs.usage import NUMBER


class Shown(Protocol):
    """A line of the subcommand as the documents show it (``subcommands.Line``)."""

    @property
    def words(self) -> list[str]: ...  # after the tool and the subcommand

    @property
    def usage(self) -> bool: ...  # it shows placeholders, not values


RUNNERS = frozenset({"npx", "pnpx", "bunx"})
OUTPUT_FLAGS = frozenset({"-o", "--output", "--out", "--out-dir", "--output-dir", "--outdir"})
PLACEHOLDER = re.compile(r"<([A-Za-z_][\w .-]{0,40})>")
OPTIONAL_ARG = re.compile(r"^\[([a-z][\w-]{0,40})\]$")
_FLAG = re.compile(r"^(--?[A-Za-z][\w-]*)(?:=(.*))?$")
_CONSTANT = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")  # VAR_NAME: a value to fill in


@dataclass
class Flag:
    flag: str  # as the command line gives it
    name: str  # the input
    type: str = "string"
    writes: bool = False  # names the file the tool writes
    lines: int = 0  # in how many of the subcommand's lines it is
    sample: Any = None
    shown: str = ""  # the placeholder a usage line gives it (``<lang>``)


@dataclass
class Positional:
    value: str  # the word as shown (a literal kept as written when ``name`` is "")
    name: str = ""
    required: bool = True
    sample: str = ""


def positionals_of(model: Shown, example: Shown) -> list[Positional]:
    """The positionals of ``model`` (up to the first flag), with samples from ``example``."""
    found: list[Positional] = []
    values = _positional_words(example.words)
    names: set[str] = set()
    for index, word in enumerate(_positional_words(model.words)):
        shown = values[index] if index < len(values) and values[index] != word else ""
        placeholder = PLACEHOLDER.fullmatch(word) or OPTIONAL_ARG.match(word)
        if placeholder or _CONSTANT.match(word):
            said = placeholder.group(1) if placeholder else word.lower()
            name = snake(said, 3) or f"argument_{index + 1}"
            if word == "[options]" or name in ("options", "command"):
                continue
            required = not word.startswith("[")
        elif PATH.match(word):
            suffix = word.rsplit(".", 1)[1].lower()
            name, required, shown = f"{suffix}_file", True, word
        else:
            found.append(Positional(word))
            continue
        if name in names:
            name = f"{name}_{index + 1}"
        names.add(name)
        found.append(Positional(word, name, required, _sample(shown) if shown else ""))
    url = _trailing_url(model.words) or _trailing_url(example.words)
    if url and len(_positional_words(model.words)) < len(model.words) and "url" not in names:
        # after the flags: `buf curl --data '{...}' http://host/pkg.Service/Method`
        found.append(Positional(url, "url", True, _trailing_url(example.words) or url))
    return found


def _trailing_url(words: list[str]) -> str:
    """The address a command line ends with, after a flag's value (not a flag's own)."""
    if len(words) >= 3 and _URL.match(words[-1]) and not words[-2].startswith("-"):
        return words[-1]
    return ""


_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|\$\{?[A-Z_]*URL\}?/)\S+$", re.I)


def _positional_words(words: list[str]) -> list[str]:
    out = []
    keyed = uses_parameters(words)
    for word in words:
        if word.startswith("-") and word != "-":
            break
        if keyed and (PARAMETER.match(word) or _SWITCH.match(word)):
            continue  # `name="My Note"`, `silent`: a parameter and a switch, not positionals
        out.append(word)
    return out


# A tool's parameter given as `key=value` (obsidian: `create name="My Note" silent`).
PARAMETER = re.compile(r"^([a-z][a-z0-9_-]{0,30})=(.*)$", re.S)
_SWITCH = re.compile(r"^[a-z][a-z0-9-]{1,30}$")


def uses_parameters(words: Sequence[str]) -> bool:
    """Whether a command line gives its values as ``key=value`` words (then its bare words
    are switches: ``obsidian create name="My Note" silent overwrite``); a flag's value that
    looks so is not one (``gh api -f title=Bug``, ``curl -d a=b``)."""
    return any(
        PARAMETER.match(word) and not (index and words[index - 1].startswith("-"))
        for index, word in enumerate(words)
    )


def _sample(value: str) -> str:
    """A file the converter makes for a known type (``samples/one-page.pdf``), else as shown."""
    if PATH.match(value):
        fixture = FIXTURE.get(value.rsplit(".", 1)[1].lower())
        return f"samples/{fixture}" if fixture else value
    return value


def flags_of(lines: Sequence[Shown], pairs: dict[str, str]) -> list[Flag]:
    """Every flag the subcommand's lines show, in order of first appearance; of a tool that
    takes ``key=value`` parameters, those (spelled ``key=``) and its bare switches too."""
    flags: dict[str, Flag] = {}
    keyed = any(uses_parameters(line.words) for line in lines)
    for line in lines:
        seen: dict[str, int] = {}
        words = line.words
        for index, word in enumerate(words):
            parameter = PARAMETER.match(word) if keyed else None
            if parameter or (keyed and _SWITCH.match(word) and not PLACEHOLDER.search(word)):
                key = parameter.group(1) if parameter else word
                spelled = f"{key}=" if parameter else word  # passed as key=value, or bare
                if SECRET.search(key):
                    continue
                entry = flags.setdefault(spelled, Flag(spelled, snake(key, 4)))
                seen[spelled] = seen.get(spelled, 0) + 1
                _typed(entry, parameter.group(2) if parameter else None, False, line.usage)
                continue
            match = _FLAG.match(word)
            if not match or word == "-":
                continue
            flag, value = match.group(1), match.group(2)
            if value is None and index + 1 < len(words) and not _FLAG.match(words[index + 1]):
                value = words[index + 1]
            if SECRET.search(flag) or flag in ("--help", "-h", "--version", "-V"):
                continue
            long = (
                flag
                if flag.startswith("--")
                else pairs.get(flag, "--output" if flag == "-o" else "")
            )
            name = snake(long.lstrip("-"), 4)
            if not name and value is not None:
                continue  # a short option the documents name no long form of
            long = long or flag  # `-y`: kept as shown when every line gives it
            entry = flags.setdefault(long, Flag(long, name, writes=long in OUTPUT_FLAGS))
            seen[long] = seen.get(long, 0) + 1
            _typed(entry, value, seen[long] > 1, line.usage)
        for flag in seen:
            flags[flag].lines += 1
    names: set[str] = set()
    out = []
    for entry in flags.values():
        if entry.name in names or (not entry.name and entry.lines < len(lines)):
            continue
        if entry.name:
            names.add(entry.name)
        out.append(entry)
    return out


def _typed(entry: Flag, value: str | None, repeated: bool, usage: bool) -> None:
    """The flag's type and sample, from one more value shown for it."""
    if value is None:
        entry.type, entry.sample = "boolean", True
        return
    if PLACEHOLDER.fullmatch(value) or usage:
        entry.shown = entry.shown or value
        return
    if entry.writes and entry.sample is None and not re.search(r"[./]", value):
        entry.writes = False  # `--output json`: a format, not the file it writes
    if repeated and entry.sample is not None:
        earlier = entry.sample if isinstance(entry.sample, list) else [entry.sample]
        entry.type, entry.sample = "array", [*earlier, _sample(value)]
    elif entry.sample is None:
        entry.sample = value if entry.writes else _sample(value)
        if NUMBER.match(value) and entry.type == "string":
            entry.type = "number" if "." in value else "integer"
            entry.sample = float(value) if "." in value else int(value)
    elif entry.type in ("integer", "number") and not NUMBER.match(value):
        entry.type, entry.sample = "string", str(entry.sample)


def program_source(
    launcher: tuple[str, ...],
    subcommand: tuple[str, ...],
    positionals: list[Positional],
    flags: list[Flag],
) -> str:
    """The written step: the tool's command line built from the inputs, in the caller's
    folder."""
    tool = launcher[0]
    missing = f"{snake(' '.join(subcommand), 4)} needs the program {tool} on PATH"
    start = [*launcher, *subcommand]
    table = [(f.flag, f.name, f.type) for f in flags if f.name]
    constants = [f.flag for f in flags if not f.name]  # `-y`, given in every line
    lines = [
        "import json",
        "import os",
        "import shutil",
        "import subprocess",
        "import sys",
        "",
        *reading([]),  # the input, in the caller's folder (the files are inputs like others)
        f"if shutil.which({tool!r}) is None:",
        f"    sys.exit({missing!r})",
        f"argv = {start!r}",
    ]
    for p in positionals:
        if not p.name:
            lines.append(f"argv.append({p.value!r})")
        elif p.required:
            lines.append(f"argv.append(str(INPUT[{p.name!r}]))")
        else:
            lines.append(f"if INPUT.get({p.name!r}) not in (None, ''):")
            lines.append(f"    argv.append(str(INPUT[{p.name!r}]))")
    lines += [
        *([f"argv += {constants!r}"] if constants else []),
        f"FLAGS = {table!r}",
        "for flag, name, kind in FLAGS:",
        "    value = INPUT.get(name)",
        "    if value is None or value is False or value == '':",
        "        continue",
        "    if kind == 'boolean':",
        "        argv.append(flag)",
        "    elif kind == 'array':",
        "        for item in value if isinstance(value, list) else [value]:",
        "            argv += [flag, str(item)]",
        "    else:",
        "        text = value if isinstance(value, str) else json.dumps(value)",
        *(
            ["        argv += [flag + text] if flag.endswith('=') else [flag, text]"]
            if any(f.flag.endswith("=") for f in flags if f.name)
            else ["        argv += [flag, text]"]
        ),
        "env = dict(os.environ)",
        *(
            [
                "# npx fetches a package it lacks: never wait on its prompt or on retries",
                "env.setdefault('npm_config_yes', 'true')",
                "env.setdefault('npm_config_fetch_retries', '1')",
                "env.setdefault('npm_config_fetch_retry_mintimeout', '1000')",
                "env.setdefault('npm_config_fetch_retry_maxtimeout', '3000')",
            ]
            if tool in RUNNERS
            else []
        ),
        "done = subprocess.run(",
        "    argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL",
        ")",
        "sys.stderr.write(done.stderr)",
        "if done.returncode != 0:  # one line saying why: the tool's first error lines",
        "    said = [line.strip() for line in done.stderr.splitlines() if line.strip()]",
        "    errors = [line for line in said if 'error' in line.lower() and 'log' not in line]",
        "    errors = errors[:4] or said[-1:]",
        f"    sys.exit({f'{tool} failed (exit '!r} + str(done.returncode) + '): '"
        " + ' | '.join(errors)[:400])",
        'print(json.dumps({"output": {"printed": done.stdout}}, ensure_ascii=False))',
    ]
    return "\n".join(lines) + "\n"
