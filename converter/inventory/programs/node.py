"""A light static scan of Node programs: declared flags, hand-rolled argument loops, dispatch.

Declarations are complete and win: ``util.parseArgs`` options, commander's
``.option('-c, --count <n>', 'help', 20)`` / ``.requiredOption(...)`` / ``.argument('<file>')``
and yargs' ``.option('count', {type: 'number', default: 20, demandOption: true})``.  Without
one, flags are the ``'--x'`` string literals of the source, and what the code does next to
each tells its type: ``argv[++i]`` takes a value (``parseInt(argv[++i])`` a number), ``= true``
or a fixed ``= 'mode'`` makes it a switch.  The values a variable is compared with
(``switch (action) { case 'create_event': ...}``, ``action === 'x'``) are dispatch values.
"""

from __future__ import annotations

import re

from skill2app.converter.inventory.programs.interface import (
    Command,
    Param,
    add_param,
    dest_of,
    first_paragraph,
)
from skill2app.converter.inventory.programs.scripts import leading_comment
from skill2app.converter.inventory.programs.usage import usage_args

_JS_PARSEARGS = re.compile(  # a name starts a word, and is bounded: linear on long words
    r"(?<![\w-])[\"']?([A-Za-z][\w-]{0,60})[\"']?\s*:\s*\{\s*type\s*:\s*[\"'](string|boolean)[\"']"
    r"(?P<rest>[^}]*)\}"
)
_JS_FLAG_LITERAL = re.compile(r"[\"'](--[a-z][a-z0-9-]*)[\"']")
# Calls that put a flag on an argv the program passes on, not one it reads.
_PASSED_ON = frozenset({"push", "unshift", "concat", "spawn", "spawnSync", "execFile"})
_JS_SWITCH = re.compile(r"\bswitch\s*\(\s*(?:[\w$]+(?:\.|\[['\"]))?([\w$]+)['\"]?\]?\s*\)\s*\{")
_JS_CASE = re.compile(r"\bcase\s+[\"']([\w:.-]+)[\"']\s*:")
_JS_COMPARE = re.compile(r"\b(?:[\w$]+\.)?([\w$]+)\s*===?\s*[\"']([\w:.-]+)[\"']")
_COMMANDER = re.compile(
    r"\.(requiredOption|option|argument)\(\s*(['\"`])(?P<spec>[^'\"`]+)\2"
    r"(?:\s*,\s*(['\"`])(?P<help>[^'\"`]*)\4)?(?:\s*,\s*(?P<default>[^,()]+?))?\s*\)"
)
_YARGS = re.compile(
    r"\.(option|positional)\(\s*['\"](?P<name>[\w-]+)['\"]\s*,\s*\{(?P<body>[^{}]*)\}\s*\)"
)
_YARGS_TYPES = {"number": "number", "boolean": "boolean", "string": "string", "array": "array",
                "count": "integer"}  # fmt: skip
_TAKES_VALUE = re.compile(
    r"\[\s*\+\+\s*\w+\s*\]|\[\s*\w+\s*\+\s*1\s*\]|\.shift\(\)|\bnext(?:Arg|Value)?\(\)"
)
# `args.x = Number.parseInt(next, 10); i += 1;`: the word after the flag, read from a variable
# holding it, then skipped (both: a loop advancing `i` in every branch reads no value)
_NEXT_READ = re.compile(r"[=(,]\s*(?:[\w.]+\(\s*)?next\b")
_SKIPPED = re.compile(r"\b[ij]\s*(?:\+=\s*1\b|\+\+)")
_NUMERIC = re.compile(r"\b(?:parseInt|Number|parseFloat)\s*\(")
# `const val = argv[++i];` before the flags are told apart: the variable holds each one's value
_HOLDER = re.compile(
    r"\b(?:const|let|var)\s+([\w$]+)\s*=\s*[\w$.]+\[\s*(?:\+\+\s*[ij]|[ij]\s*\+\s*1)\s*\]"
)
# `a.k = Number(val)`, `a.out = val`, `a.tags.push(val)`: a held value stored (not compared:
# `o.last = next === undefined` is a switch)
_HELD = re.compile(
    r"(?:(?<![=!<>])=(?!=)|\.push\()\s*(?:(?:Number\.)?(parseInt|parseFloat|Number)\s*\()?"
    r"\s*([\w$]+)\b(?!\s*(?:[=!]=|[<>?]|\.))"
)
_SWITCH_SET = re.compile(r"=\s*(?:true|false|!0|!1|['\"][\w:.-]*['\"])\s*[;,}]|:\s*true\b")


def scan_node(source: str) -> tuple[Command, dict[str, list[str]]]:
    """(flags declared or spelled in the script, variable → values it is compared with)."""
    command = Command("node", first_paragraph(leading_comment(source, "//")))
    declared = _commander(source, command) or _yargs(source, command)
    for match in _JS_PARSEARGS.finditer(source):
        name, kind, rest = match.group(1), match.group(2), match.group("rest")
        short = re.search(r"short\s*:\s*[\"'](\w)[\"']", rest)
        param = Param(
            "--" + name,
            "flag",
            dest_of(name),
            type="array" if re.search(r"multiple\s*:\s*true", rest) else kind,
            aliases=[f"-{short.group(1)}"] if short else [],
            source="node",
            typed=kind == "boolean",  # a 'string' may hold a number the program parses
        )
        default = re.search(r"default\s*:\s*[\"']([^\"']*)[\"']", rest)
        param.default = default.group(1) if default else None
        add_param(command, param)
    if not declared:
        checked = _checked_at_start(source)
        getters = _getters(source)
        holders = frozenset(m.group(1) for m in _HOLDER.finditer(source))
        initials = _Initials(source)
        for match in _JS_FLAG_LITERAL.finditer(source):
            flag = match.group(1)
            known = command.flag(flag)
            if known is None or not (known.typed or known.valued):
                window = source[match.end() : match.end() + 240]
                also = _ALSO.match(window) or _FALLS_THROUGH.match(window)
                after = window[also.end() if also else 0 :][:160]
                param = _literal_flag(flag, after, holders)
                called = re.search(
                    r"\b([\w$]+)\s*\(\s*$", source[max(0, match.start() - 40) : match.start()]
                )
                helper = called.group(1) if called else ""
                if helper in _PASSED_ON:  # `args.push('--keep-title')`: another program's argv
                    continue
                if known is not None:  # said first where nothing tells its type
                    if param.typed or param.valued:
                        known.type, known.typed, known.valued = (
                            param.type,
                            param.typed,
                            param.valued,
                        )
                    continue
                own = re.split(r"\bcontinue\b|\bbreak\b|['\"]--[a-z]", after, maxsplit=1)[0]
                calls = re.findall(r"\b([\w$]+)\s*\(", own)
                if any(getters.get(call) == "many" for call in calls):
                    param.type, param.typed, param.valued = "array", True, True
                    param.spread = True  # `--ref a.png b.png`: the flag once, then each
                elif getters.get(helper) == "value":  # `getArg('--url')`
                    param.type, param.valued = "string", True
                elif helper in ("includes", "has") or getters.get(helper) == "switch":
                    param.type, param.typed = "boolean", True  # `args.includes('--quiet')`
                before = _ALSO_BEFORE.search(source[max(0, match.start() - 160) : match.start()])
                if also or before:  # `a === "--ref" || a === "--reference"`, `"-o" || "--output"`
                    chain = (before.group(0) if before else "") + (also.group(0) if also else "")
                    spelled = re.findall(r"['\"](-{1,2}[\w-]+)['\"]", chain)
                    param.aliases = [a for a in spelled if a != flag and not command.flag(a)]
                target = re.match(
                    r"[^=;]*?\b([\w$]+)\.(\w+)(\s*=[^=]|\.push\()", after.split(";", 1)[0]
                )
                if target and target.group(3).endswith("push(") and param.valued:
                    param.type, param.typed = "array", True  # `--file a --file b`: repeated
                if target and param.valued and param.default is None:
                    param.default = initials.get(target.group(1), target.group(2))
                    counted = param.type == "number" and "Number(" in after.split(";", 1)[0]
                    if counted and type(param.default) is int and param.default:
                        param.type = "integer"  # `Number(val)` of a count: k: 5 (never 0:
                        # `minScore: 0` may take 0.5; never parseFloat)
                if target and target.group(2) in checked and param.type != "boolean":
                    param.required = param.certain = True  # main() stops without it
                add_param(command, param)
    return command, _node_dispatch(source)


_NAMES_LOOP = re.compile(  # every run bounded: linear on any source
    r"for\s{0,4}\(\s{0,4}(?:const|let|var)\s{1,4}(?:\[\s{0,4})?(\w+)[^)]{0,80}?\bof\s{1,4}"
    r"(?:\[(?P<list>[^\]]{0,400})\]|Object\.entries\(\s{0,4}\{(?P<object>[^}]{0,400})\}\s{0,4}\))"
    r"\s{0,4}\)"
)
_STOPS = re.compile(r"\b(?:die|fail|usage|process\.exit|exit|throw)\b")


def insisted(source: str) -> set[str]:
    """Flags (as the command line spells them, without dashes) a program that reads every
    ``--name value`` generically stops without: ``for (const r of ["catalog", "out"]) { if
    (!args[r]) ... process.exit(2) }``, or the same over ``Object.entries({base: ...})``."""
    found: set[str] = set()
    for match in _NAMES_LOOP.finditer(source):
        body = source[match.end() : match.end() + 240]
        if not re.match(r"\s*\{?\s*if\s*\(\s*!", body) or not _STOPS.search(body):
            continue
        if match.group("list") is not None:
            found |= set(re.findall(r"[\"']([\w-]+)[\"']", match.group("list")))
        else:
            found |= set(re.findall(r"(?:^|,)\s*[\"']?([\w-]+)[\"']?\s*:", match.group("object")))
    return found


def _checked_at_start(source: str) -> set[str]:
    """Names of parsed arguments the program stops without before doing anything, in the
    function that parses the command line (``if (!args.openId) die(...)`` in ``main``); a
    check inside one action's handler is that action's, not the program's."""
    call = re.search(
        r"=\s*(?:await\s+)?(?:parse|get|read)(?:Args|Argv|Options|Cli|CommandLine)\s*\([^)]*\)",
        source,
    )
    if call is None:
        return set()
    body = source[call.end() : call.end() + 2000]
    end = re.search(r"^\}", body, re.M)  # the end of that function, at the top level
    body = body[: end.start()] if end else body
    stops = r"\b(?:die|fail|usage|exit|process\.exit|throw)\b"
    found = {
        m.group(1)
        for m in re.finditer(rf"if\s*\(\s*!\s*\w+\.(\w+)\s*\)\s*\{{?\s*[^;\n]*?{stops}", body)
    }
    # `if (args.files.length === 0 || !args.outDir) {` then, within its block, `throw ...`
    block = r"\{((?:[^{}]|\{[^{}]{0,200}\}){0,400})\}"  # one level of braces: `{ phase: x }`
    for test in re.finditer(rf"\bif\s*\(([^(){{}};\n]{{1,200}})\)\s*{block}", body):
        condition, before = test.group(1), body[max(0, test.start() - 20) : test.start()]
        if re.search(r"\belse\s*$", before) or "&&" in condition:
            continue  # `else if (!b)`, `a === x && !b`: b only on one path
        if re.search(stops, test.group(2)):
            found |= set(re.findall(r"!\s*\w+\.(\w+)\b(?!\s*\.)", condition))
            found |= set(re.findall(r"\w+\.(\w+)\.length\s*(?:===?\s*0|<\s*1)", condition))
    return found


_FUNCTION = re.compile(
    r"\bfunction\s+([\w$]+)\s*\([^)]{0,80}\)(?:\s*:\s*[^{=;]{1,80})?\s*\{"
    r"|\b(?:const|let|var)\s+([\w$]+)\s*=\s*"
    # params start with a word or a parenthesis, never a space: linear on `= ` + spaces
    r"(?:function\s*\([^)]{0,80}\)|(?:\([\w$\s,]{0,80}\)|[\w$][\w$]{0,79})\s*=>"
    # TypeScript: `(i: number): { items: string[] } =>`
    r"|\([^()]{0,80}\)\s*:\s*[^=]{1,80}?=>)\s*\{?"
)
# The other spellings tested beside a flag: `a === "--ref" || a === "--reference"`.
_ALSO = re.compile(r"^['\"]?(?:\s*\|\|\s*[\w$.\[\]]+\s*===\s*['\"]-{1,2}[\w-]+['\"])+")
# Case labels falling through to one body: `case '--query': case '--q': r.query = argv[++i]`.
_FALLS_THROUGH = re.compile(r"^['\"]?\s*:(?:\s*case\s+['\"]-{1,2}[\w-]+['\"]\s*:)+")
# The spellings compared first: `a === "-o" || a === "--output"` (ends where the flag opens).
_ALSO_BEFORE = re.compile(r"(?:===\s*['\"]-{1,2}[\w-]+['\"]\s*\|\|\s*[\w$.\[\]]+\s*===\s*)+$")
# A helper that takes every word up to the next flag (`takeMany(i)`: `--ref a.png b.png`).
_TAKES_MANY = re.compile(r"\bwhile\b[^;]{0,80}\blength\b[\s\S]{0,200}?startsWith\(\s*['\"]-")
_NEXT_WORD = re.compile(r"indexOf\([^()]{1,40}\)\s*\+\s*1\b")


def _getters(source: str) -> dict[str, str]:
    """The program's helpers that read one flag, by name: "many" for one taking every word
    up to the next flag, "value" for one returning the word after it (``function
    getArg(name) { const i = args.indexOf(name); return args[i + 1]; }``), "switch" for one
    saying whether it is there (``const has = (f) => args.includes(f)``)."""
    found: dict[str, str] = {}
    for match in _FUNCTION.finditer(source):
        body = source[match.end() : match.end() + 300]  # a getter is short
        if _TAKES_MANY.search(body):
            found[match.group(1) or match.group(2)] = "many"
        elif _TAKES_VALUE.search(body) or _NEXT_WORD.search(body):
            found[match.group(1) or match.group(2)] = "value"
        elif re.match(r"[^;{}]{0,40}?\.includes\(\s*\w+\s*\)\s*;?\s*\}?\s*$", body.split("\n")[0]):
            found[match.group(1) or match.group(2)] = "switch"
    return found


def _literal_flag(flag: str, after: str, holders: frozenset[str] = frozenset()) -> Param:
    """A flag spelled as a literal; its type from what the code does right after it
    (up to the next flag literal, ``case`` or the end of its block: ``if (a === "--summary")
    { args.summary = true; continue; }`` sets a boolean, whatever the next line reads).
    ``holders``: variables the loop puts the next word in before it tells the flags apart
    (``const val = argv[++i]; if (t === "--k") a.k = Number(val)``)."""
    context = re.split(r"\bcase\b|['\"]--[a-z]|\bbreak\b|\}", after, maxsplit=1)[0]
    param = Param(flag, "flag", dest_of(flag), source="node")
    reads_next = bool(_NEXT_READ.search(context) and _SKIPPED.search(context))
    held = next((m for m in _HELD.finditer(context) if m.group(2) in holders), None)
    if held is not None:  # the word read before the flag was known
        param.valued = True
        param.type = {"parseInt": "integer", "": "string"}.get(held.group(1) or "", "number")
        param.typed = param.type != "string"
    elif _TAKES_VALUE.search(context) or reads_next:
        param.valued = True
        param.type = "number" if "parseFloat" in context else "string"
        if re.search(r"\bparseInt\s*\(", context):
            param.type = "integer"
        param.typed = param.type != "string"  # a text it may still convert later
    elif _SWITCH_SET.search(context):
        param.type, param.typed = "boolean", True
    return param


def _commander(source: str, command: Command) -> bool:
    found = False
    for match in _COMMANDER.finditer(source):
        kind, spec = match.group(1), match.group("spec")
        help_text = match.group("help") or ""
        default = _literal(match.group("default"))
        if kind == "argument":
            for arg in usage_args(spec):
                param = Param(arg.name, "positional", arg.name, type=arg.type, help=help_text)
                param.required, param.default = not arg.optional, default
                _declared(command, param, "commander")
            found = True
            continue
        flags = re.findall(r"--?[A-Za-z0-9][\w-]*", spec.split("<")[0].split("[")[0])
        if not flags:
            continue
        longs = [f for f in flags if f.startswith("--")] or flags
        value = re.search(r"<[^>]+>|\[[^\]]+\]", spec)
        param = Param(longs[0], "flag", dest_of(longs[0]), help=help_text)
        param.aliases = [f for f in flags if f != longs[0]]
        param.type = "boolean" if value is None else "string"
        if value is not None and value.group(0).rstrip(">]").endswith("..."):
            param.type = "array"
        if isinstance(default, int | float) and not isinstance(default, bool):
            param.type = "integer" if isinstance(default, int) else "number"
        param.required, param.default = kind == "requiredOption", default
        _declared(command, param, "commander")
        found = True
    return found


def _yargs(source: str, command: Command) -> bool:
    found = False
    for match in _YARGS.finditer(source):
        name, body = match.group("name"), match.group("body")
        kind = re.search(r"\btype\s*:\s*['\"](\w+)['\"]", body)
        default = re.search(r"\bdefault\s*:\s*([^,}\n]+)", body)
        alias = re.findall(r"\balias\s*:\s*['\"]([\w-]+)['\"]", body)
        described = re.search(r"\b(?:describe|description|desc)\s*:\s*['\"]([^'\"]*)['\"]", body)
        positional = match.group(1) == "positional"
        param = Param(
            name if positional else "--" + name,
            "positional" if positional else "flag",
            dest_of(name),
            type=_YARGS_TYPES.get(kind.group(1), "string") if kind else "string",
            aliases=[("-" if len(a) == 1 else "--") + a for a in alias],
            help=described.group(1) if described else "",
        )
        param.required = bool(re.search(r"\b(?:demandOption|required)\s*:\s*true", body))
        param.default = _literal(default.group(1)) if default else None
        _declared(command, param, "yargs")
        found = True
    return found


def _declared(command: Command, param: Param, framework: str) -> None:
    command.framework = framework
    param.source, param.certain, param.typed = framework, True, True
    add_param(command, param)


def _literal(text: str | None) -> object:
    """A JavaScript literal default (a number, a string, true/false); None otherwise."""
    if text is None:
        return None
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    quoted = re.fullmatch(r"(['\"`])(.*)\1", text)
    return quoted.group(2) if quoted else None


class _Initials:
    """Per object declared once with its keys written out (feishu update-doc's ``const r = {
    mode: 'append', ... }``, then ``r.mode = argv[++i]``), its top-level keys' plain literal
    values: a flag's default, whatever a comment says ("--mode <mode>  Update mode
    (required)").  A nested object's keys, an expression (``'shot-' + Date.now()``), ``null``
    and ``''`` (given or missing) are none; a name declared twice (in two functions) is
    ambiguous: none either.  The declarations are found in one pass; an object's keys are
    read when a flag is stored in it, at most INITIAL_CHARS of it, for at most MAX_HOLDERS
    objects (hostile source: 20,000 declarations read whole took a minute)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.at: dict[str, list[int]] = {}
        for declared in _DECLARED_OBJECT.finditer(source):
            self.at.setdefault(declared.group(1), []).append(declared.end() - 1)
        self.read: dict[str, dict[str, object]] = {}

    def get(self, holder: str, key: str) -> object:
        if holder not in self.read:
            starts = self.at.get(holder, [])
            if len(starts) != 1 or len(self.read) >= MAX_HOLDERS:
                return None
            text = self.source[starts[0] : starts[0] + INITIAL_CHARS]
            self.read[holder] = _top_level_literals(_braced(text, 0))
        return self.read[holder].get(key)


MAX_HOLDERS = 20
INITIAL_CHARS = 4000
_DECLARED_OBJECT = re.compile(r"\b(?:const|let|var)\s+([\w$]+)\s*=\s*\{")
_ENTRY = re.compile(r"\s*([\w$]+)\s*:\s*(.*?)\s*", re.S)
_PLAIN = re.compile(r"-?\d+(?:\.\d+)?|true|false|'[^'\\\n]*'|\"[^\"\\\n]*\"")


def _top_level_literals(body: str) -> dict[str, object]:
    """``{a: 'x', b: { c: 1 }, d: 'p' + q}`` → {"a": "x"}: the entries at the object's own
    level whose value is a plain literal (not empty)."""
    entries, depth, quote, start = [], 0, "", 1
    for at, char in enumerate(body):
        if quote:
            quote = "" if char == quote and body[at - 1] != "\\" else quote
        elif char in "'\"`":
            quote = char
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
            if depth == 0:
                entries.append(body[start:at])
                break
        elif char == "," and depth == 1:
            entries.append(body[start:at])
            start = at + 1
    values: dict[str, object] = {}
    for entry in entries:
        parts = _ENTRY.fullmatch(entry)
        if parts and _PLAIN.fullmatch(parts.group(2)):
            value = _literal(parts.group(2))
            if value not in ("", None):
                values[parts.group(1)] = value
    return values


def _node_dispatch(source: str) -> dict[str, list[str]]:
    dispatch: dict[str, set[str]] = {}
    for match in _JS_SWITCH.finditer(source):
        body = _braced(source, match.end() - 1)
        dispatch.setdefault(match.group(1), set()).update(_JS_CASE.findall(body))
    for var, value in _JS_COMPARE.findall(source):
        if var not in ("type", "typeof", "length", "name") and not value.startswith("-"):
            dispatch.setdefault(var, set()).add(value)
    return {k: sorted(v) for k, v in dispatch.items() if v}


def _braced(source: str, start: int) -> str:
    """The text of the ``{...}`` block opening at ``start`` (strings are not special-cased)."""
    depth = 0
    for i in range(start, len(source)):
        if source[i] == "{":
            depth += 1
        elif source[i] == "}":
            depth -= 1
            if depth == 0:
                return source[start : i + 1]
    return source[start:]
