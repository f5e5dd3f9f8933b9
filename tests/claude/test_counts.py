"""Exact token counts: count_tokens through the real SDK, cached per (model, conversation hash); offline estimates."""
from __future__ import annotations

import json

from layerzero_viz import annotate, load_conversation
from layerzero_viz.claude import (ESTIMATE_LABEL, EXACT_LABEL, Store, TokenCounter, client_from_env,
                                  pruned_request_of, request_of)

from .conftest import API_KEY
from .fake_anthropic import COUNT, fake_token_count
from .helpers import FINANCE, MODEL


def finance_result(ratio=0.5):
    conv = load_conversation(json.dumps(FINANCE, ensure_ascii=False).encode())
    return annotate(conv, env={}).at_ratio(ratio)


def test_without_a_key_counts_are_offline_cl100k_estimates(server):
    assert client_from_env() is None
    counts = TokenCounter(client_from_env()).counts(finance_result())
    assert counts.source == ESTIMATE_LABEL and not counts.exact
    assert counts.original_estimate > counts.pruned_estimate > 0
    assert server.count() == 0


def test_exact_counts_come_from_count_tokens_and_are_cached(make_client, server, tmp_path):
    result = finance_result()
    counter = TokenCounter(make_client(), model=MODEL, store=Store(tmp_path / "cache.db"))
    counts = counter.counts(result)
    assert counts.source == EXACT_LABEL and not counts.cached
    assert counts.original == fake_token_count(request_of(result.annotated.conversation))
    assert counts.pruned == fake_token_count(pruned_request_of(result)) < counts.original
    assert counts.original_estimate == result.tokens_total
    assert server.count(COUNT) == 2
    assert counter.counts(result).cached and server.count(COUNT) == 2
    # the cache is on disk: a new counter on the same file asks nothing
    again = TokenCounter(make_client(), model=MODEL, store=Store(tmp_path / "cache.db")).counts(result)
    assert (again.original, again.pruned, again.cached) == (counts.original, counts.pruned, True)
    assert server.count(COUNT) == 2
    # another model is another key
    TokenCounter(make_client(), model="claude-other", store=Store(tmp_path / "cache.db")).counts(result)
    assert server.count(COUNT) == 4


def test_the_key_and_base_url_come_from_the_environment(server, monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    counts = TokenCounter(client_from_env(), model=MODEL, store=Store(tmp_path / "c.db")).counts(finance_result())
    assert counts.exact and server.count(COUNT) == 2
    _, _, _, headers = server.hits[-1]
    assert headers["authorization"] == f"Bearer {API_KEY}"


def test_an_api_error_leaves_the_estimate_and_says_why(make_client, server, tmp_path):
    server.fail(COUNT, 500)
    counts = TokenCounter(make_client(max_retries=0), model=MODEL, store=Store(tmp_path / "c.db")).counts(
        finance_result())
    assert counts.original is None and counts.source == ESTIMATE_LABEL
    assert "InternalServerError" in counts.error and counts.original_estimate > 0
