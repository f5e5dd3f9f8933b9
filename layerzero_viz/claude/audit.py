"""The audit log: one JSON line per call, on disk before the call returns (flushed and fsync'd).

Records have ``log_type: "layer_zero_audit"``.  They never hold the API key or a header: the client passes
its secrets (the API key, auth token) and any occurrence of them anywhere in a record is replaced by
``[redacted]`` before it is written — a belt to the braces of never copying headers in the first place.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Iterable

__all__ = ["AuditLog", "LOG_TYPE", "REDACTED", "read_audit"]

LOG_TYPE = "layer_zero_audit"
REDACTED = "[redacted]"


class AuditLog:
    """Appends records to ``path`` (JSONL); safe to share between threads and clients."""

    def __init__(self, path: str | os.PathLike[str], *, secrets: Iterable[str] = ()) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._secrets = tuple(s for s in secrets if s and len(s) >= 8)
        self._lock = threading.Lock()

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """More strings that must never reach the file."""
        self._secrets = tuple(dict.fromkeys(self._secrets + tuple(s for s in secrets if s and len(s) >= 8)))

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` (``log_type`` added) as one line, flushed and fsync'd before returning."""
        line = json.dumps({"log_type": LOG_TYPE, **record}, ensure_ascii=False, default=str)
        for secret in self._secrets:
            line = line.replace(secret, REDACTED)
            line = line.replace(json.dumps(secret)[1:-1], REDACTED)  # the key as it appears JSON-escaped
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def read_audit(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every record of an audit log, in order."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
