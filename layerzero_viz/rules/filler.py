"""filler: politeness, greetings, thanks, hedges and throat-clearing from the lexicons (zh and en)."""
from __future__ import annotations

import re
from functools import partial

from ..view import Bulk, Candidate, TextView

# a curated filler phrase may contain a negation or connective word ("if you don't mind", "如果可以的话")
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})
# "as an AI model" is filler in a reply, but a role in "act as an AI model"
_ROLE_VERB = re.compile(r"\b(?:act|acting|acts|serve|serving|serves|work|working|be|being|pose|posing|behave|behaving)\s+$",
                        re.IGNORECASE)
_KINDS = (("filler", 0.9, "politeness/filler"), ("hedges", 0.7, "hedge"))
_LEXICONS = tuple((kind, score, label, lang) for kind, score, label in _KINDS for lang in ("zh", "en"))
_LEXICON_NAMES = tuple(f"{kind}.{lang}" for kind, _, _, lang in _LEXICONS)


def find(view: TextView, ctx) -> list[Candidate]:
    return find_bulk(view, ctx).candidates()


def find_bulk(view: TextView, ctx) -> Bulk:
    """Every filler and hedge hit as one :class:`Bulk` (the engine's path; :func:`find` lists them)."""
    text = view.text
    lexicons = _LEXICONS
    starts, ends, sources = view.lexicon_columns(_LEXICON_NAMES)
    keep = [k for k in range(len(starts)) if not (
        text[starts[k]] in "aA" and lexicons[sources[k]][3] == "en" and text[starts[k]:starts[k] + 3].lower() == "as "
        and _ROLE_VERB.search(text, max(0, starts[k] - 12), starts[k]))]
    if len(keep) < len(starts):
        starts, ends, sources = [starts[k] for k in keep], [ends[k] for k in keep], [sources[k] for k in keep]
    # the detail function is a partial, not a closure: a kept annotation holds it, and a closure's cells are
    # objects the cyclic garbage collector visits
    return Bulk("filler", starts, ends, [lexicons[src][1] for src in sources], 0.05, _OVERRIDE,
                partial(_detail, text, starts, ends, sources))


def _detail(text: str, starts: list[int], ends: list[int], sources: list[int], k: int) -> str:
    kind, _, label, lang = _LEXICONS[sources[k]]
    return f"{label} phrase {text[starts[k]:ends[k]]!r} (lexicon {kind}.{lang})"
