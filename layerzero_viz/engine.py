"""The pipeline: ``annotate`` detects once, ``Annotated.at_ratio`` selects many times.

Stages and their timings (ms): parse (settings, directives, structure), tokenize, protect (the scanners, the
material, protections and their marks on display groups), detect (candidate rules, the repeat scan), resolve
(candidates → spans against the protections, the selection tables), then per ratio select and reconstruct.
``context_preservation`` is the part of protect spent finding and protecting ``<context>`` — exactly 0
when there is none.
"""
from __future__ import annotations

import bisect
import gc
from collections import Counter
import os
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from . import native as _native
from .directives import Settings, resolve_settings
from .guards import close_candidates, guard_blocks, keep_sentence_case
from .model import Conversation
from .profile import Profile, apply_profile  # caps the ratio, adds pattern packs; says which rule fired
from .material import Material, MaterialFinds, largest_first
from .protect import Protection, add_material, find_protections, material_finds, xml_protections
from .resolve import SpanTable, apply_protections, resolve
from .rules import RULES, RuleContext
from .scans import scan
from .script import as_written, simplified
from .rules import repeated as repeated_rule
from .lexicon import warm_up
from .information import load_frequencies, token_information
from .lossy import LossyTier, lossy_tier
from .tokens import char_spans, encoding, token_byte_lengths, token_byte_lengths_u8
from .view import Candidate, Hits, TextView

if TYPE_CHECKING:
    from .result import PruneResult
    from .select import PrefixTables

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
    # reuse what text blocks seen before in this process gave — their token ids and the material their own text
    # holds — (a client resends the whole history on every call); off by default so that timings always measure
    # the work
    block_cache: bool = False
    # find material (``material``) in every block — what the app shows —, or only in the blocks where a rule proposes
    # a cut and those whose first copies the cuts keep: the same decisions (material elsewhere vetoes nothing), and
    # most blocks of a chat propose none; the lossy tier finds the rest when it is first built
    material_everywhere: bool = True


_DEFAULT_CONFIG = Config()


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
    block_tokenize_ms: Sequence[float] = field(default_factory=list)
    read: TextView | None = None  # what the rules read when it is not ``view`` (Traditional Chinese as Simplified)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)
    # the material finds whose blocks without a candidate were left unread (``Config.material_everywhere``), with
    # the material of ``protection``
    _unread: tuple[MaterialFinds, list[Material]] | None = field(default=None, repr=False)

    @property
    def read_view(self) -> TextView:
        """The text the rules read: ``view`` with Traditional Chinese characters as Simplified (``script``),
        the same offsets; ``view`` itself when nothing was converted."""
        return self.view if self.read is None else self.read

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

    def at_ratio(self, ratio: float | None = None, *, min_effectiveness: float = 1.0) -> PruneResult:
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
        if floor < 1.0 and self.settings.enabled:
            load_frequencies()  # (once per process; outside the clock, like annotate's warm_up)
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
    def prefix_tables(self) -> PrefixTables:
        """What prefix-stable selection needs (``select.prefix_tables``), built once."""
        found = self._cache.get("prefix")
        if found is None:
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
    def lossy(self) -> LossyTier:
        """The lossy tier's words in selection order (:func:`layerzero_viz.lossy.lossy_tier`), built once."""
        found = self._cache.get("lossy")
        if found is None:
            self._read_all_material()
            found = self._cache["lossy"] = lossy_tier(self)
        return found

    def _read_all_material(self) -> None:
        """The material of the blocks ``Config(material_everywhere=False)`` left unread, added to the protections:
        the lossy tier may take a word in any block, never one of material."""
        unread, self._unread = self._unread, None
        if unread is None:
            return
        finds, used = unread
        left = Counter(used)
        rest = []
        for m in finds.found():  # (largest first)
            if left[m]:
                left[m] -= 1
            else:
                rest.append(m)
        if not rest:
            return
        protection = self.protection.copy()
        for m in rest:
            protection.add(m.start, m.end, "protected_material", m.detail)
        protection.material = sorted([*protection.material, *rest], key=largest_first)
        self.protection = protection.freeze()
        self.g_prot, self.g_prot_iv = apply_protections(protection, self.g_start, self.g_end, len(self.g_start))

    @property
    def safe_frontier(self) -> float:
        """The smallest ratio at which every safe-tier span is taken: past it, only the lossy tier can take more."""
        from .select import safe_frontier
        return safe_frontier(self.entry_points(1.0)[0])

    def sweep(self, ratios: Sequence[float] | None = None, *, min_effectiveness: float = 1.0) -> list[dict[str, Any]]:
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
        best, best_pruned = None, -1.0
        for row in sorted(rows, key=lambda r: r["ratio"]):
            if row["effectiveness_estimate"] < target:
                break
            if row["tokens_pruned"] > best_pruned:
                best, best_pruned = row["ratio"], row["tokens_pruned"]
        return best

    def message_timings(self) -> list[dict[str, object]]:
        """Per message: its tokens (engine directives apart, counted as everywhere else: outside ``tokens_total``),
        its directive tokens, and the time spent tokenising its text blocks (ms)."""
        rows: dict[int, dict[str, Any]] = {}
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

    def __exit__(self, *exc: object) -> None:
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
    # the rules read Traditional Chinese as Simplified (``script``); tokens and all that is shown or sent come
    # from the original text, ``shown`` (the same object when nothing was converted)
    shown = TextView.of(conv)
    read = simplified(conv)
    view = shown if read is conv else TextView.of(read)
    timings["parse"] = _ms(t0)

    # directive ranges in global offsets (also given to the rules)
    directive_ranges: tuple[tuple[int, int], ...] = ()
    if settings.directive_spans:
        block_pos = {(b.message, b.block): b.start for b in view.blocks}
        directive_ranges = tuple((block_pos[(d.message, d.block)] + d.start, block_pos[(d.message, d.block)] + d.end)
                                 for d in settings.directive_spans)

    t0 = time.perf_counter()
    structure = xml_protections(view, read, material=False)  # <context>: ranges the repeat scan must skip
    protect_ms = _ms(t0)
    t0 = time.perf_counter()
    ids, start, end, group, block, idx, block_ms, (g_start, g_end, g_tokens) = _tokenize_view(
        shown, _TOKEN_CACHE if config.block_cache else None)
    timings["tokenize"] = _ms(t0)
    n_groups = len(g_start)

    t0 = time.perf_counter()
    finds = material_finds(view, read, reuse=config.block_cache)
    # the scans read the structure's <context> ranges, which material leaves as they are
    scans = scan(view, structure, directive_ranges)
    # the scanners' time counts in protect, the repeat scan's in detect
    protect_ms += _ms(t0) - scans.repeats_ms
    detect_ms = scans.repeats_ms

    # material is found in every block, or (``material_everywhere=False``) in the blocks a rule proposes a cut in
    # and those holding the first copies the cuts keep, until no pass adds one: material elsewhere vetoes nothing
    needed: set[int] | None = None if config.material_everywhere else set()
    used: list[Material] | None = None  # the material of the protections in force
    while True:
        t0 = time.perf_counter()
        material = finds.found(needed)
        if used is not None and len(material) == len(used):
            break  # the blocks the last pass added hold no material: its protections and hits stand
        used = material
        protection = structure if needed is None else structure.copy()
        add_material(protection, view, found=material)
        protection = find_protections(view, scans, protection, settings.compiled_patterns,
                                      settings.protected_patterns, pattern_text=shown.text)
        protect_ms += _ms(t0)
        t0 = time.perf_counter()
        ctx = RuleContext(settings=settings, protection=protection, scans=scans,
                          low_information=config.low_information, directive_ranges=directive_ranges,
                          reuse=config.block_cache)
        candidates, columns, lower_starts, kept_whole = _detect(view, ctx, directive_ranges)
        detect_ms += _ms(t0)
        if needed is None:
            break
        more = _blocks_touched(view, candidates, columns) - needed
        if not more:
            break
        needed |= more
    timings["detect"] = detect_ms

    # directive groups: those that start inside a directive span
    g_directive = np.zeros(n_groups, dtype=bool)
    for s, e in directive_ranges:
        _mark_starting_inside(g_directive, g_start, s, e)

    t0 = time.perf_counter()
    g_prot, g_prot_iv = apply_protections(protection, g_start, g_end, n_groups)
    protect_ms += _ms(t0)

    t0 = time.perf_counter()
    g_span, g_veto, spans, selection = resolve(view, candidates, columns, protection, g_start, g_end, g_tokens,
                                               g_prot, g_prot_iv, g_directive, ids, group)
    tok_directive, tokens_directive, info_total, span_loss, span_cost = selection
    for s, e, why in (*repeated_rule.kept_notes(view), *lower_starts):  # candidates kept say why
        a, b = np.searchsorted(g_start, s, "left"), np.searchsorted(g_start, e, "left")
        for g in range(int(a), int(b)):
            if not g_prot[g] and g_span[g] < 0 and g not in g_veto:
                g_veto[g] = why
    for s, e, note in kept_whole:  # every group of a block kept whole says why
        a, b = np.searchsorted(g_start, s, "left"), np.searchsorted(g_start, e, "left")
        why = note.format(where=view.where(s).rsplit(",", 1)[0])
        for g in range(int(a), int(b)):
            if not g_prot[g] and not g_directive[g]:
                g_veto[g] = why
    if view is not shown:  # reasons quote the text as written, not the Simplified reading the rules had
        spans.quote_as_written(view.text, shown.text)
        protection.written = shown.text
        g_veto = {g: as_written(why, view.text, shown.text, int(g_start[g])) for g, why in g_veto.items()}
    timings["protect"] = protect_ms
    timings["resolve"] = _ms(t0)
    timings["context_preservation"] = protection.context_ms

    return Annotated(
        conversation=conv, config=config, settings=settings, view=shown, read=None if view is shown else view,
        tok_ids=ids, tok_start=start, tok_end=end, tok_group=group, tok_block=block, tok_i=idx,
        tok_directive=tok_directive, g_start=g_start, g_end=g_end, g_prot=g_prot,
        g_prot_iv=g_prot_iv, protection=protection, g_span=g_span, g_veto=g_veto, spans=spans,
        span_cost=span_cost, span_loss=span_loss,
        info_total=info_total, tokens_total=int(len(ids)) - tokens_directive,
        tokens_directive=tokens_directive, timings_ms=timings, warnings=settings.warnings,
        block_tokenize_ms=tuple(block_ms), _unread=None if needed is None else (finds, used or []),
    )


def _detect(view: TextView, ctx: RuleContext, directive_ranges: tuple[tuple[int, int], ...]
            ) -> tuple[list[Candidate], list[Hits], list[tuple[int, int, str]], Sequence[tuple[int, int, str]]]:
    """Every rule's hits, closed and guarded: (candidates, columns, sentence starts kept lower case, blocks kept
    whole).  A rule's hits are resolved as columns, or one candidate at a time when its hits differ in what they
    may override or lack an anchor or lock some have (derivable context's kinds)."""
    candidates: list[Candidate] = []
    columns: list[Hits] = []
    for _, rule in RULES:
        hits = rule(view, ctx)
        if hits.columnar:
            columns.append(hits)
        else:
            candidates.extend(hits.candidates())
    candidates, columns = close_candidates(view, candidates, columns)
    candidates, columns, lower_starts = keep_sentence_case(view, candidates, columns)
    candidates, columns, kept_whole = guard_blocks(view, candidates, columns, directive_ranges)
    return candidates, columns, lower_starts, kept_whole


def _blocks_touched(view: TextView, candidates: Sequence[Candidate], columns: Sequence[Hits]) -> set[int]:
    """The blocks (view indices) a candidate starts in or holds the first copy it keeps (its lock) in."""
    starts = view.block_starts
    points = [c.start for c in candidates] + [c.lock[0] for c in candidates if c.lock is not None]
    for hits in columns:
        points.extend(hits.starts)
        if hits.locks is not None:
            points.extend(lock[0] for lock in hits.locks if lock is not None)
    return {bisect.bisect_right(starts, p) - 1 for p in set(points)}


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


_NO_SPECIAL: frozenset[str] = frozenset()


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


def _tokenize_view(view: TextView, cache: _TokenCache | None = None) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[float],
        tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Token arrays over all blocks: each block encoded on its own, offsets computed once over the view.

    Per block only the encoding runs (the per-block timings are that call, or the cache hit); byte →
    character offsets, display groups and indexes are computed once over the whole view — by the
    ``_native.tokenize`` kernel when built, else here with numpy (the definition) — which keeps a request of
    many short turns from paying a per-call overhead for every turn.
    """
    enc = encoding()
    text = view.text
    kernel = _native.native
    block_ms: list[float]
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
    block_ms = []
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


def _groups(start: np.ndarray, end: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per display group: first character, end character and token count."""
    n_groups = int(group[-1]) + 1
    g_first = np.searchsorted(group, np.arange(n_groups))
    g_last = np.append(g_first[1:], len(group)) - 1
    return start[g_first], end[g_last], np.bincount(group, minlength=n_groups).astype(np.int64)


def _mark_starting_inside(mask: np.ndarray, g_start: np.ndarray, s: int, e: int) -> None:
    a, b = np.searchsorted(g_start, s, "left"), np.searchsorted(g_start, e, "left")
    mask[a:b] = True
