"""What a block's own text gives, looked up when that text was seen before.

``Config(block_cache=True)`` — the pruning client: a chat resends every turn of its history with each new one —
lets the finders that read one block alone (``material.find_material(reuse=True)``, derivable's role frames) look up
their result by the block's text instead of finding it again.  The app and the CLI do not, so their timings always
measure the work.  Bounded in entries per finder and in the size of a block kept (at most some 50 MB of keys in all).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable, TypeVar, cast

__all__ = ["reused", "found_in"]

_T = TypeVar("_T")

MAX_CHARS = 8_192
ENTRIES = 512
CACHES: dict[Callable[..., Any], Callable[..., Any]] = {}


def reused(finder: Callable[..., _T], seg: str, *args: Any, reuse: bool = True) -> _T:
    """``finder(seg, *args)``, from a bounded cache of earlier calls (``finder`` depends on its arguments only); with
    ``reuse`` false, found again (the app and the CLI)."""
    if not reuse or len(seg) > MAX_CHARS:
        return finder(seg, *args)
    cached = CACHES.get(finder)
    if cached is None:
        cached = CACHES.setdefault(finder, lru_cache(maxsize=ENTRIES)(finder))
    return cast(_T, cached(seg, *args))


_SEARCHERS: dict[tuple[re.Pattern[str], bool], Callable[[str], bool]] = {}


def found_in(pattern: re.Pattern[str], text: str, s: int, e: int, reuse: bool, at_start: bool = False) -> bool:
    """Whether ``pattern`` occurs in the block [s, e) of ``text`` (``at_start``: matches at its start); with
    ``reuse``, looked up by the block's text (``reused``) — so ``pattern`` must find in a block's text alone what it
    finds at the block's offsets in a view (no look before its start, no anchor at a string's start)."""
    if not reuse:
        return (pattern.match(text, s, e) if at_start else pattern.search(text, s, e)) is not None
    finder = _SEARCHERS.get((pattern, at_start))
    if finder is None:
        finder = _SEARCHERS.setdefault((pattern, at_start), (lambda seg: pattern.match(seg) is not None) if at_start
                                       else (lambda seg: pattern.search(seg) is not None))
    return reused(finder, text[s:e])
