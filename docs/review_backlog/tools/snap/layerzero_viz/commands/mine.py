"""``layerzero-viz mine HISTORY [--top N]``: the redundant phrases of real traffic, ready to declare.

Streams a history of user messages — JSONL (a string, an object with a ``text``/``content``/``message``
field, or a whole conversation per line), CSV with a header (``--column`` names the text column) or plain
lines — in bounded memory, with a progress bar on stderr when it is a terminal.  Prints the ranked
phrases (documents, tokens per use, tokens across the history, estimated saving) and then the
``<redundant_phrases>[…]</redundant_phrases>`` block to paste into the system prompt; ``--json`` prints
everything as one JSON object instead.

A malformed line stops the run with its line number (exit 2) unless ``--skip-bad-lines``, which skips
and counts them.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..advisor.mine import DEFAULT_CAPACITY, DEFAULT_TOP, HISTORY_FORMATS, MiningResult, mine
from . import EXIT_OK

__all__ = ["add_parser", "run", "format_table"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("mine", help="rank redundant phrases in a history of user messages",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history", help="history file (JSONL, CSV or text lines), or - for stdin")
    p.add_argument("--top", type=int, default=DEFAULT_TOP, help=f"how many phrases (default {DEFAULT_TOP})")
    p.add_argument("--format", default="auto", choices=HISTORY_FORMATS)
    p.add_argument("--column", default=None, help="CSV: the column holding the messages (name or 0-based index)")
    p.add_argument("--skip-bad-lines", action="store_true", help="skip and count malformed lines instead of stopping")
    p.add_argument("--min-documents", type=int, default=None,
                   help="ignore phrases in fewer messages (default 3 or 0.1%% of the messages)")
    p.add_argument("--capacity", type=int, default=DEFAULT_CAPACITY,
                   help=f"phrases kept while counting; memory grows with it, not with the file (default {DEFAULT_CAPACITY:,})")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table and block")
    p.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    p.set_defaults(run=run)


def format_table(result: MiningResult) -> str:
    """The ranked phrases as an aligned text table."""
    rows = [("#", "phrase", "messages", "tok/use", "tokens", "saving")]
    for k, p in enumerate(result.phrases, 1):
        rows.append((str(k), p.phrase, f"{p.documents:,}", str(p.tokens), f"{p.tokens_total:,}", f"{p.saving:,}"))
    widths = [max(_width(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [r[c] + " " * (widths[c] - _width(r[c])) if c == 1 else r[c].rjust(widths[c]) for c in range(len(r))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _width(text: str) -> int:
    """Columns a string takes in a terminal (CJK characters are two wide)."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def run(args: argparse.Namespace) -> int:
    source = sys.stdin.buffer if args.history == "-" else Path(args.history)
    result = mine(source, top=args.top, format=args.format, column=args.column, skip_bad_lines=args.skip_bad_lines,
                  capacity=args.capacity, min_documents=args.min_documents,
                  progress=False if args.no_progress else None, name="<stdin>" if args.history == "-" else None)
    if args.json:
        sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    else:
        share = f" ({result.saving / result.tokens:.1%} of {result.tokens:,} tokens)" if result.tokens else ""
        sys.stdout.write(f"{result.messages:,} messages in {result.lines:,} lines; estimated saving "
                         f"{result.saving:,} tokens{share}\n\n{format_table(result)}\n\n{result.block()}\n")
    if result.skipped:
        first = ", ".join(str(n) for n in result.skipped_lines[:10])
        print(f"note: skipped {result.skipped:,} malformed lines (first: {first})", file=sys.stderr)
    return EXIT_OK
