"""repeated_constraint: a sentence (or clause) that restates one given earlier in the conversation.

Sentences are compared as sets of unit bigrams (CJK characters and latin words, after NFKC and lower
casing, punctuation and function words dropped, every number written as ``#``), so a copy that differs
only in a number is still found — and then kept by the number's protection, with a detail saying why.  A later sentence is a repeat when at least ``CONTAINMENT`` of its bigrams
occur in one earlier kept sentence — it adds nothing that copy does not already say.  The first copy is
never touched by this rule; the repeat may go whole, numbers and negations included, only when the first
copy carries the same values (``Candidate.anchor``); otherwise protection wins and it stays.
"""
from __future__ import annotations

import heapq
from functools import lru_cache, partial

from .. import native as _native
from ..lexicon import entries
from ..view import Bulk, Candidate, TextView, clauses, flat_pairs, sentences

CONTAINMENT = 0.9
MIN_UNITS = 4
_VALUE_PROTECTIONS = frozenset({
    "protected_pattern", "protected_identifier", "protected_number", "protected_quote",
    "protected_user_fact", "protected_negation", "protected_connective",
})


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    zh = {w for w in entries("low_information.zh") if len(w) == 1}
    return frozenset(zh | {w.lower() for w in entries("low_information.en") if " " not in w})


def _comparable(view: TextView, start: int, end: int) -> list[str]:
    """Units that carry the sentence: function words dropped, numbers as ``#``."""
    skip = function_words()
    return ["#" if u[0].isdigit() else u for u in view.units(start, end) if u not in skip]


def _bigrams(us: list[str]) -> frozenset[tuple[str, str]]:
    return frozenset(zip(us, us[1:]))


def find(view: TextView, ctx) -> list[Candidate]:
    return _bulk(view, _repeats(view, ctx)).candidates()


def skipped_ranges(context_ranges, directive_ranges) -> list[tuple[int, int]]:
    """What the scan never compares: ``<context>`` contents and engine directives (global ranges)."""
    return list(context_ranges) + list(directive_ranges)


def _repeats(view: TextView, ctx) -> list[tuple[int, int, int, int, float]]:
    """(start, end, first start, first end, share) of every repeat, from the kernel or the Python twin."""
    done = ctx.prescan.get("repeats") if ctx.prescan else None
    if done is not None:  # the engine's scan job ran it already (same blocks, same skipped ranges)
        found, repeats = done
        for b, flat in zip(view.blocks, found):
            view._sentences[b.start] = flat
        return repeats
    skipped = skipped_ranges(ctx.protection.context_ranges, ctx.directive_ranges)
    kernel = _native.native
    if kernel is None:
        return scan_python(view, skipped)
    found, repeats = kernel.find_repeats(view.text, view.bounds, skipped, function_words(), MIN_UNITS, CONTAINMENT)
    for b, sents in zip(view.blocks, found):
        view._sentences[b.start] = flat_pairs(sents)
    return repeats


def find_bulk(view: TextView, ctx) -> Bulk:
    """Every repeat as one :class:`Bulk` (the engine's path; :func:`find` lists them)."""
    return _bulk(view, _repeats(view, ctx))


def _bulk(view: TextView, repeats: list[tuple[int, int, int, int, float]]) -> Bulk:
    text = view.text
    # a first copy is often repeated many times: its text is taken once
    anchors_of: dict[tuple[int, int], str] = {}
    anchors = []
    for _, _, fs, fe, _ in repeats:
        anchor = anchors_of.get((fs, fe))
        if anchor is None:
            anchor = anchors_of[(fs, fe)] = text[fs:fe]
        anchors.append(anchor)
    shares = [r[4] for r in repeats]
    return Bulk("repeated_constraint", [r[0] for r in repeats], [r[1] for r in repeats],
                [0.5 + 0.5 * sh for sh in shares], [1.0 - sh for sh in shares], _VALUE_PROTECTIONS,
                partial(_detail, view, repeats, anchors),  # a partial, not a closure: see filler.find_bulk
                anchors=anchors, locks=[(r[2], r[3]) for r in repeats], sentence_level=True)


def _detail(view: TextView, repeats: list[tuple[int, int, int, int, float]], anchors: list[str], k: int) -> str:
    _, _, fs, _, share = repeats[k]
    head = f"repeats {view.where(fs)}: {anchors[k][:80]!r}"
    return head if share >= 1.0 else f"{head} ({share:.0%} of it is in that copy)"


def scan_python(view: TextView, structural: list[tuple[int, int]]) -> list[tuple[int, int, int, int, float]]:
    """The scan in Python — the definition ``_native.find_repeats`` is tested against.

    Returns ``(start, end, first_start, first_end, share)`` for every repeat, in text order.
    """
    kept: list[tuple[int, int, frozenset]] = []  # first copies: (start, end, bigrams)
    exact: dict[tuple[str, ...], int] = {}
    postings: dict[tuple[str, str], list[int]] = {}
    out: list[tuple[int, int, int, int, float]] = []

    def first_copy(s: int, e: int) -> tuple[int | None, float, tuple[str, ...], frozenset]:
        us = _comparable(view, s, e)
        key = tuple(us)
        grams = _bigrams(us)
        if len(us) < MIN_UNITS:
            return None, 0.0, key, frozenset()
        if key in exact:
            return exact[key], 1.0, key, grams
        found, share = _best_container(grams, kept, postings)
        return found, share, key, grams

    for block in view.blocks:
        for s, e in sentences(view, block):
            if structural and _inside(structural, s, e):
                continue
            first, share, key, grams = first_copy(s, e)
            if first is not None:
                out.append((s, e, kept[first][0], kept[first][1], share))
                continue
            if not grams:
                continue
            # "另外，回答不超过200字。": a clause may repeat on its own.  A clause's bigrams are a subset of
            # its sentence's, so a repeated clause needs at least MIN_UNITS - 1 of them already seen.
            seen = sum(1 for g in grams if g in postings)
            parts = clauses(view, s, e) if seen >= MIN_UNITS - 1 else ()
            if len(parts) > 1:
                for cs, ce in parts:
                    c_first, c_share, _, _ = first_copy(cs, ce)
                    if c_first is not None:
                        out.append((cs, ce, kept[c_first][0], kept[c_first][1], c_share))
            idx = len(kept)
            kept.append((s, e, grams))
            exact.setdefault(key, idx)
            for g in grams:
                lst = postings.get(g)
                if lst is None:
                    postings[g] = [idx]
                else:
                    lst.append(idx)
    return out


def _best_container(grams: frozenset, kept, postings) -> tuple[int | None, float]:
    """The earliest kept sentence holding ≥ CONTAINMENT of ``grams``, by prefix filtering.

    A container must share at least one of any ⌊(1 − CONTAINMENT)·n⌋ + 1 of the n bigrams, so the
    postings of the rarest ones give every possible container; each is then verified exactly.
    """
    n = len(grams)
    if not n:
        return None, 0.0
    probe = int((1.0 - CONTAINMENT) * n + 1e-9) + 1
    # bigrams never seen before can be in no container: enough of them rule every container out
    unseen = 0
    for g in grams:
        if g not in postings:
            unseen += 1
            if unseen >= probe:
                return None, 0.0
    rarest = heapq.nsmallest(probe, grams, key=lambda g: len(postings.get(g, ())))
    candidates: set[int] = set()
    for g in rarest:
        if g in postings:
            candidates.update(postings[g])
    best, best_share = None, 0.0
    for idx in sorted(candidates):
        share = len(grams & kept[idx][2]) / n
        if share >= CONTAINMENT and share > best_share:
            best, best_share = idx, share
    return best, best_share


def _inside(ranges: list[tuple[int, int]], s: int, e: int) -> bool:
    """True when [s, e) overlaps one of ``ranges`` (context, directives: never compared as sentences)."""
    return any(s < re_ and rs < e for rs, re_ in ranges)
