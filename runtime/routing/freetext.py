"""Free text from the request, for an input that takes free text ("please triage this bug
report: the app crashes when I upload a photo" fills ``report``).

An input takes free text when it is a string whose name says so (``text``, ``report``,
``message``, ``query``, ``question``, ``description``, ``content``, ``prompt``, ``notes``, …),
or when it is the pipeline's only required string input — never one named like a file, a
folder, a URL, an e-mail address or a host (those take only what ``extraction`` reads), and
never a number or a boolean.  Its value, in this order:

1. the request's only quoted text;
2. what follows the request's first colon (``:`` then a space, or ``：``), outside URLs;
3. else the request without the words that frame it: from each end, the words of the
   pipeline's phrase (description or trigger) that shares most words with the request, and
   words such as "please", "can you", "this" — so "summarise the meeting we had about the
   budget" against the trigger "summarise these meeting notes" gives "we had about the budget".

Nothing is filled when that leaves no word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from skill2app.runtime.routing.mentions import URL, inside, quoted_texts
from skill2app.runtime.routing.models.lexical import _stem
from skill2app.runtime.routing.schema import free_text_name, shaped
from skill2app.runtime.run.inputs import base_type, is_optional

# Words that frame a request rather than say what it is about.
FRAMING = frozenset(
    """a an the this that these those my our your me i you it please pls kindly can
    could would will you help want need like to for of about on in with and hey hi just
    some""".split()
)
_COLON = re.compile(r"(?:(?<=\S):\s+|：\s*)")
_WORD = re.compile(r"\S+")
_EDGE = "\"'“”‘’`.,;:!?()[]{}<>。，；：！？（）「」"


def free_text_input(missing: dict[str, str], declared: dict[str, str]) -> str | None:
    """The one missing input to fill with free text, if there is exactly one."""
    strings = {k: t for k, t in missing.items() if base_type(t) == "string" and not shaped(k)}
    named = [k for k in strings if free_text_name(k)]
    if len(named) == 1:
        return named[0]
    if named:
        return None  # two free-text inputs: which words go where is a guess
    required = [k for k, t in declared.items() if base_type(t) == "string" and not is_optional(t)]
    if len(required) == 1 and required[0] in strings:
        return required[0]
    return None


def free_text(request: str, phrases: Sequence[str]) -> tuple[str, str] | None:
    """(the text, how it was taken) for a free-text input, or None."""
    quoted = quoted_texts(request)
    if len(quoted) == 1 and quoted[0][1].strip():
        return quoted[0][1].strip(), "the quoted text"
    urls = [m.span() for m in URL.finditer(request)]
    for colon in _COLON.finditer(request):
        if not inside(colon.start(), urls):
            rest = request[colon.end() :].strip()
            if rest:
                return rest, "the text after the colon"
            break
    left = _unframed(request, _best_phrase(request, phrases))
    return (left, "the request without the words of the trigger") if left else None


def _key(word: str) -> str:
    return _stem(word.strip(_EDGE).casefold())


def _best_phrase(request: str, phrases: Sequence[str]) -> set[str]:
    """The words of the phrase that shares most words with ``request``."""
    said = {_key(w) for w in request.split()}
    best: set[str] = set()
    for phrase in phrases:
        words = {_key(w) for w in phrase.split()} - {""}
        if len(words & said - FRAMING) > len(best & said - FRAMING):
            best = words
    return best


def _unframed(request: str, phrase: set[str]) -> str:
    """``request`` less its leading and trailing words that are the phrase's or framing."""
    spans = [m.span() for m in _WORD.finditer(request)]
    drop = [(_key(request[a:b]) in phrase | FRAMING) or not _key(request[a:b]) for a, b in spans]
    first = next((i for i, d in enumerate(drop) if not d), None)
    if first is None:
        return ""
    last = max(i for i, d in enumerate(drop) if not d)
    text = request[spans[first][0] : spans[last][1]]
    return text.strip(_EDGE + " ")
