"""Resolution: rules' candidates become atomic spans, protections veto, higher classes claim first.

``resolve`` turns the candidates (and the rules' column hits, ``view.Hits``) into the span table, the
group → span map and the vetoes, with what selection needs (``finish_python``); the compiled kernel
(``_native.resolve``) does it in one call when built, :func:`resolve_python` is the definition it is tested
against.  ``apply_protections`` marks each display group with its strongest protection first.
"""
from __future__ import annotations

import bisect
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, cast, overload

import numpy as np

from . import native as _native
from .information import token_information
from .protect import PRECEDENCE, STRUCTURAL, Protection
from .rules import PRIORITY
from .script import as_written
from .view import Candidate, Hits, normalize

if TYPE_CHECKING:
    from .view import TextView

__all__ = ["Span", "SpanTable", "apply_protections", "resolve", "resolve_python", "finish_python", "veto_reason"]

# what selection needs (``finish_python``): per token the directive flag, the directive token count, the
# information total, per span its information loss and token cost
Selection = tuple[np.ndarray, int, float, np.ndarray, np.ndarray]

_PROT_NAMES = ("",) + PRECEDENCE  # group codes: 0 = unprotected, k + 1 = PRECEDENCE[k]
_STRUCTURAL_CODES = frozenset(PRECEDENCE.index(n) + 1 for n in STRUCTURAL)


class Span(NamedTuple):
    """A prune candidate as resolved: its reason, score, human detail and token cost.

    A named tuple: a long prompt resolves tens of thousands, and tuples build several times faster than
    frozen dataclasses.
    """

    id: int
    reason: str
    score: float
    detail: str
    start: int
    end: int
    tokens: int
    residual: float  # share of its information lost if pruned (0 for an exact repeat)


class SpanTable(Sequence[Span]):
    """The resolved spans as columns; ``table[k]`` is a :class:`Span`, its detail built on first use.

    A long prompt resolves tens of thousands of spans, most from the lexicon rules; their details are only
    needed when tokens are shown, so a bulk span keeps just (bulk number, hit number) until then.
    """

    __slots__ = ("reasons", "priorities", "scores", "starts", "ends", "tokens", "residuals", "_details", "_bulks",
                 "_bulk_of", "_hit_of", "written")

    # the columns are lists while spans are added and tuples once frozen (:meth:`freeze`): readers see sequences
    reasons: Sequence[str]
    priorities: Sequence[int]
    scores: Sequence[float]
    starts: Sequence[int]
    ends: Sequence[int]
    tokens: Sequence[int]
    residuals: Sequence[float]
    _details: list[str | None]
    _bulks: Sequence[Hits]
    _bulk_of: Sequence[int]
    _hit_of: Sequence[int]

    def __init__(self) -> None:
        self.reasons = []
        self.priorities = []
        self.scores = []
        self.starts = []
        self.ends = []
        self.tokens = []
        self.residuals = []
        self._details = []  # None: a bulk span whose detail is not built yet
        self._bulks = []
        self._bulk_of = []         # per span: its bulk's number (-1 for a listed candidate)
        self._hit_of = []
        self.written: tuple[str, str] | None = None  # (text the rules read, text as written): see script.as_written

    def add(self, reason: str, score: float, detail: str, start: int, end: int, tokens: int, residual: float) -> None:
        cast("list[str]", self.reasons).append(reason)
        cast("list[int]", self.priorities).append(PRIORITY[reason])
        cast("list[float]", self.scores).append(round(float(score), 4))
        self._details.append(detail)
        cast("list[int]", self.starts).append(start)
        cast("list[int]", self.ends).append(end)
        cast("list[int]", self.tokens).append(tokens)
        cast("list[float]", self.residuals).append(residual)
        cast("list[int]", self._bulk_of).append(-1)
        cast("list[int]", self._hit_of).append(-1)

    @classmethod
    def of_columns(cls, columns: tuple[Any, ...]) -> "SpanTable":
        """A frozen table from its columns (what the resolve kernel builds): reasons, priorities, scores,
        starts, ends, tokens, residuals, details (None: not built yet), bulks, bulk of each span, hit of each."""
        table = cls.__new__(cls)
        (table.reasons, table.priorities, table.scores, table.starts, table.ends, table.tokens, table.residuals,
         table._details, table._bulks, table._bulk_of, table._hit_of) = columns
        table.written = None
        return table

    def freeze(self) -> "SpanTable":
        """Columns as tuples once every span is in (see ``Protection.freeze``); details stay a list, filled
        when first asked for."""
        self.reasons, self.priorities, self.scores = tuple(self.reasons), tuple(self.priorities), tuple(self.scores)
        self.starts, self.ends, self.tokens = tuple(self.starts), tuple(self.ends), tuple(self.tokens)
        self.residuals, self._bulk_of, self._hit_of = tuple(self.residuals), tuple(self._bulk_of), tuple(self._hit_of)
        self._bulks = tuple(self._bulks)
        return self

    def quote_as_written(self, read: str, shown: str) -> None:
        """Let every detail quote ``shown`` where the rules read ``read`` (``script.as_written``)."""
        self.written = (read, shown)
        self._details = [None if d is None else as_written(d, read, shown, self.starts[k])
                         for k, d in enumerate(self._details)]

    def detail(self, k: int) -> str:
        d = self._details[k]
        if d is None:
            d = self._bulks[self._bulk_of[k]].detail(self._hit_of[k])
            if self.written is not None:
                d = as_written(d, *self.written, self.starts[k])
            self._details[k] = d
        return d

    def __len__(self) -> int:
        return len(self.reasons)

    @overload
    def __getitem__(self, k: int) -> Span: ...

    @overload
    def __getitem__(self, k: slice) -> list[Span]: ...

    def __getitem__(self, k: int | slice) -> Span | list[Span]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return Span(k, self.reasons[k], self.scores[k], self.detail(k), self.starts[k], self.ends[k], self.tokens[k],
                    self.residuals[k])


def apply_protections(protection: Protection, g_start: np.ndarray, g_end: np.ndarray,
                      n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group: the code (+1) and index of the strongest protection range covering it."""
    kernel = _native.native
    if kernel is not None:  # it sets every group, covered or not
        g_prot = np.empty(n_groups, dtype=np.int8)
        g_iv = np.empty(n_groups, dtype=np.int64)
        kernel.apply_protections(protection.starts, protection.ends, protection.codes,
                                 np.ascontiguousarray(g_start, dtype=np.int64),
                                 np.ascontiguousarray(g_end, dtype=np.int64), g_prot, g_iv)
        return g_prot, g_iv
    g_prot = np.zeros(n_groups, dtype=np.int8)
    g_iv = np.full(n_groups, -1, dtype=np.int64)
    if not n_groups or not len(protection):
        return g_prot, g_iv
    first = np.searchsorted(g_end, np.asarray(protection.starts), "right").tolist()
    last = np.searchsorted(g_start, np.asarray(protection.ends), "left").tolist()
    codes = protection.codes
    # strongest reason last so it overwrites: apply in reverse precedence (stable within a reason)
    for k in sorted(range(len(codes)), key=codes.__getitem__, reverse=True):
        a, b = first[k], last[k]
        if a < b:
            g_prot[a:b] = codes[k] + 1
            g_iv[a:b] = k
    return g_prot, g_iv


_SENTENCE_LEVEL = ("repeated_constraint", "derivable_context")
_CODE_BIT = {name: 1 << (k + 1) for k, name in enumerate(PRECEDENCE)}
_STRUCTURAL_MASK = sum(_CODE_BIT[n] for n in STRUCTURAL)
_override_masks: dict[frozenset[str], int] = {}
_NEVER_OVERRIDDEN = frozenset({"protected_pattern"})  # the author declared it: absolute, whatever a rule asks


def _override_mask(names: frozenset[str]) -> int:
    """The protections a candidate may take, as bits; never a declared ``<protected_tokens>`` match."""
    mask = _override_masks.get(names)
    if mask is None:
        mask = _override_masks[names] = sum(_CODE_BIT[n] for n in names if n not in _NEVER_OVERRIDDEN)
    return mask


def resolve(view: TextView, candidates: list[Candidate], bulks: list[Hits], protection: Protection,
            g_start: np.ndarray, g_end: np.ndarray, g_tokens: np.ndarray, g_prot: np.ndarray, g_prot_iv: np.ndarray,
            g_directive: np.ndarray, ids: np.ndarray, group: np.ndarray
            ) -> tuple[np.ndarray, dict[int, str], SpanTable, Selection]:
    """Turn candidates into atomic spans: protections veto, higher classes claim first.

    The compiled kernel (``_native.resolve``) when built, else :func:`resolve_python` — the definition.
    ``bulks`` are rules' hits as columns (``view.Hits``); all are resolved by class, then position.  Returns
    the group → span and veto maps, the span table, and what selection needs (:func:`finish_python`; the
    kernel computes the same tuple in the same call).
    """
    kernel = _native.native
    if kernel is None:
        span_of, veto, listed = resolve_python(
            view, candidates + [c for b in bulks for c in b.candidates()], protection, g_start, g_end, g_tokens,
            g_prot, g_prot_iv, g_directive)
        spans = SpanTable()
        for sp in listed:
            spans.add(sp.reason, sp.score, sp.detail, sp.start, sp.end, sp.tokens, sp.residual)
        spans.freeze()
        return span_of, veto, spans, finish_python(ids, group, span_of, g_directive, spans)
    text = view.text
    candidates = sorted(candidates, key=lambda c: (PRIORITY[c.reason], c.start, -c.end))
    rows = [(c.start, c.end, c.reason in _SENTENCE_LEVEL, _override_mask(c.may_override), c.anchor is not None,
             c.lock[0] if c.lock is not None else -1, c.lock[1] if c.lock is not None else -1) for c in candidates]
    bulks = sorted(bulks, key=lambda b: PRIORITY[b.reason])

    def hit_veto_reason(i: int, k: int, a: int, b: int) -> str:
        # called once per candidate that touches a protection (a repeated prompt: thousands), so the hit's
        # fields are read from its bulk without building a Candidate, and its detail only for a veto
        if i < 0:
            c = candidates[k]
            reason, may_override, anchor, start, end = c.reason, c.may_override, c.anchor, c.start, c.end
        else:
            bulk = bulks[i]
            reason, may_override, start, end = bulk.reason, bulk.override_of(k), bulk.starts[k], bulk.ends[k]
            anchor = bulk.anchors[k] if bulk.anchors is not None else None
        why = veto_reason(may_override, anchor, start, end, g_prot[a:b].tolist(), g_prot_iv[a:b].tolist(),
                          protection, text)
        if not why:
            return ""
        return f"not pruned as {reason} ({candidates[k].detail if i < 0 else bulks[i].detail(k)}): {why}"

    span_of = np.empty(len(g_start), dtype=np.int64)
    # listed candidates and each bulk's hits, class by class (the kernel puts a bulk's hits in order); the
    # kernel also fills the span table's columns and computes what selection needs (``finish_python``)
    veto, columns, selection = kernel.resolve(
        text, rows, [PRIORITY[c.reason] for c in candidates], bulks,
        # bulks are columnar (one override set for all their hits: ``Hits.columnar``)
        [_override_mask(cast("frozenset[str]", b.may_override)) for b in bulks], [PRIORITY[b.reason] for b in bulks],
        g_start, g_end, g_prot, g_directive.view(np.uint8), g_tokens, _STRUCTURAL_MASK, hit_veto_reason, span_of,
        candidates, ids, group, token_information())
    return span_of, veto, SpanTable.of_columns(columns), selection


def finish_python(ids: np.ndarray, group: np.ndarray, g_span: np.ndarray, g_directive: np.ndarray,
                  spans: SpanTable) -> Selection:
    """What selection needs, computed once: per token the directive flag; the directive token count; the
    information total (tokens' self-information, 0 for directives); per span its information loss and cost.
    The definition the resolve kernel's selection tables are tested against (the kernel returns the same tuple)."""
    n_groups = len(g_span)
    tok_directive = g_directive[group] if n_groups else np.zeros(0, dtype=bool)
    info = token_information()[ids] if len(ids) else np.zeros(0)
    info = np.where(tok_directive, 0.0, info)
    tok_span = g_span[group] if n_groups else np.zeros(0, dtype=np.int64)
    residual = np.asarray(spans.residuals, dtype=np.float64)
    in_span = tok_span >= 0
    span_loss = np.bincount(tok_span[in_span], weights=info[in_span], minlength=len(spans)) * residual \
        if len(spans) else np.zeros(0)
    span_cost = np.asarray(spans.tokens, dtype=np.int64)
    return tok_directive, int(tok_directive.sum()), float(info.sum()), span_loss, span_cost


def resolve_python(view: TextView, candidates: list[Candidate], protection: Protection, g_start: np.ndarray,
                   g_end: np.ndarray, g_tokens: np.ndarray, g_prot: np.ndarray, g_prot_iv: np.ndarray,
                   g_directive: np.ndarray) -> tuple[np.ndarray, dict[int, str], list[Span]]:
    """Candidates → spans in Python (the definition the kernel is tested against).

    Plain lists and bisect here: candidates touch a handful of groups each, where numpy calls cost more
    than they save.
    """
    text = view.text
    n_groups = len(g_start)
    starts, ends = g_start.tolist(), g_end.tolist()
    prot, prot_iv, tokens_of = g_prot.tolist(), g_prot_iv.tolist(), g_tokens.tolist()
    directive = g_directive.tolist()
    span_of = [-1] * n_groups
    locked = bytearray(n_groups)
    veto: dict[int, str] = {}
    spans: list[Span] = []
    candidates = sorted(candidates, key=lambda c: (PRIORITY[c.reason], c.start, -c.end))
    sentence_level = _SENTENCE_LEVEL
    for c in candidates:
        a, b = _cut(text, c.start, c.end, starts, ends)
        if b <= a:
            continue  # the phrase shares a token with content around it: it cannot be cut cleanly
        if any(directive[a:b]):
            continue
        if any(prot[a:b]):
            why = veto_reason(c.may_override, c.anchor, c.start, c.end, prot[a:b], prot_iv[a:b], protection, text)
            if why:
                for g in range(a, b):
                    if not prot[g] and span_of[g] < 0 and g not in veto:
                        veto[g] = f"not pruned as {c.reason} ({c.detail}): {why}"
                continue
        if c.reason in sentence_level and any(locked[a:b]):
            continue
        free = [g for g in range(a, b) if span_of[g] < 0]
        if not free:
            continue
        sid = len(spans)
        for g in free:
            span_of[g] = sid
        spans.append(Span(sid, c.reason, round(float(c.score), 4), c.detail, c.start, c.end,
                          sum(tokens_of[g] for g in free), c.residual))
        if c.lock is not None:
            la, lb = bisect.bisect_right(ends, c.lock[0]), bisect.bisect_left(starts, c.lock[1])
            locked[la:lb] = b"\x01" * max(0, lb - la)
    return np.array(span_of, dtype=np.int64), veto, spans


_SOFT = " \t，,、。；;：:！!？?"


def _cut(text: str, start: int, end: int, starts: list[int], ends: list[int]) -> tuple[int, int]:
    """The groups a candidate [start, end) removes: all groups overlapping its visible text.

    A group may reach outside the candidate only over whitespace and punctuation (cl100k often glues
    "，请" together).  If that fails, the candidate is retried without its edge punctuation
    ("作为税务顾问，" → "作为税务顾问"); if that fails too it cannot be cut cleanly and (0, 0) is returned.
    """
    vs, ve = start, end
    while vs < ve and text[vs].isspace():
        vs += 1
    while ve > vs and text[ve - 1].isspace():
        ve -= 1
    found = _cut_visible(text, vs, ve, starts, ends)
    if found[1] > found[0]:
        return found
    ts, te = vs, ve
    while ts < te and text[ts] in _SOFT:
        ts += 1
    while te > ts and text[te - 1] in _SOFT:
        te -= 1
    if (ts, te) == (vs, ve):
        return 0, 0
    return _cut_visible(text, ts, te, starts, ends)


def _cut_visible(text: str, vs: int, ve: int, starts: list[int], ends: list[int]) -> tuple[int, int]:
    if vs >= ve:
        return 0, 0
    a = bisect.bisect_right(ends, vs)
    b = bisect.bisect_left(starts, ve)
    if b <= a:
        return 0, 0
    lo, hi = vs, ve
    while lo > 0 and text[lo - 1] in _SOFT:
        lo -= 1
    # (and over line breaks after it: cl100k glues them to the punctuation before — ".\n", "！\n\n" —, and
    # reconstruction keeps a line break a cut ends with when text follows: result._keeping_separators)
    while hi < len(text) and (text[hi] in _SOFT or text[hi] == "\n"):
        hi += 1
    if starts[a] < lo or ends[b - 1] > hi:
        return 0, 0
    return a, b


def veto_reason(may_override: frozenset[str], anchor: str | None, start: int, end: int, prot: list[int], ivs: list[int],
                protection: Protection, text: str) -> str:
    """Why protections stop a candidate covering [start, end) ("" when it may go whole): ``prot`` and ``ivs``
    are the code and protection range of each group it covers, ``may_override`` the protections its rule may
    take, ``anchor`` the kept copy a repeat names (its protected values must all be in it)."""
    codes = set(prot)
    codes.discard(0)
    for code in sorted(codes):
        name = _PROT_NAMES[code]
        if code in _STRUCTURAL_CODES or name in _NEVER_OVERRIDDEN or name not in may_override:
            k = ivs[prot.index(code)]
            return f"it contains {name.removeprefix('protected_')} {text[protection.starts[k]:protection.ends[k]][:40]!r}"
    if anchor is None:
        return ""
    needed: dict[str, int] = {}
    for k in dict.fromkeys([iv for iv, code in zip(ivs, prot) if code]):
        value = text[max(protection.starts[k], start):min(protection.ends[k], end)]
        if value.strip():
            needed[value] = needed.get(value, 0) + 1
    anchor = _normalized(anchor)
    for value, count in needed.items():
        if _whole_count(anchor, _normalized(value)) < count:
            return f"it carries {value!r}, which the kept copy does not"
    return ""


def _whole_count(text: str, value: str) -> int:
    """How often ``value`` stands in ``text`` as a whole: not inside a longer number or word (600 is not in 6000).

    >>> _whole_count("a limit of 6000 per minute", "600"), _whole_count("600 or 600.", "600"), _whole_count("不超过200字", "200")
    (0, 2, 1)
    """
    n = 0
    k = text.find(value)
    while k >= 0 and value:
        end = k + len(value)
        if not (k > 0 and _glued(value[0], text[k - 1]) or end < len(text) and _glued(value[-1], text[end])):
            n += 1
        k = text.find(value, k + 1)
    return n


def _glued(edge: str, neighbour: str) -> bool:
    """Whether ``neighbour`` continues the number or Latin word that ``edge`` ends (a CJK character does not: 200字)."""
    if edge.isdigit():
        return neighbour.isdigit()
    return edge.isascii() and edge.isalnum() and neighbour.isascii() and neighbour.isalnum()


@lru_cache(maxsize=4096)
def _normalized(text: str) -> str:
    """``normalize`` remembered: a kept first copy is checked again for each of its repeats."""
    return normalize(text)
