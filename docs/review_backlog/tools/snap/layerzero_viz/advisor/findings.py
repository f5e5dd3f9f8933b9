"""What a lint finding is, the table of codes, and the document every check reads.

``LintDoc`` wraps a conversation for the checks in ``advisor/checks/``: the text view every rule reads, the
settings (None when a directive is malformed), the prompt blocks, the ranges that are not prose, and helpers
that turn global character offsets into a finding's location or a fix's replacement.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..directives import LAYER_ZERO_RE, Settings, resolve_settings
from ..errors import LayerZeroError
from ..model import Conversation, MessageKey
from ..protect import VERBATIM_ELEMENTS
from ..structure import elements, scan_tags
from ..view import BlockRef, TextView
from . import edits
from .edits import Fix, Replace
from .profiles import Profile

__all__ = ["SEVERITIES", "SEVERITY_RANK", "Check", "CHECKS", "Finding", "has_errors", "LintDoc", "line_span",
           "CJK", "LIST_TAG_RE"]

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Check:
    """One lint code: its short name, severity and what it is about."""

    code: str
    name: str
    severity: str
    title: str


CHECKS: dict[str, Check] = {c.code: c for c in (
    Check("LZ101", "directive-not-first-line", "error",
          "<layer-zero/> is not alone on the first line of the system prompt, so it is ignored"),
    Check("LZ102", "directive-malformed", "error", "<layer-zero/> is malformed or misspelt"),
    Check("LZ103", "directive-ratio-out-of-range", "error", "<layer-zero/> asks for a prune_ratio outside [0, 0.95]"),
    Check("LZ104", "directive-list-invalid", "error",
          "<protected_tokens> / <redundant_phrases> is not a JSON list of strings, or a pattern is not RE2"),
    Check("LZ105", "directive-list-not-in-system", "error",
          "<protected_tokens> / <redundant_phrases> outside the system prompt is not read"),
    Check("LZ110", "absolute-date", "warning", "an absolute date in the prompt instead of <context><date_anchor>"),
    Check("LZ120", "id-format-in-prose", "warning", "an ID format stated in prose instead of an <output_format> schema"),
    Check("LZ130", "regex-in-prose", "warning", "output parsed by a regex stated in prose instead of a JSON schema"),
    Check("LZ140", "vague-instruction", "warning", "a vague instruction that pruning can blur; use structured tags"),
    Check("LZ150", "values-unprotected", "warning",
          "numbers, percentages or money in user messages and no <protected_tokens>"),
    Check("LZ160", "business-rule-in-prose", "info", "a hard-coded business rule in the prompt; inject it as <context>"),
    Check("LZ170", "early-user-fact", "warning", "a long chat whose early user turn states a fact; re-inject it in <context>"),
    Check("LZ180", "ratio-above-domain", "warning", "the prune_ratio is above what the conversation's domain tolerates"),
    Check("LZ190", "duplicate-constraint", "info", "a constraint stated twice; the copy can go"),
    Check("LZ191", "undeclared-filler", "info", "filler phrases that <redundant_phrases> could name explicitly"),
)}
SEVERITY_RANK = {s: k for k, s in enumerate(SEVERITIES)}


@dataclass(frozen=True)
class Finding:
    """One predicted problem: code, severity, message, location and a suggested rewrite (maybe mechanical).

    ``message_key`` is the message's key (``"system"`` or its index), None for the conversation as a whole;
    ``start``/``end`` are character offsets in that message's ``Message.text``; ``excerpt`` is the text there.
    """

    code: str
    severity: str
    message: str
    message_key: MessageKey | None
    start: int
    end: int
    suggestion: str
    fix: Fix | None = field(default=None, compare=False)
    excerpt: str = ""

    @property
    def fix_available(self) -> bool:
        """True when :func:`apply_fix` can rewrite the conversation mechanically."""
        return self.fix is not None

    @property
    def name(self) -> str:
        return CHECKS[self.code].name

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the CLI prints."""
        return {
            "code": self.code, "name": self.name, "severity": self.severity, "message": self.message,
            "message_key": self.message_key, "start": self.start, "end": self.end, "excerpt": self.excerpt,
            "suggestion": self.suggestion, "fix_available": self.fix_available,
            "fix": self.fix.label if self.fix else None,
        }


def has_errors(findings: list[Finding]) -> bool:
    """True when any finding has severity ``error`` (the CLI then exits 1)."""
    return any(f.severity == "error" for f in findings)


# ---------------------------------------------------------------------------------------------- the document


CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.DOTALL)
LIST_TAG_RE = re.compile(r"<(protected_tokens|redundant_phrases)>(.*?)</\1>", re.DOTALL)
_SKIP_ELEMENTS = frozenset({"context", "output_format", "protected_tokens", "redundant_phrases"}) | VERBATIM_ELEMENTS


class LintDoc:
    """A conversation as the checks read it: the text view, settings and helpers to place findings."""

    def __init__(self, conv: Conversation, *, ratio: float | None, env: Mapping[str, str],
                 profile: Profile | None) -> None:
        self.conv = conv
        self.view = TextView.of(conv)
        self.profile = profile
        try:
            self.settings: Settings | None = resolve_settings(conv, ratio=ratio, env=env)
        except LayerZeroError:
            self.settings = None  # reported by the directive checks; checks that need settings skip
        self.skip = _skip_ranges(self.view)
        system = conv.system
        self.prompt = [b for b in self.view.blocks
                       if (system is not None and b.msg_pos == 0) or (system is None and conv.format == "text")]

    # -- text and places
    def text(self, b: BlockRef) -> str:
        return self.view.text[b.start:b.end]

    def skipped(self, s: int, e: int) -> bool:
        return any(rs <= s < re_ or rs < e <= re_ for rs, re_ in self.skip)

    def zh(self, b: BlockRef) -> bool:
        return bool(CJK.search(self.text(b)))

    def replace(self, s: int, e: int, new: str) -> Replace:
        b = self.view.block_at(s)
        return Replace(b.message, b.block, s - b.start, e - b.start, self.view.text[s:e], new)

    def finding(self, code: str, s: int | None, e: int | None, message: str, suggestion: str,
                fix: Fix | None = None, severity: str | None = None) -> Finding:
        severity = severity or CHECKS[code].severity
        if s is None or e is None:
            return Finding(code, severity, message, None, 0, 0, suggestion, fix)
        b = self.view.block_at(s)
        msg = self.conv.messages[b.msg_pos]
        ms = edits.message_offset(msg, b.block, s - b.start)
        return Finding(code, severity, message, b.message, ms, ms + (e - s), suggestion, fix,
                       excerpt=self.view.text[s:e])

    def where(self, s: int) -> str:
        b = self.view.block_at(s)
        return "the system prompt" if b.message == "system" or b.role in ("system", "developer") else \
            f"message {b.message} ({b.role})"


def _skip_ranges(view: TextView) -> list[tuple[int, int]]:
    """Global ranges that are not prose: engine tags, <context>, <output_format>, material, code."""
    out: list[tuple[int, int]] = []
    for b in view.blocks:
        seg = view.text[b.start:b.end]
        tags = scan_tags(seg)
        out += [(b.start + t.start, b.start + t.end) for t in tags]
        out += [(b.start + el.outer_start, b.start + el.outer_end) for el in elements(tags)
                if el.name.lower() in _SKIP_ELEMENTS]
        out += [(b.start + m.start(), b.start + m.end()) for m in _CODE.finditer(seg)]
        out += [(b.start + m.start(), b.start + m.end()) for m in LAYER_ZERO_RE.finditer(seg)]
    return out


def line_span(text: str, s: int, e: int) -> tuple[int, int]:
    """[s, e) widened to its whole line (with the newline) when nothing else is on that line."""
    ls = text.rfind("\n", 0, s) + 1
    le = text.find("\n", e)
    le = len(text) if le < 0 else le
    if text[ls:s].strip() == "" and text[e:le].strip() == "":
        return ls, min(le + 1, len(text))
    while e < len(text) and text[e] in " \t":
        e += 1
    return s, e

