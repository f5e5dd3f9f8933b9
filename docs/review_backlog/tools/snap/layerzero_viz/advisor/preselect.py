"""Which mined phrases to pre-select for ``<redundant_phrases>``, and why each one is or is not.

Declaring a phrase redundant prunes it *everywhere* it occurs, so the History page pre-selects only what is
safe to lose by construction, and says why for every phrase (:class:`Verdict`):

- it is **spread** over many messages (at least :data:`MIN_MESSAGES` and :data:`MIN_SHARE` of them): a phrase of
  a few messages is a topic or a coincidence, not a habit of the traffic;
- by segmentation (``jieba.posseg`` for Chinese, the word lists of ``preselect.toml`` for English) it is a
  **politeness frame** — a politeness word with only function words and request-frame verbs around it
  (麻烦您帮我看一下, "could you please"), or a whole filler entry of the lexicons — or a **function-word run
  that frames clauses** (function words only, at a clause's start or end in most uses: 那个, 就是说).

Never: a noun, a name, a product, a place, a number, any other content word (电动牙刷和, "my order"), a request
verb without politeness (我想把), a function-word fragment from inside clauses ("of my").

>>> from layerzero_viz.advisor.mine import Phrase
>>> def phrase(text, edge=0.9, lexicon=False):
...     return Phrase(text, 400, 400, 3, 1200, 1000, 1.0, edge, 1.0, lexicon)
>>> verdict(phrase("麻烦您帮我看一下"), messages=5000).selected
True
>>> v = verdict(phrase("电动牙刷和"), messages=5000); v.selected, v.kind, v.reason
(False, 'content', 'not selected: 电动牙刷 is a set phrase (l), content that declaring it would prune everywhere')
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..lexicon import posseg, scan
from .mine import Phrase

__all__ = ["MIN_MESSAGES", "MIN_SHARE", "MIN_EDGE_SHARE", "Verdict", "verdict", "verdicts", "segment"]

MIN_MESSAGES = 10
MIN_SHARE = 0.01
"""Spread: the phrase occurs in at least this share of the history's messages (and MIN_MESSAGES of them)."""
MIN_EDGE_SHARE = 0.5
"""A function-word run qualifies only when at least this share of its uses start or end a clause."""

_DATA = Path(__file__).with_name("preselect.toml")


@dataclass(frozen=True)
class Verdict:
    """Whether a mined phrase is pre-selected, its kind (``politeness``, ``function words``, ``content``,
    ``request``, ``fragment``, ``rare``) and the reason, in the History page's words."""

    selected: bool
    kind: str
    reason: str


@lru_cache(maxsize=1)
def _lists() -> dict[str, dict[str, frozenset[str]]]:
    data = tomllib.loads(_DATA.read_text(encoding="utf-8"))
    return {lang: {k: frozenset(v) for k, v in table.items()} for lang, table in data.items()}


def segment(phrase: str) -> list[tuple[str, str]]:
    """The phrase's words and what each is: ``polite``, ``frame`` (a request-frame verb), ``function`` or a
    content tag (jieba's flag for Chinese, ``word`` for English).

    >>> segment("could you please")
    [('could', 'frame'), ('you', 'function'), ('please', 'polite')]
    """
    if phrase.isascii():
        lists = _lists()["en"]
        out = []
        for word in phrase.lower().split():
            word = word.strip(".,!?;:'\"")
            kind = ("polite" if word in lists["politeness"] else "frame" if word in lists["frame_verbs"]
                    else "function" if word in lists["function_words"] else "word")
            out.append((word, kind))
        return out
    lists = _lists()["zh"]
    out = []
    for word, flag in posseg(phrase):
        if not word.strip():
            continue
        kind = ("polite" if word in lists["politeness"] else "frame" if word in lists["frame_verbs"]
                else "function" if word in lists["function_words"] or flag in lists["function_tags"] else flag)
        out.append((word, kind))
    return out


def _known_filler(phrase: str) -> bool:
    hits = scan(phrase)
    return any(s == 0 and e == len(phrase) for k in ("filler.zh", "filler.en") for s, e in hits[k])


_WORD_KINDS = {"n": "a noun", "nr": "a name", "ns": "a place", "nt": "an organisation", "nz": "a proper noun",
               "v": "a verb", "vn": "a verb", "a": "an adjective", "ad": "an adjective", "an": "an adjective",
               "l": "a set phrase", "i": "an idiom", "m": "a number", "q": "a measure word", "t": "a time",
               "s": "a place", "f": "a direction", "b": "an attribute", "eng": "an English word", "x": "a symbol",
               "word": "a content word"}
_THANKS = frozenset({"感谢", "非常感谢", "十分感谢", "感谢您", "谢谢", "谢谢您", "多谢", "thanks", "thank"})


def _content_reason(word: str, kind: str) -> str:
    what = _WORD_KINDS.get(kind, _WORD_KINDS.get(kind[:1], "a content word"))
    return f"not selected: {word} is {what} ({kind}), content that declaring it would prune everywhere"


def verdict(phrase: Phrase, *, messages: int) -> Verdict:
    """Whether ``phrase`` (mined from a history of ``messages`` messages) is pre-selected, and why."""
    words = segment(phrase.phrase)
    content = [(w, k) for w, k in words if k not in ("polite", "frame", "function")]
    polite = [w for w, k in words if k == "polite"]
    known = _known_filler(phrase.phrase)
    # a clause of thanks (非常感谢您的耐心解答, "thank you for the quick reply") goes whole: what is thanked for
    # was said before; it stands at a clause's edge in nearly all its uses
    lead = next((w for w, k in words if k != "function"), "")  # 非常感谢…: past the degree adverb
    thanks = lead in _THANKS and phrase.edge_share >= 0.9
    if content and not known and not thanks:
        return Verdict(False, "content", _content_reason(*content[0]))
    need = max(MIN_MESSAGES, int(MIN_SHARE * messages + 0.999))
    if phrase.documents < need:
        return Verdict(False, "rare", f"not selected: in {phrase.documents:,} messages, fewer than the {need:,} "
                                      f"({MIN_SHARE:.0%} of the history) that make it a habit of the traffic")
    if known:
        return Verdict(True, "politeness", f"selected: a filler phrase of the lexicon, in {phrase.documents:,} "
                                           "messages")
    if thanks:
        return Verdict(True, "politeness", f"selected: a clause of thanks, in {phrase.documents:,} messages")
    if polite:
        return Verdict(True, "politeness", f"selected: a politeness frame ({', '.join(polite)}) in "
                                           f"{phrase.documents:,} messages")
    if any(k == "frame" for _, k in words):
        verbs = ", ".join(w for w, k in words if k == "frame")
        return Verdict(False, "request", f"not selected: a request ({verbs}) without politeness — it may be "
                                         "the request itself; add it by hand if it is only a frame")
    if phrase.edge_share < MIN_EDGE_SHARE:
        return Verdict(False, "fragment", f"not selected: function words from inside clauses "
                                          f"({phrase.edge_share:.0%} of uses at a clause's edge), where removing "
                                          "them changes what the clause says")
    return Verdict(True, "function words", f"selected: function words framing clauses "
                                           f"({phrase.edge_share:.0%} of uses at a clause's edge)")


def verdicts(phrases: Any, *, messages: int) -> list[Verdict]:
    """:func:`verdict` of each phrase."""
    return [verdict(p, messages=messages) for p in phrases]
