"""Small builders shared by the engine tests."""
from __future__ import annotations

import json

from layerzero_viz import annotate, load_conversation


def conv(system: str | None = None, *turns: str) -> str:
    """An Anthropic request JSON: optional system prompt, then alternating user/assistant turns."""
    doc: dict = {"model": "claude-test", "messages": []}
    if system is not None:
        doc["system"] = system
    for k, text in enumerate(turns):
        doc["messages"].append({"role": "user" if k % 2 == 0 else "assistant", "content": text})
    return json.dumps(doc, ensure_ascii=False)


def prune(source: str, ratio: float | None = 0.95, **config):
    """Annotate ``source`` with no environment and return the result at ``ratio``."""
    config.setdefault("env", {})
    return annotate(load_conversation(source), **config).at_ratio(ratio)


def tokens_of(result, reason: str | None = None, decision: str | None = None) -> list[dict]:
    return [t for t in result.token_records()
            if (reason is None or t["reason"] == reason) and (decision is None or t["decision"] == decision)]


def pruned_text(result, reason: str | None = None) -> str:
    return "".join(t["text"] for t in tokens_of(result, reason, "prune"))


def is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)
