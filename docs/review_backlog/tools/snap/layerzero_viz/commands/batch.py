"""``layerzero-viz batch LOGS… -o OUT`` — prune every conversation of many JSONL logs; resumable; local or Dask.

The work is in :mod:`layerzero_viz.batch`; this module maps options to it and prints the summary.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from ..batch import ENGINES, OUTPUT_FORMATS, ExecutorError, Job, Progress, RunOptions, run_batch
from ..directives import ENV_ENABLED, ENV_RATIO, check_ratio
from ..errors import DirectiveError
from . import EXIT_INPUT, EXIT_OK, EnvironmentFailure, Terminated, require

__all__ = ["add_parser", "run", "format_summary"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "batch", help="prune every conversation of JSONL logs (files, folders, .gz) into JSONL or Parquet",
        description="Prune every conversation of JSONL logs in bounded memory, in parallel, and write one "
                    "record per conversation plus a summary. An interrupted run resumes when run again with "
                    "the same command (checkpoint: OUT.checkpoint.json).",
        epilog="exit codes: 0 done (malformed lines skipped and counted); 2 bad arguments or input, or --strict "
               "met a malformed line; 3 a worker or the Dask scheduler failed, or an optional dependency is missing; "
               "130 interrupted (Ctrl-C), 143 terminated (SIGTERM): run again to resume")
    p.add_argument("logs", nargs="+", metavar="LOGS", help="JSONL files, .gz files, or folders (searched for "
                                                          "*.jsonl and *.jsonl.gz)")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="per-conversation results")
    p.add_argument("--ratio", type=float, default=None,
                   help="prune ratio for every conversation (default: each one's own env/header/directive)")
    p.add_argument("--format", choices=OUTPUT_FORMATS, default=None,
                   help="output format (default: parquet when OUT ends in .parquet, else jsonl)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default 1; 2 for --engine dask)")
    p.add_argument("--engine", choices=ENGINES, default="local", help="local processes or a Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: a local cluster on 127.0.0.1)")
    p.add_argument("--strict", action="store_true", help="stop at the first malformed line (exit 2)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.add_argument("--report", metavar="HTML", default=None, help="also write a self-contained HTML summary report")
    p.add_argument("--overwrite", action="store_true", help="start again, replacing OUT and its checkpoint")
    p.add_argument("--quiet", action="store_true", help="no progress output (malformed lines are still reported)")
    p.add_argument("--no-low-information", action="store_true", help="do not prune frequent function words")
    p.add_argument("--keep-directives", action="store_true", help="keep <layer-zero/> and list tags in the output")
    p.add_argument("--max-line-bytes", type=int, default=20 * 1024 * 1024,
                   help="longer lines are malformed (default 20 MB)")
    p.add_argument("--chunk-lines", type=int, default=200, help="lines per work unit (default 200)")
    p.add_argument("--row-group-rows", type=int, default=2000, help="Parquet rows per row group (default 2000)")
    p.add_argument("--checkpoint-seconds", type=float, default=2.0,
                   help="save the checkpoint at most this often (default 2; 0 = after every unit)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    job = Job(
        ratio=None if args.ratio is None else check_ratio(args.ratio, "--ratio"),
        low_information=not args.no_low_information,
        keep_directives=args.keep_directives,
        env=tuple((k, os.environ[k]) for k in (ENV_ENABLED, ENV_RATIO) if k in os.environ),
        output_format=args.format or ("parquet" if out.suffix == ".parquet" else "jsonl"),
        strict=args.strict,
        max_line_bytes=_positive(args.max_line_bytes, "--max-line-bytes"),
    )
    if args.scheduler and args.engine != "dask":
        raise DirectiveError("--scheduler needs --engine dask")
    jobs = args.jobs if args.jobs is not None else (2 if args.engine == "dask" else 1)
    options = RunOptions(engine=args.engine, jobs=_positive(jobs, "--jobs"), scheduler=args.scheduler,
                         lines_per_unit=_positive(args.chunk_lines, "--chunk-lines"),
                         row_group_rows=_positive(args.row_group_rows, "--row-group-rows"),
                         checkpoint_seconds=max(0.0, args.checkpoint_seconds), overwrite=args.overwrite)
    # what the run will need, before any work: not a traceback (or a lost run) at the end
    if job.output_format == "parquet":
        require("pyarrow", "Parquet output")
    if args.report:
        require("altair", "--report")
    progress = Progress(quiet=args.quiet)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        outcome = run_batch(args.logs, out, job, options, progress)
    except ExecutorError as exc:
        raise EnvironmentFailure(str(exc)) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if outcome.already_complete and not args.quiet:
        print(f"batch: {out} is already complete (remove it or pass --overwrite to run again)", file=sys.stderr)
    if args.report:
        from ..report import report_html
        from ..cli import write_atomic

        write_atomic(Path(args.report), report_html(outcome.summary, title=f"Batch run → {out.name}"))
    sys.stdout.write(json.dumps(outcome.summary, ensure_ascii=False) + "\n" if args.json
                     else format_summary(outcome.summary) + "\n")
    if outcome.stop is not None:
        print(f"error: --strict: stopped at a malformed line: {outcome.stop.error}", file=sys.stderr)
        return EXIT_INPUT
    return EXIT_OK


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM ends the run as Ctrl-C does: the checkpoint stays, the workers stop, exit 143.

    A second SIGTERM while the run winds down gets the default action (the workers still die with us).
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise Terminated()


def _positive(value: int, option: str) -> int:
    if value < 1:
        raise DirectiveError(f"{option} must be at least 1, not {value}")
    return value


def format_summary(s: dict) -> str:
    """The summary as a few aligned lines for a terminal."""
    est = s["estimate"]
    lines = [
        f"conversations     {s['conversations']:,}  (malformed lines: {s['malformed_lines']:,})",
        f"tokens            {s['tokens_total']:,}  pruned {s['tokens_pruned']:,} ({s['pruned_fraction']:.1%})",
    ]
    for reason, n in s["pruned_by_reason"].items():
        lines.append(f"  {reason:<20} {n:,}")
    if est["mean"] is not None:
        lines.append("estimate          " + "  ".join(f"{k} {est[k]:.4f}" for k in
                                                       ("min", "p5", "p25", "p50", "p75", "p95", "max")))
    lines.append(f"protected-fact risk in {s['risk']['conversations']:,} conversations"
                 + "".join(f"; {k} {v:,}" for k, v in s["risk"]["by_flag"].items()))
    lines.append(f"output            {s['output']} ({s['output_format']})")
    return "\n".join(lines)
