"""Which mined phrases are pre-selected for <redundant_phrases>: politeness frames and clause-framing function
words spread over the history; never content words (layerzero_viz.advisor.preselect)."""
from __future__ import annotations

import pytest

from layerzero_viz.advisor.mine import Phrase, mine
from layerzero_viz.advisor.preselect import verdict
from layerzero_viz.advisor.sample import sample_history

MESSAGES = 5000


def _phrase(text: str, *, documents: int = 400, edge_share: float = 0.95) -> Phrase:
    return Phrase(text, documents, documents, 3, 3 * documents, 1000, 1.0, edge_share, 1.0, False)


SELECTED = [
    # (phrase, edge share, kind)
    ("麻烦您帮我看一下", 1.0, "politeness"),
    ("您好", 1.0, "politeness"),
    ("请问", 1.0, "politeness"),
    ("谢谢", 1.0, "politeness"),
    ("非常感谢您的耐心解答", 1.0, "politeness"),
    ("那个", 0.9, "function words"),
    ("就是说", 0.8, "function words"),
    ("could you please", 0.9, "politeness"),
    ("thank you so much in advance", 1.0, "politeness"),
    ("i was wondering if you could", 1.0, "politeness"),
    ("hello", 1.0, "politeness"),
    ("please", 0.6, "politeness"),
]
NOT_SELECTED = [
    ("电动牙刷和", 1.0, "content"),      # a product
    ("我想把", 1.0, "request"),          # a request verb, no politeness
    ("退款", 1.0, "content"),
    ("北京", 0.5, "content"),            # a place
    ("订单号是", 1.0, "content"),
    ("坏了要", 0.0, "content"),
    ("的一个", 0.1, "content"),          # 一个: a number word
    ("of my", 0.05, "fragment"),        # function words from inside clauses
    ("for a", 0.0, "fragment"),
    ("my order", 0.9, "content"),
    ("the refund policy", 0.5, "content"),
    ("tell me", 0.0, "request"),
    ("can you", 1.0, "request"),
]


@pytest.mark.parametrize("text, edge, kind", SELECTED, ids=[p for p, _, _ in SELECTED])
def test_politeness_frames_and_clause_framing_function_words_are_pre_selected(text, edge, kind):
    v = verdict(_phrase(text, edge_share=edge), messages=MESSAGES)
    assert (v.selected, v.kind) == (True, kind) and v.reason.startswith("selected: ")


@pytest.mark.parametrize("text, edge, kind", NOT_SELECTED, ids=[p for p, _, _ in NOT_SELECTED])
def test_content_words_requests_and_fragments_are_never_pre_selected(text, edge, kind):
    v = verdict(_phrase(text, edge_share=edge), messages=MESSAGES)
    assert (v.selected, v.kind) == (False, kind) and v.reason.startswith("not selected: ")


def test_the_reason_names_the_content_word():
    assert "电动牙刷" in verdict(_phrase("电动牙刷和"), messages=MESSAGES).reason
    assert "order" in verdict(_phrase("my order"), messages=MESSAGES).reason


@pytest.mark.parametrize("text", ["麻烦您帮我看一下", "could you please"])
def test_a_politeness_frame_of_few_messages_is_not_pre_selected(text):
    v = verdict(_phrase(text, documents=30), messages=MESSAGES)  # 0.6 % of the history
    assert (v.selected, v.kind) == (False, "rare") and "30 messages" in v.reason and "50" in v.reason
    assert verdict(_phrase(text, documents=50), messages=MESSAGES).selected


def test_on_the_sample_history_only_the_frames_are_pre_selected():
    data = ("\n".join(sample_history(5000, seed=7)) + "\n").encode()
    result = mine(data, top=50, progress=False)
    chosen = {p.phrase for p in result.phrases if verdict(p, messages=result.messages).selected}
    listed = {p.phrase for p in result.phrases}
    assert {"电动牙刷和", "我想把", "of my"} <= listed  # still listed, with their reason …
    assert not chosen & {"电动牙刷和", "我想把", "of my", "在线等", "tell me", "for a"}  # … never pre-selected
    assert {"麻烦您帮我看一下", "非常感谢您的耐心解答", "i was wondering if you could",
            "thank you so much in advance"} <= chosen  # the four planted phrases
