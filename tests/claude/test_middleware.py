"""The layer-zero middleware through the real SDK (anthropic 2.14) against the fake server: every path that sends a
Messages request is pruned, sync and async; other endpoints are not; requests the API accepts; the seed's
defaults; prompt caching keeps working over a 6-turn chat; counters."""
from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import copy
import json
import warnings

import anthropic
import pytest

from layerzero_viz.anthropic import (AsyncLayerZeroClient, LayerZeroClient, LayerZeroMiddleware, layer_zero_middleware,
                                     layer_zero_of)
from layerzero_viz.claude import read_audit

from .conftest import API_KEY
from .fake_anthropic import COUNT, MESSAGES
from .helpers import FINANCE, MODEL, SUPPORT, create_kwargs
from .test_client import expected_pruned, sent_bodies

HEADER = "x-anthropic-layer-zero"
PRUNED = expected_pruned(FINANCE, 0.5)


def run_async(main):
    """``asyncio.run(main)`` in a thread of its own (a test before may leave a loop running in this one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main).result()


def counter(registry, name, **labels):
    return registry.get_sample_value(name, labels) or 0.0


# ---- every path is pruned ----------------------------------------------------------------------------------------
SYNC_PATHS = {
    "create": lambda c, kw: c.messages.create(**kw),
    "create(stream=True)": lambda c, kw: list(c.messages.create(**kw, stream=True)),
    "stream": lambda c, kw: c.messages.stream(**kw).__enter__().get_final_message(),
    "with_raw_response": lambda c, kw: c.messages.with_raw_response.create(**kw).parse(),
    "with_streaming_response": lambda c, kw: _streamed(c.messages.with_streaming_response.create(**kw)),
    "beta.messages": lambda c, kw: c.beta.messages.create(**kw),
    "beta.messages.stream": lambda c, kw: c.beta.messages.stream(**kw).__enter__().get_final_message(),
    "messages.parse": lambda c, kw: c.messages.parse(**kw),
    "copy()": lambda c, kw: c.copy(max_retries=1).messages.create(**kw),
    "with_options": lambda c, kw: c.with_options(timeout=5.0).messages.create(**kw),
}


def _streamed(manager):
    with manager as response:
        return response.parse()


@pytest.mark.parametrize("path", list(SYNC_PATHS))
def test_every_sync_path_sends_the_pruned_request(make_client, server, registry, tmp_path, path):
    log = tmp_path / "audit.jsonl"
    client = make_client().with_middleware(layer_zero_middleware(ratio=0.5, registry=registry, env={}, audit_log=log))
    SYNC_PATHS[path](client, create_kwargs(FINANCE))
    [body] = sent_bodies(server)
    assert body["messages"] == PRUNED["messages"] != FINANCE["messages"]
    assert body["system"] == PRUNED["system"]
    assert [r["status"] for r in read_audit(log)] == ["ok"]
    assert counter(registry, "layer_zero_requests_pruned_total", endpoint="messages") == 1


def test_every_async_path_sends_the_pruned_request(server, registry):
    paths = ["create", "create(stream=True)", "stream", "with_raw_response", "with_streaming_response",
             "beta.messages", "messages.parse", "copy()", "with_options", "count_tokens"]

    async def main():
        async with anthropic.AsyncAnthropic(api_key=API_KEY, base_url=server.url, max_retries=0,
                                            middleware=[layer_zero_middleware(ratio=0.5, registry=registry,
                                                                              env={})]) as client:
            kw = create_kwargs(FINANCE)
            await client.messages.create(**kw)
            [e async for e in await client.messages.create(**kw, stream=True)]
            async with client.messages.stream(**kw) as stream:
                await stream.get_final_message()
            await (await client.messages.with_raw_response.create(**kw)).parse()
            async with client.messages.with_streaming_response.create(**kw) as response:
                await response.parse()
            await client.beta.messages.create(**kw)
            await client.messages.parse(**kw)
            await client.copy(max_retries=1).messages.create(**kw)
            await client.with_options(timeout=5.0).messages.create(**kw)
            await client.messages.count_tokens(model=MODEL, **FINANCE)

    run_async(main())
    bodies = [body for _, _, body, _ in server.hits]
    assert len(bodies) == len(paths) and [p for p, *_ in server.hits].count(COUNT) == 1
    for path, body in zip(paths, bodies):
        assert body["messages"] == PRUNED["messages"] != FINANCE["messages"], path


def test_middleware_given_to_the_constructor_and_with_middleware_both_prune(server, registry):
    middleware = layer_zero_middleware(ratio=0.5, registry=registry, env={})
    with anthropic.Anthropic(api_key=API_KEY, base_url=server.url, middleware=[middleware]) as client:
        client.messages.create(**create_kwargs(FINANCE))
        assert layer_zero_of(client) is middleware and layer_zero_of(client.copy()) is middleware
    made = LayerZeroClient(api_key=API_KEY, base_url=server.url, ratio=0.5, registry=registry, env={})
    assert isinstance(made, anthropic.Anthropic) and isinstance(layer_zero_of(made), LayerZeroMiddleware)
    made.messages.create(**create_kwargs(FINANCE))
    made.close()
    assert [b["messages"] for b in sent_bodies(server)] == [PRUNED["messages"]] * 2
    with pytest.raises(LookupError, match="no layer-zero middleware"):
        layer_zero_of(anthropic.Anthropic(api_key=API_KEY))


def test_async_layer_zero_client_is_a_real_async_anthropic(server, registry):
    async def main():
        async with anthropic.AsyncAnthropic(api_key=API_KEY, base_url=server.url) as raw:
            client = AsyncLayerZeroClient(raw, ratio=0.5, registry=registry, env={})
            assert isinstance(client, anthropic.AsyncAnthropic)
            return await client.messages.create(**create_kwargs(FINANCE))

    message = run_async(main())
    assert message.content[0].text == "echo: " + PRUNED["messages"][0]["content"]


def test_other_endpoints_pass_untouched_and_the_header_never_leaves(make_client, server, registry):
    client = make_client(default_headers={"X-Anthropic-Layer-Zero": "enabled;prune_ratio=0.5"}, max_retries=0)
    client = client.with_middleware(layer_zero_middleware(registry=registry, env={}))
    requests = [{"custom_id": "a", "params": create_kwargs(FINANCE)}]
    with pytest.raises(anthropic.APIStatusError):  # the fake has no batches: the body it got is what matters
        client.messages.batches.create(requests=requests)
    client.messages.create(**create_kwargs(FINANCE))
    (batch_path, _, batch, batch_headers), (_, _, body, headers) = server.hits
    assert batch_path == "/v1/messages/batches" and batch["requests"] == requests  # Messages params, not pruned
    assert body["messages"] == PRUNED["messages"]  # the default header switched pruning on …
    assert HEADER not in batch_headers and HEADER not in headers  # … and reached no endpoint
    assert counter(registry, "layer_zero_requests_total", endpoint="messages") == 1


def test_the_deprecated_model_warning_still_reaches_the_caller(make_client, registry):
    client = LayerZeroClient(make_client(), ratio=0.5, registry=registry, env={})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client.messages.create(**create_kwargs(FINANCE, model="claude-sonnet-4-5"))
    assert any("deprecated" in str(w.message) for w in caught)


# ---- the seed's defaults -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("switch", ["nothing", "caller enabled", "caller ratio", "env", "extra header",
                                    "default header", "directive", "directive off"])
def test_pruning_runs_only_when_something_switches_it_on(make_client, server, registry, switch):
    doc = copy.deepcopy(FINANCE)
    if switch.startswith("directive"):
        on = "false" if switch == "directive off" else "true"
        doc["system"] = f'<layer-zero enabled="{on}" prune_ratio="0.5"/>\n' + doc["system"]
    options = {"default_headers": {"X-Anthropic-Layer-Zero": "enabled"}} if switch == "default header" else {}
    env = {"ANTHROPIC_EXPERIMENTAL_LAYER_ZERO": "true"} if switch == "env" else {}
    settings = {"caller enabled": {"enabled": True}, "caller ratio": {"ratio": 0.5}}.get(switch, {})
    client = make_client(**options).with_middleware(layer_zero_middleware(registry=registry, env=env, **settings))
    extra = {"extra_headers": {"X-Anthropic-Layer-Zero": "enabled"}} if switch == "extra header" else {}
    client.messages.create(**create_kwargs(doc), **extra)
    path, _, body, headers = server.hits[-1]
    assert HEADER not in headers and "<layer-zero" not in json.dumps(body, ensure_ascii=False)
    assert body["system"] == FINANCE["system"]
    if switch in ("nothing", "directive off"):
        assert body["messages"] == FINANCE["messages"]
        assert counter(registry, "layer_zero_requests_skipped_total", endpoint="messages", reason="disabled") == 1
        assert counter(registry, "layer_zero_pruned_tokens_total") == 0
    else:
        assert body["messages"] != FINANCE["messages"] and "4.2%" in body["messages"][0]["content"]
        assert counter(registry, "layer_zero_requests_pruned_total", endpoint="messages") == 1


# ---- requests the API accepts, meaning the same --------------------------------------------------------------------
def test_a_directive_only_system_prompt_leaves_no_system(make_client, server, registry):
    client = LayerZeroClient(make_client(), registry=registry, env={})
    client.messages.create(**create_kwargs({**FINANCE, "system": '<layer-zero enabled="true"/>'}))
    assert "system" not in sent_bodies(server)[-1]
    blocks = [{"type": "text", "text": '<layer-zero enabled="true"/>'}, {"type": "text", "text": "Be brief."}]
    client.messages.create(**create_kwargs({**FINANCE, "system": blocks}))
    assert sent_bodies(server)[-1]["system"] == [{"type": "text", "text": "Be brief."}]


def test_a_block_carrying_cache_control_is_never_removed(make_client, server, registry):
    client = LayerZeroClient(make_client(), registry=registry, env={})
    marked = {"type": "text", "text": '<layer-zero enabled="true"/>', "cache_control": {"type": "ephemeral"}}
    client.messages.create(**create_kwargs({**FINANCE, "system": [marked]}))
    assert sent_bodies(server)[-1]["system"] == [marked] and server.hits[-1][1] == 200


def test_tool_blocks_media_thinking_and_a_prefill_pass_untouched(make_client, server, registry):
    filler = "您好，麻烦您了，非常感谢您！请问结果是多少？"
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(b"\x89PNG fake").decode()}}
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": filler}}
    doc = {"system": "你是一名理财顾问。", "messages": [
        {"role": "user", "content": [image, document, {"type": "text", "text": filler}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": filler, "signature": "sig"},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": filler}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": filler}]},
            {"type": "text", "text": filler}]},
        {"role": "assistant", "content": "您好，非常感谢您！好的，"},  # a prefill
    ]}
    client = LayerZeroClient(make_client(), ratio=0.9, registry=registry, env={})
    client.messages.create(**create_kwargs(doc))
    status, body = server.hits[-1][1], server.hits[-1][2]
    assert status == 200
    sent, orig = body["messages"], doc["messages"]
    assert sent[0]["content"][:2] == orig[0]["content"][:2]
    assert sent[1] == orig[1] and sent[2]["content"][0] == orig[2]["content"][0] and sent[3] == orig[3]
    assert sent[0]["content"][2]["text"] != filler and sent[2]["content"][1]["text"] != filler  # text is pruned
    assert all(b.get("text") != "" for m in sent for b in (m["content"] if isinstance(m["content"], list) else []))


def test_a_directive_quoted_in_a_user_turn_is_text(make_client, server, registry):
    question = 'What does <layer-zero enabled="true"/> mean in a system prompt?'
    client = LayerZeroClient(make_client(), ratio=0.5, registry=registry, env={})
    client.messages.create(**create_kwargs({"messages": [{"role": "user", "content": question}]}))
    assert sent_bodies(server)[-1]["messages"][0]["content"] == question


@pytest.mark.parametrize("bad", ["empty tool_result text", "unanswered tool_use", "stray tool_result",
                                 "empty system block"])
def test_the_fake_refuses_what_the_api_refuses(make_client, server, bad):
    use = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                           "content": [{"type": "text", "text": ""}]}]}
    doc = {"empty tool_result text": {"messages": [{"role": "user", "content": "q"}, use, result]},
           "unanswered tool_use": {"messages": [{"role": "user", "content": "q"}, use,
                                                {"role": "user", "content": "and?"}]},
           "stray tool_result": {"messages": [{"role": "user", "content": "q"},
                                              {"role": "assistant", "content": "a"}, result]},
           "empty system block": {"system": [{"type": "text", "text": ""}],
                                  "messages": [{"role": "user", "content": "q"}]}}[bad]
    with pytest.raises(anthropic.BadRequestError):
        make_client(max_retries=0).messages.create(**create_kwargs(doc))


# ---- retries, counters ---------------------------------------------------------------------------------------------
def test_a_retried_call_is_pruned_once_and_has_one_request_record(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(max_retries=2), ratio=0.5, audit_log=log, registry=registry, env={})
    server.fail(MESSAGES, 500)
    client.messages.create(**create_kwargs(FINANCE))
    first, second = sent_bodies(server)
    assert first == second and first["messages"] == PRUNED["messages"]
    raw = read_audit(log, raw=True)
    assert [(r["event"], r.get("attempt")) for r in raw] == [("request", None), ("outcome", 1), ("outcome", 2)]
    assert [r["status"] for r in raw[1:]] == ["error", "ok"] and read_audit(log)[0]["status"] == "ok"
    assert counter(registry, "layer_zero_requests_total", endpoint="messages") == 1
    assert counter(registry, "layer_zero_requests_failed_total", kind="api_status") == 1


def test_counters_say_what_happened(make_client, server, registry, tmp_path):
    client = LayerZeroClient(make_client(max_retries=0), ratio=0.5, registry=registry, env={})
    client.messages.create(**create_kwargs(FINANCE))
    client.messages.create(**create_kwargs({"messages": [{"role": "user", "content": "SKU-12345 4.2%"}]}))
    client.messages.count_tokens(model=MODEL, **SUPPORT)
    bad = copy.deepcopy(FINANCE)
    bad["system"] = '<layer-zero prune_ratio="2"/>\n' + bad["system"]
    client.messages.create(**create_kwargs(bad))
    server.fail(MESSAGES, ("slow", 3.0))
    with pytest.raises(anthropic.APITimeoutError):
        client.with_options(timeout=0.3).messages.create(**create_kwargs(SUPPORT))
    assert counter(registry, "layer_zero_requests_total", endpoint="messages") == 4
    assert counter(registry, "layer_zero_requests_total", endpoint="count_tokens") == 1
    assert counter(registry, "layer_zero_requests_pruned_total", endpoint="messages") == 2
    assert counter(registry, "layer_zero_requests_pruned_total", endpoint="count_tokens") == 1
    assert counter(registry, "layer_zero_requests_skipped_total", endpoint="messages", reason="unchanged") == 1
    assert counter(registry, "layer_zero_requests_failed_total", kind="pruning") == 1
    assert counter(registry, "layer_zero_requests_failed_total", kind="connection") == 1


def test_a_request_seen_before_is_answered_from_the_cache_with_the_same_body(make_client, server, registry,
                                                                               tmp_path):
    log = tmp_path / "audit.jsonl"
    client = LayerZeroClient(make_client(), ratio=0.5, audit_log=log, registry=registry, env={})
    client.messages.count_tokens(model=MODEL, **FINANCE)
    client.messages.create(**create_kwargs(FINANCE))
    client.messages.create(**create_kwargs(FINANCE))
    counted, *created = [body for _, _, body, _ in server.hits]
    assert counted["messages"] == created[0]["messages"] == created[1]["messages"] == PRUNED["messages"]
    first, second = read_audit(log)
    assert first["cached"] is True and second["cached"] is True  # count_tokens pruned it first
    assert first["tokens"] == second["tokens"] and first["tokens"]["pruned"] > 0


# ---- prompt caching over a chat ------------------------------------------------------------------------------------
SYSTEM = ("你是一家银行的理财顾问，负责回答客户关于存款、基金和理财产品的问题。回答时引用具体数字，说明风险等级。"
          "货币基金的七日年化收益率反映最近七天的平均收益水平，万份收益表示每一万份基金份额当日的收益。"
          "理财产品按风险分为R1到R5五个等级，R1为谨慎型，R2为稳健型，R3为平衡型，R4为进取型，R5为激进型。"
          "定期存款的利率以本行当日挂牌利率为准，提前支取按活期利率计息。基金赎回到账时间一般为T+1到T+3个工作日。"
          "涉及具体产品时，提醒客户阅读产品说明书和风险揭示书，并根据自身风险承受能力做出选择。"
          "不要承诺收益，不要推荐具体的股票，不要透露其他客户的信息。遇到投诉时，记录问题并告知处理时限为五个工作日。")
TURNS = ["您好，麻烦您了，请问七日年化收益率4.2%是什么意思？非常感谢您！",
         "好的，谢谢您。那么请问万份收益1.15元又是什么意思呢？麻烦您了。",
         "不好意思再打扰一下，请问R2风险等级的产品会亏本吗？谢谢！",
         "您好，我是VIP客户，请问定期存款三年期利率是2.6%吗？非常感谢。",
         "麻烦您帮我比较一下货币基金和银行理财的流动性，谢谢您的耐心！",
         "最后一个问题，请问提前赎回需要手续费吗？非常感谢您的帮助！"]


def chat(client) -> list[tuple[dict, dict]]:
    """Six turns; each request marks the system prompt and the newest user turn with cache_control."""
    history: list[dict] = []
    out = []
    for text in TURNS:
        history.append({"role": "user", "content": [{"type": "text", "text": text}]})
        messages = [dict(m, content=[dict(b) for b in m["content"]]) for m in history]
        messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        message = client.messages.create(model=MODEL, max_tokens=64, messages=messages, system=[
            {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}])
        out.append((message.usage.model_dump(), {}))
        history.append({"role": "assistant", "content": [{"type": "text", "text": message.content[0].text}]})
    return out


def test_a_six_turn_chat_reads_the_prompt_cache_from_turn_2_as_the_bare_sdk_does(make_client, server, registry):
    bare = [u for u, _ in chat(make_client())]
    bare_bodies = sent_bodies(server)
    server.cache.__init__()  # an empty cache for the second chat
    pruned = [u for u, _ in chat(LayerZeroClient(make_client(), ratio=0.3, registry=registry, env={}))]
    bodies = sent_bodies(server)[len(bare_bodies):]
    # the pruned chat did prune, and resent its history byte for byte as sent the turn before
    assert counter(registry, "layer_zero_pruned_tokens_total") > 0
    for before, after in zip(bodies, bodies[1:]):
        resent = [dict(m, content=[{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]])
                  for m in after["messages"][:len(before["messages"])]]
        sent = [dict(m, content=[{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]])
                for m in before["messages"]]
        assert resent == sent and after["system"] == before["system"]
    for turn, (b, p) in enumerate(zip(bare, pruned), 1):
        total_b = b["input_tokens"] + (b["cache_read_input_tokens"] or 0) + (b["cache_creation_input_tokens"] or 0)
        total_p = p["input_tokens"] + (p["cache_read_input_tokens"] or 0) + (p["cache_creation_input_tokens"] or 0)
        if turn == 1:
            assert not b["cache_read_input_tokens"] and not p["cache_read_input_tokens"]
            continue
        assert p["cache_read_input_tokens"] > 0 and b["cache_read_input_tokens"] > 0
        # as large a share of the prompt comes from the cache as for the bare SDK, ±10 % (the pruned prompt is
        # smaller, so its cached tokens are fewer: that is the saving, not a miss)
        share_b, share_p = b["cache_read_input_tokens"] / total_b, p["cache_read_input_tokens"] / total_p
        assert share_p == pytest.approx(share_b, rel=0.10), (turn, share_b, share_p)
        # and all of it: what the turn before read or wrote up to its last breakpoint is read back
        for usage in (bare, pruned):
            before = usage[turn - 2]
            assert usage[turn - 1]["cache_read_input_tokens"] == \
                before["cache_read_input_tokens"] + before["cache_creation_input_tokens"], turn


def test_messages_and_system_given_in_extra_body_are_pruned_and_sent_pruned(make_client, server, registry, tmp_path):
    # the SDK merges extra_body into the body before the middleware sees it (anthropic 2.14), so what a caller
    # puts there is pruned, audited and sent pruned like the rest — held here, as a later SDK could merge it again
    log = tmp_path / "audit.jsonl"
    client = make_client().with_middleware(layer_zero_middleware(ratio=0.5, registry=registry, env={}, audit_log=log))
    kw = create_kwargs(FINANCE)
    extra = {"system": kw.pop("system"), "messages": kw.pop("messages")}
    client.messages.create(**kw, messages=[{"role": "user", "content": "placeholder"}], extra_body=extra)
    [body] = sent_bodies(server)
    assert body["messages"] == PRUNED["messages"] and body["system"] == PRUNED["system"]
    [record] = read_audit(log)
    assert record["pruned_request"]["messages"] == body["messages"] and record["status"] == "ok"
