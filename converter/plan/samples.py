"""Sample inputs and scripted answers, so a converted pipeline runs offline at once.

``samples/input.json`` of a pipeline gives every required input, and the optional ones that
have a default.  A value is the example its description gives ("... (e.g. sales.csv)": the value
SKILL.md shows, which the analyzer puts there) when it fits the input's type and enum, else
the input's default, else its first enum value, else a placeholder of its type.  An example
that names a file the skill does not have is replaced by a skill file with the same
suffix (``sales.csv`` → ``assets/sample.csv``), unless the input is something to write.
An optional input without a default is left out: app-run hands the steps ``null`` for it,
which the generated adapters treat as absent.

A file to read whose example is no real file (``<file.pdf>``, a name the skill does not
ship) gets a small real file of its type, written beside the samples (``fixtures``: PDF,
xlsx, docx, PNG, CSV, text ...): ``pipelines/<p>/samples/<input>.pdf``; a folder to read
(``repo_path``, "Path to project directory") a small project of two files, one of images
(``images_dir``) two PNGs (``FOLDER_FIXTURES``): ``pipelines/<p>/samples/<input>/``.  What
is still a placeholder after that (a value of ``example``, a file of a type no fixture
covers, a folder holding something else) is named in ``samples/placeholders.json``
(``{"inputs": {"<input>": "<why, what to put there>"}}``): ``app-run test`` reports such a
pipeline as a placeholder, neither passed nor failed, and app-convert's report lists it.

``samples/answers.yaml`` gives one answer per llm step: the smallest value matching the
step's JSON Schema, with a property named like an input taking the input's sample value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from skill2app.converter.inventory.invocations import is_json_literal
from skill2app.converter.plan.fixtures import ALIASES, BY_SUFFIX, fixture_for, image_png
from skill2app.converter.plan.model import Input, Pipeline
from skill2app.runtime.run.inputs import names_no_path

_EXAMPLE = re.compile(r"(?:\be\.g\.|\bfor example\b|例如|比如)[:：,]?\s*", re.I)
_FILE_LIKE = re.compile(r"^[\w./~-]*[\w-]\.[A-Za-z0-9]{1,6}$")
_WRITES = re.compile(r"\b(?:out|output|write|writes|save|dest|destination|target)\b", re.I)
_QUOTES = "`'\"“”"
_QUOTED = re.compile(r'"(.*)"|\'(.*)\'|`(.*)`|“(.*)”', re.S)
_PLACEHOLDER = {"string": "example", "integer": 1, "number": 1, "boolean": False}


@dataclass
class Samples:
    """What a pipeline's ``samples/`` folder holds."""

    inputs: dict[str, Any] = field(default_factory=dict)  # samples/input.json
    files: dict[str, bytes] = field(default_factory=dict)  # APP path -> a fixture's bytes
    placeholders: dict[str, str] = field(default_factory=dict)  # input -> why, what to put


def sample_inputs(pipeline: Pipeline, files: list[str]) -> dict[str, Any]:
    """A sample value for every required input of ``pipeline`` and every optional one with
    a default (``files``: the skill's data files)."""
    return pipeline_samples(pipeline, files).inputs


def pipeline_samples(pipeline: Pipeline, files: list[str]) -> Samples:
    """The sample inputs of ``pipeline``, the fixture files they name and what is still a
    placeholder."""
    samples = Samples()
    folder = f"pipelines/{pipeline.name}/samples"
    programs = _program_inputs(pipeline)  # the inputs a program takes
    for item in pipeline.input:
        if not (item.required or item.default is not None):
            continue
        value = sample_value(item, files)
        if item.name not in programs or (item.default is not None and value == item.default):
            pass  # an llm step takes any text; the program's own default is its business
        elif (kind := _folder_kind(item, value)) and not _shipped_folder(value, files):
            value = f"{folder}/{item.name}"  # a small project, or a folder of two images
            for name, make in FOLDER_FIXTURES[kind].items():
                samples.files[f"{value}/{name}"] = make()
        elif _reads_a_file(item, value) and not _shipped(value, files):
            suffix = suffix_of(item, value)
            fixture = fixture_for(suffix) if suffix else None
            if fixture is not None:
                value = f"{folder}/{_fixture_name(item, value, fixture[0])}"
                samples.files[value] = fixture[1]
            else:
                samples.placeholders[item.name] = _why(item, suffix)
        elif value in (_PLACEHOLDER["string"], [_PLACEHOLDER["string"]]) or _placeholder(value):
            samples.placeholders[item.name] = (
                f"no example of {item.name} in the skill: put a real {item.type} value here"
            )
        samples.inputs[item.name] = value
    return samples


_PATHISH = re.compile(
    r"(?:^|_)(?:file|files|path|pdf|docx|doc|xlsx|xls|csv|tsv|json|txt|png|jpg|image|img|"
    r"photo|document|workbook|spreadsheet|log|logfile|md|html|yaml)(?:_|$)",
    re.I,
)
_NOT_A_FILE = re.compile(
    r"(?:^|_)(?:text|content|query|message|prompt|request)(?:_|$)"
    # what a file is, not the file: `document_type`, `file_format`, `image_count`
    r"|_(?:type|kind|format|mode|id|title|level|style|lang|language|count|size)$",
    re.I,
)


def _program_inputs(pipeline: Pipeline) -> set[str]:
    """The inputs a code step passes to its program (as an argument or on stdin)."""
    refs = []
    for step in pipeline.steps:
        refs += [a.ref for a in getattr(step, "args", [])]
        stdin = getattr(step, "stdin", None)
        refs += [stdin.ref] if stdin is not None else []
    return {ref.removeprefix("input.").split(".")[0] for ref in refs if ref.startswith("input.")}


def _fixture_name(item: Input, value: Any, suffix: str) -> str:
    """The fixture's file name: the example's own (``photo.png``), else the input's."""
    text = value.strip("<>[]{}\"'") if isinstance(value, str) else ""
    base = text.rsplit("/", 1)[-1]
    if re.fullmatch(r"[\w.-]+\.[A-Za-z0-9]{1,8}", base) and base.lower().endswith(suffix):
        return base
    return f"{item.name}{suffix}"


_FOLDER = re.compile(r"(?:^|_)(?:dir|directory|folder|unpacked|workspace)(?:_|$)", re.I)
_SUFFIX_WORDS = {
    "pdf": ".pdf", "docx": ".docx", "word": ".docx", "xlsx": ".xlsx", "xls": ".xlsx",
    "excel": ".xlsx", "workbook": ".xlsx", "spreadsheet": ".xlsx", "csv": ".csv", "tsv": ".tsv",
    "json": ".json", "txt": ".txt", "text": ".txt", "png": ".png", "image": ".png", "jpg": ".png",
    "md": ".md", "markdown": ".md", "html": ".html", "yaml": ".yaml", "xml": ".xml", "log": ".log",
}  # fmt: skip


def suffix_of(item: Input, value: Any) -> str:
    """The file type an input wants: its example's suffix, else a type its name or
    description names (``excel_file`` -> .xlsx, "the PDF to read" -> .pdf); "" if none."""
    if isinstance(value, str):
        match = re.search(r"(\.[A-Za-z0-9]{1,8})$", value.strip("<>[]{}\"'"))
        if match:
            return match.group(1).lower()
    for text in (item.name, item.description):
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            if word in _SUFFIX_WORDS:
                return _SUFFIX_WORDS[word]
    return ""


# What a folder to read gets when the skill shows none, by what it holds: a project of two
# files, or two images; any other folder stays a placeholder.
FOLDER_FIXTURES: dict[str, dict[str, Any]] = {
    "project": {
        "README.md": lambda: b"# Sample project\n\nA small project made by app-convert.\n",
        "src/main.py": lambda: b'def main():\n    print("hello")\n\n\nmain()\n',
    },
    "images": {"01.png": image_png, "02.png": image_png},
}
_FOLDER_WORDS = re.compile(r"\b(?:director(?:y|ies)|folders?|repo(?:sitory)?|project)\b", re.I)
_A_FILE = re.compile(r"(?:^|[\W_])(?:file|files|config|json|ya?ml|toml|csv|pdf)(?:$|[\W_])", re.I)
_HOLDS = {
    "project": re.compile(r"project|repo|codebase|source|(?:^|_)src(?:_|$)|package|plugin", re.I),
    "images": re.compile(r"image|(?:^|_)img|photo|picture|png|jpe?g", re.I),
}


def _folder_kind(item: Input, value: Any) -> str:
    """What a folder the program reads holds (``FOLDER_FIXTURES``: "project" for
    ``repo_path`` or "Path to project directory", "images" for ``images_dir``), when the
    skill gives no real example of it; "" otherwise."""
    said = f"{item.name} {item.description}"
    if item.type != "string" or _WRITES.search(said) or _A_FILE.search(said):
        return ""  # `config_path`, "Path to the project config file": a file in a folder
    if isinstance(value, str) and _DOCUMENT.search(value.strip("<>[]{}")):
        return ""  # its example names a file (`<config.json>`)
    pathish = re.search(r"(?:^|_)(?:path|root|dir)$", item.name)
    named = _FOLDER.search(item.name) or (pathish and _FOLDER_WORDS.search(item.description))
    text = value if isinstance(value, str) else ""
    if not named or not (text in ("", _PLACEHOLDER["string"]) or _placeholder(text)):
        return ""
    return next((kind for kind, words in _HOLDS.items() if words.search(said)), "")


def _shipped_folder(value: Any, files: list[str]) -> bool:
    """Whether ``value`` is a folder of the skill (copied into the APP)."""
    prefix = str(value).strip("/").removeprefix("./") + "/"
    return isinstance(value, str) and any(f.startswith(prefix) for f in files)


def _reads_a_file(item: Input, value: Any) -> bool:
    """Whether the input names a file the program reads (not one it writes, not a folder)."""
    if item.type != "string" or _WRITES.search(f"{item.name} {item.description}"):
        return False
    if _FOLDER.search(item.name) or _NOT_A_FILE.search(item.name):
        return False
    if names_no_path(item.name):
        return False  # `file_token`, `file_id`, `pdf_url`: its last word says what it is
    text = value if isinstance(value, str) else ""
    if is_json_literal(text) or re.search(r"\s", text.strip()):
        return False  # data or a sentence, not a file name
    file_like = bool(_DOCUMENT.search(text.strip("<>[]{}")))  # not v1.4.0: no letter suffix
    return bool(_PATHISH.search(item.name)) or file_like


_DOCUMENT = re.compile(r"^[\w./~-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,7}$")


def _placeholder(value: Any) -> bool:
    """A value SKILL.md wrote as a stand-in: ``<file>``, ``{id}``, ``$TOKEN``, ``...``,
    ``your_key``, ``path/to/x`` (an upper-case word such as ``HEAD`` may be real)."""
    if not isinstance(value, str) or is_json_literal(value):
        return False
    return bool(
        re.fullmatch(r"<[^<>]+>|\{\{?[^{}]+\}\}?", value)
        or "$" in value
        or "..." in value
        or re.search(r"(^|/)path/to/|your[-_]|YOUR_|^xxx|_xxx$|example\.com", value)
    )


def _shipped(value: Any, files: list[str]) -> bool:
    """Whether ``value`` is a file of the skill (copied into the APP)."""
    return isinstance(value, str) and value.removeprefix("./") in files


def _why(item: Input, suffix: str) -> str:
    kind = f"{suffix} file" if suffix else "file"
    return f"no sample {kind} for {item.name}: put the path of a real one here"


def fixture_types() -> list[str]:
    """The file suffixes a fixture can be made for."""
    return sorted({*BY_SUFFIX, *ALIASES})


def sample_value(item: Input, files: list[str]) -> Any:
    example = _typed(example_of(item.description), item.type)
    if example is not None and item.allows(example):
        if isinstance(example, str) and not _WRITES.search(f"{item.name} {item.description}"):
            return _existing_file(example, files, item.name)
        return example  # what SKILL.md shows (--width 800), not the program's default
    if item.default is not None:
        return item.default
    if item.enum:
        return [item.enum[0]] if item.type == "array" else item.enum[0]
    if item.type == "array":  # an empty list fails a required list (argparse's nargs="+")
        return [_PLACEHOLDER["string"]] if item.required else []
    return _PLACEHOLDER.get(item.type, {})


def example_of(description: str) -> str | None:
    """The text after the last "e.g." of ``description``, without a closing parenthesis; a
    quoted example (``e.g. ">> "``) is what is inside the quotes, spaces and all."""
    matches = list(_EXAMPLE.finditer(description))
    if not matches:
        return None
    text = description[matches[-1].end() :].strip()
    if text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1].rstrip()
    quoted = _QUOTED.fullmatch(text)
    if quoted:
        return next(part for part in quoted.groups() if part is not None) or None
    text = text.strip("`'\"“”")
    return text or None


def with_example(description: str, value: str) -> str:
    """``description`` with `` (e.g. VALUE)`` added, in the form ``example_of`` reads back: a
    JSON literal on one line, a value that starts or ends with a space or quote quoted."""
    if is_json_literal(value):
        value = json.dumps(json.loads(value), ensure_ascii=False)
    elif value != value.strip() or value[:1] in _QUOTES or value[-1:] in _QUOTES:
        value = f'"{value}"'
    return f"{description} (e.g. {value})" if description else f"e.g. {value}"


def _typed(example: str | None, kind: str) -> Any:
    if example is None:
        return None
    if kind == "integer":
        return int(example) if re.fullmatch(r"-?\d+", example) else None
    if kind == "number":
        return float(example) if re.fullmatch(r"-?\d+(?:\.\d+)?", example) else None
    if kind == "boolean":
        return {"true": True, "false": False}.get(example.lower())
    if kind == "array":
        if is_json_literal(example) and isinstance(json.loads(example), list):
            return json.loads(example)  # `-- python test.py`: every remaining word
        return [example]
    if kind == "object":
        return None
    return example


def _existing_file(example: str, files: list[str], name: str = "") -> str:
    """The skill's own file for an example path it does not ship (``roster.csv``): one of the
    same type, the one named like the example or the input first (``assets/sample_roster.csv``
    for ``--roster roster.csv``, not ``sample_requirements.csv``), then one under assets/,
    examples/ or samples/."""
    if not _FILE_LIKE.match(example) or example.lstrip("./") in files:
        return example
    suffix = "." + example.rsplit(".", 1)[1].lower()
    same = [f for f in files if f.lower().endswith(suffix)]
    words = {w for w in (example.rsplit("/", 1)[-1][: -len(suffix)].lower(), name.lower()) if w}

    def rank(path: str) -> tuple[bool, bool]:
        stem = path.rsplit("/", 1)[-1].lower()
        return (
            not any(w in stem for w in words),
            not path.startswith(("assets/", "examples/", "samples/")),
        )

    return min(same, key=rank) if same else example


# -- answers -----------------------------------------------------------------------------


def sample_answer(schema: dict[str, Any] | None, step: str, inputs: dict[str, Any]) -> Any:
    """The smallest answer that matches ``schema`` (any text when there is none)."""
    text = f"Sample answer of step {step}"
    if schema is None:
        return text
    return _instance(schema, text, inputs, "")


def _instance(schema: Any, text: str, inputs: dict[str, Any], name: str) -> Any:
    if not isinstance(schema, dict):
        return text
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]  # an answer the step's own checks pass (report_format)
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return _instance(schema[key][0], text, inputs, name)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: _instance(sub, text, inputs, key) for key, sub in properties.items()}
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        if schema.get("maxItems") == 0:
            return []
        return [_instance(schema.get("items") or {}, text, inputs, name)] * count
    if name in inputs and _matches(inputs[name], kind):
        return inputs[name]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return text


def _matches(value: Any, kind: str) -> bool:
    checks: dict[str, Any] = {"string": str, "integer": int, "number": (int, float)}
    wanted = checks.get(kind)
    return wanted is not None and isinstance(value, wanted) and not isinstance(value, bool)
