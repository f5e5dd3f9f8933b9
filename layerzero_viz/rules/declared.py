"""declared_redundant: phrases the author lists in ``<redundant_phrases>[…]</redundant_phrases>``."""
from __future__ import annotations

import re

from ..lexicon import phrase_regex, zh_word_aligned
from ..view import Candidate, TextView

# the author declared the phrase redundant: it may take a negation or connective word with it
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})


def find(view: TextView, ctx) -> list[Candidate]:
    phrases = ctx.settings.redundant_phrases
    if not phrases:
        return []
    rx = phrase_regex([p for p in phrases if p.strip()])
    ascii_words = {p.lower() for p in phrases if p.isascii()}
    out = []
    flags_rx = re.compile(rx.pattern, re.IGNORECASE) if ascii_words else rx
    for m in flags_rx.finditer(view.text):
        word = m.group(0)
        if word.isascii() and not _on_word_boundaries(view.text, m.start(), m.end()):
            continue
        if not word.isascii() and not zh_word_aligned(view.text, m.start(), m.end()):
            continue  # 请问 inside 申请问题 is not the declared phrase
        out.append(Candidate(m.start(), m.end(), "declared_redundant", 1.0,
                             f"listed in <redundant_phrases>: {word!r}", 0.0, _OVERRIDE))
    return out


def _on_word_boundaries(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())
