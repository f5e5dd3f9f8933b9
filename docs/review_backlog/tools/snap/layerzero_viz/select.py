"""Budgeted selection: which candidate spans (and lossy words) go at a given ratio.

Selection is **prefix-stable** and **nested**: text blocks are visited in order, and up to block b at most
⌊r · tokens of blocks 0..b⌋ tokens go, so what a block loses depends only on it and the blocks before it — a
chat that resends its history sends it byte for byte and prompt caching keeps working, and the debugger shows
what the client sends — and a higher ratio never prunes less.  Within a block, spans are atomic and visited in
a fixed priority order (rule class, then score, then position), then the lossy tier's words, cheapest
information first, while the floor allows.  Each span and word gets, once per annotation (and floor), the
ratio from which it is pruned (:func:`entry_points`); ``at_ratio`` is then one comparison per span.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from .lossy import LossyTier

__all__ = ["budget_for", "PrefixTables", "prefix_tables", "entry_points", "grid_index", "GRID",
           "NEVER", "safe_frontier", "SLIDER_STEP", "slider_frontier", "floor_label"]


SLIDER_STEP = 0.01  # the app's prune_ratio slider; the CLI's sweep names its frontier on the same grid


def slider_frontier(safe_frontier: float) -> float:
    """The first slider position at which every safe-tier span is taken: the frontier rounded *up* to the
    slider's step (a frontier of 0.134 shown as "0.13" sent a user to a position that leaves 3 of 124 tokens).

    >>> slider_frontier(0.134), slider_frontier(0.14)
    (0.14, 0.14)
    """
    return min(0.95, math.ceil(round(safe_frontier / SLIDER_STEP, 6)) * SLIDER_STEP)


def floor_label(floor: float) -> str:
    """How the app and the CLI name an effectiveness floor: ``lossless`` (1.0), ``off`` (0) or the number.

    >>> [floor_label(f) for f in (1.0, 0.99, 0.98, 0.95, 0.0)]
    ['lossless', '0.99', '0.98', '0.95', 'off']
    """
    floor = float(floor)
    return "lossless" if floor >= 1.0 else "off" if floor <= 0.0 else f"{floor:g}"


def budget_for(ratio: float, tokens_total: int) -> int:
    """At most ⌊ratio · tokens_total⌋ tokens may be pruned.

    >>> budget_for(0.3, 10), budget_for(0.0, 10)
    (3, 0)
    """
    return int(math.floor(ratio * tokens_total + 1e-9))


class PrefixTables(NamedTuple):
    """What prefix-stable selection needs, computed once per annotation.

    Spans in block order, then (class, score higher first, position) within a block: ``order`` (span ids) and
    ``costs``, and each block's run ``[run_start[b], run_end[b])``; per block the non-directive tokens and the estimate's information
    of blocks 0..b (``cum_tokens``, ``cum_info``).
    """

    order: np.ndarray
    costs: np.ndarray
    run_start: np.ndarray
    run_end: np.ndarray
    cum_tokens: np.ndarray
    cum_info: np.ndarray


def prefix_tables(span_block: np.ndarray, priorities: npt.ArrayLike, scores: npt.ArrayLike, starts: npt.ArrayLike,
                  costs: np.ndarray,
                  block_tokens: np.ndarray, block_info: np.ndarray) -> PrefixTables:
    """:class:`PrefixTables` from the span columns and per-block token and information counts."""
    n_blocks = len(block_tokens)
    order = np.lexsort((np.asarray(starts, dtype=np.int64), -np.asarray(scores, dtype=np.float64),
                        np.asarray(priorities, dtype=np.int64), span_block)).astype(np.int64) \
        if len(span_block) else np.zeros(0, dtype=np.int64)
    ordered_costs = costs[order] if len(order) else np.zeros(0, dtype=np.int64)
    blocks_in_order = span_block[order] if len(order) else np.zeros(0, dtype=np.int64)
    run_start = np.searchsorted(blocks_in_order, np.arange(n_blocks), "left")
    run_end = np.searchsorted(blocks_in_order, np.arange(n_blocks), "right")
    return PrefixTables(order, ordered_costs, run_start, run_end, np.cumsum(block_tokens),
                        np.cumsum(block_info))


# the ratios selection distinguishes: a ratio is taken down to the grid point at or below it (so the budget is
# never exceeded), and every span or word enters at one grid point and stays at every higher one
GRID = np.round(np.arange(0, 0.95 + 1e-9, 0.0005), 6)
NEVER = len(GRID)


def grid_index(ratio: float) -> int:
    """The grid point at or below ``ratio``."""
    return int(np.searchsorted(GRID, ratio + 1e-12, side="right")) - 1


def entry_points(tables: PrefixTables, span_loss: np.ndarray, *, lossy: LossyTier | None = None,
                 lossy_block: np.ndarray | None = None,
                 min_effectiveness: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """For every span and lossy word, the grid point from which it is pruned (``NEVER``: at no ratio).

    Blocks in order; within a block its spans in class order, then (below a floor of 1) its lossy words in
    increasing loss per token.  Each enters at the lowest ratio from which, at every higher ratio, it fits what
    blocks 0..b may lose — ⌊r · their tokens⌋ less what entered before it — and, for a lossy word, the estimate
    over blocks 0..b stays ≥ the floor with every word before it in.  So selection is **nested** (a higher ratio
    never prunes less) and **prefix-stable** (a block's entries depend on it and the blocks before it only).
    """
    n_grid = len(GRID)
    span_entry = np.full(len(span_loss), NEVER, dtype=np.int64)
    n_lossy = len(lossy) if lossy is not None else 0
    word_entry = np.full(n_lossy, NEVER, dtype=np.int64)
    use_lossy = n_lossy and min_effectiveness < 1.0
    if use_lossy:
        assert lossy_block is not None  # given with the tier (the words' blocks)
        lossy_start = np.searchsorted(lossy_block, np.arange(len(tables.cum_tokens)), "left")
        lossy_end = np.searchsorted(lossy_block, np.arange(len(tables.cum_tokens)), "right")
    committed = np.zeros(n_grid, dtype=np.int64)   # tokens entered at or below each grid point
    bits = 0.0                                      # the estimate's loss of everything that ever enters
    for b in range(len(tables.cum_tokens)):
        a, e = int(tables.run_start[b]), int(tables.run_end[b])
        la, le = (int(lossy_start[b]), int(lossy_end[b])) if use_lossy else (0, 0)
        if e <= a and le <= la:
            continue
        cap = np.floor(GRID * tables.cum_tokens[b] + 1e-9).astype(np.int64)
        for j in range(a, e):
            at = _entry(cap - committed, int(tables.costs[j]))
            if at < n_grid:
                span_entry[tables.order[j]] = at
                committed[at:] += tables.costs[j]
                bits += float(span_loss[tables.order[j]])
        if le > la:  # (only with a lossy tier)
            assert lossy is not None
            allowance = (1.0 - min_effectiveness) * float(tables.cum_info[b])
            # the floor: words in increasing loss per token while the estimate allows; the first word past
            # it and every costlier one after it never go
            losses = lossy.loss[la:le]
            allowed = int(np.searchsorted(np.cumsum(losses), allowance * (1 + 1e-12) - bits, side="right"))
            if allowed:
                entered = _fill_ascending(cap - committed, lossy.cost[la:la + allowed])
                for k in np.flatnonzero(entered < n_grid).tolist():
                    at = int(entered[k])
                    word_entry[la + k] = at
                    committed[at:] += lossy.cost[la + k]
                    bits += float(losses[k])
    return span_entry, word_entry


def _fill_ascending(available: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Grid entry points for atomic words in priority order (cheapest information first), filling each ratio
    from the lowest up: at every ratio, the best-placed waiting word that still fits goes.

    Taking words strictly in priority order wastes low ratios: a first word of five tokens cannot go below the
    ratio that allows five, and it then holds those five at every higher ratio, so a one-token word after it
    could not go at a lower one either — a 26-token prompt lost nothing at r = 0.1.  Ascending, the one-token
    word goes first, and the five-token word from where the budget has room for both.  A word that enters
    stays at every higher ratio (nested), and none enters where it does not fit at every ratio above.
    """
    n_grid = len(available)
    entry = np.full(len(costs), n_grid, dtype=np.int64)
    if not len(costs):
        return entry
    from_here = np.minimum.accumulate(available[::-1])[::-1]  # non-decreasing: what fits from each point on
    waiting: dict[int, list[int]] = {}  # cost -> word indices in priority order (reversed, popped from the end)
    for k in range(len(costs) - 1, -1, -1):
        waiting.setdefault(int(costs[k]), []).append(k)
    used = 0
    g = 0
    while waiting and g < n_grid:
        slack = int(from_here[g]) - used
        best = -1
        for cost, queue in waiting.items():
            if cost <= slack and (best < 0 or queue[-1] < best):
                best = queue[-1]
        if best < 0:  # nothing fits here: on to the first point with room for the cheapest waiting word
            g = int(np.searchsorted(from_here, used + min(waiting), side="left"))
            continue
        cost = int(costs[best])
        waiting[cost].pop()
        if not waiting[cost]:
            del waiting[cost]
        entry[best] = g
        used += cost
    return entry


def _entry(available: np.ndarray, cost: int) -> int:
    """The first grid point from which ``cost`` fits what is available at it and at every point above."""
    from_here = np.minimum.accumulate(available[::-1])[::-1]  # non-decreasing
    return int(np.searchsorted(from_here, cost, side="left"))


def safe_frontier(span_entry: np.ndarray) -> float:
    """The smallest ratio at which every safe-tier span is taken (under the lossless floor): past it only the
    lossy tier can take more.  0.95 when some span fits at no ratio."""
    if not len(span_entry):
        return 0.0
    last = int(span_entry.max())
    return float(GRID[last]) if last < NEVER else float(GRID[-1])
