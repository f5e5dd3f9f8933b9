"""How a batch run shows progress: a tqdm bar on a terminal, a quiet log line every few seconds otherwise.

Progress is measured in bytes of input read (compressed bytes for ``.gz``), which gives an ETA without counting
lines first; conversations/s and tokens/s ride along.  Malformed lines are reported one line each (the first
:data:`SHOWN` of them), without breaking the bar.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "SHOWN"]

SHOWN = 100


class Progress:
    """Progress for one run; ``quiet`` keeps only the malformed-line reports."""

    def __init__(self, *, stream: TextIO | None = None, tty: bool | None = None, quiet: bool = False,
                 log_every: float = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.quiet = quiet
        self.log_every = log_every
        self._bar = None
        self._shown = 0
        self._records = self._tokens = 0
        self._total = self._done = self._start_done = 0
        self._t0 = self._last_log = time.monotonic()

    def start(self, total_bytes: int, done_bytes: int, description: str) -> None:
        self._total, self._done, self._start_done = total_bytes, done_bytes, done_bytes
        self._t0 = self._last_log = time.monotonic()
        if self.quiet:
            return
        if self.tty:
            from tqdm import tqdm

            self._bar = tqdm(total=total_bytes, initial=done_bytes, unit="B", unit_scale=True, unit_divisor=1024,
                             desc="batch", file=self.stream, dynamic_ncols=True, smoothing=0.1,
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                        "[{elapsed}<{remaining}{postfix}]")
        else:
            resumed = f", resuming at {done_bytes / max(total_bytes, 1):.0%}" if done_bytes else ""
            self._print(f"batch: {total_bytes / 1e6:,.1f} MB of input on {description}{resumed}")

    def advance(self, done_bytes: int, records: int, tokens: int) -> None:
        self._records += records
        self._tokens += tokens
        step, self._done = done_bytes - self._done, done_bytes
        if self.quiet:
            return
        elapsed = max(time.monotonic() - self._t0, 1e-9)
        rates = f"{self._records / elapsed:,.0f} conv/s, {self._tokens / elapsed:,.0f} tok/s"
        if self._bar is not None:
            self._bar.set_postfix_str(rates, refresh=False)
            self._bar.update(step)
        elif time.monotonic() - self._last_log >= self.log_every:
            self._last_log = time.monotonic()
            self._print(f"batch: {self._done / max(self._total, 1):.0%} of input, {self._records:,} conversations, "
                        f"{self._tokens:,} tokens ({rates}), ETA {self._eta(elapsed)}")

    def malformed(self, file: str, line: int, error: str) -> None:
        self._shown += 1
        if self._shown <= SHOWN:
            self._print(f"warning: malformed line skipped: {error}" if error.startswith(f"{file}:")
                        else f"warning: malformed line skipped: {file}:{line}: {error}")
        elif self._shown == SHOWN + 1:
            self._print("warning: more malformed lines are counted but not shown (see the summary)")

    def finish(self, message: str) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if not self.quiet:
            self._print(message)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def _eta(self, elapsed: float) -> str:
        rate = (self._done - self._start_done) / elapsed
        return _clock((self._total - self._done) / rate) if rate > 0 else "?"

    def _print(self, text: str) -> None:
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)


def _clock(seconds: float) -> str:
    """``h:mm:ss``.

    >>> _clock(3725)
    '1:02:05'
    """
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
