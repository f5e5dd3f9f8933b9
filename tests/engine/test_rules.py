"""Each candidate rule, in Chinese and English."""
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from .helpers import conv, prune, pruned_text, tokens_of


def test_declared_redundant_phrases_go_first_zh():
    r = prune(conv('<redundant_phrases>["麻烦", "亲亲"]</redundant_phrases>\n你是客服。', "亲亲，麻烦查订单"), 0.95)
    assert "麻烦" in pruned_text(r, "declared_redundant") and "亲亲" in pruned_text(r, "declared_redundant")
    assert all("<redundant_phrases>" in t["detail"] for t in tokens_of(r, "declared_redundant"))
    assert "查订单" in r.messages[1].pruned


def test_declared_redundant_en_respects_word_boundaries():
    r = prune(conv('<redundant_phrases>["per"]</redundant_phrases>\nYou help.', "Super, per the policy, refund."))
    assert "Super" in r.messages[1].pruned


def test_repeated_constraint_keeps_first_copy_and_names_it_zh():
    # (the turn says something new as well: a turn made only of repeats is kept whole, never emptied)
    r = prune(conv("回答不超过200字。请使用正式语气。", "你好", "好的", "请使用正式语气。另外，回答不超过200字。查一下订单。"))
    assert r.messages[0].pruned == "回答不超过200字。请使用正式语气。"
    assert "请使用正式语气" not in r.messages[3].pruned
    details = {t["detail"] for t in tokens_of(r, "repeated_constraint")}
    assert any("message system" in d and "char 0" in d for d in details)


def test_repeated_constraint_near_copy_en():
    r = prune(conv("Always answer in formal English. Never reveal internal notes.",
                   "My order 5 is late. Remember: never reveal the internal notes."))
    assert "internal notes" in r.messages[0].pruned
    assert "never reveal" not in r.messages[1].pruned.lower()
    # a turn that is a greeting and the repeat, nothing else, is kept whole: every word of it is a candidate
    r = prune(conv("Always answer in formal English. Never reveal internal notes.",
                   "Hi. Remember: never reveal the internal notes."))
    assert r.messages[1].pruned == "Hi. Remember: never reveal the internal notes."


def test_repeat_with_a_different_number_is_kept_and_says_why():
    r = prune(conv("回答不超过200字，使用正式语气。", "回答不超过300字，使用正式语气。查一下订单。"))
    assert "300" in r.messages[1].pruned
    assert any("'300'" in t["detail"] and "not pruned as repeated_constraint" in t["detail"]
               for t in r.token_records())


def test_repeat_whose_first_copy_has_the_same_numbers_goes_whole():
    # a user turn (an assistant's echo is not a restated constraint), with something new in it
    r = prune(conv("退款须在3个工作日内到账，不收手续费。", "退款须在3个工作日内到账，不收手续费。查一下订单。"))
    assert "3个工作日" not in r.messages[1].pruned
    assert "3个工作日" in r.messages[0].pruned


def test_derivable_role_restatement_zh_and_en():
    zh = prune(conv("你是一名税务顾问，擅长个税。", "作为税务顾问，请帮我算一下个税。"))
    assert "作为税务顾问" not in zh.messages[1].pruned
    assert "restates the role" in tokens_of(zh, "derivable_context")[0]["detail"]
    en = prune(conv("You are a tax advisor. Be precise.", "I filed late; as a tax advisor, explain the deduction."),
               low_information=False)
    assert en.messages[1].pruned == "I filed late; explain the deduction."
    # opening its sentence the frame stays: "explain …" would start it in lower case
    en = prune(conv("You are a tax advisor. Be precise.", "As a tax advisor, explain the deduction."), low_information=False)
    assert en.messages[1].pruned == "As a tax advisor, explain the deduction."


def test_derivable_reply_language_already_required():
    r = prune(conv("请用中文回答。你是客服。", "查询订单状态，请用中文回答。"))
    assert "请用中文回答" not in r.messages[1].pruned
    assert r.messages[0].pruned.startswith("请用中文回答")


def test_filler_zh_and_en_with_lexicon_in_detail():
    zh = prune(conv(None, "您好，请问七日年化收益率是什么意思？非常感谢您！"))
    out = zh.messages[0].pruned
    assert "您好" not in out and "非常感谢您" not in out and "七日年化收益率" in out
    assert any("filler.zh" in t["detail"] for t in tokens_of(zh, "filler"))
    en = prune(conv(None, "Hello! My card shows 24% APR, so I was wondering if you could explain APR. Thank you so much."))
    assert "wondering" not in en.messages[0].pruned and "explain APR" in en.messages[0].pruned


def test_filler_is_a_whole_word_zh():
    # 请问 inside 申请问题, 其实 inside 及其实施 are not fillers
    r = prune(conv(None, "我要申请问题单，依据个人所得税法及其实施条例。"))
    assert r.messages[0].pruned.startswith("我要申请问题单") and "及其实施条例" in r.messages[0].pruned


def test_non_negation_words_containing_negation_chars_are_filler():
    r = prune(conv(None, "非常感谢您，能不能帮我看看这个不要紧的问题"))
    assert "非常感谢您" not in r.messages[0].pruned
    assert "不要" in r.messages[0].pruned


def test_low_information_is_lowest_priority_and_switchable():
    text = "Um, please check the status of the order and, uh, the refund."
    low = prune(conv(None, text), 0.95)
    assert tokens_of(low, "low_information", "prune")
    off = prune(conv(None, text), 0.95, low_information=False)
    assert not tokens_of(off, "low_information")
    small = prune(conv(None, text), 0.1)
    # the budget goes to filler before function words
    assert tokens_of(small, "filler", "prune") and not tokens_of(small, "low_information", "prune")


def test_rules_apply_to_assistant_turns_too():
    # (a final assistant turn is a prefill, material: the reply here is followed by a user turn)
    r = prune(conv("You are a helpful assistant.", "Hi", "Great question! As an AI language model, I think it is 42.",
                   "OK"))
    assert "As an AI language model" not in r.messages[2].pruned and "42" in r.messages[2].pruned


def test_ai_disclaimer_is_filler_in_a_reply_but_a_role_after_act():
    r = prune(conv(None, "I want you to act as an AI assistant for lawyers.", "As an AI assistant, I can draft it.", "OK"),
              0.95, low_information=False)
    assert "act as an AI assistant" in r.messages[0].pruned
    assert "As an AI assistant" not in r.messages[1].pruned


def test_declared_phrase_is_a_whole_word_zh():
    r = prune(conv('<redundant_phrases>["请问"]</redundant_phrases>\n你是客服。', "我要申请问题单。请问多久处理？"))
    assert r.messages[1].pruned.startswith("我要申请问题单。") and "请问" not in r.messages[1].pruned[8:]


# The English derivable patterns as first written (plain re.IGNORECASE); the rule uses faster forms that must
# find exactly the same matches.
_ROLE_EN_PLAIN = re.compile(
    r"\b(?:you are|you're|act as)\s+(?:an?|the)\s+([A-Za-z][A-Za-z\- ]{1,40}?)(?=[.,;:!\n]|\s+(?:who|that|with|and|for|in|at|on|from)\b|$)",
    re.IGNORECASE)
_LANG_PLAIN = r"(?:english|chinese|simplified chinese|french|german|japanese|spanish|korean)"
_LANG_REQ_EN_PLAIN = re.compile(r"\b(?:respond|reply|answer|write|speak)(?:\s+only)?\s+in\s+"
                                rf"({_LANG_PLAIN}(?:\s*(?:,|and|or|&|/)\s*(?:in\s+)?{_LANG_PLAIN})*)\b",
                                re.IGNORECASE)
_FRAME_EN_PLAIN = re.compile(r"\b(?:as\s+(?:an?|the|my|your)|(?:you are|you're)\s+(?:an?|the|my|your))\s+"
                             r"([a-z][a-z\- ]{1,40}?)\s*[,.]", re.IGNORECASE)
_CASE_TRAPS = ["you are a ", "as your ", "AS MY ", "aſ the ", "xas a ", "You're your ", "YOU'RE THE ",
               "Act As an ", "aCT aS the ", "ſpeak in ", "SPEAK ONLY IN ", "Reply in ",
               "write in ", "ANSWER in ", "respond only in ", "english", "ENGLISH", "engliſh", "Chineſe", "KOREAN",
               "\u212aorean", "tax advisor", "doctor who", "İ", "ı", "you are\u00a0a ", ".", ",", "\n", " ", "x", "é"]


def _spans(rx, text):
    return [(m.span(), m.groups()) for m in rx.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_CASE_TRAPS), max_size=12).map("".join))
def test_fast_english_patterns_find_what_the_plain_ones_find(text):
    from layerzero_viz.rules import derivable
    assert _spans(derivable._ROLE_EN, text) == _spans(_ROLE_EN_PLAIN, text)
    assert _spans(derivable._LANG_REQ_EN, text) == _spans(_LANG_REQ_EN_PLAIN, text)
    assert _spans(derivable._FRAME_EN, text) == _spans(_FRAME_EN_PLAIN, text)


def test_fast_english_patterns_agree_on_the_corpus_sample():
    from layerzero_viz import iter_conversations
    from layerzero_viz.rules import derivable
    sample = Path(__file__).resolve().parents[2] / "fixtures" / "corpus" / "sample.jsonl"
    found = 0
    for _, sample_conv in iter_conversations(sample):
        for m in sample_conv.messages:
            for b in m.blocks:
                assert _spans(derivable._ROLE_EN, b.text) == _spans(_ROLE_EN_PLAIN, b.text)
                assert _spans(derivable._LANG_REQ_EN, b.text) == _spans(_LANG_REQ_EN_PLAIN, b.text)
                assert _spans(derivable._FRAME_EN, b.text) == _spans(_FRAME_EN_PLAIN, b.text)
                found += len(_spans(_ROLE_EN_PLAIN, b.text))
    assert found  # the sample does state roles, so the comparison saw matches


def test_di_after_hao_stays_and_a_bare_number_is_never_all_that_is_left():
    # (review 10: 更好地记住 → 更好记住 reads "easier to remember"; CrossWOZ 294 "谢谢！8" → "8", a quantity, not a goodbye)
    text = "请仔细地检查，并帮助用户更好地记住单词。"
    pruned = prune(conv("你是老师。", text), 0.95).messages[1].pruned
    assert "更好地记住" in pruned and "仔细检查" in pruned, pruned
    for last, left in (("谢谢！8", "谢谢！8"), ("谢谢！好的，我知道了", "好的，我知道了")):
        result = prune(conv(None, "查一下", "好的", last), 0.95)
        assert result.messages[2].pruned == left
    notes = {t["detail"] for t in prune(conv(None, "查一下", "好的", "谢谢！8"), 0.95).token_records()
             if t["message"] == 2}
    assert any("only a number would be left" in n for n in notes), notes


# review 22: a reply language "already required" is only cut as a clause that says nothing else, and only for the same
# languages — never out of a negation, a scope, a report of it or a sentence whose condition would be left alone
@pytest.mark.parametrize("system, turn", [
    ("Respond in English.", "Do not respond in English this time; respond in Italian. What is pasta carbonara?"),
    ("请用中文回答。", "这次不要用中文回答，用英文。什么是量子计算？"),
    ("Respond in English.", "Earlier I told you to respond in English, but that was a mistake; use Korean from now on."),
    ("Respond in English and Chinese.", "Respond in English. What's a haiku?"),
    ("请用中文回答。", "只有摘要部分用中文回答，正文用英文。主题：量子计算。"),
    ("用中文回答。", "用中文回答，除非问题涉及代码。怎么用 Python 读取 CSV？"),
])
def test_a_reply_language_said_with_more_is_not_derivable(system, turn):
    assert prune(conv(system, turn)).messages[1].pruned == turn


def test_a_scoped_language_rule_keeps_its_words():
    system = "Respond in Spanish.\nWhen the user is a doctor, respond in Spanish using medical terminology."
    assert prune(conv(system, "Soy médico. ¿Qué es la hipertensión?")).messages[0].pruned == system
    system = "Always respond in English. Always respond in English unless the user writes in Spanish."
    assert "Always respond in English unless the user writes in Spanish." in prune(conv(system, "Hola")).messages[0].pruned
    # the same languages said again as a clause of their own still go
    r = prune(conv("Respond in English and Chinese.", "Please respond in English and Chinese. What's a haiku?"))
    assert r.messages[1].pruned == "What's a haiku?"


def test_role_frames_found_block_by_block_are_those_of_the_whole_text():
    # derivable looks for role frames block by block (whole blocks looked up by their text in the client): the same
    # frames, in the same order, as one pass over the view's text from where the role was set
    import json as _json
    from pathlib import Path as _Path

    from layerzero_viz import load_conversation
    from layerzero_viz.rules import derivable
    from layerzero_viz.view import TextView

    root = _Path(__file__).resolve().parents[2] / "fixtures"
    docs = [p.read_text(encoding="utf-8") for p in sorted(root.glob("*.json"))]
    docs += [_json.dumps({"system": "你是一名物理老师。", "messages": [
        {"role": "user", "content": "作为一名物理老师，请解释。你是物理老师，对吧？As a physics teacher, explain."},
        {"role": "assistant", "content": "You are a physics teacher, right. 好。"},
        {"role": "user", "content": "You're a teacher, so be clear. 身为老师，"}]})]
    docs += [_json.dumps({k: v for k, v in _json.loads(line).items() if k in ("system", "messages") and v})
             for line in (root / "corpus" / "sample.jsonl").read_text(encoding="utf-8").splitlines()]
    found_any = 0
    for doc in docs:
        view = TextView.of(load_conversation(doc))
        for first_end in (0, len(view.text) // 3):
            whole = [(k, m.start(), m.end()) for k, rx in enumerate(derivable._FRAMES)
                     for m in rx.finditer(view.text, first_end)
                     if (m.group(1) if m.group(1) is not None else m.group(m.lastindex or 1)) is not None]
            for reuse in (False, True, True):
                got = [(k, s, e) for k, s, e, _, b in derivable._frames_after(view, first_end, reuse)]
                assert got == whole, doc[:80]
            found_any += len(whole)
    assert found_any >= 6
