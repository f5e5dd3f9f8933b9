"""low_information: frequent function words (lexicon ``low_information``); lowest priority, optional."""
from __future__ import annotations

from ..view import Bulk, Candidate, TextView

_ARTICLES = frozenset({"a", "an", "the"})


def find(view: TextView, ctx) -> list[Candidate]:
    return find_bulk(view, ctx).candidates()


def find_bulk(view: TextView, ctx) -> Bulk:
    """Every hit as one :class:`Bulk` (the engine's path; :func:`find` lists them)."""
    text = view.text
    langs = ("zh", "en") if ctx.low_information else ()
    starts, ends, sources = view.lexicon_columns([f"low_information.{lang}" for lang in langs])
    # shorter, more frequent words carry less: prune them first
    scores = [0.5 if e - s <= 1 or (e - s <= 3 and text[s:e].lower() in _ARTICLES) else 0.4  # articles: ≤ 3 letters
              for s, e in zip(starts, ends)]

    def detail(k: int) -> str:
        return f"frequent function word {text[starts[k]:ends[k]]!r} (lexicon low_information.{langs[sources[k]]})"

    return Bulk("low_information", starts, ends, scores, 0.35, frozenset(), detail)
