"""Cached engine calls: detection runs once per conversation and settings, selection once per ratio and floor.

The caches are shared by every session of the server process and **bounded by bytes, not entries**: an
annotation or a page's tables grow with the conversation (≈ 150-250 bytes per token for an annotation, ≈ 1 KB per
token for a result view with its token table), so a count of entries bounds nothing — eight 1.4M-token
annotations with their views held 2.9 GB.  Each cache is a :class:`ByteLRU` with its own budget
(:data:`ANNOTATION_BYTES`, :data:`VIEW_BYTES`); the least recently used entries go first, and an entry larger
than its whole budget is used for the run that built it and not kept.  Sizes are estimates from the token
count (:func:`annotation_bytes`, :func:`view_bytes`), calibrated against ``tracemalloc`` by
``tests/app/test_app_bounds.py``.

Every cache is keyed on the same tuple — the conversation's sha256, its format and JSONL line, the
low-information switch, the layer-zero environment variables and the sidebar's domain profile (``profile``:
``ui.session.profile_key()``, passed in so that this module imports nothing of ``ui``).
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, TypeVar

import streamlit as st

from layerzero_viz import Annotated, Config, annotate
from layerzero_viz.appstate import ResultView, Source
from layerzero_viz.directives import ENV_ENABLED, ENV_RATIO

# How many times detection really ran in this process: tests read it to prove the slider never re-detects.
ANNOTATE_CALLS = {"count": 0}

Key = tuple[Any, ...]
ProfileKey = tuple[Any, ...]  # (the profile the engine applies: None, "auto" or a name; $LAYERZERO_PROFILES)
V = TypeVar("V")

ANNOTATION_BYTES = 384 * 2**20
"""All cached annotations together: ≈ 2.5M tokens of conversations."""
VIEW_BYTES = 640 * 2**20
"""All cached result views (decisions at one ratio and floor, with the token table and rendered pages)."""
SWEEP_ENTRIES = 32  # a sweep is ~100 rows of numbers whatever the conversation's size: entries bound it

# Per-token sizes measured with tracemalloc on corpus conversations of 20k-300k tokens (annotation 130-160 B;
# 230 B on a chat that repeats itself, whose repeats are spans; result view with its token and deleted-span
# tables 900-950 B), rounded up; the text itself on top.
_ANNOTATION_PER_TOKEN = 300
_VIEW_PER_TOKEN = 1200
_VIEW_MEMO_PER_TOKEN = 600  # rendered heatmap pages and charts memoised on the view as pages are visited


class ByteLRU(Generic[V]):
    """A least-recently-used map bounded by the estimated bytes of its values, safe across script threads.

    >>> lru = ByteLRU(100, size=len)
    >>> len(lru.get_or_build("a", lambda: "x" * 60)), len(lru.get_or_build("b", lambda: "y" * 60))
    (60, 60)
    >>> lru.keys(), lru.held
    (['b'], 60)
    """

    def __init__(self, budget: int, *, size: Callable[[V], int]) -> None:
        self.budget = int(budget)
        self.size = size
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    @property
    def held(self) -> int:
        """Estimated bytes held now (never more than ``budget``)."""
        return self._held

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._held = 0

    def get(self, key: Hashable) -> V | None:
        """The value under ``key``, or None when it is not held (never built, or evicted)."""
        return self._get(key)[1]

    def put(self, key: Hashable, value: V) -> None:
        """Hold ``value`` under ``key`` (unless it is larger than the whole budget)."""
        self._put(key, value)

    def _get(self, key: Hashable) -> tuple[bool, V | None]:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return True, self._items[key][0]
            return False, None

    def get_or_build(self, key: Hashable, build: Callable[[], V]) -> V:
        """The value under ``key``, built once (two sessions asking at once wait for one build)."""
        found, value = self._get(key)
        if found:
            return value  # type: ignore[return-value]
        with self._lock:
            gate = self._building.setdefault(key, threading.Lock())
        with gate:
            found, value = self._get(key)
            if found:
                return value  # type: ignore[return-value]
            try:
                value = build()
            finally:
                with self._lock:
                    self._building.pop(key, None)
            self._put(key, value)
            return value

    def _put(self, key: Hashable, value: V) -> None:
        nbytes = max(1, int(self.size(value)))
        with self._lock:
            if key in self._items:
                self._held -= self._items.pop(key)[1]
            if nbytes > self.budget:  # used by the run that built it, never kept
                return
            while self._items and self._held + nbytes > self.budget:
                self._held -= self._items.popitem(last=False)[1][1]
            self._items[key] = (value, nbytes)
            self._held += nbytes


def annotation_bytes(annotated: Annotated) -> int:
    """Estimated bytes an annotation holds: its token arrays, spans and view, plus the conversation's text."""
    chars = sum(len(b.text) for m in annotated.conversation.messages for b in m.blocks)
    return _ANNOTATION_PER_TOKEN * _tokens(annotated) + 2 * chars


def view_bytes(view: ResultView) -> int:
    """Estimated bytes a result view holds once its pages were drawn: token table, deleted spans, pages' HTML."""
    return (_VIEW_PER_TOKEN + _VIEW_MEMO_PER_TOKEN) * _tokens(view.result.annotated)


def _tokens(annotated: Annotated) -> int:
    return int(len(annotated.tok_ids))  # directives included: they are tokens the arrays hold


ANNOTATIONS: ByteLRU[Annotated] = ByteLRU(ANNOTATION_BYTES, size=annotation_bytes)
SOURCE_BYTES = 128 * 2**20
"""The conversations sessions loaded, held for a browser reload (:func:`hold`): their text, ≈ 4 bytes a character."""
SOURCES: ByteLRU[Source] = ByteLRU(SOURCE_BYTES, size=lambda source: 4 * len(source.text) + 256)


def hold(source: Source) -> str:
    """Hold ``source`` in this process for a reload of the page that shows it; the token the URL carries (``?c=``).

    The token is a digest of the source (text, format, line and name): loading the same conversation again gives the
    same URL.  Only this server process holds it, in memory, least recently used first out; nothing is written.
    """
    token = hashlib.sha256(json.dumps([source.digest, source.format, source.line, source.name]).encode()).hexdigest()
    token = token[:16]
    SOURCES.put(token, source)
    return token


def held(token: str) -> Source | None:
    """The source :func:`hold` gave ``token`` for, or None when this process does not hold it (restarted, evicted)."""
    return SOURCES.get(token) if isinstance(token, str) else None
VIEWS: ByteLRU[ResultView] = ByteLRU(VIEW_BYTES, size=view_bytes)


def _key(source: Source, low_information: bool, profile: ProfileKey) -> Key:
    env = tuple(os.environ.get(name) for name in (ENV_ENABLED, ENV_RATIO))  # the settings read them too
    return (source.digest, source.format, source.line, bool(low_information), env, tuple(profile))


def _annotation(key: Key, source: Source) -> Annotated:
    def build() -> Annotated:
        with st.spinner("Scoring every token…"):
            ANNOTATE_CALLS["count"] += 1
            return annotate(source.load(), Config(low_information=key[3], profile=key[5][0]))
    return ANNOTATIONS.get_or_build(key, build)


@st.cache_resource(max_entries=SWEEP_ENTRIES, show_spinner="Sweeping prune_ratio 0 → 0.95…")
def _sweep(key: Key, floor: float, _annotated: Annotated) -> list[dict[str, float]]:
    return _annotated.sweep(min_effectiveness=floor)


def annotation(source: Source, low_information: bool, *, profile: ProfileKey) -> Annotated:
    """The annotated conversation (raises the library's errors when the source cannot be read)."""
    return _annotation(_key(source, low_information, profile), source)


def result_view(source: Source, low_information: bool, ratio: float | None, floor: float = 1.0, *,
                profile: ProfileKey) -> ResultView:
    """Decisions at ``ratio`` (None: the conversation's own effective ratio) under the effectiveness ``floor``
    (1.0: lossless) over the cached annotation."""
    key = _key(source, low_information, profile)
    annotated = _annotation(key, source)
    return VIEWS.get_or_build((key, ratio, float(floor)),
                              lambda: ResultView(annotated.at_ratio(ratio, min_effectiveness=float(floor))))


def sweep(source: Source, low_information: bool, floor: float = 1.0, *, profile: ProfileKey) -> list[dict[str, Any]]:
    """Pruned fraction and effectiveness estimate for r = 0.00 … 0.95 under ``floor``, over the cached annotation."""
    key = _key(source, low_information, profile)
    return _sweep(key, float(floor), _annotation(key, source))
