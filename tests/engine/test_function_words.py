"""low_information: a function word is pruned only where its removal cannot change meaning (zh and en)."""
from .helpers import conv, prune


def out(text: str) -> str:
    return prune(conv(None, text), 0.95).messages[0].pruned


def test_de_closing_a_nominal_phrase_is_kept():
    assert "不是他的" in out("这本书不是他的。")
    assert "是我的" in out("这是我的。")


def test_de_is_not_a_safe_cut_even_between_modifier_and_noun():
    # jieba's tags cannot tell 你的朋友 from a relative clause closed by 的 (能吃到黄桥烧饼的餐馆: without it the
    # dish reads as the restaurant's name), so 的 is never in the safe tier
    assert "能吃到黄桥烧饼的餐馆" in out("请问哪里能吃到黄桥烧饼的餐馆？")
    r = prune(conv("请告诉你的朋友。", "好"), 0.95).messages[0].pruned
    assert "你的朋友" in r


def test_degree_words_are_kept():
    assert "那还挺高的呢" in out("那还挺高的呢，有便宜点的吗？")
    assert "a relevant and very clearly expressed contribution" in out(
        "Give 5 points when the response is a relevant and very clearly expressed contribution.")


def test_de_after_a_verb_is_kept():
    assert "他写的书" in out("他写的书很好看。")


def test_de_as_verb_is_kept():
    assert "得奖" in out("他得奖了。")
    assert "得了肺炎" in out("他得了肺炎。")
    assert "我得走了" in out("我得走了。")


def test_le_marking_completion_is_kept():
    assert "吃了饭" in out("我吃了饭。")


def test_not_simply_is_kept():
    assert "not simply" in out("This is not simply a bug.")
    assert "not just" in out("It is not just slow.")
    assert "not only" in out("Not only the price matters.").lower() or "only" in out("Not only the price matters.")


def test_intensifier_after_a_negation_is_kept():
    assert "not very good" in out("The answer is not very good.")


def test_of_is_kept():
    assert "refund of" in out("Give a refund of the fee.")


def test_unit_after_number_is_kept():
    assert "3.5 mm" in out("Include the 3.5 mm audio cable.")
    assert "4:50 pm" in out("Meet at 4:50 pm.")


def test_article_in_a_name_is_kept():
    assert "The Hague" in out("Fly to The Hague tomorrow.")
    assert "the United States" in out("Ship to the United States.")


def test_article_in_emphasis_link_or_list_marker_is_kept():
    r = out("**The** rule: see [the guide](http://x.example).\na) the first option\nb) a dog")
    assert "**The**" in r and "[the guide]" in r
    assert "a) " in r and "b) a dog" in r
    assert "a.m." in out("Call at 9 a.m. sharp.")


def test_article_before_an_idiom_is_kept():
    r = out("Add a few notes and a little salt once a day.")
    assert "a few" in r and "a little" in r and "once a day" in r


def test_articles_are_kept_in_running_prose():
    # "connections between the two" → "between two" loses the reference; articles are not safe-tier cuts
    assert "Check the status of the order." in out("Check the status of the order.")
    assert "connections between the two" in out("Note the connections between the two, if any.")


def test_assistant_turn_keeps_its_words():
    r = prune(conv("You are a writing coach.", "Improve: 'Energy is important.'",
                   "Renewable energy plays a crucial role in protecting the environment. Sure, please share more."),
              0.95)
    assert r.messages[2].pruned == r.messages[2].original


def test_interjection_opening_a_clause_goes_with_its_comma():
    assert out("Um, I need order 7 checked.") == "I need order 7 checked."
    assert out("Um, check order 7.") == "Um, check order 7."  # "check …" would start it in lower case
    assert out("嗯，我想查订单7。").startswith("我想")
    # half of an acknowledgement: the turn says "ok" and stays as it is
    assert out("嗯嗯，好的。") == "嗯嗯，好的。"


def test_of_course_and_sure_are_kept():
    r = prune(conv(None, "Is order 7 late?", "Of course. Sure, it is.", "Go on."), 0.95).messages[1].pruned
    assert r.startswith("Of course.") and "Sure" in r


def test_word_before_reads_what_its_patterns_find():
    """_word_before's shortcuts decide exactly as _EN_NEGATION_BEFORE and _EN_PREV_WORD (the definition)."""
    import random

    from layerzero_viz.rules import low_information as li

    rng = random.Random(5)
    pieces = ["not", "Not", "NO", "no", "never", "cannot", "don't", "don’t", "without", "hardly", "barely", "what",
              "plan", "x", "_", "1", "(", "é", "的", " ", " ", " ", "  ", "\t", "\n", "\xa0", ",", "a", "the"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) + " "
        s = len(text) - rng.choice((0, 0, 1))
        negated = li._EN_NEGATION_BEFORE.search(text, max(0, s - 12), s) is not None
        prev = li._EN_PREV_WORD.search(text[max(0, s - 20):s])
        assert li._word_before(text, s) == (negated, prev.group(1).lower() if prev else ""), (text, s)


def test_a_final_particle_stays_in_an_interjection_and_where_it_alone_makes_the_question():
    # (review 15: "这样啊，" "oh, I see" became "这样，" "like this"; "门票多钱啊，" lost its only question mark)
    assert out("这样啊，那酒店里的餐厅有没有咖喱？").startswith("这样啊，")
    assert out("门票多钱啊，把电话也告诉我吧。").startswith("门票多钱啊，")
    # before a question mark, or closing a plain clause, it still goes
    assert out("酒店地址是在哪里啊？") == "酒店地址是在哪里？"
    assert out("好啊，帮我订一间。").startswith("好，")
