"""Protections always win — including each scenario's traps from DESIGN.md."""
import json

import pytest
from lxml import etree

from layerzero_viz.structure import safe_parser

from .helpers import conv, prune, tokens_of

RATIOS = (0.3, 0.95)


@pytest.mark.parametrize("ratio", RATIOS)
def test_sku_prefix_is_never_split(ratio):
    r = prune(conv(None, "麻烦你帮我查一下SKU-12345的的库存，谢谢。Please check SKU-12345 and order #12345, thanks!"), ratio)
    out = r.messages[0].pruned
    assert out.count("SKU-12345") == 2 and "#12345" in out
    assert {t["reason"] for t in r.token_records() if t["text"].strip() in ("SK", "U", "-", "123", "45")} <= {
        "protected_identifier", "protected_number"}


@pytest.mark.parametrize("ratio", RATIOS)
def test_seven_day_annualised_yield_stays_intact(ratio):
    r = prune(conv('<protected_tokens>["\\\\d+\\\\.\\\\d+%", "七日"]</protected_tokens>\n你是理财顾问。',
                   "您好，请问七日年化收益率4.2%的的是什么意思呢？"), ratio)
    assert "七日年化收益率4.2%" in r.messages[1].pruned


def test_vip_fact_from_turn_one_is_kept():
    turns = ["您好，我是VIP客户，我的账户是黄金等级。"] + ["好的。", "谢谢，请问运费多少？"] * 4
    r = prune(conv("你是客服。", *turns), 0.95)
    assert "我是VIP客户" in r.messages[1].pruned and "我的账户是黄金等级" in r.messages[1].pruned
    assert tokens_of(r, "protected_user_fact")


def test_user_fact_en():
    r = prune(conv(None, "Hi! I'm a premium member and my account is 7781. Could you please help?"), 0.95)
    assert "I'm a premium member" in r.messages[0].pruned


@pytest.mark.parametrize("word", ["但是", "然而", "因为", "所以", "如果"])
def test_connectives_carry_the_logic_zh(word):
    r = prune(conv(None, f"文章的的论点清楚，{word}论据的的不足。"), 0.95)
    assert word in r.messages[0].pruned


@pytest.mark.parametrize("word", ["however", "but", "because", "unless", "although"])
def test_connectives_en(word):
    r = prune(conv(None, f"The argument is really clear, {word} the evidence is just thin."), 0.95)
    assert word in r.messages[0].pruned


@pytest.mark.parametrize("text,word", [("请不要使用表情符号。", "不要"), ("没有数据时别编造。", "没有"),
                                       ("Do not use emoji. Never guess.", "not"), ("Don't guess.", "Don't")])
def test_negations_are_kept(text, word):
    assert word in prune(conv(None, text), 0.95).messages[0].pruned


def test_date_anchor_value_is_kept():
    system = "<context><date_anchor>2024-10-01</date_anchor><policy_version>2024-v3</policy_version></context>\n你是热线客服。"
    r = prune(conv(system, "您好，请问截至今天的的政策是什么？"), 0.95)
    assert "<date_anchor>2024-10-01</date_anchor>" in r.messages[0].pruned
    assert all(t["decision"] == "keep" for t in r.token_records() if t["message"] == "system")
    assert tokens_of(r, "protected_context")


def test_context_preservation_is_zero_without_context_and_timed_with_it():
    assert prune(conv("你是客服。", "你好"), 0.3).timings_ms["context_preservation"] == 0.0
    with_ctx = prune(conv("<context><service_area>上海市浦东新区</service_area></context>", "你好"), 0.3)
    assert with_ctx.timings_ms["context_preservation"] > 0.0


def test_output_format_schema_still_parses_and_xml_stays_well_formed():
    schema = {"type": "object", "properties": {"sku": {"type": "string", "pattern": "^SKU-\\d{5}$"}}}
    system = (f"你是客服。\n<output_format>{json.dumps(schema)}</output_format>\n"
              "<rules><rule>请务必的的礼貌</rule><rule>不要泄露订单</rule></rules>")
    r = prune(conv(system, "您好"), 0.95)
    pruned = r.messages[0].pruned
    inner = pruned.split("<output_format>")[1].split("</output_format>")[0]
    assert json.loads(inner) == schema
    etree.fromstring(f"<root>{pruned.split(chr(10), 1)[1]}</root>".encode(), safe_parser())
    assert tokens_of(r, "protected_schema") and tokens_of(r, "protected_xml")


def test_code_quotes_and_material_to_grade_are_verbatim():
    text = ("请帮我看看这段代码 `print(的)` 和“的的了了”，以及<essay>我们的的目标才能走得更远。</essay>\n"
            "```python\nx = 1  # 的 的\n```")
    r = prune(conv(None, text), 0.95)
    out = r.messages[0].pruned
    assert "`print(的)`" in out and "“的的了了”" in out and "我们的的目标才能走得更远。" in out and "x = 1  # 的 的" in out


def test_billion_laughs_is_plain_text_never_expanded():
    payload = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
               "<lolz>&lol2;</lolz>")
    r = prune(conv("<context><note>&lol2;</note></context>", payload), 0.95)
    assert r.messages[1].pruned == payload
    assert "lollollol" not in json.dumps(r.to_dict(tokens=False), ensure_ascii=False)


def test_external_entity_is_not_fetched():
    payload = '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><context><a>&xxe;</a></context>'
    r = prune(conv(payload, "hi"), 0.3)
    assert "root:" not in json.dumps(r.to_dict(tokens=False))


def test_numbers_money_dates_and_versions():
    text = "Please note the fee is ¥1,000.50 (about $139.99) due 2024-10-01 at 10:30, for v2.3.1, 三个工作日内。"
    out = prune(conv(None, text), 0.95).messages[0].pruned
    for value in ("¥1,000.50", "$139.99", "2024-10-01", "10:30", "v2.3.1", "三个工作日"):
        assert value in out


def test_no_negation_exception_holds_a_negation_word():
    """能不能, 是不是, 有没有 …: a check that no negation was lost reads 不能 in 能不能, so the word stays a negation."""
    from layerzero_viz.lexicon import entries
    words = [w for w in entries("negations.zh") if len(w) >= 2]
    assert not [(e, w) for e in entries("negation_exceptions.zh") for w in words if w in e]


def test_a_not_a_question_keeps_its_negation_and_its_frame():
    from .helpers import conv, prune
    r = prune(conv(None, "能不能帮我推荐一本书？你是不是机器人？"), 0.95)
    out = r.messages[0].pruned
    assert "能不能" in out and "是不是" in out
