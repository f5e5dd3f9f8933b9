"""LZ190–LZ191: redundancy an author can remove or name — repeated constraints, undeclared fillers."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Iterator

from ...lexicon import entries
from ...protect import find_protections, xml_protections
from ...result import reconstruct
from ...rules import RuleContext, filler, repeated
from ...scans import scan
from ..edits import Fix, Replace
from ..findings import Finding, LintDoc

__all__ = ["check_duplicates", "check_fillers"]


_NUMBERS = re.compile(r"\d+(?:[.,]\d+)*")
_IDS = re.compile(r"[A-Za-z]+[-_#]?\d[\w-]*|#\d+")


@lru_cache(maxsize=1)
def _negations() -> tuple[str, ...]:
    return tuple(entries("negations.zh")) + tuple(w.lower() for w in entries("negations.en"))


def _carried(copy: str, first: str) -> bool:
    """True when every number, identifier and negation of ``copy`` is also in ``first``."""
    lf = first.lower()
    for rx in (_NUMBERS, _IDS):
        for v in rx.findall(copy):
            if copy.count(v) > first.count(v):
                return False
    lc = copy.lower()
    return all(lc.count(n) <= lf.count(n) for n in _negations() if n in lc)


def _tidy_removal(doc: LintDoc, s: int, e: int) -> Replace:
    """The smallest replacement that removes [s, e) and tidies punctuation the way pruning does."""
    b = doc.view.block_at(s)
    old = doc.text(b)
    new = reconstruct(old, [(s - b.start, e - b.start)])
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
        q += 1
    return Replace(b.message, b.block, p, len(old) - q, old[p:len(old) - q], new[p:len(new) - q])


def _rule_context(doc: LintDoc) -> RuleContext | None:
    if doc.settings is None:
        return None
    s = doc.settings
    structure = xml_protections(doc.view)
    scans = scan(doc.view, structure)
    return RuleContext(settings=s, scans=scans,
                       protection=find_protections(doc.view, scans, structure, s.compiled_patterns, s.protected_patterns))


_CONSTRAINT = re.compile(
    r"不要|不得|不能|禁止|必须|务必|一律|只能|只用|请用|控制在|保留|使用|回答|回复|输出|注明|保持|避免|别"
    r"|(?i:\b(?:must|never|always|do\s+not|don['’]t|keep|use|answer|reply|respond|avoid|only|should|round|write"
    r"|include|limit|stay)\b)")
_AUTHORED = ("system", "developer", "user")


def check_duplicates(doc: LintDoc) -> Iterator[Finding]:
    ctx = _rule_context(doc)
    if ctx is None:
        return
    text = doc.view.text
    fillers = doc.view.lexicon_hits["filler.zh"] + doc.view.lexicon_hits["filler.en"]
    runs: list[list] = []  # adjacent clause copies of one first statement are one finding
    for c in sorted(repeated.find(doc.view, ctx).candidates(), key=lambda c: c.start):
        if c.lock is None or doc.view.block_at(c.start).role not in _AUTHORED \
                or doc.view.block_at(c.lock[0]).role not in _AUTHORED:
            continue
        first, copy = text[c.lock[0]:c.lock[1]], text[c.start:c.end]
        if doc.skipped(c.start, c.end) or doc.skipped(*c.lock) or not _CONSTRAINT.search(first) \
                or not _carried(copy, first) or _mostly(fillers, c.start, c.end):
            continue
        last = runs[-1] if runs else None
        if last and last[2] == c.lock and not text[last[1]:c.start].strip() \
                and doc.view.block_at(last[0]) == doc.view.block_at(c.start):
            last[1] = c.end
        else:
            runs.append([c.start, c.end, c.lock])
    for s, e, lock in runs:
        first, copy = text[lock[0]:lock[1]], text[s:e]
        yield doc.finding(
            "LZ190", s, e,
            f"{copy.strip()!r} repeats {first.strip()[:60]!r} ({doc.where(lock[0])}): the copy costs tokens and "
            "the two may drift apart when one is edited",
            "delete the copy; the first statement stays",
            Fix("Delete the repeated copy", (_tidy_removal(doc, s, e),)))


def _mostly(ranges: list[tuple[int, int]], s: int, e: int) -> bool:
    """True when ``ranges`` cover at least half of the visible characters of [s, e)."""
    covered = sum(max(0, min(e, re_) - max(s, rs)) for rs, re_ in ranges)
    return covered * 2 >= e - s


_EDGE_PUNCT = " \t\n，,。.！!？?；;：:、"


def check_fillers(doc: LintDoc) -> Iterator[Finding]:
    ctx = _rule_context(doc)
    if ctx is None:
        return
    declared = {p.lower() for p in ctx.settings.redundant_phrases}
    phrases: dict[str, int] = {}
    first = None
    for c in filler.find(doc.view, ctx).candidates():
        if "politeness" not in c.detail:
            continue
        # a filler candidate may be a whole clause or sentence with its punctuation: name the words
        phrase = doc.view.text[c.start:c.end].strip(_EDGE_PUNCT)
        if not phrase or phrase.lower() in declared or doc.skipped(c.start, c.end):
            continue
        phrases[phrase] = phrases.get(phrase, 0) + 1
        first = c if first is None or c.start < first.start else first
    if not phrases:
        return
    ordered = tuple(sorted(phrases, key=lambda p: (-phrases[p], p)))
    body = json.dumps(list(ordered), ensure_ascii=False)
    yield doc.finding(
        "LZ191", first.start, first.end,
        f"{len(ordered)} filler phrases ({', '.join(ordered[:6])}) that no <redundant_phrases> names: declared "
        "phrases are pruned first and on purpose, instead of by a lexicon guess",
        f"declare them: <redundant_phrases>{body}</redundant_phrases>",
        Fix("Declare the fillers in <redundant_phrases>", redundant_phrases=ordered))
