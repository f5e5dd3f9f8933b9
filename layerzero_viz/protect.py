"""Protections: character ranges that are never pruned, each with a keep reason and a detail.

Order in ``PRECEDENCE`` decides which reason a token shows when several protections cover it.
Structural protections (XML, schema, context, code) can never be overridden; value protections
(numbers, identifiers, patterns, quotes, user facts, negations, connectives) only by a repeat whose kept
first copy carries the same values (see ``rules.repeated``).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass

from .structure import context_facts, elements, scan_tags
from .view import Interval, TextView, clauses

__all__ = ["PRECEDENCE", "STRUCTURAL", "VERBATIM_ELEMENTS", "Protection", "find_protections"]

PRECEDENCE = (
    "protected_xml", "protected_schema", "protected_context", "protected_code", "protected_pattern",
    "protected_identifier", "protected_number", "protected_quote", "protected_user_fact",
    "protected_negation", "protected_connective",
)
STRUCTURAL = frozenset({"protected_xml", "protected_schema", "protected_context", "protected_code"})

# elements whose content is material for the model to work on (an essay to grade, a document to summarise)
VERBATIM_ELEMENTS = frozenset({
    "essay", "document", "documents", "quote", "example", "examples", "input", "text", "article", "source",
    "transcript", "data", "json", "yaml", "sql", "code", "snippet", "email", "letter", "passage", "excerpt",
})
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.DOTALL)
_QUOTE = re.compile(r"“[^“”\n]{1,200}”|「[^「」\n]{1,200}」|『[^『』\n]{1,200}』|《[^《》\n]{1,100}》|\"[^\"\n]{1,200}\"")
# identifiers kept whole; each pattern has a cheap substring guard so texts without one skip the scan
_IDENTIFIERS = (
    ("://", re.compile(r"https?://[^\s<>\"'，。）)]+", re.ASCII)),                                   # URLs
    ("@", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.ASCII)),                                  # e-mail
    ("/", re.compile(r"(?<![\w/:])(?:~|\.{1,2})?/(?:[\w.\-]+/)*[\w.\-]+", re.ASCII)),               # POSIX paths
    (":\\", re.compile(r"[A-Za-z]:\\(?:[\w.\-]+\\?)+", re.ASCII)),                                 # Windows paths
    ("#", re.compile(r"#\d[\w-]*", re.ASCII)),                                                    # #12345
    ("", re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*[-_]?\d[\w-]*", re.ASCII)),          # SKU-12345, v2
    ("_", re.compile(r"\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b", re.ASCII)),                            # snake_case names
    ("{", re.compile(r"\{\{?\s*[\w.]+\s*\}?\}")),                                        # {placeholder}
    ("[", re.compile(r"\[[A-Z_]{2,}\]", re.ASCII)),                                                # [PLACEHOLDER]
)
_NUMBER = re.compile(
    r"[¥$€£￥]\s?\d[\d,，]*(?:\.\d+)?(?:[万亿千百kKmMbB])?"
    r"|\d+(?:[.,:/\-]\d+)*(?:\s?%|％|‰|[年月日号时点分秒天周岁元块万亿倍个位次条件项级]|[a-zA-Z]{1,3}\b)?"
    # Chinese numerals with a measure word; 一个/十分/一点 are articles and adverbs, not numbers
    r"|[零〇一二两三四五六七八九十百千万亿半]+(?:[年日号天周岁元块倍位次条件项级成折]|个月|个工作日|小时|分钟|秒钟|月份?"
    r"|分之[零〇一二两三四五六七八九十百千]+)"
)
_USER_FACT_ZH = re.compile(
    r"(?:我|本人)(?:们)?(?:是|有|在|住在|姓|叫|今年|已经|刚刚|刚|的|买了|购买了|办理了|办了|开了|绑定了|持有|目前|现在是|属于)"
)
_USER_FACT_EN = re.compile(
    r"\b(?:I\s+am|I['’]m|I\s+have|I['’]ve|I\s+own|I\s+live|I\s+work|I\s+bought|I\s+ordered|I\s+paid|I\s+was\s+born"
    r"|I\s+use|I\s+run|my\s+(?:name|account|order|email|phone|address|plan|membership|subscription|id|number|"
    r"company|team|budget|age|salary|income|policy|card|car|house|flight|booking|reservation|level|status|tier))\b"
    r"(?!\s+(?:wondering|hoping|writing|looking|asking|just|sorry|afraid|glad|happy|curious|trying))",
    re.IGNORECASE | re.ASCII,
)


@dataclass(frozen=True)
class Protection:
    """The protections of a conversation and the time spent on ``<context>`` (ms)."""

    intervals: list[Interval]
    context_ms: float
    context_facts: list[tuple[int, str, str]]  # (global start of the <context>, tag, text)
    context_ranges: list[tuple[int, int]]


def find_protections(view: TextView, patterns: tuple = (), pattern_sources: tuple[str, ...] = ()) -> Protection:
    """Every protected range of the conversation (global offsets), with the ``<context>`` timing."""
    text = view.text
    out: list[Interval] = []
    add = out.append
    context_ms = 0.0
    facts: list[tuple[int, str, str]] = []
    context_ranges: list[tuple[int, int]] = []

    for b in view.blocks:
        seg = text[b.start:b.end]
        tags = scan_tags(seg)
        for t in tags:
            add(Interval(b.start + t.start, b.start + t.end, "protected_xml", f"XML markup <{'/' if t.closing else ''}{t.name}>"))
        if not tags:
            continue
        has_context = any(t.name == "context" for t in tags)
        t0 = time.perf_counter() if has_context else 0.0
        for el in elements(tags):
            if el.name == "output_format":
                add(Interval(b.start + el.outer_start, b.start + el.outer_end, "protected_schema",
                             "inside <output_format>: the output schema is kept verbatim"))
            elif el.name.lower() in VERBATIM_ELEMENTS:
                add(Interval(b.start + el.inner_start, b.start + el.inner_end, "protected_quote",
                             f"inside <{el.name}>: material given to the model to work on is kept verbatim"))
            elif el.name == "context":
                add(Interval(b.start + el.outer_start, b.start + el.outer_end, "protected_context",
                             "inside <context>: supplied facts are kept verbatim"))
                context_ranges.append((b.start + el.outer_start, b.start + el.outer_end))
                for tag, value in context_facts(seg[el.inner_start:el.inner_end]):
                    facts.append((b.start + el.outer_start, tag, value))
        if has_context:
            context_ms += (time.perf_counter() - t0) * 1000.0

    scans = [(_CODE, "protected_code", "code is kept verbatim"),
             (_QUOTE, "protected_quote", "quoted text is kept verbatim"),
             (_NUMBER, "protected_number", "number, amount, date or measure")]
    scans += [(rx, "protected_identifier", "identifier kept whole") for guard, rx in _IDENTIFIERS if guard in text]
    for rx, reason, detail in scans:
        for mt in rx.finditer(text):
            add(Interval(mt.start(), mt.end(), reason, f"{detail}: {mt.group(0)[:60]!r}"))

    for rx, source in zip(patterns, pattern_sources):
        for mt in rx.finditer(text):
            if mt.end() > mt.start():
                add(Interval(mt.start(), mt.end(), "protected_pattern", f"matches <protected_tokens> pattern {source!r}"))

    hits = view.lexicon_hits
    for name, reason, label in (
        ("negations.zh", "protected_negation", "negation"), ("negations.en", "protected_negation", "negation"),
        ("connectives.zh", "protected_connective", "connective"),
        ("connectives.en", "protected_connective", "connective"),
        ("number_words", "protected_number", "number word"),
    ):
        for s, e in hits[name]:
            add(Interval(s, e, reason, f"{label} {text[s:e]!r}" + (" carries the logic" if label != "number word" else "")))

    for b in view.blocks:
        if b.role not in ("user", "human"):
            continue
        for rx in (_USER_FACT_ZH, _USER_FACT_EN):
            for mt in rx.finditer(text, b.start, b.end):
                end = _clause_end(view, mt.start(), b.end)
                add(Interval(mt.start(), end, "protected_user_fact",
                             f"a fact the user states about themself: {text[mt.start():end][:60]!r}"))
    return Protection(out, context_ms, facts, context_ranges)


def _clause_end(view: TextView, start: int, limit: int) -> int:
    parts = clauses(view, start, limit)
    return parts[0][1] if parts else limit
