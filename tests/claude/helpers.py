"""Conversations the Claude tests send: prunable filler in zh and en, and one with nothing to prune."""
from __future__ import annotations

import json
from pathlib import Path

from layerzero_viz import Config, annotate, load_conversation
from layerzero_viz.claude import pruned_request_of, request_of
from layerzero_viz.claude.request import last_user_text

MODEL = "claude-test"

FINANCE = {"system": "你是一名理财顾问。请用中文回答。",
           "messages": [{"role": "user", "content": "您好，麻烦您了，请问七日年化收益率4.2%是什么意思？非常感谢您！"}]}
SUPPORT = {"system": "You are a support agent for an online shop.",
           "messages": [{"role": "user", "content": "Hello! I was wondering if you could kindly check order "
                                                   "#12345 for SKU-12345, please. Thank you so much!"}]}
PLAIN = {"messages": [{"role": "user", "content": "SKU-12345 #12345 4.2%"}]}


def create_kwargs(doc: dict, **extra) -> dict:
    return {"model": MODEL, "max_tokens": 64, **doc, **extra}


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def last_turn_changes(doc: dict, ratio: float) -> bool:
    """Whether pruning ``doc`` at ``ratio`` changes its last user turn (the fake echoes exactly that turn)."""
    conv = load_conversation(json.dumps(doc, ensure_ascii=False).encode())
    result = annotate(conv, Config(enabled=True, env={})).at_ratio(ratio)
    return last_user_text(pruned_request_of(result)) != last_user_text(request_of(conv))
