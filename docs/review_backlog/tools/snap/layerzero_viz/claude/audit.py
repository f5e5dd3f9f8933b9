"""The audit log: JSON lines that never lose a response and never corrupt.

Records have ``log_type: "layer_zero_audit"``.  A call writes two of them, sharing its ``call_id``:

- ``event: "request"`` — written ahead, flushed and fsync'd *before* the request is sent (the original and the
  pruned request, settings, token estimates, timings of the pruning).  If it cannot be written the client raises
  :class:`AuditLogError` (naming the path) and nothing reaches the API;
- ``event: "outcome"`` — written after: ``status`` (``ok``, ``error``, ``incomplete`` for a stream that ended
  without ``message_stop``, ``not_sent``), the response and request ids, the usage, the error, and for a stream
  how it ended.  If *this* write fails the response is still returned: the client logs a warning and counts it in
  ``layer_zero_audit_failures_total``, never raises after a billed call.

Each record is one line, written by one ``write`` on an ``O_APPEND`` descriptor under an exclusive ``flock``; a
short or failed write (a full disk) is cut off again with ``ftruncate``, so the file always ends in a complete
line; a torn tail left by a writer that was killed mid-write is cut off by the next writer before it appends.
:func:`read_audit` skips a torn last line (with a warning and ``records.torn``) instead of failing on the log.

Base64 sources (images, PDFs) are recorded as their sha256 digest and size, not copied.  The file is created 0600
(it holds whole prompts; an existing file keeps its mode) and opened by path for every record, so ``logrotate``
may move it away at any time (no ``copytruncate`` needed): the next record creates a new file.  Records never hold
the API key or a header: the client passes its secrets and any occurrence of them is replaced by ``[redacted]``.
"""
from __future__ import annotations

import base64
import binascii
import errno
import hashlib
import json
import os
import threading
import warnings
from pathlib import Path
from typing import Any, Iterable

try:  # advisory lock between processes sharing one log; threads share self._lock
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from .errors import ClaudeError

__all__ = ["AuditLog", "AuditLogError", "AuditRecords", "LOG_TYPE", "REDACTED", "read_audit"]

LOG_TYPE = "layer_zero_audit"
REDACTED = "[redacted]"
FILE_MODE = 0o600
_OUTCOME_DEFAULTS = {"status": "pending", "response_id": None, "request_id": None, "stop_reason": None,
                     "error": None}


class AuditLogError(ClaudeError, OSError):
    """A record could not be written to the audit log (``.path``; ``.__cause__`` is the ``OSError``)."""

    def __init__(self, path: Path, what: str, cause: BaseException, then: str = "") -> None:
        self.path = path
        reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(cause)
        self.message = f"audit log {path}: cannot write {what} ({reason}){'; ' + then if then else ''}"
        super().__init__(self.message)
        if isinstance(cause, OSError):
            self.errno = cause.errno
        self.filename = str(path)

    def __str__(self) -> str:
        return self.message


def _write_fd(fd: int, data: bytes) -> int:
    """The one ``write`` of a record (a seam for tests that fill the disk)."""
    return os.write(fd, data)


class AuditLog:
    """Appends records to ``path`` (JSONL); safe to share between threads, clients and processes."""

    def __init__(self, path: str | os.PathLike[str], *, secrets: Iterable[str] = ()) -> None:
        self.path = Path(path)
        self._secrets = tuple(s for s in secrets if s and len(s) >= 8)
        self._lock = threading.Lock()

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """More strings that must never reach the file."""
        self._secrets = tuple(dict.fromkeys(self._secrets + tuple(s for s in secrets if s and len(s) >= 8)))

    def encode(self, record: dict[str, Any]) -> bytes:
        """``record`` as its line: ``log_type`` added, base64 sources digested, secrets redacted."""
        line = json.dumps({"log_type": LOG_TYPE, **_compact(record, {})}, ensure_ascii=False, default=str)
        for secret in self._secrets:
            line = line.replace(secret, REDACTED)
            line = line.replace(json.dumps(secret)[1:-1], REDACTED)  # the key as it appears JSON-escaped
        return (line + "\n").encode("utf-8")

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line by one ``write``, fsync'd before returning; raises ``OSError``.

        On failure the file is cut back to its last complete line before the error propagates.
        """
        data = self.encode(record)
        with self._lock:
            fd = self._open()
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                end = os.fstat(fd).st_size
                if end and os.pread(fd, 1, end - 1) != b"\n":
                    end = _cut_torn_tail(fd, end)
                try:
                    written = _write_fd(fd, data)
                    if written != len(data):
                        raise OSError(errno.ENOSPC, f"short write: {written} of {len(data)} bytes")
                    os.fsync(fd)
                except BaseException:
                    try:
                        os.ftruncate(fd, end)
                    except OSError:
                        pass
                    raise
            finally:
                os.close(fd)  # releases the flock

    def _open(self) -> int:
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        try:
            return os.open(self.path, flags, FILE_MODE)
        except FileNotFoundError:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            return os.open(self.path, flags, FILE_MODE)


def _cut_torn_tail(fd: int, end: int) -> int:
    """Truncate the file to just after its last newline (a writer died mid-line); the new size."""
    pos = end
    while pos > 0:
        start = max(0, pos - 65536)
        chunk = os.pread(fd, pos - start, start)
        i = chunk.rfind(b"\n")
        if i >= 0:
            pos = start + i + 1
            break
        pos = start
    os.ftruncate(fd, pos)
    return pos


def _compact(obj: Any, seen: dict[int, dict[str, Any]]) -> Any:
    """``obj`` with every base64 source's ``data`` replaced by its digest and size (computed once per string)."""
    if isinstance(obj, dict):
        data = obj.get("data")
        if obj.get("type") == "base64" and isinstance(data, str):
            digest = seen.get(id(data))
            if digest is None:
                digest = seen[id(data)] = _digest(data)
            return {**{k: v for k, v in obj.items() if k != "data"}, "data": None, **digest}
        return {k: _compact(v, seen) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_compact(v, seen) for v in obj]
    return obj


def _digest(data: str) -> dict[str, Any]:
    try:
        raw = base64.b64decode(data, validate=True)
        return {"data_omitted": "sha256 of the decoded bytes", "sha256": hashlib.sha256(raw).hexdigest(),
                "bytes": len(raw)}
    except (binascii.Error, ValueError):
        text = data.encode("utf-8", "surrogatepass")
        return {"data_omitted": "sha256 of the (invalid) base64 text", "sha256": hashlib.sha256(text).hexdigest(),
                "bytes": len(text)}


class AuditRecords(list):
    """The records of :func:`read_audit`; ``torn`` is the size in bytes of a skipped torn last line (0: none)."""

    torn: int = 0


def read_audit(path: str | os.PathLike[str], *, raw: bool = False) -> AuditRecords:
    """The records of an audit log, in order.

    By default a call's ``request`` and ``outcome`` records are joined into one ``event: "call"`` record (the
    outcome's fields over the request's, ``tokens`` and ``timings_ms`` merged; ``status: "pending"`` while no
    outcome was written — a call in flight, or one whose outcome write failed); ``raw=True`` gives the lines as
    written.  A last line that is not complete JSON (a writer was killed mid-line) is skipped with a
    ``RuntimeWarning`` and counted in ``.torn``; a bad line anywhere else raises ``ValueError`` naming it.
    """
    with open(path, "rb") as fh:
        lines = fh.read().split(b"\n")
    records = AuditRecords()
    last = len(lines) - 1
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError as exc:
            if number - 1 == last:  # no newline after it: the write never finished
                records.torn = len(line)
                warnings.warn(f"audit log {path}: skipped a torn last line ({len(line)} bytes, line {number})",
                              RuntimeWarning, stacklevel=2)
                continue
            raise ValueError(f"audit log {path}:{number}: not a JSON record ({exc})") from exc
    if raw:
        return records
    return _joined(records)


def _joined(records: list[dict[str, Any]]) -> AuditRecords:
    out = AuditRecords()
    out.torn = getattr(records, "torn", 0)
    calls: dict[str, dict[str, Any]] = {}
    for rec in records:
        event = rec.get("event")
        if event == "request":
            call = {**rec, "event": "call", **_OUTCOME_DEFAULTS,
                    "tokens": dict(rec.get("tokens") or {}), "timings_ms": dict(rec.get("timings_ms") or {})}
            calls[str(rec.get("call_id"))] = call
            out.append(call)
        elif event == "outcome" and str(rec.get("call_id")) in calls:
            call = calls[str(rec["call_id"])]
            for key, value in rec.items():
                if key in ("tokens", "timings_ms"):
                    call[key].update(value or {})
                elif key == "time":
                    call["outcome_time"] = value
                elif key not in ("log_type", "event", "version"):
                    call[key] = value
        else:  # rollbacks, an outcome whose request is in a rotated-away file, version-1 "call" records
            out.append(rec)
    return out
