"""Plain data shared by every part of the engine: the loaded conversation.

A :class:`Conversation` keeps the parsed document it came from (``raw``) and, for every text block,
the JSON path of the string inside it.  Dumping a pruned conversation is then format-agnostic:
deep-copy ``raw`` and write each pruned text back at its path (see ``formats.dump_conversation``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

__all__ = ["MessageKey", "PathPart", "Block", "Message", "Conversation", "format_path"]

MessageKey = Union[str, int]  # "system" for the Anthropic top-level system prompt, else index in the message list
PathPart = Union[str, int]


def format_path(path: tuple[PathPart, ...]) -> str:
    """Render a JSON path the way users read it.

    >>> format_path(("messages", 3, "content", 1, "text"))
    'messages[3].content[1].text'
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "$"


@dataclass(frozen=True)
class Block:
    """One content block of a message.

    ``kind`` is ``"text"`` (pruned) or ``"opaque"`` (image, document, tool_use … passed through untouched).
    ``path`` locates the text string inside ``Conversation.raw`` (empty tuple when raw *is* the string).
    """

    index: int
    kind: str
    text: str
    path: tuple[PathPart, ...]
    type: str = "text"  # the block's own type name, e.g. "text", "image", "tool_use"


@dataclass(frozen=True)
class Message:
    """A message: ``key`` is ``"system"`` or the 0-based index in the input's message list."""

    key: MessageKey
    role: str
    blocks: tuple[Block, ...]

    @property
    def text(self) -> str:
        """The message's text blocks joined with a blank line (how the CLI shows ``original``)."""
        return "\n\n".join(b.text for b in self.blocks if b.kind == "text")


@dataclass(frozen=True)
class Conversation:
    """A conversation as loaded, in input order; the system prompt (if any) first.

    ``format`` is one of ``anthropic``, ``openai``, ``sharegpt``, ``http``, ``text``; ``jsonl_line`` is the
    1-based line when it came from a JSONL file (``jsonl_lines`` lines in all), else None.
    """

    format: str
    messages: tuple[Message, ...]
    raw: Any
    headers: Mapping[str, str] = field(default_factory=dict)
    source_name: str = "<input>"
    jsonl_line: int | None = None
    jsonl_lines: int | None = None
    http_request_line: str = ""  # the request line of a raw HTTP capture, kept for dumping

    @property
    def system(self) -> Message | None:
        """The system prompt: Anthropic's ``system`` or the first system/developer message."""
        for m in self.messages:
            if m.role in ("system", "developer"):
                return m
            break
        return None
