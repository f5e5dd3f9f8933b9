"""filler: politeness, greetings, thanks, hedges and throat-clearing from the lexicons (zh and en)."""
from __future__ import annotations

import re

from ..view import Candidate, TextView

# a curated filler phrase may contain a negation or connective word ("if you don't mind", "如果可以的话")
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})
# "as an AI model" is filler in a reply, but a role in "act as an AI model"
_ROLE_VERB = re.compile(r"\b(?:act|acting|acts|serve|serving|serves|work|working|be|being|pose|posing|behave|behaving)\s+$",
                        re.IGNORECASE)
_KINDS = (("filler", 0.9, "politeness/filler"), ("hedges", 0.7, "hedge"))


def find(view: TextView, ctx) -> list[Candidate]:
    out = []
    text = view.text
    for kind, score, label in _KINDS:
        for lang in ("zh", "en"):
            flat = iter(view.lexicon_flat[f"{kind}.{lang}"])
            for s, e in zip(flat, flat):
                if lang == "en" and text[s:s + 3].lower() == "as " and _ROLE_VERB.search(text, max(0, s - 12), s):
                    continue
                out.append(Candidate(s, e, "filler", score, f"{label} phrase {text[s:e]!r} (lexicon {kind}.{lang})",
                                     0.05, _OVERRIDE))
    return out
