"""Conversations as Messages API requests: what is sent to Claude, before and after pruning.

An Anthropic-format input is sent as it is (its ``system`` and ``messages``, non-text blocks included);
any other format (OpenAI, ShareGPT, plain text, …) is sent as text turns: system and developer messages
become ``system``, assistant turns stay assistant, everything else (user, tool, function) is a user turn.

>>> from layerzero_viz import load_conversation
>>> request_of(load_conversation('[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]'))
{'system': 'Be brief.', 'messages': [{'role': 'user', 'content': 'Hi'}]}
"""
from __future__ import annotations

import copy
from typing import Any, Iterable

from ..errors import InputError
from ..model import Conversation

__all__ = ["request_of", "pruned_request_of", "sendable", "last_user_text"]

_API_KEYS = ("system", "messages")


def request_of(conv: Conversation) -> dict[str, Any]:
    """``{"system"?, "messages"}`` for ``conv`` as loaded (directives and all)."""
    if _is_anthropic(conv, conv.raw):
        return sendable({k: copy.deepcopy(conv.raw[k]) for k in _API_KEYS if k in conv.raw})
    return _from_turns(((m.role, m.text) for m in conv.messages), conv)


def pruned_request_of(result: Any) -> dict[str, Any]:
    """``{"system"?, "messages"}`` for a :class:`~layerzero_viz.PruneResult`'s pruned conversation."""
    conv = result.annotated.conversation
    output = result.output
    if _is_anthropic(conv, output):
        return sendable({k: output[k] for k in _API_KEYS if k in output})
    return _from_turns(((m.role, m.pruned) for m in result.messages), conv)


def sendable(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` without the empty text the API refuses: a pruned-away text block or a turn left empty.

    The API joins consecutive turns of one role, so dropping an emptied turn keeps the request valid.

    >>> sendable({"system": "  ", "messages": [{"role": "user", "content": [{"type": "text", "text": ""}]},
    ...                                        {"role": "user", "content": "Hi"}]})
    {'messages': [{'role': 'user', 'content': 'Hi'}]}
    """
    out = dict(request)
    system = out.get("system")
    if isinstance(system, str) and not system.strip():
        del out["system"]
    elif isinstance(system, list):
        blocks = [b for b in system if not _empty_text_block(b)]
        if blocks:
            out["system"] = blocks
        else:
            del out["system"]
    if isinstance(out.get("messages"), list):
        messages = []
        for m in out["messages"]:
            if not isinstance(m, dict):
                messages.append(m)
                continue
            content = m.get("content")
            if isinstance(content, str) and not content.strip():
                continue
            if isinstance(content, list):
                blocks = [b for b in content if not _empty_text_block(b)]
                if not blocks:
                    continue
                if len(blocks) != len(content):
                    m = {**m, "content": blocks}
            messages.append(m)
        out["messages"] = messages
    return out


def last_user_text(request: dict[str, Any]) -> str:
    """The text of the last user turn of ``request`` ("" when there is none)."""
    for m in reversed(request.get("messages") or []):
        if isinstance(m, dict) and m.get("role") == "user":
            content = m.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "\n\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _empty_text_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and not str(block.get("text", "")).strip()


def _is_anthropic(conv: Conversation, doc: Any) -> bool:
    return conv.format in ("anthropic", "http") and isinstance(doc, dict) and isinstance(doc.get("messages"), list) \
        and all(isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in doc["messages"])


def _from_turns(turns: Iterable[tuple[str, str]], conv: Conversation) -> dict[str, Any]:
    system: list[str] = []
    messages: list[dict[str, str]] = []
    for role, text in turns:
        if not text.strip():
            continue
        if role in ("system", "developer"):
            system.append(text)
            continue
        role = "assistant" if role == "assistant" else "user"
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"] += "\n\n" + text
        else:
            messages.append({"role": role, "content": text})
    if not messages:
        raise InputError("nothing to send to Claude: the conversation has no user or assistant text",
                         location=conv.source_name, hint="add a user message")
    out: dict[str, Any] = {"system": "\n\n".join(system)} if system else {}
    out["messages"] = messages
    return out
