"""Domain profiles: detection, the ratio cap and lock the engine applies (and reports), pattern packs, user files."""
from __future__ import annotations

import pytest

from layerzero_viz import Config, annotate, load_conversation
from layerzero_viz.advisor import ProfileError, detect_domain, get_profile, load_profiles
from layerzero_viz.advisor.profiles import ENV_PROFILES, apply_profile
from layerzero_viz.directives import resolve_settings

from .helpers import anthropic

SHIPPED = {"finance", "ecommerce", "education", "creative_writing", "legal", "medical", "gov_hotline"}


@pytest.fixture(autouse=True)
def _no_user_profiles(monkeypatch):
    monkeypatch.delenv(ENV_PROFILES, raising=False)


def test_every_shipped_profile_loads_with_a_pattern_pack_and_rules():
    profiles = load_profiles()
    assert SHIPPED <= set(profiles)
    for p in profiles.values():
        assert 0 <= p.ratio_range[0] <= p.ratio_range[1] <= 0.95
        assert p.protected_patterns and p.keywords and p.rules
    assert profiles["finance"].ceiling == 0.28 and profiles["creative_writing"].ceiling == 0.15


@pytest.mark.parametrize("text, domain", [
    ("您好，请问这只货币基金的七日年化收益率是多少？申购后什么时候开始计算收益？", "finance"),
    ("What is the yield of this bond fund, and is the interest rate fixed?", "finance"),
    ("我的订单#12345还没发货，能申请退款吗？快递单号查不到。", "ecommerce"),
    ("My order has not shipped yet; can I get a refund or change the delivery address?", "ecommerce"),
    ("我是高一学生，物理老师布置的作业里有一道电流的题不会。", "education"),
    ("Can you help me grade this essay for my student before the exam?", "education"),
    ("请帮我续写这个小说的下一章，保持主角的文风和情节。", "creative_writing"),
    ("Write a short story with a villain character and a twist in the plot.", "creative_writing"),
    ("合同第五条约定乙方违约时应当承担违约金，这个条款有效吗？", "legal"),
    ("Is the liability clause in this contract enforceable if the defendant breached it?", "legal"),
    ("医生说我每天吃两次这个药，剂量是50mg，我对青霉素过敏。", "medical"),
    ("The doctor changed my dosage; I have a penicillin allergy and take this medication daily.", "medical"),
    ("12345热线您好，我想投诉我们街道的噪音问题，社区一直没处理。", "gov_hotline"),
    ("I want to file a complaint with the municipal hotline about my residence permit.", "gov_hotline"),
])
def test_domain_is_detected_from_the_text(text, domain):
    guess = detect_domain(load_conversation(text))
    assert guess is not None and guess.name == domain, guess


def test_no_domain_for_small_talk():
    assert detect_domain("你好，今天天气不错。") is None
    assert detect_domain("Hello there, how are you?") is None


def test_words_inside_code_do_not_pick_the_domain():
    # a code review whose code handles orders and refunds is not an e-commerce chat (a new user saw "ecommerce")
    review = ("Please review this Python function for bugs:\n```python\ndef refund(order_id, amount):\n"
              "    order = db.orders.get(order_id)\n    if order.payment_status == 'paid':\n"
              "        issue_refund(order.payment_id, amount)\n    return order\n```\n"
              "Is the comparison right? Also `order.return_window` must be checked.")
    assert detect_domain(review) is None
    # the same words in prose still do
    assert detect_domain("My order #12345 never arrived; I want a refund or to return it.").name == "ecommerce"


def test_cap_fires_and_shows_in_the_result():
    conv = anthropic("你是理财顾问。", "这只基金的七日年化收益率4.2%，¥1,000.50存七天收益多少？")
    result = annotate(conv, Config(profile="finance", env={})).at_ratio(0.6)
    data = result.to_dict(tokens=False)
    assert (data["ratio"], data["ratio_source"], data["profile"]) == (0.25, "profile", "finance")
    assert "收益率" in data["profile_rule"] and "0.25" in data["profile_rule"]
    assert result.tokens_pruned <= int(0.25 * result.tokens_total)


def test_ceiling_applies_when_no_rule_fires():
    conv = anthropic("You advise on brokerage accounts.", "Should I move my portfolio into bonds?")
    data = annotate(conv, Config(profile="auto", env={})).at_ratio(0.9).to_dict(tokens=False)
    assert (data["ratio"], data["profile"]) == (0.28, "finance")
    assert "recommended" in data["profile_rule"]


def test_a_ratio_under_the_cap_is_left_alone():
    conv = anthropic("你是理财顾问。", "基金收益率怎么算？")
    result = annotate(conv, Config(profile="finance", env={})).at_ratio(0.1)
    assert (result.ratio, result.ratio_source) == (0.1, "argument")


def test_lock_sets_the_ratio():
    conv = anthropic('<layer-zero enabled="true" prune_ratio="0.35"/>\n你是小说作者。', "请续写这个故事，保持文风。")
    ann = annotate(conv, Config(profile="auto", env={}))
    assert (ann.settings.ratio, ann.settings.ratio_source, ann.settings.profile) == (0.1, "profile", "creative_writing")
    assert "lock" in ann.settings.profile_rule
    assert ann.at_ratio().ratio == 0.1


def test_auto_without_a_domain_changes_nothing():
    conv = anthropic(None, "Hello there, how are you?")
    plain = resolve_settings(conv, env={})
    assert apply_profile(plain, "auto", conv) == plain


@pytest.mark.parametrize("money", ["¥1,000.50", "¥5,000", "$249.99"])
def test_finance_pack_protects_money(money):
    conv = anthropic("你是理财顾问。", f"您好，请问一下，如果我存入{money}，麻烦您帮我算一下收益，非常感谢您！")
    result = annotate(conv, Config(profile="finance", env={})).at_ratio(0.95)
    value_tokens = [t for t in result.token_records() if t["message"] == 0 and t["text"] and t["text"] in money
                    and t["text"].strip(",.")]
    assert value_tokens and all(t["reason"] == "protected_pattern" for t in value_tokens)
    assert money in result.messages[1].pruned


def test_pack_patterns_are_added_once_and_compiled():
    conv = anthropic('你是理财顾问。\n<protected_tokens>["\\\\d+\\\\.\\\\d+%"]</protected_tokens>', "收益率4.2%")
    settings = apply_profile(resolve_settings(conv, env={}), "finance", conv)
    assert settings.protected_patterns.count(r"\d+\.\d+%") == 1
    assert len(settings.compiled_patterns) == len(settings.protected_patterns)


def test_unknown_profile_names_the_known_ones():
    with pytest.raises(ProfileError, match="finance"):
        get_profile("astrology")
    with pytest.raises(ProfileError):
        annotate(anthropic(None, "hi"), Config(profile="astrology", env={}))


def test_user_file_replaces_a_profile_and_adds_new_ones(tmp_path, monkeypatch):
    path = tmp_path / "mine.toml"
    path.write_text('''
[profiles.finance]
title = "Strict finance"
ratio_range = [0.05, 0.1]
keywords = ["基金", "收益率"]
protected_patterns = ['¥\\d+']

[profiles.insurance]
title = "Insurance"
ratio_range = [0.1, 0.2]
keywords = ["保单", "理赔", "policy", "claim"]
protected_patterns = ['保单号\\d+']
[[profiles.insurance.rules]]
when = ["理赔"]
lock = 0.05
''', encoding="utf-8")
    monkeypatch.setenv(ENV_PROFILES, str(path))
    profiles = load_profiles()
    assert profiles["finance"].title == "Strict finance" and "insurance" in profiles and "legal" in profiles
    conv = anthropic(None, "我的保单号123456，理赔进度怎么样？")
    ann = annotate(conv, Config(profile="auto", env={}))
    assert (ann.settings.profile, ann.settings.ratio) == ("insurance", 0.05)


@pytest.mark.parametrize("body, message", [
    ('[profiles.x]\nratio_range = [0.3, 0.1]\nkeywords = ["a"]', "ratio_range"),
    ('[profiles.x]\nratio_range = [0.1, 0.3]\nprotected_patterns = ["(?<=a)b"]', "RE2"),
    ('[profiles.x]\nratio_range = [0.1, 0.3]\n[[profiles.x.rules]]\nwhen = ["a"]\ncap = 0.1\nlock = 0.1', "exactly one"),
    ('[profiles.auto]\nratio_range = [0.1, 0.3]', "reserved"),
    ("not toml = = =", "TOML"),
])
def test_broken_profile_files_say_what_is_wrong(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ProfileError, match=message):
        load_profiles(path)


def test_missing_profile_file_is_a_clear_error(tmp_path):
    with pytest.raises(ProfileError, match="cannot read"):
        load_profiles(tmp_path / "nope.toml")
