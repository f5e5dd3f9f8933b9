"""What a fix changes: the original and the fixed conversation compared message by message, as plain data.

Messages are aligned by their role and text (so a system prompt a fix adds shows as one added message, not as
every later message shifted); within a pair of messages the texts are compared by pieces — words of Latin
letters and digits, runs of spaces, any other single character (so Chinese is compared character by
character).  :func:`diff_html` draws one side with deletions or insertions marked; user text is escaped.

>>> from layerzero_viz import load_conversation
>>> a = load_conversation('{"messages": [{"role": "user", "content": "Please be concise."}]}')
>>> b = load_conversation('{"messages": [{"role": "user", "content": "Be concise."}]}')
>>> [(d.label, d.before, d.after) for d in conversation_diff(a, b)]
[('#0 user', 'Please be concise.', 'Be concise.')]
>>> diff_html(conversation_diff(a, b)[0], "after")
'<div class="lz-diff"><ins>Be</ins> concise.</div>'
"""
from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass
from typing import Literal

from ..model import Conversation
from ..render import message_label

__all__ = ["DIFF_CSS", "MessageDiff", "conversation_diff", "diff_html"]

DIFF_CSS = (
    "<style>.lz-diff { white-space: pre-wrap; word-break: break-word; line-height: 1.7; font-size: 0.9em; "
    "font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }"
    ".lz-diff del { background: rgba(213, 94, 0, 0.22); text-decoration: line-through; color: currentColor; }"
    ".lz-diff ins { background: rgba(0, 158, 115, 0.25); text-decoration: none; color: currentColor; }"
    ".lz-diff .lz-gap { opacity: 0.6; font-style: italic; }</style>"
)
_PIECES = re.compile(r"[A-Za-z0-9_]+|\s+|.", re.DOTALL)
_CONTEXT = 120  # characters of unchanged text kept on each side of a change; longer runs are elided


@dataclass(frozen=True)
class MessageDiff:
    """One changed message: its label and texts (``before`` None: added by the fix; ``after`` None: removed)."""

    label: str
    before: str | None
    after: str | None

    @property
    def opcodes(self) -> list[tuple[str, int, int, int, int]]:
        """``difflib`` opcodes over the pieces of ``before`` and ``after``."""
        a, b = _PIECES.findall(self.before or ""), _PIECES.findall(self.after or "")
        return difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def conversation_diff(before: Conversation, after: Conversation) -> list[MessageDiff]:
    """The messages a fix changed, added or removed, in reading order (unchanged ones left out)."""
    old = [(m.role, m.text) for m in before.messages]
    new = [(m.role, m.text) for m in after.messages]
    out: list[MessageDiff] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        pairs = max(i2 - i1, j2 - j1)
        for k in range(pairs):
            a = before.messages[i1 + k] if i1 + k < i2 else None
            b = after.messages[j1 + k] if j1 + k < j2 else None
            shown = b if b is not None else a
            assert shown is not None
            out.append(MessageDiff(message_label(shown.key, shown.role), a.text if a else None, b.text if b else None))
    return out


def _elide(text: str, *, head: bool, tail: bool) -> str:
    """An unchanged run, shortened to its ends that touch a change."""
    if len(text) <= 2 * _CONTEXT + 20:
        return html.escape(text)
    left = text[:_CONTEXT] if head else ""
    right = text[-_CONTEXT:] if tail else ""
    gap = f'<span class="lz-gap">… {len(text) - len(left) - len(right):,} unchanged characters …</span>'
    return html.escape(left) + gap + html.escape(right)


def diff_html(diff: MessageDiff, side: Literal["before", "after"]) -> str:
    """One side of ``diff`` as escaped HTML: ``<del>`` marks what the fix removes, ``<ins>`` what it adds."""
    text = diff.before if side == "before" else diff.after
    if text is None:
        what = "added by the fix" if side == "before" else "removed by the fix"
        return f'<div class="lz-diff"><span class="lz-gap">(no such message: {what})</span></div>'
    pieces = _PIECES.findall(text)
    codes = diff.opcodes
    parts: list[str] = []
    for n, (tag, i1, i2, j1, j2) in enumerate(codes):
        lo, hi = (i1, i2) if side == "before" else (j1, j2)
        chunk = "".join(pieces[lo:hi])
        if not chunk:
            continue
        if tag == "equal":
            parts.append(_elide(chunk, head=n > 0, tail=n < len(codes) - 1))
        elif side == "before":
            parts.append(f"<del>{html.escape(chunk)}</del>")
        else:
            parts.append(f"<ins>{html.escape(chunk)}</ins>")
    return f'<div class="lz-diff">{"".join(parts)}</div>'
