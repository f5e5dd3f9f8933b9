"""Pruning overhead per ``messages.create``: bare SDK vs LayerZeroClient, interleaved in one run.

A ~2k-token request (mixed zh/en turns from fixtures/corpus) goes to a local fake Messages API (the one the
tests use) through the real SDK.  Each round sends a fresh request: either the next turn of a chat (the same
history, a new last turn: the client reuses the history's token ids) or one whose every block is new
(nothing can come from any cache).  Four ways, in rotating order: the bare SDK call, ``LayerZeroClient`` (next
turn, no audit log), ``LayerZeroClient`` with an audit log (flushed and fsync'd per record), and
``LayerZeroClient`` on all-new requests.  Prints p50/p90 of each, the ms added at p50 (target ≤ 5 ms) for the
next turn and for all-new requests, and where the pruning time goes (engine stages, median per call, from the
audit records).

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

from layerzero_viz.anthropic import LayerZeroClient  # noqa: E402
from layerzero_viz.claude import read_audit  # noqa: E402
from layerzero_viz.tokens import encoding  # noqa: E402
from tests.claude.fake_anthropic import FakeAnthropic  # noqa: E402

TARGET_MS = 5.0


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
        plain = LayerZeroClient(sdk, ratio=0.3, registry=CollectorRegistry(), env={})
        audited = LayerZeroClient(sdk, ratio=0.3, registry=CollectorRegistry(), env={}, audit_log=audit)
        cold = LayerZeroClient(sdk, ratio=0.3, registry=CollectorRegistry(), env={})
        ways = {"bare SDK": sdk.messages.create, "LayerZeroClient": plain.messages.create,
                "LayerZeroClient + audit": audited.messages.create, "LayerZeroClient, all new": cold.messages.create}
        times: dict[str, list[float]] = {k: [] for k in ways}
        names = list(ways)
        for i in range(-5, args.rounds):  # 5 warm-up rounds (tokenizer tables, lexicons, connection) are dropped
            for k in range(len(names)):
                name = names[(i + k) % len(names)]
                body = (all_new if name.endswith("all new") else varied)(request, i * 10 + k)
                t0 = time.perf_counter()
                ways[name](**body)
                if i >= 0:
                    times[name].append((time.perf_counter() - t0) * 1000.0)
    print(f"request: {len(request['messages'])} turns, {n_tokens} cl100k tokens; {args.rounds} rounds, interleaved")
    for name, values in times.items():
        print(f"  {name:24s} p50 {pct(values, 50):7.2f} ms   p90 {pct(values, 90):7.2f} ms")
    bare = pct(times["bare SDK"], 50)
    added = pct(times["LayerZeroClient"], 50) - bare
    verdict = "within" if added <= TARGET_MS else "OVER"
    cold_added = pct(times["LayerZeroClient, all new"], 50) - bare
    print(f"added by pruning at p50, next turn of a chat (history's token ids cached): {added:.2f} ms "
          f"({verdict} the {TARGET_MS:g} ms target); with the audit log: "
          f"{pct(times['LayerZeroClient + audit'], 50) - bare:.2f} ms")
    print(f"added by pruning at p50, every block new (nothing cached): {cold_added:.2f} ms "
          f"({'within' if cold_added <= TARGET_MS else 'OVER'} the {TARGET_MS:g} ms target)")
    records = [r for r in read_audit(audit) if r.get("event") == "call"][5:]
    stages = ("parse", "tokenize", "protect", "detect", "select", "reconstruct", "prune_total")
    print("where the pruning time goes (median ms per call): " + ", ".join(
        f"{s} {statistics.median(r['timings_ms'][s] for r in records):.2f}" for s in stages))
    print(f"  prune_total = the whole wrapper before the request is sent (JSON copy, load, annotate, select, "
          f"rebuild); tokens pruned per call: {statistics.median(r['tokens']['pruned'] for r in records):.0f}")


if __name__ == "__main__":
    main()
