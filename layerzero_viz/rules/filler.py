"""filler: politeness, greetings, thanks, hedges and throat-clearing from the lexicons (zh and en)."""
from __future__ import annotations

from ..view import Candidate, TextView

# a curated filler phrase may contain a negation or connective word ("if you don't mind", "如果可以的话")
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})
_KINDS = (("filler", 0.9, "politeness/filler"), ("hedges", 0.7, "hedge"))


def find(view: TextView, ctx) -> list[Candidate]:
    out = []
    text = view.text
    for kind, score, label in _KINDS:
        for lang in ("zh", "en"):
            for s, e in view.lexicon_hits[f"{kind}.{lang}"]:
                out.append(Candidate(s, e, "filler", score, f"{label} phrase {text[s:e]!r} (lexicon {kind}.{lang})",
                                     0.05, _OVERRIDE))
    return out
