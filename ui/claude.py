"""Claude in the app: exact token counts in the sidebar and the A/B run behind the A/B page.

Everything is offline unless ``ANTHROPIC_API_KEY`` is set; then counts come from ``messages.count_tokens``
(cached in SQLite per model and conversation hash, and for a minute per session so a failing API is not
asked again on every rerun) and are shown next to the cl100k estimate.
"""
from __future__ import annotations

import hashlib
import os
from typing import Any, Callable

import streamlit as st

from layerzero_viz.appstate import md_escape
from layerzero_viz.claude import ABReport, ABRunner, Row, Store, TokenCounter, client_from_env, has_api_key
from layerzero_viz.claude.counts import ESTIMATE_LABEL, model_from_env
from layerzero_viz.claude.request import pruned_request_of, request_of
from layerzero_viz.claude.store import cache_path, digest

from .session import Current


def _key_fingerprint() -> str:
    """Which key and endpoint are configured, without keeping the key itself as a cache key."""
    key = os.environ.get("ANTHROPIC_API_KEY", "")
    return hashlib.sha256(f"{key}|{os.environ.get('ANTHROPIC_BASE_URL', '')}".encode()).hexdigest()


@st.cache_resource(show_spinner=False)
def _counter(fingerprint: str, model: str, cache: str) -> TokenCounter:
    return TokenCounter(client_from_env(max_retries=1, timeout=15.0), model=model, store=Store(cache))


@st.cache_data(ttl=60, show_spinner=False)
def _counts(fingerprint: str, model: str, cache: str, requests_digest: str, _result: Any) -> dict[str, Any]:
    return _counter(fingerprint, model, cache).counts(_result).to_dict()


def exact_counts(cur: Current | None) -> None:
    """Sidebar: Claude's exact counts before → after next to the cl100k estimate (a caption only, offline)."""
    if cur is None:
        return
    result = cur.result
    if not has_api_key():
        st.caption(f"Token figures are {ESTIMATE_LABEL}s. Set ANTHROPIC_API_KEY for Claude's exact counts.")
        return
    model = model_from_env()
    try:
        requests_digest = digest([request_of(cur.annotated.conversation), pruned_request_of(result)])
    except Exception as exc:  # noqa: BLE001 - an input Claude cannot take (no user text) is not an app error
        st.caption(f"Exact count unavailable: {md_escape(str(exc))}")
        return
    counts = _counts(_key_fingerprint(), model, cache_path(), requests_digest, result)
    if counts["original"] is None:
        st.caption(f"Exact count unavailable ({md_escape(str(counts['error']))}); figures are {ESTIMATE_LABEL}s.")
        return
    st.metric("Tokens before → after (Claude, exact)", f"{counts['original']:,} → {counts['pruned']:,}",
              help=f"messages.count_tokens with {model}, message framing included; cached per model and "
                   f"conversation. {ESTIMATE_LABEL}: {counts['original_estimate']:,} → {counts['pruned_estimate']:,}.")
    st.caption(f"{ESTIMATE_LABEL}: {counts['original_estimate']:,} → {counts['pruned_estimate']:,} · "
               f"exact: {md_escape(model)}")


def run_ab(rows: list[Row], *, model: str, ratio: float, concurrency: int,
           on_outcome: Callable[..., None] | None = None) -> ABReport:
    """Run A/B over ``rows`` against the configured API (retries 4, cached in the shared SQLite cache)."""
    client = client_from_env(max_retries=4, timeout=120.0)
    if client is None:
        from layerzero_viz.claude import NoAPIKeyError
        raise NoAPIKeyError("an A/B run")
    with client, Store() as store:
        return ABRunner(client, model=model, ratio=ratio, store=store, concurrency=concurrency).run(
            rows, on_outcome=on_outcome)
