"""A YAML document loaded safely, keeping the line of every key and list item.

ruamel.yaml's round-trip loader keeps positions (``.lc``) so every error can name file:line.
Guards: a size cap (a 50 MB pipeline.yaml is a mistake, not an input), and a cap on the number
of nodes the document expands to, which stops alias "billion laughs" bombs before anything
walks the tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.errors import LoadError, Where

MAX_BYTES = 1_000_000
MAX_NODES = 100_000
MAX_DEPTH = 50  # a pipeline needs a handful of levels; deeper nesting only hurts the walkers


@dataclass
class Document:
    path: Path
    data: Any  # ruamel CommentedMap / CommentedSeq / scalars

    def line_of(self, *keys: str | int) -> int:
        """1-based line of the node at ``keys`` (or its nearest ancestor that has one)."""
        return line_at(self.data, keys)

    def where(self, *keys: str | int) -> Where:
        return Where(self.path, self.line_of(*keys))


def line_at(node: Any, keys: tuple[str | int, ...] | list[str | int]) -> int:
    line = 1
    for key in keys:
        lc = getattr(node, "lc", None)
        try:
            if lc is not None:
                pos = lc.key(key) if isinstance(key, str) else lc.item(key)
                line = pos[0] + 1
            node = node[key]
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    return line


def load_yaml(path: Path) -> Document:
    """Load ``path`` or raise LoadError naming the file, the line and what to do."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise LoadError(f"cannot read {path.name}: {exc.strerror}", where=Where(path)) from exc
    if size > MAX_BYTES:
        raise LoadError(
            f"{path.name} is {size:,} bytes; pipeline files are capped at {MAX_BYTES:,} bytes",
            where=Where(path),
            hint="keep data out of pipeline.yaml: put it in a file a step reads",
        )
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LoadError(f"cannot read file: {exc.strerror}", where=Where(path)) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise LoadError(
            f"file is not UTF-8 text (byte 0x{raw[exc.start]:02x})",
            where=Where(path, line),
            hint="save it as UTF-8",
        ) from exc
    return Document(path, parse_yaml(text, path))


def parse_yaml(text: str, path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        data = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        hint = "fix the YAML syntax at that line (indentation, quotes, a missing ':')"
        if isinstance(exc, DuplicateKeyError):
            hint = "a key may appear only once in a mapping: remove or rename one of them"
        raise LoadError(f"invalid YAML: {problem}", where=Where(path, line), hint=hint) from exc
    except ReaderError as exc:  # a control character such as NUL: a binary file?
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise LoadError(
            f"invalid YAML: unacceptable character #x{code:04x}",
            where=Where(path, text.count("\n", 0, exc.position) + 1),
            hint="pipeline files are plain text: remove the control character",
        ) from exc
    except YAMLError as exc:
        raise LoadError(f"invalid YAML: {exc}", where=Where(path)) from exc
    except RecursionError:  # e.g. "[[[[..." thousands deep: the parser recurses per level
        raise LoadError(
            "YAML is nested too deeply to read", where=Where(path), hint=_FLATTEN
        ) from None
    _count_nodes(data, path)
    return data


_FLATTEN = "a pipeline needs only a few levels of nesting: flatten the data"


def _count_nodes(data: Any, path: Path) -> None:
    """Walk the tree as a consumer would (aliases expanded), giving up past MAX_NODES nodes or
    MAX_DEPTH levels (the checks after this one walk it recursively)."""
    count = 0
    stack = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise LoadError(
                f"YAML expands to more than {MAX_NODES:,} nodes (an alias bomb?)",
                where=Where(path),
                hint="remove the repeated anchors/aliases",
            )
        if depth > MAX_DEPTH and isinstance(node, dict | list):
            lc = getattr(node, "lc", None)
            line = lc.line + 1 if lc is not None and lc.line is not None else 0
            raise LoadError(
                f"YAML is nested more than {MAX_DEPTH} levels deep",
                where=Where(path, line),
                hint=_FLATTEN,
            )
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)


def plain(node: Any) -> Any:
    """Convert ruamel containers to plain dict/list/str (for jsonschema and JSON output)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return node
