"""Command lines as documentation writes them: usage lines, option lines, flag tables.

``usage_args`` reads the arguments of one usage line the way people write them:

- ``[...]`` is an optional group (``[--count 20] [--offset 0]``, ``[timeout_seconds]``), and
  may nest (``[--out FILE [--force]]``); everything else is required;
- ``--flag VALUE`` / ``--flag=VALUE`` / ``--flag <value>`` takes a value, a bare ``--flag``
  (followed by another flag, a group or nothing) is a switch: it never swallows the next flag;
- ``{a|b}``, ``<a|b>``, ``{a,b}`` and ``a|b`` give choices; ``x...`` / ``[x ...]`` repeat (an
  array); after ``--`` every remaining word belongs to the last positional (``cmd...``).

``option_line`` reads one line describing a flag (``-c, --count N  How many (default: 20)``,
``--timeout：轮询等待秒数（默认 60）``); ``default_in`` finds a default in any text
("default: 20", "defaults to 20", "默认 20", "默认值：20").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skill2app.converter.inventory.programs.interface import dest_of

_FLAG = re.compile(r"^--?[A-Za-z0-9][\w-]*$")
_PLACEHOLDER = re.compile(r"^<[^<>]+>$|^\{[^{}]+\}$|^[A-Z][A-Z0-9_]*$")
_ELLIPSIS = ("...", "…")
_NOT_A_NAME = {"options", "option", "flags", "args", "arguments", "opts", "opt", "flag"}
_DEFAULT = re.compile(
    r"(?:\bdefaults?\s*(?:is|to|value)?\s*[:=：]?\s*|默认(?:值|为|是)?\s*[:：=]?\s*)"
    r"[`'\"“]?(?P<value>[^\s`'\"”,;)），；。]+)",
    re.I,
)
NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")  # a value shown as a number: 20, -1, 0.5
_RANGE = re.compile(r"^<?\s*-?\d+\s*(?:\.\.|–|-|to)\s*-?\d+\s*>?$")
_FRACTION_NAME = re.compile(
    r"(?:^|[\W_])(?:frac|fraction|ratio|float|decimal|percent|rate)(?:$|[\W_])", re.I
)
_COUNT_NAME = re.compile(
    r"(?:^|[\W_])(?:n|num|number|count|sec|secs|seconds|int|size|limit|port|timeout|max)"
    r"(?:$|[\W_])",
    re.I,
)


@dataclass
class UsageArg:
    """One argument of a documented command line."""

    name: str  # "--count" for a flag; the positional's name otherwise
    kind: str  # flag | positional
    value: str = ""  # the value as written ("N", "<file>", "20"); "" for a switch
    optional: bool = False
    choices: list[str] | None = None
    repeat: bool = False  # `x...`: more than one value (an array)
    rest: bool = False  # after `--` or a REMAINDER: every remaining word
    aliases: list[str] = field(default_factory=list)
    default: str | None = None
    help: str = ""

    @property
    def switch(self) -> bool:
        plain = self.default is None or self.default.lower() in ("true", "false")
        return self.kind == "flag" and not self.value and not self.choices and plain

    @property
    def type(self) -> str:
        if self.kind == "flag" and self.switch:
            return "boolean"
        if self.repeat or self.rest:
            return "array"
        if _RANGE.match(self.value):  # `<-2..2>`, `<1-100>`, whatever its default says
            return "integer"
        sample = self.default if self.default is not None else self.value
        if sample and NUMBER.match(sample) and not _PLACEHOLDER.match(sample):
            return "number" if "." in sample else "integer"
        named = self.kind == "positional" or sample.upper() == sample or sample[:1] in "<["
        if _FRACTION_NAME.search(sample) and named:
            return "number"
        if _COUNT_NAME.search(sample) and named:
            return "integer"
        return "string"


# -- usage lines -------------------------------------------------------------------------

_TOKEN = re.compile(r"\[|\]|\{[^{}]*\}|<[^<>]*>|\"[^\"]*\"|'[^']*'|\|(?!\S)|[^\s\[\]]+")

# A positional named for the words a wrapper passes on to the program it runs, optional and
# last (`run-taze.sh [-r] [additional-args]`, `[taze_args]`): every word.
_PASSED_ON = re.compile(r"(?:^|_)(?:args|arguments|options|opts|flags)$")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def usage_args(text: str) -> list[UsageArg]:
    """The arguments of a usage line's argument part (the program already taken off)."""
    found: list[UsageArg] = []
    depth = 0
    rest = False
    words = _tokens(text)
    index = 0
    while index < len(words):
        word = words[index]
        named = _bracketed_name(words, index)
        if named:  # `[input pdf]`: a placeholder written with a space, not an optional group
            _positional(f"<{named}>", depth > 0, rest, found)
            index += len(named.split()) + 2
            continue
        if word == "[":
            depth += 1
        elif word == "]":
            depth = max(0, depth - 1)
        elif word == "--":
            rest = True
        elif word in _ELLIPSIS or word in ("|", "\\"):  # a backslash: the line goes on
            if word in _ELLIPSIS and found:
                found[-1].repeat = True
        elif word.startswith("-") and _FLAG.match(word.split("=", 1)[0]) and not rest:
            index = _flag(words, index, depth > 0, found)
            continue
        elif _more_of_flag(found, word, words[index + 1 : index + 2]):
            found[-1].repeat = True  # `--exclude pattern1 pattern2 ...`: the flag takes many
        else:
            _positional(word, depth > 0, rest, found)
        index += 1
    last = next((a for a in reversed(found) if a.kind == "positional"), None)
    if last and last.optional and _PASSED_ON.search(last.name):
        last.repeat = last.rest = True  # `run-taze.sh [-r] [additional-args]`, last: every word
    return _one_repeated(found)


def _one_repeated(found: list[UsageArg]) -> list[UsageArg]:
    """``ID [ID ...]``: one positional of one or more values (an array), not ``id`` and an
    optional ``id`` of its own (kobo_get.sh's ``REVISION_ID [REVISION_ID ...]``)."""
    kept: list[UsageArg] = []
    for arg in found:
        before = kept[-1] if kept else None
        if (
            before is not None
            and arg.kind == before.kind == "positional"
            and arg.name == before.name
            and arg.repeat
        ):
            before.repeat = True
            continue
        kept.append(arg)
    return kept


def _more_of_flag(found: list[UsageArg], word: str, after: list[str]) -> bool:
    """Whether ``word`` is a second value of the flag just read, said before an ellipsis:
    ``pattern2`` in ``--exclude pattern1 pattern2 ...`` (the same name numbered on; a file
    of the same kind is not: ``-o merged.pdf input.pdf ...`` names the inputs after it)."""
    last = found[-1] if found else None
    if last is None or last.kind != "flag" or not last.value or not set(after) & {*_ELLIPSIS}:
        return False
    first, second = last.value.strip("<>"), word.strip("<>")
    return re.sub(r"\d+$", "", first) == re.sub(r"\d+$", "", second) != first


def _bracketed_name(words: list[str], index: int) -> str:
    """The words of ``[input pdf]`` starting at ``words[index]`` (a ``[``): two or more plain
    lower-case words and no flag; "" for anything else."""
    if words[index] != "[":
        return ""
    inside: list[str] = []
    for word in words[index + 1 :]:
        if word == "]":
            break
        if not re.fullmatch(r"[a-z][\w.-]*", word):
            return ""
        inside.append(word)
    else:
        return ""
    return " ".join(inside) if len(inside) >= 2 else ""


def _flag(words: list[str], index: int, optional: bool, found: list[UsageArg]) -> int:
    word = words[index]
    name, _, attached = word.partition("=")
    arg = UsageArg(name, "flag", optional=optional)
    nxt = words[index + 1] if index + 1 < len(words) else ""
    if attached:
        arg.value = attached
        index += 1
    elif nxt and nxt not in ("[", "]", "|", "--", *_ELLIPSIS) and not _FLAG.match(nxt):
        arg.value = nxt.strip("\"'")
        index += 2
    else:
        index += 1
    arg.choices = _choices(arg.value)
    if arg.value.endswith(_ELLIPSIS):
        arg.repeat, arg.value = True, arg.value.rstrip(".…")
    _merge(found, arg)
    return index


def _positional(word: str, optional: bool, rest: bool, found: list[UsageArg]) -> None:
    text = word.strip("<>{}\"'")
    repeat = text.endswith(_ELLIPSIS)
    text = text.rstrip(".…").strip()
    if not text or text.lower() in _NOT_A_NAME or text.startswith("$"):
        return
    choices = _choices(word)
    name = dest_of(re.split(r"[|,]", text)[0] if choices else text)
    if rest and found and found[-1].rest:
        found[-1].repeat = True
        return
    _merge(found, UsageArg(name, "positional", word, optional, choices, repeat, rest))


# Words that stand for a value, never one of a list of allowed values.
_PLACEHOLDERS = frozenset(
    "file path dir directory folder url uri input output stdin stdout".split()
)


# A part of a placeholder that names a kind of reference, not a literal value: "BVID",
# "av-number", "b23.tv-link", "bilibili-video-URL"; two of them make the placeholder
# ("<by-name|by-id>" stays a choice of two modes).
_KIND_OF_VALUE = re.compile(r"(?i:(?:^|[-.])(?:url|uri|id|number|link|path))$|^[A-Z0-9]*ID$")


def _choices(value: str) -> list[str] | None:
    inner = value.strip("<>{}()")
    if value[:1] in "<{" or "|" in value:
        parts = [p.strip() for p in re.split(r"\||,", inner) if p.strip()]
        if any(p == "-" or p.lower() in _PLACEHOLDERS for p in parts):
            return None  # "FILE|-", "URL|FILE", "<path|url>": a value of either kind, no choices
        if value[:1] == "<" and sum(bool(_KIND_OF_VALUE.search(p)) for p in parts) >= 2:
            return None  # "<BVID | av-number | b23.tv-link>": kinds of reference, no choices
        if len(parts) >= 2 and all(re.fullmatch(r"[\w.:-]+", p) for p in parts):
            return parts
    return None


def _merge(found: list[UsageArg], arg: UsageArg) -> None:
    """Add ``arg``; a name seen again (``--server A --server B``) repeats."""
    for known in found:
        if known.kind == arg.kind == "flag" and known.name == arg.name:
            known.repeat = True
            return
    found.append(arg)


# -- option lines ------------------------------------------------------------------------

_FLAGS = r"(?:-[A-Za-z0-9]\b|--[A-Za-z0-9][\w-]*)(?:[ ,/|]+(?:-[A-Za-z0-9]\b|--[A-Za-z0-9][\w-]*))*"
_VALUE = r"<[^<>]+>|\{[^{}]+\}|[A-Z][A-Z0-9_]*|\[[^\]]+\]"
# `--flag VALUE` then two spaces, a colon or a dash, then its description; or the same in
# inline code (`- \`--flag\` description`).  One space after a bare flag is prose.
_OPTION = re.compile(
    rf"^\s*(?:[-*+]\s+)?(?:`(?P<cflags>{_FLAGS})(?:[ =](?P<cvalue>[^`]+))?`"
    r"(?P<csep>\s*[:：—–-]?\s*)"
    rf"|(?P<flags>{_FLAGS})(?:[ =](?P<value>{_VALUE}))?"
    r"(?P<sep>\s{2,}|\s*[:：—–]\s*|\s+-\s+|\s*$))(?P<help>.*)$"
)


def option_line(line: str) -> UsageArg | None:
    """A line that describes one flag (``-c, --count N  How many (default: 20)``,
    ``- `--timeout`：轮询等待秒数（默认 60）``); None when it is no such line."""
    match = _OPTION.match(line)
    if match is None:
        return None
    flags = re.findall(r"--?[A-Za-z0-9][\w-]*", match["flags"] or match["cflags"])
    longs = [f for f in flags if f.startswith("--")] or flags
    value = (match["value"] or match["cvalue"] or "").strip("[]").strip("\"'")
    rest = match["help"]
    aligned = re.match(r"(<[^<>\s]+>|\{[^{}\s]+\})(?:\s{2,}|\s*$)", rest)
    if not value and aligned:  # "--mode      <mode>      Update mode": a column of values
        value, rest = aligned.group(1), rest[aligned.end() :]
    help_text = re.split(r"[，,;；]?\s*`--?[A-Za-z]", rest)[0].strip().strip("`").strip()
    arg = UsageArg(longs[0], "flag", value, aliases=[f for f in flags if f != longs[0]])
    arg.help = help_text
    arg.optional = not re.search(r"\brequired\b|必填|必需|必须", help_text, re.I)
    arg.choices = _choices(value) if value else None
    arg.default = default_in(help_text)
    if not value and arg.default is not None and arg.default.lower() not in ("true", "false"):
        arg.value = arg.default  # it takes a value: it has one by default
    return arg


def default_in(text: str) -> str | None:
    """The default a description states ("default: 20", "默认 60", "(default `json`)")."""
    match = _DEFAULT.search(text)
    if match is None:
        return None
    value = match["value"].strip(".")
    after = text[match.end() :]
    if re.match(r"[a-z]+$", value) and re.match(r" +[a-z]{2,}\b(?! *[)）,;])", after):
        return None  # "default: user workspace under X": a phrase, not the value passed
    if value.startswith(("$", "%")) or re.match(r"[`'\"”]?\s+(?:or|else|otherwise|否则)\s", after):
        return None  # "default: $PANDOC or `pandoc` on PATH": the program works it out
    return value or None
