"""Everything app-convert knows about a skill before proposing pipelines: the inventory.

``build_inventory(skill_dir)`` reads SKILL.md, lists the folder, finds the programs and how
SKILL.md invokes them, and collects what the skill needs from its environment.  ``to_dict()``
is deterministic (paths are relative and POSIX, unordered things are sorted) so it can be
compared with a golden file.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from skill2app.converter.errors import SkillError, Where
from skill2app.converter.inventory.invocations import (
    MAX_PACKAGES,
    Invocation,
    elsewhere,
    invocations_in,
    invocations_of,
    linked_names,
    package_names,
)
from skill2app.converter.inventory.markdown import CodeBlock, InlineCode, Section, scan_markdown
from skill2app.converter.inventory.needs import skill_needs
from skill2app.converter.inventory.programs.dispatchers import dispatch_to_modules, hand_to_main
from skill2app.converter.inventory.programs.doc_options import attach, doc_options
from skill2app.converter.inventory.programs.facts import Program, read_source
from skill2app.converter.inventory.programs.interpreter import direct_run_warning
from skill2app.converter.inventory.programs.invoked import merge_invocations
from skill2app.converter.inventory.programs.program import (
    add_own_examples,
    describe,
    documented_only,
)
from skill2app.converter.inventory.programs.roles import named_to_run, programs_and_roles
from skill2app.converter.inventory.requirements import Requirement, where_key
from skill2app.converter.inventory.shell import (
    SHELL_LANGUAGES,
    SimpleCommand,
    prose_block,
    simple_commands,
)
from skill2app.converter.inventory.siblings import (
    Outside,
    collection_bound,
    missing_modules,
    outside_files,
    read_inside,
)
from skill2app.converter.inventory.skill import SkillDoc, read_skill_md
from skill2app.converter.marker import MARKER

MAX_FILES = 5_000
MAX_DOCS = 50
SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "venv", "dist", "build", "pipelines", "site-packages"}
)
ROLES = ("skill", "program", "module", "context", "other")


@dataclass(frozen=True)
class FileEntry:
    path: str
    role: str  # one of ROLES


@dataclass
class Inventory:
    root: Path
    skill: SkillDoc
    language: str  # "en", "zh", "ja", "ko", "ru": by script, Latin-script text counts as "en"
    programs: list[Program]
    files: list[FileEntry]
    requirements: list[Requirement]
    warnings: list[str] = field(default_factory=list)
    # every Markdown file of the skill, SKILL.md first: its text, sections and code
    documents: list[Doc] = field(default_factory=list)
    # files outside the skill folder that its programs name (a sibling skill's helper)
    outside: list[Outside] = field(default_factory=list)
    # programs outside the skill folder that its documents run, as the documents show them
    elsewhere: list[Program] = field(default_factory=list)

    def program(self, path: str) -> Program | None:
        return next((p for p in self.programs if p.path == path), None)

    def to_dict(self) -> dict[str, Any]:
        fm = self.skill.frontmatter
        return {
            "skill": {
                "name": fm.name,
                "description": fm.description,
                "license": fm.license,
                "compatibility": fm.compatibility,
                "metadata": fm.metadata,
                "allowed_tools": fm.allowed_tools,
                "extra": fm.extra,
                "language": self.language,
            },
            "sections": [
                {"level": s.level, "title": s.title, "line": s.line, "end_line": s.end_line}
                for s in self.skill.sections
            ],
            "code_blocks": [
                {"language": b.language, "line": b.line, "section": b.section}
                for b in self.skill.code_blocks
            ],
            "programs": [p.to_dict() for p in self.programs],
            "files": [{"path": f.path, "role": f.role} for f in self.files],
            "requirements": [r.to_dict() for r in self.requirements],
            **(
                {"programs_elsewhere": [p.to_dict() for p in self.elsewhere]}
                if self.elsewhere
                else {}
            ),
            "warnings": list(self.warnings),
            **(
                {"outside": [{"where": o.where(), "target": o.target} for o in self.outside]}
                if self.outside
                else {}
            ),
        }


def build_inventory(
    skill_dir: Path,
    *,
    probe: bool = False,
    unsafe: bool = False,
    skip: frozenset[str] = frozenset(),
    limit: Path | None = None,
) -> Inventory:
    """Read the skill in ``skill_dir``; run programs (``--help``) only when ``probe``, in the
    sandbox (``unsafe``: without it, as the user asked).  ``skip``: folders (relative) that
    are not the skill's (the other skills of a collection whose root is a skill too);
    ``limit``: how far up files outside the skill are looked for (default: its parent)."""
    if not skill_dir.is_dir():
        raise SkillError(
            "not a folder",
            where=Where(str(skill_dir)),
            hint="pass the folder that contains SKILL.md",
        )
    skill_md = _find_skill_md(skill_dir)
    doc = read_skill_md(skill_md, display=skill_md.name)
    warnings = list(doc.warnings)
    if skill_md.name != "SKILL.md":
        warnings.append(f"the skill file is named {skill_md.name}; Agent Skills expect SKILL.md")
    paths, walk_warnings = list_files(skill_dir, skip)
    warnings.extend(walk_warnings)
    docs = [Doc(doc.path, doc.code_blocks, doc.inline_code, doc.body, doc.sections, doc.body_line)]
    docs += read_docs(skill_dir, paths, skill_md.name)
    manifests = [p for p in paths if posixpath.basename(p) == "package.json"][:MAX_PACKAGES]
    packages = {p: read_source(skill_dir / p) for p in manifests}  # the names of its programs
    invoked, commands, outside_runs = find_invocations(
        docs, [p for p in paths if p != skill_md.name], packages
    )
    warnings.extend(missing_programs(docs, commands, paths))
    programs, roles = programs_and_roles(
        skill_dir,
        paths,
        skill_md.name,
        invoked=invoked,
        named=named_to_run(docs) & set(paths),
        probing=(probe, unsafe),
    )
    sources = {p.path: read_source(skill_dir / p.path) for p in programs}
    for program in dispatch_to_modules(programs, sources):  # cli.py copy ... --from X
        merge_invocations(program)
    for program in hand_to_main(programs, sources):  # from engine import main
        merge_invocations(program)
    for program in programs:
        program.mentioned = bool(program.invocations) or any(
            posixpath.basename(program.path) in d.text for d in docs
        )
        if program.mentioned:  # named, never run: the commands its own header shows
            add_own_examples(program, sources[program.path])
    options = [
        option
        for d in docs
        for option in doc_options(d.path, d.text.split("\n"), d.first_line, d.sections)
    ]
    bound = collection_bound(skill_dir, limit)
    outside_sources = {rel: read_inside(skill_dir, rel, bound) for rel in outside_runs}
    shown_elsewhere = [
        _elsewhere(skill_dir, rel, invs, bool(outside_sources[rel]))
        for rel, invs in sorted(outside_runs.items())
    ]
    attach([*programs, *shown_elsewhere], options, sources | outside_sources)
    warnings.extend(w for p in programs if (w := direct_run_warning(skill_dir, p)))
    modules = [p for p in paths if roles.get(p) == "module"]
    runs = [*(i for p in programs for i in p.invocations), *chain(*outside_runs.values())]
    passed = {word for run in runs for word in run.argv}  # to the skill's own programs
    values = passed | {word for _doc, command, _tagged in commands for word in command.argv[1:]}
    # a block holding only words the skill's programs take (`auditItems`, an operation of
    # burp-search.sh shown alone under its heading) runs no program of that name
    run = [c for c in commands if not set(c[1].argv) <= passed]
    code = [p for p in paths if roles.get(p) in ("program", "module")]
    outside = outside_files(skill_dir, code, limit)
    elsewhere = sorted({o.target for o in outside})
    requirements = skill_needs(skill_dir, doc, run, programs, paths, modules, values, elsewhere)
    warnings += _missing_modules(skill_dir, code, limit, requirements)
    files = [FileEntry(p, roles.get(p, "other")) for p in paths]
    language = detect_language(doc)
    return Inventory(
        skill_dir, doc, language, programs, files, requirements, warnings, docs, outside,
        shown_elsewhere,
    )  # fmt: skip


def _missing_modules(
    skill_dir: Path, code: list[str], limit: Path | None, requirements: list[Requirement]
) -> list[str]:
    """A module the skill's JavaScript loads from outside it that the APP will not carry (a
    parent skill's helper): a file requirement of what loads it, and a warning."""
    said: list[str] = []
    by_target: dict[str, Requirement] = {}
    for gone, needed in missing_modules(skill_dir, code, limit):
        if gone.target in by_target:  # loaded again elsewhere: one check, every place
            by_target[gone.target].where.append(gone.where())
            by_target[gone.target].required |= needed
            continue
        by_target[gone.target] = Requirement("file", gone.target, needed, [gone.where()])
        requirements.append(by_target[gone.target])
        said.append(
            f"{gone.where()} loads {gone.target}, outside the skill, which the APP does not "
            "carry: what loads it stops at its start without it (convert the skill inside the "
            "folder that holds it, or put the file there)"
            + ("" if needed else "; it tries and copes without it")
        )
    return said


def _elsewhere(skill_dir: Path, rel: str, invocations: list[Invocation], there: bool) -> Program:
    """A program outside the skill that its documents run (``../feishu-auth/auth.js``): read
    like the skill's own when it is ``there`` (inside the folder holding the skill: its
    collection, cloned with it), never run; else what the documents show of it."""
    if not there:
        return documented_only(rel, invocations)
    program = describe(skill_dir, rel, "", invocations, probe=False)
    program.location = "elsewhere"
    return program


def _find_skill_md(skill_dir: Path) -> Path:
    exact = skill_dir / "SKILL.md"
    if exact.is_file():
        return exact
    if exact.exists():
        raise SkillError(
            "SKILL.md is not a file",
            where=Where(str(exact)),
            hint="SKILL.md must be the skill's Markdown file: move that folder aside",
        )
    others = sorted(p for p in skill_dir.iterdir() if p.name.lower() == "skill.md" and p.is_file())
    if others:
        return others[0]
    raise SkillError(
        "no SKILL.md in this folder",
        where=Where(str(skill_dir)),
        hint="point app-convert at the skill folder (the one with SKILL.md)",
    )


def list_files(skill_dir: Path, skip: frozenset[str] = frozenset()) -> tuple[list[str], list[str]]:
    """Relative POSIX paths of the regular files, sorted; hidden, vendored and generated
    folders, symbolic links and the folders in ``skip`` (relative) are left out."""
    found: list[str] = []
    warnings: list[str] = []
    real = skill_dir.resolve()
    for root, dirs, names in os.walk(skill_dir, followlinks=False):
        warnings += _links_out(Path(root), [*dirs, *names], skill_dir, real)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIP_DIRS
            and not (Path(root) / d).is_symlink()
            and (Path(root) / d).relative_to(skill_dir).as_posix() not in skip
        )
        for name in sorted(names):
            full = Path(root) / name
            if name.startswith(".") or full.is_symlink() or not full.is_file():
                continue
            found.append(full.relative_to(skill_dir).as_posix())
            if len(found) >= MAX_FILES:
                warnings.append(f"more than {MAX_FILES} files; the rest were not read")
                return sorted(found), warnings
    return sorted(found), warnings


def _links_out(folder: Path, names: list[str], skill_dir: Path, real: Path) -> list[str]:
    """A warning for each symbolic link here that leads out of the skill: never read, never
    run, never copied (``tools`` -> /usr/bin would offer the system's programs)."""
    found = []
    for name in sorted(names):
        path = folder / name
        if not path.is_symlink():
            continue
        try:
            inside = path.resolve().is_relative_to(real)
        except (OSError, RuntimeError):
            inside = False
        if not inside:
            rel = path.relative_to(skill_dir).as_posix()
            found.append(
                f"{rel} is a link to {os.readlink(path)}, outside the skill: not read, run or "
                "copied"
            )
    return found


@dataclass(frozen=True)
class Doc:
    """A Markdown file of the skill, as far as invocations are concerned."""

    path: str
    code_blocks: list[CodeBlock]
    inline_code: list[InlineCode]
    text: str = ""
    sections: list[Section] = field(default_factory=list)
    first_line: int = 1  # the file line of the first line of ``text``


def read_docs(skill_dir: Path, paths: list[str], skill_md: str) -> list[Doc]:
    """The skill's other Markdown files (FORMS.md, references/*.md): real skills often show
    how to run their programs there rather than in SKILL.md.  The README an earlier
    conversion generated is not the skill's (it names the generated steps)."""
    docs = []
    for rel in [p for p in paths if p.lower().endswith(".md") and p != skill_md][:MAX_DOCS]:
        text = read_source(skill_dir / rel)
        lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
        if MARKER in lines[0]:
            continue
        sections, blocks, inline = scan_markdown(lines, 1, [], rel)
        docs.append(Doc(rel, blocks, inline, "\n".join(lines), sections))
    return docs


def find_invocations(
    docs: list[Doc], files: list[str], packages: dict[str, str] | None = None
) -> tuple[
    dict[str, list[Invocation]],
    list[tuple[str, SimpleCommand, bool]],
    dict[str, list[Invocation]],
]:
    """Program path → its invocations; the other shell commands (with their file and
    whether their block is tagged as shell: an untagged block may be pseudo-code); and the
    programs outside the skill folder that those commands, or inline code, run (``node
    ../feishu-auth/auth.js ...``) → their invocations."""
    by_program: dict[str, list[Invocation]] = {}
    others: list[tuple[str, SimpleCommand, bool]] = []
    outside: dict[str, list[Invocation]] = {}

    def run_elsewhere(doc: Doc, commands: list[SimpleCommand], source: str = "block") -> None:
        for command in commands:
            if (inv := elsewhere(command, doc.path, source)) is not None:
                outside.setdefault(inv.program, []).append(inv)

    paths: dict[str, dict[str, str]] = {}  # per document: NAME → the path it is set to
    blocks = [  # each shell block read once: for the names it links programs under, then runs
        (
            doc,
            block,
            simple_commands(
                block.text, block.line + 1, block.language, paths.setdefault(doc.path, {})
            ),
        )
        for doc in docs
        for block in doc.code_blocks
        if block.language in SHELL_LANGUAGES and (block.language or not prose_block(block.text))
    ]
    linked = linked_names([c for _d, _b, commands in blocks for c in commands], files)
    linked = {**package_names(packages or {}, files), **linked}  # `scripts/gdrive`: cli.ts
    for doc, block, commands in blocks:
        found, rest = invocations_of(commands, files, doc=doc.path, linked=linked)
        others.extend((doc.path, command, bool(block.language)) for command in rest)
        run_elsewhere(doc, rest)
        for inv in found:
            by_program.setdefault(inv.program, []).append(inv)
    for doc in docs:
        for span in doc.inline_code:
            if " " not in span.text.strip():
                continue
            found, rest = invocations_in(
                span.text, span.line, "", files, "inline", doc.path, linked
            )
            run_elsewhere(doc, rest, "inline")  # "先执行 `node ../x/search-user.js --query 姓名`"
            for inv in found:
                by_program.setdefault(inv.program, []).append(inv)
    return by_program, others, outside


_INTERPRETER = re.compile(r"^(?:python[\d.]*|node|bash|sh|zsh|ruby|perl|deno|bun|tsx|ts-node)$")
_SCRIPT_PATH = re.compile(r"^(?:\./)?[\w.-]+(?:/[\w.-]+)*\.(?:py|sh|bash|js|mjs|ts|rb|pl)$")


def missing_programs(
    docs: list[Doc], commands: list[tuple[str, SimpleCommand, bool]], paths: list[str]
) -> list[str]:
    """Scripts the documentation runs or names that are not in the skill: what it describes
    there cannot become a pipeline (and the author may have forgotten to ship them)."""
    present = set(paths)
    seen: dict[str, str] = {}  # path -> where it is first named (commands, then inline code)
    for file, command, _tagged in commands:
        argv = command.argv
        for position, word in enumerate(argv[:3]):
            run_by_interpreter = position == 1 and _INTERPRETER.match(argv[0]) is not None
            named = "/" in word or run_by_interpreter
            if _SCRIPT_PATH.match(word) and named:
                where = f"{file}:{command.line}"
                seen.setdefault(posixpath.normpath(posixpath.join(command.cwd, word)), where)
    for doc in docs:
        for span in doc.inline_code:  # `scripts/url.py`, `python scripts/x.py <in.pdf>`
            for word in span.text.split()[:3]:
                if _SCRIPT_PATH.match(word) and "/" in word.removeprefix("./"):
                    seen.setdefault(posixpath.normpath(word), f"{doc.path}:{span.line}")
    return [
        f"{where} names {path}, which is not in the skill: that part stays in Skill mode"
        for path, where in sorted(seen.items(), key=lambda item: where_key(item[1]))
        if path not in present and not path.startswith("..")
    ]


def detect_language(doc: SkillDoc) -> str:
    """The skill's language by script, from its description and section titles: the script
    with the most words wins (a CJK word is taken as about two characters)."""
    text = doc.frontmatter.description + " " + " ".join(s.title for s in doc.sections)
    kana = len(re.findall(r"[\u3040-\u30ff]", text))
    words = {
        "en": len(re.findall(r"[A-Za-z]+", text)),
        "zh": len(re.findall(r"[\u4e00-\u9fff]", text)) / 2,
        "ko": len(re.findall(r"[\uac00-\ud7af]", text)) / 2,
        "ru": len(re.findall(r"[\u0400-\u04ff]+", text)),
    }
    if kana:
        words["ja"] = words.pop("zh") + kana / 2
    return max(sorted(words), key=lambda k: (words[k], k == "en"))
