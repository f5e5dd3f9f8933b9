"""One batch run: find the logs, resume or start, stream units through an executor, write, checkpoint, sum up."""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..directives import resolve_settings
from ..formats import load_conversation
from ..errors import InputError
from .checkpoint import Checkpoint, checkpoint_path
from .executors import make_executor
from .inputs import Cursor, InputFile, discover, read_units
from .progress import Progress
from .sink import open_sink, parts_dir
from .tally import Tally
from .work import Job, Stop

__all__ = ["RunOptions", "BatchOutcome", "run_batch", "SUMMARY_KIND"]

SUMMARY_KIND = "batch_summary"


@dataclass(frozen=True)
class RunOptions:
    """How to run (not what comes out: results are the same for every choice here)."""

    engine: str = "local"
    jobs: int = 1
    scheduler: str | None = None
    lines_per_unit: int = 200
    row_group_rows: int = 2000
    checkpoint_seconds: float = 2.0
    overwrite: bool = False


@dataclass
class BatchOutcome:
    summary: dict[str, Any]
    stop: Stop | None = None
    already_complete: bool = False


def run_batch(inputs: list[str], out: Path, job: Job, options: RunOptions = RunOptions(),
              progress: Progress | None = None) -> BatchOutcome:
    """Prune every conversation of ``inputs`` into ``out`` and return the summary (see docs/CLI.md).

    Resumes from ``out``'s checkpoint when there is one for the same settings and unchanged inputs.
    """
    progress = progress or Progress(quiet=True)
    files = discover(inputs, exclude=[out])
    # a bad environment value fails here, once, not on every line (without loading the tokenizer here)
    resolve_settings(load_conversation("settings check"), ratio=job.ratio, enabled=None, env=dict(job.env))
    fingerprint = {"layerzero_viz": __version__, "job": job.fingerprint(), "inputs": [f.identity() for f in files]}
    cp_path = checkpoint_path(out)
    cp = _start(out, cp_path, fingerprint, options.overwrite)
    if cp.complete:
        return BatchOutcome(_summary(files, out, job, cp.tally, None, {"engine": None, "resumed": True,
                                                                       "elapsed_s": 0.0}), None, True)

    resumed = cp.position is not None
    sink = open_sink(job.output_format, out, cp.position, row_group_rows=options.row_group_rows)
    t0 = time.monotonic()
    done_before = cp.tally.conversations
    tokens_before = cp.tally.tokens_total
    stop = None
    last_save = time.monotonic()

    def save() -> None:
        nonlocal last_save
        cp.position = sink.commit()
        cp.save(cp_path)
        last_save = time.monotonic()

    try:
        if not resumed:
            save()  # an empty output and its checkpoint first: from now on, running again resumes
        with make_executor(options.engine, options.jobs, options.scheduler) as executor:
            progress.start(sum(f.size for f in files), _disk_done(files, cp.cursor), executor.description)
            units = read_units(files, cp.cursor, lines_per_unit=options.lines_per_unit,
                               max_line_bytes=job.max_line_bytes)
            for result in executor.map(job, units):
                sink.write(result)
                cp.tally.merge(result.tally)
                for bad in result.tally.malformed_first:
                    progress.malformed(bad["file"], bad["line"], bad["error"])
                progress.advance(_disk_done(files, result.end, result.disk_offset), result.rows,
                                 result.tally.tokens_total)
                if result.stop is not None:
                    stop = result.stop  # the checkpoint stays before this unit; the output shows the lines before
                    sink.commit()
                    break
                cp.cursor = result.end
                due = sink.timed and time.monotonic() - last_save >= options.checkpoint_seconds
                if due or sink.wants_commit():
                    save()
            description = executor.description
        if stop is None:
            sink.close()
            cp.complete = True
            cp.position = None
            cp.save(cp_path)
            sink.cleanup()
        else:
            sink.abort()
    except BaseException:
        sink.abort()
        progress.close()
        raise
    elapsed = time.monotonic() - t0
    conversations = cp.tally.conversations - done_before
    tokens = cp.tally.tokens_total - tokens_before
    run = {"engine": description, "resumed": resumed, "elapsed_s": round(elapsed, 3),
           "conversations_per_s": round(conversations / elapsed, 1) if elapsed > 0 else None,
           "tokens_per_s": round(tokens / elapsed, 1) if elapsed > 0 else None}
    summary = _summary(files, out, job, cp.tally, stop, run)
    progress.finish(f"batch: {summary['conversations']:,} conversations, {summary['tokens_pruned']:,} of "
                    f"{summary['tokens_total']:,} tokens pruned, {summary['malformed_lines']:,} malformed lines, "
                    f"{summary['risk']['conversations']:,} with a protected-fact risk → {out}")
    return BatchOutcome(summary, stop)


def _start(out: Path, cp_path: Path, fingerprint: dict[str, Any], overwrite: bool) -> Checkpoint:
    """The checkpoint to continue from: a matching one on disk, or a fresh one (clearing old output if allowed)."""
    existing = None if overwrite else Checkpoint.load(cp_path)
    if existing is not None:
        why = existing.difference(fingerprint)
        if why:
            raise InputError(f"an earlier run left a checkpoint here, but {why}", location=str(cp_path),
                             hint="pass --overwrite to start again, or -o another output")
        if not existing.complete or out.exists():
            return existing
    elif not overwrite and (out.exists() or parts_dir(out).exists()):
        raise InputError("the output exists and has no checkpoint of an interrupted run", location=str(out),
                         hint="pass --overwrite to replace it, or -o another output")
    for stale in (out, cp_path):
        stale.unlink(missing_ok=True)
    shutil.rmtree(parts_dir(out), ignore_errors=True)
    return Checkpoint(fingerprint=fingerprint)


def _disk_done(files: list[InputFile], cursor: Cursor, disk_offset: int | None = None) -> int:
    """Bytes of input on disk before ``cursor`` (its file's offset is approximate for ``.gz``)."""
    within = cursor.offset if disk_offset is None else disk_offset
    return sum(f.size for f in files[:cursor.file]) + min(within, files[cursor.file].size if files else 0)


def _summary(files: list[InputFile], out: Path, job: Job, tally: Tally, stop: Stop | None,
             run: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": SUMMARY_KIND,
        "version": 1,
        "inputs": [f.name for f in files],
        "output": str(out),
        "output_format": job.output_format,
        "ratio": job.ratio,
        **tally.summary(),
        "complete": stop is None,
        "stopped_at": None if stop is None else {"file": stop.file, "line": stop.line, "error": stop.error},
        "run": run,
    }
