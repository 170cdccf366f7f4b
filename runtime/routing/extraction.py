"""Filling a routed pipeline's declared inputs from the request itself.

Explicit ``--input``/``--input-json`` values always win (their relative paths already made
absolute by ``run.inputs.caller_path``). For the
rest, first what can be read offline and unambiguously, then — only if some are still missing
and a provider is configured — one lite-tier call with the remaining declaration as a JSON
Schema (null = not said). An ambiguous request fills nothing: a missing input is listed (or
asked of the model), a wrong one would silently reach a step.

Offline, in this order:

1. Named values, where ``name`` is exactly a declared input's name (``-``/``_`` alike) and
   never inside quoted text nor a URL: ``name=value``, ``name:value``, ``--name value`` and
   ``--name=value`` take one word or a quoted text, and a value that does not fit the declared
   type (``count=many``) is an input error at once; ``--name`` with no value sets a boolean to
   true. In prose, ``name: value`` (a space after the colon) takes a quoted text, one word for
   a non-text input (ignored if it does not fit), and for a text input one word only when it
   ends the request or is followed by a comma: "text: the quick brown fox" fills nothing (the
   model is asked, or ``text`` is listed as missing), "repo: acme/web" fills ``repo``.
2. If exactly one integer/number input is still missing (counting the required ones only,
   when any is) and the request's own words hold exactly one number, that number. Not a
   number: digits inside a word, path, file name, URL, e-mail, version (``v2.0``, ``1.2.3``),
   date or time (``2024-05-01``, ``3/4``, ``12:30``, ``5月``), range (``5-10``), comparison
   (``units>3``), or quoted text. Digits next to CJK text count ("前2行").
3. A string input named like a URL, an e-mail address or a domain/host (``domain``, ``host``,
   ``site``, ``fqdn``, ``handle``) gets the request's only value of that shape; a domain/host
   input also takes a URL's host as written (``https://www.example.org/a`` ->
   ``www.example.org``, never the ``example.org`` it might belong to). URLs end at
   whitespace, quotes or CJK punctuation (。，）), without trailing sentence punctuation or
   unbalanced closing brackets; a URL with CJK letters in it (``/wiki/北京``, or ``/a谢谢``
   with the sentence run on) is a doubt, and fills nothing. Such inputs get nothing from
   rule 4.
4. If exactly one string input is still missing (the same way), the request's only candidate
   value, where candidates are each quoted text, URL and token naming an existing path, as
   the input's name allows: a file input (``path``, ``file``, ``*_file``, ``logfile``, …)
   takes only existing files and quoted texts shaped like a path (``'out.csv'``), never a
   folder; a folder input (``dir``, ``folder``, ``directory``) only folders and quoted text;
   any other string input takes quoted text, URLs, files and paths of folders written with a
   ``/``. A quote mark between two letters is an apostrophe ("Mary's", "it's").
   When several string inputs are missing, the only one named like a file (or a folder) takes
   the only existing file (or folder, written with a ``/``) the request's own words name
   ("summarise notes.md in three bullets" fills ``file`` beside ``style``; "explain the
   Makefile" fills nothing); quoted text stays for the others.

The value of a file or folder input taken from the request — an existing path, a quoted
path-like text, or a value named for it (rule 1), there or not (``out=report.pdf``, a file to
write) — is made absolute: it is meant from where app-run was started, and steps run in their
pipeline folder. Whatever stays missing is reported by the input check, listing every missing
name.
"""

from __future__ import annotations

import re
from typing import Any

from skill2app.runtime.app.config import Config
from skill2app.runtime.errors import InputError
from skill2app.runtime.providers.base import Provider
from skill2app.runtime.routing.mentions import (
    DOMAIN,
    EMAIL,
    NUMBER,
    URL,
    Span,
    blank,
    clean_url,
    host_of,
    inside,
    path_value,
    probe,
    quoted_texts,
    suffix,
    sure_url,
    trim,
)
from skill2app.runtime.routing.schema import (
    EMAIL_NAME,
    HANDLE_NAME,
    HOST_NAME,
    JSON_TYPES,
    URL_NAME,
)
from skill2app.runtime.run.inputs import (
    FILE_SUFFIXES,
    OUTPUT_NAME,
    base_type,
    caller_path,
    convert,
    is_optional,
    matches,
    path_kind,
)
from skill2app.runtime.run.llm_step import ask_lite


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


def offline_extract(
    request: str, missing: dict[str, str], choices: dict[str, list[Any]] | None = None
) -> dict[str, Any]:
    """What the request says offline for the ``missing`` inputs (name -> type); ``choices``:
    the values an input must take (its ``enum``): such an input takes the one allowed value
    the request names, never a file name or a number meant for another."""
    choices = choices or {}
    quoted = quoted_texts(request)
    urls = [(m.start(), clean_url(m.group())) for m in URL.finditer(request)]
    url_spans = [(start, start + len(url)) for start, url in urls]
    found, named = _named_values(request, missing, quoted, url_spans)
    quoted_spans = [span for span, _ in quoted]
    prose = blank(request, quoted_spans + url_spans + named)  # the request's own words
    found.update(
        _chosen(prose, {k: v for k, v in choices.items() if k in missing and k not in found})
    )
    left = {k: t for k, t in missing.items() if k not in found and k not in choices}
    found.update(_lone_number(prose, left))
    left = {k: t for k, t in left.items() if k not in found}
    free_urls = [url for start, url in urls if not inside(start, named) and sure_url(url)]
    found.update(_shaped(left, blank(request, url_spans + named), free_urls))
    texts = [text for span, text in quoted if not inside(span[0], named)]
    texts += [u for start, u in urls if not inside(start, named + quoted_spans) and sure_url(u)]
    found.update(_file_list({k: t for k, t in left.items() if k not in found}, prose, texts))
    taken = {v for value in found.values() for v in (value if isinstance(value, list) else [value])}
    found.update(_written_to(prose, {k: t for k, t in left.items() if k not in found}))
    reading = {k: t for k, t in left.items() if k not in found and not OUTPUT_NAME.search(k)}
    strings = _candidates(reading, ("string",))  # a file to write is named, never guessed
    if len(strings) == 1 and not _shaped_name(strings[0]):
        values = _text_candidates(prose, texts, path_kind(strings[0]))
        if len(values) == 1 and values[0] not in taken:  # one value fills one input
            found[strings[0]] = values[0]
    elif len(strings) > 1:
        found.update(_lone_path(prose, strings, taken))
    return found


def _chosen(prose: str, choices: dict[str, list[Any]]) -> dict[str, Any]:
    """An input with allowed values takes the one of them the request names as a word
    ("update it in overwrite mode"); none when two of its values, or none, are named."""
    found: dict[str, Any] = {}
    words = {w.casefold() for w in re.findall(r"[\w.-]+", prose)}
    for name, allowed in choices.items():
        named = [v for v in allowed if str(v).casefold() in words]
        if len(named) == 1:
            found[name] = named[0]
    return found


_WRITE_TO = re.compile(
    r"\b(?:into|as|to|save(?:d)?(?:\s+(?:it|them|the result))?\s+(?:as|to|in))\s+"
    r"([\w~./-]*\w\.[A-Za-z0-9]{1,5})(?![\w.])",
    re.I,
)


def _written_to(prose: str, left: dict[str, str]) -> dict[str, str]:
    """The one input named like an output file takes the file the request says to write
    ("... into both.pdf", "save it as eu.csv"), made absolute against the caller's folder."""
    outputs = [k for k, t in left.items() if base_type(t) == "string" and OUTPUT_NAME.search(k)]
    targets = list(dict.fromkeys(_WRITE_TO.findall(prose)))
    if len(outputs) != 1 or len(targets) != 1 or probe(targets[0]) == "dir":
        return {}
    return {outputs[0]: caller_path(outputs[0], targets[0])}


def _file_list(left: dict[str, str], prose: str, texts: list[str]) -> dict[str, list[str]]:
    """The one array input named like files (``pdf_files``, ``paths``) takes every existing
    file the request names, in order ("merge a.pdf and b.pdf" -> both)."""
    lists = [k for k, t in left.items() if base_type(t) == "array" and path_kind(k) == "file"]
    if len(lists) != 1 or OUTPUT_NAME.search(lists[0]):
        return {}
    files = [v for v in _text_candidates(prose, texts, "file") if probe(v) == "file"]
    return {lists[0]: files} if files else {}


# --- 1. named values -------------------------------------------------------------------------


def _named_values(
    request: str, missing: dict[str, str], quoted: list[tuple[Span, str]], urls: list[Span]
) -> tuple[dict[str, Any], list[Span]]:
    """The inputs the request names (rule 1), and where it names them."""
    found: dict[str, Any] = {}
    spans: list[Span] = []
    hidden = [span for span, _ in quoted] + urls
    for name, type_ in missing.items():
        for variant in dict.fromkeys((name, name.replace("_", "-"), name.replace("-", "_"))):
            hit = _named(request, variant, type_, quoted, hidden)
            if hit is not None:
                value, span = hit
                value = caller_path(name, value, named_only=True)  # a file or folder named
                found[name] = value
                spans.append(span)
                break
    return found, spans


def _named(
    request: str, name: str, type_: str, quoted: list[tuple[Span, str]], hidden: list[Span]
) -> tuple[Any, Span] | None:
    """The value the first ``name=value``/``name: value``/``--name value`` outside ``hidden``
    gives (rule 1), converted by ``type_``, and the span from the name to the value's end."""
    pattern = rf"(?<![\w./-])(--)?{re.escape(name)}(?(1)(?:=|\s+|$)|\s*[=:]\s*)"
    for match in re.finditer(pattern, request, re.IGNORECASE):
        value = _value_at(request, match.end(), quoted)
        if match.group(1) and (value is None or value[0].startswith("--")):
            value = ("true", match.end(), False) if base_type(type_) == "boolean" else None
        if inside(match.start(), hidden) or value is None:
            continue
        raw, end, is_quoted = value
        span = (match.start(), end)
        separator = match.group()[len(name) :]
        if match.group(1) or separator in ("=", ":") or is_quoted:  # a word or a quoted text
            return convert(name, raw, type_), span
        if base_type(type_) != "string":
            if _fits_type(raw, type_):
                return convert(name, raw, type_), span
        elif not request[end:].strip() or request[end - 1] in ",;，；":
            return raw, span
    return None


def _value_at(
    request: str, start: int, quoted: list[tuple[Span, str]]
) -> tuple[str, int, bool] | None:
    """(text, end, quoted) of the quoted text or the word that starts at ``start``."""
    for (span_start, span_end), text in quoted:
        if span_start == start:
            return text, span_end, True
    word = re.match(r"\S+", request[start:])
    if word is None:
        return None
    raw = trim(word.group().strip("\"'"))
    return (raw, start + word.end(), False) if raw else None


def _fits_type(raw: str, type_: str) -> bool:
    try:
        convert("", raw, type_)
    except InputError:  # prose ("count: the words"), not a value
        return False
    return True


# --- 2. one number, 3. shaped values -------------------------------------------------------


def _lone_number(prose: str, left: dict[str, str]) -> dict[str, Any]:
    numeric = _candidates(left, ("integer", "number"))
    numbers = NUMBER.findall(prose)
    if len(numeric) != 1 or len(numbers) != 1:
        return {}
    key, raw = numeric[0], numbers[0]
    if base_type(left[key]) == "integer" and "." in raw:
        return {}
    return {key: convert(key, raw, left[key])}


def _shaped(left: dict[str, str], prose: str, urls: list[str]) -> dict[str, str]:
    """String inputs named like a URL, an e-mail or a domain/handle, each filled with the
    request's only value of that shape (none when two inputs or two values compete)."""
    domains = {
        m.group(1) for m in DOMAIN.finditer(prose) if suffix(m.group(1)) not in FILE_SUFFIXES
    }
    shapes = (
        (URL_NAME, set(urls)),
        (EMAIL_NAME, set(EMAIL.findall(prose))),
        (HOST_NAME, domains | {h for h in map(host_of, urls) if h}),
        (HANDLE_NAME, domains),
    )
    found: dict[str, str] = {}
    for name_says, values in shapes:
        names = [k for k, t in left.items() if base_type(t) == "string" and name_says.search(k)]
        if len(names) == 1 and len(values) == 1 and names[0] not in found:
            found[names[0]] = next(iter(values))
    return found


def _shaped_name(name: str) -> bool:
    return any(p.search(name) for p in (URL_NAME, EMAIL_NAME, HOST_NAME, HANDLE_NAME))


# --- 4. the only text --------------------------------------------------------------------------


def _text_candidates(prose: str, texts: list[str], kind: str) -> list[str]:
    """The distinct values an input of ``kind`` could take from the request (rule 4): from its
    quoted texts and URLs (``texts``) and the path-like words of its ``prose``.  Two of them
    is a doubt ("count the words in 'hello world' in app.log": the text, or the file?)."""
    tokens = (trim(t) for t in prose.split())
    words = [t for t in tokens if ("/" in t or "." in t) and any(c.isalnum() for c in t)]
    values = [path_value(text, kind, quoted=True) for text in texts]
    values += [path_value(t, kind, quoted=False) for t in words]
    return list(dict.fromkeys(v for v in values if v is not None))


def _lone_path(prose: str, strings: list[str], taken: set[Any]) -> dict[str, str]:
    """Several string inputs missing (rule 4b): the only one named like a file (or a folder)
    takes the request's only existing file (or folder) written in its own words — "summarise
    notes.md in three bullets" fills ``file`` beside ``style``; quoted text is left to the
    others, and two such inputs or two such paths fill nothing."""
    found: dict[str, str] = {}
    for kind in ("file", "dir"):
        named = [k for k in strings if path_kind(k) == kind and not _shaped_name(k)]
        values = _text_candidates(prose, [], kind)  # existing paths with a "/" or a dot
        if len(named) == 1 and len(values) == 1 and values[0] not in taken:
            found[named[0]] = values[0]
    return found


# --- helpers -------------------------------------------------------------------------------


def _candidates(left: dict[str, str], types: tuple[str, ...]) -> list[str]:
    """The missing inputs of ``types`` a lone value could be: the required ones if any."""
    names = [k for k, t in left.items() if base_type(t) in types]
    needed = [k for k in names if not is_optional(left[k])]
    return needed or names


def llm_extract(
    request: str, missing: dict[str, str], provider: Provider, config: Config
) -> dict[str, Any]:
    schema = {
        "type": "object",
        "required": sorted(missing),
        "properties": {
            # anyOf, not a type list: the Anthropic SDK's transform_schema rejects those
            k: {"anyOf": [{"type": JSON_TYPES.get(base_type(t), "string")}, {"type": "null"}]}
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
