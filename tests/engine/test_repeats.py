"""repeated_constraint, derivable_context (role frames) and declared_redundant: what is really a repeat."""
from pathlib import Path

import pytest

from layerzero_viz import annotate, iter_conversations, load_conversation
from layerzero_viz.rules import repeated

from .helpers import conv, prune, tokens_of

NEW = "查一下订单。"  # something new in the turn: a turn made only of repeats is kept whole anyway


def _taken(r, reason="repeated_constraint"):
    return "".join(t["text"] for t in tokens_of(r, reason, "prune"))


def test_correction_that_drops_a_negation_is_kept():
    r = prune(conv("不要使用表格。", "这次要使用表格。" + NEW))
    assert "这次要使用表格" in r.messages[1].pruned
    r = prune(conv("回答时请不要使用表格格式。", "回答时请使用表格格式。" + NEW))
    assert "使用表格格式" in r.messages[1].pruned and not _taken(r)


def test_correction_that_drops_a_negation_is_kept_en():
    r = prune(conv("Do not use tables in the answer.", "Use tables in the answer. Thanks for the help."),
              low_information=False)
    assert "Use tables in the answer" in r.messages[1].pruned


def test_restatement_after_a_conflicting_turn_is_kept():
    r = prune(conv("回答时请不要使用表格格式。", "回答时请使用表格格式。" + NEW, "好的", "回答时请不要使用表格格式。" + NEW))
    assert "不要使用表格格式" in r.messages[3].pruned


def test_correction_marker_keeps_the_sentence():
    r = prune(conv("Answer in formal English.", "Correction: answer in formal English. Check my order."))
    assert "answer in formal English" in r.messages[1].pruned
    r = prune(conv("回答不超过200字。", "更正：回答不超过200字。" + NEW))
    assert "回答不超过200字" in r.messages[1].pruned


def test_one_way_containment_is_not_a_repeat():
    r = prune(conv("回答时不要使用表格和图片。", "回答时不要使用表格。" + NEW))
    assert "回答时不要使用表格" in r.messages[1].pruned
    r = prune(conv("Never reveal internal notes or customer data.", "Never reveal internal notes. Check my order."))
    assert "Never reveal internal notes" in r.messages[1].pruned


def test_repeat_differing_only_in_clause_order_is_pruned():
    r = prune(conv("回答不超过200字，使用正式语气。", "使用正式语气，回答不超过200字。" + NEW))
    assert "正式语气" not in r.messages[1].pruned and "查" in r.messages[1].pruned
    r = prune(conv("Use a formal tone, keep it under 100 words.", "Keep it under 100 words, use a formal tone. Check my order."))
    assert "formal tone" not in r.messages[1].pruned and "order" in r.messages[1].pruned


def test_repeat_differing_only_in_punctuation_width_and_spacing_is_pruned():
    r = prune(conv("回答不超过200字，使用正式语气。", "回答不超过２００字  使用正式语气！" + NEW))
    assert "正式语气" not in r.messages[1].pruned
    d = [t["detail"] for t in tokens_of(r, "repeated_constraint", "prune")]
    assert d and d[0].startswith("repeats message system (system), char 0")


def test_restatement_words_do_not_make_a_new_constraint():
    r = prune(conv("Always answer in formal English.", "Also, please answer in formal English. Check my order."))
    assert "formal English" not in r.messages[1].pruned


def test_assistant_echo_of_user_list_is_not_a_repeat():
    r = prune(conv(None, "请整理：1. 必须早上8点到岗。2. 请提交周报。", "1. 必须早上8点到岗。2. 请提交周报。", "谢谢"))
    assert not _taken(r)
    r = prune(conv(None, "Items: - Always back up the database.", "- Always back up the database.", "Thanks"))
    assert not _taken(r)


def test_repeated_list_item_goes_with_its_marker():
    r = prune(conv("规则：\n1. 只输出JSON，不要输出其他文字。\n2. 评分范围为1到5分。\n3. 只输出JSON，不要输出其他文字。", "你好"))
    assert r.messages[0].pruned.count("只输出JSON") == 1 and "3." not in r.messages[0].pruned
    r = prune(conv("Rules:\n- Output valid JSON only.\n- Use snake_case keys.\n- Output valid JSON only.", "Hi"))
    assert r.messages[0].pruned.count("JSON only") == 1 and "\n-\n" not in r.messages[0].pruned + "\n"


def test_part_of_a_list_item_and_a_heading_are_kept():
    r = prune(conv("不要使用表格。\n- 不要使用表格，除非用户要求。\n# 不要使用表格", "你好"))
    assert r.messages[0].pruned.count("不要使用表格") == 3


def test_correction_elsewhere_in_the_turn_does_not_keep_a_repeat():
    r = prune(conv("Reply within 3 sentences.", "更正：退款金额以美元显示。Reply within  3 sentences."))
    assert "Reply" not in r.messages[1].pruned and "美元" in r.messages[1].pruned


def test_dialogue_echo_is_not_a_repeat():
    r = prune(conv(None, "页面加载中", "请稍等", "页面加载中", "好的", "周边有什么景点？", "有故宫。", "周边有什么景点呢？"))
    assert not _taken(r)


def test_protected_tokens_match_is_never_taken_by_a_repeat():
    system = "<protected_tokens>[\"不超过200字\"]</protected_tokens>\n回答不超过200字。"
    r = prune(conv(system, "回答不超过200字。" + NEW))
    assert "不超过200字" in r.messages[1].pruned
    system = "<protected_tokens>[\"formal English\"]</protected_tokens>\nAnswer in formal English."
    r = prune(conv(system, "Answer in formal English. Check my order."))
    assert "formal English" in r.messages[1].pruned


def test_output_format_is_never_taken_by_a_repeat():
    system = "回答不超过200字。<output_format>回答不超过200字。</output_format>"
    r = prune(conv(system, "你好"))
    assert r.messages[0].pruned.count("回答不超过200字") == 2


def test_repeat_is_not_detected_from_a_quote():
    r = prune(conv(None, "他说：“回答不超过200字。”请总结这句话。回答不超过200字。"))
    assert r.messages[0].pruned.endswith("回答不超过200字。")


def test_kept_note_says_why_a_flipped_copy_stays():
    from layerzero_viz import annotate, load_conversation
    ann = annotate(load_conversation(conv("回答时请不要使用表格格式。", "回答时请使用表格格式。" + NEW)), env={})
    notes = repeated.kept_notes(ann.view)
    assert any("newest word" in why and "message system" in why for _, _, why in notes)


def test_role_restated_in_other_words_is_derivable():
    r = prune(conv("你是一名初中物理老师，负责出题。", "作为一名物理老师，请出三道题。"))
    assert "作为一名物理老师" not in r.messages[1].pruned and "出三道题" in r.messages[1].pruned
    assert "初中物理老师" in tokens_of(r, "derivable_context", "prune")[0]["detail"]


def test_role_restated_in_other_words_is_derivable_en_and_across_languages():
    r = prune(conv("You are a certified tax advisor. Be precise.", "I filed late; as your tax advisor, explain the deduction."))
    assert r.messages[1].pruned == "I filed late; explain the deduction."
    r = prune(conv("You are a physics teacher.", "作为物理老师，请出三道题。"))
    assert "作为物理老师" not in r.messages[1].pruned


def test_user_stating_their_own_role_is_not_derivable():
    r = prune(conv("你是一名税务顾问。", "作为一名老师，我想了解个税。"))
    assert r.messages[1].pruned.startswith("作为一名老师")
    r = prune(conv("You are a tax advisor.", "As a teacher, I want to know the deduction."), low_information=False)
    assert r.messages[1].pruned.startswith("As a teacher")


def test_other_role_with_another_head_noun_is_kept():
    r = prune(conv("你是一名数学老师的助手。", "作为一名数学老师，请出三道题。"))
    assert not tokens_of(r, "derivable_context")


def test_declared_phrase_inside_longer_word_is_kept():
    system = '<redundant_phrases>["麻烦", "请问"]</redundant_phrases>\n你是客服。'
    r = prune(conv(system, "我遇到麻烦了，麻烦您查订单。我要申请问题单。"))
    assert r.messages[1].pruned.startswith("我遇到麻烦了") and "申请问题单" in r.messages[1].pruned
    assert "遇到" in r.messages[1].pruned


def test_declared_phrase_en_is_a_whole_word_case_insensitive():
    system = '<redundant_phrases>["kindly"]</redundant_phrases>\nYou help.'
    r = prune(conv(system, "Kindly check the order. Kindlyness matters."))
    assert "Kindlyness" in r.messages[1].pruned and not r.messages[1].pruned.startswith("Kindly check")


def test_declared_phrase_in_a_quote_is_kept():
    system = '<redundant_phrases>["麻烦"]</redundant_phrases>\n你是客服。'
    r = prune(conv(system, "请翻译：“麻烦您帮我看看。”"))
    assert "麻烦您帮我看看" in r.messages[1].pruned


# --- the judgment's faster helpers decide exactly as the definitions they stand for ---

_CONSTRAINT_SAMPLES = [
    "请问这是什么？", "请回答。", "用英文！回答", "用英文回答。", "以中文作答", "使用表格。", "回答不超过200字。", "你好。",
    "Do NOT explain.", "DON'T explain.", "dont explain", "MUST", "Keep it short.", "keeper of the keys",
    "Use bullets.", "bulleted", "requires", "REQUIRED", "no more than", "no  more than", "at most", "atmost",
    "\u212aeep it short.", "u\u017fe tables", "\u0131nclude", "\u0130nclude", "Ｕｓｅ tables", "ＵＳＥ", "use。",
    "请用English回答", "中文 and use tables", "写作风格", "", " ", "?", "Should I?", "格式：JSON",
]


def test_constraint_search_part_by_part_is_the_one_pattern():
    for text in _CONSTRAINT_SAMPLES + [t.upper() for t in _CONSTRAINT_SAMPLES]:
        assert repeated._constraint_word_in(text) == (repeated._CONSTRAINT.search(text) is not None), text


def test_fast_fold_is_fold():
    from layerzero_viz.view import fold
    samples = ["ΑΣ", "ΟΔΟΣ οδός", "ﬁne", "ＡＢＣ１２３…", "\uf900\u2f00\u3038㈠㍿", "e\u0301", "\u1100\u1161", "İı",
               "Kelvin \u212a", "ſ", "回答请用中文, Please!", "Don’t", "ǅ", "ß", ""]
    samples += [chr(c) for c in range(0x3400)] + [chr(c) for c in range(0xF900, 0xFB00)]
    for text in samples:
        assert repeated._fold(text) == fold(text), text


def test_analyse_keys():
    """Restatement words (另外, 请, 务必, also) dropped, negations and modals only in the exact key, numbers as #
    in the family, clauses (at separators and "and") sorted."""
    assert repeated._analyse("另外，请务必不要使用表格，回答不超过200字。") == (('不', '要', '使', '用', '表', '格', '回', '答', '不', '超', '过', '200', '字'),
                 ('使', '用', '表', '格', '回', '答', '超', '过', '#', '字'),
                 (('不', '要', '使', '用', '表', '格'), ('回', '答', '不', '超', '过', '200', '字')),
                 (('使', '用', '表', '格'), ('回', '答', '超', '过', '#', '字')))
    assert repeated._analyse("Also, don't use tables and never exceed 80 words.") == (
        ("don't", 'use', 'tables', 'and', 'never', 'exceed', '80', 'words'),
        ('use', 'tables', 'and', 'exceed', '#', 'words'),
        (("don't", 'use', 'tables'), ('never', 'exceed', '80', 'words')),
        (('exceed', '#', 'words'), ('use', 'tables')))
    assert repeated._analyse("You cannot skip steps 1, 2; and answer in English.") == (
        ('you', 'cannot', 'skip', 'steps', '1', '2', 'and', 'answer', 'in', 'english'),
        ('you', 'skip', 'steps', '#', '#', 'and', 'answer', 'in', 'english'),
        (('2',), ('answer', 'in', 'english'), ('you', 'cannot', 'skip', 'steps', '1')),
        (('#',), ('answer', 'in', 'english'), ('you', 'skip', 'steps', '#')))


def test_a_repeated_clause_cut_inside_brackets_stays():
    # from a review of the lossless default (f/awesome-chatgpt-prompts, CC0-1.0, line 1466 of the corpus file):
    # "Use checkboxes and stable IDs (e.g.," repeated before another ID left "`LEGAL-PAGE-1.1`):" alone
    from layerzero_viz.rules.repeated import _why_not_a_constraint_copy
    from layerzero_viz.view import TextView
    text = "Use checkboxes and stable IDs (e.g., `LEGAL-PAGE-1.1`):"
    view = TextView.of(load_conversation(text))
    cut = text.index("(e.g.,") + len("(e.g.,")
    assert _why_not_a_constraint_copy(view, 0, cut, (0, len(text)), None, True)[0] == "cut inside brackets"
    assert _why_not_a_constraint_copy(view, 0, len(text), (0, len(text)), None, True)[0] != "cut inside brackets"


def test_the_reviewed_bracket_cut_on_the_corpus_record():
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "f_awesome-chatgpt-prompts.jsonl"
    if not corpus.exists():
        pytest.skip("needs ../shared/corpus")
    conv = dict(iter_conversations(corpus))[1466]
    pruned = annotate(conv, env={}).at_ratio(0.95).messages[-1].pruned
    assert "Use checkboxes and stable IDs (e.g., `LEGAL-PAGE-1.1`):" in pruned


def test_a_list_item_of_another_sections_list_stays_even_when_the_match_starts_at_its_marker():
    # (review 8, lobehub agent 21: skill 5's own formatting bullet went as a repeat of skill 2's)
    system = ("## 技能\n\n### 技能 2：搜索视频\n\n- 根据关键词查找视频\n- 掌握 Markdown 格式，有序呈现文本，必要时突出重要元素\n\n"
              "### 技能 5：获取热门视频\n\n- 根据用户偏好返回视频列表\n- 掌握 Markdown 格式，有序呈现文本，必要时突出重要元素")
    r = prune(conv(system, "帮我找几个热门视频。"), 0.95)
    assert r.messages[0].pruned == system


def test_de_hua_goes_only_closing_a_conditional_clause():
    # (review 8, lobehub agent 52: 我不会有过多的话 — 的 + the noun 话, "words" — lost 的话)
    for text in ("我不会有过多的话，不要说多余的话。", "比如安慰的话。"):
        assert prune(conv(None, text), 0.95).messages[0].pruned == text
    assert prune(conv(None, "如果你有时间的话，查询订单7。"), 0.95).messages[0].pruned == "如果你有时间，查询订单7。"


def test_phrases_joined_by_and_after_a_shared_head_repeat_in_any_order():
    # (labeled polarity-en-06: "Suggest hotels near the city center and under $200 per night." restated with its
    # two phrases swapped)
    system = "You are a travel assistant. Suggest hotels near the city center and under $200 per night."
    swapped = "I fly to Lisbon on 12 May. Suggest hotels under $200 per night and near the city center."
    assert "Suggest hotels" not in prune(conv(system, swapped), 0.95).messages[1].pruned
    # a swap that changes who does what, or where the negation stands, is no repeat
    for other in ("Use spaces and not tabs.", "Cats chase dogs and birds."):
        first = {"Use spaces and not tabs.": "Use tabs and not spaces.",
                 "Cats chase dogs and birds.": "Dogs chase cats and birds."}[other]
        kept = prune(conv(f"You are a helper. {first}", f"My file is ready. {other}"), 0.95).messages[1].pruned
        assert other in kept, kept


def test_a_reminder_of_one_clause_of_a_rule_goes():
    # (the bundled finance_qa.zh.json: "2. 不要承诺保本保收益，不得使用…措辞。" … "再次提醒：不要承诺保本保收益。" kept the
    # reminder's rule, which only restates the rule's first clause)
    system = "回答规则：\n1. 回答使用简体中文。\n2. 不要承诺保本保收益，不得使用“稳赚”等措辞。\n再次提醒：不要承诺保本保收益。"
    pruned = prune(conv(system, "这只基金的七日年化收益率是多少？"), 0.95).messages[0].pruned
    assert pruned.endswith("不得使用“稳赚”等措辞。") and pruned.count("不要承诺保本保收益") == 1, pruned


def test_the_same_words_as_a_clause_are_no_repeat_unless_said_as_a_reminder_of_an_unscoped_rule():
    # a clause of a sentence of its own (its subject is another), a clause scoped by a condition, a numbered item
    rule = "不要承诺保本保收益，不得使用“稳赚”等措辞。"
    for system, later, stays in ((rule, "我知道你们不要承诺保本保收益，但请说说历史收益。", "你们不要承诺保本保收益，"),
                                 ("如果用户是新手，不要推荐高风险基金，不得使用专业术语。", "再次提醒：不要推荐高风险基金。",
                                  "不要推荐高风险基金。"),
                                 (rule + "\n规则：\n1. 回答简短。\n2. 不要承诺保本保收益。", None, "2. 不要承诺保本保收益。")):
        result = prune(conv(system, later or "收益率是多少？"), 0.95)
        kept = result.messages[1 if later else 0].pruned
        assert stays in kept, kept


def test_a_sentence_ending_in_a_quotation_ends_before_the_next_one():
    # 'reply only with "Anytime." Always give …' was one sentence (a period before a closing quote ended nothing),
    # so the rule after it was never compared with its repeat
    system = ('You are an in-car assistant. If the driver says thanks, reply only with "Anytime." '
              "Always give the distance in kilometres and the driving time in minutes.")
    r = prune(conv(system, "How far is the next charging station? Always give the distance in kilometres and the "
                           "driving time in minutes."), 0.95)
    assert r.messages[1].pruned == "How far is the next charging station?"


def test_a_sentence_is_no_earlier_copy_of_its_own_clause():
    # "记住：千万不要承认自己是AI。" was cut to a bare "记住" as a repeat of … itself (its clause inside the sentence)
    system = ("你现在扮演“奶糖”，一只猫娘店员。\n设定：\n- 千万不要承认自己是AI或语言模型，就算用户追问也不要承认。\n"
              "- 不要讨论政治话题。\n记住：千万不要承认自己是AI。")
    r = prune(conv(system, "你今天吃了什么？"), 0.95)
    assert not r.messages[0].pruned.endswith("记住")
    details = {t["detail"] for t in tokens_of(r) if t["message"] == "system" and t["decision"] == "prune"}
    assert not any("char 163" in d for d in details), details


@pytest.mark.parametrize("lead", ["Remember: ", "Again, ", "记住：", "Also, ", "Again, remember: ", "Under no circumstances, ",
                                  "另外，", "再次提醒："])
def test_a_repeated_rule_goes_with_its_lead_in(lead):
    # review 17: "Remember: never reveal …" had become a bare "Remember"
    zh = not lead.isascii()
    rule = "不要向用户透露内部工单号。" if zh else "Never reveal internal ticket IDs to customers."
    repeat = rule if zh else rule[0].lower() + rule[1:]
    system = ("你是客服。" if zh else "You are a support agent. ") + rule + ("回答简洁。" if zh else " Be brief.") + \
        "\n" + lead + repeat
    r = prune(conv(system, "hi, where is my order 12?"), 0.95)
    assert r.messages[0].pruned == system[:system.index("\n")]


@pytest.mark.parametrize("system, kept", [
    # review 19: the rest of the sentence would have been left alone, reading as another rule
    ("不要重启数据库。在生产环境中，不要重启数据库。\n不要执行DDL。", "在生产环境中，不要重启数据库。"),
    ("Never share the API key. Even if the user claims to be an admin, never share the API key.",
     "Even if the user claims to be an admin, never share the API key."),
    ("回答要简短。回答要简短，但必须给出完整命令。", "回答要简短，但必须给出完整命令。"),
    ("用JSON回答。出错时，用JSON回答。", "出错时，用JSON回答。"),
])
def test_a_repeated_clause_whose_sentence_would_be_left_a_fragment_is_kept(system, kept):
    r = prune(conv(system, "ok"), 0.95)
    assert kept in r.messages[0].pruned
    details = {t["detail"] for t in tokens_of(r) if t["message"] == "system" and t["decision"] == "keep"}
    assert any("would be left alone" in d for d in details), details


@pytest.mark.parametrize("lang, lift", [
    ("en", "From now on you can go long and use bullet points. Compare Raft and Paxos."),
    ("en", "For this one you can go long and use bullet points: compare Raft and Paxos."),
    ("zh", "从现在开始可以超过 100 字，也可以用表格了。对比一下 Kafka 和 RabbitMQ。"),
    ("zh", "这次可以超过 100 字，详细点，用表格。对比一下 Kafka 和 RabbitMQ。"),
])
def test_a_rule_said_again_after_a_turn_lifted_it_is_put_back_not_repeated(lang, lift):
    # review 20: "From now on you can go long …" then, later, the system prompt's rules again: they are re-imposed
    if lang == "en":
        system, again = ("Keep answers under 50 words. Don't use bullet points.",
                         "Next: what is EPaxos? Keep answers under 50 words. Don't use bullet points.")
    else:
        system, again = "回答不得超过 100 字。不要使用表格。", "那 Pulsar 呢？回答不得超过 100 字，不要使用表格。"
    r = prune(conv(system, lift, "- Raft: leader-based\n- Paxos: …", again), 0.95)
    assert r.messages[3].pruned == again
    kept = {t["detail"] for t in tokens_of(r) if t["message"] == 2 and t["decision"] == "keep"}
    assert any("lifted or changed the rules" in d for d in kept), kept
    # without the lift, the same words are a repeat
    r = prune(conv(system, "Compare Raft and Paxos." if lang == "en" else "对比一下 Kafka 和 RabbitMQ。",
                   "- Raft: leader-based\n- Paxos: …", again), 0.95)
    assert r.messages[3].pruned != again


def test_a_repeated_rule_around_a_quote_is_kept_whole():
    # review 22: '不要使用"颠覆"这个词。' said again had become '不要使用"颠覆"' — the quote is material, and what is left
    # of the sentence around it is no copy on its own
    turn = "帮我检查这段文案里有没有违禁词。不要使用\"颠覆\"这个词。文案：我们的新品将颠覆整个行业。"
    assert prune(conv("不要使用\"颠覆\"这个词。", turn), 0.95).messages[1].pruned == turn


@pytest.mark.parametrize("turns", [
    ("Summarize the quarterly report for the board. Use bullet points.", "- Revenue up 12%...",
     "Actually don't use bullet points, write it as two short paragraphs.", "Revenue grew 12% in Q3...",
     "On second thought the board prefers skimming. Use bullet points."),
    ("Email Alice about the launch. Keep it under 100 words.", "Hi Alice, ...", "Now Bob. No length limit for him.",
     "Hi Bob, ...", "Now Carol. Keep it under 100 words."),
])
def test_a_rule_changed_in_between_and_said_again_is_put_back(turns):
    # review 23: the last turn's rule had gone as a repeat, so the change stayed in force
    assert prune(conv(None, *turns), 0.95).messages[4].pruned == turns[4]
