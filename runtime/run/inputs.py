"""Pipeline inputs: parsed from the command line, checked against the `input` declaration.

``--input key=value`` values are converted by the declared type (``integer`` "42" -> 42,
``boolean`` "yes"/"true"/"1", ``array``/``object`` as JSON); ``--input-json`` gives typed JSON.

Every declared input is required, as in the spec, unless its type ends in ``?`` (``string?``;
an app-run extension): an optional input that is not given reaches the steps as ``null``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from skill2app.runtime.errors import InputError

TYPES = ("string", "integer", "number", "boolean", "array", "object")
OPTIONAL = "?"  # suffix of an optional input's type: `columns: string?`
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
    JSON, and a step in another language could not read the stdin app-run hands it."""

    def reject(name: str) -> Any:
        raise json.JSONDecodeError(f"{name} is not a JSON number", text, text.find(name))

    def finite(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            reject(literal)
        return value

    return json.loads(text, parse_constant=reject, parse_float=finite)


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
    except ValueError:
        raise InputError(
            f"input {key}={raw!r} is not a valid {type_}", hint=_example(key, type_)
        ) from None
    return raw


def complete_inputs(
    values: dict[str, Any], declared: dict[str, str], pipeline: str
) -> dict[str, Any]:
    """``values`` checked (InputError listing every missing, unknown or mistyped input), with
    ``null`` for each optional input not given, in declaration order."""
    check_inputs(values, declared, pipeline)
    return {k: values.get(k) for k in declared}


def check_inputs(values: dict[str, Any], declared: dict[str, str], pipeline: str) -> None:
    """Raise InputError listing every missing, unknown or mistyped input (a whole float for an
    integer input is made an int in ``values``)."""
    problems: list[str] = []
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
    if problems:
        mistyped = [k for k, t in declared.items() if k in values and not matches(values[k], t)]
        first = (missing or mistyped or [next(iter(declared), "name")])[0]
        raise InputError(
            f"inputs for {pipeline!r}: " + "; ".join(problems),
            hint=_example(first, declared.get(first, "string")),
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


def _example(key: str, type_: str) -> str:
    type_ = base_type(type_)
    sample = {
        "string": "text",
        "integer": "42",
        "number": "1.5",
        "boolean": "true",
        "array": "'[1,2]'",
        "object": "'{\"k\":1}'",
    }.get(type_, "value")
    return f"pass --input {key}={sample} or --input-json FILE"
