"""Named exceptions of layerzero_viz.

    LayerZeroError                 base of everything the library raises on purpose
     ├── InputError                the conversation could not be read (has .location)
     ├── DirectiveError            a <layer-zero/> directive, env var or header is malformed / out of range
     ├── PatternError              a <protected_tokens> regex is invalid or unsupported by RE2
     └── ShareLinkError            a debug link could not be decoded or found

Every message says where (file, line/column, JSON path) and how to fix it.
"""
from __future__ import annotations

__all__ = ["LayerZeroError", "InputError", "DirectiveError", "PatternError", "ShareLinkError"]


class LayerZeroError(Exception):
    """Base class for errors raised on purpose by layerzero_viz."""


class InputError(LayerZeroError, ValueError):
    """The input could not be read as a conversation.

    ``location`` is a human string such as ``"chat.json:3:14"`` (file:line:column) or
    ``"chat.json: messages[3].content[1].text"`` (JSON path); ``hint`` says how to fix it.
    """

    def __init__(self, message: str, *, location: str = "", hint: str = "") -> None:
        self.message = message
        self.location = location
        self.hint = hint
        text = f"{location}: {message}" if location else message
        if hint:
            text = f"{text} ({hint})"
        super().__init__(text)


class DirectiveError(LayerZeroError, ValueError):
    """A pruning setting is malformed or out of range; the message quotes the offending text."""


class PatternError(LayerZeroError, ValueError):
    """A <protected_tokens> pattern cannot be compiled by the linear-time engine (RE2)."""


class ShareLinkError(LayerZeroError, ValueError):
    """A debug link is too large, corrupt, of an unknown version, or points to an unknown id."""
