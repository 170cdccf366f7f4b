"""An APP folder, loaded: its pipeline documents and, once checked, its Pipeline models.

Discovery follows the spec: every ``pipelines/*/pipeline.yaml``; ``_constructor`` and
``_destructor`` are lifecycle pipelines, any other ``_``-prefixed folder is skipped, and the
rest are business pipelines that make up the routing table.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2app.runtime.app.document import Document, load_yaml, plain
from skill2app.runtime.errors import LoadError, UsageError, Where
from skill2app.runtime.run.inputs import declaration
from skill2app.runtime.spelling import closest, did_you_mean

CONSTRUCTOR = "_constructor"
DESTRUCTOR = "_destructor"
LIFECYCLE = (CONSTRUCTOR, DESTRUCTOR)
TIERS = ("lite", "standard", "reasoning")
DEFAULT_TIER = "standard"
DEFAULT_RETRY = 2
DEFAULT_TIMEOUT = 300.0


@dataclass(frozen=True)
class Step:
    name: str
    type: str  # "code" | "llm"
    line: int
    command: str = ""
    prompt: str = ""
    tier: str = DEFAULT_TIER
    schema: str | None = None
    validate: str | None = None
    retry: int = DEFAULT_RETRY
    timeout: float = DEFAULT_TIMEOUT
    needs: tuple[str, ...] | None = None  # earlier steps passed on stdin (None: all of them)


@dataclass(frozen=True)
class Pipeline:
    name: str
    description: str
    triggers: tuple[str, ...]
    inputs: dict[str, str]  # name -> type (``string?``: optional)
    steps: tuple[Step, ...]
    output: str  # name of the step whose output is the pipeline's output
    dir: Path
    file: Path
    # per input, what the long form adds: description, enum, default
    input_info: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def is_lifecycle(self) -> bool:
        return self.name in LIFECYCLE

    def where(self, step: Step | None = None) -> Where:
        return Where(self.file, step.line if step else 1)


@dataclass
class App:
    root: Path
    # Every pipelines/<dir>/pipeline.yaml by directory name, in order; parsed on first use.
    files: dict[str, Path] = field(default_factory=dict)
    missing: list[Path] = field(default_factory=list)  # pipeline dirs without pipeline.yaml
    _sources: dict[str, Document | LoadError] = field(default_factory=dict, repr=False)
    _models: dict[str, Pipeline] = field(default_factory=dict, repr=False)
    checked: set[str] = field(default_factory=set)  # pipelines whose run was checked (runner)
    table: list[dict[str, Any]] | None = None  # the routing table, once read (or cached)
    stamp: tuple[str | None, bool] | None = None  # its fingerprint, once taken (cache.py)

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def skill_md(self) -> Path:
        return self.root / "SKILL.md"

    @property
    def tools_dir(self) -> Path:
        return self.root / "tools"

    def source(self, name: str) -> Document | LoadError:
        if name not in self._sources:
            try:
                self._sources[name] = load_yaml(self.files[name])
            except LoadError as exc:
                self._sources[name] = exc
        return self._sources[name]

    def business_names(self) -> list[str]:
        return [n for n in self.files if not n.startswith("_")]

    def has(self, name: str) -> bool:
        return name in self.files

    def document(self, name: str) -> Document:
        if name not in self.files:
            names = self.business_names()
            guess = did_you_mean(name, names)
            raise UsageError(
                f"no pipeline named {name!r} in {self.root}",
                hint=f"{guess + ' ' if guess else ''}pipelines here: "
                f"{', '.join(names) or 'none'} (see `app-run list`)",
            )
        source = self.source(name)
        if isinstance(source, LoadError):
            raise source
        return source

    def pipeline(self, name: str) -> Pipeline:
        """The Pipeline model; the document must have passed `check` first."""
        if name not in self._models:
            self._models[name] = build_pipeline(self.document(name))
        return self._models[name]

    def remember(self, models: dict[str, Pipeline]) -> None:
        """Models known without parsing (the check cache): ``pipeline`` returns them."""
        self._models.update(models)


def load_app(root: Path) -> App:
    root = Path(root)
    if not root.is_dir():
        raise missing_app(root)
    pipelines_dir = root / "pipelines"
    if not pipelines_dir.is_dir():
        raise LoadError(
            f"{root} is not an APP: it has no pipelines/ folder",
            where=Where(root),
            hint="create one with `app-new pipeline`, or convert a skill with `app-convert`",
        )
    app = App(root=root.resolve())
    for sub in sorted(p for p in pipelines_dir.iterdir() if p.is_dir()):
        if sub.name.startswith("_") and sub.name not in LIFECYCLE:
            continue
        if sub.name.startswith("."):
            continue
        file = sub / "pipeline.yaml"
        if not file.is_file():
            app.missing.append(sub)
            continue
        app.files[sub.name] = file
    return app


def build_pipeline(doc: Document) -> Pipeline:
    data: Any = doc.data
    steps = tuple(_build_step(doc, i, raw) for i, raw in enumerate(data["steps"]))
    inputs, info = declaration(plain(data.get("input") or {}))
    return Pipeline(
        name=str(data["name"]),
        description=str(data.get("description", "")),
        triggers=tuple(str(t) for t in data.get("triggers") or ()),
        inputs=inputs,
        steps=steps,
        output=str(data.get("output") or steps[-1].name),
        dir=doc.path.parent,
        file=doc.path,
        input_info=info,
    )


def _build_step(doc: Document, index: int, raw: Any) -> Step:
    return Step(
        name=str(raw["name"]),
        type=str(raw["type"]),
        line=doc.line_of("steps", index),
        command=str(raw.get("command", "")),
        prompt=str(raw.get("prompt", "")),
        tier=str(raw.get("model") or DEFAULT_TIER),
        schema=str(raw["schema"]) if raw.get("schema") else None,
        validate=str(raw["validate"]) if raw.get("validate") else None,
        retry=int(raw.get("retry", DEFAULT_RETRY)),
        timeout=float(raw.get("timeout", DEFAULT_TIMEOUT)),
        needs=tuple(str(n) for n in raw["needs"]) if raw.get("needs") is not None else None,
    )


def routing_table(app: App) -> list[dict[str, Any]]:
    """Every business pipeline's routing info, read straight from its document (once)."""
    if app.table is None:
        app.table = _read_table(app)
    return app.table


def _read_table(app: App) -> list[dict[str, Any]]:
    table: list[dict[str, Any]] = []
    for name in app.business_names():
        source = app.source(name)
        if isinstance(source, LoadError):
            table.append(_broken_row(name, source))
            continue
        problem = _unroutable(source)
        if problem is not None:
            table.append(_broken_row(name, problem))
            continue
        data = plain(source.data)
        table.append(
            {
                "name": name,
                "description": str(data["description"]),
                "triggers": [str(t) for t in data.get("triggers") or []],
                "input": data.get("input") or {},
            }
        )
    return table


def _broken_row(name: str, problem: LoadError) -> dict[str, Any]:
    """The row of a pipeline that gives no routing entry: ``error`` as one line, and its parts
    (``problem``, ``file``, ``line``, ``hint``) for the error routing raises (router.py)."""
    where = problem.where
    return {
        "name": name,
        "description": "",
        "triggers": [],
        "error": problem.one_line(),
        "problem": problem.message,
        "file": str(where.file) if where else "",
        "line": where.line if where else 0,
        "hint": problem.hint,
    }


def _unroutable(doc: Document) -> LoadError | None:
    """Why a pipeline.yaml gives no routing entry (None when it gives one)."""
    data = doc.data
    if not isinstance(data, dict):
        kind = "list" if isinstance(data, list) else "single value"
        what = "empty" if data is None else f"a {kind}, not a mapping"
        fix = "write its name, description and steps (see `app-run schema`)"
        return LoadError(f"pipeline.yaml is {what}", where=doc.where(), hint=fix)
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        fix = "add `description:` — routing matches requests against it"
        where = doc.where("description") if "description" in data else doc.where()
        return LoadError("pipeline.yaml has no description", where=where, hint=fix)
    triggers = data.get("triggers")
    if triggers is not None and not (
        isinstance(triggers, list) and all(isinstance(t, str) for t in triggers)
    ):
        fix = 'write them as a list: triggers: ["an example request", ...]'
        return LoadError("triggers is not a list of texts", where=doc.where("triggers"), hint=fix)
    return None


def missing_app(root: Path) -> LoadError:
    """The error for an APP folder that is not there, with the sibling folder it may have
    meant (``textkt`` -> ``did you mean 'textkit'?``)."""
    if root.exists():
        return LoadError(
            f"{root} is not a directory", hint="pass the folder that holds SKILL.md and pipelines/"
        )
    parent = root.parent if str(root.parent) else Path(".")
    siblings: list[str] = []
    try:
        with os.scandir(parent) as entries:
            for entry in itertools.islice(entries, 2000):  # a huge folder is not searched whole
                if entry.is_dir() and not entry.name.startswith("."):
                    siblings.append(entry.name)
    except OSError:
        pass
    near = closest(root.name, siblings)
    return LoadError(
        f"the APP folder {str(root)!r} does not exist",
        hint=f"did you mean {str(root.with_name(near))!r}?"
        if near
        else "pass the folder that holds SKILL.md and pipelines/",
    )
