"""The samples a pipeline's sample runs after: ``samples/after.json``.

A sample may need what another pipeline's sample makes: a knowledge base built by
``build-kb`` that the ``ask-kb`` sample queries, a run that ``start-run`` opens and every
later telemetry sample records into.  ``pipelines/<name>/samples/after.json`` lists those
pipelines, as a JSON list of names (``["start-run"]``); app-convert writes it from what the
smoke run saw (an earlier pipeline wrote where this sample reads), an analyst may ask for it
(``sample.after`` in the plan), a user may write it.

`app-run test` runs a pipeline's prerequisites first, in the same copy of the APP
(``workcopy.WorkCopy``) and with the same private HOME: each one's own prerequisites before
it, each once, in the order the lists give.  Their outputs are not compared (each is tested
on its own); one that fails, or whose sample is only a placeholder, decides the pipeline's
status with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

from skill2app.runtime.app import numbers
from skill2app.runtime.app.bounds import inside, real
from skill2app.runtime.app.document import MAX_FILE_BYTES
from skill2app.runtime.app.model import App
from skill2app.runtime.errors import AppRunError

AFTER_FILE = "after.json"
MAX_CHAIN = 50  # prerequisites of one sample, all told: each test reruns its whole chain


def sample_file(name: str, file: str) -> str:
    """The APP-relative path of a file of pipeline ``name``'s ``samples/`` folder."""
    return f"pipelines/{name}/samples/{file}"


def after_path(app: App, name: str) -> Path:
    return app.root / sample_file(name, AFTER_FILE)


def read_after(app: App, name: str) -> list[str]:
    """The pipelines ``name``'s ``samples/after.json`` names (none without the file); an
    unreadable file, or one naming no business pipeline of the APP, is an AppRunError that
    names the file and the fix."""
    path = after_path(app, name)
    if not path.is_file():
        return []
    shown = sample_file(name, AFTER_FILE)
    fix = 'write a JSON list of the pipelines whose samples run first, e.g. ["start-run"]'
    if not inside(path, app.root):
        raise AppRunError(f"{shown}: leads to {real(path)}, outside the APP", hint=fix)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError("too big")
        names = numbers.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise AppRunError(f"{shown}: not a readable JSON list ({exc})", hint=fix) from None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise AppRunError(f"{shown}: not a JSON list of pipeline names", hint=fix)
    named = list(dict.fromkeys(names))
    business = set(app.business_names())
    if len(named) > len(business):
        raise AppRunError(f"{shown}: more names than the APP has pipelines", hint=fix)
    for other in named:
        if other == name or other not in business:
            why = "itself" if other == name else "no business pipeline of this APP"
            raise AppRunError(f"{shown}: {other!r} is {why}", hint=fix)
    return named


def prerequisites(app: App, name: str) -> list[str]:
    """Every pipeline whose sample runs before ``name``'s, in the order to run them (each
    one's own prerequisites first, each once); a cycle is an AppRunError naming it."""
    order: list[str] = []
    visiting: list[str] = []

    def visit(current: str) -> None:
        if len(visiting) + len(order) > MAX_CHAIN:  # before going deeper: bounded recursion
            raise AppRunError(
                f"{sample_file(name, AFTER_FILE)}: more than {MAX_CHAIN} samples before it",
                hint="name only the pipelines whose samples make what this one reads",
            )
        if current in visiting:
            loop = " -> ".join([*visiting[visiting.index(current) :], current])
            raise AppRunError(
                f"{sample_file(current, AFTER_FILE)}: the samples wait for each other ({loop})",
                hint="remove one of the names so the samples have an order",
            )
        if current in order:
            return
        visiting.append(current)
        for other in read_after(app, current):
            visit(other)
        visiting.pop()
        order.append(current)

    visit(name)
    return order[:-1]


def after_json(names: list[str]) -> str:
    """The text of a ``samples/after.json`` naming ``names``."""
    return json.dumps(list(dict.fromkeys(names)), ensure_ascii=False) + "\n"
