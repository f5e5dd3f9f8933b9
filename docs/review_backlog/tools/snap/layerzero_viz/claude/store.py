"""A persistent cache of Claude's answers in SQLite: a rerun of the same calls costs nothing.

Every entry is committed the moment it is put, so an interrupted run keeps each call that finished.
The default file is ``.layerzero/cache.db`` (``LAYERZERO_CACHE`` or the ``path`` argument override it).

>>> store = Store(":memory:")
>>> store.put("count", digest({"model": "m", "messages": []}), {"input_tokens": 3})
>>> store.get("count", digest({"messages": [], "model": "m"}))
{'input_tokens': 3}
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Mapping

__all__ = ["Store", "digest", "DEFAULT_CACHE", "ENV_CACHE", "cache_path"]

DEFAULT_CACHE = Path(".layerzero") / "cache.db"
ENV_CACHE = "LAYERZERO_CACHE"


def digest(obj: Any) -> str:
    """A stable sha256 of a JSON-able object: key order and whitespace do not matter."""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_path(path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> str:
    """Where the cache lives: ``path``, else ``$LAYERZERO_CACHE``, else ``.layerzero/cache.db``."""
    env = os.environ if env is None else env
    return str(path or env.get(ENV_CACHE) or DEFAULT_CACHE)


class Store:
    """Key → JSON value, per kind (``count``, ``reply``, ``judge``); safe to share between threads."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = cache_path(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
        if self.path != ":memory:":
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS entries (kind TEXT NOT NULL, key TEXT NOT NULL, "
                           "value TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (kind, key))")

    def get(self, kind: str, key: str) -> Any | None:
        """The value stored under (kind, key), or None."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM entries WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, kind: str, key: str, value: Any) -> None:
        """Store ``value`` (JSON-able) under (kind, key), committed at once."""
        text = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO entries (kind, key, value, created) VALUES (?, ?, ?, ?)",
                               (kind, key, text, time.time()))

    def count(self, kind: str | None = None) -> int:
        """How many entries are stored (of ``kind``, or in all)."""
        with self._lock:
            if kind is None:
                return int(self._conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
            return int(self._conn.execute("SELECT COUNT(*) FROM entries WHERE kind = ?", (kind,)).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
