"""``layerzero-viz count INPUT [--ratio R]``: Claude's exact token counts next to the cl100k estimate.

Prints JSON: ``original`` and ``pruned`` as counted by ``messages.count_tokens`` (null without
``ANTHROPIC_API_KEY``), ``original_estimate`` and ``pruned_estimate`` (offline cl100k), ``source`` (which of the
two the figures are), the ratio used and its source.  Counts are cached per (model, conversation hash).
"""
from __future__ import annotations

import argparse
import json
import sys

from ..claude.counts import TokenCounter, client_from_env, model_from_env
from ..claude.store import Store
from ..engine import annotate
from . import EXIT_OK, add_input_arguments, engine_config, read_conversation

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("count", help="exact token counts from Claude (with a key) next to the cl100k estimate",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_arguments(p)
    p.add_argument("--ratio", type=float, default=None, help="prune ratio (beats env, header, directive)")
    p.add_argument("--model", default=None, help="model whose tokenizer counts (default $ANTHROPIC_MODEL)")
    p.add_argument("--cache", default=None, help="SQLite cache (default $LAYERZERO_CACHE or .layerzero/cache.db)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    result = annotate(read_conversation(args), engine_config(args, args.ratio)).at_ratio(args.ratio)
    client = client_from_env()
    model = args.model or model_from_env()
    if client is None:
        counts = TokenCounter(None, model=model).counts(result)
    else:
        with client, Store(args.cache) as store:
            counts = TokenCounter(client, model=model, store=store).counts(result)
    payload = {"ratio": result.ratio, "ratio_source": result.ratio_source, "tokens_pruned": result.tokens_pruned,
               **counts.to_dict()}
    sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    return EXIT_OK
