"""Finding tokens on the heatmap: search, filters by reason, tier and message, next/previous, and one chip's details.

Pure functions over the token table (:attr:`layerzero_viz.appstate.ResultView.tokens`); the app's heatmap draws
what they return.  Chips are display groups (``group``: a character split over several tokens is one chip), so
matches, jumps and details are per group.

>>> import pandas as pd
>>> t = pd.DataFrame({"m": [0, 0, 0], "block": [0, 0, 0], "text": ["Hel", "lo", " you"], "group": [0, 1, 2],
...                   "reason": ["content", "filler", "content"], "decision": ["keep", "prune", "keep"],
...                   "tier": [None, "safe", None]})
>>> match_rows(t, search="ello").tolist()
[True, True, False]
>>> step(groups_of(t, match_rows(t, tiers=["safe"])), current=None, forward=True)
1
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .reasons import PROTECTED_REASONS, reason_style

__all__ = ["TIER_OF", "filters_active", "match_rows", "groups_of", "run_starts", "step", "ChipDetails", "chip_details"]

TIER_OF = {"safe": "safe", "lossy": "lossy"}
"""The tier column's values a filter names; any other value (kept tokens, directives) is the filter's ``none``."""


def filters_active(search: str = "", reasons: Sequence[str] = (), tiers: Sequence[str] = ()) -> bool:
    """Whether any of the heatmap's find controls narrows the tokens."""
    return bool(search.strip()) or bool(reasons) or bool(tiers)


def _tier_names(tokens: pd.DataFrame) -> pd.Series:
    tier = tokens["tier"] if "tier" in tokens.columns else pd.Series([None] * len(tokens), index=tokens.index)
    return tier.map(lambda v: TIER_OF.get(v, "none") if isinstance(v, str) else "none")


def _fold(text: str) -> str:
    """Lower case, one character for one (so offsets stay aligned; a character whose lower case is longer stays)."""
    return "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)


def _search_rows(tokens: pd.DataFrame, query: str) -> np.ndarray:
    """Rows whose characters overlap a case-insensitive occurrence of ``query`` in their block's text.

    The search runs over each block's joined token text, so a word split across tokens is found whole.
    """
    hits = np.zeros(len(tokens), dtype=bool)
    needle = _fold(query)
    if not needle:
        return hits
    texts = tokens["text"].astype(str).tolist()
    keys = list(zip(tokens["m"].tolist(), tokens["block"].tolist()))
    start = 0
    while start < len(texts):
        end = start
        while end < len(texts) and keys[end] == keys[start]:
            end += 1
        folded = [_fold(p) for p in texts[start:end]]
        joined = "".join(folded)
        bounds = np.cumsum([0] + [len(p) for p in folded])
        at = joined.find(needle)
        while at != -1:
            first = int(np.searchsorted(bounds, at, side="right")) - 1
            last = int(np.searchsorted(bounds, at + len(needle), side="left")) - 1
            hits[start + first: start + max(first, last) + 1] = True
            at = joined.find(needle, at + 1)
        start = end
    return hits


def match_rows(tokens: pd.DataFrame, *, search: str = "", reasons: Sequence[str] = (),
               tiers: Sequence[str] = ()) -> np.ndarray:
    """A boolean per row: the token matches every active control (search text, one of ``reasons``, one of
    ``tiers`` — ``safe``, ``lossy`` or ``none``).  With no control active every row matches."""
    rows = np.ones(len(tokens), dtype=bool)
    if search.strip():
        rows &= _search_rows(tokens, search.strip())
    if reasons:
        rows &= tokens["reason"].isin(list(reasons)).to_numpy()
    if tiers:
        rows &= _tier_names(tokens).isin(list(tiers)).to_numpy()
    return rows


def groups_of(tokens: pd.DataFrame, rows: np.ndarray) -> list[int]:
    """The chips (display groups, in order) that hold at least one of ``rows``."""
    return list(dict.fromkeys(int(g) for g in tokens["group"].to_numpy()[rows]))


def run_starts(tokens: pd.DataFrame, rows: np.ndarray) -> list[int]:
    """The first chip of each run of consecutive ``rows`` within a block: where next/previous stop, so a match or
    a pruned span of several chips is one step.

    >>> t = pd.DataFrame({"m": [0, 0, 0, 0, 1], "block": [0] * 5, "group": [0, 1, 2, 3, 4]})
    >>> run_starts(t, np.array([True, True, False, True, True]))
    [0, 3, 4]
    """
    rows = np.asarray(rows, dtype=bool)
    if not len(rows):
        return []
    same_block = np.r_[False, (np.diff(tokens["m"].to_numpy()) == 0) & (np.diff(tokens["block"].to_numpy()) == 0)]
    previous = np.r_[False, rows[:-1]]
    starts = rows & ~(previous & same_block)
    return groups_of(tokens, starts)


def step(groups: Sequence[int], current: int | None, *, forward: bool) -> int | None:
    """The chip after (or before) ``current`` among ``groups`` (in order), wrapping around; None when there is none.

    >>> step([3, 8, 12], 8, forward=True), step([3, 8, 12], 12, forward=True), step([3, 8, 12], 5, forward=False)
    (12, 3, 3)
    """
    if not groups:
        return None
    if current is None:
        return groups[0] if forward else groups[-1]
    arr = np.asarray(groups)
    if forward:
        k = int(np.searchsorted(arr, current, side="right"))
        return int(arr[k % len(arr)])
    k = int(np.searchsorted(arr, current, side="left")) - 1
    return int(arr[k % len(arr)])


@dataclass(frozen=True)
class ChipDetails:
    """Everything known about one chip: its text, message, decision and why, as plain values (escape to show)."""

    group: int
    message: str
    text: str
    decision: str
    reasons: tuple[str, ...]  # reason codes, in token order
    labels: tuple[str, ...]  # their labels
    details: tuple[str, ...]
    token_ids: tuple[int, ...]
    score: float
    tier: str | None
    loss: float
    protection: str | None  # the protection that kept it (label), if a protection did
    sentence: str | None = None  # the sentence the chip belongs to (:func:`sentence_of`), when known


def sentence_of(view: Any, start: int) -> str | None:
    """The sentence (as the rules segment it) holding global character ``start`` of ``view`` (a
    ``view.TextView``), or None outside every text block.

    >>> from layerzero_viz import load_conversation
    >>> from layerzero_viz.view import TextView
    >>> v = TextView.of(load_conversation("您好。请问七日年化收益率4.2%是什么意思？谢谢！"))
    >>> sentence_of(v, v.text.index("4.2"))
    '请问七日年化收益率4.2%是什么意思？'
    """
    from .view import sentences

    if not view.blocks or not 0 <= start < len(view.text):
        return None
    block = view.block_at(start)
    if not block.start <= start < block.end:
        return None
    for s, e in sentences(view, block):
        if s <= start < e:
            return str(view.text[s:e])
    return None


def chip_details(tokens: pd.DataFrame, group: int) -> ChipDetails | None:
    """The details of chip ``group`` from the token table, or None when the table has no such chip."""
    rows = tokens[tokens["group"] == group]
    if rows.empty:
        return None
    reasons = tuple(dict.fromkeys(str(r) for r in rows["reason"]))
    tiers = [t for t in rows["tier"] if isinstance(t, str)] if "tier" in rows.columns else []
    protected = next((r for r in reasons if r in PROTECTED_REASONS), None)
    first: Any = rows.iloc[0]
    return ChipDetails(
        group=int(group),
        message=str(first["label"]) if "label" in rows.columns else str(first.get("message")),
        text="".join(str(t) for t in rows["text"]),
        decision=str(first["decision"]),
        reasons=reasons,
        labels=tuple(reason_style(r).label for r in reasons),
        details=tuple(dict.fromkeys(str(d) for d in rows["detail"] if str(d))),
        token_ids=tuple(int(i) for i in rows["id"]),
        score=float(rows["score"].max()),
        tier=tiers[0] if tiers else None,
        loss=float(rows["loss"].fillna(0).sum()) if "loss" in rows.columns else 0.0,
        protection=reason_style(protected).label if protected else None,
    )
