"""Builders shared by the advisor tests: conversations in a few formats, and the facts a fix must keep."""
from __future__ import annotations

import json
import re

from layerzero_viz import load_conversation
from layerzero_viz.directives import LAYER_ZERO_RE
from layerzero_viz.model import Conversation


def anthropic(system: str | None, *turns: str) -> Conversation:
    """An Anthropic request: optional system prompt, then alternating user/assistant turns."""
    doc: dict = {"model": "claude-test", "messages": []}
    if system is not None:
        doc["system"] = system
    for k, text in enumerate(turns):
        doc["messages"].append({"role": "user" if k % 2 == 0 else "assistant", "content": text})
    return load_conversation(json.dumps(doc, ensure_ascii=False).encode())


def openai(system: str | None, *turns: str) -> Conversation:
    """An OpenAI message list (a bare list, so it reads as OpenAI even without a system message)."""
    messages = [{"role": "system", "content": system}] if system is not None else []
    messages += [{"role": "user" if k % 2 == 0 else "assistant", "content": t} for k, t in enumerate(turns)]
    return load_conversation(json.dumps(messages, ensure_ascii=False).encode())


def all_text(conv: Conversation) -> str:
    return "\n".join(m.text for m in conv.messages)


_FACT = re.compile(r"[A-Za-z]+-\d+|#\d+|\d+(?:[.,]\d+)*")


def facts(conv: Conversation) -> list[str]:
    """Numbers and identifiers in the conversation, directives left out (their ratio may change on purpose)."""
    return _FACT.findall(LAYER_ZERO_RE.sub("", all_text(conv)))


def codes(findings) -> list[str]:
    return [f.code for f in findings]
