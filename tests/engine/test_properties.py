"""Hypothesis: invariants that hold for any conversation."""
import json

from hypothesis import HealthCheck, given, settings, strategies as st

from layerzero_viz import InputError, LayerZeroError, annotate, load_conversation
from layerzero_viz.protect import PRECEDENCE

from .helpers import is_subsequence

PIECES = ["您好，", "请问", "麻烦你帮我", "非常感谢您", "谢谢！", "但是", "不要", "七日年化收益率4.2%", "SKU-12345",
          "#12345", "我是VIP客户。", "回答不超过200字。", "的", "了", "Please ", "could you please ", "thank you so much. ",
          "however ", "don't ", "the ", "a ", "order 42 ", "Always answer in English. ", "\n", "<context><a>上海</a></context>",
          "<output_format>{\"x\": 1}</output_format>", "`code`", "“引用”", "作为税务顾问，", "用中文回答。"]
text_st = st.lists(st.sampled_from(PIECES), min_size=1, max_size=40).map("".join)
conversation_st = st.builds(
    lambda system, turns: json.dumps({"system": system, "messages": [
        {"role": "user" if k % 2 == 0 else "assistant", "content": t} for k, t in enumerate(turns)]},
        ensure_ascii=False),
    st.sampled_from(["你是一名税务顾问。回答不超过200字。", "You are a tax advisor. Always answer in English.", ""]),
    st.lists(text_st, min_size=1, max_size=4),
)
ratio_st = st.floats(min_value=0.0, max_value=0.95, allow_nan=False)
CHECKS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CHECKS
@given(conversation_st, ratio_st)
def test_invariants(source, ratio):
    ann = annotate(load_conversation(source), env={})
    r = ann.at_ratio(ratio)
    records = r.token_records()
    pruned = [t for t in records if t["decision"] == "prune" and t["reason"] != "directive"]
    # the budget is never exceeded
    assert len(pruned) == r.tokens_pruned <= int(ratio * r.tokens_total + 1e-9)
    # no protected token is ever pruned
    assert not [t for t in records if t["decision"] == "prune" and t["reason"] in PRECEDENCE]
    # the pruned text is the original minus characters (a subsequence), message by message
    for m in r.messages:
        assert is_subsequence(m.pruned, m.original)
    # same input, same output
    again = annotate(load_conversation(source), env={}).at_ratio(ratio)
    assert [m.pruned for m in again.messages] == [m.pruned for m in r.messages]
    assert [t["reason"] for t in again.token_records()] == [t["reason"] for t in records]


@CHECKS
@given(st.text(max_size=400), ratio_st)
def test_any_text_never_crashes(text, ratio):
    try:
        r = annotate(load_conversation(text.encode("utf-8", "surrogatepass")), env={}).at_ratio(ratio)
    except InputError:
        return
    except LayerZeroError:  # e.g. a malformed <layer-zero/> typed by the fuzzer: still a named error
        return
    assert r.tokens_pruned <= int(ratio * r.tokens_total + 1e-9)
    r.to_dict()


json_st = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["messages", "role", "content", "system", "type", "text", "x"]), children, max_size=4),
    max_leaves=20,
)


@CHECKS
@given(json_st)
def test_any_json_never_crashes(value):
    try:
        r = annotate(load_conversation(json.dumps(value).encode()), env={}).at_ratio(0.5)
    except LayerZeroError:
        return
    r.to_dict()
