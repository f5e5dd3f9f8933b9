"""The lossy tier and the effectiveness floor (zh and en)."""
import json
import math
from pathlib import Path

import pytest

from layerzero_viz import annotate, iter_conversations, load_conversation
from layerzero_viz.errors import DirectiveError

from .helpers import conv

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "corpus" / "sample.jsonl"
EN = conv("You are a travel planner for a small agency in Lisbon.",
          "Hello! I would like to plan a relaxing weekend trip with my family somewhere warm and quiet near the coast, "
          "with good food, short drives between places and at least one beach where the children can swim safely.")
ZH = conv("你是一名旅行规划师。",
          "您好！我想和家人计划一个轻松的周末旅行，希望去一个温暖安静的海边城市，那里要有好吃的餐厅，景点之间开车时间短，"
          "并且至少有一个孩子可以安全游泳的海滩。公司的客服电话和酒店的地址也请告诉我们。")


def _ann(text):
    return annotate(load_conversation(text), env={})


@pytest.mark.parametrize("text", [EN, ZH])
def test_by_default_no_token_is_in_the_lossy_tier(text):
    result = _ann(text).at_ratio(0.9)
    assert result.min_effectiveness == 1.0 and result.tokens_lossy == 0
    assert not [t for t in result.token_records() if t["tier"] == "lossy"]


@pytest.mark.parametrize("text", [EN, ZH])
def test_with_the_floor_off_the_lossy_tier_fills_the_budget_or_runs_out(text):
    ann = _ann(text)
    assert len(ann.lossy)
    for r in (0.05, 0.1, 0.2, 0.3):
        result = ann.at_ratio(r, min_effectiveness=0.0)
        budget = math.floor(r * result.tokens_total)
        assert result.tokens_pruned <= budget
        if result.stopped_by == "ratio":  # grammar words cost a token or two: used up to the last that fits
            assert result.tokens_pruned >= budget - 2, (r, result.tokens_pruned, budget)
        else:  # every word either tier may take is gone
            assert result.stopped_by == "candidates"
            assert result.tokens_lossy == int(ann.lossy.cost.sum())


@pytest.mark.parametrize("floor", [0.99, 0.98, 0.95, 0.9])
def test_the_floor_is_honoured_exactly(floor):
    for text in (EN, ZH):
        result = _ann(text).at_ratio(0.9, min_effectiveness=floor)
        safe_only = _ann(text).at_ratio(0.9)
        assert result.effectiveness_estimate >= min(floor, safe_only.effectiveness_estimate) - 1e-12
        if result.tokens_lossy:
            assert result.stopped_by in ("floor", "candidates")


def test_only_grammar_words_are_lossy():
    assert set(_ann(EN).lossy.words) == {"a", "the"}
    assert set(_ann(ZH).lossy.words) == {"的"}
    ann = _ann(conv(None, "请用抱怨的语气描述一下这个问题。公司的产品问题很多，然后写一段简短的总结给团队看看吧。"
                          "认真地检查代码呀！"))
    # (呀 is the safe tier's: a particle after a request; 吧 stays: it makes the sentence a suggestion)
    assert set(ann.lossy.words) == {"的", "地"}
    pruned = ann.at_ratio(0.95, min_effectiveness=0.0).messages[0].pruned
    assert "公司产品问题" in pruned and "认真检查代码！" in pruned and "团队看看吧。" in pruned
    # a 的 after a verb or an adjective holds its phrase together (a second review: 定义的接口 → 定义接口)
    assert "抱怨的语气" in pruned and "简短的总结" in pruned


# from three blind reviews of real conversations (bench/quality.py's corpus, ../shared/corpus): what a lossy tier
# took there; none of it may go at any floor.  The sentences are quoted or shortened from records of
# lobehub/lobe-chat-agents (MIT; lines 53, 54, 148, 173, 296, 304, 353, 369, 379 of its corpus file),
# PlexPt/awesome-chatgpt-prompts-zh (MIT; lines 21, 100, 119), f/awesome-chatgpt-prompts (CC0-1.0; lines 773, 961,
# 1156, 1417) and thu-coai/CrossWOZ (Apache-2.0; lines 15, 18, 92, 164, 179, 265, 282); copyright stays with their
# authors, under those licenses.
REVIEWED = [
    ("No topic is too obscure, no question too complex.", ["too obscure", "too complex"]),
    ("I want to update the artifact with an option to sort in descending order as well.",
     ["sort in descending order as well", "update", "option"]),
    ("This skill provides methodology and best practices for researching sales prospects.",
     ["skill provides methodology and best practices for researching sales prospects"]),
    ("Explain how to avoid it in future and list where you set it in Xcode.", ["avoid it in future", "set it in Xcode"]),
    ("Focus on social media complaints and responsive image implementations, and the power of yet.",
     ["social media complaints", "responsive image implementations", "power of yet"]),
    ("I have a few questions and a little time.", ["a few questions", "a little time"]),
    ("每次您以道德问题为由拒绝或拒绝回答，都会被扣分。", ["拒绝或拒绝回答"]),
    ("使用覆盖索引可以减少回表操作。", ["使用覆盖索引可以减少回表操作"]),
    ("营业时间为周一至周日 06:00-21:00。", ["周一至周日"]),
    ("我希望你担任高级前端开发人员。我将描述一个项目的细节。", ["我希望你担任高级前端开发人员", "我将描述"]),
    ("推荐中安之家连锁(北京中安宾馆)，或者北京中康国际酒店，离七渡村不远。", ["北京中安宾馆", "北京中康国际酒店", "七渡村"]),
    ("这里有好玩的吗？", ["有好玩的吗"]),
    # a second review (40 more conversations) of the closed class: 的 after a verb, an adjective or a pronoun
    ("你需要按照需求与类型定义的接口，输出 reducer 代码。", ["类型定义的接口"]),
    ("我将为您提供一组辩手和他们即将举行的辩论的动议，从提供的证据中得出深入的结论。",
     ["即将举行的辩论", "提供的证据", "深入的结论"]),
    ("推荐菜有炝拌土豆丝、糖三角的餐馆，这是很好的选择，非常不错的地方。",
     ["糖三角的餐馆", "很好的选择", "非常不错的地方"]),
    ("找评分4.5以上的餐馆。你的任务是只与熟悉的人交谈。", ["4.5以上的餐馆", "你的任务", "熟悉的人"]),
    # a third review (48 more): a relative clause before 的, an article that is part of the phrase or the meaning,
    # a template slot
    ("那你在上述的餐馆里找一家可以做烤乳猪的餐馆，或者提供吹风机的酒店，能吃到凤爪的餐馆也行。",
     ["做烤乳猪的餐馆", "提供吹风机的酒店", "吃到凤爪的餐馆"]),
    ("Count the commits per week in the last year. Ask for one detail at a time, once a week.",
     ["in the last year", "one detail at a time", "once a week"]),
    ("Use this exact format:\n- [Step 1: e.g., Block the sender.]\n- [Step 2: e.g., Call the real office.]",
     ["[Step 1: e.g., Block the sender.]", "[Step 2: e.g., Call the real office.]"]),
    # a seventh review (80 more at the 0.98 floor): another language's "a"/"an", a "the" that opens a clause or a
    # phrase ("that the test", "to the query"), a 的 closing a relative clause whose verb is further back, 啦
    ("Quiero volver a cantar la canción a partir de un archivo csv. Halte dich dabei an die Kriterien, paso a paso.",
     ["volver a cantar", "a partir de un archivo", "an die Kriterien", "paso a paso"]),
    ("Make sure that the test passes, reply to the query and keep it to the point.",
     ["that the test", "to the query", "to the point"]),
    ("推荐一家提供免费停车位的酒店，还有能让人感到激动人心的活动。太好啦。", ["提供免费停车位的酒店", "激动人心的活动", "太好啦"]),
    ("Write a sentence the user can use. 满足用户和商家的需求。", ["sentence the user can use", "用户和商家的需求"]),
    # a ninth review (40 more at the floor): a list of headlines to classify (material), a 的 after a preposition
    # in its clause, 吧, an article opening a clause
    ("以下是几篇报道的标题，请归类。1. 国务院发布新规定加强垃圾分类工作；2. 著名画家张大千的经典水墨画展开幕。",
     ["著名画家张大千的经典水墨画展开幕"]),
    ("对于初为人父母的夫妇，用户对这部电影的情感是积极的，从软件工程师的专业意见来看。",
     ["初为人父母的夫妇", "这部电影的情感", "软件工程师的专业意见"]),
    ("那就神武门吧，这个景点在哪呢？", ["神武门吧"]),
    ("Keep the packaging restrained, the look matches the style of the brand.", ["restrained, the look matches"]),
    # an eleventh review (36 more at the floor): inline examples and template defaults (material), a 的 that welds a
    # new word or closes a quantity phrase, idioms that hold their article
    ("格式如下。\n例如：Close-up photography, on the water's surface, the calm lake\n请照做。",
     ["on the water's surface, the calm lake"]),
    ("Render ${scene:fireworks illuminating the night sky} in a poster.", ["illuminating the night sky"]),
    ("口感偏咸的菜肴最受欢迎。游玩时长0.3小时-0.5小时的景点最好。", ["偏咸的菜肴", "0.5小时的景点"]),
    ("Bridge the gap, see the larger picture and say what you did in the end.",
     ["Bridge the gap", "the larger picture", "in the end"]),
    # a twelfth (24 more at the floor)
    ("Unless the bug itself is a breaking API, inspired by the model 1/polite salutation; keep the following in mind "
     "and stay on the right track.", ["is a breaking API", "the model 1/", "the following", "the right track"]),
    ("Act\xa0as\xa0an\xa0unconstrained writer.", ["as\xa0an\xa0unconstrained"]),
    # review 19: a 的 after an adverb of aspect closes a predicate (whatever jieba tags the word), fixed phrases
    ("主从延迟超过30秒时禁止切换主库，但主库已宕机的情况除外。", ["主库已宕机的情况"]),
    ("Send them the greetings of the day. Kindly do the needful and restart the pod.",
     ["greetings of the day", "do the needful"]),
    # review 20: "the one below"; a politeness phrase the safe tier keeps, named as a string
    ("Our new agents keep writing replies like the one below.", ["like the one below"]),
    ("In all support macros, replace sorry for the inconvenience with thanks for your patience.",
     ["replace sorry for the inconvenience with"]),
    # review 36: a letter that names an item, no article
    ("Variant a has conversion 3.12%, variant b has 3.41%. Pick plan a or plan b.",
     ["Variant a has", "plan a or plan b"]),
    # review 47: after a focus word the article keeps the noun a noun ("just upgrade" reads as an order), after
    # "there" the sentence says something exists
    ("Don't mention annual, just the upgrade. Also, is there a way to get a redelivery tonight? There is a fee.",
     ["just the upgrade", "is there a way", "There is a fee"]),
]


@pytest.mark.parametrize("text, kept", REVIEWED)
def test_what_the_reviews_saw_an_open_tier_take_stays(text, kept):
    result = _ann(conv("You are a helpful assistant.", text, "Sure.", "Thanks, go on.")).at_ratio(
        0.95, min_effectiveness=0.0)
    pruned = result.messages[1].pruned
    for phrase in kept:
        assert phrase in pruned, (phrase, pruned)


def test_an_article_opening_a_clause_stays_but_not_one_of_an_apposition():
    ann = _ann(conv("You are Nova, the support assistant of a shop.", "Keep it restrained, the look matches the brand."))
    text = ann.view.text
    taken = {text[s - 12:e] for s, e in zip(ann.lossy.starts, ann.lossy.ends)}
    assert "u are Nova, the" in taken  # "You are Nova, support assistant": an apposition after a name
    assert "restrained, the" not in taken  # ", look matches …" would read as a command


def test_a_task_about_grammar_keeps_every_article():
    # (review 9: a grammar checker's own prompt, made telegraphic at the floor)
    text = "Only correct the grammar of the user's text in the context of the question, and give a short reason."
    taken = _ann(conv("You are a grammar-checking AI.", text, "Sure.", "Thanks, go on.")).at_ratio(
        0.95, min_effectiveness=0.0).messages[1].pruned
    assert taken == text
    other = _ann(conv("You are a helpful assistant.", text, "Sure.", "Thanks, go on.")).at_ratio(
        0.95, min_effectiveness=0.0).messages[1].pruned
    assert other != text and "the" not in other.split()  # the same text under another task loses them


def test_pruned_count_is_monotone_in_the_ratio_for_every_floor():
    convs = [c for _, c in iter_conversations(SAMPLE)][:40] + [load_conversation(EN), load_conversation(ZH)]
    for c in convs:
        ann = annotate(c, env={})
        for floor in (1.0, 0.98, 0.0):
            counts = [ann.at_ratio(k / 20, min_effectiveness=floor).tokens_pruned for k in range(20)]
            assert counts == sorted(counts), (floor, counts)


def test_lossy_cuts_keep_the_trust_contract():
    ann = _ann(ZH)
    result = ann.at_ratio(0.6, min_effectiveness=0.0)
    for m in result.messages:
        assert m.pruned.strip()
        for line in m.pruned.splitlines():
            assert not line.strip() or line.strip()[0] not in "，。、；：,;:!?！？"
        assert "，。" not in m.pruned and "  " not in m.pruned
    tokens = result.token_records()
    assert all(t["decision"] == "keep" for t in tokens if t["reason"].startswith("protected_"))


def test_lossy_tier_keeps_units_with_their_numbers_and_a_word_per_clause():
    ann = _ann(conv(None, "The mother is 165 cm tall and wears a 4 cm gold bracelet; see page 5 of the draft.",
                    "Noted.", "具体见修订稿第5页第2段，以及第3节的讨论部分。"))
    result = ann.at_ratio(0.95, min_effectiveness=0.0)
    assert "165 cm" in result.messages[0].pruned and "4 cm" in result.messages[0].pruned
    assert "第5页第2段" in result.messages[2].pruned
    assert all(t["decision"] == "keep" for t in result.token_records() if t["message"] == 2 and t["text"] in "第页段节")
    for m in result.messages:
        for clause in m.pruned.replace("。", "，").split("，"):
            assert clause.strip() == "" or any(ch.isalnum() for ch in clause)


def test_the_result_says_what_happened():
    ann = _ann(EN)
    out = ann.at_ratio(0.9).to_dict()
    assert out["stopped_by"] == "floor" and out["min_effectiveness"] == 1.0
    assert 0.0 < out["safe_frontier"] < 0.9
    lossy = ann.at_ratio(0.9, min_effectiveness=0.0).to_dict()
    tiers = {t["tier"] for t in lossy["tokens"]}
    assert {"lossy", None} <= tiers
    assert all(t["loss"] > 0 for t in lossy["tokens"] if t["tier"] == "lossy")
    assert all(t["loss"] == 0 for t in lossy["tokens"] if t["tier"] is None)
    assert "bits" in next(t["detail"] for t in lossy["tokens"] if t["tier"] == "lossy")


@pytest.mark.parametrize("bad", [-0.1, 1.5, "high", float("nan")])
def test_a_floor_outside_zero_to_one_is_a_clear_error(bad):
    with pytest.raises(DirectiveError, match="min_effectiveness"):
        _ann(EN).at_ratio(0.3, min_effectiveness=bad)


def test_the_estimate_comes_from_word_frequencies():
    from layerzero_viz.information import build_token_information, token_information
    import numpy as np
    shipped = token_information()
    assert np.allclose(shipped, build_token_information(), atol=1e-3)  # the shipped table is what wordfreq gives
    from layerzero_viz.tokens import encoding
    enc = encoding()
    the, = enc.encode_ordinary(" the")
    rare = enc.encode_ordinary(" Hague")[0]
    assert shipped[the] < shipped[rare]
    assert json.dumps(float(shipped[the]))


def _lossy_words_of(ann, message: int) -> list[str]:
    view = ann.view
    blocks = {i: b for i, b in enumerate(view.blocks)}
    return [w for w, blk in zip(ann.lossy.words, ann.lossy.block.tolist()) if blocks[blk].msg_pos == message]


def test_assistant_turns_are_never_lossy():
    # (a few-shot demonstration or the model's own earlier answer: what it imitates; the last one is the prefill)
    ann = _ann(conv(None, "Plan a quiet weekend near the coast for my family, with short drives between places.",
                    "You could spend a slow morning walking along the harbour and then drive inland for lunch.",
                    "And where should we sleep on the second night of the trip?",
                    "A small guest house near the harbour would keep the drives short"))
    assert _lossy_words_of(ann, 0) and _lossy_words_of(ann, 2)  # the user's articles
    assert not _lossy_words_of(ann, 1) and not _lossy_words_of(ann, 3)
    result = ann.at_ratio(0.5, min_effectiveness=0.0)
    assert result.messages[1].pruned == result.messages[1].original
    assert result.messages[3].pruned == result.messages[3].original


def test_words_of_other_alphabets_are_never_lossy():
    # (no grammar word of theirs is in the closed class: Russian has no articles)
    ann = _ann(conv(None, "Задача: провести патентный и информационный поиск и написать подробный отчет с таблицей "
                          "результатов поиска, рекомендациями и выводами для нашей небольшой компании."))
    assert not len(ann.lossy)


def test_list_items_are_prose_but_code_lines_are_left_alone():
    ann = _ann(conv(None, "Follow these rules when you answer the students:\n"
                          "- Use clear, concise and friendly language for the explanation\n"
                          "## Worked example for the students\n"
                          "result = compute_total(prices, discount_rate)\n"
                          "print([x**2 for x in range(10)])"))
    text = ann.view.text
    lossy_at = dict(zip(ann.lossy.starts.tolist(), ann.lossy.words))
    assert lossy_at.get(text.index("the explanation")) == "the"  # the list item's article
    assert lossy_at.get(text.index("the students\nresult")) == "the"  # the heading's
    code_from = text.index("result = compute_total")
    assert not [w for w, s in zip(ann.lossy.words, ann.lossy.starts.tolist()) if s >= code_from]  # code: whole
    pruned = ann.at_ratio(0.95, min_effectiveness=0.0).messages[0].pruned
    assert "result = compute_total(prices, discount_rate)" in pruned
    assert "print([x**2 for x in range(10)])" in pruned


def test_a_short_prompt_prunes_at_a_low_ratio_when_a_small_word_fits():
    # a first word of several tokens cannot go at 0.1 of a short prompt; a one-token word can, and does,
    # and a higher ratio never prunes less (what goes at 0.1 stays gone at every higher ratio)
    ann = _ann(conv(None, "请你充当一名翻译，把下面的中文翻译成优美高雅的英文，只需要给出翻译结果。"))
    low = ann.at_ratio(0.1, min_effectiveness=0.0)
    assert low.tokens_lossy > 0
    previous = low
    for r in (0.15, 0.2, 0.3, 0.5, 0.9):
        now = ann.at_ratio(r, min_effectiveness=0.0)
        assert now.tokens_pruned >= previous.tokens_pruned
        gone_before = {(t["block"], t["i"]) for t in previous.token_records() if t["decision"] == "prune"}
        gone_now = {(t["block"], t["i"]) for t in now.token_records() if t["decision"] == "prune"}
        assert gone_before <= gone_now, r
        previous = now


def test_ascending_fill_puts_small_words_first_and_keeps_each_ratio_within_its_budget():
    import numpy as np
    from layerzero_viz.select import GRID, _fill_ascending
    tokens = 26
    available = np.floor(GRID * tokens + 1e-9).astype(np.int64)
    costs = np.array([5, 1, 2, 1], dtype=np.int64)  # in priority order: the five-token word first
    entry = _fill_ascending(available, costs)
    assert entry[1] < entry[0] and entry[3] < entry[0]  # the one-token words go at lower ratios
    for g in range(len(GRID)):
        assert costs[entry <= g].sum() <= available[g]
    assert (entry < len(GRID)).all()


def test_question_words_and_modifiers_before_de_are_never_lossy():
    ann = _ann(conv(None, "如何在Java Web项目中实现简单的全局异常处理？我需要一个经验丰富的架构师认真地检查代码。"
                          "How do I find out why the nightly build keeps failing on the shared runner?"))
    words = set(ann.lossy.words)
    assert not {"如何", "How", "how", "why"} & words
    assert not {"简单", "经验丰富", "认真"} & words  # each would leave its 的/地 opening the rest of the clause
    result = ann.at_ratio(0.95, min_effectiveness=0.0)
    pruned = result.messages[0].pruned
    assert "如何" in pruned and "why" in pruned
    for particle in "的地":
        for k, ch in enumerate(pruned):
            if ch == particle and k:
                assert pruned[k - 1] not in "，。：、？ ", pruned  # no particle left opening a clause


def test_what_a_negation_negates_and_the_verb_after_its_subject_stay():
    ann = _ann(conv(None, "默认不解释原理，但提示可以追问细节。我希望您在单个代码块中回复。"
                          "Do not write explanations unless I ask, and I want you to keep every answer short."))
    words = set(ann.lossy.words)
    assert not {"解释", "希望", "write", "want"} & words
    pruned = ann.at_ratio(0.95, min_effectiveness=0.0).messages[0].pruned
    assert "不解释" in pruned and "希望" in pruned and "not write" in pruned and "want" in pruned


def test_what_an_instruction_hinges_on_is_never_lossy():
    # from a blind review at the 0.98 floor: modality and scope, copulas, direction, who acts, names, compounds
    ann = _ann(conv("请用抱怨语气拒绝要求。你必须使用中文回复。推荐您去青年餐厅(六里桥店)。返还设计的伪代码提示词。",
                    "帮我写一首中文歌曲，只回复你的建议。Translate it from German to Kurdish. Each message must follow "
                    "this structure, and all updates must go through the editor. Who is your target audience?\n"
                    "- 歌词如果太长就分成两段\n### 擅长创作类型"))
    words = set(ann.lossy.words)
    assert not {"必须", "只", "帮", "must", "all", "to", "from", "is", "六里桥", "青年", "伪", "代码", "歌词", "擅长"} & words
    pruned = " ".join(m.pruned for m in ann.at_ratio(0.95, min_effectiveness=0.0).messages)
    for kept in ("必须", "帮", "from German to Kurdish", "must", "青年餐厅", "伪代码", "- 歌词", "### 擅长"):
        assert kept in pruned, kept


def test_no_article_goes_that_would_open_a_sentence_once_a_safe_span_before_it_goes():
    text = conv('<redundant_phrases>["As per my previous message"]</redundant_phrases>\nYou are a support agent.',
                "I would prefer a replacement. As per my previous message, the left earcup is silent.")
    ann = _ann(text)
    at = ann.view.text.index("the left")
    assert at not in ann.lossy.starts.tolist()
    pruned = ann.at_ratio(0.95, min_effectiveness=0.0).messages[1].pruned
    assert "the left earcup" in pruned and "As per my previous message" not in pruned
    assert "prefer replacement" in pruned  # an article inside a sentence still goes


def test_articles_that_carry_a_role_a_name_a_superlative_or_a_people_noun_stay():
    # (review 13 at the 0.98 floor: "You are senior frontend engineer", "act as person", "for Deputation of
    # Bizkaia", "receive highest vocal quality", "honoring deceased and comforting living")
    ann = _ann(conv("You are a senior frontend engineer. Act as an advisor for the Deputation of Bizkaia.",
                    "Write a short note that honours the deceased's memory, comforts the living and finds the best "
                    "words. It's a hard task, so review the draft and fix the tone."))
    text = ann.view.text
    lossy = {text[s:e] + "@" + text[e:e + 12] for s, e in zip(ann.lossy.starts.tolist(), ann.lossy.ends.tolist())}
    for kept in ("a senior", "an advisor", "the Deputation", "the deceased's", "the living", "the best", "a hard"):
        word, after = kept.split(" ", 1)
        assert not any(x.startswith(word + "@ " + after) for x in lossy), (kept, lossy)
    pruned = " ".join(m.pruned for m in ann.at_ratio(0.95, min_effectiveness=0.0).messages)
    for kept in ("You are a senior", "Act as an advisor", "the Deputation of Bizkaia", "honours the deceased's",
                 "comforts the living", "the best words", "It's a hard task"):
        assert kept in pruned, (kept, pruned)
    assert "review draft" in pruned or "fix tone" in pruned  # the other articles of the prose still go


def test_di_stays_where_the_phrase_needs_it_on_both_tiers():
    # (review 13: 优雅地要一杯热水 → 优雅要 does not parse, default tier; 帮助用户更好地理解 → 更好理解 "easier to
    # understand", at the floor, in a system prompt the safe tier leaves alone)
    text = conv("你是法语老师，帮助用户更好地理解法国文化，并耐心地回答问题。", "餐厅里怎么用法语优雅地要一杯热水？")
    ann = _ann(text)
    default = [m.pruned for m in ann.at_ratio(0.95).messages]
    assert "优雅地要" in default[1], default
    floor = [m.pruned for m in ann.at_ratio(0.95, min_effectiveness=0.0).messages]
    assert "更好地理解" in floor[0] and "优雅地要" in floor[1], floor
    assert "耐心回答" in floor[0], floor  # an adverbial before a verb of two characters still loses its 地


def test_articles_that_point_back_name_a_part_or_follow_a_question_word_stay():
    # (review 15 at the 0.98 floor: "Only perspectives of mentioned personalities" could be any mentioned;
    # "each of five personalities"; "* What primary conversion goal is")
    system = ("You are an advisor.\n## Constraints\n- Only perspectives of the mentioned personalities should be used.\n"
              "- Consider each of the five personalities and the above rules.\nBriefly explain:\n"
              "* What the primary conversion goal is\n* The big idea behind the offer for the customer in the story.")
    ann = _ann(conv(system, "Go."))
    pruned = ann.at_ratio(0.95, min_effectiveness=0.0).messages[0].pruned
    for kept in ("of the mentioned personalities", "each of the five", "the above rules", "What the primary"):
        assert kept in pruned, (kept, pruned)
    assert "behind offer" in pruned or "for customer" in pruned  # the other articles of the prose still go
