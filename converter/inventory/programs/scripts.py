"""A light static scan of shell programs and the usage text of any program.

Shell: the leading comment block, ``case`` arms that spell flags (``-t|--title)``), ``getopts``
letters, and the words of ``case "$action" in ... esac`` (Node programs: ``node.py``).
What cannot be seen this way is left to the invocations in SKILL.md.  A usage line
(``Usage:``/``用法:``) splits into its arguments (positional names) and the description after
them; a positional no usage line names gets a generic name by what SKILL.md shows for it.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from skill2app.converter.inventory.invocations import program_of
from skill2app.converter.inventory.programs.interface import (
    Command,
    Param,
    add_param,
    dest_of,
    first_paragraph,
)
from skill2app.converter.inventory.shell import FUNCTION

_SH_CASE_ARM = re.compile(r"^\s*\(?\s*([^()#]*?)\s*\)\s*(.*)$")
_SH_CASE_START = re.compile(r"\bcase\s+\"?\$\{?(\w+)[^\s\"]*\"?\s+in\b")
_SH_GETOPTS = re.compile(r"\bgetopts\s+[\"']?:?([A-Za-z:]+)[\"']?")
_SH_TAKES_VALUE = re.compile(r"\$\{?2|shift\s+2|\$\{?1#|OPTARG")


def leading_comment(source: str, marker: str) -> str:
    """The comment block at the top of a script (after the shebang), without markers."""
    lines = source.replace("\r\n", "\n").split("\n")
    if lines and lines[0].startswith("#!"):
        lines = lines[1:]
    text: list[str] = []
    in_block = False
    for line in lines:
        stripped = line.strip()
        if marker == "//" and (stripped.startswith("/*") or in_block):
            in_block = "*/" not in stripped
            if not _DIRECTIVE.match(stripped.strip("/*").strip()):  # /* eslint-disable */
                text.append(stripped.strip("/*").strip())
        elif stripped.startswith(marker):
            if not _DIRECTIVE.match(stripped[len(marker) :].strip()):
                text.append(stripped[len(marker) :].strip())
        elif stripped or text:
            if stripped.startswith(("'use strict'", '"use strict"')):
                continue
            if marker == "#" and stripped.startswith("set -") and text:
                text = _without_option_note(text)
            break
    return "\n".join(text).strip()


# A comment for a tool, not for the reader: "oxlint-disable no-console", "@ts-check",
# "shellcheck disable=SC2086", "-*- coding: utf-8 -*-", "SPDX-License-Identifier: MIT".
_DIRECTIVE = re.compile(
    r"^(?:(?:es|ox)lint-|eslint |oxlint |biome-ignore|prettier-ignore|@ts-|@flow\b|jshint |"
    r"globals? [\w$]+(?:[:,]|$)|istanbul ignore|c8 ignore|shellcheck |pylint:|noqa|"
    r"type:\s*ignore|fmt:|-\*-|vim?:|SPDX-License-Identifier|@license\b)"
)  # lower case, as the tools read them: "# Global search across the vault" is prose


# A comment on the shell's options: "Exit on error", "strict mode", "fail fast".
_OPTION_NOTE = re.compile(r"\b(?:exit|errors?|fail\w*|strict|abort|stop)\b", re.I)


def _without_option_note(lines: list[str]) -> list[str]:
    """A comment block without its last line when that line, alone in its paragraph and
    right above ``set -e``, says what the option does ("# Exit on error"): no header."""
    alone = len(lines) == 1 or not lines[-2]
    return lines[:-1] if alone and _OPTION_NOTE.search(lines[-1]) else lines


def scan_shell(source: str) -> tuple[Command, dict[str, list[str]]]:
    """(flags seen in the script, dispatch variable → the words its `case` matches)."""
    command = Command("shell", first_paragraph(leading_comment(source, "#")))
    dispatch: dict[str, list[str]] = {}
    ranges: set[str] = set()  # variables a `case` checks against a pattern (`0.[0-9]*|1`)
    lines = source.split("\n")
    own = _own_argument_functions(source)
    inside, depth = "", 0  # the function whose body this line is in, and its open braces
    case_var: list[str] = []  # stack of variables being matched
    variables: dict[str, str] = {}  # variable a flag's value goes to → the flag
    outside: list[str] = []  # the lines outside every `case`: where a script checks its flags
    for i, line in enumerate(lines):
        code = line.split(" #", 1)[0]
        defined = FUNCTION.match(code)
        if defined and not inside:
            inside, depth = defined.group(1), 0
        if inside:
            depth += code.count("{") - code.count("}")
            inside = inside if depth > 0 or defined else ""
        start = _SH_CASE_START.search(code)
        if not case_var and not start:
            outside.append(line)
        if start:  # `case "$1"` in a function of its own arguments: not the script's
            local = inside in own and start.group(1) in ("1", "@", "*")
            case_var.append("" if local else start.group(1))
            continue
        if re.search(r"\besac\b", code) and case_var:
            case_var.pop()
            continue
        arm = _SH_CASE_ARM.match(code) if case_var and ";;" not in code.split(")")[0] else None
        if arm:
            context = "\n".join(lines[i : i + 4]).split(";;", 1)[0]  # this arm's body only
            variables |= _shell_arm(arm.group(1), context, case_var[-1], command, dispatch)
            if any(re.search(r"[*?[]", w) for w in arm.group(1).split("|") if w.strip() != "*"):
                ranges.add(case_var[-1])
            _shell_default(command, arm.group(2), lines[:i])
        getopts = _SH_GETOPTS.search(code)
        if getopts:
            _shell_getopts(getopts.group(1), command)
    _shell_required("\n".join(outside), command, variables)
    # A `case` with a pattern checks a value (a range, a form), it does not choose among words.
    found = {k: sorted(set(v)) for k, v in dispatch.items() if v and k and k not in ranges}
    return command, found


def _own_argument_functions(source: str) -> set[str]:
    """The functions a script defines and never hands its own arguments (``"$@"``): a
    ``case "$1"`` in one of them (``default_priority_for_level() { case "$1" in ERROR)``)
    is about that function's argument.  One pass each way: linear on any script."""
    forwarded = set(re.findall(r"\b([A-Za-z_][\w-]*)\s+\"?\$[@*]", source))
    return set(FUNCTION.findall(source)) - forwarded


_SH_EMPTY_STOPS = re.compile(  # `[ -z "$TITLE" ] && die ...`, `if [ -z "$TITLE" ]; then exit`
    r"\[\[?\s{0,4}-z\s{1,4}\"?\$\{?(\w+)\}?\"?\s{0,4}\]\]?\s{0,4}"
    r"(?:&&[^\n]{0,160}?|;?\s{0,4}then\s{0,40}?[^\n]{0,160}?)"  # bounded: linear on any script
    r"\b(?:die|exit|usage|fail|error)\b"
)


def _shell_required(source: str, command: Command, variables: dict[str, str]) -> None:
    """A flag whose variable (``--title) TITLE="$2"``) the script stops without when it is
    empty, after reading its arguments (``source``: its lines outside the ``case`` arms, where
    ``[ -z "$SVC" ] && die`` is about a value the flag was given), is required."""
    for variable in set(_SH_EMPTY_STOPS.findall(source)):
        param = command.flag(variables.get(variable, ""))
        if param is not None and param.type != "boolean":
            param.required = param.certain = True


def _shell_arm(
    pattern: str, context: str, var: str, command: Command, dispatch: dict[str, list[str]]
) -> dict[str, str]:
    """Add the flag (or dispatch value) of one `case` arm; the variable that flag's value
    goes to → the flag (``--title) TITLE="$2"``)."""
    words = [w.strip().strip("\"'") for w in pattern.split("|")]
    flags = [w.split("=")[0] for w in words if w.startswith("-") and len(w) > 1]
    if flags:
        longs = [f for f in flags if f.startswith("--")] or flags
        takes_value = any("=" in w for w in words) or bool(_SH_TAKES_VALUE.search(context))
        param = Param(
            longs[0],
            "flag",
            dest_of(longs[0]),
            type="string" if takes_value else "boolean",
            aliases=[f for f in flags if f != longs[0]],
            source="shell",
            valued=takes_value,
        )
        add_param(command, param)
        target = re.search(r"\b([A-Za-z_]\w*)=[\"']?\$\{?(?:2|OPTARG|1#)", context)
        return {target.group(1): param.name} if target else {}
    values = [w for w in words if re.fullmatch(r"[A-Za-z0-9][\w.:-]*", w)]
    if values:
        dispatch.setdefault(var, []).extend(values)
    return {}


def _shell_default(command: Command, action: str, before: list[str]) -> None:
    """The default of the flag just added: the literal its variable (``range="$2"``) is
    given before the argument loop (``range="today"``)."""
    target = re.match(r"\s*(\w+)=[\"']?\$\{?(?:2|OPTARG|1#)", action)
    if target is None or not command.params or command.params[-1].default is not None:
        return
    assigned = re.compile(
        rf"^\s*(?:local\s+)?{target.group(1)}=([\"']?)([^\"'$`\s]+)\1\s*(?:#.*)?$"
    )
    for line in before:
        match = assigned.match(line)
        if match:
            command.params[-1].default = match.group(2)
            return


def _shell_getopts(spec: str, command: Command) -> None:
    for i, letter in enumerate(spec):
        if letter == ":":
            continue
        takes_value = i + 1 < len(spec) and spec[i + 1] == ":"
        add_param(
            command,
            Param(
                f"-{letter}",
                "flag",
                letter,
                type="string" if takes_value else "boolean",
                source="shell",
            ),
        )


_NOT_A_NAME = {"options", "option", "flags", "args", "arguments", "opts"}
# "Usage:", "usage :", "用法：", "使用方法:" at the start of a line.
USAGE_PREFIX = re.compile(r"^\s*(?:usage|用法|使用方法)\s*[:：]\s*", re.I)
_USAGE_TOKEN = re.compile(r"(\s*)(\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]|<[^<>]*>|\{[^{}]*\}|\S+)")
USAGE_SEPARATORS = frozenset({"-", "--", "—", "–", ":", "：", "#"})
_UPPER_NAME = re.compile(r"[A-Z][A-Z0-9_]+")  # FILE, LOG_DIR: a placeholder, not a literal
_FILE_LIKE = re.compile(r"[\w.-]*\w\.[A-Za-z0-9]{1,8}|[\w.~-]*/[\w./-]*")


def split_usage(line: str) -> tuple[str, str] | None:
    """(the arguments, the description after them) of a usage line such as
    ``用法: count.sh FILE 输出字数 (JSON)``, ``Usage: x.sh [-n N] FILE - count words`` or
    ``Usage: python fill.py input.pdf output.pdf``; None when ``line`` is no usage line.
    The program (with its interpreter) comes first; every word after it is an argument
    (bracketed, flags, names in any case, file names, choices) until the description,
    which starts after a separator (`` - ``, ``:``, ``—``, a word ending in ``:``, two
    spaces) or at a capitalised word, a word with non-ASCII letters or a ``(``."""
    match = USAGE_PREFIX.match(line)
    if not match:
        return None
    rest = line[match.end() :]
    found = list(_USAGE_TOKEN.finditer(rest))
    while found and _ASSIGNMENT.match(found[0].group(2)):  # `DOUBAN_USER=<id> python3 x.py`
        found.pop(0)
    tokens = found[program_of([t.group(2) for t in found])[2] :] if found else []
    begin = tokens[0].start(2) if tokens else len(rest)
    for token in tokens:
        space, word = token.group(1), token.group(2)
        if word in USAGE_SEPARATORS:
            return rest[begin : token.start()].strip(), rest[token.end() :].strip()
        if len(space) >= 2 or not word.isascii() or _capitalised(word) or word[:1] == "(":
            return rest[begin : token.start(2)].strip(), rest[token.start(2) :].strip()
        if word.endswith((":", "：")) and len(word) > 1:  # `dest: copies a file`
            return rest[begin : token.end() - 1].strip(), rest[token.end() :].strip()
    return rest[begin:].strip(), ""


_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")


def _capitalised(word: str) -> bool:
    """``Counts`` starts a sentence; ``FILE``, ``N...`` and ``FILE.diff`` name arguments."""
    return bool(re.fullmatch(r"[A-Z][a-z][\w'’-]*[.,;!?]?", word))


def without_usage(text: str) -> str:
    """``text`` without a usage line at its start: what the rest of that line says (the
    description after the arguments) and the lines after it."""
    first, _, more = text.strip().partition("\n")
    split = split_usage(first)
    if split is None:
        return text.strip()
    return "\n".join(part for part in (split[1], more.strip()) if part)


def usage_positionals(doc: str, literals: Collection[str] = ()) -> list[str]:
    """Names of the positional arguments a usage line shows: ``LOGFILE``, ``<file>``,
    ``[input pdf]``, ``input.pdf``, and plain lower-case words (``usage: $0 source dest``)
    when the line has no placeholders or flags to tell its literals from its names; flags,
    choices (``a|b``), ``[options]`` and ``literals`` (the program's subcommands) are
    skipped, and so is the description after the arguments."""
    split = next((s for line in doc.split("\n") if (s := split_usage(line)) is not None), None)
    if split is None:
        return []
    words = [m.group(2) for m in _USAGE_TOKEN.finditer(split[0])]
    plain = not any(w[:1] in "[<{-" or _UPPER_NAME.match(w) for w in words)
    names = []
    for word in words:
        text = word[1:-1].strip() if word[:1] in "[<{" and len(word) > 1 else word
        if (
            text.startswith(("-", "$"))
            or "|" in text
            or "," in text
            or "..." in text
            or text.lower() in _NOT_A_NAME
            or text in literals
        ):
            continue
        upper = _UPPER_NAME.match(text)
        if upper and (upper.end() == len(text) or _FILE_LIKE.fullmatch(text)):
            names.append(dest_of(upper.group(0)))  # FILE.diff: a FILE
        elif (
            word[:1] in "[<{"
            or _FILE_LIKE.fullmatch(text)
            or (plain and re.fullmatch(r"[a-z][\w-]*", text))
        ):
            names.append(dest_of(text))
    return names


# A top-level assignment of a positional argument: ``MODE="${1:-check}"``, ``FILE=$1``.
_SH_POSITIONAL = re.compile(
    r'^(?:readonly\s+|declare\s+)?([A-Za-z_]\w{0,40})="?\$(?:\{([1-9])(?::-([^}"\s]{0,40}))?\}'
    r'|([1-9]))"?\s*(?:#.*)?$',
    re.M,
)
# Names a usage line gives a positional for want of one: its first choice, or a kind of value.
_GENERIC = frozenset({"text", "value", "arg", "argument", "param", "input"})


def name_shell_positionals(command: Command, source: str) -> None:
    """A shell script's own name for a positional it reads into a variable
    (``MODE="${1:-check}"`` under ``usage: x.sh [check|run]``: the input is ``mode``, by
    default ``check``; before, it was named after its first choice), where the usage line
    gave only a choice list or a generic name; the default after ``:-`` when none is known."""
    positionals = command.positionals()
    for match in _SH_POSITIONAL.finditer(source):
        variable, index, default = match.group(1), match.group(2) or match.group(4), match.group(3)
        if int(index) > len(positionals):
            continue
        param = positionals[int(index) - 1]
        choices = param.choices or []
        chosen = bool(choices) and param.name == dest_of(str(choices[0]))
        if chosen or param.name in _GENERIC:
            _own_name(command, param, dest_of(variable.lower()))
        if default and re.search(r"[$`~]", default):
            continue  # "${1:-$HOME}", "${1:-$(pwd)}": the shell's value, no literal default
        if default and param.default is None and not param.required:
            if not param.choices or default in param.choices:
                param.default = default


def _own_name(command: Command, param: Param, name: str) -> None:
    """Call ``param`` by the name the script gives it, unless another parameter has it."""
    if name and name not in {p.dest for p in command.params if p is not param}:
        param.name = param.dest = name


# `method = sys.argv[1]`, `params_str = sys.argv[2] if len(sys.argv) > 2 else ""`.
_PY_POSITIONAL = re.compile(
    r"^[ \t]*([A-Za-z_]\w{0,40})\s*=\s*sys\.argv\[([1-9])\]"
    r"(\s+if\s+len\(\s*sys\.argv\s*\)\s*>=?\s*\d+\s+else\b)?",
    re.M,
)
# What a positional is called by its example's look alone (``positional_name``'s own).
_BY_LOOK = frozenset({"number", "url", "file", "path", "text", "json"})


def name_python_positionals(command: Command, source: str) -> None:
    """A Python script's own name for a positional it reads from ``sys.argv`` by hand
    (tencent-meeting-mcp's ``method = sys.argv[1]``), where the input was named by the look
    of the documented example (``tools/call`` made ``path``, which app-run then resolved as
    a file); a ``_str``/``_json`` suffix of the variable is dropped (``params_str``).  One
    read only when given (``sys.argv[2] if len(sys.argv) > 2 else ""``) is optional."""
    if command.framework != "none":
        return
    positionals = command.positionals()
    reads: dict[int, list[tuple[str, bool]]] = {}  # index -> (name, read only when given)
    for match in _PY_POSITIONAL.finditer(source):
        name = dest_of(re.sub(r"_(?:str|string|json|arg|raw)$", "", match.group(1).lower()))
        reads.setdefault(int(match.group(2)), []).append((name, bool(match.group(3))))
    for index, found in reads.items():
        if index > len(positionals):
            continue
        param = positionals[index - 1]
        names = {name for name, _guarded in found}
        # one name for it everywhere: a subcommand script reads argv[2] as several things
        (name,) = names if len(names) == 1 else ("",)
        if param.dest.rstrip("_0123456789") in _BY_LOOK | _GENERIC and not name.startswith("_"):
            _own_name(command, param, name)
        if all(guarded for _name, guarded in found) and not param.certain:
            param.required, param.certain = False, True


_PLACEHOLDER_NAME = re.compile(r"<([\w .-]+)>|\{([\w .-]+)\}|\[([\w .-]+)\]|([A-Z][A-Z0-9_]{2,})")


def positional_name(word: str) -> str:
    """The name of a positional argument SKILL.md shows but no usage line names: a
    placeholder's own (``<input.pdf>``, ``{name}``, ``LOGFILE``), else a generic one by what
    the value is (``number``, ``url``, ``file``, ``path``, ``text``) — never the example
    itself: ``article.txt`` is a file, not ``article_txt``."""
    placeholder = _PLACEHOLDER_NAME.fullmatch(word)
    if placeholder:
        return dest_of(next(g for g in placeholder.groups() if g))
    value = word.strip("<>{}[]\"'")
    if re.fullmatch(r"-?\d+(\.\d+)?", value):
        return "number"
    if re.match(r"[a-z][a-z0-9+.-]*://", value, re.I):
        return "url"
    if re.fullmatch(r"[^/]*[^/.]\.[A-Za-z0-9]{1,8}", value.rsplit("/", 1)[-1]):
        return "file"
    if "/" in value or value in (".", "..") or value.startswith("~"):
        return "path"
    return "text"


_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


def heredoc_help(source: str) -> list[str]:
    """The help a shell script prints from a here-document (``usage() { cat <<EOF ...``):
    the texts of its here-documents that list flags.  One pass over the lines, as the shell
    reads them: a body runs to its delimiter's line, or to the end."""
    texts: list[str] = []
    body: list[str] | None = None
    delimiter = ""
    for line in source.split("\n"):
        if body is not None:
            if line.strip() == delimiter:
                texts.append("\n".join(body))
                body = None
            else:
                body.append(line)
            continue
        start = _HEREDOC.search(line.split(" #", 1)[0])
        if start:
            body, delimiter = [], start.group(1)
    if body is not None:
        texts.append("\n".join(body))
    return [text for text in texts if re.search(r"^\s*\S*\s*--\w", text, re.M)]
