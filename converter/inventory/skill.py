"""Read a SKILL.md: frontmatter (Agent Skills fields + vendor extras), sections, code.

The frontmatter is the text between a first line that is exactly ``---`` and the NEXT line
that is exactly ``---`` — never the first ``---`` substring, so a description containing
``---`` survives.  It is parsed with PyYAML's safe loader (flow lists are fine).  A BOM and
CRLF line ends are tolerated; every line number reported is 1-based in the original file.
A SKILL.md that links out of its folder, is not a regular file (a named pipe, ``/dev/zero``)
or is over ``MAX_SKILL_MD_BYTES`` is refused before more than that is read (``SkillError``).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from skill2app.converter.errors import FrontmatterError, SkillError, Where
from skill2app.converter.inventory.markdown import CodeBlock, InlineCode, Section, scan_markdown
from skill2app.runtime.app.bounds import inside
from skill2app.runtime.app.document import refused_character
from skill2app.runtime.app.regular import NotRegular, read_regular

MAX_SKILL_MD_BYTES = 1_000_000
MAX_FRONTMATTER_NODES = 5_000
MAX_FRONTMATTER_DEPTH = 50
KNOWN_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
SKILL_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
FRONTMATTER_HINT = (
    "start SKILL.md with a line `---`, then `name: <skill-name>` and "
    "`description: <what it does and when to use it>`, then a line `---`"
)


@dataclass(frozen=True)
class Frontmatter:
    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    allowed_tools: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # vendor keys, JSON-safe values
    end_line: int = 0  # line of the closing `---`


@dataclass
class SkillDoc:
    path: str
    frontmatter: Frontmatter
    body: str
    body_line: int  # file line of the first body line
    sections: list[Section]
    code_blocks: list[CodeBlock]
    inline_code: list[InlineCode]
    warnings: list[str]

    @cached_property
    def body_lines(self) -> list[str]:
        """The body's lines (file line ``body_line + i`` is ``body_lines[i]``)."""
        return self.body.split("\n")

    @cached_property
    def code_lines(self) -> frozenset[int]:
        """File lines that belong to fenced code blocks (fences included)."""
        return frozenset(
            line
            for block in self.code_blocks
            for line in range(block.line, block.line + block.text.count("\n") + 3)
        )

    @cached_property
    def parents(self) -> list[int]:
        """The index of the section each section sits under; -1 for a top one."""
        found: list[int] = []
        open_ones: list[int] = []  # the sections a next heading may sit under, outermost first
        for index, section in enumerate(self.sections):
            while open_ones and self.sections[open_ones[-1]].level >= section.level:
                open_ones.pop()
            found.append(open_ones[-1] if open_ones else -1)
            open_ones.append(index)
        return found

    def section_of(self, line: int) -> int:
        """Index of the innermost section containing file line ``line``; -1 if none."""
        found = -1
        for i, section in enumerate(self.sections):
            if section.line <= line:
                found = i
        return found


def read_skill_md(path: Path, *, display: str | None = None) -> SkillDoc:
    """Read and parse ``path``.  ``display`` is its name in the skill (``SkillDoc.path``, the
    warnings; default: ``path``); errors name ``path`` as given, so it can be opened."""
    shown = str(path)
    name = path.name
    if not inside(path, path.parent):  # `SKILL.md -> ~/notes/private.md`: never read
        raise SkillError(
            f"{name} is a link to {os.path.realpath(path)}, outside the skill: not read",
            where=Where(shown),
            hint=f"copy that file into the skill as {name} if it is the skill's",
        )
    try:
        raw = read_regular(path, MAX_SKILL_MD_BYTES)  # a pipe, /dev/zero: never read
    except NotRegular as exc:
        raise SkillError(
            f"{name} is {exc.kind}, not a file",
            where=Where(shown),
            hint=f"{name} must be the skill's Markdown file",
        ) from None
    except OSError as exc:
        raise SkillError(f"cannot read {name}: {exc.strerror}", where=Where(shown)) from exc
    if len(raw) > MAX_SKILL_MD_BYTES:
        raise SkillError(
            f"{name} is more than {MAX_SKILL_MD_BYTES} bytes",
            where=Where(shown),
            hint="move long material into references/ and keep SKILL.md short",
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SkillError(
            "SKILL.md is not UTF-8", where=Where(shown, line), hint="save it as UTF-8"
        ) from exc
    return parse_skill_md(text, file=display or shown, folder_name=path.parent.name, shown=shown)


def parse_skill_md(
    text: str, *, file: str = "SKILL.md", folder_name: str = "", shown: str = ""
) -> SkillDoc:
    """Parse a SKILL.md's text; ``file`` is its path in the skill (``SkillDoc.path`` and the
    warnings), ``shown`` the path errors name (default: ``file``)."""
    shown = shown or file
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline ends the last line; it does not start another
    fm_lines, close_line = _split_frontmatter(lines, shown)
    warnings: list[str] = []
    data, key_lines = _load_frontmatter("\n".join(fm_lines), shown)
    frontmatter = _frontmatter(data, key_lines, (file, shown), folder_name, close_line, warnings)
    body_lines = lines[close_line:]
    sections, blocks, inline = scan_markdown(body_lines, close_line + 1, warnings, file)
    return SkillDoc(
        path=file,
        frontmatter=frontmatter,
        body="\n".join(body_lines),
        body_line=close_line + 1,
        sections=sections,
        code_blocks=blocks,
        inline_code=inline,
        warnings=warnings,
    )


# -- frontmatter ---------------------------------------------------------------------------


def _split_frontmatter(lines: list[str], file: str) -> tuple[list[str], int]:
    """The frontmatter lines and the file line of the closing ``---``."""
    if not lines or lines[0].rstrip() != "---":
        late = next((i for i, ln in enumerate(lines[:10]) if ln.rstrip() == "---"), None)
        if late is not None and all(not ln.strip() for ln in lines[:late]):
            raise FrontmatterError(
                f"the frontmatter must start on line 1, not line {late + 1}",
                where=Where(file, late + 1),
                hint="delete the blank lines before the opening `---`",
            )
        raise FrontmatterError(
            "SKILL.md has no frontmatter", where=Where(file, 1), hint=FRONTMATTER_HINT
        )
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return lines[1:i], i + 1
    raise FrontmatterError(
        "the frontmatter opened on line 1 is never closed",
        where=Where(file, 1),
        hint="add a line that is exactly `---` after the last frontmatter field",
    )


def _yaml_hint(problem: str) -> str:
    if "mapping values are not allowed" in problem:
        return 'quote the value, e.g. description: "Does X: ..."'
    if "'\\t'" in problem or "tab" in problem:
        return "indent the frontmatter with spaces, not tabs"
    if "could not determine a constructor" in problem:
        return "remove the YAML tag (`!...`); only plain YAML is read"
    return "fix the YAML syntax, or quote the value"


def _load_frontmatter(text: str, file: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The frontmatter mapping and the file line of each top-level key."""
    try:
        loader = yaml.SafeLoader(text)  # its reader refuses control characters at once
    except yaml.reader.ReaderError as exc:
        character, line = refused_character(exc, text)
        raise FrontmatterError(
            f"broken YAML in the frontmatter: unacceptable character {character}",
            where=Where(file, line + 2),
            hint="the frontmatter is plain text: remove the control character",
        ) from exc
    key_lines: dict[str, int] = {}
    try:
        node = loader.get_single_node()
        _check_size(node, file)
        _check_duplicates(node, file)
        if isinstance(node, yaml.MappingNode):
            for key, _value in node.value:
                key_lines.setdefault(str(key.value), key.start_mark.line + 2)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise FrontmatterError(
            f"broken YAML in the frontmatter: {problem}",
            where=Where(file, line),
            hint=_yaml_hint(problem),
        ) from exc
    except yaml.YAMLError as exc:
        raise FrontmatterError(
            f"broken YAML in the frontmatter: {exc}",
            where=Where(file, 1),
            hint=_yaml_hint(str(exc)),
        ) from exc
    except RecursionError:  # "[[[[..." thousands deep: PyYAML's composer recurses per level
        raise FrontmatterError(
            "the frontmatter is nested too deeply to read",
            where=Where(file, 2),
            hint="a frontmatter needs a few levels at most: flatten it",
        ) from None
    except (ValueError, OverflowError) as exc:  # an integer Python will not read, a bad date
        raise FrontmatterError(
            f"broken YAML in the frontmatter: a value Python cannot read ({str(exc)[:80]})",
            where=Where(file, 2),
            hint="quote the value to keep it as text",
        ) from None
    finally:
        loader.dispose()
    if data is None:
        raise FrontmatterError(
            "the frontmatter is empty", where=Where(file, 1), hint=FRONTMATTER_HINT
        )
    if not isinstance(data, dict):
        raise FrontmatterError(
            f"the frontmatter is a {type(data).__name__}, not a mapping of fields",
            where=Where(file, 2),
            hint="write one `key: value` per line",
        )
    return {str(k): v for k, v in data.items()}, key_lines


def _check_duplicates(node: yaml.Node | None, file: str, prefix: str = "") -> None:
    """Refuse a key given twice in one mapping (YAML would keep the last one silently),
    naming it (``metadata.version`` when nested) and the line of its second use."""
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_duplicates(item, file, prefix)
    if not isinstance(node, yaml.MappingNode):
        return
    first: dict[str, int] = {}
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        name, line = f"{prefix}{key.value}", key.start_mark.line + 2
        if name in first:
            raise FrontmatterError(
                f"the frontmatter has `{name}` twice (lines {first[name]} and {line})",
                where=Where(file, line),
                hint=f"keep one `{key.value}:` line; YAML would silently use the last one",
            )
        first[name] = line
        _check_duplicates(value, file, f"{name}.")


def _check_size(node: yaml.Node | None, file: str) -> None:
    """Refuse alias bombs: count nodes as if every alias were expanded, and name the
    top-level key whose value goes over the limit."""
    budget = MAX_FRONTMATTER_NODES
    if node is None:
        return
    tops = node.value if isinstance(node, yaml.MappingNode) else [(node, node)]
    for key, value in tops:
        stack: list[tuple[yaml.Node, int]] = [(value, 1)] if value is not None else []
        while stack:
            current, depth = stack.pop()
            budget -= 1
            if budget < 0:
                raise FrontmatterError(
                    f"the frontmatter expands to more than {MAX_FRONTMATTER_NODES} values",
                    where=Where(file, key.start_mark.line + 2),
                    hint="remove YAML anchors/aliases from the frontmatter",
                )
            if depth > MAX_FRONTMATTER_DEPTH:
                raise FrontmatterError(
                    f"the frontmatter is nested more than {MAX_FRONTMATTER_DEPTH} levels deep",
                    where=Where(file, current.start_mark.line + 2),
                    hint="a frontmatter needs a few levels at most: flatten it",
                )
            if isinstance(current, yaml.SequenceNode):
                stack.extend((item, depth + 1) for item in current.value)
            elif isinstance(current, yaml.MappingNode):
                for sub_key, sub_value in current.value:
                    stack.extend(((sub_key, depth + 1), (sub_value, depth + 1)))


def _frontmatter(
    data: dict[str, Any],
    key_lines: dict[str, int],
    files: tuple[str, str],
    folder: str,
    close_line: int,
    warnings: list[str],
) -> Frontmatter:
    file, shown = files  # the name in warnings, the path in errors
    name = data.get("name")
    if name is None or name == "":
        name = folder or "skill"
        warnings.append(f"{file}: frontmatter has no `name`; using the folder name {name!r}")
    elif not isinstance(name, str):
        raise FrontmatterError(
            f"`name` is a {type(name).__name__}, not text",
            where=Where(shown, key_lines.get("name", 1)),
            hint="write name: my-skill",
        )
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        got = "missing" if description is None else f"a {type(description).__name__}"
        if isinstance(description, str):
            got = "empty"
        raise FrontmatterError(
            f"the frontmatter `description` is {got}",
            where=Where(shown, key_lines.get("description", 1)),
            hint="add `description: <what the skill does and when to use it>` as text",
        )
    _lint(name, description, folder, data, file, warnings)
    return Frontmatter(
        name=name.strip(),
        description=" ".join(description.split()),
        license=_text_or_none(data.get("license")),
        compatibility=_text_or_none(data.get("compatibility")),
        metadata=_metadata(data.get("metadata"), file, warnings),
        allowed_tools=_allowed_tools(data.get("allowed-tools"), file, warnings),
        extra={k: jsonable(v) for k, v in sorted(data.items()) if k not in KNOWN_FIELDS},
        end_line=close_line,
    )


def _lint(
    name: str, description: str, folder: str, data: dict[str, Any], file: str, out: list[str]
) -> None:
    if not SKILL_NAME_RE.match(name.strip()) or len(name) > 64:
        out.append(f"{file}: name {name!r} is not 1-64 lowercase letters, digits and hyphens")
    elif folder and name.strip() != folder:
        out.append(f"{file}: name {name!r} differs from its folder name {folder!r}")
    if len(description) > 1024:
        out.append(f"{file}: description is {len(description)} characters (limit 1024)")
    compat = data.get("compatibility")
    if isinstance(compat, str) and len(compat) > 500:
        out.append(f"{file}: compatibility is {len(compat)} characters (limit 500)")


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    return value.strip() if isinstance(value, str) else str(jsonable(value))


def _metadata(value: Any, file: str, warnings: list[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        warnings.append(f"{file}: `metadata` is not a mapping; ignored")
        return {}
    return {str(k): jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}


def _allowed_tools(value: Any, file: str, warnings: list[str]) -> list[str]:
    """A space- or comma-separated string (``Bash(git add:*)`` keeps its space) or a list."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(jsonable(v)).strip() for v in value if str(v).strip()]
    if not isinstance(value, str):
        warnings.append(f"{file}: `allowed-tools` is neither text nor a list; ignored")
        return []
    tools: list[str] = []
    depth, current = 0, ""
    separators = "," if "," in value else ", \t\n"
    for ch in value:
        depth += (ch == "(") - (ch == ")")
        if depth <= 0 and ch in separators:
            if current.strip():
                tools.append(current.strip())
            current, depth = "", 0
        else:
            current += ch
    if current.strip():
        tools.append(current.strip())
    return tools


def jsonable(value: Any) -> Any:
    """A JSON-safe copy of a YAML value (dates become ISO text, keys become text)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set) else items
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
