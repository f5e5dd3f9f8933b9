"""Rewrites as plain data (:class:`Fix`) and the one function that applies them to a conversation.

A fix is a few text replacements in message blocks plus additions to the system prompt: the
``<layer-zero/>`` line, facts inside ``<context>``, properties of the ``<output_format>`` JSON schema,
``<protected_tokens>`` patterns and ``<redundant_phrases>``.  Applying one rewrites the text blocks,
writes them back into the input's own document (adding a system prompt when there is none) and loads the
result again, so the rewritten conversation keeps the input's format and can be sent as it is.
"""
from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from ..directives import LAYER_ZERO_RE
from ..errors import LayerZeroError
from ..formats import detect_format, dump_conversation, dump_text, load_conversation
from ..model import Block, Conversation, Message, MessageKey

__all__ = ["FixError", "Replace", "Fix", "apply", "message_offset", "xml_text"]


class FixError(LayerZeroError, ValueError):
    """A fix cannot be applied: the conversation changed since it was linted, or its shape has no room for it."""


@dataclass(frozen=True)
class Replace:
    """Replace ``old`` at ``[start, end)`` of one text block (``message``, ``block`` index) with ``new``."""

    message: MessageKey
    block: int
    start: int
    end: int
    old: str
    new: str


@dataclass(frozen=True)
class Fix:
    """A mechanical rewrite: what the apply button does, described as data.

    ``schema`` holds ``(property, JSON text of its schema)`` pairs for the ``<output_format>`` object schema.
    """

    label: str
    replace: tuple[Replace, ...] = ()
    directive: str | None = None
    context: tuple[str, ...] = ()
    schema: tuple[tuple[str, str], ...] = ()
    protected_tokens: tuple[str, ...] = ()
    redundant_phrases: tuple[str, ...] = ()

    @property
    def edits_system(self) -> bool:
        return bool(self.directive or self.protected_tokens or self.redundant_phrases)

    @property
    def adds_to_prompt(self) -> bool:
        return bool(self.context or self.schema)


def xml_text(text: str) -> str:
    """``text`` safe as XML element content (``&``, ``<``, ``>`` escaped; quotes left as they are).

    >>> xml_text("a < b & c")
    'a &lt; b &amp; c'
    """
    return html.escape(text, quote=False)


def message_offset(message: Message, block_index: int, offset: int) -> int:
    """The position in ``message.text`` (text blocks joined by a blank line) of ``offset`` in block ``block_index``."""
    pos = 0
    for b in message.blocks:
        if b.kind != "text":
            continue
        if b.index == block_index:
            return pos + offset
        pos += len(b.text) + 2
    raise FixError(f"message {message.key} has no text block {block_index}")


# ---------------------------------------------------------------------------------------------- applying


def apply(conv: Conversation, fix: Fix) -> Conversation:
    """``conv`` rewritten by ``fix``, in the same format; :class:`FixError` when it does not fit ``conv``.

    >>> conv = load_conversation('{"messages": [{"role": "user", "content": "您好，请问收益率？"}]}')
    >>> new = apply(conv, Fix("declare", redundant_phrases=("您好", "请问")))
    >>> new.format, new.messages[0].text
    ('anthropic', '<redundant_phrases>["您好", "请问"]</redundant_phrases>')
    """
    texts: dict[tuple, str] = {}
    blocks = {(m.key, b.index): (m, b) for m in conv.messages for b in m.blocks if b.kind == "text"}
    for key in dict.fromkeys((r.message, r.block) for r in fix.replace):
        if key not in blocks:
            raise FixError(f"message {key[0]} block {key[1]} is not a text block of this conversation; lint it again")
        _, block = blocks[key]
        text = block.text
        for r in sorted((r for r in fix.replace if (r.message, r.block) == key), key=lambda r: -r.start):
            if text[r.start:r.end] != r.old:
                raise FixError(f"message {key[0]} changed since it was linted ({r.old[:30]!r} is no longer at "
                               f"{r.start}); lint it again")
            text = text[:r.start] + r.new + text[r.end:]
        texts[block.path] = text

    new_system: str | None = None
    if fix.edits_system or fix.adds_to_prompt:
        target = _prompt_block(conv, system_only=fix.edits_system)
        if target is not None:
            texts[target.path] = _edit_prompt(texts.get(target.path, target.text), fix)
        elif conv.format == "text":
            raise FixError("plain-text input has no system prompt to hold engine directives; "
                           "load the prompt as a JSON request with a system prompt")
        else:
            new_system = _edit_prompt("", fix)

    doc = dump_conversation(conv, texts)
    if new_system is not None:
        doc = _with_system(conv, doc, new_system)
    return _reload(conv, doc)


def _prompt_block(conv: Conversation, *, system_only: bool) -> Block | None:
    """The block prompt-level additions go to: the system prompt's first text block, or a plain-text prompt."""
    system = conv.system
    if system is not None:
        block = next((b for b in system.blocks if b.kind == "text"), None)
        if block is not None:
            return block
    if not system_only and conv.format == "text" and conv.messages:
        return conv.messages[0].blocks[0]
    return None


_LIST_TAG = "<{0}>(.*?)</{0}>"


def _edit_prompt(text: str, fix: Fix) -> str:
    if fix.directive:
        text = _strip_layer_zero(text)
        text = fix.directive + ("\n" + text if text else "")
    for tag, values in (("protected_tokens", fix.protected_tokens), ("redundant_phrases", fix.redundant_phrases)):
        if values:
            text = _merge_list(text, tag, values)
    if fix.schema:
        text = _merge_schema(text, fix.schema)
    if fix.context:
        text = _merge_context(text, fix.context)
    return text


def _strip_layer_zero(text: str) -> str:
    out, pos = [], 0
    for m in LAYER_ZERO_RE.finditer(text):
        end = m.end()
        while end < len(text) and text[end] in " \t":
            end += 1
        if end < len(text) and text[end] == "\n":
            end += 1
        out.append(text[pos:m.start()])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _append(text: str, piece: str) -> str:
    return f"{text.rstrip()}\n{piece}" if text.strip() else piece


def _merge_list(text: str, tag: str, values: tuple[str, ...]) -> str:
    m = re.search(_LIST_TAG.format(tag), text, re.DOTALL)
    if m is None:
        return _append(text, f"<{tag}>{json.dumps(list(dict.fromkeys(values)), ensure_ascii=False)}</{tag}>")
    try:
        current = json.loads(m.group(1))
    except json.JSONDecodeError:
        current = None
    if not isinstance(current, list):
        raise FixError(f"the existing <{tag}> does not hold a JSON list; fix it first (see LZ104)")
    merged = list(dict.fromkeys([*current, *values]))
    return text[:m.start(1)] + json.dumps(merged, ensure_ascii=False) + text[m.end(1):]


def _merge_schema(text: str, props: tuple[tuple[str, str], ...]) -> str:
    m = re.search(_LIST_TAG.format("output_format"), text, re.DOTALL)
    if m is None:
        schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    else:
        try:
            schema = json.loads(m.group(1))
        except json.JSONDecodeError:
            schema = None  # type: ignore[assignment]
        if not isinstance(schema, dict) or not isinstance(schema.setdefault("properties", {}), dict):
            raise FixError("the existing <output_format> is not a JSON object schema; add the property by hand")
    for name, body in props:
        schema["properties"][name] = json.loads(body)
        required = schema.setdefault("required", [])
        if isinstance(required, list) and name not in required:
            required.append(name)
    body = json.dumps(schema, ensure_ascii=False)
    if m is None:
        return _append(text, f"<output_format>{body}</output_format>")
    return text[:m.start(1)] + body + text[m.end(1):]


def _merge_context(text: str, fragments: tuple[str, ...]) -> str:
    closing = text.rfind("</context>")
    if closing < 0 or text.rfind("<context>", 0, closing) < 0:
        return _append(text, "<context>" + "".join(fragments) + "</context>")
    inner_start = text.rfind("<context>", 0, closing) + len("<context>")
    new = [f for f in fragments if f not in text[inner_start:closing]]
    return text[:closing] + "".join(new) + text[closing:]


def _dialect(conv: Conversation, doc: Any) -> str:
    if conv.format != "http":
        return conv.format
    target = conv.http_request_line.split()[1] if len(conv.http_request_line.split()) > 1 else ""
    if target.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
        return "openai"
    return detect_format(json.dumps(doc))


def _with_system(conv: Conversation, doc: Any, system: str) -> Any:
    """``doc`` with a system prompt ``system`` added in the dialect's own way."""
    dialect = _dialect(conv, doc)
    if dialect == "anthropic" and isinstance(doc, dict):
        return {"system": system, **doc} if "model" not in doc else _insert_after(doc, "model", "system", system)
    if dialect == "openai":
        message = {"role": "system", "content": system}
        if isinstance(doc, list):
            return [message, *doc]
        return {**doc, "messages": [message, *doc["messages"]]}
    if dialect == "sharegpt":
        return {**doc, "conversations": [{"from": "system", "value": system}, *doc["conversations"]]}
    raise FixError(f"cannot add a system prompt to {conv.format} input")


def _insert_after(doc: dict, after: str, key: str, value: Any) -> dict:
    out: dict = {}
    for k, v in doc.items():
        out[k] = v
        if k == after:
            out[key] = value
    return out


def _reload(conv: Conversation, doc: Any) -> Conversation:
    text = dump_text(conv, doc)
    fmt = conv.format
    new = load_conversation(text.encode("utf-8", "surrogatepass"), fmt, name=conv.source_name)
    return replace(new, jsonl_line=conv.jsonl_line, jsonl_lines=conv.jsonl_lines)
