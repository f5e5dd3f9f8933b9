"""The running totals of a batch run: mergeable, serialisable (for the checkpoint) and turned into the summary.

Estimates are counted in buckets of 0.0001, so memory stays bounded however many conversations there are and
percentiles are exact to four decimals; the mean, minimum and maximum are exact.  The estimates are summed as
exact fractions, so the mean does not depend on how the input was cut into units, or on resumption.

>>> t = Tally()
>>> t.add_record({"file": "a.jsonl", "line": 1, "tokens_total": 10, "tokens_pruned": 3, "tokens_directive": 0,
...               "pruned_by_reason": {"filler": 3}, "effectiveness_estimate": 0.995, "risk": []})
>>> s = t.summary()
>>> s["conversations"], s["tokens_pruned"], s["estimate"]["p50"]
(1, 3, 0.995)
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

__all__ = ["Tally", "FIRST", "PERCENTILES"]

FIRST = 100  # how many malformed lines and risky conversations the summary lists by name
PERCENTILES = (5, 25, 50, 75, 95)
_BUCKETS = 10_000
_HISTOGRAM_BINS = 20


class Tally:
    """Totals over the conversations seen so far (in input order) and the malformed lines met."""

    def __init__(self) -> None:
        self.conversations = 0
        self.malformed = 0
        self.tokens_total = 0
        self.tokens_pruned = 0
        self.tokens_directive = 0
        self.by_reason: Counter[str] = Counter()
        self.estimates: Counter[int] = Counter()
        self.estimate_sum = Fraction(0)
        self.estimate_min: float | None = None
        self.estimate_max: float | None = None
        self.risky = 0
        self.by_flag: Counter[str] = Counter()
        self.risky_first: list[dict[str, Any]] = []
        self.malformed_first: list[dict[str, Any]] = []

    # ---- adding ------------------------------------------------------------------------------------
    def add_record(self, record: dict[str, Any]) -> None:
        self.conversations += 1
        self.tokens_total += record["tokens_total"]
        self.tokens_pruned += record["tokens_pruned"]
        self.tokens_directive += record["tokens_directive"]
        self.by_reason.update({k: v for k, v in record["pruned_by_reason"].items() if v})
        est = float(record["effectiveness_estimate"])
        self.estimates[round(est * _BUCKETS)] += 1
        self.estimate_sum += Fraction(est)
        self.estimate_min = est if self.estimate_min is None else min(self.estimate_min, est)
        self.estimate_max = est if self.estimate_max is None else max(self.estimate_max, est)
        if record["risk"]:
            self.risky += 1
            self.by_flag.update(record["risk"])
            if len(self.risky_first) < FIRST:
                self.risky_first.append({"file": record["file"], "line": record["line"], "risk": record["risk"]})

    def add_malformed(self, file: str, line: int, error: str) -> None:
        self.malformed += 1
        if len(self.malformed_first) < FIRST:
            self.malformed_first.append({"file": file, "line": line, "error": error})

    def merge(self, later: "Tally") -> None:
        """Add the totals of ``later``, which covers input after everything in ``self``."""
        self.conversations += later.conversations
        self.malformed += later.malformed
        self.tokens_total += later.tokens_total
        self.tokens_pruned += later.tokens_pruned
        self.tokens_directive += later.tokens_directive
        self.by_reason.update(later.by_reason)
        self.estimates.update(later.estimates)
        self.estimate_sum += later.estimate_sum
        for attr, pick in (("estimate_min", min), ("estimate_max", max)):
            mine, theirs = getattr(self, attr), getattr(later, attr)
            setattr(self, attr, theirs if mine is None else mine if theirs is None else pick(mine, theirs))
        self.risky += later.risky
        self.by_flag.update(later.by_flag)
        self.risky_first = (self.risky_first + later.risky_first)[:FIRST]
        self.malformed_first = (self.malformed_first + later.malformed_first)[:FIRST]

    # ---- checkpoint ----------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot; :meth:`from_state` restores it exactly (floats round-trip through JSON)."""
        return {
            "conversations": self.conversations, "malformed": self.malformed, "tokens_total": self.tokens_total,
            "tokens_pruned": self.tokens_pruned, "tokens_directive": self.tokens_directive,
            "by_reason": dict(self.by_reason), "estimates": {str(k): v for k, v in sorted(self.estimates.items())},
            "estimate_sum": str(self.estimate_sum), "estimate_min": self.estimate_min, "estimate_max": self.estimate_max,
            "risky": self.risky, "by_flag": dict(self.by_flag), "risky_first": self.risky_first,
            "malformed_first": self.malformed_first,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "Tally":
        t = cls()
        for key, value in state.items():
            if key == "estimates":
                t.estimates = Counter({int(k): v for k, v in value.items()})
            elif key == "estimate_sum":
                t.estimate_sum = Fraction(value)
            elif key in ("by_reason", "by_flag"):
                setattr(t, key, Counter(value))
            else:
                setattr(t, key, value)
        return t

    # ---- the summary ---------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Totals, pruned tokens by reason, the estimate distribution, risky conversations and malformed lines."""
        return {
            "conversations": self.conversations,
            "malformed_lines": self.malformed,
            "tokens_total": self.tokens_total,
            "tokens_pruned": self.tokens_pruned,
            "tokens_directive": self.tokens_directive,
            "pruned_fraction": self.tokens_pruned / self.tokens_total if self.tokens_total else 0.0,
            "pruned_by_reason": dict(sorted(self.by_reason.items(), key=lambda kv: (-kv[1], kv[0]))),
            "estimate": self._distribution(),
            "risk": {"conversations": self.risky, "by_flag": dict(sorted(self.by_flag.items())),
                     "first": self.risky_first},
            "malformed": self.malformed_first,
        }

    def _distribution(self) -> dict[str, Any]:
        n = self.conversations
        if not n:
            return {"mean": None, "min": None, **{f"p{p}": None for p in PERCENTILES}, "max": None, "histogram": []}
        ordered = sorted(self.estimates.items())
        out: dict[str, Any] = {"mean": float(self.estimate_sum / n), "min": self.estimate_min}
        for p in PERCENTILES:
            rank = max(1, math.ceil(p / 100 * n))  # nearest rank
            seen = 0
            for bucket, count in ordered:
                seen += count
                if seen >= rank:
                    out[f"p{p}"] = bucket / _BUCKETS
                    break
        out["max"] = self.estimate_max
        out["histogram"] = self._histogram(ordered)
        return out

    @staticmethod
    def _histogram(ordered: list[tuple[int, int]]) -> list[dict[str, Any]]:
        """Equal-width bins from the lowest to the highest bucket (one bin when all are equal)."""
        lo, hi = ordered[0][0], ordered[-1][0]
        bins = min(_HISTOGRAM_BINS, hi - lo + 1)
        width = (hi - lo + 1) / bins
        counts = [0] * bins
        for bucket, count in ordered:
            counts[min(bins - 1, int((bucket - lo) / width))] += count
        edge = [round((lo + k * width) / _BUCKETS, 6) for k in range(bins + 1)]
        return [{"from": edge[k], "to": min(1.0, edge[k + 1]), "conversations": c} for k, c in enumerate(counts)]
