"""Tasks SKILL.md shows as one command of a tool, made pipelines by the heuristic analyzer.

A skill often gives a task as a tool's command line rather than a script of its own (pptx:
"# Text extraction" over ``python -m markitdown presentation.pptx``; pdf: "# Rotate pages"
over ``qpdf input.pdf output.pdf --rotate=+90:1``).  A shell line of a SKILL.md block becomes a
pipeline of one written step when:

- it is one simple command (no pipe, redirection, variable, glob or chaining) of a tool: a
  program on PATH or ``python -m <module>``, neither one of the skill's own programs (those
  are pipelines of their own), an interpreter running a script, nor a shell or setup command;
- it reads at least one file named by a literal (``presentation.pptx``) that no earlier line
  of its section made or named (``pdftoppm document.pdf`` after the line converting
  ``document.docx`` is the second half of a chain, not a task);
- it says a task: the comment right above it ("# Extract text"), or else the title of its
  section when that block holds only this command, said as a request (``triggers.as_task``);
- no pipeline does that task already: not its name, nor its verb (pdf's qpdf "Merge PDFs"
  when the pypdf snippet is a pipeline already; its "Extract text preserving layout" after
  "Extract text").

Its file literals become inputs (a file it writes, after ``-o``/``--output`` or named like
``output.txt``, an optional ``output_path`` defaulting to the literal), the rest of the line
stays as written, and the step runs the tool in the folder app-run was started from, its
printed text and the files it wrote becoming the step's output.  A tool missing here fails
the step with one line naming it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skill2app.converter.analyzers.snippets import (
    KIND,
    PATH,
    SECRET,
    answering,
    file_input,
    file_sample,
    reading,
    situations,
)
from skill2app.converter.analyzers.text import (
    free_name,
    has_cjk,
    slug,
    snake,
    step_name,
    unique,
)
from skill2app.converter.analyzers.triggers import as_task
from skill2app.converter.plan.model import CodeStep, Pipeline, Sample, Written

if TYPE_CHECKING:
    from skill2app.converter.inventory.markdown import CodeBlock
    from skill2app.converter.inventory.model import Inventory

SHELLS = frozenset({"bash", "sh", "shell", "console", "zsh", "terminal"})
# Interpreters (they run a script: the skill's programs are pipelines of their own), shell
# built-ins and commands that set up, move or show files rather than do a task.
NOT_TOOLS = frozenset(
    {"python", "python3", "py", "node", "deno", "bun", "bash", "sh", "zsh", "ruby", "perl",
     "npx", "uv", "uvx", "pipx", "pip", "pip3", "npm", "pnpm", "yarn", "apt", "apt-get", "brew",
     "sudo", "cd", "ls", "cat", "echo", "cp", "mv", "rm", "mkdir", "touch", "chmod", "chown",
     "export", "source", "set", "unset", "kill", "open", "xdg-open", "which", "env", "head",
     "tail", "grep", "sed", "awk", "find", "xargs", "less", "more", "tar", "unzip", "zip",
     "git", "curl", "wget", "docker", "make", "code", "launchctl", "ln", "pwd", "test",
     "true", "false", "exit", "wc", "sort", "diff", "tree", "du", "df", "ps", "sleep"}
)  # fmt: skip
_SHELL_SYNTAX = re.compile(r"[|;&<>$`*?(){}\\]")
_TOOL = re.compile(r"^[a-z][a-z0-9_.+-]*$")
_OUTPUT_FLAGS = frozenset({"-o", "--output", "--out", "--outfile", "--output-file"})
_INPUT_FLAGS = frozenset({"-i", "--input", "--in", "--infile", "--input-file"})
_WRITING_FLAG = re.compile(
    r"^(?!--?no-)--?(?:[\w-]*[_-])?(?:download|save|output|out|dest|export|write)"
    r"(?:[_-]?(?:to|as|file|filename|name|path|dir|directory|folder|ination))?$",
    re.I,
)  # --download sunset.mp4, --save-to x, --output-file x; not --no-save, --download-archive
_OUTPUT_NAME = re.compile(
    r"^(?:out|output|result|merged|combined|decrypted|encrypted|rotated|converted|compressed|"
    r"new|final|cleaned|fixed)\b",
    re.I,
)


@dataclass
class Literal:
    """A file named on the command line, and the input it becomes."""

    at: int  # its index among the command's words
    value: str
    name: str
    writes: bool


@dataclass
class Command:
    block: CodeBlock
    line: int  # of SKILL.md
    title: str  # the task, as a request
    words: list[str]  # the command line, split as a shell would
    tool: str  # the program, or the module run with ``python -m``
    module: bool  # run as ``python -m <tool>``
    files: list[Literal]


def command_pipelines(
    inventory: Inventory, taken: set[str], tools: frozenset[str] = frozenset()
) -> list[Pipeline]:
    """One pipeline per task SKILL.md shows as a single tool command (see the module text),
    none of ``tools`` (a tool whose subcommands are pipelines already)."""
    doc = inventory.skill
    own = {p.path.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p in inventory.programs}
    verbs = {name.split("-")[0] for name in taken}
    found: list[Pipeline] = []
    seen: dict[int, set[str]] = {}  # per section: the files its earlier lines made or named
    for block in doc.code_blocks:
        if block.language not in SHELLS or block.section < 0:
            continue
        title = doc.sections[block.section].title
        for command in _commands(block, title, own, seen.setdefault(block.section, set())):
            if command.tool in tools:
                continue
            name = slug(command.title, 5)
            verb = name.split("-")[0]
            if not name or name in taken or verb in verbs:
                continue
            taken.add(name)
            verbs.add(verb)
            found.append(_pipeline(inventory, command, name))
    return found


def _commands(block: CodeBlock, section_title: str, own: set[str], seen: set[str]) -> list[Command]:
    """The tool commands of ``block`` that say a task (``seen``: the file names, without
    extension, that earlier lines of its section made or named; this block's are added)."""
    lines = block.text.splitlines()
    shown = [i for i, raw in enumerate(lines) if raw.strip() and not raw.lstrip().startswith("#")]
    found = []
    for index, raw in enumerate(lines):
        text = raw.strip().removeprefix("$ ").strip()
        if not text or text.startswith("#"):
            continue
        words = _words(text)
        stems = {_stem(w) for w in words if PATH.match(w)}
        command = _command(words, own) if words and not SECRET.search(text) else None
        earlier = stems & seen
        seen |= stems
        if command is None or earlier or raw.rstrip().endswith("\\"):
            continue
        tool, module = command
        files = _literals(words)
        if not any(not f.writes for f in files):
            continue  # it reads no file the user names: nothing to run it on
        comment = lines[index - 1].strip() if index else ""
        said = as_task(comment.lstrip("#").strip()) if comment.startswith("#") else ""
        if not said and shown == [index]:  # the block's one command: its section says it
            said = as_task(section_title)
        if said:
            line = block.line + 1 + index
            found.append(Command(block, line, said, words, tool, module, files))
    return found


def _words(text: str) -> list[str]:
    code = text.split(" #", 1)[0]  # "pdftotext -f 1 -l 5 in.pdf out.txt  # Pages 1-5"
    if _SHELL_SYNTAX.search(code):
        return []
    try:
        return shlex.split(code)
    except ValueError:
        return []


def _command(words: list[str], own: set[str]) -> tuple[str, bool] | None:
    """(tool, run as a module) of a tool's command line, or None."""
    first = words[0]
    if first in ("python", "python3") and len(words) > 2 and words[1] == "-m":
        module = words[2]
        return (module, True) if re.fullmatch(r"[a-z_][\w.]*", module) else None
    if not _TOOL.match(first) or first in NOT_TOOLS or first in own or "." in first:
        return None
    return first, False


def _literals(words: list[str]) -> list[Literal]:
    files: list[Literal] = []
    names: list[str] = []
    paths = [i for i, w in enumerate(words) if PATH.match(w) and not w.startswith("-")]
    flagged = [at for at in paths if at > 0 and words[at - 1] in _INPUT_FLAGS]
    for at in paths:
        value = words[at]
        before = words[at - 1] if at > 0 else ""
        after_flag = before in _OUTPUT_FLAGS or bool(_WRITING_FLAG.search(before))
        last = at == paths[-1] and len(paths) > 1
        named = bool(_OUTPUT_NAME.match(_stem(value).rsplit("/")[-1]))
        # `ffmpeg -i in.mp4 -frames:v 1 thumb.jpg`: after the inputs given by -i, the output
        # (not the value of another option: `tablix -i data.csv --config rules.json`)
        trailing = bool(flagged) and at not in flagged and not before.startswith("--")
        writes = after_flag or (last and (named or trailing))
        name = free_name("output_path", set(names)) if writes else _input_name(value, names)
        names.append(name)
        files.append(Literal(at, value, name, writes))
    return files


def _input_name(value: str, taken: list[str]) -> str:
    suffix = value.rsplit(".", 1)[1].lower()
    name = f"{KIND.get(suffix, suffix)}_file"
    if name in taken:  # two files of one kind: named by their example names
        name = snake(_stem(value).rsplit("/", 1)[-1] + "_file", 4)
    return name if name and name not in taken else f"file_{len(taken) + 1}"


def _stem(value: str) -> str:
    return value.rsplit(".", 1)[0]


def program_source(command: Command) -> str:
    """The written step: the command as written, on the inputs, in the caller's folder."""
    by_word = {f.at: f for f in command.files}
    argv = [f.name if (f := by_word.get(i)) else repr(w) for i, w in enumerate(command.words)]
    if command.module:
        argv[:3] = ["sys.executable", "'-m'", repr(command.tool)]
        present = f"importlib.util.find_spec({command.tool.split('.')[0]!r}) is not None"
        lack = f"the Python package {command.tool.split('.')[0]}"
    else:
        present = f"shutil.which({command.tool!r}) is not None"
        lack = f"the program {command.tool} on PATH"
    lines = [
        "import importlib.util",
        "import json",
        "import os",
        "import shutil",
        "import subprocess",
        "import sys",
        "",
        *reading(command.files),
        f"if not {present}:",
        f"    sys.exit({f'{snake(command.title, 4)} needs {lack}'!r})",
        f"done = subprocess.run([{', '.join(argv)}], capture_output=True, text=True)",
        "sys.stderr.write(done.stderr)",
        "if done.returncode != 0:",
        "    sys.exit(done.returncode)",
        *answering(command.files, "done.stdout"),
    ]
    return "\n".join(lines) + "\n"


def _pipeline(inventory: Inventory, command: Command, name: str) -> Pipeline:
    title = command.title[:1].upper() + command.title[1:]
    # "Extract the audio with ffmpeg"; "MP3で抽出（ffmpeg）", not "MP3で抽出 with ffmpeg"
    description = f"{title}（{command.tool}）" if has_cjk(title) else f"{title} with {command.tool}"
    step = CodeStep(
        step_name(snake(name, 4) or "run"),
        "",
        write=Written("python", program_source(command)),
        output={"printed": "string", "written": "array"},
    )
    return Pipeline(
        name=name,
        description=description,
        triggers=_triggers(inventory, command),
        input=[file_input(item) for item in command.files],
        steps=[step],
        source=f"{inventory.skill.path}:{command.line}",
        sample=Sample(input={f.name: file_sample(f) for f in command.files if not f.writes}),
    )


def _triggers(inventory: Inventory, command: Command) -> list[str]:
    """The task as people say it, with the file the example names, and the description's
    "use when" situations about the same thing."""
    shown = next(f.value for f in command.files if not f.writes)
    phrases = [command.title, f"{command.title} {shown}", *situations(inventory, command.title)]
    return unique(phrases, limit=8)
