"""The command line: ``layerzero-viz <command> …`` (same as ``python -m layerzero_viz``).

``prune INPUT [--ratio R] …`` prints the JSON result contract.  Other commands live in their own modules
and register here through ``COMMANDS``: each module offers ``add_parser(subparsers)`` and ``run(args) -> int``.

Exit codes: 0 success; 2 bad input or settings (one ``error: …`` line on stderr, nothing on stdout);
1 a gate tripped (``--fail-on``, lint findings of error severity); 3 the environment failed (a Dask scheduler,
Streamlit); 130 interrupted.  docs/CLI.md lists them per command.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from .commands import (EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EnvironmentFailure, add_floor_argument,
                       add_input_arguments, engine_config, read_conversation)
from .engine import annotate
from .errors import LayerZeroError
from .risk import CHECKS, run_checks

__all__ = ["main", "build_parser", "write_atomic", "COMMANDS", "EXIT_OK", "EXIT_GATE", "EXIT_INPUT"]

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2

# Modules providing further subcommands (each: add_parser(subparsers) and run(args) -> int).
COMMANDS: tuple[str, ...] = (
    "layerzero_viz.commands.sweep",
    "layerzero_viz.commands.ab", "layerzero_viz.commands.count",
    "layerzero_viz.commands.batch",
    "layerzero_viz.commands.report",
    "layerzero_viz.commands.app",
    "layerzero_viz.commands.lint", "layerzero_viz.commands.mine",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="layerzero-viz", description="Visual pruning debugger for LLM prompts.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prune", help="annotate and prune one conversation, print the JSON result",
                       description="Annotate and prune one conversation; print the JSON result on stdout. "
                                   "With --fail-on, print one line per finding on stderr "
                                   "(file:message:char: check: kind: detail) and exit 1 when any is found.")
    add_input_arguments(p)
    p.add_argument("--ratio", type=float, default=None, help="prune ratio in [0, 0.95] (beats env, header, directive)")
    add_floor_argument(p)
    p.add_argument("--no-tokens", action="store_true", help="leave the per-token list empty")
    p.add_argument("-o", "--output", help="also write the pruned conversation (input's format) to this file")
    p.add_argument("--fail-on", type=_check_list, default=(), metavar="CHECKS",
                   help=f"comma-separated gate checks ({', '.join(CHECKS)}); exit 1 when one finds a problem")
    p.add_argument("--max-ratio", type=float, default=0.5, metavar="M",
                   help="over_ratio trips when tokens_pruned / tokens_total > M (default 0.5)")
    p.set_defaults(run=_prune)
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except LayerZeroError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    except EnvironmentFailure as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _prune(args: argparse.Namespace) -> int:
    conv = read_conversation(args)
    result = annotate(conv, engine_config(args, args.ratio)).at_ratio(args.ratio,
                                                                     min_effectiveness=args.min_effectiveness)
    payload = json.dumps(result.to_dict(tokens=not args.no_tokens), ensure_ascii=False)
    if args.output:
        write_atomic(Path(args.output), result.dump())
    sys.stdout.write(payload + "\n")
    if not args.fail_on:
        return EXIT_OK
    findings = run_checks(result, args.fail_on, max_ratio=args.max_ratio)
    name = "<stdin>" if args.input == "-" else args.input
    for finding in findings:
        print(finding.ci_line(name), file=sys.stderr)
    if findings:
        counts = ", ".join(f"{c} {sum(f.check == c for f in findings)}" for c in args.fail_on)
        print(f"layerzero-viz: {len(findings)} finding(s) ({counts}): failing", file=sys.stderr)
        return EXIT_GATE
    return EXIT_OK


def _check_list(text: str) -> tuple[str, ...]:
    """argparse type for ``--fail-on``: known check names, comma-separated, in the order given."""
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in CHECKS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown check {', '.join(unknown) or repr(text)}; "
                                         f"choose from {', '.join(CHECKS)}")
    return names


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and rename: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
