"""Write a rendered APP: in place (``pipelines/`` next to SKILL.md) or into a copy (``--out``).

The rules, checked before anything is written:

- Only ``pipelines/`` and one generated README (``README.md``, or ``APP.md`` when the skill
  has a README of its own) are written; SKILL.md and every other file of the skill are never
  opened for writing.  A README is "ours" when its first line carries ``marker.MARKER``.
- An existing ``pipelines/``, a generated README or a non-empty ``--out`` folder is replaced
  only with ``force`` (``ExistsError`` otherwise); a README of the skill that is not ours
  never is (a README of the ``--out`` folder is backed up, then replaced, and said).  A
  README of the skill that is a named pipe or a device is refused (``SkillError``).
- With ``force``, a folder of ``pipelines/`` that app-convert generated (its pipeline.yaml
  carries the marker) is replaced or, when no longer planned, removed (so is an empty one);
  anything else there (a pipeline written by hand or with app-new) is kept as it is, unless
  a generated pipeline takes its name (``survey.py``).  What is removed that an earlier
  conversion did not generate, and every file overwritten with other content (an adapter
  edited by hand, a skill file edited in the ``--out`` copy, the README), is copied to
  ``.app-convert-backup/<time>/`` first, never lost.  ``WriteResult`` lists what was
  overwritten (existing files whose content changed), removed, kept and backed up,
  relative to the output folder.
- ``--out`` copies the skill tree first (byte for byte, modes kept; VCS folders, caches,
  an old ``pipelines/``, named pipes and devices left out; a link inside the skill as a
  relative link to the same file, so the copy never links back to the skill), then adds the
  generated files.
- ``pipelines/`` is built in a hidden staging folder beside it and swapped in with renames,
  so an interrupted run leaves the old one or the new one, not a mix; other files are
  written to a temporary file and ``os.replace``d.
- ``--plan-only --out PATH`` writes the plan the same way; a PATH that is a folder, under a
  file, or somewhere nothing can be created is a ``WriteError`` that says so.
"""

from __future__ import annotations

import filecmp
import os
import posixpath
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from skill2app.converter.errors import (
    ExistsError,
    RenderError,
    SkillError,
    UsageError,
    Where,
    WriteError,
)
from skill2app.converter.render.render import README_NAMES, RenderedFile
from skill2app.converter.render.survey import (
    BACKUP,
    PIPELINES,
    back_up,
    differs,
    is_generated,
    survey_pipelines,
)
from skill2app.runtime.app.regular import kind_of

COPY_SKIP = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache",
     ".ruff_cache", ".DS_Store", BACKUP}
)  # fmt: skip


@dataclass
class WriteResult:
    root: Path
    written: list[str] = field(default_factory=list)  # generated files, relative to root
    copied: list[str] = field(default_factory=list)  # skill files copied into --out
    warnings: list[str] = field(default_factory=list)
    overwritten: list[str] = field(default_factory=list)  # existing files whose content changed
    removed: list[str] = field(default_factory=list)  # files, or "pipelines/x/" folders, deleted
    kept: list[str] = field(default_factory=list)  # entries of pipelines/ not generated: kept
    backup: str = ""  # the folder (relative to root) holding what was overwritten or removed
    backed_up: list[str] = field(default_factory=list)  # those files, relative to root


def choose_readme(skill_dir: Path) -> tuple[str, str]:
    """(name of the README to generate or "", a warning): README.md unless the skill has its
    own, then APP.md; none when both names are taken by the skill's own files.  A README that
    is a named pipe or a device (a link to ``/dev/zero``) is refused (``SkillError``), never
    read."""
    for name in README_NAMES:
        path = skill_dir / name
        _check_regular(path)
        if not path.exists() or is_generated(path):
            return name, ""
    taken = " and ".join(README_NAMES)
    return "", f"the skill has its own {taken}: no README was generated"


def _check_regular(path: Path) -> None:
    """Refuse a file of the skill that is there but is no regular file (nor a folder)."""
    try:
        mode = path.stat().st_mode  # its links followed
    except (OSError, ValueError):
        return  # not there (or a link to nothing): nothing is read
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise SkillError(
            f"{path.name} is {kind_of(mode)}, not a file: not read",
            where=Where(str(path)),
            hint=f"remove it, or make {path.name} a Markdown file",
        )


def write_app(
    skill_dir: Path,
    files: list[RenderedFile],
    *,
    out: Path | None,
    force: bool,
    skip: frozenset[str] = frozenset(),
) -> WriteResult:
    """Write ``files`` into ``out`` (a copy of the skill without the folders in ``skip``:
    the other skills of a collection) or into ``skill_dir`` itself."""
    target = out if out is not None else skill_dir
    _check_paths(files)
    _check_target(skill_dir, out, files, force)
    result = WriteResult(target)
    generated = [f for f in files if f.path.startswith(PIPELINES + "/")]
    others = [f for f in files if f not in generated]
    try:
        survey = survey_pipelines(target, generated)
        result.overwritten, result.removed, result.kept = (
            list(survey.overwritten),
            survey.removed,
            survey.kept,
        )
        result.warnings += survey.warnings
        tree = skill_tree(skill_dir, skip) if out is not None else SkillTree()
        if out is not None:
            result.copied = tree.files
            result.overwritten += [
                r for r in tree.files if not _same(skill_dir / r, out / r, tree.relinked.get(r))
            ]
            if tree.left_out:
                result.warnings.append(f"not copied from the skill: {', '.join(tree.left_out)}")
            if tree.special:
                result.warnings.append(
                    f"not copied: files that are not regular files: {', '.join(tree.special)}"
                )
            if tree.links_out:
                result.warnings.append(
                    "not copied: links that lead out of the skill (a converted APP must not "
                    f"reach outside itself): {', '.join(tree.links_out)}"
                )
        replaced = [f.path for f in others if differs(target / f.path, f.content)]
        result.overwritten += replaced
        theirs = [r for r in replaced if not is_generated(target / r, lines=12)]  # --out's
        result.backed_up = sorted({*survey.backup, *result.overwritten})
        result.backup = back_up(target, result.backed_up)  # before anything is replaced
        result.warnings += [
            f"{r} in the output folder was not written by app-convert: replaced by the "
            f"generated one (yours is in {result.backup}{r})"
            for r in theirs
        ]
        if out is not None:
            copy_skill(skill_dir, out, tree)
        _swap_in_pipelines(target, generated, survey.keep)
        for item in others:
            atomic_write(target / item.path, item.content, executable=item.executable)
    except OSError as exc:
        raise WriteError(
            f"cannot write the APP: {exc.strerror or exc}",
            where=Where(str(exc.filename or target)),
            hint="check the folder's permissions and free space, then run again",
        ) from exc
    result.written = sorted(f.path for f in files)
    result.overwritten.sort()
    return result


def _check_paths(files: list[RenderedFile]) -> None:
    for item in files:
        parts = Path(item.path).parts
        inside = parts[:1] == (PIPELINES,) and len(parts) > 2 and ".." not in parts
        if not inside and item.path not in (*README_NAMES, "SKILL.md"):
            raise RenderError(
                f"refusing to write {item.path!r}: app-convert writes only pipelines/ and "
                "its README",
                hint="report this bug",
            )


def check_destination(skill_dir: Path, out: Path | None, *, force: bool) -> None:
    """Raise what writing an APP there would raise, before an analysis that takes long."""
    _check_target(skill_dir, out, [], force)


def _check_out_path(out: Path) -> None:
    """Refuse an ``--out`` no folder can be made at: a link to nothing or a link loop, or a
    place under a file (an attack run: a session then ended "accepted" with nothing
    written, or app-convert stopped with an internal error)."""
    hint = "pass a new or empty folder, e.g. --out ../NAME-app"
    try:
        dest = out.resolve(strict=False)
    except (OSError, RuntimeError):
        raise UsageError("--out is a link loop", where=Where(str(out)), hint=hint) from None
    if out.is_symlink() and not out.exists():
        raise UsageError(f"--out is a link to nothing ({dest})", where=Where(str(out)), hint=hint)
    above = next((p for p in dest.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise UsageError(f"--out lies under {above}, a file", where=Where(str(out)), hint=hint)


def _check_target(
    skill_dir: Path, out: Path | None, files: list[RenderedFile], force: bool
) -> None:
    target = out if out is not None else skill_dir
    if out is not None:
        _check_out_path(out)
        skill, dest = skill_dir.resolve(), out.resolve()
        if dest == skill or dest.is_relative_to(skill) or skill.is_relative_to(dest):
            raise UsageError(
                "--out must be outside the skill folder, and must not contain it",
                where=Where(str(out)),
                hint="pick a folder elsewhere, e.g. --out ../NAME-app",
            )
        if dest.exists() and not dest.is_dir():
            raise UsageError(
                "--out is not a folder",
                where=Where(str(out)),
                hint="pass a new or empty folder, e.g. --out ../NAME-app",
            )
        if dest.is_dir() and any(dest.iterdir()) and not force:
            raise ExistsError(
                "the output folder is not empty",
                where=Where(str(out)),
                hint="pick a new folder, or pass --force to refresh the APP in it",
            )
    if (target / PIPELINES).exists() and not force:
        raise ExistsError(
            f"{'the output' if out is not None else 'the skill'} folder already has pipelines/",
            where=Where(str(target / PIPELINES)),
            hint="pass --force to replace it (SKILL.md and the programs are never touched)",
        )
    for item in files:
        path = target / item.path
        if out is not None and force:
            continue  # the --out folder's own README or SKILL.md: backed up, then replaced
        if item.path == "SKILL.md" and path.exists() and not is_generated(path, lines=12):
            raise RenderError(
                "SKILL.md belongs to the skill",
                where=Where(str(path)),
                hint="report this bug (a collection's SKILL.md is generated only when it has none)",
            )
        if item.path in README_NAMES and path.exists():
            if not is_generated(path):
                raise RenderError(
                    f"{item.path} belongs to the skill",
                    where=Where(str(path)),
                    hint="report this bug",
                )
            if not force:
                raise ExistsError(
                    f"{item.path} from an earlier conversion exists",
                    where=Where(str(path)),
                    hint="pass --force to replace it",
                )


@dataclass
class SkillTree:
    """What ``--out`` copies of a skill, as relative POSIX paths."""

    folders: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # links inside the skill, copied as links
    left_out: list[str] = field(default_factory=list)  # an old pipelines/: it is regenerated
    links_out: list[str] = field(default_factory=list)  # links leaving the skill: never copied
    relinked: dict[str, str] = field(default_factory=dict)  # link -> the relative text it gets
    special: list[str] = field(default_factory=list)  # named pipes, devices: never copied


def skill_tree(skill_dir: Path, skip: frozenset[str] = frozenset()) -> SkillTree:
    """The folders and files of the skill that ``--out`` copies: VCS folders, caches, the
    backup folder, an old pipelines/, a generated README and the folders in ``skip`` are
    left out."""
    tree = SkillTree()
    real_skill = skill_dir.resolve()
    for root, dirs, names in os.walk(skill_dir):
        here = Path(root)
        rel_dir = here.relative_to(skill_dir)
        tree.folders.append(rel_dir.as_posix())
        keep = []
        for name in sorted(dirs):
            rel = (rel_dir / name).as_posix()
            if rel == PIPELINES:
                tree.left_out.append(rel + "/")
            elif (here / name).is_symlink():
                names.append(name)
            elif name not in COPY_SKIP and rel not in skip:
                keep.append(name)
        dirs[:] = keep
        for name in sorted(names):
            rel = (rel_dir / name).as_posix()
            path = here / name
            if path.is_symlink() and not _stays_inside(path, real_skill):
                tree.links_out.append(f"{rel} -> {os.readlink(path)}")
            elif name in COPY_SKIP or (rel in README_NAMES and is_generated(path)):
                continue
            elif path.is_symlink():
                tree.files.append(rel)
                text = _inside_text(path, rel, real_skill)
                if text != os.readlink(path):
                    tree.relinked[rel] = text
            elif not stat.S_ISREG(path.lstat().st_mode):
                tree.special.append(f"{rel} ({kind_of(path.lstat().st_mode)})")
            else:
                tree.files.append(rel)
    tree.files.sort()
    return tree


def _stays_inside(link: Path, root: Path) -> bool:
    """Whether a symbolic link of the skill leads to something inside it (followed fully)."""
    try:
        return link.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a loop
        return False


def _inside_text(link: Path, rel: str, root: Path) -> str:
    """What the link ``rel`` of the skill (one that stays inside it) says in the copy: its
    own text when that is relative and names what it leads to, else the relative path from
    its folder to that (``abs.txt -> /…/skill/notes.txt`` becomes ``notes.txt``), so the copy
    never links back to the skill or out of itself."""
    text = os.readlink(link)
    target = link.resolve().relative_to(root).as_posix()
    folder = posixpath.dirname(rel) or "."
    if not os.path.isabs(text) and posixpath.normpath(posixpath.join(folder, text)) == target:
        return text
    return posixpath.relpath(target, folder)


def copy_skill(skill_dir: Path, out: Path, tree: SkillTree) -> None:
    """Copy the skill's files of ``tree`` into ``out``, byte for byte, modes kept; a link in
    ``tree.relinked`` gets its relative text there."""
    for rel in tree.folders:
        (out / rel).mkdir(parents=True, exist_ok=True)
    for rel in tree.files:
        _copy_file(skill_dir / rel, out / rel, tree.relinked.get(rel))


def _same(source: Path, dest: Path, text: str | None = None) -> bool:
    """Whether ``dest`` is missing or already a copy of ``source`` (nothing is lost); a
    link is compared by its text (``text``: the one the copy gets), a file chunk by chunk."""
    if not dest.exists() and not dest.is_symlink():
        return True
    try:
        if source.is_symlink() or dest.is_symlink():
            wanted = text if text is not None else os.readlink(source)
            return source.is_symlink() and dest.is_symlink() and os.readlink(dest) == wanted
        if not (dest.is_file() and source.is_file()):
            return False
        return filecmp.cmp(source, dest, shallow=False)  # never both whole in memory
    except OSError:
        return False


def _copy_file(source: Path, dest: Path, text: str | None = None) -> None:
    """Copy ``source`` (a link as a link, saying ``text`` when given) to ``dest``."""
    tmp = dest.with_name(f".{dest.name}.app-convert.tmp")
    try:
        if text is not None:
            tmp.unlink(missing_ok=True)
            os.symlink(text, tmp)
        else:
            shutil.copy2(source, tmp, follow_symlinks=False)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _swap_in_pipelines(target: Path, files: list[RenderedFile], keep: list[str]) -> None:
    """Build pipelines/ in a staging folder (the generated files, and a copy of the entries
    of the old one named in ``keep``), then rename it into place."""
    stage = Path(tempfile.mkdtemp(prefix=".pipelines.", suffix=".new", dir=target))
    old = target / f".{PIPELINES}.app-convert.old"
    try:
        for item in files:
            path = stage / Path(item.path).relative_to(PIPELINES)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, item.content, executable=item.executable)
        for name in keep:  # copied, not moved: a failure here leaves the old one whole
            source = target / PIPELINES / name
            if source.is_dir() and not source.is_symlink():
                shutil.copytree(source, stage / name, symlinks=True)
            else:
                shutil.copy2(source, stage / name, follow_symlinks=False)
        os.chmod(stage, 0o777 & ~_umask())
        _remove(old)
        if (target / PIPELINES).exists() or (target / PIPELINES).is_symlink():
            os.replace(target / PIPELINES, old)  # a file or link in the way too
        os.replace(stage, target / PIPELINES)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        try:
            _remove(old)
        except OSError:
            pass  # removed on the next run


def _remove(path: Path) -> None:
    """Delete ``path``, whether a folder, a file or a symbolic link (never followed)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def check_plan_file(path: Path, *, force: bool) -> None:
    """Refuse a plan file (``--plan-only --out PATH``) that cannot be used: a folder, or
    (without ``force``) an existing file.  Checked before any analysis, and again before
    writing."""
    if path.is_dir():
        raise WriteError(
            "--out names a folder, not the plan file --plan-only writes",
            where=Where(str(path)),
            hint=f"name a file, e.g. --out {path / 'plan.yaml'}",
        )
    if path.exists() and not force:
        raise ExistsError("the plan file exists", where=Where(str(path)), hint="pass --force")


def write_plan_file(path: Path, text: str) -> None:
    """Write the plan to ``path``; WriteError says why it cannot be written."""
    try:
        atomic_write(path, text)
    except OSError as exc:
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            why, hint = f"{blocker} is a file, not a folder", "pick another --out path"
        elif isinstance(exc, IsADirectoryError):
            why, hint = "it is a folder", f"name a file, e.g. --out {path / 'plan.yaml'}"
        else:
            why = f"no file can be created in {path.parent}: {exc.strerror or exc}"
            hint = "pick a folder you can write to, e.g. --out ./plan.yaml"
        raise WriteError(
            f"cannot write the plan: {why}", where=Where(str(path)), hint=hint
        ) from exc


def atomic_write(path: Path, text: str | bytes, *, executable: bool = False) -> None:
    """Write ``text`` (bytes as they are: a sample fixture) to a temporary file beside
    ``path``, then ``os.replace`` it there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, (0o777 if executable else 0o666) & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
