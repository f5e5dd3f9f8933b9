"""filler: politeness, greetings, thanks, hedges and throat-clearing from the lexicons (zh and en)."""
from __future__ import annotations

import re

from ..view import Bulk, Candidate, TextView

# a curated filler phrase may contain a negation or connective word ("if you don't mind", "如果可以的话")
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})
# "as an AI model" is filler in a reply, but a role in "act as an AI model"
_ROLE_VERB = re.compile(r"\b(?:act|acting|acts|serve|serving|serves|work|working|be|being|pose|posing|behave|behaving)\s+$",
                        re.IGNORECASE)
_KINDS = (("filler", 0.9, "politeness/filler"), ("hedges", 0.7, "hedge"))


def find(view: TextView, ctx) -> list[Candidate]:
    return find_bulk(view, ctx).candidates()


def find_bulk(view: TextView, ctx) -> Bulk:
    """Every filler and hedge hit as one :class:`Bulk` (the engine's path; :func:`find` lists them)."""
    text = view.text
    starts: list[int] = []
    ends: list[int] = []
    scores: list[float] = []
    sources: list[int] = []
    labels: list[tuple[str, str, str]] = []
    for kind, score, label in _KINDS:
        for lang in ("zh", "en"):
            flat = view.lexicon_flat[f"{kind}.{lang}"]
            if not flat:
                continue
            src = len(labels)
            labels.append((label, kind, lang))
            if lang == "en":
                it = iter(flat)
                kept = [x for s, e in zip(it, it) for x in (s, e)
                        if not (text[s:s + 3].lower() == "as " and _ROLE_VERB.search(text, max(0, s - 12), s))]
            else:
                kept = flat
            m = len(kept) // 2
            starts.extend(kept[0::2])
            ends.extend(kept[1::2])
            scores.extend([score] * m)
            sources.extend([src] * m)

    def detail(k: int) -> str:
        label, kind, lang = labels[sources[k]]
        return f"{label} phrase {text[starts[k]:ends[k]]!r} (lexicon {kind}.{lang})"

    return Bulk("filler", starts, ends, scores, 0.05, _OVERRIDE, detail)
