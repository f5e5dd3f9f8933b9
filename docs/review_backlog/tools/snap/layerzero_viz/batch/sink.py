"""Where records go: a JSONL file or a Parquet file, written so an interrupted run can resume exactly.

* JSONL is appended to ``OUT``; ``commit`` flushes and returns the byte length, which the checkpoint records.
  Resuming truncates ``OUT`` to that length: records written after the last checkpoint are written again,
  never twice.
* Parquet cannot be appended to once its footer is missing, so rows go to numbered segment files in
  ``OUT.parts/`` (one row group each); ``commit`` closes the open segment and returns how many there are.
  Resuming deletes segments past the checkpoint.  ``close`` copies the segments' row groups into ``OUT`` one at a
  time and removes the folder.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from ..errors import InputError
from .work import UnitResult, arrow_schema

__all__ = ["Sink", "JsonlSink", "ParquetSink", "open_sink", "parts_dir"]


class Sink:
    """Interface: ``write`` each unit's payload in order, ``commit`` for a checkpoint, ``close`` at the end."""

    def write(self, result: UnitResult) -> None:
        raise NotImplementedError

    #: whether checkpoints may come every few seconds; Parquet commits whole row groups only
    timed = True

    def wants_commit(self) -> bool:
        """True when the sink would like a checkpoint now (a Parquet row group is full)."""
        return False

    def commit(self) -> dict[str, Any]:
        raise NotImplementedError

    def close(self) -> None:
        """Finish ``OUT``; what the checkpoint needed to resume stays until :meth:`cleanup`."""
        raise NotImplementedError

    def cleanup(self) -> None:
        """Remove resume material once the checkpoint says the run is complete."""

    def abort(self) -> None:
        """Stop without finishing ``OUT`` (the checkpoint keeps what was committed)."""


def parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


def open_sink(output_format: str, out: Path, position: dict[str, Any] | None, *, row_group_rows: int) -> Sink:
    """A sink for ``out`` starting at a checkpoint's ``position`` (None: a fresh output)."""
    if output_format == "jsonl":
        return JsonlSink(out, position)
    return ParquetSink(out, position, row_group_rows=row_group_rows)


class JsonlSink(Sink):
    def __init__(self, out: Path, position: dict[str, Any] | None) -> None:
        out.parent.mkdir(parents=True, exist_ok=True)
        if position is None:
            self._f = open(out, "wb")
        else:
            self._f = open(out, "r+b")
            size = self._f.seek(0, os.SEEK_END)
            if size < position["bytes"]:
                self._f.close()
                raise InputError(f"the output is {size:,} bytes but the checkpoint recorded {position['bytes']:,}",
                                 location=str(out), hint="it was changed since; pass --overwrite to start again")
            self._f.truncate(position["bytes"])
            self._f.seek(position["bytes"])

    def write(self, result: UnitResult) -> None:
        self._f.write(result.payload)

    def commit(self) -> dict[str, Any]:
        self._f.flush()
        return {"bytes": self._f.tell()}

    def close(self) -> None:
        self._f.close()

    def abort(self) -> None:
        self._f.close()


class ParquetSink(Sink):
    timed = False

    def __init__(self, out: Path, position: dict[str, Any] | None, *, row_group_rows: int) -> None:
        self.out = out
        self.parts = parts_dir(out)
        self.row_group_rows = row_group_rows
        self._tables: list[Any] = []
        self._rows = 0
        if position is None:
            shutil.rmtree(self.parts, ignore_errors=True)
            self.segments = 0
        else:
            self.segments = position["segments"]
            missing = [k for k in range(self.segments) if not self._segment(k).is_file()]
            if missing:
                raise InputError(f"segment {missing[0]} of the interrupted run is missing", location=str(self.parts),
                                 hint="pass --overwrite to start again")
            for extra in self.parts.glob("part-*.parquet"):
                if int(extra.stem.removeprefix("part-")) >= self.segments:
                    extra.unlink()
        self.parts.mkdir(parents=True, exist_ok=True)

    def write(self, result: UnitResult) -> None:
        if not result.rows:
            return
        import pyarrow as pa

        self._tables.append(pa.ipc.open_stream(result.payload).read_all())
        self._rows += result.rows

    def wants_commit(self) -> bool:
        return self._rows >= self.row_group_rows

    def commit(self) -> dict[str, Any]:
        if self._rows:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.concat_tables(self._tables)
            path = self._segment(self.segments)
            tmp = path.with_suffix(".tmp")
            pq.write_table(table, tmp, row_group_size=max(1, table.num_rows))
            os.replace(tmp, path)
            self.segments += 1
            self._tables, self._rows = [], 0
        return {"segments": self.segments}

    def close(self) -> None:
        import pyarrow.parquet as pq

        self.commit()
        tmp = self.out.with_name(f".{self.out.name}.tmp")
        with pq.ParquetWriter(tmp, arrow_schema()) as writer:
            for k in range(self.segments):
                segment = pq.ParquetFile(self._segment(k))
                for g in range(segment.num_row_groups):
                    writer.write_table(segment.read_row_group(g))
        os.replace(tmp, self.out)

    def cleanup(self) -> None:
        shutil.rmtree(self.parts, ignore_errors=True)

    def _segment(self, k: int) -> Path:
        return self.parts / f"part-{k:06d}.parquet"
