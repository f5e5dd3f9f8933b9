"""The checkpoint next to ``OUT`` (``OUT.checkpoint.json``): how far a run got, so it can resume.

Results are written in input order, so what is done is always a prefix of the input: one cursor (file, line,
byte offset) says where it ends.  With it the checkpoint records the output's committed position (JSONL bytes or
Parquet segments), the running totals and a fingerprint of the settings and inputs.  A checkpoint is replaced
atomically, and only after the output it describes was flushed; when the run finishes it stays, marked
``complete``, so running the same command again just prints the summary.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from .inputs import Cursor
from .tally import Tally

__all__ = ["Checkpoint", "checkpoint_path", "CHECKPOINT_VERSION"]

CHECKPOINT_VERSION = 1


def checkpoint_path(out: Path) -> Path:
    return out.with_name(out.name + ".checkpoint.json")


@dataclass
class Checkpoint:
    fingerprint: dict[str, Any]
    cursor: Cursor = field(default_factory=Cursor)
    position: dict[str, Any] | None = None  # the sink's committed position; None before the first commit
    tally: Tally = field(default_factory=Tally)
    complete: bool = False

    def save(self, path: Path) -> None:
        from ..cli import write_atomic

        c = self.cursor
        write_atomic(path, json.dumps({
            "version": CHECKPOINT_VERSION, "fingerprint": self.fingerprint, "complete": self.complete,
            "cursor": {"file": c.file, "line": c.line, "offset": c.offset}, "position": self.position,
            "tally": self.tally.state(),
        }, ensure_ascii=False))

    @classmethod
    def load(cls, path: Path) -> "Checkpoint | None":
        """The checkpoint at ``path``; None when there is none."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (ValueError, OSError) as exc:
            raise InputError(f"the checkpoint cannot be read ({exc})", location=str(path),
                             hint="pass --overwrite to start again") from None
        if not isinstance(data, dict) or data.get("version") != CHECKPOINT_VERSION:
            raise InputError("the checkpoint is from another version of layerzero-viz", location=str(path),
                             hint="pass --overwrite to start again")
        return cls(fingerprint=data["fingerprint"], cursor=Cursor(**data["cursor"]), position=data["position"],
                   tally=Tally.from_state(data["tally"]), complete=data["complete"])

    def difference(self, fingerprint: dict[str, Any]) -> str:
        """What differs from ``fingerprint`` (first difference, for the error message); "" when nothing."""
        for key in sorted(set(self.fingerprint) | set(fingerprint)):
            before, now = self.fingerprint.get(key), fingerprint.get(key)
            if before != now:
                if key == "inputs" and isinstance(before, list) and isinstance(now, list):
                    changed = [b[0] for b, n in zip(before, now) if b != n]
                    if changed:
                        return f"input {changed[0]} changed (size or modification time)"
                    return "the list of inputs changed"
                return f"{key} was {before!r}, now {now!r}"
        return ""
