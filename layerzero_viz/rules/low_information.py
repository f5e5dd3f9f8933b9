"""low_information: frequent function words (lexicon ``low_information``); lowest priority, optional."""
from __future__ import annotations

from ..view import Candidate, TextView


def find(view: TextView, ctx) -> list[Candidate]:
    if not ctx.low_information:
        return []
    out = []
    text = view.text
    for lang in ("zh", "en"):
        flat = iter(view.lexicon_flat[f"low_information.{lang}"])
        for s, e in zip(flat, flat):
            word = text[s:e]
            # shorter, more frequent words carry less: prune them first
            score = 0.5 if len(word) <= 1 or word.lower() in ("a", "an", "the") else 0.4
            out.append(Candidate(s, e, "low_information", score,
                                 f"frequent function word {word!r} (lexicon low_information.{lang})", 0.35))
    return out
