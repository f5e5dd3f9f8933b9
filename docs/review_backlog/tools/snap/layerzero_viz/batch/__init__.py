"""Batch runs over logs: every conversation of many JSONL files pruned, checked and summed up.

    inputs.discover ─▶ inputs.read_units ─▶ executors (in process · process pool · Dask) ─▶ work.process_unit
         (files)        (units of lines,          ordered, bounded window                  (records + Tally)
                         resume cursor)                                                        │
    runner.run_batch ◀── sink (JSONL bytes / Parquet segments) ◀── in input order ◀────────────┘
         └─ checkpoint (cursor, output position, Tally) every few seconds; summary at the end

Results never depend on the executor or the number of workers: units are cut the same way and written in
input order, so a local run, a Dask run and a resumed run produce the same bytes.
"""
from .checkpoint import Checkpoint, checkpoint_path
from .executors import ENGINES, ExecutorError
from .inputs import Cursor, InputFile, Unit, discover, read_units
from .progress import Progress
from .runner import SUMMARY_KIND, BatchOutcome, RunOptions, run_batch
from .tally import Tally
from .work import OUTPUT_FORMATS, REASONS, Job, Stop, process_line, process_unit

__all__ = [
    "BatchOutcome", "Checkpoint", "Cursor", "ENGINES", "ExecutorError", "InputFile", "Job", "OUTPUT_FORMATS",
    "Progress", "REASONS", "RunOptions", "SUMMARY_KIND", "Stop", "Tally", "Unit", "checkpoint_path", "discover",
    "process_line", "process_unit", "read_units", "run_batch",
]
