"""`app-run routes APP`: the learned examples of an APP — listed, forgotten, or exported into
the pipelines' ``triggers`` (where they route for everyone, and `check`'s self-test sees them).

Export edits ``pipeline.yaml`` with a ruamel round trip (``scaffold/roundtrip.py``): comments,
key order, quoting and indentation stay as they were; a pipeline with no ``triggers`` gets the
key after its ``description``.  The file is written atomically and only if it did not change
since it was read.  An exported example leaves the store: it is a trigger now.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from skill2app.runtime.app.config import state_home
from skill2app.runtime.app.model import App, load_app
from skill2app.runtime.errors import LoadError, UsageError, Where
from skill2app.runtime.routing.memory import Example, Memory, words


def _memory(app: App) -> Memory:
    return Memory(state_home(), app.root)


def _known(app: App, pipeline: str | None) -> None:
    if pipeline is not None and pipeline not in app.business_names():
        known = ", ".join(app.business_names()) or "none"
        raise UsageError(
            f"no pipeline named {pipeline!r} in {app.root}", hint=f"pipelines: {known}"
        )


def listing(app_dir: Path) -> dict[str, Any]:
    """Every learned example of the APP, newest first, and where they are kept."""
    app = load_app(app_dir)
    memory = _memory(app)
    examples = memory.examples()
    names = set(app.business_names())
    return {
        "app": str(app.root),
        "store": str(memory.path),
        "examples": [{**asdict(e), "known": e.pipeline in names} for e in examples],
    }


def forget(app_dir: Path, pipeline: str | None, request: str | None) -> list[dict[str, Any]]:
    """Remove the examples (of ``pipeline``, or the one of ``request``); those removed."""
    app = load_app(app_dir)
    if pipeline is not None and pipeline not in app.business_names():
        stored = {e.pipeline for e in _memory(app).examples()}
        if pipeline not in stored:  # a pipeline removed since keeps its examples to forget
            _known(app, pipeline)
    try:
        removed = _memory(app).forget(pipeline, request)
    except OSError as exc:
        raise UsageError(f"cannot change the learned examples: {exc}", hint="try again") from exc
    return [asdict(e) for e in removed]


def export(app_dir: Path, pipeline: str | None) -> list[dict[str, Any]]:
    """Write the learned examples (of ``pipeline``) into their pipelines' ``triggers``; one
    entry per edited file: the pipeline, the file and the triggers added."""
    app = load_app(app_dir)
    _known(app, pipeline)
    memory = _memory(app)
    by_pipeline: dict[str, list[Example]] = {}
    for example in reversed(memory.examples(app.business_names())):  # oldest first
        if pipeline is None or example.pipeline == pipeline:
            by_pipeline.setdefault(example.pipeline, []).append(example)
    done = []
    for name, examples in by_pipeline.items():
        added = _add_triggers(app.files[name], [e.request for e in examples])
        for example in examples:
            memory.forget(name, example.request)
        done.append({"pipeline": name, "file": str(app.files[name]), "added": added})
    return done


def _add_triggers(path: Path, texts: list[str]) -> list[str]:
    """Append ``texts`` not already there to the ``triggers`` of ``path``; those added."""
    from ruamel.yaml.comments import CommentedSeq

    from skill2app.scaffold import files, roundtrip
    from skill2app.scaffold.errors import ScaffoldError

    try:
        doc = roundtrip.load(path, list_key="steps", kind="pipeline.yaml")
        data = doc.data
        triggers = data.get("triggers")
        if triggers is not None and not isinstance(triggers, CommentedSeq):
            raise LoadError(
                "triggers is not a list", where=Where(path), hint="make it a list of texts"
            )
        have = {words(str(t)) for t in triggers or ()}
        added = [t for t in dict.fromkeys(texts) if words(t) not in have]
        if not added:
            return []
        if triggers is None:
            keys = list(data)
            at = keys.index("description") + 1 if "description" in keys else len(keys)
            data.insert(at, "triggers", CommentedSeq(added))
        else:
            triggers.extend(added)
        files.apply([files.edited_file(path, doc.text, doc.dump())], force=True)
    except ScaffoldError as exc:
        raise LoadError(exc.message, where=exc.where, hint=exc.hint) from exc
    return added
