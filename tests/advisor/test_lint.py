"""Every lint code fires on its failure mode and stays quiet without it, in Chinese and English;
applying its fix makes the finding disappear and loses no fact."""
from __future__ import annotations

import pytest

from layerzero_viz import annotate
from layerzero_viz.advisor import CHECKS, FixError, apply_all, apply_fix, lint
from layerzero_viz.directives import resolve_settings

from .helpers import all_text, anthropic, codes, facts, openai

DIRECTIVE = '<layer-zero enabled="true" prune_ratio="0.3"/>'

# code → (zh positive, en positive, zh negative, en negative); each a function returning a Conversation
CASES = {
    "LZ101": (
        lambda: anthropic(f"你是客服。\n{DIRECTIVE}", "你好"),
        lambda: anthropic("You are support.", f"{DIRECTIVE}\nHello"),
        lambda: anthropic(f"{DIRECTIVE}\n你是客服。", "你好"),
        lambda: anthropic(f"{DIRECTIVE}\nYou are support.", "Hello"),
    ),
    "LZ102": (
        lambda: anthropic('<layer-zero enabled="true" ratio="0.3"/>\n你是客服。', "你好"),
        lambda: anthropic('<layer_zero enabled="true" prune_ratio="0.3"/>\nYou are support.', "Hello"),
        lambda: anthropic(f"{DIRECTIVE}\n你是客服。", "你好"),
        lambda: anthropic(f"{DIRECTIVE}\nYou are support.", "Hello"),
    ),
    "LZ103": (
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="1.5"/>\n你是客服。', "你好"),
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="-0.2"/>\nYou are support.', "Hello"),
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="0.5"/>\n你是客服。', "你好"),
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="0.95"/>\nYou are support.', "Hello"),
    ),
    "LZ104": (
        lambda: anthropic("你是理财顾问。\n<protected_tokens>['\\\\d+%', '七日']</protected_tokens>", "你好"),
        lambda: anthropic("You are an analyst.\n<protected_tokens>[\"(?<=\\\\$)\\\\d+\"]</protected_tokens>", "Hi"),
        lambda: anthropic('你是理财顾问。\n<protected_tokens>["\\\\d+%", "七日"]</protected_tokens>', "你好"),
        lambda: anthropic('You are an analyst.\n<protected_tokens>["\\\\$\\\\d+"]</protected_tokens>', "Hi"),
    ),
    "LZ105": (
        lambda: anthropic("你是客服。", '<redundant_phrases>["请问"]</redundant_phrases>\n请问订单到哪了'),
        lambda: anthropic("You are support.", '<protected_tokens>["SKU-\\\\d+"]</protected_tokens>\nWhere is it?'),
        lambda: anthropic('你是客服。\n<redundant_phrases>["请问"]</redundant_phrases>', "请问订单到哪了"),
        lambda: anthropic('You are support.\n<protected_tokens>["SKU-\\\\d+"]</protected_tokens>', "Where is it?"),
    ),
    "LZ110": (
        lambda: anthropic("你是分析师。截至2024年10月1日的数据如下。", "分析一下"),
        lambda: anthropic("You are an analyst. Data as of October 1, 2024 follows.", "Analyse it"),
        lambda: anthropic("你是分析师。<context><date_anchor>2024-10-01</date_anchor></context>数据如下。", "分析一下"),
        lambda: anthropic("You are an analyst. Use the latest data.", "Analyse it"),
    ),
    "LZ120": (
        lambda: anthropic("你是客服。商品编号格式为SKU-XXXX，回复时带上编号。", "查一下"),
        lambda: anthropic("You are support. Order IDs look like ORD-12345; always quote them.", "Check it"),
        lambda: anthropic('你是客服。<output_format>{"type": "object", "properties": {"sku": {"pattern": "^SKU-\\\\d+$"}}}'
                          '</output_format>', "查一下"),
        lambda: anthropic("You are support. Always quote the order ID.", "Check it"),
    ),
    "LZ130": (
        lambda: anthropic("你是评审。最后一行写结论：[A-Z]+", "评一下"),
        lambda: anthropic("You are a grader. End with Answer: \\d+", "Grade it"),
        lambda: anthropic("你是评审。最后一行写结论，格式见 `结论：[A-Z]+`。", "评一下"),
        lambda: anthropic("You are a grader. End with your answer.", "Grade it"),
    ),
    "LZ140": (
        lambda: anthropic("你是物理老师。请用生活例子解释概念。", "讲讲电流"),
        lambda: anthropic("You are a physics teacher. Please explain simply.", "What is current?"),
        lambda: anthropic("你是物理老师。<teaching_method>analogies</teaching_method>", "讲讲电流"),
        lambda: anthropic("You are a physics teacher. Use SI units.", "What is current?"),
    ),
    "LZ150": (
        lambda: anthropic("你是理财顾问。", "我存入¥1,000.50，七日年化4.2%，能拿多少？"),
        lambda: anthropic("You are support.", "I paid $249.99 for SKU-40912."),
        lambda: anthropic('你是理财顾问。\n<protected_tokens>["\\\\d+\\\\.\\\\d+%"]</protected_tokens>',
                          "我存入¥1,000.50，七日年化4.2%，能拿多少？"),
        lambda: anthropic("You are support.", "Where is my parcel?"),
    ),
    "LZ160": (
        lambda: anthropic("你是理财顾问。如果用户问基金，必须引用晨星评级。", "推荐基金"),
        lambda: anthropic("You are support. If the customer asks about refunds, you must cite policy 7.", "Refund?"),
        lambda: anthropic("你是理财顾问。<context><business_rule>如果用户问基金，必须引用晨星评级。</business_rule></context>",
                          "推荐基金"),
        lambda: anthropic("You are support. Cite the policy when relevant.", "Refund?"),
    ),
    "LZ170": (
        lambda: anthropic("你是客服。", "你好，我是VIP客户，金卡会员。", "好的", "订酒店", "好的", "多少钱"),
        lambda: anthropic("You are support.", "Hi, I am a premium member.", "Sure", "Book a room", "OK", "Price?"),
        lambda: anthropic("你是客服。", "你好，我是VIP客户，金卡会员。", "好的", "多少钱"),
        lambda: anthropic("You are support.", "Hi, am I a premium member?", "Sure", "Book a room", "OK", "Price?"),
    ),
    "LZ180": (
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="0.5"/>\n你是基金理财顾问。', "七日年化收益率是什么？"),
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="0.5"/>\nYou advise on funds.', "What is the yield?"),
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="0.2"/>\n你是基金理财顾问。', "七日年化收益率是什么？"),
        lambda: anthropic('<layer-zero enabled="true" prune_ratio="0.5"/>\nYou write poems.', "A haiku please"),
    ),
    "LZ190": (
        lambda: anthropic("回答不超过200字。不要承诺保本。回答不超过200字。", "介绍一下"),
        lambda: anthropic("Always answer in English. Be brief. Always answer in English.", "Tell me"),
        lambda: anthropic("回答不超过200字。不要承诺保本。", "介绍一下"),
        lambda: anthropic("Always answer in English. Be brief.", "Tell me"),
    ),
    "LZ191": (
        lambda: anthropic("你是客服。", "您好，麻烦您帮我查一下订单。"),
        lambda: anthropic("You are support.", "Hello, could you please check my order?"),
        lambda: anthropic('你是客服。\n<redundant_phrases>["您好", "麻烦您帮我"]</redundant_phrases>',
                          "您好，麻烦您帮我查一下订单。"),
        lambda: anthropic("You are support.", "Check order 7."),
    ),
}
LANGS = ("zh", "en")


def test_every_code_has_cases_and_is_documented():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "LINT.md").read_text(encoding="utf-8")
    assert set(CASES) == set(CHECKS)
    for code, check in CHECKS.items():
        assert f"## {code} {check.name}" in doc and f"| {code} | {check.name} | {check.severity} |" in doc


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", sorted(CASES))
def test_code_fires_on_its_failure_mode(code, lang):
    conv = CASES[code][LANGS.index(lang)]()
    found = [f for f in lint(conv) if f.code == code]
    assert found, codes(lint(conv))
    f = found[0]
    assert f.severity == CHECKS[code].severity and f.message and f.suggestion
    if f.message_key is not None:
        message = next(m for m in conv.messages if m.key == f.message_key)
        assert message.text[f.start:f.end] == f.excerpt and f.excerpt


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", sorted(CASES))
def test_code_is_quiet_without_it(code, lang):
    conv = CASES[code][2 + LANGS.index(lang)]()
    assert code not in codes(lint(conv))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", sorted(CASES))
def test_fix_removes_the_finding_and_keeps_every_fact(code, lang):
    conv = CASES[code][LANGS.index(lang)]()
    finding = next(f for f in lint(conv) if f.code == code)
    if not finding.fix_available:
        with pytest.raises(FixError):
            apply_fix(conv, finding)
        return
    fixed = apply_fix(conv, finding)
    assert fixed.format == conv.format
    after = [f for f in lint(fixed) if f.code == code and f.excerpt == finding.excerpt
             and f.message_key == finding.message_key]
    assert not after, after
    text = all_text(fixed)
    for fact in facts(conv):
        assert fact in text or fact.replace(",", "") in text, (fact, text)
    annotate(fixed, env={}).at_ratio(0.5)  # the rewritten conversation is a valid request


def test_misplaced_directive_becomes_the_honoured_one():
    conv = anthropic("You are support.", f"{DIRECTIVE}\nHello")
    fixed = apply_fix(conv, next(f for f in lint(conv) if f.code == "LZ101"))
    settings = resolve_settings(fixed, env={})
    assert (settings.ratio, settings.ratio_source) == (0.3, "directive")
    assert fixed.messages[0].text.startswith(DIRECTIVE) and "<layer-zero" not in fixed.messages[1].text


@pytest.mark.parametrize("system", [
    f"You lint prompts. A valid directive looks like {DIRECTIVE} and must be the first line.",
    f"<examples>\nInput: {DIRECTIVE}\nOutput: ok\n</examples>",
])
def test_a_directive_quoted_inside_a_line_is_text_and_no_finding_offers_to_move_it(system):
    # (review 129: a tag quoted in a sentence or an example is what the prompt talks about; the engine keeps it, and
    # LZ101's fix would have deleted the whole line around it)
    conv = anthropic(system, "Check my prompt.")
    assert "LZ101" not in codes(lint(conv))
    assert DIRECTIVE in annotate(conv, env={}).at_ratio(0.95).messages[0].pruned


def test_a_plain_text_prompts_directive_and_lists_are_read_as_the_engine_reads_them():
    # (UX walkthrough: on the bundled plain-text sample the Detector and `lint` reported LZ101 and LZ105 errors
    # for the directive and the list the engine honours; `lint` exited 1)
    from layerzero_viz import load_conversation

    text = (f"{DIRECTIVE}\n<redundant_phrases>[\"您好\"]</redundant_phrases>\n您好！帮我写一段种草文案。")
    conv = load_conversation(text)
    assert resolve_settings(conv, env={}).ratio_source == "directive"
    assert not {"LZ101", "LZ105"} & set(codes(lint(conv)))
    # in a chat, the same lines in a user turn are still not read, and lint still says so
    assert {"LZ101", "LZ105"} <= set(codes(lint(anthropic("You are support.", text))))


def test_ratio_fix_sets_the_domain_limit():
    conv = CASES["LZ180"][0]()
    finding = next(f for f in lint(conv) if f.code == "LZ180")
    assert "finance" in finding.message
    assert resolve_settings(apply_fix(conv, finding), env={}).ratio == 0.25


def test_ratio_from_an_argument_gets_advice_but_no_fix():
    conv = anthropic("你是基金理财顾问。", "七日年化收益率是什么？")
    finding = next(f for f in lint(conv, ratio=0.6) if f.code == "LZ180")
    assert not finding.fix_available and "argument" in finding.message
    assert "the app's slider" in finding.suggestion  # where that is, in words the app's user knows
    # the directive did not set this ratio: it is not pointed at (a UX review: its span was highlighted)
    with_directive = anthropic('<layer-zero enabled="true" prune_ratio="0.2"/>\n你是基金理财顾问。', "七日年化收益率是什么？")
    finding = next(f for f in lint(with_directive, ratio=0.6) if f.code == "LZ180")
    assert finding.message_key is None and not finding.excerpt


def test_date_fix_adds_an_anchor_inside_an_existing_context():
    conv = anthropic("截至2024年10月1日的数据。<context><service_area>浦东新区</service_area></context>", "你好")
    fixed = apply_fix(conv, next(f for f in lint(conv) if f.code == "LZ110"))
    assert fixed.messages[0].text == ("截至<date_anchor/>的数据。<context><service_area>浦东新区</service_area>"
                                      "<date_anchor>2024-10-01</date_anchor></context>")


def test_two_dates_get_two_anchors():
    conv = anthropic("Prices as of 2024-01-31; stock as of 2024-02-15.", "Hi")
    fixed, applied = apply_all(conv, codes=("LZ110",))
    assert codes(applied) == ["LZ110", "LZ110"]
    text = fixed.messages[0].text
    assert "<date_anchor>2024-01-31</date_anchor>" in text and "<date_anchor_2>2024-02-15</date_anchor_2>" in text


def test_id_format_fix_declares_the_prefix_in_the_schema():
    import json
    import re
    conv = CASES["LZ120"][0]()
    fixed = apply_fix(conv, next(f for f in lint(conv) if f.code == "LZ120"))
    schema = json.loads(re.search(r"<output_format>(.*)</output_format>", fixed.messages[0].text).group(1))
    assert schema["properties"]["sku"]["pattern"] == "^SKU-[0-9A-Z]+$"
    assert "见<output_format>" in fixed.messages[0].text


def test_regex_fix_names_the_property_after_its_label():
    import json
    import re
    conv = CASES["LZ130"][0]()
    fixed = apply_fix(conv, next(f for f in lint(conv) if f.code == "LZ130"))
    schema = json.loads(re.search(r"<output_format>(.*)</output_format>", fixed.messages[0].text).group(1))
    assert schema["properties"]["结论"]["pattern"] == "^[A-Z]+$"


def test_fix_adds_a_system_prompt_in_the_inputs_own_dialect():
    conv = openai(None, "Hello, could you please check my order?")
    fixed = apply_fix(conv, next(f for f in lint(conv) if f.code == "LZ191"))
    assert conv.format == fixed.format == "openai" and fixed.raw[0]["role"] == "system"
    assert "<redundant_phrases>" in fixed.messages[0].text


def test_plain_text_prompt_gets_no_fix_that_needs_a_system_prompt():
    from layerzero_viz import load_conversation
    conv = load_conversation(b"Hello, could you please check order 7?", "text")
    finding = next(f for f in lint(conv) if f.code == "LZ191")
    assert not finding.fix_available


def test_fix_refuses_a_conversation_that_changed():
    conv = CASES["LZ140"][0]()
    finding = next(f for f in lint(conv) if f.code == "LZ140")
    other = anthropic("你是物理老师。请认真备课。", "讲讲电流")
    with pytest.raises(FixError):
        apply_fix(other, finding)


def test_apply_all_leaves_only_findings_without_a_fix():
    from pathlib import Path
    from layerzero_viz import load_conversation
    root = Path(__file__).resolve().parents[2] / "fixtures"
    for name in ("finance_qa.zh.json", "support_chat.en.json", "vip_multiturn.zh.json"):
        conv = load_conversation(root / name)
        fixed, applied = apply_all(conv)
        assert applied
        assert all(not f.fix_available for f in lint(fixed))
        assert set(facts(conv)) <= set(facts(fixed)) | {"0.35"}


def test_findings_are_ordered_errors_first():
    conv = anthropic('你是客服。\n<layer-zero enabled="true" prune_ratio="0.3"/>', "您好，请问¥1,000.50到账了吗？")
    severities = [f.severity for f in lint(conv)]
    assert severities == sorted(severities, key=("error", "warning", "info").index)
    assert severities[0] == "error"


def test_malformed_directive_does_not_stop_the_other_checks():
    conv = anthropic('<layer-zero enabled="maybe"/>\n截至2024年10月1日的数据。', "你好")
    assert {"LZ102", "LZ110"} <= set(codes(lint(conv)))


def test_finding_serialises_to_json():
    import json
    finding = lint(CASES["LZ110"][1]())[0]
    data = json.loads(json.dumps(finding.to_dict(), ensure_ascii=False))
    assert data["code"] == "LZ110" and data["name"] == "absolute-date" and data["fix_available"] is True
