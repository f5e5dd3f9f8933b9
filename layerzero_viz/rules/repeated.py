"""repeated_constraint: a sentence that restates one given earlier in the conversation.

Sentences are compared as sets of unit bigrams (CJK characters and latin words, after NFKC and lower
casing, punctuation dropped).  A later sentence is a repeat when at least ``CONTAINMENT`` of its bigrams
occur in one earlier kept sentence — it adds nothing that copy does not already say.  The first copy is
never touched by this rule; the repeat may go whole, numbers and negations included, only when the first
copy carries the same values (``Candidate.anchor``); otherwise protection wins and it stays.
"""
from __future__ import annotations

from collections import Counter

from ..view import Candidate, TextView, sentences, units

CONTAINMENT = 0.9
MIN_UNITS = 4
_MAX_POSTINGS = 400
_VALUE_PROTECTIONS = frozenset({
    "protected_pattern", "protected_identifier", "protected_number", "protected_quote",
    "protected_user_fact", "protected_negation", "protected_connective",
})


def _bigrams(us: list[str]) -> frozenset[tuple[str, str]]:
    return frozenset(zip(us, us[1:]))


def find(view: TextView, ctx) -> list[Candidate]:
    text = view.text
    structural = ctx.protection.context_ranges
    kept: list[tuple[int, int, frozenset]] = []  # first copies: (start, end, bigrams)
    exact: dict[tuple[str, ...], int] = {}
    postings: dict[tuple[str, str], list[int]] = {}
    out: list[Candidate] = []
    for block in view.blocks:
        for s, e in sentences(view, block):
            if _inside(structural, s, e):
                continue
            us = units(text[s:e])
            if len(us) < MIN_UNITS:
                continue
            key = tuple(us)
            first = exact.get(key)
            share = 1.0
            if first is None:
                grams = _bigrams(us)
                first, share = _best_container(grams, kept, postings)
            if first is not None:
                fs, fe, _ = kept[first]
                out.append(Candidate(
                    s, e, "repeated_constraint", 0.5 + 0.5 * share,
                    f"repeats {view.where(fs)}: {text[fs:fe][:80]!r}"
                    + ("" if share >= 1.0 else f" ({share:.0%} of it is in that copy)"),
                    1.0 - share, _VALUE_PROTECTIONS, anchor=text[fs:fe], lock=(fs, fe),
                ))
                continue
            idx = len(kept)
            grams = _bigrams(us)
            kept.append((s, e, grams))
            exact[key] = idx
            for g in grams:
                postings.setdefault(g, []).append(idx)
    return out


def _best_container(grams, kept, postings) -> tuple[int | None, float]:
    if not grams:
        return None, 0.0
    counts: Counter[int] = Counter()
    skipped = 0
    for g in grams:
        plist = postings.get(g)
        if plist is None:
            continue
        if len(plist) > _MAX_POSTINGS:
            skipped += 1
            continue
        counts.update(plist)
    need = CONTAINMENT * len(grams) - skipped
    best, best_share = None, 0.0
    for idx, n in counts.most_common(8):
        if n < need:
            break
        share = len(grams & kept[idx][2]) / len(grams)
        if share >= CONTAINMENT and (share > best_share or (share == best_share and best is not None and idx < best)):
            best, best_share = idx, share
    return best, best_share


def _inside(ranges: list[tuple[int, int]], s: int, e: int) -> bool:
    return any(rs <= s and e <= re_ for rs, re_ in ranges)
