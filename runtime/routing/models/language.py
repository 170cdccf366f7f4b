"""How far a request is from English, the only language the static model (``encoder.py``)
knows: the embedded router moves that share of the dense score, for the request and for each
phrase, to the multilingual sentence encoder (``sentence.py``).

The evidence of another language: CJK characters; words of another script (Cyrillic, Greek,
Arabic, …); and function words of Spanish, German, French, Italian, Portuguese or Dutch
("quiero que me devuelvan el dinero": quiero, que, el).  It is weighed against English function
words, and it takes two pieces of it, so a loanword, a name or a locale code ("book a table
at Café Müller", "add the de strings") does not make English foreign.  File names
and URLs are left out: they say nothing about the language a request is written in.
"""

from __future__ import annotations

import re

from skill2app.runtime.routing.models.encoder import CJK_RE

# File names and URLs.
_NAMES = re.compile(r"\S+://\S+|[\w.@+-]+\.[A-Za-z0-9]{1,5}\b")
_WORD = re.compile(r"[^\W\d_]+")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]+")

# Common words of six languages that are not also English words: "die", "mit", "con",
# "per", "no", "a", "as", "os", "van" and the like are left out, an English request uses them.
_FOREIGN = frozenset(
    """
    de en que el los las del mi mis tu tus sus por para una unos unas está están estoy
    necesito quiero puedes puede pero como cuando donde dónde qué cuál cómo muy también
    mañana todavía ya esta este estos estas ese eso lo le les nos se
    der den das dem des ein eine einen einem einer und ist sind ich wir ihr nicht bitte
    für von zu auf aus bei nach oder aber wie wo wer meine meinen meiner mein kann
    möchte brauche geht noch nur auch sehr heute morgen schon
    la du une avec sur dans et est sont je nous vous il ils elle mon ma mes
    ta notre votre leur ce cette ces qui quoi où pourquoi veux voudrais peux pas
    très aussi demain moi toi
    gli della delle dello degli nel nella nei sul sulla che di da sono io
    mio mia miei tuo tua più anche molto domani ecco questo questa quello quella
    uma meu minha meus minhas você vocês não com em na ao às ainda muito isso isto
    amanhã
    het een niet ik mijn jij wij zijn waarom hoe wat waar heb hebben ook deze dit
    """.split()
)
_ENGLISH = frozenset(
    """
    the a an to of in on at for from with by about into over my me i you your we our us
    it its is are was be been this that these those and or but not please can could would
    should will what which who where when why how do does did have has get give show
    """.split()
)


def foreign_share(request: str) -> float:
    """How much of ``request`` is in a language other than English, from 0.0 to 1.0: the
    share of foreign evidence (a CJK character, a foreign function word, a word of another
    script) against English function words, once there are two pieces of evidence.  One is not
    enough: a locale code ("add the de strings"), a one-character name or a loanword."""
    text = _NAMES.sub("", request)
    cjk = sum(map(len, CJK_RE.findall(text)))
    words = [w.casefold() for w in _WORD.findall(CJK_RE.sub(" ", text))]
    evidence = cjk + sum(1 for w in words if w in _FOREIGN or not _LATIN.fullmatch(w))
    if evidence < 2:
        return 0.0
    return evidence / (evidence + sum(1 for w in words if w in _ENGLISH))
