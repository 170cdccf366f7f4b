"""Secrets: which names hold one, and blanking their values wherever text leaves app-run.

One list of name patterns (``SECRET_WORDS``, ``SECRET_PARTS``; the config key ``secrets:``
adds names) decides which inputs and environment variables are secret.  A ``Scrubber`` holds
their values (8 characters or more, so that common words are not blanked) and also blanks what
looks like a credential whatever its name: ``Bearer <token>``, ``user:password@`` in a URL and
well-known token shapes (``sk-ant-…``, ``ghp_…``, ``github_pat_…``, ``xox?-…``, ``AKIA…``).

Every printer, listener, run record and session gets text that went through one (the
``Recorder`` scrubs an event before anyone sees it); tails and heads of long text are cut
*after* scrubbing, from a window wide enough that a secret straddling the cut goes whole.
A step's output goes through ``value`` wherever it leaves app-run or is kept (the printed
result, a host prompt, a session's saved outputs, expected.json); between steps of one run it
stays as the step printed it.  Imports nothing from the package.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# A name is secret when one of its words (split at _ - . and camelCase) is one of these (not
# "pwd", "session": PWD and XDG_SESSION_* are everywhere and hold no secret) ...
SECRET_WORDS = frozenset(
    {
        "pin", "pat", "dsn", "otp", "jwt", "cookie", "cookies", "bearer", "sessionid",
        "passcode", "signature", "mfa", "totp", "cvv", "ssn",
    }
)  # fmt: skip
# ... or when it contains one of these (in any letter case).
SECRET_PARTS = (
    "key", "token", "secret", "passw", "passphrase", "credential", "bearer", "cookie",
    "private", "database_url", "databaseurl", "db_url", "connection_string", "conn_str",
)  # fmt: skip
_AUTH = re.compile(r"auth(?!or)", re.IGNORECASE)  # auth_header, oauth — not author(ity)
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
MIN_LENGTH = 8  # shorter values are not blanked everywhere (they would hit common words)
MASK = "***"
# Credentials recognised by their shape, whatever holds them.
PATTERNS = (
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)(\bbasic\s+)[A-Za-z0-9+/=]{12,}"),
    re.compile(r"(://[^/\s:@]+:)[^/\s@]+(?=@)"),  # scheme://user:password@host
    re.compile(r"()\b(?:sk-ant-|sk-)[A-Za-z0-9_-]{16,}"),
    re.compile(r"()\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"),
    re.compile(r"()\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"()\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"()\bAKIA[0-9A-Z]{16}\b"),
    re.compile(  # a key's body is a few KB: bounded, or 20,000 BEGIN lines took a minute
        r"()-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[\s\S]{0,8192}?"
        r"-----END [A-Z ]{0,40}PRIVATE KEY-----"
    ),
)
# What each of PATTERNS cannot match without (case-folded: "baſic" matches "(?i)basic" too): a
# pattern runs only on text that holds one, so scrubbing megabytes of output costs one pass.
TRIGGERS = (
    ("bearer",), ("bas",), ("://",), ("sk-",), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ("github_pat_",), ("xox",), ("akia",), ("-----end",),
)  # fmt: skip
MARGIN = 4096  # the widest secret a cut is made safe for


def is_secret_name(name: str, extra: Iterable[str] = ()) -> bool:
    """Whether an input or variable called ``name`` holds a secret."""
    lowered = name.lower()
    if any(part in lowered for part in SECRET_PARTS) or _AUTH.search(name):
        return True
    words = {w.lower() for w in _WORDS.findall(name)}
    if words & SECRET_WORDS:
        return True
    return any(e and e.lower() in (lowered, *words) for e in extra)


def secret_values(values: Any, extra: Iterable[str] = (), inherited: bool = False) -> set[str]:
    """Every string (8 characters or more) under a secret-named key, however deep: an object
    input ``cfg: {"api_key": ...}`` and a list under ``tokens`` count too."""
    found: set[str] = set()
    extra = tuple(extra)
    stack: list[tuple[Any, bool]] = [(values, inherited)]
    seen = 0
    while stack and seen < 100_000:
        node, secret = stack.pop()
        seen += 1
        if isinstance(node, Mapping):
            stack.extend((v, secret or is_secret_name(str(k), extra)) for k, v in node.items())
        elif isinstance(node, list | tuple):
            stack.extend((v, secret) for v in node)
        elif secret and node is not None and not isinstance(node, bool):
            text = str(node)
            if len(text) >= MIN_LENGTH:
                found.add(text)
    return found


def redact(values: Any, extra: Iterable[str] = ()) -> Any:
    """``values`` with every secret-named value (at any depth) replaced by ``***``."""
    extra = tuple(extra)

    def walk(node: Any, depth: int) -> Any:
        if depth > 64:
            return "…"
        if isinstance(node, Mapping):
            return {
                k: (MASK if is_secret_name(str(k), extra) else walk(v, depth + 1))
                for k, v in node.items()
            }
        if isinstance(node, list | tuple):
            return [walk(v, depth + 1) for v in node]
        return node

    return walk(values, 0)


@dataclass
class Scrubber:
    """Blanks secret values and credential-shaped text (see the module doc)."""

    hidden: set[str] = field(default_factory=set)
    extra_names: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, extra_names: Iterable[str] = (), environ: Mapping[str, str] | None = None):
        names = tuple(extra_names)
        env = os.environ if environ is None else environ
        return cls(secret_values(dict(env), names), names)

    def hide(self, values: Any) -> None:
        """Add the secret values among ``values`` (a run's inputs)."""
        self.hidden |= secret_values(values, self.extra_names)

    def known(self, text: str) -> str:
        """``text`` with the secret values it holds blanked, and nothing else: what a step's
        output or a prompt gets (a credential's shape may be their subject: "a basic
        understanding of SQL", "xoxo-see-you")."""
        if not text:
            return text
        for value in self._forms():  # a secret holding another: the longest first
            if value in text:
                text = text.replace(value, MASK)
        return text

    def _forms(self) -> list[str]:
        """Each secret value as it may be written: as it is, without the spaces or newline
        around it (a program strips what it read), and escaped as JSON puts it in a string
        (a prompt shows an earlier step's output as JSON: "sekret-\\"quote\\"")."""
        forms: set[str] = set()
        for value in self.hidden:
            for form in (value, value.strip()):
                forms |= {form, json.dumps(form, ensure_ascii=False)[1:-1], json.dumps(form)[1:-1]}
        return sorted((f for f in forms if len(f) >= MIN_LENGTH), key=len, reverse=True)

    def text(self, text: str) -> str:
        """``text`` with the secret values and credential-shaped text blanked (stderr, errors,
        records)."""
        text = self.known(text)
        if not text:
            return text
        folded = text.casefold()
        for pattern, triggers in zip(PATTERNS, TRIGGERS, strict=True):
            if any(t in folded for t in triggers):
                text = pattern.sub(lambda m: m.group(1) + MASK, text)
        return text

    def value(self, node: Any) -> Any:
        """A copy of ``node`` (a step's output, a session's saved outputs) with every string in
        it scrubbed, the keys of objects too, however deep; a number that holds a secret's
        value becomes ``***``.  ``node`` itself when there is nothing to blank (the usual case,
        checked in one pass over all its text).  Only the secret values (``known``): the
        output is the step's own, and a credential's shape may be its subject."""
        if not self.hidden or not self._touches(node):
            return node
        root: list[Any] = [None]
        stack: list[tuple[Any, Any, Any]] = [(node, root, 0)]  # (value, its copy's holder, slot)
        while stack:
            current, holder, slot = stack.pop()
            if isinstance(current, dict):
                copy: dict[Any, Any] = {}
                for key, item in current.items():
                    key = self.known(key) if isinstance(key, str) else key
                    while key in copy:  # two keys blanked alike: both kept
                        key = f"{key}*"
                    copy[key] = None
                    stack.append((item, copy, key))
                holder[slot] = copy
            elif isinstance(current, list | tuple):
                items: list[Any] = [None] * len(current)
                stack.extend((item, items, index) for index, item in enumerate(current))
                holder[slot] = items
            else:
                holder[slot] = self._scalar(current)
        return root[0]

    def _touches(self, node: Any) -> bool:
        """Whether a string, key or number in ``node`` holds something to blank: all of them
        joined by newlines (which neither start nor end a secret) are scrubbed at once."""
        texts: list[str] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, dict):
                texts.extend(k for k in current if isinstance(k, str))
                stack.extend(current.values())
            elif isinstance(current, list | tuple):
                stack.extend(current)
            elif isinstance(current, str):
                texts.append(current)
            elif isinstance(current, int | float) and not isinstance(current, bool):
                with contextlib.suppress(ValueError):  # an int too long to print
                    texts.append(str(current))
        joined = "\n".join(texts)
        return self.known(joined) != joined

    def _scalar(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.known(value)
        if isinstance(value, bool) or not isinstance(value, int | float) or not self.hidden:
            return value
        try:
            shown = str(value)
        except ValueError:  # an int too long to print: not one of the values hidden
            return value
        return MASK if self.known(shown) != shown else value

    def tail(self, text: str, limit: int) -> str:
        """The last ``limit`` characters of ``text``, scrubbed before the cut."""
        text = (text or "").strip()
        if len(text) <= limit:
            return self.text(text)
        window = self.text(text[-(limit + self.margin) :])
        return "…" + window[-limit:]

    def head(self, text: str, limit: int) -> str:
        """The first ``limit`` characters of ``text``, scrubbed before the cut."""
        if len(text) <= limit:
            return self.text(text)
        return self.text(text[: limit + self.margin])[:limit]

    @property
    def margin(self) -> int:
        return max([MARGIN, *(len(v) for v in self.hidden)])


def clean_environment(env: Mapping[str, str], extra: Iterable[str] = ()) -> dict[str, str]:
    """``env`` without its secret-named variables (for programs that must not see them)."""
    extra = tuple(extra)
    return {k: v for k, v in env.items() if not is_secret_name(k, extra)}
