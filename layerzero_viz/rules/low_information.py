"""low_information: frequent function words (lexicon ``low_information``); lowest priority, optional."""
from __future__ import annotations

from ..view import Bulk, Candidate, TextView

_ARTICLES = frozenset({"a", "an", "the"})


def find(view: TextView, ctx) -> list[Candidate]:
    return find_bulk(view, ctx).candidates()


def find_bulk(view: TextView, ctx) -> Bulk:
    """Every hit as one :class:`Bulk` (the engine's path; :func:`find` lists them)."""
    text = view.text
    starts: list[int] = []
    ends: list[int] = []
    scores: list[float] = []
    langs: list[str] = []
    if ctx.low_information:
        for lang in ("zh", "en"):
            flat = view.lexicon_flat[f"low_information.{lang}"]
            it = iter(flat)
            # shorter, more frequent words carry less: prune them first
            scores.extend([0.5 if e - s <= 1 or text[s:e].lower() in _ARTICLES else 0.4 for s, e in zip(it, it)])
            starts.extend(flat[0::2])
            ends.extend(flat[1::2])
            langs.extend([lang] * (len(flat) // 2))

    def detail(k: int) -> str:
        return f"frequent function word {text[starts[k]:ends[k]]!r} (lexicon low_information.{langs[k]})"

    return Bulk("low_information", starts, ends, scores, 0.35, frozenset(), detail)
