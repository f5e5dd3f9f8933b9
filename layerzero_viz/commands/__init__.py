"""Subcommands of ``layerzero-viz`` beyond ``prune``: one module each, registered in ``cli.COMMANDS``.

Each module offers ``add_parser(subparsers)`` and ``run(args) -> int``.  This package holds what they share:
the input options of a one-conversation command (``prune``, ``sweep``) and the exit codes.

Exit codes (docs/CLI.md):

====  =====================================================================================================
0     success
1     a gate tripped (``prune --fail-on``)
2     bad input, arguments or settings; ``batch --strict`` stopped on a malformed line
3     the environment failed us: Dask scheduler unreachable, Streamlit missing, a worker process died
130   interrupted (Ctrl-C); ``batch`` saved its checkpoint, so running it again resumes
====  =====================================================================================================
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..engine import Config
from ..formats import load_conversation
from ..model import Conversation

__all__ = [
    "EXIT_OK", "EXIT_GATE", "EXIT_INPUT", "EXIT_ENVIRONMENT", "EXIT_INTERRUPTED",
    "INPUT_FORMATS", "EnvironmentFailure", "add_input_arguments", "add_floor_argument", "read_conversation",
    "engine_config",
]

EXIT_OK, EXIT_GATE, EXIT_INPUT, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
INPUT_FORMATS = ("auto", "anthropic", "openai", "jsonl", "sharegpt", "http", "text")


class EnvironmentFailure(Exception):
    """Something outside the input failed (a scheduler, a worker, a missing program): exit code 3."""


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """The options of a command that reads one conversation (``prune``, ``sweep``)."""
    p.add_argument("input", help="file path, or - for stdin")
    p.add_argument("--format", default="auto", choices=INPUT_FORMATS)
    p.add_argument("--line", type=int, default=None, help="JSONL: 1-based line to use")
    p.add_argument("--no-low-information", action="store_true", help="do not prune frequent function words")
    p.add_argument("--keep-directives", action="store_true", help="keep <layer-zero/> and list tags in the output")
    p.add_argument("--max-bytes", type=int, default=20 * 1024 * 1024, help="input size limit (default 20 MB)")


def read_conversation(args: argparse.Namespace) -> Conversation:
    """The conversation named by ``args.input`` (``-`` reads stdin), as :func:`add_input_arguments` parsed it."""
    if args.input == "-":
        source: object = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        source, name = Path(args.input), args.input
    return load_conversation(source, args.format, line=args.line, max_bytes=args.max_bytes, name=name)


def engine_config(args: argparse.Namespace, ratio: float | None) -> Config:
    """The engine settings from the common options; the environment applies (explicit ``ratio`` beats it)."""
    return Config(ratio=ratio, low_information=not args.no_low_information,
                  keep_directives=args.keep_directives, env=os.environ)


def add_floor_argument(p: argparse.ArgumentParser) -> None:
    """``--min-effectiveness F``: the floor that bounds the lossy tier (1.0, the default, is lossless)."""
    p.add_argument("--min-effectiveness", type=float, default=1.0, metavar="F",
                   help="take lossy-tier words beyond the safe rules only while the effectiveness estimate stays "
                        ">= F (default 1.0: lossless, safe rules only; 0.98 is the article's alert threshold, "
                        "recommended for exploring; 0: no floor)")
