"""What a failed step says: the one line that tells why, and what this machine lacks.

A step of the smoke run that fails only because this machine lacks what the skill needs — a
module, a program (a name without a dot or a slash: ``soffice``, not ``notes.txt``), an npm
package (not a relative path: a sibling file of the skill is the APP's own problem), the
network, or what the constructor checks for — is skipped with what is missing, not held
against the APP (``needs_of``); the program it names, when it names one, gets a stand-in
(``missing_program``).  ``reason`` takes the program's own last words from its stderr.
"""

from __future__ import annotations

import re

from skill2app.runtime.errors import AppRunError, SubprocessError

TAIL = 600
_NOISE = re.compile(  # stack frames, source excerpts, runtime trailers (npm's log line)
    r"^(?:at |File \"|Traceback \(most recent call last\)|Node\.js v\d|\^+$|~+\^*~*$|"
    r"npm (?:error|ERR!) (?:A complete log of this run|Log files were not written|"
    r"You can rerun the command|\s*/\S+\.log$))"
)
# What a failure says the machine lacks: a module, a program (a name without a dot or a
# slash: 'soffice', not 'notes.txt'), an npm package (not a relative path: a sibling file of
# the skill is the APP's own problem), or a failed constructor check.
MISSING = re.compile(
    r"ModuleNotFoundError: No module named '?([\w.]+)|No module named '?([\w.]+)"
    r"|(\S+): command not found|(\S+) is not on PATH|Cannot find module '([^'./][^']*)'"
    r"|No such file or directory: '([\w+-]+)'|\b([\w.+-]+) is not installed"
    r"|\S+ needs ((?:the |an? )?[^|\n]+?)\s*(?:\||$)"  # a generated adapter's own line
    # a program's own hint: "Install it first: npm i @wix/design-system"
    r"|(?i:install|run|try)\b[^|\n]{0,20}?\b(?:npm i(?:nstall)?|pip3? install|yarn add|pnpm add)"
    r"\s+(?:-[\w-]+\s+)*(@?[\w./-]+)"
    r"|check_environment: (.+)"
)  # the last group is the constructor's check, said in its own words


# A program that reached for the network and found none (the sandbox shares none).
NETWORK = re.compile(
    r"Temporary failure in name resolution|Name or service not known|No address associated "
    r"with hostname|nodename nor servname|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|Could not "
    r"resolve host|Network is unreachable|ENETUNREACH|Failed to establish a new connection|"
    r"ENOTCACHED|only-if-cached|Network connectivity is disabled"  # npm, uv told offline
)


# The program a failure says is not installed (``missing_program``).
_PROGRAM_MISSING = re.compile(
    r"(?:^|[\s:'\"])([A-Za-z0-9][A-Za-z0-9._+-]{0,63}): (?:command )?not found"
    r"|the program '([^'/]+)' is not on PATH"
    r"|\b([A-Za-z0-9][A-Za-z0-9._+-]{0,63}) is not on PATH"
    r"|No such file or directory: '([A-Za-z0-9][A-Za-z0-9._+-]{0,63})'"
    r"|spawn(?:Sync)? ([A-Za-z0-9][A-Za-z0-9._+-]{0,63}) ENOENT"
    r"|needs the program '?([A-Za-z0-9][A-Za-z0-9._+-]{0,63})'? on PATH"
)
_PROGRAM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")


# A program that stopped because a credential is not set up (a key, a token, a login):
# "配置缺少 api_token", "OPENAI_API_KEY is not set", "missing API key", "not logged in".
CREDENTIAL = re.compile(
    r"(?:缺少|未配置|未设置|请(?:先)?(?:配置|设置|填写))\s*[\w.]*"
    r"(?:api[_ ]?(?:key|token)|access[_ ]?token|token|密钥|令牌|凭据)\b"
    r"|\b(?:missing|no|empty)\s+(?:an?\s+)?(?:api[_ ]?(?:key|token)|access[_ ]token|"
    r"auth(?:entication)?[_ ]token|credentials?)\b"
    r"|(?-i:\b[A-Z][A-Z0-9_]*(?:_API_KEY|_TOKEN|_SECRET)\b)[^\n]{0,30}\b(?:is )?(?:not set|"
    r"missing|required|empty)\b"
    r"|\bnot (?:logged|signed) in\b|\b(?:api[_ ]?(?:key|token)|access[_ ]token|auth[_ ]token)"
    r"\s+(?:is\s+)?(?:not set|missing|required|empty|not configured)\b",
    re.I,
)


def lacks(detail: str) -> bool:
    """Whether a skipped step's detail says this machine lacks something."""
    return detail.startswith(("needs ", "the constructor's check fails here", "its sample uses"))


def needs_of(detail: str) -> str:
    """What a failure says this machine lacks ("needs pypdf, not installed here"; "needs the
    network": the sandbox has none, and the skill's service is not the APP's fault), or ""."""
    if NETWORK.search(detail):
        return "needs the network, which the smoke run does not have"
    if credential := CREDENTIAL.search(detail):
        return f"needs a credential not set up here ({credential.group(0)})"
    if detail.startswith("step exited with 127"):  # the shell's "command not found"
        said = detail.partition(": ")[2][:80]
        return f"needs a program not installed here (exit 127{': ' + said if said else ''})"
    found = MISSING.search(detail)
    if found is None:
        return ""
    what = next(g for g in found.groups() if g).strip()
    if found.lastindex == len(found.groups()):  # a constructor check, said in its own words
        return f"the constructor's check fails here: {what}"
    return f"needs {what}, not available here"


def reason(exc: AppRunError) -> str:
    """What went wrong, ending with what the program itself said on stderr: its last line
    once stack frames and runtime trailers are set aside (a node crash's reason is above its
    frames and "Node.js v20" line; a Python traceback's is its last line), with the line
    before it when that one is short."""
    if not isinstance(exc, SubprocessError):
        return exc.message
    lines = [line.strip() for line in (exc.stderr_tail or "").splitlines() if line.strip()]
    if len(lines) > 1 and "failed with exit status" in lines[-1]:
        lines.pop()  # the adapter's own summary: the program's words are above it
    said = [line for line in lines if not _NOISE.match(line)]
    if not said:
        return f"{exc.message}: (no stderr)"
    kept = said[-1:]
    if len(said) > 1 and len(said[-1]) < 40 and "Traceback" not in said[-2]:
        kept.insert(0, said[-2])
    return f"{exc.message}: {' | '.join(kept)[-TAIL:]}"


def missing_program(detail: str) -> str:
    """The program a failure says is not installed ("" when it names none)."""
    found = _PROGRAM_MISSING.search(detail)
    if not found:
        return ""
    name = next(g for g in found.groups() if g)
    return name if _PROGRAM_NAME.match(name) and "." not in name.rstrip(".") else ""
