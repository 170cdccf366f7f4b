"""What a skill's Node programs (and the JavaScript examples of its documents) need: packages,
environment variables and programs, read line by line from the code the program runs (its
template literals' text and its comments blanked: ``node_code``).  What only one platform uses
(a block under ``process.platform``) or what the program tests first (``process.env.X ||
fallback``, ``if (x)``, ``process.env.X ? a : b``) is a warning, not a blocking check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skill2app.converter.inventory.imports import LocalFiles
from skill2app.converter.inventory.requirements import COMMON_COMMANDS, Collector

NODE_BUILTINS = frozenset(
    "fs path os child_process util url http https http2 crypto events stream readline process "
    "assert buffer zlib net tls dns querystring string_decoder timers worker_threads module vm "
    "v8 perf_hooks async_hooks cluster dgram inspector punycode repl tty constants domain "
    "diagnostics_channel trace_events wasi sys console test".split()
)
_NODE_PLATFORM = re.compile(r"process\.platform|os\.platform\(\)|os\.type\(\)|\bisWin(?:dows)?\b")


def from_js_example(text: str, first_line: int, file: str, out: Collector) -> None:
    """Packages a JavaScript example requires, and node to run it: warnings, like Python's."""
    before = len(out.items)
    for offset, line in enumerate(text.split("\n")):
        for module in node_modules(line):
            _node_package(module, LocalFiles([]), f"{file}:{first_line + offset}", out, False)
    if len(out.items) > before:
        out.add("binary", "node", f"{file}:{first_line}", required=False)


_NODE_ENV = re.compile(
    r"(\?\?|\|\|)?\s*process\.env(?:\.(\w+)|\[\s*['\"](\w+)['\"]\s*\])(\s*(?:\?\?|\|\||\?\.))?"
)
# compared with a value it may have: `=== '1'`, `!== "false"`, `== 0`, `=== true`
_SWITCH = re.compile(r"\s*[!=]==?\s*(?:'[^'\n]+'|\"[^\"\n]+\"|`[^`\n]+`|\d|true\b|false\b)")
_NODE_IMPORT = re.compile(r"(?:require\(\s*|from\s+|import\s+|import\(\s*)['\"]([^'\"]+)['\"]")
_NODE_RUN = re.compile(
    r"\b(?:execSync|execFileSync|spawnSync|spawn|execFile|exec|execa)\(\s*['\"`]([\w.+-]+)"
)


_NODE_DYNAMIC = re.compile(r"\bimport\(\s*['\"]([^'\"]+)['\"]")


def node_modules(line: str) -> list[str]:
    """The modules a line of code loads (``require('x')``, ``import ... from 'x'``)."""
    return _NODE_IMPORT.findall(line)


def _dynamic(line: str, module: str) -> bool:
    """Whether ``line`` loads ``module`` with ``import("...")`` when it is needed: a fallback
    (``const sharp = (await import("sharp")).default`` when no cwebp is installed), which the
    program runs without on other paths."""
    return module in _NODE_DYNAMIC.findall(line)


def from_node(path: str, source: str, local: LocalFiles, out: Collector) -> None:
    """What a Node program needs: packages it imports (not the skill's own modules), the
    environment variables it reads without a fallback, the programs it runs."""
    code = node_code(source).split("\n")
    tested = _tested_names(source)  # once: a search per variable read was quadratic
    tolerated = tolerated_lines(source)
    for number, line, platform in _node_lines(source):
        where = f"{path}:{number}"
        tries = number in tolerated  # what throws here at once and is caught: a warning
        for match in _NODE_ENV.finditer(line):
            if not match.group(4) and re.match(r"\s*=(?!=)", line[match.end() :]):
                continue  # `process.env.GEMINI_WEB_LOGIN = '1'`: the program sets it
            if match.group(4) and re.match(
                r"\s*(?:\d|(['\"`])(?!\1)|[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)", line[match.end() :]
            ):
                continue  # `process.env.PORT || 3000`, `|| DEFAULT_URL`: a setting's default
            # a ?? b / a || b (the `||` before b may be the previous match's, read already)
            after_other = re.search(r"(?:\?\?|\|\|)\s*$", line[: match.start()])
            fallback = bool(match.group(1) or match.group(4) or after_other)
            fallback = fallback or _tested(line, match.start(), tested)
            name = match.group(2) or match.group(3)
            fallback = fallback or name in tested.ternary
            # `process.env.X_DISABLED === '1'`: a switch, off when unset (not `!== undefined`)
            fallback = fallback or bool(_SWITCH.match(line[match.end() :]))
            out.add("env", name, where, required=not (fallback or platform))
        for module in node_modules(code[number - 1]):  # not the code a template writes
            if module == "bun" or module.startswith("bun:"):  # Bun's own API: runs in bun only
                out.add("binary", "bun", where, required=not platform)
                continue
            _node_package(
                module, local, where, out, not (platform or tries or _dynamic(line, module))
            )
        call = _NODE_RUN.search(line)
        if call and call.group(1) not in COMMON_COMMANDS:
            caught = tries and bool(_THROWS.search(line))
            out.add("binary", call.group(1), where, required=not (platform or caught))


def node_code(source: str) -> str:
    """``source`` with the text of its template literals and its comments blanked, its lines
    kept (what a Node program runs): the code a
    program writes (``return `import React from 'react'` ``: uipath-coded-apps'
    build-dashboard.mjs generates components) is not code it runs.  The code of a ``${...}``
    in one is kept (`` `${require('chalk').red(x)}` `` runs chalk); strings, comments and
    regular expression literals are skipped so that a backtick in them opens nothing.  One
    pass: linear on any source."""
    out = list(source)
    stack: list[int] = []  # -1: a template's text; n >= 0: a ${...} in one, n braces deep
    quote, prev, i, size = "", "", 0, len(source)
    while i < size:
        char = source[i]
        if stack and stack[-1] < 0:  # a template's text
            if char == "\\":
                for at in (i, i + 1):
                    if at < size and source[at] != "\n":
                        out[at] = " "
                i += 2
            elif char == "`":
                stack.pop()
                prev, i = "`", i + 1
            elif source.startswith("${", i):
                stack.append(0)
                prev, i = "{", i + 2
            else:
                out[i] = " " if char != "\n" else char
                i += 1
            continue
        if quote:  # a string: ends at its quote, or at the end of its line
            quote = "" if char in (quote, "\n") else quote
            i += 2 if char == "\\" else 1
            continue
        if source.startswith("//", i) or source.startswith("/*", i):
            closer = "\n" if source[i + 1] == "/" else "*/"
            end = source.find(closer, i + 2)
            stop = size if end < 0 else end + (len(closer) if closer == "*/" else 0)
            for at in range(i, stop):  # a comment runs nothing: `// require('../old.js')`
                out[at] = out[at] if source[at] == "\n" else " "
            i = stop
            continue
        if char == "/" and (prev in _BEFORE_A_REGEX or _keyword_before(source, i)):
            i = _regex_end(source, i)
            prev = "/"
            continue
        if char in "'\"":
            quote = char
        elif char == "`":
            stack.append(-1)
        elif stack and char == "{":
            stack[-1] += 1
        elif stack and char == "}":
            stack[-1] -= 1
            if stack[-1] < 0:  # the ${...} ends: back to the template's text
                stack.pop()
        if not char.isspace():
            prev = char
        i += 1
    return "".join(out)


# What a regular expression literal follows: an operator or an opening, not a value ("a / b").
_BEFORE_A_REGEX = frozenset("(,=:[!&|?{};+-*%<>~^") | {""}


_KEYWORDS_BEFORE_A_REGEX = frozenset(
    "return typeof case do else in of void delete throw new yield await".split()
)


def _keyword_before(source: str, at: int) -> bool:
    """Whether the word right before ``at`` is a keyword a regular expression may follow
    (``return /`/.test(c)``)."""
    word = re.search(r"([a-z]{2,6})\s*$", source[max(0, at - 12) : at])
    return word is not None and word.group(1) in _KEYWORDS_BEFORE_A_REGEX


def _regex_end(source: str, start: int) -> int:
    """Where the regular expression literal opening at ``start`` ends (its line's end if it
    never closes), its character classes and escapes read."""
    i, in_class = start + 1, False
    while i < len(source) and source[i] != "\n":
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            return i + 1
        i += 1
    return i


@dataclass(frozen=True)
class _Tested:
    """What a Node program tests, read once per source: the names in its ``if (...)``
    conditions, negated (``!x``) or before ``||``/``??``/``&&``/``?``; the variables it tests
    in a conditional expression (rp-source-csv's ``process.env.CSV_INPUT_ROOT\n    ? ... :``)
    or, not negated, in an ``if`` (rp-source-wordpress's ``if (args.authHeaders.length === 0
    && process.env.WP_AUTH_HEADER)``), and those it reads for a flag left unset (``if
    (!args.apiKey) { args.apiKey = process.env.WP_API_KEY; }``)."""

    names: frozenset[str]
    ternary: frozenset[str]


def _tested_names(source: str) -> _Tested:
    names = {w for cond in _IF_TEST.findall(source) for w in re.findall(r"\w+", cond)}
    names |= set(re.findall(r"!\s*(\w+)\b", source))
    names |= set(re.findall(r"\b(\w+)\s*(?:\|\||\?\?|&&|\?)", source))
    ternary = {a or b for a, b in _ENV_TERNARY.findall(source)}
    ternary |= {a or b for cond in _IF_TEST.findall(source) for a, b in _ENV_READ.findall(cond)}
    ternary |= {a or b for _target, a, b in _FLAG_FALLBACK.findall(source)}
    return _Tested(frozenset(names), frozenset(ternary))


_IF_TEST = re.compile(r"\bif\s*\(([^)]{0,400})")
_ENV_TERNARY = re.compile(r"process\.env(?:\.(\w+)|\[\s*['\"](\w+)['\"]\s*\])\s*\?(?![.?])")
# Read in an `if` as a condition that lets the program go on without it (`&& process.env.X`),
# not one that stops it (`!process.env.X`).
_ENV_READ = re.compile(r"(?<![!\w])\s*process\.env(?:\.(\w+)|\[\s*['\"](\w+)['\"]\s*\])")
# `if (!args.apiKey) { args.apiKey = process.env.WP_API_KEY; }`: a flag's fallback.
_FLAG_FALLBACK = re.compile(
    r"\bif\s*\(\s*!\s*([\w.]{1,80})\s*\)\s*\{?\s*\1\s*=\s*"
    r"process\.env(?:\.(\w+)|\[\s*['\"](\w+)['\"]\s*\])"
)


def _tested(line: str, at: int, tested: _Tested) -> bool:
    """Whether the program copes without the variable read at ``line[at:]``: it is read in
    a condition (``if (process.env.X)``), or into a name the program tests
    (``const x = process.env.X; if (x && y) ...``, ``x || fallback``)."""
    if re.search(r"\bif\s*\(", line[:at]) or re.search(r"[!?]\s*$", line[:at]):
        return True
    named = re.match(r"\s*(?:const|let|var)\s+(\w+)\s*=\s*$", line[:at])
    return named is not None and named.group(1) in tested.names


def _node_package(
    module: str, local: LocalFiles, where: str, out: Collector, required: bool
) -> None:
    if module.startswith("node:") or local.node_local(module):
        return
    base = "/".join(module.split("/")[:2]) if module.startswith("@") else module.split("/")[0]
    if base not in NODE_BUILTINS:
        out.add("node-package", base, where, required=required)


# A function named for the platform it serves: `function pasteWindows(`, `const copyMac =`
# ("openWindow", "Machine" name none).
_PLATFORM_FUNCTION = re.compile(
    r"(?:\bfunction\s+|\b(?:const|let|var)\s+)\w*(?:Mac|Darwin|Windows|Win32|Linux|Wsl)"
    r"\s*(?:\(|=)"
)  # the platform word ends the name: "getLinuxStyleName" runs everywhere
# An early return unless on one platform: the rest of the block runs there only ("=== 'win32')
# return" skips one platform, and what follows runs on the others).
_ONLY_ON_ONE = re.compile(r"\bif\s*\(\s*process\.platform\s*!==?\s*['\"]\w+['\"]\s*\)\s*return\b")


_TRY = re.compile(r"\btry\s*\{")
CATCH = re.compile(r"\s*\bcatch\s*(?:\([^()]{0,80}\))?\s*\{")  # what follows a `try` block
_FAILS = re.compile(
    r"\bthrow\b|\bprocess\.exit|\bconsole\.(?:error|warn)\b|\b[Ee]rror\b|ok:\s*false|"
    r"\breject\(|\.fail\(|\breturn\s*(?:null|false|undefined)?\s*;|required|install|failed"
)
# what throws at once when its program is missing (`spawn`, `exec`: an 'error' event later)
_THROWS = re.compile(r"\b(?:execSync|execFileSync)\(")
MAX_TRIES = 200


def tolerated_lines(source: str) -> set[int]:
    """Lines inside a ``try`` whose ``catch`` goes on (``try { execFileSync('git', ...) }
    catch { /* no git: provenance stays null */ }``): what fails there at once (a package it
    requires, a program run with ``execSync``/``execFileSync``) is no need; a variable read
    there throws nothing, and stays one.  A catch that throws, exits, warns or reports a
    failure (``Error``, ``ok: false``, ``reject(``, ``return null``, "install") is the program
    failing: its try's needs stay needs."""
    lines: set[int] = set()
    for number, match in enumerate(_TRY.finditer(source)):
        if number >= MAX_TRIES:
            break
        end = closing_brace(source, match.end() - 1)
        catch = CATCH.match(source, end + 1) if end > 0 else None
        if catch is None:
            continue
        handler_end = closing_brace(source, catch.end() - 1)
        if handler_end < 0 or _FAILS.search(source, catch.end(), handler_end):
            continue
        first = source.count("\n", 0, match.start()) + 1
        lines.update(range(first, first + source.count("\n", match.start(), end) + 1))
    return lines


MAX_BLOCK = 20_000  # characters of a try block or its catch read to find their end


def closing_brace(source: str, opening: int) -> int:
    """The index of the brace closing the one at ``opening``, or -1 (none within MAX_BLOCK).
    Braces in strings count too: a miscount finds no end, and nothing is tolerated."""
    depth = 0
    for at in range(opening, min(len(source), opening + MAX_BLOCK)):
        char = source[at]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return at
    return -1


def _node_lines(source: str) -> list[tuple[int, str, bool]]:
    """(line number, line, whether it is only reached on some platforms): a line naming
    ``process.platform``, inside the block of an ``if`` that tests it, after an early
    ``if (process.platform !== 'darwin') return`` in its block, or inside a function named
    for a platform (``pasteWindows``, called from a ``case 'win32':``)."""
    found = []
    depth = 0
    platform_depths: list[int] = []  # depths of the blocks an `if` on the platform opened
    for number, line in enumerate(source.split("\n"), start=1):
        tests = bool(_NODE_PLATFORM.search(line))
        found.append((number, line, tests or bool(platform_depths)))
        if depth and "{" not in line and _ONLY_ON_ONE.search(line):
            platform_depths.append(depth)  # `if (process.platform !== 'darwin') return;`
        tests = tests or bool(_PLATFORM_FUNCTION.search(line))  # `function pasteWindows(`
        for char in line:
            if char == "{":
                depth += 1
                if tests:
                    platform_depths.append(depth)
                    tests = False
            elif char == "}":
                if platform_depths and platform_depths[-1] == depth:
                    platform_depths.pop()
                depth = max(depth - 1, 0)
    return found


# -- shell ---------------------------------------------------------------------------------
