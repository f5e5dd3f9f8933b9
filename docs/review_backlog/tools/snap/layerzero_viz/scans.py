"""Scans: what the per-character scanners find in a conversation's text, once per annotation.

One typed result, :class:`Scans`, made by one function, :func:`scan`, with two implementations:

* the compiled scan job (``_native.ScanJob``): every scanner and the repeat scan in one pass (without the GIL,
  so other threads — the app's other sessions — run meanwhile);
* the readable twins that define it (``protect``'s regexes, ``repeated.scan_python``,
  ``derivable.context_restatements_python``; lexicon hits and sentences are then left to the view, which
  segments and scans on first use with ``lexicon.scan_python`` and ``view._segments``).

Protections (``protect.find_protections``) and rules (``ctx.scans``) read the result and never choose between a
kernel and its twin themselves.  ``tests/engine/test_native.py`` holds the two implementations equal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from . import native as _native
from .lexicon import _SLOTS as _LEXICON_SLOTS, _native_lexicons
from .protect import USER_ROLES, Protection, identifier_guards, python_scanners
from .view import TextView

__all__ = ["Scans", "scan"]

_LEXICON_SLOT_OF = {name: k for k, name in enumerate(_LEXICON_SLOTS)}


@dataclass(frozen=True)
class Scans:
    """Every scanner's finds over ``view.text`` (global offsets; spans as flat [start, end, …] sequences).

    ``identifiers``: one per ``protect._IDENTIFIERS`` pattern, None where its guard substring is absent;
    ``repeats``: (start, end, first start, first end, share) of every raw repeat pair the repeat scan
    proposes (``rules.repeated`` judges them); ``context``: (sentence start, end, fact index) of the sentences
    restating a ``<context>`` fact (``rules.derivable``); ``repeats_ms``: what the repeat scan took (the engine
    counts it in the detect stage, the rest of the scan in protect).
    """

    numbers: Sequence[int]
    quotes: Sequence[int]
    code: Sequence[int]
    identifiers: tuple[Sequence[int] | None, ...]
    user_facts: Sequence[int]
    repeats: list[tuple[int, int, int, int, float]]
    context: list[tuple[int, int, int]]
    repeats_ms: float = 0.0


def scan(view: TextView, structure: Protection, directive_ranges: Sequence[tuple[int, int]] = ()) -> Scans:
    """The scans of ``view``: the compiled job when built (its lexicon hits and sentences handed to the view),
    else the twins.

    ``structure``: the view's XML protections (``protect.xml_protections``), whose ``<context>`` ranges the
    repeat scan skips and whose facts it looks for; ``directive_ranges``: engine directives, never compared.
    """
    from .rules import repeated

    skipped = repeated.skipped_ranges(structure.context_ranges, directive_ranges)
    kernel = _native.native
    if kernel is None:
        return _reference(view, structure, skipped)
    text = view.text
    repeats = kernel.RepeatScan(view.bounds, skipped, repeated.function_words(), repeated.MIN_UNITS,
                                repeated.CONTAINMENT)
    if structure.context_facts:  # and the sentences restating a <context> fact
        repeats.with_context([value for _, _, value in structure.context_facts], structure.context_ranges)
    job = kernel.ScanJob(text, _native_lexicons(), identifier_guards(text),
                         [(b.start, b.end) for b in view.blocks_of_roles(USER_ROLES)], repeats)
    job.run()
    found = job.results()
    view.set_lexicon_packed(_LEXICON_SLOT_OF, *found["lexicons"])
    sentences, pairs = found["repeats"]
    view.set_sentences(sentences)
    return Scans(found["numbers"], found["quotes"], found["code"], tuple(found["identifiers"]),
                 found["user_facts"], pairs, found["context"] or [], found["repeats_ms"])


def _reference(view: TextView, structure: Protection, skipped: list[tuple[int, int]]) -> Scans:
    """The twins' scans: what the compiled job is tested against."""
    import time

    from .rules.derivable import context_restatements_python
    from .rules.repeated import scan_python

    text = view.text
    users = [(b.start, b.end) for b in view.blocks_of_roles(USER_ROLES)]
    found = python_scanners(text, identifier_guards(text), users)
    t1 = time.perf_counter()
    repeats = scan_python(view, skipped)
    context = context_restatements_python(view, structure.context_facts, structure.context_ranges) \
        if structure.context_facts else []
    t2 = time.perf_counter()
    return Scans(found["numbers"], found["quotes"], found["code"], tuple(found["identifiers"]), found["user_facts"],
                 repeats, context, (t2 - t1) * 1000.0)
