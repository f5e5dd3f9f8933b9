"""Traditional Chinese read as Simplified: what the rules see, never what the user gets back.

The lexicons and the rules' patterns are written in Simplified characters (``lexicons/README.md``), so a
Traditional-script turn (謝謝、麻煩您、請問、沒有) matched none of them: no filler went, and — worse, had the
lexicons merely been given Traditional entries — no handed-over text (「請把這段翻譯成英文」) or negation (沒有)
would have been recognised either.  The engine therefore reads a copy of every text block converted by OpenCC's
``t2s`` (Traditional → Simplified, phrase-aware), one character for one, so every offset the rules find is an
offset of the original.  Tokens, protections' user regexes and everything shown or sent come from the original
text, and a reason's detail quotes the text as written (:func:`as_written`).
"""
from __future__ import annotations

import re
import threading
from dataclasses import replace
from functools import lru_cache
from typing import Any

from .model import Block, Conversation

__all__ = ["simplified", "simplified_text", "load_converter", "as_written"]

# a character OpenCC could change: CJK ideographs (the compatibility block too)
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_lock = threading.Lock()
_converter: Any = None
_single: dict[str, str] = {}


def load_converter() -> Any:
    """OpenCC's t2s converter, loaded once per process (``lexicon.warm_up`` loads it outside any timing)."""
    global _converter
    with _lock:
        if _converter is None:
            import opencc
            _converter = opencc.OpenCC("t2s")
    return _converter


def simplified_text(text: str) -> str:
    """``text`` with its Traditional characters in Simplified form, of the same length (offsets unchanged).

    >>> simplified_text("麻煩您幫我翻譯這句話，謝謝！我們沒有 API key。")
    '麻烦您帮我翻译这句话，谢谢！我们没有 API key。'
    >>> simplified_text("Thanks, 谢谢") == "Thanks, 谢谢"
    True
    """
    if text.isascii() or not _HAN.search(text):
        return text
    out: str = load_converter().convert(text)
    if len(out) == len(text):
        return out
    # a phrase became longer or shorter: convert character by character instead
    return "".join(_one(c) for c in text)


def _one(c: str) -> str:
    found = _single.get(c)
    if found is None:
        found = load_converter().convert(c) if _HAN.match(c) else c
        if len(found) != 1:
            found = c
        _single[c] = found
    return found


def simplified(conv: Conversation) -> Conversation:
    """``conv`` with every text block's text in Simplified form (``conv`` itself when nothing changes)."""
    messages = []
    for msg in conv.messages:
        blocks = tuple(_simplified_block(b) for b in msg.blocks)
        messages.append(msg if all(a is b for a, b in zip(blocks, msg.blocks)) else replace(msg, blocks=blocks))
    if all(a is b for a, b in zip(messages, conv.messages)):
        return conv
    return replace(conv, messages=tuple(messages))


# a resent history converts the same blocks again: short texts are looked up (the conversion is most of a next turn's
# parse stage otherwise)
_CACHED_MAX = 16_384


@lru_cache(maxsize=2048)
def _simplified_cached(text: str) -> str:
    return simplified_text(text)


def _simplified_block(block: Block) -> Block:
    if block.kind != "text":
        return block
    text = _simplified_cached(block.text) if len(block.text) <= _CACHED_MAX else simplified_text(block.text)
    return block if text == block.text else replace(block, text=text)


# a piece of text a reason's detail quotes: 'frame '麻烦您帮我'', "…"
_QUOTED = re.compile(r"(['\"])(.+?)\1")


def as_written(detail: str, read: str, shown: str, near: int) -> str:
    """``detail`` with each quoted piece of the Simplified reading ``read`` as the original ``shown`` has it there
    (the nearest occurrence at or after ``near`` − 2,000, else the first): "frame '麻烦您帮我'" → "frame '麻煩您幫我'".

    >>> as_written("frame '麻烦您帮我': politeness", "您好，麻烦您帮我", "您好，麻煩您幫我", 3)
    "frame '麻煩您幫我': politeness"
    """
    def written(m: re.Match[str]) -> str:
        q = m.group(2)
        if q.isascii():
            return m.group(0)
        at = read.find(q, max(0, near - 2000))
        if at < 0:
            at = read.find(q)
        return m.group(0) if at < 0 else m.group(1) + shown[at:at + len(q)] + m.group(1)
    return _QUOTED.sub(written, detail)
