"""low_information: frequent function words (lexicon ``low_information``); lowest priority, optional."""
from __future__ import annotations

from functools import lru_cache

from ..lexicon import entries, phrase_regex, word_regex
from ..view import Candidate, TextView


@lru_cache(maxsize=1)
def _matchers():
    # exception words (目的, 了解, 获得 …) are part of the zh alternation so they win and are then skipped
    zh_words = frozenset(entries("low_information.zh"))
    zh = phrase_regex(list(zh_words) + list(entries("low_information_exceptions.zh")))
    return [(lang, rx, words) for lang, rx, words in (
        ("zh", zh, zh_words),
        ("en", word_regex(entries("low_information.en")), None),
    ) if rx is not None]


def find(view: TextView, ctx) -> list[Candidate]:
    if not ctx.low_information:
        return []
    out = []
    for lang, rx, words in _matchers():
        for m in rx.finditer(view.text):
            word = m.group(0)
            if words is not None and word not in words:
                continue
            # shorter, more frequent words carry less: prune them first
            score = 0.5 if len(word) <= 1 else 0.4
            out.append(Candidate(m.start(), m.end(), "low_information", score,
                                 f"frequent function word {word!r} (lexicon low_information.{lang})", 0.35))
    return out
