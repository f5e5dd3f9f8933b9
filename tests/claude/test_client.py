"""LayerZeroClient (a real Anthropic client with the layer-zero middleware) through the real SDK against the fake
server: pruning, audit log, metrics, retries, guard."""
from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import json
import logging
import urllib.request

import anthropic
import pytest

from layerzero_viz import Config, DirectiveError, annotate, load_conversation
from layerzero_viz.anthropic import AsyncLayerZeroClient, LayerZeroClient, RollbackGuard, layer_zero_of, serve_metrics
from layerzero_viz.claude import read_audit

from .conftest import API_KEY
from .fake_anthropic import COUNT, MESSAGES
from .helpers import FINANCE, MODEL, SUPPORT, create_kwargs

AUDIT_KEYS = {"log_type", "version", "event", "call_id", "time", "method", "model", "original_request",
              "pruned_request", "ratio", "ratio_source", "enabled", "tokens", "timings_ms", "response_id", "error"}


def expected_pruned(doc: dict, ratio: float) -> dict:
    conv = load_conversation(json.dumps(doc, ensure_ascii=False).encode(), "anthropic")
    return annotate(conv, Config(ratio=ratio, env={})).at_ratio(None).output


def sent_bodies(server) -> list[dict]:
    return [body for path, _, body, _ in server.hits if path == MESSAGES]


def test_create_prunes_system_and_messages_and_returns_the_sdks_message(make_client, server, registry):
    client = LayerZeroClient(make_client(), ratio=0.5, registry=registry, env={})
    kwargs = create_kwargs(FINANCE)
    before = copy.deepcopy(kwargs)
    message = client.messages.create(**kwargs)
    assert isinstance(message, anthropic.types.Message)
    assert kwargs == before  # the caller's request is not mutated
    sent = sent_bodies(server)[-1]
    want = expected_pruned(FINANCE, 0.5)
    assert sent["messages"] == want["messages"] and sent["system"] == want["system"]
    assert sent["messages"] != FINANCE["messages"] and "4.2%" in sent["messages"][0]["content"]
    assert sent["model"] == MODEL and sent["max_tokens"] == 64
    assert message.content[0].text == "echo: " + want["messages"][0]["content"]


def test_client_sends_only_the_safe_tier_by_default_and_the_lossy_tier_when_asked(make_client, server, registry):
    conv = load_conversation(json.dumps(SUPPORT, ensure_ascii=False).encode(), "anthropic")
    ann = annotate(conv, Config(ratio=0.9, env={}))
    lossless = LayerZeroClient(make_client(), ratio=0.9, registry=registry, env={})
    lossless.messages.create(**create_kwargs(SUPPORT))
    assert sent_bodies(server)[-1]["messages"] == ann.at_ratio(None).output["messages"]
    with pytest.raises(DirectiveError, match="min_effectiveness"):
        LayerZeroClient(make_client(), ratio=0.9, registry=registry, env={}, min_effectiveness=1.5)
    floor = LayerZeroClient(make_client(), ratio=0.9, registry=registry, env={}, min_effectiveness=0.9)
    floor.messages.create(**create_kwargs(SUPPORT))
    want = ann.at_ratio(None, min_effectiveness=0.9)
    assert want.tokens_lossy > 0
    assert sent_bodies(server)[-1]["messages"] == want.output["messages"]


def test_audit_record_is_complete_and_holds_no_secret(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(), ratio=0.5, audit_log=log, registry=registry, env={})
    message = client.messages.create(**create_kwargs(SUPPORT), extra_headers={"X-Trace": API_KEY})
    [record] = read_audit(log)
    assert AUDIT_KEYS <= record.keys()
    assert record["log_type"] == "layer_zero_audit" and record["event"] == "call"
    assert record["original_request"] == create_kwargs(SUPPORT)
    sent = sent_bodies(server)[-1]
    assert record["pruned_request"] == {k: sent[k] for k in record["pruned_request"]}
    assert record["ratio"] == 0.5 and record["ratio_source"] == "argument"
    assert record["response_id"] == message.id and record["error"] is None
    tokens = record["tokens"]
    assert tokens["pruned"] > 0 and tokens["pruned_estimate"] == tokens["original_estimate"] - tokens["pruned"]
    assert tokens["input_tokens"] == message.usage.input_tokens
    assert {"parse", "tokenize", "detect", "protect", "resolve", "select", "prune_total", "api"} <= record["timings_ms"].keys()
    text = log.read_text(encoding="utf-8")
    assert API_KEY not in text and "Bearer" not in text and "X-Trace" not in text


def test_one_audit_record_per_call_even_when_the_server_fails(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(max_retries=0), ratio=0.3, audit_log=log, registry=registry, env={})
    server.fail(MESSAGES, 500, 500)
    for _ in range(2):
        with pytest.raises(anthropic.InternalServerError):
            client.messages.create(**create_kwargs(FINANCE))
    client.messages.create(**create_kwargs(FINANCE))
    records = read_audit(log)
    assert [r["error"] and r["error"]["status_code"] for r in records] == [500, 500, None]
    assert records[0]["error"]["type"] == "InternalServerError" and records[0]["response_id"] is None
    assert records[2]["response_id"].startswith("msg_")
    assert len({r["call_id"] for r in records}) == 3
    assert API_KEY not in log.read_text(encoding="utf-8")


def test_the_sdk_retries_an_injected_429_and_500(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(max_retries=2), audit_log=log, registry=registry, env={})
    server.fail(MESSAGES, 429, 500)
    message = client.messages.create(**create_kwargs(FINANCE))
    assert [s for p, s, _, _ in server.hits if p == MESSAGES] == [429, 500, 200]
    [record] = read_audit(log)
    assert record["response_id"] == message.id and record["error"] is None


def test_retries_run_out_into_the_sdks_own_error(make_client, server, registry):
    client = LayerZeroClient(make_client(max_retries=2), registry=registry, env={})
    server.fail(MESSAGES, 429, 429, 429)
    with pytest.raises(anthropic.RateLimitError, match="rate limit"):
        client.messages.create(**create_kwargs(FINANCE))
    assert server.count(MESSAGES, 429) == 3 and server.count(MESSAGES, 200) == 0


def test_a_timeout_surfaces_as_a_clear_error(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(max_retries=0, timeout=0.3), audit_log=log, registry=registry, env={})
    server.fail(MESSAGES, ("slow", 5.0))
    with pytest.raises(anthropic.APITimeoutError, match="timed out"):
        client.messages.create(**create_kwargs(FINANCE))
    [record] = read_audit(log)
    assert record["error"]["type"] == "APITimeoutError"


def test_metrics_are_read_back_from_the_registry(make_client, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(), ratio=0.5, audit_log=log, registry=registry, env={})
    client.messages.create(**create_kwargs(FINANCE))
    client.messages.create(**create_kwargs(SUPPORT))
    records = read_audit(log)
    pruned = sum(r["tokens"]["pruned"] for r in records)
    assert pruned > 0
    assert registry.get_sample_value("layer_zero_pruned_tokens_total") == pruned
    assert registry.get_sample_value("layer_zero_effectiveness_ratio", {"source": "estimate"}) == \
        pytest.approx(records[-1]["effectiveness_estimate"])
    assert registry.get_sample_value("layer_zero_context_preservation_ms_count") == 2
    layer_zero_of(client).record_effectiveness(0.98)
    assert registry.get_sample_value("layer_zero_effectiveness_ratio", {"source": "ab"}) == 0.98


def test_serve_metrics_exposes_the_registry(make_client, registry):
    LayerZeroClient(make_client(), ratio=0.5, registry=registry, env={}).messages.create(**create_kwargs(FINANCE))
    server = serve_metrics(0, registry=registry)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
    finally:
        server.shutdown()
    assert "layer_zero_pruned_tokens_total" in text and 'layer_zero_effectiveness_ratio{source="estimate"}' in text


@pytest.mark.parametrize("where, want", [("argument", 0.2), ("env", 0.25), ("header", 0.15), ("directive", 0.35)])
def test_settings_follow_argument_env_header_directive(make_client, server, registry, tmp_path, where, want):
    doc = copy.deepcopy(FINANCE)
    doc["system"] = '<layer-zero enabled="true" prune_ratio="0.35"/>\n' + doc["system"]
    env = {"ANTHROPIC_LAYER_ZERO_PRUNE_RATIO": "0.25"} if where in ("argument", "env") else {}
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(), ratio=0.2 if where == "argument" else None, audit_log=log,
                             registry=registry, env=env)
    header = {"X-Anthropic-Layer-Zero": "enabled;prune_ratio=0.15"} if where != "directive" else {}
    client.messages.create(**create_kwargs(doc), extra_headers=header)
    [record] = read_audit(log)
    assert (record["ratio"], record["ratio_source"]) == (want, where)
    path, _, body, headers = server.hits[-1]
    assert "x-anthropic-layer-zero" not in headers  # an engine header: consumed, not forwarded
    assert "<layer-zero" not in json.dumps(body["system"])  # a directive instructs the engine, not Claude


def test_count_tokens_counts_what_create_would_send(make_client, server, registry):
    client = LayerZeroClient(make_client(), ratio=0.9, registry=registry, env={})
    counted = client.messages.count_tokens(model=MODEL, **FINANCE)
    path, _, body, _ = server.hits[-1]
    want = expected_pruned(FINANCE, 0.9)
    assert path == COUNT and body["messages"] == want["messages"] != FINANCE["messages"]
    client.messages.create(**create_kwargs(FINANCE))
    assert sent_bodies(server)[-1]["messages"] == body["messages"] and counted.input_tokens > 0


def test_a_pruning_failure_sends_the_request_unpruned_and_says_why(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    doc = copy.deepcopy(FINANCE)
    doc["system"] = '<layer-zero prune_ratio="2"/>\n' + doc["system"]
    LayerZeroClient(make_client(), audit_log=log, registry=registry, env={}).messages.create(**create_kwargs(doc))
    assert sent_bodies(server)[-1]["system"] == FINANCE["system"]  # unpruned, minus the directive
    assert "DirectiveError" in read_audit(log)[0]["pruning_error"]
    assert registry.get_sample_value("layer_zero_requests_failed_total", {"kind": "pruning"}) == 1
    strict = LayerZeroClient(make_client(), audit_log=log, registry=registry, env={}, fail_open=False)
    with pytest.raises(DirectiveError, match="outside"):
        strict.messages.create(**create_kwargs(doc))
    assert len(read_audit(log)) == 2 and server.count(MESSAGES) == 1


def test_a_pruning_failure_in_count_tokens_counts_the_request_unpruned_and_says_why(make_client, server, registry,
                                                                                    caplog):
    doc = copy.deepcopy(FINANCE)
    doc["system"] = '<layer-zero prune_ratio="2"/>\n' + doc["system"]
    with caplog.at_level(logging.WARNING, logger="layerzero_viz.anthropic"):
        LayerZeroClient(make_client(), registry=registry, env={}).messages.count_tokens(model=MODEL, **doc)
    path, _, body, _ = server.hits[-1]
    assert path == COUNT and body["system"] == FINANCE["system"]  # unpruned, minus the directive
    assert "counting the request unpruned" in caplog.text and "outside" in caplog.text
    assert registry.get_sample_value("layer_zero_requests_failed_total", {"kind": "pruning"}) == 1


def test_the_guard_lowers_the_ratio_when_effectiveness_stays_low(make_client, registry, tmp_path, caplog):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(), ratio=0.3, audit_log=log, registry=registry, env={},
                             guard=RollbackGuard(window=2))
    layer_zero = layer_zero_of(client)
    layer_zero.record_effectiveness(0.95)
    assert layer_zero.ratio == 0.3
    with caplog.at_level(logging.WARNING, logger="layerzero_viz.anthropic"):
        layer_zero.record_effectiveness(0.96)
    assert layer_zero.ratio == pytest.approx(0.27)
    assert "rollback" in caplog.text
    [rollback] = read_audit(log)
    assert rollback["event"] == "rollback" and rollback["ratio_after"] == pytest.approx(0.27)
    client.messages.create(**create_kwargs(FINANCE))
    assert read_audit(log)[-1]["ratio"] == pytest.approx(0.27)


def test_with_options_keeps_pruning_and_the_audit_log(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(), ratio=0.5, audit_log=log, registry=registry, env={})
    client.with_options(max_retries=0).messages.create(**create_kwargs(FINANCE))
    assert sent_bodies(server)[-1]["messages"] == expected_pruned(FINANCE, 0.5)["messages"]
    assert len(read_audit(log)) == 1


def test_the_async_client_prunes_audits_and_returns_the_message(server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"

    async def main():
        async with anthropic.AsyncAnthropic(api_key=API_KEY, base_url=server.url, max_retries=2) as raw:
            client = AsyncLayerZeroClient(raw, ratio=0.5, audit_log=log, registry=registry, env={})
            server.fail(MESSAGES, 500)
            first = await client.messages.create(**create_kwargs(FINANCE))
            counted = await client.messages.count_tokens(model=MODEL, **SUPPORT)
            return first, counted

    # a thread of its own: an earlier test in the session (Playwright's sync API) may leave a loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        message, counted = pool.submit(asyncio.run, main()).result()
    assert isinstance(message, anthropic.types.Message) and counted.input_tokens > 0
    assert sent_bodies(server)[-1]["messages"] == expected_pruned(FINANCE, 0.5)["messages"]
    assert [s for p, s, _, _ in server.hits if p == MESSAGES] == [500, 200]
    [record] = read_audit(log)
    assert record["response_id"] == message.id
    assert API_KEY not in log.read_text(encoding="utf-8")


def test_stream_is_pruned_too_and_its_outcome_is_written_when_it_completes(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(), ratio=0.5, audit_log=log, registry=registry, env={})
    manager = client.messages.stream(**create_kwargs(FINANCE))
    assert type(manager).__name__ == "MessageStreamManager"
    assert not log.exists()  # the request goes out when the manager is entered, and is recorded then
    with manager as stream:
        [record] = read_audit(log)
        assert record["method"] == "messages.stream" and record["stream"] is True
        assert record["status"] == "pending"  # the outcome waits for the end of the stream
        assert record["pruned_request"]["messages"] == expected_pruned(FINANCE, 0.5)["messages"]
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "echo: " + expected_pruned(FINANCE, 0.5)["messages"][0]["content"]
    [record] = read_audit(log)
    assert record["status"] == "ok" and record["response_id"] == final.id and record["stop_reason"] == "end_turn"
    assert record["stream"]["completed"] is True and record["request_id"].startswith("req_fake_")
    assert record["tokens"]["output_tokens"] == final.usage.output_tokens
