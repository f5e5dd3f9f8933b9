"""Guards no selection may break: a text block is never pruned to empty (zh and en); no sentence is left starting
in lower case."""
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


def test_repeated_list_item_goes_with_its_marker():
    r = prune(conv("Rules:\n- Always cite the source document.\n- Keep answers short.",
                   "Summarise the report.\n- Always cite the source document."), 0.95)
    out = r.messages[1].pruned
    assert "Always cite" not in out  # the copy went …
    assert not out.rstrip().endswith("-") and out == out.strip()  # … marker, line and all
    assert out.startswith("Summarise")


def test_emphasis_cut_whole_takes_its_markers():
    from layerzero_viz.guards import close_candidates
    from layerzero_viz.view import Candidate, TextView
    view = TextView.of(load_conversation("Note: **Thank you so much!** The rest stays."))
    text = view.text
    s = text.index("Thank")
    e = text.index("!") + 1
    (c,), _ = close_candidates(view, [Candidate(s, e, "filler", 0.9, "thanks", 0.05)], [])
    assert text[c.start:c.end] == "**Thank you so much!**"


def test_zh_numbered_item_marker_is_not_left_alone():
    from layerzero_viz.guards import close_candidates
    from layerzero_viz.view import Candidate, TextView
    view = TextView.of(load_conversation("要求：\n1. 回答要简洁。\n2. 使用中文。"))
    text = view.text
    s = text.index("回答")
    (c,), _ = close_candidates(view, [Candidate(s, text.index("。") + 1, "repeated_constraint", 1.0, "", 0.0)], [])
    assert text[c.start:c.end] == "1. 回答要简洁。"


def test_cut_of_a_glued_token_keeps_the_clause_comma_zh():
    r = prune(conv(None, "你好", "您好", "我是VIP客户，请帮我查订单。"), 0.5)
    assert "我是VIP客户，" in r.messages[2].pruned


def test_cut_before_a_protected_word_leaves_no_leading_space_en():
    r = prune(conv(None, "Hi", "Hello", "Perfect, thank you so much! One last thing: when will it ship?"), 0.5)
    assert r.messages[2].pruned == "One last thing: when will it ship?"


def test_user_fact_protection_ends_before_its_comma_so_thanks_can_go():
    r = prune(conv(None, "你好", "您好", "好，我的问题问完了，谢谢。"), 0.5)
    assert r.messages[2].pruned == "好，我的问题问完了。"


def test_opinion_frame_is_not_a_user_fact():
    r = prune(conv(None, "你好", "您好", "根据我的理解，这个产品不支持退货，对吗？"), 0.5)
    assert not [t for t in tokens_of(r, "protected_user_fact") if t["message"] == 2]


@pytest.mark.parametrize("body", [
    {"system": '<layer-zero enabled="true" prune_ratio="0.3"/>', "messages": [{"role": "user", "content": "您好，请问利率是多少？"}]},
    {"system": [{"type": "text", "text": '<layer-zero enabled="true"/>'}, {"type": "text", "text": "You are a tax advisor."}],
     "messages": [{"role": "user", "content": "Hi, what is my tax rate?"}]},
    {"model": "gpt-x", "messages": [{"role": "system", "content": '<layer-zero enabled="true"/>'},
                                    {"role": "user", "content": "Hello! Please check order 7."}]},
])
def test_a_block_that_was_only_a_directive_leaves_the_request_instead_of_staying_empty(body):
    result = annotate(load_conversation(json.dumps(body, ensure_ascii=False)), env={}).at_ratio(None)
    out = result.output

    def texts(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("text", "content", "system") and isinstance(value, str):
                    yield value
                else:
                    yield from texts(value)
        elif isinstance(node, list):
            for item in node:
                yield from texts(item)

    assert all(t.strip() for t in texts(out)), out
    assert "layer-zero" not in json.dumps(out)
    assert not any(m.pruned.startswith("\n") for m in result.messages)


@pytest.mark.parametrize("system, turn", [
    # derivable_context: the role frame opens its sentence
    ("You are a certified tax advisor for US freelancers.",
     "As my tax advisor, tell me whether I can deduct my co-working membership of $250/month."),
    # filler: a thanks clause, a greeting before a question, a request frame
    ("You are Nova, a support assistant.", "The label arrived. Thanks again, the new earcup works fine!"),
    ("You are Nova, a support assistant.", "Hey, how do I merge two dictionaries in Python?"),
    ("You are a librarian.", "I was wondering if you could find me three papers on microplastics."),
    ("You are a librarian.", "1. Please generate a summary of chapter 3."),
])
def test_a_cut_never_leaves_its_sentence_starting_in_lower_case(system, turn):
    r = prune(conv(system, turn), 0.95)
    assert r.messages[1].pruned == turn
    # the heatmap says why the opening words stay
    details = {t["detail"] for t in tokens_of(r) if t["message"] == 0 and t["decision"] == "keep"}
    assert any("would leave its sentence starting in lower case" in d for d in details), details


@pytest.mark.parametrize("turn, pruned", [
    ("Could you please kindly tell me when order #40817 ships?", "Could you tell me when order #40817 ships?"),
    ("Please kindly check order #123.", "Please check order #123."),
    ("I was wondering if you could please check order #123.", "I was wondering if you could check order #123."),
    ("Would you please summarise chapter 3 in five bullets?", "Would you summarise chapter 3 in five bullets?"),
])
def test_a_request_frame_that_stays_at_its_sentence_start_still_loses_its_please(turn, pruned):
    r = prune(conv("You are a support agent for an online bookshop.", turn), 0.95)
    assert r.messages[1].pruned == pruned
    gone = [t for t in tokens_of(r) if t["message"] == 0 and t["decision"] == "prune"]
    assert gone and all(t["reason"] == "filler" for t in gone), gone
    if not turn.endswith("?"):  # (a question's frame gives up only its politeness words itself: test_filler)
        assert all("inside a request frame that opens its sentence" in t["detail"] for t in gone), gone


def test_the_same_openings_go_inside_a_sentence_or_as_whole_sentences():
    # inside a sentence (after a clause break) the frame goes: nothing starts in lower case
    r = prune(conv("You are a certified tax advisor for US freelancers.",
                   "I moved to Texas in 2024; as my tax advisor, tell me whether I can deduct it."), 0.95)
    assert r.messages[1].pruned == "I moved to Texas in 2024; tell me whether I can deduct it."
    r = prune(conv("You are a librarian.", "My thesis is due Friday, so I was wondering if you could find me papers."),
              0.95)
    assert r.messages[1].pruned == "My thesis is due Friday, so find me papers."
    # a whole thanks sentence goes, even before a sentence written in lower case
    r = prune(conv("You are Nova, a support assistant.", "Thank you so much! the label never arrived."), 0.95)
    assert r.messages[1].pruned == "the label never arrived."
    # a sentence the writer began in lower case keeps its style: its opening filler may go
    r = prune(conv("You are Nova, a support assistant.", "The label came. hey, can you check order 7?"), 0.95)
    assert r.messages[1].pruned == "The label came. can you check order 7?"


def test_a_declared_phrase_goes_wherever_it_stands_as_a_word():
    # the author's <redundant_phrases> list is their call: taken at a sentence start too
    r = prune(conv('<redundant_phrases>["As per my previous message,"]</redundant_phrases>\nYou are Nova.',
                   "I want a replacement. As per my previous message, the left earcup is silent."), 0.95)
    assert r.messages[1].pruned == "I want a replacement. the left earcup is silent."


def test_a_thanks_clause_opening_a_list_item_leaves_the_items_marker():
    # "- Thanks again, I love it!" had lost "- " with the thanks: "I love it!" stood on its own line
    r = prune(conv("You are a helper.", "- Please generate a summary.\n- Thanks again, I love it!"), 0.95)
    assert r.messages[1].pruned.endswith("\n- I love it!")
    # and a lower-case rest keeps the whole item, marker and all
    r = prune(conv("You are a helper.", "- Please generate a summary.\n- Thanks again, you fixed the build!"), 0.95)
    assert r.messages[1].pruned.endswith("\n- Thanks again, you fixed the build!")
    # an item of nothing but politeness goes whole, its marker with it ("you rock" is filler too)
    r = prune(conv("You are a helper.", "- Please generate a summary.\n- Thanks again, you rock!"), 0.95)
    assert r.messages[1].pruned == "- Please generate a summary."


def test_a_declared_phrase_between_commas_goes_with_them():
    # "The left earcup, as per my previous message, is silent" had become "The left earcup, is silent"
    system = '<redundant_phrases>["as per my previous message"]</redundant_phrases>\nYou are Nova.'
    r = prune(conv(system, "I want a replacement. The left earcup, as per my previous message, is silent."), 0.95)
    assert r.messages[1].pruned == "I want a replacement. The left earcup is silent."
    r = prune(conv(system, "The left earcup is silent as per my previous message, even after a reset."), 0.95)
    assert r.messages[1].pruned == "The left earcup is silent, even after a reset."


@pytest.mark.parametrize("turn, pruned", [
    # an apology opening the sentence goes; the frame after it, which would then start the sentence, stays
    ("Sorry to bother you, but I was wondering if you could help me with my tax return.",
     "I was wondering if you could help me with my tax return."),
    ("Hi there, I was wondering if you could check order #123.", "I was wondering if you could check order #123."),
])
def test_two_cuts_that_together_leave_a_sentence_in_lower_case_are_not_both_taken(turn, pruned):
    # each cut alone was fine; taken together they had left "help me with my tax return." in lower case
    r = prune(conv("You are a support agent.", turn), 0.95)
    assert r.messages[1].pruned == pruned
    kept = {t["detail"] for t in tokens_of(r) if t["message"] == 0 and t["decision"] == "keep"}
    assert any("would leave its sentence starting in lower case" in d for d in kept), kept
