"""Bounded server memory (issue 16): caches bounded by bytes, a conversation from a link held to a renderable size."""
from __future__ import annotations

import json
import tracemalloc

import pytest

from layerzero_viz import annotate, share
from layerzero_viz.appstate import MAX_LINK_TOKENS, ResultView, Source, ViewState, held_to_size, link_state
from layerzero_viz.tokens import encoding
from ui import cache
from ui.cache import ByteLRU

from apptools import ROOT, html_markdown, new_app, no_exception

FIXTURE = ROOT / "fixtures" / "support_chat.en.json"


def _chat(turns: int, words: int = 150) -> str:
    """A chat of ``turns`` messages of about ``words`` tokens each; repetitive, so its link stays small."""
    messages = [{"role": "user" if k % 2 == 0 else "assistant",
                 "content": f"Turn {k}: " + "please check the quarterly budget " * (words // 5)} for k in range(turns)]
    return json.dumps({"system": "You are a helpful assistant.", "messages": messages})


def _tokens(source: Source) -> int:
    return sum(len(encoding().encode_ordinary(m.text)) for m in source.load().messages)


# ---------------------------------------------------------------------------------------------- ByteLRU


def test_byte_lru_evicts_least_recently_used_by_bytes_not_entries():
    lru = ByteLRU(100, size=len)
    for key in "abc":
        lru.get_or_build(key, lambda: "x" * 30)
    lru.get_or_build("a", lambda: pytest.fail("a is cached"))  # a is now the most recent
    lru.get_or_build("d", lambda: "y" * 30)                   # 120 > 100: b, the least recent, goes
    assert lru.keys() == ["c", "a", "d"] and lru.held == 90
    lru.get_or_build("e", lambda: "z" * 70)
    assert lru.keys() == ["d", "e"] and lru.held == 100


def test_byte_lru_uses_but_never_keeps_a_value_larger_than_its_budget():
    lru = ByteLRU(100, size=len)
    lru.get_or_build("small", lambda: "s" * 10)
    assert lru.get_or_build("huge", lambda: "h" * 101) == "h" * 101
    assert lru.keys() == ["small"] and lru.held == 10
    built = []
    lru.get_or_build("huge", lambda: built.append(1) or "h" * 101)
    assert built == [1]  # built again: it was not kept


def _corpus_chat() -> str:
    from layerzero_viz import iter_conversations
    texts = [m.text for _, c in iter_conversations(ROOT / "fixtures" / "corpus" / "sample.jsonl") for m in c.messages]
    return json.dumps({"messages": [{"role": "user" if k % 2 == 0 else "assistant", "content": t}
                                    for k, t in enumerate(t for t in texts if t.strip())]}, ensure_ascii=False)


@pytest.mark.parametrize("text", [_chat(40), _corpus_chat()], ids=["repetitive_en", "corpus_zh_en"])
def test_size_estimates_cover_what_an_annotation_and_a_view_really_hold(text):
    from layerzero_viz import load_conversation
    conv = load_conversation(text.encode())
    for warm in (FIXTURE, ROOT / "fixtures" / "finance_qa.zh.json"):  # lexicons, jieba, tokenizer: loaded once
        annotate(load_conversation(warm.read_bytes()))
    tracemalloc.start()
    try:
        annotated = annotate(conv)
        held_annotation = tracemalloc.get_traced_memory()[0]
        view = ResultView(annotated.at_ratio(0.3))
        view.tokens, view.deleted
        held_view = tracemalloc.get_traced_memory()[0] - held_annotation
    finally:
        tracemalloc.stop()
    # conservative (the bound holds) but not absurd (the caches still hold many conversations)
    assert held_annotation <= cache.annotation_bytes(annotated) <= 6 * held_annotation
    assert held_view <= cache.view_bytes(view) <= 6 * held_view


def test_moving_the_slider_never_makes_the_views_cache_exceed_its_byte_budget(monkeypatch):
    budget = 3 * cache.view_bytes(cache.result_view(Source(FIXTURE.read_text(), name="x"), True, 0.3, profile=(None, None)))
    monkeypatch.setattr(cache, "VIEWS", ByteLRU(budget, size=cache.view_bytes))
    at = new_app()
    at.switch_page("app_pages/load.py").run()
    at.button(key=f"open:{FIXTURE.name}").click().run()
    at.switch_page("app_pages/heatmap.py").run()
    for ratio in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        at.sidebar.slider(key="ratio").set_value(ratio).run()
        assert no_exception(at)
        assert cache.VIEWS.held <= budget
    assert len(cache.VIEWS.keys()) == 3  # the three most recent ratios, not seven


# ---------------------------------------------------------------------------------------------- links


def test_a_huge_link_conversation_is_cut_to_its_leading_messages_within_the_token_limit():
    # ≈ 6 MB of text from a link of a few KB: what the issue saw take 36 s and 2.9 GB
    text = _chat(4000, words=200)
    token = share.encode_state(link_state(ViewState(source=Source(text, name="huge.json"))))
    assert len(token) < 64 * 1024 and len(text) > 5_000_000
    state = share.decode_state(token)
    source, notice = held_to_size(Source(state["conversation"], name="huge.json"))
    assert 0.9 * MAX_LINK_TOKENS <= _tokens(source) <= MAX_LINK_TOKENS
    kept = source.load().messages
    assert kept[-1].text == json.loads(text)["messages"][len(kept) - 2]["content"]  # whole messages, in order
    # counted as the sidebar counts them: the system prompt apart
    assert f"first {len(kept) - 1:,} messages of 4,000 and its system prompt" in notice and "CLI" in notice


def test_a_link_conversation_within_the_limit_is_kept_whole():
    source = Source(_chat(30), name="small.json")
    assert held_to_size(source) == (source, None)


def test_one_long_first_message_is_cut_short_rather_than_refused():
    text = json.dumps({"messages": [{"role": "user", "content": "長い文章。" * 20_000}]}, ensure_ascii=False)
    source, notice = held_to_size(Source(text), max_tokens=5000)
    assert 0 < _tokens(source) <= 5000 and "cut short" in notice
    assert source.load().messages[0].text.startswith("長い文章。長い文章。")


def test_a_jsonl_link_keeps_only_its_selected_line_when_too_big():
    lines = [json.dumps({"messages": [{"role": "user", "content": f"line {k} " + "word " * 300}]}) for k in range(40)]
    source, notice = held_to_size(Source("\n".join(lines), line=7), max_tokens=5000)
    conv = source.load()
    assert conv.messages[0].text.startswith("line 6 ") and conv.jsonl_line is None
    assert "only line 7 of the 40-line file" in notice


def test_the_app_opens_a_too_big_link_cut_with_a_message_above_it(monkeypatch):
    from layerzero_viz import appstate
    monkeypatch.setattr(appstate, "MAX_LINK_TOKENS", 3000)
    text = _chat(60)  # ≈ 18k tokens
    token = share.encode_state(link_state(ViewState(source=Source(text, name="big.json"), ratio=0.3)))
    at = new_app(s=token)
    assert no_exception(at)
    loaded = at.session_state["source"]
    assert _tokens(loaded) <= 3000 and len(loaded.load().messages) < 61
    assert not at.error and at.warning and "first" in at.warning[0].value and "3,000 tokens" in at.warning[0].value
    assert "lz-tokens" in html_markdown(at) and "quarterly" in html_markdown(at)  # the kept part is drawn


def test_a_paste_too_big_to_render_is_cut_with_a_notice_above_every_page(monkeypatch):
    # one session cannot make the server hold gigabytes: an upload or a paste is held to the same size as a link
    from layerzero_viz import appstate
    monkeypatch.setattr(appstate, "MAX_LINK_TOKENS", 3000)
    at = new_app()  # nothing loaded: the Load page
    at.text_area(key="paste_text").input(_chat(60)).run()  # ≈ 18k tokens
    at.button(key="load_paste").click().run()
    assert no_exception(at)
    loaded = at.session_state["source"]
    assert _tokens(loaded) <= 3000 and len(loaded.load().messages) < 61
    assert not at.error and at.warning and "first" in at.warning[0].value and "CLI" in at.warning[0].value
    small = new_app()
    small.text_area(key="paste_text").input(_chat(4)).run()
    small.button(key="load_paste").click().run()
    assert len(small.session_state["source"].load().messages) == 5 and not small.warning  # whole (system + 4): no notice
