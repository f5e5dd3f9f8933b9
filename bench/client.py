"""Pruning overhead per ``messages.create``: the bare SDK vs the same SDK with the layer-zero middleware, interleaved.

A ~2k-token request (mixed zh/en turns from fixtures/corpus) goes to a local fake Messages API (the one the
tests use) through the real SDK.  Five ways, in rotating order, each on its own client sharing one connection
pool: the bare SDK call; the middleware on the next turn of a chat (the same history, a new last turn: the engine
reuses the history's token ids, but the whole request is annotated again); the same with an audit log (two
fsync'd records per call); the middleware on all-new requests (no block seen before); and the middleware on a
request it has already seen whole (a retry, ``count_tokens`` then ``create``, a regenerate: answered from its
cache of pruned requests).  Prints p50/p90 of each, the ms added at p50 against the targets (≤ 5 ms on a
2k-token request, ≤ 1 ms for an already-seen request), and where the pruning time goes (engine stages, median per
call, from the audit records).

Usage: python bench/client.py [--rounds 60] [--tokens 2000]
"""
from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anthropic  # noqa: E402
from prometheus_client import CollectorRegistry  # noqa: E402

from layerzero_viz.anthropic import layer_zero_middleware  # noqa: E402
from layerzero_viz.claude import read_audit  # noqa: E402
from layerzero_viz.tokens import encoding  # noqa: E402
from tests.claude.fake_anthropic import FakeAnthropic  # noqa: E402

TARGET_MS = 5.0
SEEN_TARGET_MS = 1.0


def request_of_size(tokens: int) -> dict:
    """An Anthropic request of about ``tokens`` cl100k tokens, alternating user/assistant turns from the corpus."""
    enc = encoding()
    messages, n = [], 0
    for line in (ROOT / "fixtures" / "corpus" / "sample.jsonl").read_text(encoding="utf-8").splitlines():
        for m in json.loads(line)["messages"]:
            if isinstance(m.get("content"), str) and m["content"].strip():
                messages.append({"role": "user" if len(messages) % 2 == 0 else "assistant", "content": m["content"]})
                n += len(enc.encode_ordinary(m["content"]))
        if n >= tokens:
            break
    if messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": "请总结一下。"})
    return {"model": "claude-bench", "max_tokens": 64, "system": "你是一名客服助理。请务必简洁。", "messages": messages}, n


def varied(request: dict, i: int) -> dict:
    """The next call of a chat: the same history, a new last turn."""
    fresh = copy.deepcopy(request)
    fresh["messages"][-1]["content"] += f" 编号{i}"
    return fresh


def all_new(request: dict, i: int) -> dict:
    """A request no block of which was seen before (nothing can come from the token cache)."""
    fresh = copy.deepcopy(request)
    fresh["system"] += f" 编号{i}"
    for m in fresh["messages"]:
        m["content"] = f"{i}: " + m["content"]
    return fresh


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--tokens", type=int, default=2000)
    args = ap.parse_args()
    request, n_tokens = request_of_size(args.tokens)
    audit = Path(tempfile.mkdtemp()) / "audit.jsonl"
    with FakeAnthropic() as server, anthropic.Anthropic(api_key="sk-ant-bench-key-000000", base_url=server.url,
                                                        max_retries=0) as sdk:
        def pruning(**kw):
            return sdk.with_middleware(layer_zero_middleware(ratio=0.3, registry=CollectorRegistry(), env={}, **kw))

        seen = pruning()
        ways = {"bare SDK": (sdk, varied), "middleware, next turn": (pruning(), varied),
                "middleware + audit": (pruning(audit_log=audit), varied),
                "middleware, all new": (pruning(), all_new),
                "middleware, seen request": (seen, lambda request, i: request)}
        seen.messages.create(**request)  # seen once before the rounds
        times: dict[str, list[float]] = {k: [] for k in ways}
        names = list(ways)
        for i in range(-5, args.rounds):  # 5 warm-up rounds (tokenizer tables, lexicons, connection) are dropped
            for k in range(len(names)):
                name = names[(i + k) % len(names)]
                client, make = ways[name]
                body = make(request, i * 10 + k)
                t0 = time.perf_counter()
                client.messages.create(**body)
                if i >= 0:
                    times[name].append((time.perf_counter() - t0) * 1000.0)
    print(f"request: {len(request['messages'])} turns, {n_tokens} cl100k tokens; {args.rounds} rounds, interleaved")
    for name, values in times.items():
        print(f"  {name:24s} p50 {pct(values, 50):7.2f} ms   p90 {pct(values, 90):7.2f} ms")
    bare = pct(times["bare SDK"], 50)

    def added(name: str, target: float) -> str:
        ms = pct(times[name], 50) - bare
        return f"{ms:.2f} ms ({'within' if ms <= target else 'OVER'} the {target:g} ms target)"

    print(f"added at p50, next turn of a chat (history's token ids cached): {added('middleware, next turn', TARGET_MS)}"
          f"; with the audit log: {pct(times['middleware + audit'], 50) - bare:.2f} ms")
    print(f"added at p50, every block new (nothing cached): {added('middleware, all new', TARGET_MS)}")
    print(f"added at p50, a request seen before: {added('middleware, seen request', SEEN_TARGET_MS)}")
    records = [r for r in read_audit(audit) if r.get("event") == "call"][5:]
    stages = ("parse", "tokenize", "protect", "detect", "resolve", "select", "reconstruct", "prune_total")
    print("where the pruning time goes (median ms per call): " + ", ".join(
        f"{s} {statistics.median(r['timings_ms'][s] for r in records):.2f}" for s in stages))
    print(f"  prune_total = the whole middleware before the request is sent (JSON copy, load, annotate, select, "
          f"rebuild); tokens pruned per call: {statistics.median(r['tokens']['pruned'] for r in records):.0f}")


if __name__ == "__main__":
    main()
