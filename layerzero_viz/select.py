"""Budgeted selection: which candidate spans go at a given ratio.

Spans are atomic and visited in a fixed priority order (rule class, then score, then position).  Every
span that still fits the remaining budget is taken; the rest are ``over_budget``.  The order and costs
are computed once per annotation, so a call is O(spans) with a vectorised prefix.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["budget_for", "select_spans"]


def budget_for(ratio: float, tokens_total: int) -> int:
    """At most ⌊ratio · tokens_total⌋ tokens may be pruned.

    >>> budget_for(0.3, 10), budget_for(0.0, 10)
    (3, 0)
    """
    return int(math.floor(ratio * tokens_total + 1e-9))


def select_spans(order: np.ndarray, costs: np.ndarray, suffix_min: np.ndarray, budget: int) -> np.ndarray:
    """A boolean mask over spans: greedy in ``order``, skipping spans that no longer fit.

    ``costs`` and ``suffix_min`` are indexed by position in ``order`` (``suffix_min[j]`` = min cost from j on).
    """
    n = len(order)
    chosen = np.zeros(n, dtype=bool)
    if budget <= 0 or n == 0:
        return chosen
    cumulative = np.cumsum(costs)
    k = int(np.searchsorted(cumulative, budget, side="right"))
    chosen[order[:k]] = True
    remaining = budget - (int(cumulative[k - 1]) if k else 0)
    j = k
    while j < n and remaining > 0 and remaining >= suffix_min[j]:
        c = int(costs[j])
        if c <= remaining:
            chosen[order[j]] = True
            remaining -= c
        j += 1
    return chosen
