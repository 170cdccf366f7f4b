"""Round-trip edits of YAML the user owns: pipeline.yaml and samples/answers.yaml.

ruamel.yaml keeps comments, key order, quoting and the file's indentation (guessed from the
file itself).  ruamel hangs the blank lines and comments that follow a step on the last scalar
of that step, so inserting a step moves that "tail" onto the new step and gives the step
before it the separator the list already uses; comments stay next to the step they precede.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2app.scaffold.errors import BadFile, Conflict, NotFound, Where
from skill2app.scaffold.files import read_text


@dataclass
class Document:
    """A YAML file loaded for a round trip."""

    path: Path
    text: str
    data: Any
    yaml: Any  # ruamel.yaml.YAML configured with the file's own indentation

    def dump(self) -> str:
        buffer = io.StringIO()
        self.yaml.dump(self.data, buffer)
        text = buffer.getvalue()
        return text.replace("\n", "\r\n") if "\r\n" in self.text else text

    def parse(self, text: str) -> Any:
        """Parse a snippet (rendered from a template) with the same settings."""
        return self.yaml.load(text)


def load(path: Path, *, list_key: str, kind: str) -> Document:
    """Load ``path`` for editing; it must be a mapping whose ``list_key`` is a list or mapping."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError

    text = read_text(path)
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap the user's long lines
    try:
        data = yaml.load(text.replace("\r\n", "\n"))
    except MarkedYAMLError as exc:  # also duplicate keys
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        raise BadFile(
            f"{kind} is not valid YAML: {exc.problem or exc.context}",
            where=Where(path, line),
            hint="fix the YAML first (app-new only edits files it can read back)",
        ) from exc
    if not hasattr(data, "get") or data.get(list_key) is None:
        raise BadFile(
            f"{kind} has no `{list_key}`", where=Where(path), hint=f"add `{list_key}:` first"
        )
    mapping, sequence, offset = _indents(data)
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return Document(path, text, data, yaml)


def step_list(doc: Document) -> Any:
    """The ``steps`` list of a pipeline.yaml (a ruamel ``CommentedSeq``)."""
    from ruamel.yaml.comments import CommentedSeq

    steps = doc.data["steps"]
    if not isinstance(steps, CommentedSeq):
        raise BadFile(
            "`steps` in pipeline.yaml is not a list",
            where=Where(doc.path, _line(doc.data, "steps")),
            hint="make it a list of steps",
        )
    return steps


def step_names(doc: Document) -> list[str]:
    """The name of every step, in order ("" for an item that is not a mapping)."""
    return [str(step.get("name")) if hasattr(step, "get") else "" for step in step_list(doc)]


def insert_step(doc: Document, entry: str, *, after: str | None) -> None:
    """Insert the step parsed from ``entry`` (a one-item YAML list) after step ``after``."""
    steps = step_list(doc)
    new = doc.parse(entry)[0]
    names = step_names(doc)
    if new["name"] in names:
        raise Conflict(
            f"step {new['name']!r} is already in the pipeline",
            where=Where(doc.path, steps[names.index(new["name"])].lc.line + 1),
            hint="pick another step name, or edit that step in pipeline.yaml",
        )
    index = _position(doc, names, after)
    if not steps:
        steps.fa.set_block_style()
        steps.append(new)
        return
    _move_tail(steps[index - 1], new, blank=_blank_separated(steps, index - 1))
    steps.insert(index, new)


def add_mapping_entry(doc: Document, key: str, entry: str) -> bool:
    """Add the one-key mapping parsed from ``entry`` to the mapping at ``key``, at its end.

    Returns False (and changes nothing) when that mapping already has the entry's key.
    """
    target = doc.data[key]
    if not hasattr(target, "items"):
        raise BadFile(f"`{key}` is not a mapping", where=Where(doc.path, _line(doc.data, key)))
    ((name, value),) = doc.parse(entry).items()
    if name in target:
        return False
    target[name] = value
    return True


def _position(doc: Document, names: list[str], after: str | None) -> int:
    if after is None:
        return len(doc.data["steps"])
    if after not in names:
        raise NotFound(
            f"step {after!r} is not in the pipeline",
            where=Where(doc.path),
            hint="--after takes one of: " + ", ".join(names),
        )
    return names.index(after) + 1


def _line(mapping: Any, key: str) -> int:
    try:
        return int(mapping.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, TypeError):
        return 0


def _indents(data: Any) -> tuple[int, int, int]:
    """(mapping, sequence, offset) indentation of the document, from its first examples."""
    found: dict[str, int] = {}
    _scan(data, 0, found, depth=0)
    sequence = found.get("sequence", 4)
    offset = found.get("offset", 2)
    mapping = found.get("mapping", max(2, sequence - offset))
    return mapping, sequence, offset


def _scan(node: Any, column: int, found: dict[str, int], *, depth: int) -> None:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if depth > 4 or len(found) == 3 or not isinstance(node, CommentedMap):
        return
    for key, value in node.items():
        key_column = node.lc.key(key)[1] if hasattr(node.lc, "key") else column
        if _block(value, CommentedMap):
            found.setdefault("mapping", value.lc.col - key_column)
            _scan(value, value.lc.col, found, depth=depth + 1)
        elif _block(value, CommentedSeq):
            found.setdefault("offset", value.lc.col - key_column)
            found.setdefault("sequence", value.lc.item(0)[1] - key_column)
            for item in value:
                if isinstance(item, CommentedMap) and item:
                    _scan(item, item.lc.col, found, depth=depth + 1)


def _block(value: Any, cls: type) -> bool:
    """Whether ``value`` is a non-empty block-style (not flow-style) ``cls``."""
    if not isinstance(value, cls):
        return False
    node: Any = value
    return len(node) > 0 and not node.fa.flow_style()


# --- the comment/blank-line tail that ruamel keeps after the last scalar of a node ---


def _move_tail(previous: Any, new: Any, *, blank: bool) -> None:
    """Give ``new`` what followed ``previous``; ``previous`` keeps its end-of-line comment."""
    old_slot, new_slot = _tail_slot(previous), _tail_slot(new)
    if old_slot is None or new_slot is None:
        return
    text, column = _get(old_slot)
    lead, rest = _split(text, block=old_slot[3])
    separator = "\n" if blank else ""
    if rest.startswith("#"):  # a comment line right after a block scalar: column -> spaces
        rest = " " * column + rest
    _set(old_slot, _join(lead, separator, block=old_slot[3]), column)
    _set(new_slot, _join("", rest, block=new_slot[3]), column)


def _blank_separated(steps: Any, index: int) -> bool:
    """Whether a blank line follows step ``index`` (for the first step: of the list's style)."""
    probe = steps[0] if len(steps) > 1 and index == len(steps) - 1 else steps[index]
    slot = _tail_slot(probe)
    if slot is None:
        return False
    return _split(_get(slot)[0], block=slot[3])[1].startswith("\n")


def _tail_slot(node: Any) -> tuple[Any, Any, int, bool] | None:
    """(container, key, position, ends with a block scalar) of the comment after ``node``."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString

    while True:
        if isinstance(node, CommentedMap) and node:
            key, position = list(node)[-1], 2
        elif isinstance(node, CommentedSeq) and node:
            key, position = len(node) - 1, 0
        else:
            return None
        value = node[key]
        if _block(value, CommentedMap) or _block(value, CommentedSeq):
            node = value
            continue
        block = isinstance(value, LiteralScalarString | FoldedScalarString)
        return node, key, position, block


def _get(slot: tuple[Any, Any, int, bool]) -> tuple[str, int]:
    """The tail's text and the column of its first comment."""
    node, key, position, _ = slot
    entry = node.ca.items.get(key)
    token = entry[position] if entry and len(entry) > position else None
    return (token.value, token.start_mark.column) if token is not None else ("", 0)


def _set(slot: tuple[Any, Any, int, bool], value: str, column: int) -> None:
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    node, key, position, _ = slot
    entry = node.ca.items.setdefault(key, [None, None, None, None])
    if not value:
        entry[position] = None
    elif entry[position] is None:
        entry[position] = CommentToken(value, CommentMark(column), None)
    else:
        entry[position].value = value


def _split(value: str, *, block: bool) -> tuple[str, str]:
    """(end of the node's own line, the lines after it).

    After a plain scalar the tail starts with that line's end: a comment or a bare newline.
    A block scalar ends its own line, so its tail is only the lines after it.
    """
    if block or not value or value[0] not in "#\n":
        return "", value
    end = value.index("\n") + 1 if "\n" in value else len(value)
    return value[:end], value[end:]


def _join(lead: str, rest: str, *, block: bool) -> str:
    if block:
        return rest
    text = (lead or "\n") + rest
    return "" if text == "\n" else text
