"""The one Jinja environment for every file skill2app generates.

Templates live next to this module (``new/`` for app-new, ``convert/`` for app-convert) and
ship as package data.  Every environment is strict (``StrictUndefined``), keeps the trailing
newline, trims block tags, and has the same deterministic filters:

``tojson``   JSON with sorted keys, non-ASCII kept (``indent=`` for pretty output)
``yaml_str`` a double-quoted YAML scalar that PyYAML and ruamel read back unchanged
``sh_quote`` a POSIX shell word (``shlex.quote``)
``app_ref``  an APP prompt placeholder: ``"fetch.output" | app_ref`` -> ``{{fetch.output}}``
``comment``  prefix every line with ``# `` (or ``prefix=``), for text inside code comments

Use ``environment(sandboxed=True)`` to render any template text that came from a user's skill.
jinja2 is imported inside ``environment`` so code that never renders does not pay for it.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

TEMPLATES_DIR = Path(__file__).resolve().parent


def environment(*, sandboxed: bool = False) -> jinja2.Environment:
    """A new Jinja environment loading templates by path relative to this folder."""
    import jinja2
    import jinja2.sandbox

    cls = jinja2.sandbox.SandboxedEnvironment if sandboxed else jinja2.Environment
    env = cls(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters.update(
        tojson=tojson, yaml_str=yaml_str, sh_quote=shlex.quote, app_ref=app_ref, comment=comment
    )
    return env


def tojson(value: Any, indent: int | None = None, sort_keys: bool = True) -> str:
    """Deterministic JSON: sorted keys, non-ASCII characters kept as they are."""
    return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys)


# YAML double-quoted scalars may hold any printable character; everything else is escaped,
# as are the characters YAML 1.1 readers (PyYAML) treat as line breaks.
_YAML_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\t": "\\t",
    "\n": "\\n",
    "\r": "\\r",
    "\x85": "\\N",
    "\u2028": "\\L",
    "\u2029": "\\P",
    "\ufeff": "\\uFEFF",
}


def yaml_str(value: Any) -> str:
    """``value`` as a double-quoted YAML scalar that reads back as the same string."""
    return '"' + "".join(_yaml_char(char) for char in str(value)) + '"'


def _yaml_char(char: str) -> str:
    if char in _YAML_ESCAPES:
        return _YAML_ESCAPES[char]
    code = ord(char)
    printable = (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )
    if printable:
        return char
    return f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}"


def app_ref(path: str) -> str:
    """An APP prompt placeholder such as ``{{fetch_diff.output}}`` or ``{{input.repo}}``."""
    return "{{" + path + "}}"


def comment(text: str, prefix: str = "# ") -> str:
    """Every line of ``text`` prefixed with ``prefix`` (blank lines get it without spaces)."""
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.split("\n"))
