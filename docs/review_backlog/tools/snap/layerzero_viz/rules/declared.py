"""declared_redundant: phrases the author lists in ``<redundant_phrases>[…]</redundant_phrases>``.

Whole words only: English on word boundaries (case-insensitive), Chinese where jieba's dictionary glues no
word across either edge (请问 is not in 申请问题) and the phrase is not itself what is said (麻烦 in 遇到麻烦,
很麻烦); never where the phrase is talked about rather than said (filler's ``_mentioned``, or the subject of "is":
"thanks is not needed in your reply").  Never in material or ``<protected_tokens>`` matches: those protections veto every rule.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..lexicon import _jieba, phrase_regex, zh_word_aligned
from ..view import Candidate, Hits, TextView
from .filler import _mentioned

if TYPE_CHECKING:
    from . import RuleContext

# the author declared the phrase redundant: it may take a negation or connective word with it
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})


def find(view: TextView, ctx: RuleContext) -> Hits:
    """``<redundant_phrases>`` entries as whole words anywhere in the text (the author's list)."""
    return Hits.of("declared_redundant", _found(view, ctx))


def _found(view: TextView, ctx: RuleContext) -> list[Candidate]:
    phrases = ctx.settings.redundant_phrases
    if not phrases:
        return []
    rx = phrase_regex([p for p in phrases if p.strip()])
    if rx is None:  # only blank phrases (a Settings built by hand: parsed directives drop them)
        return []
    ascii_words = {p.lower() for p in phrases if p.isascii()}
    out = []
    flags_rx = re.compile(rx.pattern, re.IGNORECASE) if ascii_words else rx
    for m in flags_rx.finditer(view.text):
        word = m.group(0)
        if word.isascii() and not _on_word_boundaries(view.text, m.start(), m.end()):
            continue
        if not word.isascii() and not zh_word_aligned(view.text, m.start(), m.end()):
            continue  # 请问 inside 申请问题 is not the declared phrase
        if not word.isascii() and _zh_content_use(view.text, m.start(), m.end()):
            continue  # 麻烦 in 遇到麻烦 / 很麻烦 / 麻烦的事 is what is said, not a frame around it
        if _mentioned(view.text, m.start(), m.end()) or _SUBJECT_AFTER.match(view.text, m.end()):
            continue  # the word talked about, not said: "thanks is not needed in your reply", "keep the kindly"
        start, end = _with_its_commas(view.text, m.start(), m.end())
        out.append(Candidate(start, end, "declared_redundant", 1.0,
                             f"listed in <redundant_phrases>: {word!r}", 0.0, _OVERRIDE))
    return out


# a verb after the phrase that makes it the subject: the word itself is what the sentence is about
_SUBJECT_AFTER = re.compile(r"[\"'”’」]?[ \t]+(?i:is|are|isn't|aren't|was|sounds|seems|feels|looks|reads)\b")
_PARENTHESIS = re.compile(r"[ \t]*[,，][ \t]*\Z")


def _with_its_commas(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to the commas around it when the phrase is a parenthesis ("The left earcup, as per my
    previous message, is silent"): alone it would leave "The left earcup, is silent"."""
    before = _PARENTHESIS.search(text, max(0, start - 4), start)
    after = end
    while after < len(text) and text[after] in " \t":
        after += 1
    if before is None or after >= len(text) or text[after] not in ",，":
        return start, end
    return before.start(), after + 1


# a word just before that makes the phrase an object or a predicate (遇到麻烦, 添麻烦, 很麻烦, 不麻烦), or a
# character just after that makes it a noun or adjective (麻烦的事, 麻烦得很): the phrase is content there
_CONTENT_BEFORE = frozenset({
    "遇到", "碰到", "遇上", "碰上", "带来", "造成", "引起", "惹", "添", "找", "怕", "嫌", "有", "没有", "没", "不",
    "很", "太", "挺", "真", "好", "多", "少", "有点", "有些", "非常", "特别", "比较", "十分", "这么", "那么", "这样",
    "那样", "什么", "个", "些", "点", "的", "省", "免", "更", "最", "极", "是", "够",
})
_CONTENT_AFTER = "的得事处"


def _zh_content_use(text: str, start: int, end: int) -> bool:
    if end < len(text) and text[end] in _CONTENT_AFTER:
        return True
    lo = start
    while lo > 0 and start - lo < 4 and "\u4e00" <= text[lo - 1] <= "\u9fff":
        lo -= 1
    if lo == start:
        return False
    words = list(_jieba().cut(text[lo:start], HMM=False))
    return bool(words) and (words[-1] in _CONTENT_BEFORE or words[-1][-1:] in _CONTENT_BEFORE)


def _on_word_boundaries(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())
