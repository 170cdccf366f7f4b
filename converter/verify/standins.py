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
import os
import re
import shlex
import shutil
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.runtime.app.secrets import MASK, Scrubber, is_secret_name
from skill2app.runtime.records.display import terminal_safe

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
MAX_STANDINS = 12  # per smoke run: more missing programs than this is no glue worth tracing
MAX_CALLS = 20  # recorded per step
STDIN_KEPT = 400  # characters of what a stand-in read on stdin
# Shells and the interpreters app-convert itself needs are never stood in (nor sudo).
NEVER = frozenset("sh bash zsh dash env python python3 node nodejs sudo su".split())
RECORDER = Path(__file__).with_name("recorder.py")


@dataclass(frozen=True)
class Call:
    """One command line a step ran through a stand-in."""

    program: str
    argv: tuple[str, ...]
    cwd: str = ""  # relative to the APP when inside it
    stdin: str = ""

    def line(self) -> str:
        """The command line as a shell would take it, with what a terminal would act on
        (an escape sequence, a newline forging a line) written out: shown, never obeyed."""
        return terminal_safe(shlex.join([self.program, *self.argv]))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"program": self.program, "argv": list(self.argv)}
        if self.cwd:
            data["cwd"] = self.cwd
        if self.stdin:
            data["stdin"] = self.stdin
        return data


@dataclass
class StandIns:
    """The stand-ins of one smoke run.

    Their scripts live in ``folder``, which only app-convert writes: the sandbox gets it
    read-only (``Sandbox.readable``), so no program can plant a link there for app-convert to
    write through.  What they record goes to ``log``, in the sandbox's writable folder, and is
    read as untrusted: a regular file only (never a link, a pipe or a device), at most
    ``MAX_LOG`` bytes a step, one JSON object a line, each field checked."""

    folder: Path  # app-convert's own; read-only in the sandbox
    log: Path  # in the sandbox's writable folder
    names: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._recorder = self.folder / ".recorder.py"
        shutil.copyfile(RECORDER, self._recorder)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.log.touch()

    def add(self, name: str) -> bool:
        """Make a stand-in for ``name``; False when it may not have one (or has one)."""
        if not NAME.match(name) or name.lower() in NEVER or name in self.names:
            return False
        if len(self.names) >= MAX_STANDINS:
            return False
        python = shlex.quote(sys.executable)
        script = (
            f"#!/bin/sh\nexec {python} -S {shlex.quote(str(self._recorder))} "
            f'{shlex.quote(name)} {shlex.quote(str(self.log))} {STDIN_KEPT} "$@"\n'
        )
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.folder / name, flags, 0o755)
        except OSError:  # there already (it cannot be: the folder is ours), or unwritable
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(script)
        self.names.append(name)
        return True

    def path(self, current: str) -> str:
        """``current`` PATH with the stand-ins last: a program installed here always wins."""
        return f"{current}:{self.folder}" if current else str(self.folder)

    def mark(self) -> int:
        try:
            info = os.stat(self.log, follow_symlinks=False)
        except OSError:
            return 0
        return info.st_size if stat.S_ISREG(info.st_mode) else 0

    def calls_since(self, mark: int, app_root: Path, scrubber: Scrubber) -> list[Call]:
        """The calls recorded after ``mark``, their secrets blanked (none when the log is
        not a regular file any more)."""
        calls = []
        for line in _read_log(self.log, mark).splitlines()[:MAX_CALLS]:
            try:
                data = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if not isinstance(data, dict) or not isinstance(data.get("argv"), list):
                continue
            if data.get("program") not in self.names:  # a line no stand-in of ours wrote
                continue
            argv = [scrubber.text(str(a))[:MAX_WORD] for a in data["argv"][:MAX_WORDS]]
            calls.append(
                Call(
                    str(data.get("program", ""))[:64],
                    tuple(_mask_after_secret_flags(argv)),
                    _relative(str(data.get("cwd", ""))[:4096], app_root),
                    scrubber.text(str(data.get("stdin", ""))[:STDIN_KEPT]),
                )
            )
        return calls


MAX_LOG = 1_000_000  # bytes of the call log read per step
MAX_WORDS = 200  # arguments kept per call
MAX_WORD = 2_000  # characters kept per argument


def _read_log(log: Path, mark: int) -> str:
    """What the log holds after ``mark``, at most MAX_LOG bytes; "" unless it is a regular
    file (opened without following a link, without waiting on a pipe)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(log, flags)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        os.lseek(fd, mark, os.SEEK_SET)
        return os.read(fd, MAX_LOG).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _mask_after_secret_flags(argv: list[str]) -> list[str]:
    """Secrets in a command line blanked, whatever their names' spelling: ``--token X``,
    ``--api-key=X``, ``token=X``, a header's value (``-H "Authorization: token X"``,
    ``-H "X-Api-Key: X"``), ``-u user:password`` and ``?access_token=X`` in an address."""
    masked: list[str] = []
    hide_next = ""
    for arg in argv:
        if hide_next and not arg.startswith("-"):
            masked.append(f"{arg.split(':', 1)[0]}:{MASK}" if hide_next == "user" else MASK)
            hide_next = ""
            continue
        hide_next = ""
        flag, eq, _value = arg.partition("=")
        if arg.startswith("-") and is_secret_name(flag.lstrip("-")):
            masked.append(f"{flag}={MASK}" if eq else arg)
            hide_next = "" if eq else "value"
            continue
        if arg in ("-u", "--user"):  # curl's user:password
            masked.append(arg)
            hide_next = "user"
            continue
        masked.append(_masked_word(arg))
    return masked


_HEADER = re.compile(r"^\s*([A-Za-z][\w-]*)\s*:\s*(.+)$")
_QUERY = re.compile(r"([?&])([\w.-]+)=([^&#\s]*)")


def _masked_word(word: str) -> str:
    """One word: a ``key=value`` or a header with a secret name, and secret query parameters."""
    header = _HEADER.match(word)
    if header and (is_secret_name(header.group(1)) or header.group(1).lower() == "authorization"):
        return f"{header.group(1)}: {MASK}"
    key, eq, _value = word.partition("=")
    if eq and re.fullmatch(r"[A-Za-z_][\w-]*", key) and is_secret_name(key):
        return f"{key}={MASK}"
    return _QUERY.sub(
        lambda m: f"{m.group(1)}{m.group(2)}={MASK if is_secret_name(m.group(2)) else m.group(3)}",
        word,
    )


def _relative(cwd: str, app_root: Path) -> str:
    try:
        return Path(cwd).resolve().relative_to(app_root.resolve()).as_posix() or "."
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a link loop (Python 3.11)
        return cwd


# -- what is wrong with a recorded command line ------------------------------------------------


def shown_options(lines: Iterable[str], program: str) -> tuple[set[str], bool]:
    """(the options the documents show ``program`` with, whether they put an option after
    ``--``), from the command lines in ``lines`` that run it, and the options a line or code
    span shows on their own (a table of flags: "| `-o FILE` | write to FILE |")."""
    options: set[str] = set()
    after_dashes = False
    for line in lines:
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        if words and _is_option(words[0]):  # `-o FILE`, `-U`/`--in-place`
            options |= {_option(w) for w in re.split(r"[\s,/|]+", line) if _is_option(w)}
            continue
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
        if call.cwd.startswith("pipelines/") and not _only_absolute_paths(call):
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


def _only_absolute_paths(call: Call) -> bool:
    """Whether the paths ``call`` passes are all absolute (and it passes one): where it runs
    then decides nothing it reads or writes by them."""
    paths = [
        w
        for w in call.argv[1:]
        if not _is_option(w) and ("/" in w or re.search(r"\w\.\w{1,5}$", w) or w in (".", ".."))
    ]
    return bool(paths) and all(w.startswith("/") for w in paths)


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
