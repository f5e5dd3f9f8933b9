"""Guards every selection must respect, applied to the candidates before they are resolved into spans.

* **A cut takes its frame along.** A candidate that is all of an emphasis (``**Note:**``) takes the markers
  with it; one that is all of a list item's text takes the marker (``4. 回答要简洁``): otherwise the cut leaves
  ``****`` or an orphan ``4.`` behind (:func:`close_candidates`).
* **Never an empty block.** The Messages API rejects an empty text block, and a turn that is all filler
  ("谢谢！", "Hello.") still says something: when the candidates of a text block together cover every word of
  it, none of them is taken and the block's text stays whole (:func:`guard_blocks`).  Candidates are checked
  before any budget is spent, so no ratio can empty a block.
* **No sentence left starting in lower case.** A cut that takes the opening words of a sentence that begins
  with a capital ("As my tax advisor, tell me …", "Thanks again, you've been …", "I was wondering if you could
  find …") would leave it starting in lower case; reconstruction may not capitalise (it changes a kept token),
  so such a candidate is not taken (:func:`keep_sentence_case`).  A cut that takes whole sentences, or that
  starts inside a sentence, is not concerned; nor is a phrase the author declared redundant: their
  ``<redundant_phrases>`` list says to take it wherever it stands as a word ("Kindly check …" → "check …").

A character is *content* when it is a letter, a digit or a CJK character (``[^\\W_]``); whitespace, punctuation
and symbols alone do not make a turn.
"""
from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

from .view import EMOJI_CHARS, Candidate, Hits, TextView

__all__ = ["EMPTY_BLOCK", "BlockGuard", "close_candidates", "guard_blocks", "keep_sentence_case"]

_CONTENT = re.compile(r"[^\W_]")
# a list marker alone before a candidate on its line: "- ", "4. ", "a) ", "(3) ", "（三）", "• ", "P.S."
_MARKER_LINE = re.compile(r"(?:^|\n)[ \t]*(?:[-*+•·]|\d{1,3}[.)、]|[A-Za-z][.)]|[(（][0-9A-Za-z一二三四五六七八九十]{1,3}[)）]"
                          r"|[一二三四五六七八九十]{1,3}、"
                          # a postscript's mark: "P.S. thanks!" wholly cut takes its "P.S." ("PS:", "P.P.S.", 附：, 又及：)
                          r"|(?i:p\.?[ \t]?(?:p\.?[ \t]?)?s\.?)[ \t]*[:：]?|附[：:]|又及[：:]?)[ \t]*\Z")
_LINE_REST = re.compile(r"[ \t]*(?:\n|\Z)")
_EMPHASIS = ("**", "__", "*", "_", "~~")
EMPTY_BLOCK = "kept: the turn would be empty otherwise ({where}); the Messages API rejects empty text blocks"
BARE_NUMBER_LEFT = "kept: only a number would be left of the turn ({where}), and alone it reads as a quantity"


class BlockGuard(NamedTuple):
    """The candidates left after the guard, and the blocks it kept whole (global (start, end) and the note that
    says why, with a ``{where}`` slot, each)."""

    candidates: list[Candidate]
    bulks: list[Hits]
    kept_whole: tuple[tuple[int, int, str], ...]


_BARE_NUMBER = re.compile(r"\W*\d{1,3}\W*")


def guard_blocks(view: TextView, candidates: Sequence[Candidate], bulks: Sequence[Hits],
                 directive_ranges: Sequence[tuple[int, int]] = ()) -> BlockGuard:
    """Drop every candidate of a text block whose candidates (and engine directives) cover all its content.

    >>> from layerzero_viz import load_conversation
    >>> view = TextView.of(load_conversation("谢谢！"))
    >>> thanks = Candidate(0, 3, "filler", 0.9, "thanks", 0.05)
    >>> guard_blocks(view, [thanks], []).kept_whole[0][:2]
    (0, 3)
    """
    text = view.text
    ranges: list[tuple[int, int]] = [(c.start, c.end) for c in candidates]
    for bulk in bulks:
        ranges.extend(zip(bulk.starts, bulk.ends))
    if not ranges:
        return BlockGuard(list(candidates), list(bulks), ())
    ranges.extend(directive_ranges)
    ranges.sort()
    whole: list[tuple[int, int, str]] = []
    k = 0
    for block in view.blocks:
        while k < len(ranges) and ranges[k][1] <= block.start:
            k += 1
        pos = block.start  # content before ``pos`` is covered
        left = ""  # the content no candidate covers (while it is at most a short number)
        j = k
        while j < len(ranges) and ranges[j][0] < block.end:
            s, e = ranges[j]
            if s > pos and _CONTENT.search(text, pos, s):
                left += text[pos:s]
                if not _BARE_NUMBER.fullmatch(left):
                    break
            pos = max(pos, e)
            j += 1
        else:
            if pos < block.end and _CONTENT.search(text, pos, block.end):
                left += text[pos:block.end]
            # all covered, or all but a bare number ("谢谢！8": alone, "8" reads as a quantity, not a goodbye)
            if (not left or _BARE_NUMBER.fullmatch(left)) and _CONTENT.search(text, block.start, block.end):
                whole.append((block.start, block.end, BARE_NUMBER_LEFT if left else EMPTY_BLOCK))
    if not whole:
        return BlockGuard(list(candidates), list(bulks), ())

    def inside_kept(s: int) -> bool:
        return any(bs <= s < be for bs, be, _ in whole)

    kept_candidates = [c for c in candidates if not inside_kept(c.start)]
    kept_bulks = [_without(bulk, inside_kept) for bulk in bulks]
    return BlockGuard(kept_candidates, kept_bulks, tuple(whole))


# what may stand between a sentence's start and its first word: space, emphasis, a quote or bracket opening it,
# a heading mark (a list marker is _MARKER_LINE's)
_LEAD = " \t*_>#\"'“‘(（[「『"
# what ends the sentence before (or a line break: a heading, a list item)
_SENTENCE_END = ".!?。！？…\n"
_FIRST_LETTER = re.compile(r"[^\W\d_]")
DECLARED = "declared_redundant"
LOWER_START = "kept: taking {cut!r} would leave its sentence starting in lower case ({rest!r}…)"


_EMOJI_CHAR = re.compile(EMOJI_CHARS)


def keep_sentence_case(view: TextView, candidates: Sequence[Candidate], bulks: Sequence[Hits]
                       ) -> tuple[list[Candidate], list[Hits], list[tuple[int, int, str]]]:
    """The candidates without those that take the opening words of a sentence beginning with a capital and
    leave a word in lower case to start it; and (start, end, why) of each one dropped.

    >>> from layerzero_viz import load_conversation
    >>> view = TextView.of(load_conversation("Thanks again, you've been helpful!"))
    >>> kept, _, notes = keep_sentence_case(view, [Candidate(0, 14, "filler", 0.9, "thanks", 0.05)], [])
    >>> kept, notes[0][:2]
    ([], (0, 14))
    """
    text = view.text
    notes: list[tuple[int, int, str]] = []

    def opening(s: int, e: int) -> int | None:
        """Where the capital that opens a sentence stands in [s, e), when the span starts that sentence."""
        if not text[s].isupper():  # (most hits: a CJK character, a lower-case word, punctuation)
            # (a span may open with space, emphasis or the list marker it takes along: "- Thanks again,")
            m = _FIRST_LETTER.search(text, s, e)
            if m is None or not m.group().isupper():
                return None
            s = m.start()
        block = view.block_at(s)
        k = s - 1
        while k >= block.start and (text[k] in _LEAD or _EMOJI_CHAR.match(text, k)):
            k -= 1  # ("Hey! 👋 Quick question: what's …": the emoji between two sentences)
        if k >= block.start and text[k] not in _SENTENCE_END and not _MARKER_LINE.search(
                text, max(0, text.rfind("\n", 0, s)), s):
            return None  # inside a sentence ("…, and I think that it is late"), not after a list marker
        return s

    def lower_after(e: int) -> int | None:
        """Where the lower-case word left to start the sentence stands, when a cut ending at ``e`` leaves one."""
        k = e - 1
        while k > 0 and text[k].isspace():
            k -= 1
        if text[k] in _SENTENCE_END or (text[k] in "\"'”’)）" and text[k - 1] in _SENTENCE_END):
            return None  # whole sentences go: the next one starts as it was written
        r = e
        while r < len(text) and text[r] in " \t*_":
            r += 1
        return r if r < len(text) and text[r].islower() else None

    def note(s: int, e: int, cut_from: int, r: int) -> None:
        notes.append((s, e, LOWER_START.format(cut=text[cut_from:e].strip(), rest=text[r:r + 20].split("\n")[0])))

    def lowers(s: int, e: int) -> bool:
        at = opening(s, e)
        r = None if at is None else lower_after(e)
        if at is None or r is None:
            return False
        note(at, e, at, r)
        return True

    # the candidates that open a sentence and stay: one that starts where such an opener ends would, taken with it,
    # leave the sentence in lower case ("Sorry to bother you, but | I was wondering if you could | help me …")
    spans = [(c.start, c.end, c.reason) for c in candidates]
    for bulk in bulks:
        spans.extend((s, e, bulk.reason) for s, e in zip(bulk.starts, bulk.ends))
    openers: dict[int, int] = {}
    for s, e, reason in spans:
        if reason != DECLARED:
            at = opening(s, e)
            if at is not None and lower_after(e) is None:
                openers[e] = at

    def lowers_after_opener(s: int, e: int) -> bool:
        k = s
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        at = openers.get(k, openers.get(s))
        r = None if at is None else lower_after(e)
        if at is None or r is None or opening(s, e) is not None:
            return False
        note(s, e, at, r)
        return True

    def drops(s: int, e: int) -> bool:
        return lowers(s, e) or lowers_after_opener(s, e)

    kept = []
    for c in candidates:
        if c.reason == DECLARED or not drops(c.start, c.end):
            kept.append(c)
        elif c.reason == FILLER:
            kept.extend(_inner_politeness(text, c.start, c.end, c.score, c.residual, c.may_override))
    out_bulks = []
    for bulk in bulks:
        if bulk.reason == DECLARED:
            out_bulks.append(bulk)
            continue
        dropped = {k for k, (s, e) in enumerate(zip(bulk.starts, bulk.ends)) if drops(s, e)}
        if dropped and bulk.reason == FILLER:
            for k in sorted(dropped):
                kept.extend(_inner_politeness(text, bulk.starts[k], bulk.ends[k], bulk.scores[k],
                                              bulk.residuals_of([k])[0], bulk.override_of(k)))
        starts = {bulk.starts[k] for k in dropped}
        out_bulks.append(_without(bulk, starts.__contains__) if dropped else bulk)
    return kept, out_bulks, notes


FILLER = "filler"
# the politeness words inside a request frame ("Could you please kindly …", "Please kindly …"): when the frame opens
# its sentence and stays, they may still go ("Could you tell me …", "Please check …")
_INNER_POLITENESS = re.compile(r"(?:[ \t]+(?:please|kindly)\b)+")
_LOWER_WORD_NEXT = re.compile(r"[ \t]+[a-z]")


def _inner_politeness(text: str, s: int, e: int, score: float, residual: float,
                      may_override: frozenset[str]) -> list[Candidate]:
    """The run of "please"/"kindly" after the first word of the filler [s, e) that stays whole (or right after it),
    as a candidate, when a lower-case word follows the run."""
    # (the run may follow the frame at once: "I was wondering if you could | please check …")
    m = _INNER_POLITENESS.search(text, s, min(len(text), e + 16))
    if m is None or m.start() > e or not _LOWER_WORD_NEXT.match(text, m.end()):  # (a word follows it)
        return []
    words = " ".join(m.group().split())
    frame = text[s:e].strip()
    return [Candidate(m.start(), m.end(), FILLER, score,
                      f"filler word{'s' if ' ' in words else ''} {words!r} inside a request frame that opens its "
                      f"sentence (the frame {frame!r} stays)", residual, may_override)]


def close_candidates(view: TextView, candidates: Sequence[Candidate], bulks: Sequence[Hits]
                     ) -> tuple[list[Candidate], list[Hits]]:
    """Candidates widened to take an emphasis or a list marker they would otherwise leave empty.

    >>> from layerzero_viz import load_conversation
    >>> view = TextView.of(load_conversation("规则：\\n4. 回答要简洁。"))
    >>> [(c.start, c.end) for c in close_candidates(view, [Candidate(7, 13, "repeated_constraint", 1, "", 0)], [])[0]]
    [(4, 13)]
    """
    text = view.text
    out = [c if (w := _widened(text, c.start, c.end)) == (c.start, c.end) else _replace(c, *w) for c in candidates]
    return out, [_widen_bulk(text, b) for b in bulks]


def _replace(c: Candidate, start: int, end: int) -> Candidate:
    return Candidate(start, end, c.reason, c.score, c.detail, c.residual, c.may_override, c.anchor, c.lock)


def _widen_bulk(text: str, bulk: Hits) -> Hits:
    starts, ends = list(bulk.starts), list(bulk.ends)
    changed = False
    for k, (s, e) in enumerate(zip(starts, ends)):
        w = _widened(text, s, e)
        if w != (s, e):
            starts[k], ends[k] = w
            changed = True
    return bulk._replace(starts=starts, ends=ends) if changed else bulk


def _widened(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) with the emphasis markers around it, or the list marker before it, when it is all of that."""
    s, e = start, end
    for mark in _EMPHASIS:  # "**Note:**" wholly cut: the markers go too
        n = len(mark)
        if text.startswith(mark, s - n) and text.startswith(mark, e) and not text.startswith(mark[0], s - n - 1) \
                and not text.startswith(mark[0], e + n):
            s, e = s - n, e + n
            break
    if (s == 0 or text[s - 1] in " \t.)、）:：") and _LINE_REST.match(text, _trim_end(text, e)):
        line = text.rfind("\n", 0, s) + 1
        m = _MARKER_LINE.search(text, max(0, line - 1), s)
        if m is not None and line < s:
            s = line
    return s, e


def _trim_end(text: str, e: int) -> int:
    """Past the punctuation that closes a sentence at ``e`` (it is on the line, not content)."""
    while e < len(text) and text[e] in "。.！!？?；;：:，,":
        e += 1
    return e


def _without(bulk: Hits, drop: Callable[[int], bool]) -> Hits:
    """``bulk`` without the hits whose start ``drop`` names (the detail function re-indexed)."""
    keep = [k for k, s in enumerate(bulk.starts) if not drop(s)]
    if len(keep) == len(bulk.starts):
        return bulk
    detail = bulk.detail
    residual = bulk.residual if isinstance(bulk.residual, float) else [bulk.residual[k] for k in keep]
    return bulk._replace(
        starts=[bulk.starts[k] for k in keep], ends=[bulk.ends[k] for k in keep],
        scores=[bulk.scores[k] for k in keep], residual=residual,
        may_override=bulk.may_override if isinstance(bulk.may_override, frozenset)
        else [bulk.may_override[k] for k in keep],
        detail=lambda i: detail(keep[i]),
        anchors=[bulk.anchors[k] for k in keep] if bulk.anchors is not None else None,
        locks=[bulk.locks[k] for k in keep] if bulk.locks is not None else None)
