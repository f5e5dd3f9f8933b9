"""Reading logs for a batch run: which files, and their lines cut into work units, in bounded memory.

A work unit holds up to ``lines_per_unit`` consecutive lines of one file.  Only the raw bytes travel: parsing,
annotating and serialising happen where the unit is processed, so the reading process stays light.  Every
unit says where it ends (line number and uncompressed byte offset) — the resume cursor.
"""
from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator

from ..errors import InputError

__all__ = ["InputFile", "Cursor", "Unit", "discover", "read_units", "LOG_PATTERNS"]

LOG_PATTERNS = ("*.jsonl", "*.jsonl.gz")
_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class InputFile:
    """A log file: ``name`` is how records and messages call it (the path as the user gave it)."""

    path: Path
    name: str
    size: int
    mtime_ns: int

    def identity(self) -> list:
        """What must not change between an interrupted run and its resumption."""
        return [self.name, self.size, self.mtime_ns]


@dataclass(frozen=True)
class Cursor:
    """Everything up to and including ``line`` of file number ``file`` is done; ``offset`` bytes follow it."""

    file: int = 0
    line: int = 0
    offset: int = 0


@dataclass(frozen=True)
class Unit:
    """Consecutive lines of one file: ``(line number, raw bytes)`` for each non-blank line.

    Raw bytes are None for a line over the size limit (it was skipped, not read).  ``end`` is the cursor after
    the unit; ``disk_offset`` how far into the file on disk reading got (compressed bytes for ``.gz``).
    """

    file: int
    name: str
    lines: tuple[tuple[int, bytes | None], ...]
    end: Cursor
    disk_offset: int


def discover(paths: list[str], *, exclude: Iterable[Path] = ()) -> list[InputFile]:
    """The log files named by ``paths``: files as given, directories searched for ``*.jsonl`` / ``*.jsonl.gz``.

    Directory contents are sorted, so every run sees the same order; files in ``exclude`` (the run's own
    output, when it sits among the logs) are left out.  A path that does not exist, or a directory without
    logs, is an :class:`InputError`.
    """
    found: list[InputFile] = []
    seen: set[Path] = {Path(p).resolve() for p in exclude}
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            matches = sorted({p for pattern in LOG_PATTERNS for p in path.rglob(pattern) if p.is_file()})
            if not matches:
                raise InputError(f"no {' or '.join(LOG_PATTERNS)} files in this directory", location=arg,
                                 hint="name the log files, or a directory that holds them")
            named = [(p, (Path(arg) / p.relative_to(path)).as_posix()) for p in matches]
        elif path.is_file():
            named = [(path, arg)]
        else:
            raise InputError("no such file or directory", location=arg)
        for p, name in named:
            key = p.resolve()
            if key in seen:
                continue
            seen.add(key)
            stat = p.stat()
            found.append(InputFile(p, name, stat.st_size, stat.st_mtime_ns))
    return found


def read_units(files: list[InputFile], start: Cursor, *, lines_per_unit: int,
               max_line_bytes: int) -> Iterator[Unit]:
    """Work units from ``start`` on, file after file; a file's last unit may hold no lines (it moves the cursor).

    Memory is bounded by one unit: lines are read one at a time with a size cap.
    """
    for index in range(start.file, len(files)):
        resume = start if index == start.file else Cursor(index)
        yield from _file_units(files[index], index, resume, lines_per_unit, max_line_bytes)


def _open(path: Path) -> tuple[IO[bytes], IO[bytes]]:
    """(reader, raw file): a gzip stream is recognised by its magic bytes, whatever the file is called."""
    raw = open(path, "rb")
    if raw.read(2) == _GZIP_MAGIC:
        raw.seek(0)
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw
    raw.seek(0)
    return raw, raw


def _file_units(f: InputFile, index: int, start: Cursor, lines_per_unit: int,
                max_line_bytes: int) -> Iterator[Unit]:
    reader, raw = _open(f.path)
    with raw, reader:
        if start.offset:
            reader.seek(start.offset)  # gzip seeks forward by decompressing: still bounded memory
        number, offset = start.line, start.offset
        batch: list[tuple[int, bytes | None]] = []
        while True:
            line = reader.readline(max_line_bytes + 1)
            if not line:
                break
            number += 1
            offset += len(line)
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                offset += _skip_rest_of_line(reader)
                batch.append((number, None))
            else:
                if number == 1:
                    line = line.removeprefix(_UTF8_BOM)
                content = line.rstrip(b"\r\n")
                if content.strip():
                    batch.append((number, content))
            if len(batch) >= lines_per_unit:
                yield Unit(index, f.name, tuple(batch), Cursor(index, number, offset), raw.tell())
                batch = []
        yield Unit(index, f.name, tuple(batch), Cursor(index, number, offset), os.fstat(raw.fileno()).st_size)


def _skip_rest_of_line(reader: IO[bytes]) -> int:
    """Move past the rest of an over-long line in bounded chunks; how many bytes that was."""
    skipped = 0
    while chunk := reader.readline(1 << 20):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped
