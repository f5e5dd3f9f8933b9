"""The rollback policy: when effectiveness stays below 0.975 over a window, lower the ratio by 0.03.

>>> guard = RollbackGuard(window=3)
>>> [guard.observe(v, ratio=0.30) for v in (0.96, 0.97)]
[None, None]
>>> guard.observe(0.95, ratio=0.30)
Rollback(ratio_before=0.3, ratio_after=0.27, window_mean=0.96, window=3, threshold=0.975)
"""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

__all__ = ["RollbackGuard", "Rollback", "THRESHOLD", "STEP", "WINDOW"]

THRESHOLD = 0.975
STEP = 0.03
WINDOW = 20


@dataclass(frozen=True)
class Rollback:
    """The guard lowered the ratio: from ``ratio_before`` to ``ratio_after`` after ``window`` low values."""

    ratio_before: float
    ratio_after: float
    window_mean: float
    window: int
    threshold: float


class RollbackGuard:
    """Watches effectiveness values; a full window whose mean is below ``threshold`` lowers the ratio by ``step``.

    After a rollback the window starts empty, so the next step down needs another full window of low values.
    """

    def __init__(self, *, threshold: float = THRESHOLD, step: float = STEP, window: int = WINDOW,
                 floor: float = 0.0) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1, not {window}")
        self.threshold, self.step, self.window, self.floor = threshold, step, window, floor
        self._values: deque[float] = deque(maxlen=window)
        self._lock = threading.Lock()

    def observe(self, value: float, *, ratio: float) -> Rollback | None:
        """Add one effectiveness ``value`` seen at ``ratio``; a Rollback when the ratio should go down."""
        with self._lock:
            self._values.append(float(value))
            if len(self._values) < self.window or ratio <= self.floor:
                return None
            mean = sum(self._values) / len(self._values)
            if mean >= self.threshold:
                return None
            self._values.clear()
            after = round(max(self.floor, ratio - self.step), 6)
            return Rollback(ratio, after, round(mean, 6), self.window, self.threshold)
