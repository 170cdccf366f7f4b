"""Whether a skill needs a login, read from its prose: "set your GitHub token", "## 授权",
"Log in with `gh auth login` first".

A word of a login is a need only where the skill asks for one.  It is none where the skill
says it needs none ("无需 API Key"), forbids something in Chinese ("不绕过登录"; "Never commit
your API key" still needs one), asks the user's permission (未获授权时), looks for secrets in
what it reads ("secrets detected", "credential-shaped string", a description about "secret
scanning"), works on a login as its subject ("the login page", "user authentication
feature", ``AuthService.login()``), or names code ("tokens.json", Python's `secrets`).  All
of a skill's login words make one entry (``one_login``): no program can check a login, the
constructor only lists it.
"""

from __future__ import annotations

import re

from skill2app.converter.inventory.requirements import KINDS, Collector, Requirement

_AUTH = re.compile(
    r"\b(api[ _-]?keys?|access[ _-]tokens?|tokens?|oauth|log ?in(?!\s+shells?\b)|sign ?in|"
    r"authenticat\w*|credentials?|bearer|secrets?)\b(?!\s*walls?\b)|"
    r"(密钥|令牌|登录(?!墙|\s*shell)|认证|(?<!明确)授权(?![你我他她给])|凭据)",
    re.I,
)


# The words of a login, most telling first: what names the thing to have beats "login".
_LOGIN_WORDS = (
    "api key", "access token", "oauth", "credential", "bearer", "token", "secret", "密钥",
    "令牌", "凭据", "log in", "login", "sign in", "登录", "授权", "认证",
)  # fmt: skip
_SIGN_IN = re.compile(r"\b(?:auth\s+(?:login|status)|login|signin|sign-in)\b")
# A command that signs in starts with a program's name (``gh``, ``uip``), not a word of
# prose ("Compare the login page ...") nor a .netrc line ("machine youtube login ...").
_PROGRAM_NAME = re.compile(r"(?:[\w.~${}/-]*/)?[a-z][\w.-]*")  # `gh`, `./bin/tool`, `$HOME/x/uip`


def one_login(requirements: list[Requirement], commands: list[list[str]]) -> list[Requirement]:
    """A skill's mentions of a login ("token", "authentication", "log in", 授权) as one entry:
    named by the command that signs in when the skill shows one (``gh auth login``), else by
    its most telling word (the constructor only lists a login: no program can check one)."""
    logins = [r for r in requirements if r.kind == "auth"]
    if not logins:
        return requirements
    signing = next((c for c in commands if _signs_in(c)), None)
    rank = {w: i for i, w in enumerate(_LOGIN_WORDS)}
    named = min((r.name for r in logins), key=lambda n: (rank.get(n, len(rank)), n))
    name = " ".join(signing[:3]) if signing else named
    where = [spot for r in logins for spot in r.where]
    merged = Requirement("auth", name, any(r.required for r in logins), where)
    return sorted(
        [*(r for r in requirements if r.kind != "auth"), merged],
        key=lambda item: (KINDS.index(item.kind), item.name),
    )


def _signs_in(argv: list[str]) -> bool:
    return (
        bool(argv)
        and bool(_PROGRAM_NAME.fullmatch(argv[0]))
        and argv[0] != "machine"
        and bool(_SIGN_IN.search(" ".join(argv[:3])))
    )


# "无需 API Key", "no API key needed", "without a token", "API key: not required".
_NO_AUTH_BEFORE = re.compile(
    r"(?:无需|不需要|不用|免)\s*$|\b(?:no|without|(?:do|does|did)(?: not|n't) (?:need|require))"
    r"\s+(?:an?\s+|any\s+)?(?:additional\s+|extra\s+|other\s+|separate\s+)?$",
    re.I,
)
_NO_AUTH_AFTER = re.compile(
    r"^\s*[:：]?\s*(?:is |are )?(?:not (?:needed|required)|optional|unnecessary)"
    r"|^\s*(?:不需要|可选)",
    re.I,
)


# Tokens a model reads, counted or spent, not a login: "~0.42 token/byte", "零 token 成本",
# "高信号 token 集合", "context tokens", "token budget".
_COUNTED_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])\d[\d.,]*\s*[kKmM万千]?|\bper|/|零|估|高信号|\b(?:context|input|output|prompt|"
    r"high-signal|fewer|more|many|few))\s*$",
    re.I,
)
_COUNTED_AFTER = re.compile(
    r"^\s*(?:/|成本|集合|数|量|消耗|预算|计数|上限|\b(?:counts?|counting|budgets?|usage|"
    r"limits?|windows?|costs?|per|economy|efficien\w*|spent|savings?)\b)",
    re.I,
)


# What makes a bare "token" a login's ("set your GitHub token", "GH_TOKEN", "the API token"),
# not an alignment token, a design token or a lexer's.
_LOGIN_CUE = re.compile(
    r"\b(?:api|keys?|auth\w*|log ?in|sign ?in|access|secrets?|credentials?|bearer|github|"
    r"gitlab|personal|oauth\d?|passwords?|env(?:ironment)?|export|header|account|expire[sd]?|"
    r"refresh|revoke[sd]?|scopes?|permissions?|paste|generate|bot|integration|your|provide|"
    r"set|pat|slack|notion|discord|telegram|hugging ?face|hf)\b|[A-Z][A-Z0-9]*_TOKEN\b|"
    r"令牌|密钥|授权|登录|认证|凭据|凭证|过期|刷新|权限|tenant_access|user_access",
    re.I,
)


def _counted_tokens(line: str, match: re.Match[str]) -> bool:
    """Whether the word "token" at ``match`` counts a model's tokens (``_COUNTED_*``)."""
    return bool(
        _COUNTED_BEFORE.search(line[max(0, match.start() - 16) : match.start()])
        or _COUNTED_AFTER.match(line[match.end() : match.end() + 16])
    )


def from_prose(
    lines: list[str], first_line: int, file: str, out: Collector, *, purpose: bool = False
) -> None:
    """Logins the prose names.  A skill that says it needs none ("无需 API Key", "no API key
    needed") lists none, whatever else its prose calls a token: a warning that a login may be
    missing, for a skill its author says works without one, only misleads.  Nor does a skill
    whose ``purpose`` (its description) is finding secrets ("leaked secrets", "secret
    scanning"): its prose names them as what it looks for."""
    for offset, line in enumerate(lines):
        cue = None  # whether the line speaks of a login at all (for a bare "token"), once
        sought = purpose and bool(_SECRETS_SOUGHT.search(line))
        counted = "tiktoken" in line.lower()
        for match in _AUTH.finditer(line):
            word = (match.group(1) or match.group(2)).lower()
            word = re.sub(r"[ _-]+", " ", word).rstrip("s") if match.group(1) else word
            before = line[max(0, match.start() - _NEAR) : match.start()]
            after = line[match.end() : match.end() + _NEAR]
            if _NO_AUTH_BEFORE.search(before) or _NO_AUTH_AFTER.match(after):
                out.no_login = True
                continue
            if word == "token":
                cue = bool(_LOGIN_CUE.search(line)) if cue is None else cue
                if counted or _counted_tokens(line, match) or not cue:
                    continue  # a model's tokens ("零 token 成本"), a lexer's or a design's
            if sought:
                out.no_login = True  # what the skill looks for, so its every login word is too
            if _not_asked_for(before, after, match.group(0)):
                continue
            out.add("auth", word, f"{file}:{first_line + offset}")


_NEAR = 80  # characters either side of a login word that say what it is there: bounded work

# What comes before a login word in its clause when the skill forbids something: "不绕过登录",
# "不在未获授权时...设置凭据" (not "不要忘记登录": a reminder).  An English prohibition keeps its
# login: "Never commit your API key", "Do not proceed until you have run `gh auth login`".
_FORBIDS = re.compile(r"不得|不要(?!忘)|绝不|禁止|不在|切勿|请勿|不可|绕过")
_CLAUSE_END = re.compile(r"[.;!?,:]\s|[。；！？，：]")
# Words next to a login word about finding secrets in what the skill reads, not having one:
# "secrets detected", "credential-shaped string", "扫描密钥".
_SCANNED = re.compile(
    r"\b(?:detect(?:s|ed|ion|ing)?|scan(?:s|ned|ning|ner)?|leak(?:s|ed|ing)?|hard-?coded|"
    r"redact(?:s|ed|ion|ing)?)\b(?!-)|^-shaped\b",
    re.I,
)
_ZH_SCANNED = re.compile(r"(?:检测|扫描|泄露|脱敏)$|^(?:检测|扫描|泄露|脱敏)")  # next to it
_SCAN_WINDOW = 16  # characters either side of the login word where such a word counts
# A login that is the skill's subject: "the login page", "login broken", "Login crashes",
# "login-required pages", 登录页面; "users can login", "user authentication", "JWT login",
# "login with valid credentials" (a test case); what malware does to them ("Credential
# theft": a YARA rule's subject, yara-rule-authoring of round 25); what is measured of them
# ("Login frequency, feature adoption": a customer-health metric).
_SUBJECT_AFTER = re.compile(
    r"^(?:-required\b|[\"'”]?\s*(?:pages?|screens?|forms?|functions?|features?|flows?|"
    r"buttons?|crash\w*|broken|bugs?|tests?|requirements?|patterns?|fields?|modals?|"
    r"dialogs?|endpoints?|routes?|logic|middleware|module|service|model|with\s+(?:in)?valid|"
    r"theft|thie(?:f|ves)|steal\w*|harvest\w*|exfil\w*|"
    r"frequency|trends?|rates?|counts?|activity|history|attempts?|metrics?|stats|statistics)"
    r"\b|\s*(?:页面|界面|功能|流程|按钮))",
    re.I,
)
_SUBJECT_BEFORE = re.compile(
    r"(?:\busers?\s+(?:can\s+)?(?:successfully\s+)?|\bjwt(?:-based)?\s+(?:user\s+)?|"
    r"\bwith\s+(?:in)?valid\s+)$",
    re.I,
)
# A skill about finding secrets: "secret scanning", "leaked secrets", "hardcoded credentials",
# "credential-shaped string", "secret detection" (not "if no token is detected").
_SECRETS_SOUGHT = re.compile(
    r"\b(?:secrets?|credentials?|api[ _-]?keys?|tokens?)[ -](?:scan\w*|leaks?|detection|shaped)\b"
    r"|\b(?:leaked|hard-?coded)\s+(?:secrets?|credentials?|api[ _-]?keys?|tokens?)\b",
    re.I,
)
# 授权 as permission refused or missing (未获授权, 未经授权, 不授权, 没有覆盖授权), not one to
# obtain (获得授权后再使用, 已经授权) nor an authorisation code (授权码).
_PERMISSION = re.compile(r"(?:未获|未获得|未经|没有|不|无|覆盖)$")
# A feature named in a table row of its own ("| Login | 8 | 12 |"); a key or token there is a
# requirement listed ("| API key | required |").
_FEATURE = re.compile(r"log ?in|sign ?in|登录", re.I)


def _not_asked_for(before: str, after: str, word: str) -> bool:
    """Whether the login ``word``, with the text ``before`` and ``after`` it on its line, is
    none the skill asks for (the module's doc)."""
    clause = _CLAUSE_END.split(before)[-1]
    if _FORBIDS.search(clause):
        return True
    following = _CLAUSE_END.split(after)[0].split("(")[0][:_SCAN_WINDOW]  # not "(detected …)"
    near = clause[-_SCAN_WINDOW:] + " " + following
    opened = before.rfind("(")  # a list in brackets: "secrets detected (API keys, tokens)"
    if opened >= 0 and ")" not in before[opened:]:
        near += " " + before[max(0, opened - _SCAN_WINDOW) : opened]
    if _SCANNED.search(near) or _SCANNED.match(after):
        return True
    if _ZH_SCANNED.search(before.rstrip()) or _ZH_SCANNED.match(after.lstrip()):
        return True  # "扫描密钥", "密钥泄露"; not "扫描二维码登录"
    if _SUBJECT_AFTER.match(after) or _SUBJECT_BEFORE.search(before):
        return True
    if before[-1:] in (".", "-", "/") or re.match(r"\.\w|-\w", after):
        return True  # AuthService.login(), tokens.json, --allow-secrets, /login, TC-LOGIN-001
    if _FEATURE.fullmatch(word) and re.search(r"\|\s*$", before) and re.match(r"\s*\|", after):
        return True
    if before.endswith("`") and after.startswith("`"):  # Python's `secrets`
        return True
    return word == "授权" and bool(_PERMISSION.search(before)) and not after.startswith("码")
