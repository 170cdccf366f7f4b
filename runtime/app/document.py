"""A YAML document loaded safely, keeping the line of every key and list item.

ruamel.yaml's round-trip loader keeps positions (``.lc``) so every error can name file:line.
Guards: a size cap (a 50 MB pipeline.yaml is a mistake, not an input), and a cap on the number
of nodes the document expands to, which stops alias "billion laughs" bombs before anything
walks the tree.  A value Python cannot make (an integer of more than 4,300 digits, a date such
as 2024-13-01: ``int()`` and ``date()`` raise inside the loader) is a LoadError at its line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.runtime.app import numbers
from skill2app.runtime.errors import LoadError, Where

MAX_BYTES = 1_000_000
MAX_NODES = 100_000
MAX_DEPTH = 50  # a pipeline, frontmatter or plan needs a handful of levels


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
        character, line = refused_character(exc, text)
        raise LoadError(
            f"invalid YAML: unacceptable character {character}",
            where=Where(path, line + 1),
            hint="pipeline files are plain text: remove the control character",
        ) from exc
    except YAMLError as exc:
        raise LoadError(f"invalid YAML: {exc}", where=Where(path)) from exc
    except RecursionError:  # e.g. "[[[[..." thousands deep: the parser recurses per level
        raise LoadError(
            "YAML is nested too deeply to read", where=Where(path), hint=_FLATTEN
        ) from None
    except ValueError as exc:  # 5,000 digits, 2024-13-01: int() or date() refused it
        raise _unreadable(text, path, f"invalid YAML: {exc}") from None
    _count_nodes(data, path, text)
    return data


def _unreadable(text: str, path: Path, otherwise: str) -> LoadError:
    """The error for a value the round-trip loader could not make, or made too long to print,
    at the line of the first such scalar (found again by composing ``text``)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    try:
        found = unreadable_scalar(yaml.compose(text), yaml.constructor.construct_object)
    except Exception:  # noqa: BLE001 - it loaded once: say what is known
        found = None
    if found is None:
        return LoadError(otherwise, where=Where(path), hint=numbers.HINT)
    line, why, hint = found
    return LoadError(why, where=Where(path, line + 1), hint=hint)


_CHECKED_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:timestamp")


def unreadable_scalar(root: Any, construct: Any) -> tuple[int, str, str] | None:
    """(0-based line, why, hint) of the first scalar under the composed YAML node ``root``
    whose value ``construct`` cannot make or makes too long to print; None if there is none."""
    found = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node.value, list):
            for item in node.value:
                stack.extend(item if isinstance(item, tuple) else (item,))
            continue
        problem = _scalar_problem(node, construct)
        if problem:
            found.append((node.start_mark.line, node.start_mark.column, *problem))
    if not found:
        return None
    line, _, why, hint = min(found)
    return line, why, hint


_DATE_HINT = "quote it to keep it as text, or write a date that exists"


def _scalar_problem(node: Any, construct: Any) -> tuple[str, str] | None:
    """(why, hint) when the int or timestamp scalar ``node`` cannot be used (None: it can, or
    it is neither)."""
    tag = str(node.tag)
    if tag not in _CHECKED_TAGS:
        return None
    is_int = tag == _CHECKED_TAGS[0]
    if is_int and len(str(node.value)) <= numbers.digit_limit() // 2:
        return None  # too short to be too long, in any base (hex is the densest)
    try:
        value = construct(node)
    except ValueError as exc:
        if is_int:
            return numbers.described(), numbers.HINT
        return f"{str(node.value)!r} is not a date ({exc})", _DATE_HINT
    return (numbers.described(), numbers.HINT) if numbers.too_long(value) else None


_FLATTEN = "a pipeline needs only a few levels of nesting: flatten the data"
_FLATTEN_ANY = "flatten the data: a few levels of nesting are all such a file needs"


def _count_nodes(data: Any, path: Path, text: str) -> None:
    """Walk the tree as a consumer would (aliases expanded), giving up past MAX_NODES nodes or
    MAX_DEPTH levels (the checks after this one walk it recursively), or at an integer too
    long to print (``0x`` and 4,000 hex digits)."""
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
        elif numbers.too_long(node):
            raise _unreadable(text, path, numbers.described())


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


# --- plain YAML and JSON from users' files (no line keeping), bounded the same way ------------

MAX_FILE_BYTES = 10_000_000  # samples, answers, plans, frontmatter: a bigger one is refused


def safe_yaml(
    text: str,
    path: Path | str,
    *,
    first_line: int = 1,
    max_nodes: int = MAX_NODES,
    max_depth: int = MAX_DEPTH,
) -> Any:
    """``text`` parsed as plain YAML (PyYAML's safe loader), refused with a LoadError naming
    ``path`` and the line (``first_line``: the file line of the text's first line) when it is
    broken, nests deeper than ``max_depth`` or expands (aliases counted each time they are
    used) to more than ``max_nodes`` values."""
    import yaml

    try:
        loader = yaml.SafeLoader(text)  # its reader refuses control characters at once
    except yaml.reader.ReaderError as exc:
        character, line = refused_character(exc, text)
        raise LoadError(
            f"invalid YAML: unacceptable character {character}",
            where=Where(path, line + first_line),
            hint="the file is plain text: remove the control character",
        ) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(node, path, first_line, max_nodes, max_depth, loader.construct_object)
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else first_line
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        raise LoadError(
            f"invalid YAML: {problem}", where=Where(path, line), hint="fix the YAML syntax"
        ) from None
    except yaml.YAMLError as exc:
        raise LoadError(f"invalid YAML: {exc}", where=Where(path, first_line)) from None
    except RecursionError:
        raise LoadError(
            "YAML is nested too deeply to read", where=Where(path, first_line), hint=_FLATTEN_ANY
        ) from None
    except ValueError as exc:  # _check_graph tried every int and date: not expected
        raise LoadError(
            f"invalid YAML: {exc}", where=Where(path, first_line), hint=numbers.HINT
        ) from None
    finally:
        loader.dispose()


def refused_character(exc: Any, text: str) -> tuple[str, int]:
    """What a YAML reader (PyYAML's or ruamel's ``ReaderError``) refused in ``text``: the
    character, as ``#x001b``, and the 0-based line it is on."""
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return f"#x{code:04x}", text.count("\n", 0, exc.position)


def _check_graph(
    node: Any, path: Path | str, first: int, max_nodes: int, max_depth: int, construct: Any
) -> None:
    count = 0
    stack = [(node, 0)]
    while stack:
        current, depth = stack.pop()
        count += 1
        line = current.start_mark.line + first
        if count > max_nodes:
            raise LoadError(
                f"YAML expands to more than {max_nodes:,} values (an alias bomb?)",
                where=Where(path, line),
                hint="remove the repeated anchors/aliases (&name, *name)",
            )
        if depth > max_depth:
            raise LoadError(
                f"YAML is nested more than {max_depth} levels deep",
                where=Where(path, line),
                hint=_FLATTEN_ANY,
            )
        if isinstance(current.value, list):
            for item in current.value:
                pairs = item if isinstance(item, tuple) else (item,)
                stack.extend((sub, depth + 1) for sub in pairs)
        else:
            problem = _scalar_problem(current, construct)
            if problem:
                raise LoadError(problem[0], where=Where(path, line), hint=problem[1])


def safe_json(text: str, path: Path | str) -> Any:
    """``text`` parsed as JSON, or a LoadError naming ``path`` and the line."""
    import json

    try:
        return numbers.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"invalid JSON: {exc.msg}", where=Where(path, exc.lineno), hint="fix the JSON syntax"
        ) from None
    except RecursionError:
        raise LoadError(
            "JSON is nested too deeply to read", where=Where(path), hint=_FLATTEN_ANY
        ) from None


def read_text(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """A user's text file, at most ``limit`` bytes (read no further), as UTF-8."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise LoadError(f"cannot read it: {exc.strerror or exc}", where=Where(path)) from None
    if len(raw) > limit:
        raise LoadError(
            f"{path.name} is larger than {limit:,} bytes",
            where=Where(path),
            hint="keep such files small: put big data in a file a step reads",
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise LoadError(
            "not UTF-8 text", where=Where(path, line), hint="save it as UTF-8"
        ) from None


def read_bounded(path: Path, kind: str, limit: int = MAX_FILE_BYTES) -> Any:
    """A user's JSON (``kind="json"``) or YAML file, read within every bound above."""
    text = read_text(path, limit)
    return safe_json(text, path) if kind == "json" else safe_yaml(text, path)
