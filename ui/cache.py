"""Cached engine calls: detection runs once per conversation and settings, selection once per ratio and floor.

``st.cache_resource`` shares the objects between reruns and sessions.  Every cache is keyed on the same
tuple — the conversation's sha256, its format and JSONL line, the low-information switch, the
layer-zero environment variables and the sidebar's domain profile (``profile``: ``ui.session.profile_key()``,
passed in so that this module imports nothing of ``ui``) — and the heavy objects are passed as underscore
arguments, which Streamlit does not hash.
"""
from __future__ import annotations

import os
from typing import Any

import streamlit as st

from layerzero_viz import Annotated, Config, annotate
from layerzero_viz.appstate import ResultView, Source
from layerzero_viz.directives import ENV_ENABLED, ENV_RATIO

# How many times detection really ran in this process: tests read it to prove the slider never re-detects.
ANNOTATE_CALLS = {"count": 0}

Key = tuple[Any, ...]
ProfileKey = tuple[Any, ...]  # (the profile the engine applies: None, "auto" or a name; $LAYERZERO_PROFILES)


def _key(source: Source, low_information: bool, profile: ProfileKey) -> Key:
    env = tuple(os.environ.get(name) for name in (ENV_ENABLED, ENV_RATIO))  # the settings read them too
    return (source.digest, source.format, source.line, bool(low_information), env, tuple(profile))


@st.cache_resource(max_entries=8, show_spinner="Scoring every token…")
def _annotation(key: Key, _source: Source) -> Annotated:
    ANNOTATE_CALLS["count"] += 1
    return annotate(_source.load(), Config(low_information=key[3], profile=key[5][0]))


@st.cache_resource(max_entries=64, show_spinner=False)
def _result_view(key: Key, ratio: float | None, floor: float, _annotated: Annotated) -> ResultView:
    return ResultView(_annotated.at_ratio(ratio, min_effectiveness=floor))


@st.cache_resource(max_entries=32, show_spinner="Sweeping prune_ratio 0 → 0.95…")
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
    return _result_view(key, ratio, float(floor), _annotation(key, source))


def sweep(source: Source, low_information: bool, floor: float = 1.0, *, profile: ProfileKey) -> list[dict[str, Any]]:
    """Pruned fraction and effectiveness estimate for r = 0.00 … 0.95 under ``floor``, over the cached annotation."""
    key = _key(source, low_information, profile)
    return _sweep(key, float(floor), _annotation(key, source))
