"""Traditional Chinese is read as Simplified by the rules (``layerzero_viz.script``) and given back as written."""
import json

import pytest

from layerzero_viz import annotate, load_conversation
from layerzero_viz.script import simplified, simplified_text

from .helpers import conv, prune


def test_simplified_text_keeps_every_offset():
    text = "您好～麻煩您幫我翻譯這句話，謝謝！我們沒有 API key，乾隆年間的書。"
    out = simplified_text(text)
    assert len(out) == len(text)
    assert out == "您好～麻烦您帮我翻译这句话，谢谢！我们没有 API key，乾隆年间的书。"
    assert simplified_text("Thanks, 谢谢你的帮助") == "Thanks, 谢谢你的帮助"


def test_a_simplified_conversation_is_read_as_it_is():
    c = load_conversation(conv("你是客服。", "请问订单什么时候到？"))
    assert simplified(c) is c
    assert annotate(c, env={}).read is None


@pytest.mark.parametrize("traditional, simplified_twin", [
    ("您好，麻煩您幫我翻譯這句話，謝謝！", "您好，麻烦您帮我翻译这句话，谢谢！"),
    ("請問訂單 TW-2291 什麼時候到？謝謝！", "请问订单 TW-2291 什么时候到？谢谢！"),
    ("不好意思打擾了，台北到高雄的高鐵要多久？", "不好意思打扰了，台北到高雄的高铁要多久？"),
])
def test_traditional_filler_goes_where_its_simplified_twin_goes(traditional, simplified_twin):
    t = prune(conv(None, traditional), 0.95).messages[0].pruned
    s = prune(conv(None, simplified_twin), 0.95).messages[0].pruned
    assert t != traditional, "nothing pruned from the Traditional text"
    assert simplified_text(t) == s
    assert t == "".join(c for c in t if c in traditional), "the pruned text is given back in its own script"


def test_a_traditional_text_handed_over_stays_whole():
    text = "請把下面這段翻譯成英文：\n謝謝你的幫忙，麻煩你了！我們下週見。"
    for ratio in (0.3, 0.95):
        assert prune(conv(None, text), ratio).messages[0].pruned == text


def test_traditional_negations_are_never_cut():
    text = "麻煩您幫我回覆客人：我們沒有提供退款服務，也別承諾任何補償，謝謝！"
    out = prune(conv(None, text), 0.95).messages[0].pruned
    assert "我們沒有提供退款服務，也別承諾任何補償" in out
    assert "謝謝" not in out


def test_protected_tokens_match_the_text_as_written():
    doc = {"system": '<protected_tokens>["麻煩您"]</protected_tokens>',
           "messages": [{"role": "user", "content": "麻煩您幫我查天氣，謝謝。"}]}
    out = annotate(load_conversation(json.dumps(doc, ensure_ascii=False)), env={}).at_ratio(0.95)
    assert out.messages[1].pruned.startswith("麻煩您")
    doc["system"] = '<protected_tokens>["麻烦您"]</protected_tokens>'  # the Simplified form is not in the text
    out = annotate(load_conversation(json.dumps(doc, ensure_ascii=False)), env={}).at_ratio(0.95)
    assert not out.messages[1].pruned.startswith("麻煩您")


def test_tokens_and_heatmap_text_come_from_the_original():
    text = "您好，請問這個函式怎麼寫？謝謝！"
    ann = annotate(load_conversation(conv(None, text)), env={})
    assert ann.view.text == text and ann.read_view.text == simplified_text(text)
    records = ann.at_ratio(0.95).token_records()
    assert "".join(r["text"] for r in records) == text


def test_reasons_quote_the_text_as_written():
    r = annotate(load_conversation(conv(None, "您好，麻煩您幫我翻譯這句話，謝謝！")), env={}).at_ratio(0.95)
    details = {d["text"]: d["detail"] for d in r.deleted_spans()}
    assert "'麻煩您幫我'" in details["麻煩您幫我"]
    text = "請把下面這段翻譯成英文：\n謝謝你的幫忙，麻煩你了！"
    r = annotate(load_conversation(conv(None, text)), env={}).at_ratio(0.95)
    kept = {t["detail"] for t in r.token_records() if t["reason"] == "protected_material"}
    assert kept == {"kept: the text handed over after '請把下面這段翻譯成英文：'"}
