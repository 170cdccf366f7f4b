"""Pipeline inputs: parsed from the command line, checked against the `input` declaration.

``--input key=value`` values are converted by the declared type (``integer`` "42" -> 42,
``boolean`` "yes"/"true"/"1", ``array``/``object`` as JSON); ``--input-json`` gives typed JSON.

Every declared input is required, as in the spec, unless its type ends in ``?`` (``string?``;
an app-run extension): an optional input that is not given reaches the steps as ``null``.
An input may also be declared in the long form (app-run extension), ``name: {type, required,
default, enum, description}``: ``declaration`` reads both forms into the types (``string?`` for
an optional one) and the rest (``info``); an absent optional input then takes its default, a
value outside ``enum`` is refused, and ``input_schema`` gives the JSON Schema agents see (MCP
tools, ``needs_input``, route candidates).

A path given on the command line is meant from where app-run was started, but steps run in
their pipeline's folder: ``caller_path`` makes it absolute (``--input diff_file=my.diff``).
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from skill2app.runtime.app import numbers
from skill2app.runtime.errors import InputError

TYPES = ("string", "integer", "number", "boolean", "array", "object")
OPTIONAL = "?"  # suffix of an optional input's type: `columns: string?`
FILE_SUFFIXES = (  # a word with one of these after its last dot names a file
    "pdf json csv txt md py js ts yaml yml html htm xml png jpg jpeg gif svg docx xlsx pptx "
    "zip tar gz log sh toml ini cfg diff patch jsonl tsv"
).split()
FILE_WORDS = {"path", "file", "filename", "filepath", "pathname", "fname"}
FILE_ENDS = ("file", "path", "files", "paths", "filenames")  # pdf_files: a list of them
DIR_WORDS = {"dir", "dirname", "dirpath", "directory", "folder", "workdir"}
# A last word that names something about a file or folder, not its path: ``folder_token``
# (a Feishu folder's id), ``file_id``, ``file_type``, ``dir_url``.
NOT_A_PATH = {"token", "id", "ids", "key", "url", "link", "uri", "type", "mode", "size",
              "count", "hash", "uuid", "format"}  # fmt: skip
TRUE = {"true", "yes", "1", "on"}
FALSE = {"false", "no", "0", "off"}


MAX_INPUT_BYTES = 256_000_000  # --input-json, stdin and `resume` answers: no more is read


def read_limited(path: Path, limit: int | None = None) -> bytes:
    """At most ``limit`` bytes of ``path`` (``/dev/zero`` included); InputError past them."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    with path.open("rb") as fh:
        raw = fh.read(limit + 1)
    if len(raw) > limit:
        raise InputError(
            f"{path} holds more than {limit:,} bytes",
            hint="pass big data as a file path input that a step reads",
        )
    return raw


INFO_KEYS = ("description", "enum", "default")


def declaration(raw: Any) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """(name -> type, ``string?`` when optional; name -> {description, enum, default} as given)
    of a checked ``input:`` mapping, short or long form."""
    types: dict[str, str] = {}
    info: dict[str, dict[str, Any]] = {}
    for name, spec in (raw or {}).items():
        if not isinstance(spec, dict):
            types[str(name)] = str(spec)
            continue
        optional = not spec.get("required", "default" not in spec)
        types[str(name)] = str(spec["type"]) + (OPTIONAL if optional else "")
        extra = {k: spec[k] for k in INFO_KEYS if k in spec}
        if extra:
            info[str(name)] = extra
    return types, info


def input_schema(
    declared: dict[str, str], info: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The JSON Schema of a pipeline's inputs: one property per input (type, description,
    enum, default; an optional one without a default also admits null), required ones listed."""
    info = info or {}
    properties: dict[str, Any] = {}
    for name, type_ in declared.items():
        prop: dict[str, Any] = {"type": base_type(type_)}
        extra = info.get(name, {})
        if "description" in extra:
            prop["description"] = extra["description"]
        if "enum" in extra:
            prop["enum"] = list(extra["enum"])
        if "default" in extra:
            prop["default"] = extra["default"]
        elif is_optional(type_):
            prop["type"] = [prop["type"], "null"]
        properties[name] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": required(declared),
        "additionalProperties": False,
    }


def read_input_json(source: str, stdin_text: str | None = None) -> dict[str, Any]:
    """``source`` is a file path or ``-`` for standard input."""
    if source == "-":
        text = stdin_text if stdin_text is not None else ""
        label = "standard input"
    else:
        path = Path(source)
        try:
            text = read_limited(path).decode("utf-8-sig")  # an editor's byte-order mark is fine
        except OSError as exc:
            raise InputError(f"cannot read --input-json {source}: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise InputError(
                f"--input-json {source} is not UTF-8 text (byte {exc.start})",
                hint="save it as UTF-8",
            ) from None
        label = source
    try:
        data = strict_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"--input-json {label} is not JSON: {exc.msg} at line {exc.lineno}",
            hint='give an object such as {"repo": "owner/name"}',
        ) from exc
    except RecursionError:
        raise InputError(
            f"--input-json {label} is JSON nested too deeply to read",
            hint="inputs need a few levels of nesting at most: flatten the data",
        ) from None
    if not isinstance(data, dict):
        raise InputError(f"--input-json {label} must be a JSON object, not {type(data).__name__}")
    return data


def strict_json(text: str) -> Any:
    """``json.loads`` without NaN/Infinity (nor 1e999, which overflows to it): they are not
    JSON, and a step in another language could not read the stdin app-run hands it.  An
    integer of more than 4,300 digits is a JSONDecodeError too (``numbers.loads``)."""

    def reject(name: str) -> Any:
        raise json.JSONDecodeError(f"{name} is not a JSON number", text, text.find(name))

    def finite(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            reject(literal)
        return value

    return numbers.loads(text, parse_constant=reject, parse_float=finite)


def parse_pairs(pairs: list[str], declared: dict[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--input {pair!r} is not key=value", hint="write --input name=value")
        if key in values:
            raise InputError(f"--input {key} is given twice", hint="give each input once")
        values[key] = convert(key, raw, declared.get(key, "string"))
    return values


# --- paths: meant from where app-run was started ----------------------------------------------


def path_kind(name: str) -> str:
    """What an input's name says its value is: ``file``, ``dir`` or ``any`` (text):
    ``diff_file``, ``logfile``, ``outPath`` are files (``profile`` is not); ``out_dir`` a folder;
    ``folder_token``, ``fileId`` are neither (their last word says what they are)."""
    words = _name_words(name)
    if names_no_path(name):  # round 33: `folder_token=fldcnXXXX` became <cwd>/fldcnXXXX
        return "any"
    if any(w in DIR_WORDS for w in words):
        return "dir"
    if any(w in FILE_WORDS or (w.endswith(FILE_ENDS) and w != "profile") for w in words):
        return "file"
    return "any"


def names_no_path(name: str) -> bool:
    """Whether an input's last word says it is something about a file or folder, not its path
    (``folder_token``, ``fileId``, ``pdf_url``): app-run never makes it absolute, app-convert
    never makes a sample file for it."""
    words = _name_words(name)
    return bool(words) and words[-1] in NOT_A_PATH


def _name_words(name: str) -> list[str]:
    """``outPath`` → ``["out", "path"]``, ``folder_token_`` → ``["folder", "token"]``."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()
    return [w for w in re.split(r"[_\-\s]+", spaced) if w]


def absolute(text: str) -> str:
    """A path as the steps need it: they run in their pipeline's folder, not the caller's."""
    return os.path.abspath(os.path.expanduser(text))


# What a name says of an input the pipeline writes to: a file the request must name itself.
OUTPUT_NAME = re.compile(
    r"(?:^|[_-])(?:out|output|outfile|dest|destination|target|save|result)(?:s|_?(?:file|path|dir))?(?:[_-]|$)"
    r"|^out(?=[A-Z_]|put)",
    re.I,
)


def caller_path(name: str, value: Any, *, named_only: bool = False, base: str = "") -> Any:
    """``value`` made absolute when it is a relative path the caller gave: for an input named
    like a folder, always; named like a file, when it exists here or is shaped like a path —
    a ``/`` or a file suffix (``diff_file=my.diff``, ``out_file=report.pdf`` to write; not
    ``path=user.name``, a key path); for any other input — unless ``named_only``
    (``--input-json`` values) — when it names something here and has a ``/`` or a dot
    (``text=notes/a.txt``). "Here" is where app-run was started; with ``base`` (the APP folder
    of a sample's ``input.json``), a value naming what the folder holds, strictly inside it,
    with a ``/`` or a dot (or named like a path), for an input that is read, is that one — a
    file or folder to write (``out_dir``), ``.``, or one not there is still the caller's.
    URLs, ``-`` and other values as they are."""
    if not isinstance(value, str) or not value or value == "-" or "://" in value:
        return value
    if os.path.isabs(value):
        return value
    kind, slash = path_kind(name), "/" in value or os.sep in value
    if base and _in_base(name, value, base) and (kind != "any" or slash or "." in value):
        return absolute(os.path.join(base, value))
    there = os.path.exists(os.path.expanduser(value))
    if kind == "dir" or (kind == "file" and (there or slash or _suffix(value) in FILE_SUFFIXES)):
        return absolute(value)
    if kind == "any" and not named_only and there and (slash or "." in value):
        return absolute(value)
    return value


def _in_base(name: str, value: str, base: str) -> bool:
    """Whether ``value`` names something the folder ``base`` holds, strictly inside it after
    following links (not ``.``, not ``..``), for an input that is read (not ``out_dir``)."""
    if OUTPUT_NAME.search(name):
        return False
    inside = os.path.realpath(os.path.join(base, value))
    root = os.path.realpath(base)
    return inside != root and os.path.commonpath([root, inside]) == root and os.path.exists(inside)


def _suffix(text: str) -> str:
    return text.rsplit(".", 1)[-1].lower() if "." in text else ""


def base_type(declared: str) -> str:
    """``string?`` -> ``string``."""
    return declared.removesuffix(OPTIONAL)


def is_optional(declared: str) -> bool:
    return declared.endswith(OPTIONAL)


def required(declared: dict[str, str]) -> list[str]:
    return [k for k, t in declared.items() if not is_optional(t)]


def convert(key: str, raw: str, type_: str) -> Any:
    type_ = base_type(type_)
    try:
        if type_ == "integer":
            if re.fullmatch(r"\s*-?\d+\.0*\s*", raw):  # 3.0 is 3, as in JSON
                return int(float(raw))
            return int(raw)
        if type_ == "number":
            number = float(raw)
            if not math.isfinite(number):  # NaN/Infinity are not JSON: steps could not read them
                raise ValueError(raw)
            return number
        if type_ == "boolean":
            if raw.lower() in TRUE | FALSE:
                return raw.lower() in TRUE
            raise ValueError(raw)
        if type_ in ("array", "object"):
            value = strict_json(raw)
            if type_ == "array" and not isinstance(value, list):
                raise ValueError(raw)
            if type_ == "object" and not isinstance(value, dict):
                raise ValueError(raw)
            return value
    except (ValueError, OverflowError):  # OverflowError: 1e400 as an integer
        shown = raw if len(raw) <= 60 else f"{raw[:40]}… ({len(raw):,} characters)"
        raise InputError(
            f"input {key}={shown!r} is not a valid {type_}", hint=_example(key, type_)
        ) from None
    return raw


def complete_inputs(
    values: dict[str, Any],
    declared: dict[str, str],
    pipeline: str,
    info: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``values`` checked (InputError listing every missing, unknown, mistyped or disallowed
    input), with its default (else ``null``) for each optional input not given (or given as
    null), in declaration order."""
    info = info or {}
    check_inputs(values, declared, pipeline, info)
    return {
        k: values[k] if values.get(k) is not None else info.get(k, {}).get("default")
        for k in declared
    }


def check_inputs(
    values: dict[str, Any],
    declared: dict[str, str],
    pipeline: str,
    info: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Raise InputError listing every missing, unknown, mistyped or disallowed input (a whole
    float for an integer input is made an int in ``values``)."""
    problems: list[str] = []
    disallowed: list[str] = []
    missing = [k for k in required(declared) if k not in values]
    if missing:
        problems.append("missing " + ", ".join(f"{k} ({declared[k]})" for k in missing))
    unknown = [k for k in values if k not in declared]
    if unknown:
        known = ", ".join(declared) or "none"
        problems.append(f"unknown {', '.join(unknown)} (declared: {known})")
    for key, type_ in declared.items():
        value = values.get(key)
        if base_type(type_) == "integer" and isinstance(value, float) and value.is_integer():
            values[key] = int(value)  # JSON Schema's integer: 1.0 is 1; steps get 1
        if key in values and not matches(values[key], type_):
            problems.append(f"{key} must be {type_}, got {json.dumps(values[key])[:40]}")
        allowed = (info or {}).get(key, {}).get("enum")
        if allowed and isinstance(values.get(key), str) and values[key] not in allowed:
            same = [
                a for a in allowed if isinstance(a, str) and a.casefold() == values[key].casefold()
            ]
            if len(same) == 1:  # "JSON" for json: the one it can mean
                values[key] = same[0]
        if allowed and values.get(key) is not None and values[key] not in allowed:
            shown = ", ".join(json.dumps(a, ensure_ascii=False) for a in allowed)
            got = json.dumps(values[key], ensure_ascii=False)[:40]
            problems.append(f"{key} must be one of {shown}, got {got}")
            disallowed.append(key)
    if problems:
        mistyped = [k for k, t in declared.items() if k in values and not matches(values[k], t)]
        first = (missing or mistyped or disallowed or [next(iter(declared), "name")])[0]
        raise InputError(
            f"inputs for {pipeline!r}: " + "; ".join(problems),
            hint=_example(first, declared.get(first, "string"), (info or {}).get(first, {})),
        )


def matches(value: Any, type_: str) -> bool:
    if is_optional(type_) and value is None:
        return True
    type_ = base_type(type_)
    if type_ == "string":
        return isinstance(value, str)
    if type_ == "integer":
        whole = isinstance(value, float) and value.is_integer()
        return whole or (isinstance(value, int) and not isinstance(value, bool))
    if type_ == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_ == "boolean":
        return isinstance(value, bool)
    if type_ == "array":
        return isinstance(value, list)
    if type_ == "object":
        return isinstance(value, dict)
    return False


def _example(key: str, type_: str, info: dict[str, Any] | None = None) -> str:
    allowed = (info or {}).get("enum")
    if allowed:
        return f"pass --input {key}={allowed[0]} (or another of its values) or --input-json FILE"
    type_ = base_type(type_)
    sample = {
        "string": "text",
        "integer": "42",
        "number": "1.5",
        "boolean": "true",
        "array": """'["a","b"]'""",
        "object": "'{\"k\":1}'",
    }.get(type_, "value")
    return f"pass --input {key}={sample} or --input-json FILE"
