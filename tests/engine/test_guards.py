"""Guards no selection may break: a text block is never pruned to empty (zh and en)."""
import json

import pytest

from layerzero_viz import annotate, load_conversation

from .helpers import conv, prune, tokens_of


@pytest.mark.parametrize("turn", ["谢谢！", "非常感谢！", "Hello.", "Thanks so much!", "Thank you!"])
def test_all_filler_turn_keeps_its_text_and_says_why(turn):
    r = prune(conv(None, "请问北京明天的天气怎么样？", "明天晴，最高气温12度。", turn), 0.95)
    last = r.messages[-1]
    assert last.pruned == turn
    details = [t["detail"] for t in tokens_of(r) if t["message"] == 2 and t["text"].strip()]
    assert any("the turn would be empty" in d for d in details)


def test_turn_that_only_repeats_an_instruction_is_not_emptied():
    r = prune(conv("Always answer in English.", "Always answer in English."), 0.95)
    assert r.messages[1].pruned.strip()


def test_no_ratio_empties_any_text_block_of_a_multi_block_message():
    body = {"messages": [
        {"role": "user", "content": [{"type": "text", "text": "Please summarise the attached notes."},
                                     {"type": "text", "text": "Thank you!"}]},
        {"role": "assistant", "content": "Sure."},
        {"role": "user", "content": [{"type": "text", "text": "谢谢您！"}, {"type": "text", "text": "再见。"}]},
    ]}
    ann = annotate(load_conversation(json.dumps(body, ensure_ascii=False)), env={})
    for k in range(0, 96, 5):
        output = ann.at_ratio(k / 100).output
        for msg in output["messages"]:
            blocks = msg["content"] if isinstance(msg["content"], list) else [{"type": "text", "text": msg["content"]}]
            assert all(b["text"].strip() for b in blocks if b.get("type") == "text"), (k, msg)


def test_filler_inside_a_content_turn_is_still_pruned():
    r = prune(conv(None, "谢谢！请问北京明天的天气怎么样？"), 0.95)
    assert r.tokens_pruned > 0
    assert "天气怎么样？" in r.messages[0].pruned and "谢谢" not in r.messages[0].pruned
