"""Gate checks on a pruning result: did a protected fact get lost, did pruning go past a limit?

Two checks, named as ``prune --fail-on`` names them:

``protected_loss`` — any of
  * ``protected_pruned``: a pruned run of tokens under a *fact* protection (:data:`FACT_PROTECTIONS`: numbers,
    identifiers, protected patterns, user facts, quotes, code, markup, schema, context).  The design allows one
    exception, a repeated constraint whose kept first copy carries the same values; such a run is not reported
    when its text (NFKC) still appears in the pruned conversation.  Negations and connectives are words that a
    whole phrase may take with it ("如果可以的话" is filler), so they count only through the engine's own rules.
  * ``fact_missing``: a number or identifier string (``4.2%``, ``SKU-12345``, ``#12345``, an e-mail, a URL)
    of the input that appears nowhere in the pruned text.  This is an *independent* check: its own patterns
    (:data:`FACT`), applied to the text before and after, with no use of the engine's protections.  "Before" is
    the text at ratio 0 — the input minus engine directives, whose own numbers (``prune_ratio="0.35"``) are
    meant to go.
``over_ratio`` — ``tokens_pruned / tokens_total > max_ratio``.  Selection never exceeds the budget
  ⌊ratio · total⌋, so this trips only when the *effective* ratio (from ``--ratio``, the environment, a header
  or a directive inside the prompt) allows more than ``max_ratio`` and there is that much to prune.

>>> from layerzero_viz import annotate
>>> result = annotate("Please check order #12345, thanks!", env={}).at_ratio(0.5)
>>> protected_loss(result)
[]
>>> sorted(facts("Fee for SKU-12345 is 4.2% (see https://x.io/a)."))
['4.2%', 'SKU-12345', 'https://x.io/a']
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CHECKS", "FACT", "FACT_PROTECTIONS", "GateFinding", "facts", "protected_loss", "over_ratio",
           "run_checks"]

CHECKS = ("protected_loss", "over_ratio")

# Longest alternatives first; ASCII classes so an identifier never swallows the CJK text around it.
FACT = re.compile(
    r"https?://[^\s<>\"'，。、；）)\]]+"                       # URLs
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"                          # e-mail addresses
    r"|#\d[\w-]*"                                             # #12345
    r"|[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*[-_]?\d[\w-]*"  # SKU-12345, v2, ABC123
    r"|[¥$€£￥]?\d+(?:[.,:/-]\d+)*(?:%|％)?",                 # 4.2%, 12,000, 10:30, 2024-05-01, ¥300
    re.ASCII,
)
_URL_TAIL = ".,;:!?"
FACT_PROTECTIONS = frozenset({
    "protected_xml", "protected_schema", "protected_context", "protected_material", "protected_code",
    "protected_pattern", "protected_identifier", "protected_number", "protected_quote", "protected_user_fact",
})


@dataclass(frozen=True)
class GateFinding:
    """One problem found by a check, located at a message and a character of that message's original text.

    ``check`` is the gate name (``protected_loss`` / ``over_ratio``), ``kind`` what exactly tripped it
    (``protected_pruned``, ``fact_missing``, ``over_ratio``).  ``message`` is the message key (``"system"`` or
    its index) and ``char`` a 0-based offset into :attr:`MessageResult.original`; both are None for findings
    about the whole conversation.
    """

    check: str
    kind: str
    message: Any
    char: int | None
    text: str
    detail: str

    def ci_line(self, file: str) -> str:
        """``file:message:char: check: kind: detail`` — one line, as CI log parsers expect.

        >>> GateFinding("protected_loss", "fact_missing", 2, 40, "4.2%", "'4.2%' is missing").ci_line("a.json")
        "a.json:2:40: protected_loss: fact_missing: '4.2%' is missing"
        """
        where = file if self.message is None else f"{file}:{self.message}:{self.char if self.char is not None else 0}"
        detail = self.detail.replace("\r", " ").replace("\n", " ")
        kind = "" if self.kind == self.check else f" {self.kind}:"
        return f"{where}: {self.check}:{kind} {detail}"

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "kind": self.kind, "message": self.message, "char": self.char,
                "text": self.text, "detail": self.detail}


def facts(text: str) -> set[str]:
    """The number and identifier strings in ``text`` (see :data:`FACT`), after NFKC (full-width digits count).

    >>> sorted(facts("字数控制在３００字以内"))
    ['300']
    """
    found = set()
    for m in FACT.finditer(unicodedata.normalize("NFKC", text)):
        value = m.group(0)
        if value.startswith("http"):
            value = value.rstrip(_URL_TAIL)
        found.add(value)
    return found


def protected_loss(result, reference=None) -> list[GateFinding]:
    """Findings of the ``protected_loss`` check on a :class:`PruneResult` (empty when nothing was lost).

    ``reference`` is the same annotation at ratio 0 (computed when not given).
    """
    return _protected_pruned(result) + _facts_missing(result, reference or result.annotated.at_ratio(0.0))


def over_ratio(result, max_ratio: float) -> list[GateFinding]:
    """A finding when ``tokens_pruned / tokens_total`` exceeds ``max_ratio``."""
    if result.pruned_fraction <= max_ratio:
        return []
    detail = (f"pruned {result.pruned_fraction:.1%} of {result.tokens_total} tokens, more than the limit "
              f"{max_ratio:g} (effective ratio {result.ratio:g} from {result.ratio_source})")
    return [GateFinding("over_ratio", "over_ratio", None, None, "", detail)]


def run_checks(result, checks, *, max_ratio: float) -> list[GateFinding]:
    """The findings of every check named in ``checks`` (a subset of :data:`CHECKS`), in that order."""
    out: list[GateFinding] = []
    for name in checks:
        if name == "protected_loss":
            out += protected_loss(result)
        elif name == "over_ratio":
            out += over_ratio(result, max_ratio)
        else:
            raise ValueError(f"unknown check {name!r}; choose from {', '.join(CHECKS)}")
    return out


def _block_offsets(annotated) -> list[int]:
    """Per view block: where its text starts inside its message's text (blocks are joined with a blank line)."""
    offsets, last_msg, pos = [], None, 0
    for b in annotated.view.blocks:
        if b.msg_pos != last_msg:
            last_msg, pos = b.msg_pos, 0
        offsets.append(pos)
        pos += (b.end - b.start) + 2
    return offsets


def _protected_pruned(result) -> list[GateFinding]:
    from .protect import PRECEDENCE

    a = result.annotated
    if not len(a.tok_ids):
        return []
    prot = a.g_prot[a.tok_group]
    codes = [k + 1 for k, name in enumerate(PRECEDENCE) if name in FACT_PROTECTIONS]
    mask = result.token_prune & ~a.tok_directive & np.isin(prot, codes)
    if not mask.any():
        return []
    offsets = _block_offsets(a)
    kept_text = unicodedata.normalize("NFKC", "\n".join(m.pruned for m in result.messages))
    out: list[GateFinding] = []
    idx = np.flatnonzero(mask)
    # runs of consecutive tokens inside one block
    breaks = np.flatnonzero((np.diff(idx) != 1) | (np.diff(a.tok_block[idx]) != 0)) + 1
    for run in np.split(idx, breaks):
        first, last = int(run[0]), int(run[-1])
        k = int(a.tok_block[first])
        b = a.view.blocks[k]
        text = a.view.text[int(a.tok_start[first]):int(a.tok_end[last])]
        span = a.spans[int(a.g_span[a.tok_group[first]])]
        if span.reason == "repeated_constraint" and unicodedata.normalize("NFKC", text.strip()) in kept_text:
            continue  # the kept first copy still carries it: the design's one exception
        protection = PRECEDENCE[int(prot[first]) - 1]
        detail = f"{text!r} is {protection} but was pruned as {span.reason} ({span.detail})"
        out.append(GateFinding("protected_loss", "protected_pruned", b.message,
                           offsets[k] + int(a.tok_start[first]) - b.start, text, detail))
    return out


def _facts_missing(result, reference) -> list[GateFinding]:
    kept = set().union(*(facts(m.pruned) for m in result.messages)) if result.messages else set()
    out: list[GateFinding] = []
    seen: set[str] = set()
    for before in reference.messages:
        original = unicodedata.normalize("NFKC", before.original)  # CJK and ASCII keep their offsets
        for value in sorted(facts(before.pruned) - kept - seen, key=original.find):
            seen.add(value)
            char = original.find(value)
            out.append(GateFinding("protected_loss", "fact_missing", before.message, max(char, 0), value,
                               f"{value!r} is in the input but nowhere in the pruned text"))
    return out
