"""``layerzero-viz report RESULT.json -o report.html`` — a self-contained HTML report, optionally a heatmap PNG.

RESULT.json is what ``prune`` prints (heatmap, side by side, summary) or a ``batch --json`` summary.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import InputError
from . import EXIT_OK, require

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "report", help="write a self-contained HTML report of a prune result or a batch summary",
        description="Write a self-contained HTML page (no script, no network: charts are inline SVG) from the "
                    "JSON printed by `prune` or by `batch --json`.")
    p.add_argument("result", metavar="RESULT.json", help="prune result or batch summary (- for stdin)")
    p.add_argument("-o", "--output", required=True, metavar="HTML", help="where to write the page")
    p.add_argument("--png", metavar="PNG", default=None,
                   help="also write the heatmap (batch: pruned tokens by reason) as PNG via vl-convert")
    p.add_argument("--scale", type=float, default=2.0, help="PNG scale factor (default 2)")
    p.add_argument("--title", default=None, help="page title (default: from the input)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("altair", "`layerzero-viz report`")
    if args.png:
        require("vl_convert", "`layerzero-viz report --png`")
    from ..cli import write_atomic
    from ..report import batch_chart, heatmap_chart, report_html

    name = "<stdin>" if args.result == "-" else args.result
    raw = sys.stdin.buffer.read() if args.result == "-" else Path(args.result).read_bytes()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}", location=name,
                         hint="pass the JSON printed by `layerzero-viz prune` or `batch --json`") from None
    page = report_html(data, title=args.title or _default_title(data, name))
    if args.png:
        from ..charts import chart_png

        chart = batch_chart(data) if data.get("kind") == "batch_summary" else heatmap_chart(data)
        Path(args.png).parent.mkdir(parents=True, exist_ok=True)
        Path(args.png).write_bytes(chart_png(chart, scale=args.scale))
    write_atomic(Path(args.output), page)
    print(f"report: wrote {args.output}" + (f" and {args.png}" if args.png else ""), file=sys.stderr)
    return EXIT_OK


def _default_title(data: object, name: str) -> str:
    kind = "Batch report" if isinstance(data, dict) and data.get("kind") == "batch_summary" else "Pruning report"
    return f"{kind}: {Path(name).name}"
