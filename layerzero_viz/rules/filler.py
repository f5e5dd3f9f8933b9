"""filler: politeness, greetings, thanks, hedges and throat-clearing from the lexicons (zh and en)."""
from __future__ import annotations

from functools import lru_cache

from ..lexicon import entries, phrase_regex, word_regex
from ..view import Candidate, TextView

# a curated filler phrase may contain a negation or connective word ("if you don't mind", "如果可以的话")
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})
_SCORES = {"filler": 0.9, "hedges": 0.7}


@lru_cache(maxsize=1)
def _matchers():
    out = []
    for kind in ("filler", "hedges"):
        out.append((kind, "zh", phrase_regex(entries(f"{kind}.zh"))))
        out.append((kind, "en", word_regex(entries(f"{kind}.en"))))
    return [(k, lang, rx) for k, lang, rx in out if rx is not None]


def find(view: TextView, ctx) -> list[Candidate]:
    out = []
    for kind, lang, rx in _matchers():
        score = _SCORES[kind]
        for m in rx.finditer(view.text):
            phrase = m.group(0)
            out.append(Candidate(
                m.start(), m.end(), "filler", score,
                f"{'politeness/filler' if kind == 'filler' else 'hedge'} phrase {phrase!r} (lexicon {kind}.{lang})",
                0.05, _OVERRIDE,
            ))
    return out
