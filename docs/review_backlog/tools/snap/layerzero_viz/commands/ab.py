"""``layerzero-viz ab RUNS.jsonl --ratio R --model M``: measure pruning's effectiveness with Claude.

Prints the JSON summary: one entry per group (``A`` unpruned, ``B`` the global ratio, ``C`` per-row ratios),
each with ``effectiveness_ratio``, ``input_tokens``, ``output_tokens``, ``cost_usd``, ``latency_ms``, ``n``
and ``errors``, then ``run`` (model, ratio, API calls made, cache hits, where C's ratios came from).
Progress goes to stderr.  Needs ``ANTHROPIC_API_KEY`` (``ANTHROPIC_BASE_URL`` is honoured).

Exit codes: 0 every row judged; 1 some calls failed (the summary says how many; rerun the same command to
resume — finished calls are cached); 2 bad input or no API key; 130 interrupted (also resumable).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..claude.ab import ABRunner, Outcome, Prices, Row, read_rows
from ..claude.counts import ENV_MODEL, client_from_env
from ..claude.errors import ClaudeError, NoAPIKeyError
from ..claude.store import Store
from ..directives import DEFAULT_RATIO
from . import EXIT_GATE, EXIT_INTERRUPTED, EXIT_OK

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("ab", help="A/B effectiveness of pruning, judged by Claude (needs ANTHROPIC_API_KEY)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", help="JSONL file: one conversation per line (optional fields: id, ratio)")
    p.add_argument("--ratio", type=float, default=DEFAULT_RATIO, help=f"group B's ratio (default {DEFAULT_RATIO})")
    p.add_argument("--model", default=None, help="model to answer with (default $ANTHROPIC_MODEL)")
    p.add_argument("--judge-model", default=None, help="model that judges equivalence (default: --model)")
    p.add_argument("--max-tokens", type=int, default=1024, help="max_tokens of each reply (default 1024)")
    p.add_argument("--concurrency", type=int, default=4, help="rows in flight at once (default 4)")
    p.add_argument("--max-retries", type=int, default=4, help="SDK retries on 429/5xx/timeouts (default 4)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
    p.add_argument("--cache", default=None, help="SQLite cache (default $LAYERZERO_CACHE or .layerzero/cache.db)")
    p.add_argument("--out", default=None, help="also write summary and every outcome as JSON (the app loads it)")
    p.add_argument("--price-in", type=float, default=None, help="USD per million input tokens (default: list price)")
    p.add_argument("--price-out", type=float, default=None, help="USD per million output tokens")
    p.add_argument("--no-structured-judge", action="store_true",
                   help="do not send output_config (for models without structured outputs)")
    p.add_argument("--no-low-information", action="store_true", help="do not prune frequent function words")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    model = args.model or os.environ.get(ENV_MODEL, "").strip()
    if not model:
        raise ClaudeError("no model: pass --model M (or set ANTHROPIC_MODEL)")
    if (args.price_in is None) != (args.price_out is None):
        raise ClaudeError("give both --price-in and --price-out, or neither (list prices are used when known)")
    rows = read_rows(Path(args.runs))
    client = client_from_env(max_retries=args.max_retries, timeout=args.timeout)
    if client is None:
        raise NoAPIKeyError("an A/B run")
    prices = Prices(args.price_in, args.price_out, "--price-in/--price-out") if args.price_in is not None else None
    with client, Store(args.cache) as store:
        runner = ABRunner(client, model=model, ratio=args.ratio, judge_model=args.judge_model, store=store,
                          concurrency=args.concurrency, max_tokens=args.max_tokens,
                          prices=prices, structured_judge=not args.no_structured_judge,
                          low_information=not args.no_low_information)
        progress = _Progress(len(rows), quiet=args.quiet)
        try:
            report = runner.run(rows, on_outcome=progress)
        except KeyboardInterrupt:
            print(f"interrupted after {progress.done} of {len(rows)} rows: finished calls are cached in "
                  f"{store.path}; rerun the same command to resume", file=sys.stderr)
            return EXIT_INTERRUPTED
    if args.out:
        from ..cli import write_atomic
        write_atomic(Path(args.out), json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    sys.stdout.write(json.dumps(report.summary(), ensure_ascii=False, indent=2) + "\n")
    if report.errors:
        first = next(o for o in report.outcomes if o.error)
        print(f"error: {report.errors} of {len(report.outcomes)} outcomes failed (first: {first.row} group "
              f"{first.group}: {first.error}); rerun the same command to resume — finished calls are cached",
              file=sys.stderr)
        return EXIT_GATE
    return EXIT_OK


class _Progress:
    """One stderr line per finished row: which groups were judged equivalent (=), different (≠) or failed (!)."""

    def __init__(self, total: int, *, quiet: bool) -> None:
        self.total, self.quiet, self.done = total, quiet, 0

    def __call__(self, row: Row, outcomes: list[Outcome]) -> None:
        self.done += 1
        if self.quiet:
            return
        marks = " ".join(f"{o.group}{'!' if o.error else '=' if o.equivalent else '≠'}" for o in outcomes)
        cached = " (cached)" if all(o.cached for o in outcomes) else ""
        print(f"[{self.done}/{self.total}] {row.id}: {marks}{cached}", file=sys.stderr, flush=True)
