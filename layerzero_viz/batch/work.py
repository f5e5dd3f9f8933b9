"""What a worker does with a work unit: parse each line, prune it, check it, serialise the records.

Runs in pool processes and on Dask workers alike, so everything here is a plain function of picklable data
(:class:`Job`, :class:`~layerzero_viz.batch.inputs.Unit`) and results never depend on where they ran.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import Config, annotate
from ..errors import InputError, LayerZeroError
from ..reasons import PRUNE_REASONS
from ..risk import protected_loss
from .inputs import Cursor, Unit
from .tally import Tally

__all__ = ["Job", "UnitResult", "Stop", "OUTPUT_FORMATS", "REASONS", "process_unit", "process_line",
           "arrow_schema"]

OUTPUT_FORMATS = ("jsonl", "parquet")
REASONS = tuple(r for r in PRUNE_REASONS if r != "directive")
"""Prune reasons counted per record; engine directives are counted apart (``tokens_directive``)."""


@dataclass(frozen=True)
class Job:
    """The settings every conversation of a run gets; they travel with each unit to its worker.

    ``ratio`` None means each conversation's own (env, header, directive, default).  ``env`` is the layer-zero
    environment captured where the run started, so remote workers prune the same way.
    """

    ratio: float | None = None
    low_information: bool = True
    keep_directives: bool = False
    env: tuple[tuple[str, str], ...] = ()
    output_format: str = "jsonl"
    strict: bool = False
    max_line_bytes: int = 20 * 1024 * 1024

    def config(self) -> Config:
        # (material is looked for only where a rule proposes a cut: the same decisions, and most blocks propose none)
        return Config(ratio=self.ratio, low_information=self.low_information,
                      keep_directives=self.keep_directives, env=dict(self.env), material_everywhere=False)

    def fingerprint(self) -> dict[str, Any]:
        """The settings that shape the output: a run may only resume with the same ones."""
        return {"ratio": self.ratio, "low_information": self.low_information,
                "keep_directives": self.keep_directives, "env": [list(kv) for kv in self.env],
                "output_format": self.output_format, "max_line_bytes": self.max_line_bytes}


@dataclass(frozen=True)
class Stop:
    """Where a ``--strict`` run stopped: the first malformed line."""

    file: str
    line: int
    error: str


@dataclass
class UnitResult:
    """A processed unit: serialised records (JSONL bytes or an Arrow IPC stream), their totals, its cursor."""

    file: int
    end: Cursor
    disk_offset: int
    payload: bytes
    rows: int
    tally: Tally = field(default_factory=Tally)
    stop: Stop | None = None


def process_unit(job: Job, unit: Unit) -> UnitResult:
    """Every line of ``unit`` as a record; malformed lines are counted (with ``job.strict``, the first stops it)."""
    records: list[dict[str, Any]] = []
    tally = Tally()
    stop = None
    for number, raw in unit.lines:
        try:
            record = process_line(job, unit.name, number, raw)
        except LayerZeroError as exc:
            error = str(exc)
        except Exception as exc:  # an engine bug on one odd conversation must not end a run over millions
            error = f"{unit.name}:{number}: internal error: {type(exc).__name__}: {exc}"
        else:
            records.append(record)
            tally.add_record(record)
            continue
        tally.add_malformed(unit.name, number, error)
        if job.strict:
            stop = Stop(unit.name, number, error)
            break
    return UnitResult(unit.file, unit.end, unit.disk_offset, _serialise(job, records), len(records), tally, stop)


def process_line(job: Job, name: str, number: int, raw: bytes | None) -> dict[str, Any]:
    """The output record of one JSONL line (raises :class:`LayerZeroError` when the line is malformed)."""
    from ..formats import _jsonl_conversation  # the JSONL reader's own per-line parser: same errors, same locations

    where = f"{name}:{number}"
    if raw is None:
        raise InputError(f"line is longer than the limit of {job.max_line_bytes:,} bytes", location=where,
                         hint="pass a larger --max-line-bytes if you trust this input")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"byte {exc.start + 1} is not valid UTF-8", location=where,
                         hint="logs must be UTF-8 text") from None
    conv = _jsonl_conversation(text, number, 0, name)
    annotated = annotate(conv, job.config())
    result = annotated.at_ratio(job.ratio)
    findings = protected_loss(result, annotated.at_ratio(0.0))
    return {
        "file": name,
        "line": number,
        "format": conv.format,
        "ratio": result.ratio,
        "ratio_source": result.ratio_source,
        "enabled": annotated.settings.enabled,
        "tokens_total": result.tokens_total,
        "tokens_pruned": result.tokens_pruned,
        "tokens_directive": result.tokens_directive,
        "pruned_by_reason": pruned_by_reason(result),
        "effectiveness_estimate": result.effectiveness_estimate,
        "risk": sorted({f.kind for f in findings}),
        "findings": [f.to_dict() for f in findings],
        "output": result.output,
    }


def pruned_by_reason(result) -> dict[str, int]:
    """Pruned tokens per prune reason (every reason present, zeros included); they add up to ``tokens_pruned``."""
    a = result.annotated
    counts = dict.fromkeys(REASONS, 0)
    for sid in np.flatnonzero(result.chosen):
        span = a.spans[int(sid)]
        counts[span.reason] = counts.get(span.reason, 0) + int(a.span_cost[sid])
    return counts


# ---- serialising -------------------------------------------------------------------------------------------

def _serialise(job: Job, records: list[dict[str, Any]]) -> bytes:
    if job.output_format == "jsonl":
        return b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8") + b"\n" for r in records)
    import pyarrow as pa

    schema = arrow_schema()
    batch = pa.RecordBatch.from_pylist([_flat(r) for r in records], schema=schema)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def _flat(record: dict[str, Any]) -> dict[str, Any]:
    """A record in Parquet's columns: the pruned conversation as JSON text, message keys as strings."""
    return {**record,
            "findings": [{**f, "message": None if f["message"] is None else str(f["message"])}
                         for f in record["findings"]],
            "output": json.dumps(record["output"], ensure_ascii=False)}


def arrow_schema():
    """The Parquet schema of the per-conversation records (``output`` is the pruned conversation as JSON)."""
    import pyarrow as pa

    finding = pa.struct([("check", pa.string()), ("kind", pa.string()), ("message", pa.string()),
                         ("char", pa.int64()), ("text", pa.string()), ("detail", pa.string())])
    return pa.schema([
        ("file", pa.string()), ("line", pa.int64()), ("format", pa.string()), ("ratio", pa.float64()),
        ("ratio_source", pa.string()), ("enabled", pa.bool_()), ("tokens_total", pa.int64()),
        ("tokens_pruned", pa.int64()), ("tokens_directive", pa.int64()),
        ("pruned_by_reason", pa.struct([(r, pa.int64()) for r in REASONS])),
        ("effectiveness_estimate", pa.float64()), ("risk", pa.list_(pa.string())),
        ("findings", pa.list_(finding)), ("output", pa.string()),
    ])
