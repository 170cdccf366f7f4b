"""The routing benchmark's data: fixture routing tables and labelled requests, split DEV/TEST.

``apps/<app>.yaml`` holds one APP's routing table (what the Runner collects from its
``pipelines/*/pipeline.yaml``); ``requests.yaml`` maps app -> expected pipeline (``~`` for
out-of-scope) -> ``[kind, text]``; ``converted.yaml`` does the same for the APPs app-convert
produced (``examples/apps/``, see converted.py).  The split hashes the request text, so it is
fixed and does not depend on file order: thresholds are tuned on DEV only and reported on TEST.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import yaml

from skill2app.runtime.routing import RouteEntry

HERE = Path(__file__).resolve().parent
KINDS = ("paraphrase", "typo", "zh", "lang", "oos")


@dataclass(frozen=True)
class Request:
    app: str
    text: str
    expected: str | None  # None = out of scope: the router must answer no match
    kind: str  # one of KINDS

    @property
    def split(self) -> str:
        digest = hashlib.sha256(self.text.encode("utf-8")).digest()
        return "dev" if digest[0] % 2 == 0 else "test"


def load_tables(root: Path = HERE) -> dict[str, list[RouteEntry]]:
    tables: dict[str, list[RouteEntry]] = {}
    for path in sorted((root / "apps").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        tables[data["app"]] = [
            RouteEntry(p["name"], p["description"], tuple(p.get("triggers", ())))
            for p in data["pipelines"]
        ]
    return tables


def load_requests(
    tables: dict[str, list[RouteEntry]], root: Path = HERE, name: str = "requests.yaml"
) -> list[Request]:
    data = yaml.safe_load((root / name).read_text(encoding="utf-8"))
    requests: list[Request] = []
    for app, by_pipeline in data.items():
        names = {entry.name for entry in tables[app]}
        triggers = {t.casefold() for entry in tables[app] for t in entry.triggers}
        for expected, items in by_pipeline.items():
            if expected is not None and expected not in names:
                raise ValueError(f"{app}: unknown pipeline {expected!r} in {name}")
            for kind, text in items:
                if kind not in KINDS or (kind == "oos") != (expected is None):
                    raise ValueError(f"{app}: bad kind {kind!r} for {text!r}")
                if text.casefold() in triggers:
                    raise ValueError(f"{app}: {text!r} copies a trigger; write a paraphrase")
                requests.append(Request(app, text, expected, kind))
    return requests


def load_all() -> tuple[dict[str, list[RouteEntry]], list[Request]]:
    """The whole set: the hand-written tables with requests.yaml, and the APPs app-convert
    produced (examples/apps/, loaded as app-run loads them) with converted.yaml."""
    from converted import converted_tables

    tables = load_tables()
    requests = load_requests(tables)
    converted = converted_tables()
    clash = set(tables) & set(converted)
    if clash:
        raise ValueError(f"two tables named {sorted(clash)}")
    requests += load_requests(converted, name="converted.yaml")
    return {**tables, **converted}, requests
