"""``layerzero-viz sweep INPUT`` — pruned share and effectiveness estimate at each ratio, as a table or JSON.

The conversation is annotated once; every ratio only re-runs selection (``Annotated.sweep``).
"""
from __future__ import annotations

import argparse
import json
import sys

from ..select import floor_label, slider_frontier
from ..directives import check_ratio
from ..engine import EFFECTIVENESS_TARGET, Annotated, annotate, check_min_effectiveness
from ..errors import DirectiveError
from . import EXIT_OK, add_floor_argument, add_input_arguments, engine_config, read_conversation

__all__ = ["add_parser", "run", "ratios_from", "sweep_payload", "format_table"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "sweep", help="pruned %% and effectiveness estimate per ratio (table or --json)",
        description="Annotate one conversation once and show, for each ratio, how many tokens go and the "
                    "estimated effectiveness; the best ratio keeps the estimate at or above --target.")
    add_input_arguments(p)
    p.add_argument("--ratios", default=None, metavar="R,R,…",
                   help="comma-separated ratios (default: 0 to 0.95 in --step increments)")
    p.add_argument("--step", type=float, default=0.05, help="ratio increment when --ratios is not given (default 0.05)")
    p.add_argument("--target", type=float, default=None,
                   help="effectiveness estimate the best ratio must keep (default: the app's target, 0.99)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    add_floor_argument(p)
    p.set_defaults(run=run)


def ratios_from(text: str | None, step: float) -> list[float]:
    """The ratios to sweep: the listed ones (checked), or 0 … 0.95 by ``step``.

    >>> ratios_from(None, 0.25)
    [0.0, 0.25, 0.5, 0.75, 0.95]
    >>> ratios_from("0.3, 0.1", 0.05)
    [0.1, 0.3]
    """
    if text is not None:
        return sorted({check_ratio(part.strip(), "--ratios") for part in text.split(",") if part.strip()})
    if not 0 < step <= 0.95:
        raise DirectiveError(f"--step {step:g} is outside (0, 0.95]; use e.g. --step 0.05")
    n = int(round(0.95 / step, 9))
    values = [round(k * step, 10) for k in range(n + 1)]
    return values if values[-1] == 0.95 else values + [0.95]


def sweep_payload(annotated: Annotated, ratios: list[float], target: float, name: str,
                  min_effectiveness: float = 1.0) -> dict:
    """The JSON object ``sweep --json`` prints: rows per ratio and the recommended ratio."""
    rows = annotated.sweep(ratios, min_effectiveness=min_effectiveness)
    return {"input": name, "tokens_total": annotated.tokens_total, "target": target,
            "min_effectiveness": min_effectiveness, "safe_frontier": annotated.safe_frontier,
            "best_ratio": Annotated.best_ratio(rows, target), "rows": rows}


def format_table(payload: dict) -> str:
    """The payload as an aligned text table with the best ratio underneath."""
    lines = [f"{'ratio':>5}  {'pruned':>7}  {'pruned %':>8}  {'estimate':>8}  stopped by"]
    for row in payload["rows"]:
        lines.append(f"{row['ratio']:>5.2f}  {row['tokens_pruned']:>7,}  {row['pruned_fraction']:>8.1%}  "
                     f"{row['effectiveness_estimate']:>8.4f}  {row['stopped_by']}")
    best = payload["best_ratio"]
    verdict = "none (even r = 0 is below the target)" if best is None else f"{best:.2f}"
    # the frontier as the app shows it: the first ratio (of 0.01 steps) that takes every safe-tier token (0.134 read
    # as "0.13" named a ratio that leaves 3 of 124)
    lines.append(f"{payload['tokens_total']:,} tokens; every safe-tier token goes from r = "
                 f"{slider_frontier(payload['safe_frontier']):.2f}; floor {floor_label(payload['min_effectiveness'])}; "
                 f"highest ratio with the estimate ≥ {payload['target']:g}: {verdict}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    ratios = ratios_from(args.ratios, args.step)
    if not ratios:
        raise DirectiveError("--ratios lists no ratio; give e.g. --ratios 0.1,0.3,0.5")

    annotated = annotate(read_conversation(args), engine_config(args, None))
    target = EFFECTIVENESS_TARGET if args.target is None else args.target
    payload = sweep_payload(annotated, ratios, target, "<stdin>" if args.input == "-" else args.input,
                            check_min_effectiveness(args.min_effectiveness))
    sys.stdout.write((json.dumps(payload, ensure_ascii=False) if args.json else format_table(payload)) + "\n")
    return EXIT_OK
