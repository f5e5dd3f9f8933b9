"""The pipeline: ``annotate`` detects once, ``Annotated.at_ratio`` selects many times.

Stages and their timings (ms): parse (settings, directives, structure), tokenize, protect (protections and
resolving candidates against them), detect (candidate rules), then per ratio select and reconstruct.
``context_preservation`` is the part of protect spent finding and protecting ``<context>`` — exactly 0
when there is none.
"""
from __future__ import annotations

import bisect
import gc
import os
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from collections.abc import Sequence
from typing import Any, Mapping, NamedTuple

import numpy as np

from . import native as _native
from .directives import Settings, resolve_settings
from .guards import EMPTY_BLOCK, close_candidates, guard_blocks
from .model import Conversation
from .profile import Profile, apply_profile  # caps the ratio, adds pattern packs; says which rule fired
from .protect import (PRECEDENCE, add_material, STRUCTURAL, USER_ROLES, Protection, find_protections, identifier_guards,
                      xml_protections)
from .rules import BULK, PRIORITY, RULES, RuleContext
from .rules import repeated as repeated_rule
from .lexicon import _SLOTS as _LEXICON_SLOTS, _native_lexicons, warm_up
from .information import token_information
from .tokens import char_spans, encoding, token_byte_lengths, token_byte_lengths_u8
from .view import Bulk, Candidate, TextView, normalize

_LEXICON_SLOT_OF = {name: k for k, name in enumerate(_LEXICON_SLOTS)}

__all__ = ["Config", "Annotated", "annotate", "gc_paused", "check_min_effectiveness", "FLOOR_CHOICES",
           "EFFECTIVENESS_TARGET"]

# the floors the app and the CLI offer: lossless, a little, the article's alert threshold, more, no floor
FLOOR_CHOICES = (1.0, 0.99, 0.98, 0.95, 0.0)
# the estimate a recommended ratio keeps (``Annotated.best_ratio``, ``sweep --target``, the app's sweep)
EFFECTIVENESS_TARGET = 0.99


def check_min_effectiveness(value: float) -> float:
    """``value`` as a floor in [0, 1], or a ``DirectiveError`` that says what to pass."""
    from .errors import DirectiveError
    try:
        floor = float(value)
    except (TypeError, ValueError):
        raise DirectiveError(f"min_effectiveness must be a number in [0, 1], got {value!r}") from None
    if not 0.0 <= floor <= 1.0:  # (NaN fails this too)
        raise DirectiveError(f"min_effectiveness must be in [0, 1] (1.0 = lossless, 0.98 = the article's alert "
                         f"threshold, 0 = no floor), got {floor}")
    return floor

_PROT_NAMES = ("",) + PRECEDENCE  # group codes: 0 = unprotected, k + 1 = PRECEDENCE[k]
_STRUCTURAL_CODES = frozenset(PRECEDENCE.index(n) + 1 for n in STRUCTURAL)


@dataclass(frozen=True)
class Config:
    """Caller settings: an explicit ``ratio``/``enabled`` beats env, header and directive.

    ``env`` defaults to ``os.environ``; pass ``{}`` to ignore the environment.
    """

    ratio: float | None = None
    enabled: bool | None = None
    low_information: bool = True
    keep_directives: bool = False
    env: Mapping[str, str] | None = None
    profile: str | Profile | None = None  # a domain profile's name, "auto" or a Profile (layerzero_viz.profile)
    # reuse the token ids of text blocks seen before in this process (a client resends the whole history on
    # every call); off by default so that tokenize timings always measure tokenising
    token_cache: bool = False


_DEFAULT_CONFIG = Config()


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


class SpanTable(Sequence):
    """The resolved spans as columns; ``table[k]`` is a :class:`Span`, its detail built on first use.

    A long prompt resolves tens of thousands of spans, most from the lexicon rules; their details are only
    needed when tokens are shown, so a bulk span keeps just (bulk number, hit number) until then.
    """

    __slots__ = ("reasons", "priorities", "scores", "starts", "ends", "tokens", "residuals", "_details", "_bulks",
                 "_bulk_of", "_hit_of")

    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.priorities: list[int] = []
        self.scores: list[float] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.tokens: list[int] = []
        self.residuals: list[float] = []
        self._details: list[str | None] = []  # None: a bulk span whose detail is not built yet
        self._bulks: list[Bulk] = []
        self._bulk_of: list[int] = []         # per span: its bulk's number (-1 for a listed candidate)
        self._hit_of: list[int] = []

    def add(self, reason: str, score: float, detail: str, start: int, end: int, tokens: int, residual: float) -> None:
        self.reasons.append(reason)
        self.priorities.append(PRIORITY[reason])
        self.scores.append(round(float(score), 4))
        self._details.append(detail)
        self.starts.append(start)
        self.ends.append(end)
        self.tokens.append(tokens)
        self.residuals.append(residual)
        self._bulk_of.append(-1)
        self._hit_of.append(-1)

    @classmethod
    def of_columns(cls, columns: tuple) -> "SpanTable":
        """A frozen table from its columns (what the resolve kernel builds): reasons, priorities, scores,
        starts, ends, tokens, residuals, details (None: not built yet), bulks, bulk of each span, hit of each."""
        table = cls.__new__(cls)
        (table.reasons, table.priorities, table.scores, table.starts, table.ends, table.tokens, table.residuals,
         table._details, table._bulks, table._bulk_of, table._hit_of) = columns
        return table

    def freeze(self) -> "SpanTable":
        """Columns as tuples once every span is in (see ``Protection.freeze``); details stay a list, filled
        when first asked for."""
        self.reasons, self.priorities, self.scores = tuple(self.reasons), tuple(self.priorities), tuple(self.scores)
        self.starts, self.ends, self.tokens = tuple(self.starts), tuple(self.ends), tuple(self.tokens)
        self.residuals, self._bulk_of, self._hit_of = tuple(self.residuals), tuple(self._bulk_of), tuple(self._hit_of)
        self._bulks = tuple(self._bulks)
        return self

    def detail(self, k: int) -> str:
        d = self._details[k]
        if d is None:
            d = self._details[k] = self._bulks[self._bulk_of[k]].detail(self._hit_of[k])
        return d

    def __len__(self) -> int:
        return len(self.reasons)

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return Span(k, self.reasons[k], self.scores[k], self.detail(k), self.starts[k], self.ends[k], self.tokens[k],
                    self.residuals[k])


@dataclass(eq=False)
class Annotated:
    """A conversation with every token scored once; call :meth:`at_ratio` for decisions.

    Arrays are per token (``tok_*``) or per display group (``g_*``); spans index ``spans``.
    """

    conversation: Conversation
    config: Config
    settings: Settings
    view: TextView
    tok_ids: np.ndarray
    tok_start: np.ndarray
    tok_end: np.ndarray
    tok_group: np.ndarray
    tok_block: np.ndarray
    tok_i: np.ndarray
    tok_directive: np.ndarray
    g_start: np.ndarray
    g_end: np.ndarray
    g_prot: np.ndarray
    g_prot_iv: np.ndarray  # per group: the protection range that decides its reason (-1 for none)
    protection: Protection
    g_span: np.ndarray
    g_veto: dict[int, str]
    spans: SpanTable
    span_cost: np.ndarray
    span_loss: np.ndarray
    info_total: float
    tokens_total: int
    tokens_directive: int
    timings_ms: dict[str, float]
    warnings: tuple[str, ...] = ()
    block_tokenize_ms: list[float] = field(default_factory=list)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def g_prot_detail(self) -> dict[int, str]:
        """Protected group → the detail of the protection that decides it (built on first use)."""
        found = self._cache.get("g_prot_detail")
        if found is None:
            details = {int(k): self.protection.detail(int(k)) for k in np.unique(self.g_prot_iv[self.g_prot > 0])}
            found = self._cache["g_prot_detail"] = {int(g): details[int(self.g_prot_iv[g])]
                                                    for g in np.flatnonzero(self.g_prot)}
        return found

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    @property
    def ratio(self) -> float:
        """The effective ratio from the settings (argument > env > header > directive > default)."""
        return self.settings.ratio

    @property
    def ratio_source(self) -> str:
        return self.settings.ratio_source

    def at_ratio(self, ratio: float | None = None, *, min_effectiveness: float = 1.0):
        """Decisions at ``ratio`` (explicit, source "argument"); None uses the effective settings ratio.

        The safe tier (the rules' spans) is spent first.  ``min_effectiveness`` bounds the lossy tier
        (:mod:`layerzero_viz.lossy`): its words, cheapest information first, are taken only while the
        effectiveness estimate stays ≥ it.  1.0 (the default) is lossless — no lossy word is ever taken; 0.98 is
        the article's alert threshold, the recommended setting for exploring; 0 removes the floor.
        Detection is not re-run: this only spends the budget over what :func:`annotate` found.
        """
        from .result import PruneResult
        from .directives import check_ratio
        from .select import grid_index

        if ratio is None:
            ratio, source = self.settings.ratio, self.settings.ratio_source
        else:
            ratio, source = check_ratio(ratio, "ratio"), "argument"
        floor = check_min_effectiveness(min_effectiveness)
        cap = self.settings.ratio_cap
        if cap is not None and ratio > cap:
            ratio, source = cap, "profile"  # the domain profile's rule (settings.profile_rule) wins
        t0 = time.perf_counter()
        if self.settings.enabled:
            span_entry, word_entry = self.entry_points(floor)
            g = grid_index(ratio)
            chosen, lossy_chosen = span_entry <= g, word_entry <= g
        else:
            chosen, lossy_chosen = np.zeros(len(self.spans), dtype=bool), np.zeros(0, dtype=bool)
        select_ms = (time.perf_counter() - t0) * 1000.0
        return PruneResult(self, ratio, source, chosen, select_ms, min_effectiveness=floor, lossy_chosen=lossy_chosen)

    def entry_points(self, min_effectiveness: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Per span and per lossy word, the grid point from which it is pruned (``select.entry_points``), built
        once per floor."""
        key = ("entries", float(min_effectiveness))
        found = self._cache.get(key)
        if found is None:
            from .select import entry_points
            lossy = self.lossy if min_effectiveness < 1.0 else None
            found = self._cache[key] = entry_points(self.prefix_tables, self.span_loss, lossy=lossy,
                                                    lossy_block=lossy.block if lossy is not None else None,
                                                    min_effectiveness=min_effectiveness)
        return found

    @property
    def prefix_tables(self):
        """What prefix-stable selection needs (``select.prefix_tables``), built once."""
        found = self._cache.get("prefix")
        if found is None:
            from .information import token_information
            from .select import prefix_tables
            n_blocks = len(self.view.blocks)
            starts = np.asarray(self.spans.starts, dtype=np.int64)
            span_block = (np.searchsorted(np.asarray(self.view.block_starts, dtype=np.int64), starts, "right") - 1
                          if len(starts) else np.zeros(0, dtype=np.int64))
            kept = ~self.tok_directive
            block_tokens = np.bincount(self.tok_block[kept], minlength=n_blocks) if len(self.tok_block) \
                else np.zeros(n_blocks, dtype=np.int64)
            block_info = np.bincount(self.tok_block[kept], weights=token_information()[self.tok_ids[kept]],
                                     minlength=n_blocks) if len(self.tok_block) else np.zeros(n_blocks)
            found = self._cache["prefix"] = prefix_tables(span_block, self.spans.priorities, self.spans.scores,
                                                          starts, self.span_cost, block_tokens, block_info)
        return found

    @property
    def lossy(self):
        """The lossy tier's words in selection order (:func:`layerzero_viz.lossy.lossy_tier`), built once."""
        found = self._cache.get("lossy")
        if found is None:
            from .lossy import lossy_tier
            found = self._cache["lossy"] = lossy_tier(self)
        return found

    @property
    def safe_frontier(self) -> float:
        """The smallest ratio at which every safe-tier span is taken: past it, only the lossy tier can take more."""
        from .select import safe_frontier
        return safe_frontier(self.entry_points(1.0)[0])

    def sweep(self, ratios=None, *, min_effectiveness: float = 1.0) -> list[dict[str, float]]:
        """Pruned fraction and effectiveness estimate at each ratio (default 0.00, 0.01 … 0.95), under one floor.

        >>> ann = annotate("Hello, could you please help me?", env={})
        >>> [row["ratio"] for row in ann.sweep([0.0, 0.5])]
        [0.0, 0.5]
        """
        if ratios is None:
            ratios = [k / 100 for k in range(96)]
        rows = []
        for r in ratios:
            res = self.at_ratio(r, min_effectiveness=min_effectiveness)
            rows.append({"ratio": float(r), "tokens_pruned": res.tokens_pruned, "pruned_fraction": res.pruned_fraction,
                         "effectiveness_estimate": res.effectiveness_estimate, "stopped_by": res.stopped_by,
                         "min_effectiveness": float(min_effectiveness)})
        return rows

    @staticmethod
    def best_ratio(rows: list[dict[str, float]], target: float = 0.99) -> float | None:
        """The ratio to recommend from a sweep: the most pruning while the estimate stays ≥ ``target``.

        Walks up from r = 0 while the estimate holds, and returns the *smallest* ratio that reaches the
        most tokens pruned in that stretch — once every candidate is gone, a higher r changes nothing.
        None when even r = 0 is below target.
        """
        best, best_pruned = None, -1
        for row in sorted(rows, key=lambda r: r["ratio"]):
            if row["effectiveness_estimate"] < target:
                break
            if row["tokens_pruned"] > best_pruned:
                best, best_pruned = row["ratio"], row["tokens_pruned"]
        return best

    def message_timings(self) -> list[dict[str, object]]:
        """Per message: its tokens (engine directives apart, counted as everywhere else: outside ``tokens_total``),
        its directive tokens, and the time spent tokenising its text blocks (ms)."""
        rows: dict[int, dict[str, object]] = {}
        n_blocks = len(self.view.blocks)
        kept = ~self.tok_directive
        counts = np.bincount(self.tok_block[kept], minlength=n_blocks) if len(self.tok_block) else np.zeros(n_blocks)
        directive = np.bincount(self.tok_block[self.tok_directive], minlength=n_blocks) if len(self.tok_block) \
            else np.zeros(n_blocks)
        for k, b in enumerate(self.view.blocks):
            row = rows.setdefault(b.msg_pos, {"message": b.message, "role": b.role, "tokens": 0, "directive": 0,
                                              "ms": 0.0, "stage": "tokenize"})
            row["tokens"] = int(row["tokens"]) + int(counts[k])
            row["directive"] = int(row["directive"]) + int(directive[k])
            row["ms"] = float(row["ms"]) + self.block_tokenize_ms[k]
        return list(rows.values())


def annotate(source: Any, config: Config | None = None, **overrides: Any) -> Annotated:
    """Score every token of ``source`` once (a Conversation, or a path/str/bytes to load).

    >>> from layerzero_viz import load_conversation
    >>> ann = annotate(load_conversation("您好，请问七日年化收益率4.2%是什么意思？"), env={})
    >>> ann.at_ratio(0.3).tokens_pruned <= int(0.3 * ann.tokens_total)
    True
    """
    config = config or _DEFAULT_CONFIG
    if overrides:
        config = Config(**{**config.__dict__, **overrides})
    return _annotate(source, config)


class gc_paused:  # noqa: N801 - used as a context manager, like contextlib's lower-case ones
    """Pause the cyclic garbage collector for the whole process, restoring it whatever happens.

    ``annotate`` never does this itself (a library call should not change its host process): it is the
    caller's choice.  An annotation allocates many short-lived, cycle-free objects that reference counting
    frees anyway; the pruning client wraps its pruning in this.  On the bench corpus, annotating with and
    without it measured the same (``bench/engine.py --pause-gc``).
    A class rather than a generator: it is entered once per annotation, and this costs a third as much.
    """

    __slots__ = ("_collecting",)

    def __enter__(self) -> None:
        self._collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc) -> None:
        if self._collecting:
            gc.enable()


def _annotate(source: Any, config: Config) -> Annotated:
    timings: dict[str, float] = {}
    token_byte_lengths_u8(), token_information()  # one-time tables and matchers: loaded before the clock starts
    warm_up()
    t0 = time.perf_counter()
    if not isinstance(source, Conversation):
        from .formats import load_conversation
        source = load_conversation(source)
    conv = source
    env = os.environ if config.env is None else config.env
    settings = resolve_settings(conv, ratio=config.ratio, enabled=config.enabled, env=env)
    if config.profile is not None:
        settings = apply_profile(settings, config.profile, conv)
    view = TextView.of(conv)
    timings["parse"] = _ms(t0)

    # directive ranges in global offsets (also given to the rules)
    directive_ranges: tuple[tuple[int, int], ...] = ()
    if settings.directive_spans:
        block_pos = {(b.message, b.block): b.start for b in view.blocks}
        directive_ranges = tuple((block_pos[(d.message, d.block)] + d.start, block_pos[(d.message, d.block)] + d.end)
                                 for d in settings.directive_spans)

    # The compiled scan job needs nothing tokenising or the material produce and runs without the GIL: for a
    # long text it runs on the scan thread (``_ScanThread``) while this one tokenises (tiktoken releases the
    # GIL too) and finds the material; the rules then wait for it.
    t0 = time.perf_counter()
    structure = xml_protections(view, conv, material=False)  # <context>: ranges the repeat scan must skip
    protect_ms = _ms(t0)
    job = None
    kernel = _native.native
    if kernel is not None:
        text = view.text
        repeats = kernel.RepeatScan(view.bounds,
                                    repeated_rule.skipped_ranges(structure.context_ranges, directive_ranges),
                                    repeated_rule.function_words(), repeated_rule.MIN_UNITS,
                                    repeated_rule.CONTAINMENT)
        if structure.context_facts:  # and the sentences restating a <context> fact (rules.derivable)
            repeats.with_context([value for _, _, value in structure.context_facts], structure.context_ranges)
        job = kernel.ScanJob(text, _native_lexicons(), identifier_guards(text),
                             [(b.start, b.end) for b in view.blocks_of_roles(USER_ROLES)], repeats)
    scan = _ScanThread(view, job)
    t0 = time.perf_counter()
    try:
        ids, start, end, group, block, idx, block_ms, (g_start, g_end, g_tokens) = _tokenize_view(
            view, _TOKEN_CACHE if config.token_cache else None)
    except BaseException:
        scan.done()  # never leave the job running on a view the caller has given up
        raise
    timings["tokenize"] = _ms(t0)
    n_groups = len(g_start)

    t0 = time.perf_counter()
    add_material(structure, view, conv)
    protect_ms += _ms(t0)

    t0 = time.perf_counter()
    prescan = None
    if job is not None:
        scan.done()
        prescan = job.results()
        view.set_lexicon_packed(_LEXICON_SLOT_OF, *prescan["lexicons"])
    protection = find_protections(view, settings.compiled_patterns, settings.protected_patterns, prescan, structure)
    # the scan job's own time counts in protect (scanners) and detect (the repeat scan), wherever it ran
    protect_ms += _ms(t0) + (prescan["ms"] if prescan is not None else 0.0)

    t0 = time.perf_counter()
    ctx = RuleContext(settings=settings, protection=protection, low_information=config.low_information,
                      directive_ranges=directive_ranges, prescan=prescan)
    candidates: list[Candidate] = []
    bulks: list[Bulk] = []
    for _, rule in RULES:
        bulk = BULK.get(rule)
        if bulk is not None:
            bulks.append(bulk(view, ctx))
        else:
            candidates.extend(rule(view, ctx))
    candidates, bulks = close_candidates(view, candidates, bulks)
    candidates, bulks, kept_whole = guard_blocks(view, candidates, bulks, directive_ranges)
    timings["detect"] = _ms(t0) + (prescan["repeats_ms"] if prescan is not None else 0.0)

    # directive groups: those that start inside a directive span
    g_directive = np.zeros(n_groups, dtype=bool)
    for s, e in directive_ranges:
        _mark_starting_inside(g_directive, g_start, s, e)

    t0 = time.perf_counter()
    g_prot, g_prot_iv = _apply_protections(protection, g_start, g_end, n_groups)
    protect_ms += _ms(t0)

    t0 = time.perf_counter()
    g_span, g_veto, spans, selection = _resolve(view, candidates, bulks, protection, g_start, g_end, g_tokens,
                                                g_prot, g_prot_iv, g_directive, ids, group)
    tok_directive, tokens_directive, info_total, span_loss, span_cost = selection
    for s, e, why in repeated_rule.kept_notes(view):  # near-copies the repeat rule kept say why
        a, b = np.searchsorted(g_start, s, "left"), np.searchsorted(g_start, e, "left")
        for g in range(int(a), int(b)):
            if not g_prot[g] and g_span[g] < 0 and g not in g_veto:
                g_veto[g] = why
    for s, e in kept_whole:  # every group of a block kept whole says why
        a, b = np.searchsorted(g_start, s, "left"), np.searchsorted(g_start, e, "left")
        why = EMPTY_BLOCK.format(where=view.where(s).rsplit(",", 1)[0])
        for g in range(int(a), int(b)):
            if not g_prot[g] and not g_directive[g]:
                g_veto[g] = why
    timings["protect"] = protect_ms + _ms(t0)
    timings["context_preservation"] = protection.context_ms

    return Annotated(
        conversation=conv, config=config, settings=settings, view=view,
        tok_ids=ids, tok_start=start, tok_end=end, tok_group=group, tok_block=block, tok_i=idx,
        tok_directive=tok_directive, g_start=g_start, g_end=g_end, g_prot=g_prot,
        g_prot_iv=g_prot_iv, protection=protection, g_span=g_span, g_veto=g_veto, spans=spans,
        span_cost=span_cost, span_loss=span_loss,
        info_total=info_total, tokens_total=int(len(ids)) - tokens_directive,
        tokens_directive=tokens_directive, timings_ms=timings, warnings=settings.warnings,
        block_tokenize_ms=tuple(block_ms),
    )


def _selection(found: tuple) -> tuple:
    """The resolve kernel's (directive flags, information, losses, costs, …, directive count) in
    :func:`_finish_python`'s order, the information summed here (numpy's pairwise sum, as the twin does).  The
    kernel still computes a global budget order, its costs and suffix minima, which prefix-stable selection
    (``select.entry_points``) no longer reads: they are dropped here until the kernel is next rebuilt."""
    tok_directive, info, span_loss, span_cost, _order, _costs_ordered, _suffix_min, tokens_directive = found
    return tok_directive, tokens_directive, float(info.sum()), span_loss, span_cost


def _finish_python(ids, group, g_span, g_directive, spans: "SpanTable"):
    """What selection needs, computed once: per token the directive flag; the directive token count; the
    information total (tokens' self-information, 0 for directives); per span its information loss and cost.
    The definition the resolve kernel's selection tables are tested against."""
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


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


_NO_SPECIAL: frozenset[str] = frozenset()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


PARALLEL_SCAN = True
"""Whether a long text's scan job may run on the scan thread (``_ScanThread``) while the caller tokenises.

Set it to False in a process whose siblings already fill the cores (the batch runner's worker processes and
Dask workers do): a second busy thread per process would only compete with them.  A process limited to one
core scans inline whatever this says."""


class _ScanThread:
    """The scan job's ``run`` (it releases the GIL throughout) on the scan thread when the text is long enough
    to pay for the hand-off (≈ 70 µs through a Python thread) and no other annotation holds that thread; else
    here, on :meth:`done`.  Measured on the bench corpus it saves the scan's ≈ 0.3 s per 5.9 MB pass; a text
    under ``MIN_CHARS`` is scanned inline."""

    MIN_CHARS = 2000
    _pool = None
    _busy = threading.Lock()

    def __init__(self, view: TextView, job) -> None:
        self.job = job
        self._future = None
        self._ran = False
        if job is not None and PARALLEL_SCAN and len(view.text) >= self.MIN_CHARS and _cores() > 1 \
                and self._busy.acquire(blocking=False):
            try:
                if _ScanThread._pool is None:
                    from concurrent.futures import ThreadPoolExecutor
                    _ScanThread._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="layerzero-scan")
                self._future = self._pool.submit(self._run_and_release)
            except BaseException:
                self._busy.release()
                raise

    def _run_and_release(self) -> None:
        try:
            self.job.run()
        finally:
            self._busy.release()

    def done(self) -> None:
        """Wait for the scan (run it here when it was not handed over); idempotent."""
        if self._future is not None:
            self._future.result()
            self._future = None
        elif self.job is not None and not self._ran:
            self.job.run()
        self._ran = True


def _forget_pool() -> None:  # a forked child has no scan thread: it makes its own on first use
    _ScanThread._pool = None
    _ScanThread._busy = threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


class _TokenCache:
    """Token ids (uint32 bytes) of recently seen text blocks, least recently used evicted first.

    Only blocks of at least ``MIN_CHARS`` characters are kept, at most ``MAX_BYTES`` of ids in all; a text
    block's ids depend on nothing but its text, so a hit is exactly what tokenising would give.
    """

    MIN_CHARS = 32
    MAX_BYTES = 16 << 20

    def __init__(self) -> None:
        self._ids: dict[str, bytes] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, text: str) -> bytes | None:
        found = self._ids.get(text)
        if found is not None:
            with self._lock:
                if self._ids.pop(text, None) is not None:  # most recently used goes last
                    self._ids[text] = found
        return found

    def put(self, text: str, ids: bytes) -> None:
        if len(text) < self.MIN_CHARS or len(ids) > self.MAX_BYTES // 4:
            return
        with self._lock:
            if text in self._ids:
                return
            self._ids[text] = ids
            self._bytes += len(ids)
            while self._bytes > self.MAX_BYTES:
                oldest = next(iter(self._ids))
                self._bytes -= len(self._ids.pop(oldest))

    def clear(self) -> None:
        with self._lock:
            self._ids.clear()
            self._bytes = 0


_TOKEN_CACHE = _TokenCache()


def _tokenize_view(view: TextView, cache: _TokenCache | None = None):
    """Token arrays over all blocks: each block encoded on its own, offsets computed once over the view.

    Per block only the encoding runs (the per-block timings are that call, or the cache hit); byte →
    character offsets, display groups and indexes are computed once over the whole view — by the
    ``_native.tokenize`` kernel when built, else here with numpy (the definition) — which keeps a request of
    many short turns from paying a per-call overhead for every turn.
    """
    enc = encoding()
    text = view.text
    kernel = _native.native
    if kernel is not None:
        # the tokenizer's own buffer form (uint32 ids, the same as encode_ordinary: no special token is
        # allowed, so none is special) skips building a Python int per token
        cols, n_groups, block_ms = kernel.tokenize(text, view.bounds,
                                                   enc._core_bpe.encode_to_tiktoken_buffer, _NO_SPECIAL, cache,
                                                   token_byte_lengths_u8())
        tok_ids, start, end, group, block, idx = cols[:6]
        return tok_ids, start, end, group, block, idx, block_ms, (cols[6][:n_groups], cols[7][:n_groups],
                                                                  cols[8][:n_groups])
    counts: list[int] = []
    block_ms: list[float] = []
    clock = time.perf_counter
    ids: list[int] = []
    for b in view.blocks:
        t0 = clock()
        piece = enc.encode_ordinary(text[b.start:b.end])
        block_ms.append((clock() - t0) * 1000.0)
        ids.extend(piece)
        counts.append(len(piece))
    if not ids:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z, z, z, block_ms, (z, z, z)
    raw = None if text.isascii() else np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    block_chars = np.asarray(view.block_starts, dtype=np.int64)
    if raw is None:
        byte_base = block_chars
    else:  # the byte where each block starts: the byte of its first character
        char_byte = np.append(np.flatnonzero((raw & 0xC0) != 0x80), len(raw))
        byte_base = char_byte[block_chars]
    tok_ids = np.asarray(ids, dtype=np.int64)
    counts_a = np.asarray(counts, dtype=np.int64)
    block = np.repeat(np.arange(len(counts_a), dtype=np.int64), counts_a)
    first = np.concatenate(([0], np.cumsum(counts_a)[:-1]))
    idx = np.arange(len(tok_ids), dtype=np.int64) - first[block]
    lengths = token_byte_lengths()[tok_ids]
    cumulative = np.cumsum(lengths)
    # byte end of each token = its block's base + bytes of the block's tokens up to and including it
    before_block = np.concatenate(([0], cumulative))[first][block]
    byte_end = byte_base[block] + cumulative - before_block
    start, end, group = char_spans(text, byte_end - lengths, byte_end, raw)
    return tok_ids, start, end, group, block, idx, block_ms, _groups(start, end, group)


def _groups(start, end, group):
    """Per display group: first character, end character and token count."""
    n_groups = int(group[-1]) + 1
    g_first = np.searchsorted(group, np.arange(n_groups))
    g_last = np.append(g_first[1:], len(group)) - 1
    return start[g_first], end[g_last], np.bincount(group, minlength=n_groups).astype(np.int64)


def _mark_starting_inside(mask: np.ndarray, g_start: np.ndarray, s: int, e: int) -> None:
    a, b = np.searchsorted(g_start, s, "left"), np.searchsorted(g_start, e, "left")
    mask[a:b] = True


def _apply_protections(protection: Protection, g_start, g_end, n_groups):
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
_override_masks: dict[frozenset, int] = {}
_NEVER_OVERRIDDEN = frozenset({"protected_pattern"})  # the author declared it: absolute, whatever a rule asks


def _override_mask(names: frozenset) -> int:
    """The protections a candidate may take, as bits; never a declared ``<protected_tokens>`` match."""
    mask = _override_masks.get(names)
    if mask is None:
        mask = _override_masks[names] = sum(_CODE_BIT[n] for n in names if n not in _NEVER_OVERRIDDEN)
    return mask


def _resolve(view, candidates, bulks, protection, g_start, g_end, g_tokens, g_prot, g_prot_iv, g_directive, ids,
             group):
    """Turn candidates into atomic spans: protections veto, higher classes claim first.

    The compiled kernel (``_native.resolve``) when built, else :func:`_resolve_python` — the definition.
    ``bulks`` are rules' hits as columns (``view.Bulk``); all are resolved by class, then position.  Returns
    the group → span and veto maps, the span table, and what selection needs (:func:`_finish_python`; the
    kernel computes it in the same call).
    """
    kernel = _native.native
    if kernel is None:
        span_of, veto, listed = _resolve_python(
            view, candidates + [c for b in bulks for c in b.candidates()], protection, g_start, g_end, g_tokens,
            g_prot, g_prot_iv, g_directive)
        spans = SpanTable()
        for sp in listed:
            spans.add(sp.reason, sp.score, sp.detail, sp.start, sp.end, sp.tokens, sp.residual)
        spans.freeze()
        return span_of, veto, spans, _finish_python(ids, group, span_of, g_directive, spans)
    text = view.text
    candidates = sorted(candidates, key=lambda c: (PRIORITY[c.reason], c.start, -c.end))
    rows = [(c.start, c.end, c.reason in _SENTENCE_LEVEL, _override_mask(c.may_override), c.anchor is not None,
             c.lock[0] if c.lock is not None else -1, c.lock[1] if c.lock is not None else -1) for c in candidates]
    bulks = sorted(bulks, key=lambda b: PRIORITY[b.reason])

    def veto_reason(i: int, k: int, a: int, b: int) -> str:
        # called once per candidate that touches a protection (a repeated prompt: thousands), so the hit's
        # fields are read from its bulk without building a Candidate, and its detail only for a veto
        if i < 0:
            c = candidates[k]
            reason, may_override, anchor, start, end = c.reason, c.may_override, c.anchor, c.start, c.end
        else:
            bulk = bulks[i]
            reason, may_override, start, end = bulk.reason, bulk.may_override, bulk.starts[k], bulk.ends[k]
            anchor = bulk.anchors[k] if bulk.anchors is not None else None
        why = _veto_why(may_override, anchor, start, end, g_prot[a:b].tolist(), g_prot_iv[a:b].tolist(),
                        protection, text)
        if not why:
            return ""
        return f"not pruned as {reason} ({candidates[k].detail if i < 0 else bulks[i].detail(k)}): {why}"

    span_of = np.empty(len(g_start), dtype=np.int64)
    # listed candidates and each bulk's hits, class by class (the kernel puts a bulk's hits in order); the
    # kernel also fills the span table's columns and computes the selection tables (``_finish_python``)
    veto, columns, selection = kernel.resolve(
        text, rows, [PRIORITY[c.reason] for c in candidates], bulks,
        [_override_mask(b.may_override) for b in bulks], [PRIORITY[b.reason] for b in bulks],
        g_start, g_end, g_prot, g_directive.view(np.uint8), g_tokens, _STRUCTURAL_MASK, veto_reason, span_of,
        candidates, ids, group, token_information())
    return span_of, veto, SpanTable.of_columns(columns), _selection(selection)


def _resolve_python(view, candidates, protection, g_start, g_end, g_tokens, g_prot, g_prot_iv, g_directive):
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
            why = _veto_reason(c, prot[a:b], prot_iv[a:b], protection, text)
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
    while hi < len(text) and text[hi] in _SOFT:
        hi += 1
    if starts[a] < lo or ends[b - 1] > hi:
        return 0, 0
    return a, b


def _veto_reason(c: Candidate, prot: list[int], ivs: list[int], protection: Protection, text: str) -> str:
    """Why protections stop candidate ``c`` ("" when it may go whole); ``prot`` and ``ivs`` are the code and
    protection range of each group it covers."""
    return _veto_why(c.may_override, c.anchor, c.start, c.end, prot, ivs, protection, text)


def _veto_why(may_override: frozenset, anchor: str | None, start: int, end: int, prot: list[int], ivs: list[int],
              protection: Protection, text: str) -> str:
    """:func:`_veto_reason` from the candidate's fields."""
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
        if anchor.count(_normalized(value)) < count:
            return f"it carries {value!r}, which the kept copy does not"
    return ""


@lru_cache(maxsize=4096)
def _normalized(text: str) -> str:
    """``normalize`` remembered: a kept first copy is checked again for each of its repeats."""
    return normalize(text)
