"""What a request mentions, told apart by shape: quoted texts, numbers, URLs and their
hosts, e-mail addresses, domains, and paths on this machine (``extraction`` decides which
input each may fill).  Positions are kept as spans, so what one kind covers (a number inside
a URL) is blanked before the next kind is looked for.

An input's *kind* here is what its name says it holds: ``file``, ``dir`` or ``any`` text.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from skill2app.runtime.run.inputs import absolute

Span = tuple[int, int]

CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"  # incl. CJK/fullwidth punctuation
LATIN = rf"[^\W{CJK}]"  # a word character of a script written with spaces between words
NUMBER = re.compile(
    rf"(?<!{LATIN})(?<![.\-/\\:@#<>=])#?(-?\d+(?:\.\d+)?)(?!{LATIN}|[.\-/\\:@]\w|[年月日号<>=])"
)
QUOTED = re.compile(
    r"\"([^\"]+)\"|“([^”]+)”|`([^`]+)`|「([^」]+)」|『([^』]+)』"
    rf"|(?<!{LATIN})'((?:[^']|(?<={LATIN})'(?={LATIN}))+)'(?!{LATIN})"
)
CJK_LETTER = re.compile(r"[\u2e80-\u2fff\u3040-\u9fff\uac00-\ud7af\uf900-\ufaff]")
STRAY_QUOTE = re.compile(rf"(?<!{LATIN})'|'(?!{LATIN})")  # a ' that is not an apostrophe
CJK_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"  # 。，、「」（）… and fullwidth forms
URL = re.compile(rf"https?://[^\s\"'<>`{CJK_PUNCTUATION}]+", re.I)  # /wiki/北京 is a URL's own
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?![\w-])")
DOMAIN = re.compile(  # "example.org." at a sentence's end too
    r"(?<![\w@/.:-])@?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})(?![\w/-]|\.[\w/-])",
    re.I,
)
PATH_LIKE = re.compile(r"[/\\]|\.[A-Za-z][A-Za-z0-9]{0,7}$")  # a folder or a file suffix
BRACKETS = "()[]{}<>\"'（）【】「」《》“”‘’"
SENTENCE_END = ".,;:!?。，；：！？、"


def quoted_texts(request: str) -> list[tuple[Span, str]]:
    """The quoted texts of ``request``.  Single quotes only when every ' that is not an
    apostrophe pairs up: in "'rock 'n' roll'" which pairs with which is a guess."""
    matches = list(QUOTED.finditer(request))
    single = [m for m in matches if m.group(6)]
    if len(STRAY_QUOTE.findall(request)) != 2 * len(single):
        matches = [m for m in matches if not m.group(6)]
    return [(m.span(), next(g for g in m.groups() if g)) for m in matches]


def sure_url(url: str) -> bool:
    """Whether ``url`` surely ends where it seems to: CJK text in it may be its own
    (``/wiki/北京``) or the sentence's, written on without a space (``/a谢谢``): a doubt."""
    return not CJK_LETTER.search(url)


def clean_url(url: str) -> str:
    """``https://x.org/a).`` -> ``https://x.org/a``: a sentence's punctuation and unbalanced
    closing brackets are not part of the URL (``/wiki/A_(b)`` keeps its own)."""
    while url:
        last = url[-1]
        pairs = {")": "(", "]": "[", "}": "{"}
        if last in SENTENCE_END or (last in pairs and url.count(last) > url.count(pairs[last])):
            url = url[:-1]
        else:
            break
    return url


def host_of(url: str) -> str | None:
    """The host of ``url`` as written (``https://EXAMPLE.org/a`` -> ``EXAMPLE.org``)."""
    try:
        parts = urlsplit(url)
        lowered = parts.hostname
    except ValueError:  # "http://[::1" and the like
        return None
    written = parts.netloc.rpartition("@")[2].partition(":")[0]
    return written if lowered and written.lower() == lowered else lowered


def suffix(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower()


def path_value(text: str, kind: str, *, quoted: bool) -> str | None:
    """``text`` as the value of an input of ``kind`` (``file``, ``dir``, ``any``): what exists
    and the input takes — a file (unless a folder input), a folder (for a folder input, or
    written with a ``/`` for a text input) — made absolute; other quoted text as it is (a
    file input's only when shaped like a path: a file to write, made absolute too); None when
    it cannot be one (a folder for a file input, a word)."""
    found = probe(text)
    takes_dir = kind == "dir" or (kind == "any" and "/" in text)
    if (found == "file" and kind != "dir") or (found == "dir" and takes_dir):
        return absolute(text)
    if not quoted:
        return None
    if "://" in text:
        return text if kind == "any" else None  # a URL is not a local file or folder
    if kind != "any" and found is not None:
        return None  # a folder for a file input, a file for a folder input
    if kind == "file" and not PATH_LIKE.search(text):
        return None  # "the column 'revenue' of sample.csv": a word, not a file
    return text if kind == "any" else absolute(text)  # 'out/report.csv', to be written


def probe(text: str) -> str | None:
    """``file``, ``dir`` or None (nothing there, or not a name the system takes: too long,
    a NUL byte, …)."""
    if not text.strip():
        return None
    try:
        path = os.path.expanduser(text)
        if os.path.isfile(path):
            return "file"
        return "dir" if os.path.isdir(path) else None
    except (OSError, ValueError):
        return None


def trim(token: str) -> str:
    """``(see ./a.csv).`` -> ``./a.csv``: brackets and a sentence's end go, a path's own dots
    stay (``..``)."""
    while True:
        trimmed = token.strip(BRACKETS).rstrip(SENTENCE_END)
        if trimmed == token or not trimmed:  # "..": a path of its own
            return token
        token = trimmed


def inside(position: int, spans: list[Span]) -> bool:
    return any(start <= position < end for start, end in spans)


def blank(text: str, spans: list[Span]) -> str:
    """``text`` with each span replaced by spaces (positions kept)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)
