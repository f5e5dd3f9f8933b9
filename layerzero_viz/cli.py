"""The command line: ``layerzero-viz <command> …`` (same as ``python -m layerzero_viz``).

``prune INPUT [--ratio R] …`` prints the JSON result contract.  Other commands live in their own modules
and register here through ``COMMANDS``: each module offers ``add_parser(subparsers)`` and ``run(args) -> int``.

Exit codes: 0 success; 2 bad input or settings (one ``error: …`` line on stderr, nothing on stdout);
1 a gate tripped (``--fail-on``, lint findings of error severity).
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

from .engine import Config, annotate
from .errors import LayerZeroError
from .formats import load_conversation

__all__ = ["main", "build_parser", "write_atomic", "COMMANDS", "EXIT_OK", "EXIT_GATE", "EXIT_INPUT"]

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2

# Modules providing further subcommands (each: add_parser(subparsers) and run(args) -> int).
COMMANDS: tuple[str, ...] = (
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="layerzero-viz", description="Visual pruning debugger for LLM prompts.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prune", help="annotate and prune one conversation, print the JSON result")
    p.add_argument("input", help="file path, or - for stdin")
    p.add_argument("--ratio", type=float, default=None, help="prune ratio in [0, 0.95] (beats env, header, directive)")
    p.add_argument("--format", default="auto",
                   choices=["auto", "anthropic", "openai", "jsonl", "sharegpt", "http", "text"])
    p.add_argument("--line", type=int, default=None, help="JSONL: 1-based line to use")
    p.add_argument("--no-low-information", action="store_true", help="do not prune frequent function words")
    p.add_argument("--keep-directives", action="store_true", help="keep <layer-zero/> and list tags in the output")
    p.add_argument("--no-tokens", action="store_true", help="leave the per-token list empty")
    p.add_argument("-o", "--output", help="also write the pruned conversation (input's format) to this file")
    p.add_argument("--max-bytes", type=int, default=20 * 1024 * 1024, help="input size limit (default 20 MB)")
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


def _prune(args: argparse.Namespace) -> int:
    if args.input == "-":
        source: object = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        source, name = Path(args.input), args.input
    conv = load_conversation(source, args.format, line=args.line, max_bytes=args.max_bytes, name=name)
    config = Config(ratio=args.ratio, low_information=not args.no_low_information,
                    keep_directives=args.keep_directives, env=os.environ)
    result = annotate(conv, config).at_ratio(args.ratio)
    payload = json.dumps(result.to_dict(tokens=not args.no_tokens), ensure_ascii=False)
    if args.output:
        write_atomic(Path(args.output), result.dump())
    sys.stdout.write(payload + "\n")
    return EXIT_OK


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
