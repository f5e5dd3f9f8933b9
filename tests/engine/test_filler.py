"""filler: whole sentences and clauses of politeness go with their punctuation; frames go only where what
remains reads as a sentence (zh and en)."""
import pytest

from layerzero_viz import annotate, load_conversation

from .helpers import conv, prune

LEAD_PUNCT = tuple("，。、；：,;:!?！？")


def out(text: str, ratio: float = 0.95) -> str:
    return prune(conv(None, text), ratio, low_information=False).messages[0].pruned


def test_thanks_sentence_goes_whole_with_its_punctuation():
    assert out("Thank you for the information. Refund order 7.") == "Refund order 7."
    assert out("谢谢你的信息！请退款。") == "请退款。"
    assert out("Please check order 7. Have a great day!") == "Please check order 7."
    assert out("Check order 7. Thanks in advance!") == "Check order 7."


def test_boilerplate_closers_go_whole_zh_and_en():
    en = out("Your order 7 ships today. If you have any other questions, feel free to ask. Hope this helps!")
    assert en == "Your order 7 ships today."
    zh = out("订单7今天发货。如果您还有其他问题，随时可以问我。希望对您有帮助！")
    assert zh == "订单7今天发货。"
    assert out("I hope this message finds you well. Check order 7.") == "Check order 7."


def test_greeting_clause_goes_with_its_comma():
    assert out("您好，请问七日年化收益率是什么意思？") == "七日年化收益率是什么意思？"
    assert out("Hi there, I think order 7 is late.") == "I think order 7 is late."
    # (before a word in lower case it stays: the sentence would start in lower case, tests/engine/test_guards.py)
    assert out("Hi there, order 7 is late.") == "Hi there, order 7 is late."


def test_closing_filler_clause_takes_the_comma_before_it():
    assert out("I'd prefer a replacement for order 7, please.") == "I'd prefer a replacement for order 7."
    assert out("Order 7 arrived, thank you so much!") == "Order 7 arrived!"
    # (a request's closing thanks takes its "!" at the line's end: "Send order 8!" would shout)
    assert out("Send order 8, thank you so much!") == "Send order 8"
    assert out("订单7收到了，谢谢。") == "订单7收到了。"


def test_acknowledgement_with_thanks_is_all_filler():
    # "Ok, thanks." as a whole sentence; a turn that is only that keeps its text (the engine's empty-turn rule)
    assert out("Perfect, thank you so much! Order 7 is fine.") == "Order 7 is fine."
    assert out("好的，谢谢。") == "好的，谢谢。"


def test_filler_cut_never_leaves_a_stray_connector():
    r = out("Hello, and thank you so much for reaching out! Order 7 is late.")
    assert r == "Order 7 is late."
    r = out("Thanks, but the file for order 7 is missing.")
    assert not r.lower().startswith(("but", "and")) and "file for order 7 is missing" in r
    r = out("As an AI language model, I can't inspect order 7, but I'd be happy to help.")
    assert r == "I can't inspect order 7."


def test_filler_cut_never_leaves_a_stray_complement():
    for text in ("Thank you so much for the quick reply, I really appreciate it! Order 7 is late.",
                 "Order 7 is late. Happy to help with anything else!",
                 "Order 7 is late. Thank you so much in advance!"):
        r = out(text)
        assert r == "Order 7 is late.", (text, r)


def test_request_frame_opening_a_clause_goes():
    assert out("Order 7 is late, so could you please check its status.") == "Order 7 is late, so check its status."
    # in a question the asking words stay ("so tell me its status?" was a command with a question mark)
    assert out("Order 7 is late, so could you please kindly tell me its status?") == \
        "Order 7 is late, so could you tell me its status?"
    assert out("So please don't send order 7 by ground.") == "So don't send order 7 by ground."


def test_english_frame_opening_a_sentence_stays_when_the_rest_would_start_in_lower_case():
    # "Please generate …" → "generate …" reads as a broken sentence (a blind review flagged it twice)
    for text in ("I was wondering if you could check order 7.", "Please generate a summary of order 7."):
        assert out(text) == text
    # the frame stays; only the politeness words inside it go (test_guards)
    assert out("Could you please kindly tell me the status of order 7?") == "Could you tell me the status of order 7?"


def test_thanks_inside_a_content_clause_stays():
    text = "I want to thank you for fixing order 7."
    assert out(text) == text


def test_qingwen_opening_a_question_is_a_frame():
    assert out("请问退货需要几天？") == "退货需要几天？"
    # 请问 inside 申请问题 is not a frame
    assert out("我要申请问题单。") == "我要申请问题单。"


def test_mafan_as_content_is_kept():
    assert out("我遇到麻烦了。") == "我遇到麻烦了。"
    assert out("麻烦的是订单7丢了。") == "麻烦的是订单7丢了。"


def test_mafan_before_a_verb_is_a_frame():
    assert out("麻烦您帮我查一下订单7。") .startswith("帮我查") or out("麻烦您帮我查一下订单7。").startswith("查")
    assert out("麻烦查一下订单7。") == "查一下订单7。"


def test_nengbuneng_stays_its_buneng_is_a_negation_a_reader_checks_for():
    # (it was cut as a request frame before a verb; a check that no negation is lost counted 不能 gone)
    assert out("能不能帮我推荐一本书？") == "能不能帮我推荐一本书？"
    assert out("能不能退款？") == "能不能退款？"


def test_hedge_opening_a_clause_goes_with_that():
    assert out("Order 7 left on day 2, and it is worth noting that it is late.") == "Order 7 left on day 2, and it is late."
    # (in a user turn protect.py reads 我的理解 as a fact the user states about themself: see the report)
    r = prune(conv("根据我的理解，订单7已经发货了吗？", "好"), 0.95, low_information=False).messages[0].pruned
    assert r == "订单7已经发货了吗？"
    # a parenthetical hedge would leave a stray comma: it stays
    text = "The report, I think, is due on day 7."
    assert out(text) == text


def test_a_hedge_saying_how_sure_the_speaker_is_stays_where_the_claim_would_read_as_a_fact():
    # (a review of the default: "I feel like my body is giving up" lost its "I feel like"; 我觉得这个地方有点远 its 我觉得)
    for text in ("Order 7 left on day 2, and I think that it is late.", "In my opinion, the second draft is better.",
                 "As far as I know, nobody rolled it back.", "The plan is fine, I think.", "I guess.",
                 "根据我的理解，订单7已经发货。", "我觉得这个地方稍微有点远，你再帮我找个景点。", "据我所知周一闭馆。"):
        assert out(text) == text, text
    # it goes where the sentence keeps the doubt (it asks) or where what follows asks the model to act
    assert out("Order 7 left on day 2, and I think it is late?") == "Order 7 left on day 2, and it is late?"
    assert out("Order 7, I think you should refund it.") == "Order 7, you should refund it."
    assert out("我觉得你可以先看看日志。") == "你可以先看看日志。"
    # a prediction is no request: "I think" stays before "you will"
    text = "Explain more. If you explain in more detail, i think you will get a more accurate answer."
    assert out(text) == text
    # manner hedges are no stance: they go
    assert out("To be honest, I need order 7 by Friday.") == "I need order 7 by Friday."
    assert out("说实话，订单7明天要到。") == "订单7明天要到。"


def test_of_course_as_an_answer_stays():
    # (not the final turn: a final assistant turn is a prefill, material)
    r = prune(conv(None, "Can you refund order 7?", "Of course! Sure.", "Go on."), 0.95).messages[1].pruned
    assert r == "Of course! Sure."


def test_filler_with_a_negation_word_is_kept():
    r = out("If you don't mind, check order 7.")
    assert "don't" in r


def test_filler_never_leaves_a_line_starting_with_punctuation():
    for text in ("Hello, and thanks!\nOrder 7 is late.", "好的，谢谢！\n订单7呢？", "**Please follow these rules:**\n1. Be brief."):
        for line in out(text).splitlines():
            assert not line.strip().startswith(LEAD_PUNCT), (text, line)
        assert "** " not in out(text)


# from a review of the lossless default on ../shared/corpus (f/awesome-chatgpt-prompts, CC0-1.0: lines 956, 473,
# 1123, 1442 of the corpus file, shortened): filler words that were something else
@pytest.mark.parametrize("text, kept", [
    ("- Over-committing to please stakeholders", "to please stakeholders"),
    ("She is hard to please, so plan carefully.", "hard to please"),
    ("Purpose: [fill this in please Perplexity and replace the above]", "please Perplexity"),
    ("2. Subject: Thank You Note Context: Thank a colleague for their help.", "Thank You Note"),
    ("PROMPT NAME: I Think I Need a Lawyer — Neutral Legal Intake Organizer", "I Think I Need a Lawyer"),
])
def test_a_filler_word_that_is_a_verb_or_part_of_a_title_stays(text, kept):
    assert kept in prune(conv("You are an assistant.", text), 0.95).messages[1].pruned


def test_please_and_thanks_as_filler_still_go():
    pruned = prune(conv("You are an assistant.", "Please help me. Thank you so much! I think the answer is 4, "
                                                 "please check."), 0.95).messages[1].pruned
    assert pruned == "Please help me. I think the answer is 4, check."


def test_a_reply_to_thanks_goes_like_the_thanks():
    # (a review of the lossless default on CrossWOZ dialogues: the user's 谢谢 went, the assistant's 不客气 stayed
    # and answered nothing, in 11 of 25)
    result = prune(conv(None, "帮我找一家餐馆。", "推荐全聚德。", "好的，非常感谢你的帮助！我知道了。",
                        "不客气，祝您用餐愉快！", "再见。"), 0.95)
    assert "感谢" not in result.messages[2].pruned and result.messages[3].pruned == "祝您用餐愉快！"
    assert prune(conv(None, "谢谢！", "不客气！", "再见。"), 0.95).messages[1].pruned == "不客气！"  # never empty


def test_a_thanks_clause_stays_where_only_an_address_would_be_left():
    # (a review of the default: "- Thank you for your cooperation, respected chatbot!" became "respected chatbot!")
    for text in ("- Thank you for your cooperation, respected chatbot!\n- Next item.", "Thanks, John! The order is late.",
                 "谢谢，小王！订单到了。"):
        assert out(text) == text, text
    # more than an address after it: the thanks goes (unless a lower-case start would be left: test_guards.py)
    assert out("Thanks, I got the refund for order 7 today.") == "I got the refund for order 7 today."
    assert out("Thanks, the refund for order 7 arrived today.") == "Thanks, the refund for order 7 arrived today."
    assert out("老师好！这道题怎么做？") == "这道题怎么做？"


def test_a_help_frame_stays_after_the_user_says_what_they_plan_to_do():
    # (a review of the default: "我想写一篇文章，请帮我用COSTAR框架编写" lost 请帮我, and the next step read as the user's)
    for text in ("我想写一个关于时间管理的文章，请帮我用COSTAR框架编写一个prompt。", "我得提前找个住宿的酒店，麻烦你帮我找个经济型的。"):
        assert out(text) == text, text
    assert out("请帮我查询订单7的物流。") == "查询订单7的物流。"


def test_a_frame_that_asks_stays_where_the_sentence_ends_in_a_question_mark():
    # (review 8: "能否帮我…？" became a command ending in "？", which the next turn's 当然可以 then answered)
    assert out("能否帮我查一下订单7的物流？") == "能否帮我查一下订单7的物流？"
    assert out("能否帮我查一下订单7的物流。") == "查一下订单7的物流。"


def test_greetings_said_in_character_or_as_a_trigger_stay():
    # (review 4, f_awesome 139: a role-play's in-character line; review 9, lobehub 197: the system prompt says
    # what to do when greeted)
    role_play = ("I want you to act as a salesperson. Now I'm going to pretend you're calling me on the phone. "
                 "Hello, what did you call for?")
    assert prune(conv(None, role_play), 0.95).messages[0].pruned == role_play
    scripted = conv("当我向你打招呼时，你要先回答：“欢迎光临！”", "您好，我想买一本书。")
    assert prune(scripted, 0.95).messages[1].pruned == "您好，我想买一本书。"
    assert prune(conv("你是书店店员。", "您好，我想买一本书。"), 0.95).messages[1].pruned == "我想买一本书。"


def test_a_capital_please_that_is_the_only_sentence_break_stays():
    # (review 4, f_awesome 204: "… {supplements_preference} Please design a plan" became "… {…} design a plan")
    text = "- Goal: {fitness_goal} - Open to supplements: {supplements} Please design a plan for me."
    assert "{supplements} Please design" in prune(conv(None, text), 0.95).messages[0].pruned
    from layerzero_viz.rules.filler import _not_filler_en
    for text, filler in (("{supplements} Please design", False), ("my data. Please design", True),
                         ("my data: Please design", True), ("so please design", True)):
        at = text.lower().index("please")
        assert _not_filler_en(text, at, at + 6) is not filler, text


def test_an_agents_self_introduction_and_a_greeting_before_a_bare_form_of_address_keep_their_greeting():
    # (review 14: lobehub 316 "Hello, this is Sydney." → "this is Sydney.", lobehub 162 "你好，旅行者。" → "旅行者。")
    result = prune(conv("You are Sydney.", "Hi", "Hello, this is Sydney. Hello! I am fine, thanks.", "你好，纳西妲。"
                        "请介绍一下世界树。"), 0.95)
    assert result.messages[2].pruned.startswith("Hello, this is Sydney."), result.messages[2].pruned
    assert result.messages[3].pruned.startswith("你好，纳西妲。"), result.messages[3].pruned
    # a user's greeting before what they want still goes, and so does one before their own introduction
    left = prune(conv(None, "你好，我想去吃饭。您好，我是浦东新区的居民，想咨询噪音投诉。"), 0.95).messages[0].pruned
    assert left.startswith("我想去吃饭。") and "您好" not in left, left


def test_a_thanks_with_a_compliment_goes_whole():
    # (the bundled support chat kept "Thanks again, you've been incredibly helpful!" whole: the compliment was not
    # known as a closer, and taking "Thanks again," alone would leave "you've …" starting in lower case)
    assert out("I don't need the box, right? Thanks again, you've been incredibly helpful!") == \
        "I don't need the box, right?"
    assert out("You have been very helpful. Send the label to jo@example.com.") == "Send the label to jo@example.com."


def _pruned(system: str, *turns: str) -> list[str]:
    return [m.pruned for m in prune(conv(system, *turns), 0.95, low_information=False).messages]


@pytest.mark.parametrize("system", [
    "Classify each user utterance into one intent: greeting, thanks, complaint, question, other.",
    "You label support messages. Allowed labels: hello, thanks, please-help, sorry, other.",
    "你是意图分类器。一级意图：问候、感谢、投诉、其他。",
    "You are an in-car assistant. Never say please when giving a navigation instruction.",
    "You are a concierge. Always say please and thank you to guests.",
])
def test_politeness_words_named_as_labels_or_as_words_to_say_are_content(system):
    # review 16: 'Allowed labels: hello, thanks, please-help' lost two labels; 'Never say please when …' became
    # 'Never say when …'
    assert _pruned(system, "Hi, I need help with order 12.")[0] == system


def test_a_list_without_a_colon_or_a_chinese_clause_chain_is_no_list_of_labels():
    assert out("Hi, thanks, I need help with my order 12.") == "Hi, I need help with my order 12."
    assert out("好的，谢谢，没有问题了。") == "好的，没有问题了。"
    # and a request ending a sentence with "please" is no list of words to say
    assert out("Reply with the translation only, please.") == "Reply with the translation only."


@pytest.mark.parametrize("system, turn", [
    ('You are an in-car assistant. If the driver says thanks, reply only with "Anytime."',
     "Thanks! How far is the next charging station?"),
    ("你是客服。如果用户说谢谢，只回复“不客气”。", "谢谢！订单123到哪了？"),
])
def test_a_thanks_the_system_prompt_reacts_to_is_its_trigger(system, turn):
    assert _pruned(system, turn)[1] == turn
    # without such a rule the same thanks is politeness
    assert _pruned("You are an in-car assistant.", turn)[1] != turn


def test_a_hedge_that_is_the_whole_sentence_is_the_request_itself():
    # "说实话嘛": "come on, tell the truth", not "to be honest, …"
    assert out("话说你是不是AI啊？说实话嘛") == "话说你是不是AI啊？说实话嘛"
    assert out("说实话，这个方案太贵了。") == "这个方案太贵了。"


def test_a_request_frame_inside_a_question_keeps_its_question_words():
    # review 16: "Also, could you please kindly tell me when …?" had become "Also, tell me when …?"
    assert out("Thanks for the reply. Also, could you please kindly tell me when the refund will show up?") == \
        "Also, could you tell me when the refund will show up?"
    assert out("Hi there, could you please tell me what 2+2 is?") == "Hi there, could you tell me what 2+2 is?"
    # a command keeps what it had: the frame goes whole
    assert out("Also, could you please check order 7.") == "Also, check order 7."


def test_a_softener_after_a_request_frame_goes_with_it():
    # "…, but I was wondering if you could possibly help me" had left "but possibly help me"
    assert out("My thesis is due Friday, so I was wondering if you could possibly find me papers.") == \
        "My thesis is due Friday, so find me papers."


@pytest.mark.parametrize("text, pruned", [
    # a bare "hi" / 嗨 greeting goes as a whole sentence or clause
    ("Hi! Can you check order 123?", "Can you check order 123?"),
    ("Oh hi, I'm back with order 9.", "I'm back with order 9."),
    ("嗨！帮我查一下订单123。", "帮我查一下订单123。"),
    ("嗨，订单123还没到。", "订单123还没到。"),
    # but not inside a word, beside a hyphen, in capitals (a state) or named as what to say
    ("Hi-Fi speakers: which is best?", "Hi-Fi speakers: which is best?"),
    ("Ship to 12 Kai St, Honolulu, HI, 96815.", "Ship to 12 Kai St, Honolulu, HI, 96815."),
    ("Say hi, then ask for the order number.", "Say hi, then ask for the order number."),
    ("今天玩得很嗨皮，帮我写篇日记。", "今天玩得很嗨皮，帮我写篇日记。"),
])
def test_a_bare_hi_is_a_greeting_only_on_its_own(text, pruned):
    assert out(text) == pruned


def test_an_agent_greeting_line_after_a_colon_is_its_script():
    # (lobehub 324) the line the agent is to say, introduced by a colon, is said as written
    system = ("At the beginning of a conversation you will ask the user how you can help them since you are their "
              "community manager agent, something like this: Hello, I'm your community manager agent, how can I help you?")
    r = prune(conv(system, "Hi"), 0.95)
    assert r.messages[0].pruned.endswith("like this: Hello, I'm your community manager agent, how can I help you?")


@pytest.mark.parametrize("system, turn", [
    # review 19: the system prompt names the words as what the customer says: they are its trigger
    ("If the customer writes 'please hurry', prioritise the ticket.", "please hurry, my card was blocked"),
    ("Escalate to a human only if the customer says please twice in one message.",
     "Please, please help, my shop is down."),
    ("如果用户说“麻烦快点”，把工单标为加急。", "麻烦快点，我的卡被冻结了。"),
])
def test_a_politeness_phrase_the_system_prompt_names_as_the_users_words_is_kept(system, turn):
    assert prune(conv(system, turn), 0.95).messages[1].pruned == turn


def test_an_agent_script_the_system_prompt_quotes_keys_nothing():
    # a quoted line the agent says is no trigger: the user's own thanks still goes
    r = prune(conv("Reply only with 'Thank you for contacting Acme.'", "Thank you! My order 5 is late."), 0.95)
    assert r.messages[1].pruned == "My order 5 is late."


def test_a_script_after_start_with_or_tongyi_yong_is_said_as_written():
    system = "开头统一用 您好，很高兴为您服务。结尾统一用 感谢您的耐心等待，祝您生活愉快。"
    assert prune(conv(system, "订单什么时候到？"), 0.95).messages[0].pruned == system
    system = "Always start with: Hi, thanks for reaching out to Acme. Be brief."
    assert prune(conv(system, "Where is order 5?"), 0.95).messages[0].pruned == system


@pytest.mark.parametrize("text, pruned", [
    # review 19's under-pruning: whole courtesy sentences the lexicon lacked
    ("Hey! Hope your week is going well. The deploy failed at 14:02.", "The deploy failed at 14:02."),
    ("Greetings of the day. Restart pod order-sync-7c9f.", "Restart pod order-sync-7c9f."),
    ("Thanks, really appreciate it. Next: the DB.", "Next: the DB."),
    ("Thanks a million, and sorry for the wall of text! Ping me at 5.", "Ping me at 5."),
])
def test_more_whole_courtesy_sentences_go(text, pruned):
    assert out(text) == pruned


def test_a_closing_thanks_that_holds_a_questions_only_terminator_stays():
    # review 19: "Can you check the config below, thanks!" had become "… below!" (a question ending in "!")
    assert out("Can you check the config below, thanks! timeout=30s") == "Can you check the config below, thanks! timeout=30s"
    assert out("Check the config below, thanks! timeout=30s") == "Check the config below! timeout=30s"


@pytest.mark.parametrize("text", [
    # review 20: politeness words used for what they mean
    "Thanks a lot for nothing. Your last patch broke login again.",
    "Treat new on-call hires kindly in the rotation doc.",
    "The reviewer responded kindly to my PR. Should I reply?",
    "Do as you please with the intro, but keep the numbers.",
])
def test_politeness_words_used_for_their_meaning_stay(text):
    assert out(text) == text


@pytest.mark.parametrize("text, pruned", [
    ("Could you kindly check order 5?", "Could you check order 5?"),
    ("I kindly ask you to check order 5.", "I ask you to check order 5."),
])
def test_kindly_as_a_requests_softener_still_goes(text, pruned):
    assert out(text) == pruned


def test_a_closing_thanks_after_a_chinese_question_stays():
    # review 20: "…有没有写错，谢谢！" had become "…有没有写错！" (a question ending in "！"); at the line's end the thanks
    # goes with its "！" (reviews 38, 39: "写个 SQL 吧！" shouted)
    assert out("帮我检查一下这个告警规则有没有写错，谢谢！") == "帮我检查一下这个告警规则有没有写错"
    assert out("帮我检查一下这个告警规则有没有写错，谢谢！另外看下阈值。") == "帮我检查一下这个告警规则有没有写错，谢谢！另外看下阈值。"
    assert out("帮我检查一下这个告警规则，谢谢！") == "帮我检查一下这个告警规则"


def test_greetings_is_a_greeting_only_opening_its_sentence():
    # review 22: "Preserve tone, greetings and sign-offs." had become "Preserve tone."
    system = "You are a professional translator. Preserve tone, greetings and sign-offs."
    assert prune(conv(system, "Translate: Hi Mark."), 0.95).messages[0].pruned == system
    assert prune(conv(None, "Greetings! What is RAG?"), 0.95).messages[0].pruned == "What is RAG?"


# review 23: a phrase asked about, a sarcastic thanks, an emoticon's rest

@pytest.mark.parametrize("turn", [
    "麻烦你了用英语怎么说？辛苦了呢？",
    "谢谢用日语怎么说？早上好呢？",
    "How do you say 'thank you so much' in Korean?",
    "谢谢你啊，把我整个下载文件夹都删了。怎么恢复？",
])
def test_a_courtesy_asked_about_or_said_in_sarcasm_is_content(turn):
    ann = annotate(load_conversation(conv("你是英语口语陪练老师。", turn)), env={})
    for r in (ann.at_ratio(0.95), ann.at_ratio(0.95, min_effectiveness=0.98)):
        assert r.messages[1].pruned == turn


def test_a_cut_takes_the_rest_of_its_emoticon():
    turn = "Hope you're having a great day :) I bought a power bank last week and it's getting swollen."
    assert prune(conv(None, turn), 0.95).messages[0].pruned == "I bought a power bank last week and it's getting swollen."
    # a plain thanks is still filler
    assert prune(conv(None, "谢谢！订单什么时候到？"), 0.95).messages[0].pruned == "订单什么时候到？"


def test_more_courtesy_phrases_of_review_24():
    r = prune(conv(None, "Hey there! Good morning! Hope you're having an awesome day so far. Could you tell me a fun "
                         "fact about octopuses?"), 0.95)
    assert r.messages[0].pruned == "Could you tell me a fun fact about octopuses?"
    assert prune(conv(None, "早上好呀！推荐三本小说？"), 0.95).messages[0].pruned == "推荐三本小说？"


@pytest.mark.parametrize("text,expected", [
    # a question's lead-in goes with its own colon; the comma before it stays with what the turn keeps (review 90 R15,
    # review 96 R10: "Sorry: is it rude …", "你已经帮了我很多了：Docker…" were left)
    ("Sorry, one more question: is it rude to send a 红包 of 200 to my boss's kid?",
     "Sorry, is it rude to send a 红包 of 200 to my boss's kid?"),
    ("你已经帮了我很多了，最后一个问题：Docker容器怎么查看日志？", "你已经帮了我很多了，Docker容器怎么查看日志？"),
    ("你已经帮了我很多了，但最后一个问题：x=2时成立吗？", "你已经帮了我很多了，x=2时成立吗？"),  # (review 97 R20)
    # a thanks before a colon: the colon is the request's, it stays and the comma goes
    ("Translate this, thanks: Please wait.", "Translate this: Please wait."),
])
def test_a_question_lead_in_goes_with_its_colon(text, expected):
    assert prune(conv(None, text), 0.3).messages[0].pruned == expected


@pytest.mark.parametrize("text,ratio,expected", [
    # two filler clauses closing a sentence go with the commas before them (review 90 R20: "太好了，～" was left)
    ("太好了，谢谢谢谢，辛苦啦～", 0.95, "太好了～"),
    # after an address or a greeting the 'but' that turns from a cut thanks or apology goes too (reviews 88 R07, 96 R09)
    ("Hey, sorry to bother you, but can you explain what a mutex is?", 0.95, "Hey, can you explain what a mutex is?"),
    ("Dear AI, thanks for the suggestion, but I'd rather stick with Postgres.", 0.95, "Dear AI, I'd rather stick with Postgres."),
    # a 'but' after content stays
    ("I tried it, thanks, but it failed.", 0.95, "I tried it, but it failed."),
])
def test_cut_filler_leaves_no_stray_comma_or_but(text, ratio, expected):
    assert prune(conv(None, text), ratio).messages[0].pruned == expected
