"""The conversion corpus: public skills named by the expectation files, fetched, not vendored.

Each file in ``expectations/<collection>/<skill>.yaml`` names its skill with ``source:
<owner>/<repo>@<commit>:<path>`` and its set with ``set: dev | test | fresh``.  The skills
themselves are never copied into this repository (their licences differ): ``extract`` writes
them from local mirrors of the repositories (bare git repositories at
``$SKILL_CORPUS_MIRRORS/<owner>+<repo>/repo``, default ``/work/.mirror``) into a temporary
folder with ``git archive``.

Only ``set:`` (and ``source:``) are read to list a set; a scorer reads the rest of an
expectation through ``Expectation.data``.  The test set is held out: tune nothing on it.

    from corpus import corpus
    with corpus(("dev",)) as skills:
        for item in skills:
            print(item.expectation.id, item.folder)
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
EXPECTATIONS = HERE / "expectations"
DEFAULT_MIRRORS = Path("/work/.mirror")
# fresh: held out for round 5; fresh2 for round 7; fresh3 for round 8; fresh4 for round 9;
# fresh5 for round 10; fresh6 for round 11; fresh7 for round 12; fresh8 for round 13;
# fresh9 for round 14; fresh10 for round 15; fresh11 for round 16; fresh12 for round 17;
# fresh13 for round 18; fresh14 for round 19; fresh15 for round 20; fresh16 for round 21;
# fresh17 for round 22; fresh18 for round 23; fresh19 for round 24; fresh20 for round 25;
# fresh21 for round 26; fresh22 for round 27; fresh23 for round 28; fresh24 for round 29;
# fresh25 for round 30; fresh26 for round 31; fresh27 for round 32; fresh28 for round 33;
# fresh29 for round 34; fresh30 for round 35; fresh31 for round 36; fresh32 for round 37;
# fresh33 for round 38; fresh34 for round 39; fresh35 for round 40; fresh36 and fresh37
# for the facts of 2026-12-03 (inventory only, no judged round); fresh38 and fresh39 for
# rounds 41 and 42; fresh40 and fresh41 for the facts and rounds of 2026-12-03's second stop;
# fresh42 and fresh43 for 2026-12-04's; fresh44 and fresh45 for its second stop
SETS = (
    "dev",
    "test",
    "fresh",
    "fresh2",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
    "fresh8",
    "fresh9",
    "fresh10",
    "fresh11",
    "fresh12",
    "fresh13",
    "fresh14",
    "fresh15",
    "fresh16",
    "fresh17",
    "fresh18",
    "fresh19",
    "fresh20",
    "fresh21",
    "fresh22",
    "fresh23",
    "fresh24",
    "fresh25",
    "fresh26",
    "fresh27",
    "fresh28",
    "fresh29",
    "fresh30",
    "fresh31",
    "fresh32",
    "fresh33",
    "fresh34",
    "fresh35",
    "fresh36",
    "fresh37",
    "fresh38",
    "fresh39",
    "fresh40",
    "fresh41",
    "fresh42",
    "fresh43",
    "fresh44",
    "fresh45",
)
_SOURCE = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+)@(?P<commit>[0-9a-f]{7,40}):(?P<path>\S+)$")
_KEY = re.compile(r"^(set|source):\s*(\S+)\s*$", re.M)


class CorpusError(Exception):
    """A skill of the corpus cannot be listed or extracted (the message says why)."""


@dataclass(frozen=True)
class Expectation:
    """One expectation file: which skill it is about and in which set."""

    file: Path
    set: str
    repo: str  # owner/name
    commit: str
    path: str  # the skill's folder inside the repository

    @property
    def collection(self) -> str:
        return self.file.parent.name

    @property
    def id(self) -> str:
        """``anthropics/pdf``: unique across collections (two skills are named skill-creator)."""
        return f"{self.collection}/{self.file.stem}"

    @cached_property
    def data(self) -> dict[str, Any]:
        """The whole expectation (a scorer's business; listing a set never reads it)."""
        loaded = yaml.safe_load(self.file.read_text(encoding="utf-8"))
        return loaded if isinstance(loaded, dict) else {}


@dataclass(frozen=True)
class Skill:
    expectation: Expectation
    folder: Path  # the extracted skill folder (holds SKILL.md)


def expectations(sets: Sequence[str] = SETS, root: Path = EXPECTATIONS) -> list[Expectation]:
    """The expectation files of ``sets``, by id; only their ``set:`` and ``source:`` keys are
    read here."""
    found = []
    for file in sorted(root.glob("*/*.yaml")):
        keys = dict(_KEY.findall(file.read_text(encoding="utf-8")))
        source = _SOURCE.match(keys.get("source", ""))
        if source is None:
            raise CorpusError(f"{file}: no `source: owner/repo@commit:path` line")
        if keys.get("set") not in SETS:
            raise CorpusError(f"{file}: `set:` must be one of {', '.join(SETS)}")
        if keys["set"] in sets:
            found.append(Expectation(file, keys["set"], **source.groupdict()))
    return sorted(found, key=lambda e: e.id)


def mirror_of(repo: str, mirrors: Path | None = None) -> Path:
    """The bare git repository mirroring ``repo`` (``owner/name``)."""
    base = mirrors or Path(os.environ.get("SKILL_CORPUS_MIRRORS") or DEFAULT_MIRRORS)
    return base / repo.replace("/", "+") / "repo"


def extract(expectation: Expectation, into: Path, mirrors: Path | None = None) -> Path:
    """Write the skill's folder at its commit under ``into/<collection>/<skill>``."""
    mirror = mirror_of(expectation.repo, mirrors)
    if not mirror.is_dir():
        raise CorpusError(
            f"{expectation.id}: no mirror of {expectation.repo} at {mirror} "
            "(set SKILL_CORPUS_MIRRORS to the folder holding <owner>+<repo>/repo)"
        )
    target = into / expectation.collection / expectation.file.stem
    stage = into / ".stage" / expectation.id
    why = _unpack(mirror, expectation.commit, expectation.path, stage)
    if why:
        raise CorpusError(f"{expectation.id}: git archive failed: {why}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)  # a --keep folder used again: never nested
    shutil.move(str(stage / expectation.path), target)
    if not (target / "SKILL.md").is_file():
        raise CorpusError(f"{expectation.id}: {expectation.path} has no SKILL.md")
    return target


def extract_with_siblings(
    expectation: Expectation, into: Path, mirrors: Path | None = None
) -> Path:
    """The folder holding the skill, at its commit, under ``into/.collections`` (once per
    repository, commit and folder), and the skill's folder inside it: the skill as a user
    who cloned its collection has it, with the sibling skills its programs run
    (``../feishu-auth/auth.js``).  A mirror that holds only the skill's folder gives that
    alone."""
    parent = posixpath.dirname(expectation.path.rstrip("/"))
    name = re.sub(r"[^\w.-]+", "+", f"{expectation.repo}@{expectation.commit[:12]}:{parent}")
    target = into / ".collections" / name
    if not target.is_dir():
        stage = into / ".stage" / name
        if _unpack(mirror_of(expectation.repo, mirrors), expectation.commit, parent, stage):
            return extract(expectation, into / ".alone", mirrors)  # a mirror of the skill only
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(stage / parent) if parent else str(stage), target)
    folder = target / posixpath.basename(expectation.path.rstrip("/"))
    if not (folder / "SKILL.md").is_file():
        raise CorpusError(f"{expectation.id}: {expectation.path} has no SKILL.md")
    return folder


def _unpack(mirror: Path, commit: str, path: str, stage: Path) -> str:
    """Write ``path`` of the repository (all of it when "") at ``commit`` under ``stage``;
    "" when done, else why ``git archive`` failed."""
    stage.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(mirror), "archive", commit, *([path] if path else [])],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        why = archive.stderr.decode("utf-8", "replace").strip().splitlines()
        return why[-1] if why else "?"
    subprocess.run(["tar", "-x", "-C", str(stage)], input=archive.stdout, check=True)
    return ""


@contextmanager
def corpus(
    sets: Sequence[str] = ("dev",),
    mirrors: Path | None = None,
    keep: Path | None = None,
    siblings: bool = False,
) -> Iterator[list[Skill]]:
    """The skills of ``sets``, extracted into a temporary folder (``keep``: into that folder
    instead, left in place) for the time of the ``with`` block; with ``siblings``, each in
    the folder holding it in its repository (``extract_with_siblings``)."""
    root = keep or Path(tempfile.mkdtemp(prefix="skill-corpus-"))
    take = extract_with_siblings if siblings else extract
    try:
        root.mkdir(parents=True, exist_ok=True)
        skills = [Skill(e, take(e, root, mirrors)) for e in expectations(sets)]
        shutil.rmtree(root / ".stage", ignore_errors=True)
        yield skills
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
