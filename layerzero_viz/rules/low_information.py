"""low_information: frequent function words (lexicon ``low_information``); lowest priority, optional."""
from __future__ import annotations

from functools import partial

from ..view import Bulk, Candidate, TextView

_ARTICLES = frozenset({"a", "an", "the"})
_NAMES = ("low_information.zh", "low_information.en")


def find(view: TextView, ctx) -> list[Candidate]:
    return find_bulk(view, ctx).candidates()


def find_bulk(view: TextView, ctx) -> Bulk:
    """Every hit as one :class:`Bulk` (the engine's path; :func:`find` lists them)."""
    text = view.text
    starts, ends, sources = view.lexicon_columns(_NAMES if ctx.low_information else ())
    # shorter, more frequent words carry less: prune them first
    scores = [0.5 if e - s <= 1 or (e - s <= 3 and text[s:e].lower() in _ARTICLES) else 0.4  # articles: ≤ 3 letters
              for s, e in zip(starts, ends)]
    return Bulk("low_information", starts, ends, scores, 0.35, frozenset(),
                partial(_detail, text, starts, ends, sources))


def _detail(text: str, starts: list[int], ends: list[int], sources: list[int], k: int) -> str:
    """A hit's detail (a partial of this, not a closure: see ``filler.find_bulk``)."""
    return f"frequent function word {text[starts[k]:ends[k]]!r} (lexicon {_NAMES[sources[k]]})"
