"""Filling a routed pipeline's declared inputs from the request itself.

Explicit ``--input``/``--input-json`` values always win. For the rest, first what can be read
offline and reliably, then — only if some are still missing and a provider is configured — one
lite-tier call with the remaining declaration as a JSON Schema (null = not said).

Offline: ``name=value``, ``name: value``, ``--name value``; then, if exactly one integer/number
input is still missing (counting the required ones only, when any is) and the request holds
exactly one number, that number; a string input named like a URL, an e-mail address or a
domain/host/handle gets the request's only value of that shape ("the profile of
alice.bsky.social" fills ``handle``); if exactly one string input is still missing (the same
way), the request's only quoted text, or else its only token naming an existing file or a URL.

A value the request names (``count=many``) that does not fit the declared type is an input
error at once.  Whatever stays missing is reported by the input check, listing every missing
name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .config import Config
from .inputs import base_type, convert, is_optional, matches
from .llm_step import ask_lite
from .providers.base import Provider

NUMBER = re.compile(r"(?<![\w.])#?(-?\d+(?:\.\d+)?)(?![\w.])")
FILE_SUFFIXES = (
    "pdf json csv txt md py js ts yaml yml html htm xml png jpg jpeg gif svg docx xlsx pptx "
    "zip tar gz log sh toml ini cfg"
).split()
# (what an input's name says it is, the shape of such a value in a request)
SHAPES = (
    (re.compile(r"url|link|href|endpoint", re.I), re.compile(r"https?://[^\s\"'<>]+")),
    (
        re.compile(r"e_?mail", re.I),
        re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?![\w-])"),
    ),
    (
        re.compile(r"domain|host|handle|site|fqdn", re.I),
        re.compile(
            r"(?<![\w@/.:-])@?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})(?![\w/.-])", re.I
        ),
    ),
)
QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|“([^”]+)”|`([^`]+)`|「([^」]+)」")
JSON_TYPES = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}


def extract_inputs(
    request: str,
    declared: dict[str, str],
    explicit: dict[str, Any],
    *,
    provider: Provider | None,
    config: Config,
) -> dict[str, Any]:
    values = dict(explicit)
    missing = {k: t for k, t in declared.items() if k not in values}
    if not missing:
        return values
    values.update(offline_extract(request, missing))
    missing = {k: t for k, t in missing.items() if k not in values}
    if missing and provider is not None:
        values.update(llm_extract(request, missing, provider, config))
    return values


def offline_extract(request: str, missing: dict[str, str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, type_ in missing.items():
        raw = _named_value(request, name)
        if raw is not None:  # the user named it: a value that does not fit is their mistake
            found[name] = convert(name, raw, type_)
    left = {k: t for k, t in missing.items() if k not in found}
    numeric = _candidates(left, ("integer", "number"))
    numbers = NUMBER.findall(request)
    if len(numeric) == 1 and len(numbers) == 1:
        key = numeric[0]
        value = convert(key, numbers[0], left[key]) if _fits(numbers[0], left[key]) else None
        if value is not None:
            found[key] = value
    found.update(_shaped({k: t for k, t in left.items() if k not in found}, request))
    strings = _candidates({k: t for k, t in left.items() if k not in found}, ("string",))
    if len(strings) == 1:
        value = _only_text(request)
        if value is not None and value not in found.values():  # one value fills one input
            found[strings[0]] = value
    return found


def _shaped(left: dict[str, str], request: str) -> dict[str, str]:
    """String inputs named like a URL, an e-mail or a domain/handle, each filled with the
    request's only value of that shape (none when two inputs or two values compete)."""
    found: dict[str, str] = {}
    for name_says, shape in SHAPES:
        names = [k for k, t in left.items() if base_type(t) == "string" and name_says.search(k)]
        values = {m.group(m.lastindex or 0) for m in shape.finditer(request)}
        if shape.groups:  # a domain, not "report.pdf"
            values = {v for v in values if v.rsplit(".", 1)[-1].lower() not in FILE_SUFFIXES}
        if len(names) == 1 and len(values) == 1 and names[0] not in found:
            found[names[0]] = values.pop()
    return found


def _candidates(left: dict[str, str], types: tuple[str, ...]) -> list[str]:
    """The missing inputs of ``types`` a lone value could be: the required ones if any."""
    names = [k for k, t in left.items() if base_type(t) in types]
    needed = [k for k in names if not is_optional(left[k])]
    return needed or names


def _named_value(request: str, name: str) -> str | None:
    variants = {name, name.replace("_", "-"), name.replace("-", "_")}
    for variant in variants:
        pattern = (
            rf"(?:--{re.escape(variant)}[ =]|\b{re.escape(variant)}\s*[=:]\s*)"
            r"(\"[^\"]*\"|'[^']*'|\S+)"
        )
        match = re.search(pattern, request, re.IGNORECASE)
        if match:
            return match.group(1).strip("\"'").rstrip(",;")
    return None


def _fits(raw: str, type_: str) -> bool:
    return base_type(type_) == "number" or "." not in raw


def _only_text(request: str) -> str | None:
    quoted = [next(g for g in m.groups() if g) for m in QUOTED.finditer(request)]
    if len(quoted) == 1:
        return _located(quoted[0])
    if quoted:
        return None
    # "(see ./a.csv)." -> ./a.csv: brackets and a sentence's end, never a path's own dots
    tokens = [t.strip("()[]").rstrip(".,;:!?") for t in request.split()]
    candidates = [t for t in tokens if "://" in t or (("/" in t or "." in t) and Path(t).exists())]
    return _located(candidates[0]) if len(candidates) == 1 else None


def _located(text: str) -> str:
    """A file the request names, found from where app-run was started, made absolute: steps
    run elsewhere (their pipeline folder).  Other text as it is."""
    if "://" in text or not text.strip() or not Path(text).exists():
        return text
    return os.path.abspath(text)


def llm_extract(
    request: str, missing: dict[str, str], provider: Provider, config: Config
) -> dict[str, Any]:
    schema = {
        "type": "object",
        "required": sorted(missing),
        "properties": {
            k: {"type": [JSON_TYPES.get(base_type(t), "string"), "null"]}
            for k, t in missing.items()
        },
        "additionalProperties": False,
    }
    prompt = (
        "Extract these parameters from the user's request. Use null for any the request does "
        f"not state; never guess.\nParameters (name: type): {missing}\nRequest: {request}"
    )
    value, errors = ask_lite(provider, config, prompt, schema, "extract")
    if errors:
        return {}
    return {
        k: v for k, v in value.items() if v is not None and k in missing and matches(v, missing[k])
    }
