"""Material is verbatim: what a conversation hands over to be processed is never pruned by any rule."""
import json
from pathlib import Path

import pytest

from layerzero_viz import annotate, load_conversation, native
from layerzero_viz.material import find_material
from layerzero_viz.protect import PRECEDENCE, STRUCTURAL, xml_protections
from layerzero_viz.view import TextView

from .helpers import conv, prune, tokens_of

RATIOS = (0.3, 0.95)


def material_of(text: str, system: str | None = None) -> list[tuple[str, str, str]]:
    """(kind, text, detail) of every material range of a one-turn conversation."""
    view = TextView.of(load_conversation(conv(system, text)))
    return [(m.kind, view.text[m.start:m.end], m.detail) for m in find_material(view)]


def kept_reasons(result, needle: str, message: int = 0) -> set[str]:
    """The reasons of the tokens inside the first occurrence of ``needle`` in a message's original text."""
    original = result.messages[message].original
    at = original.index(needle)
    return {t["reason"] for t in result.token_records() if t["message"] == result.messages[message].message
            and at <= t["start"] < at + len(needle) and t["text"].strip()}


def test_material_is_a_structural_protection():
    assert "protected_material" in PRECEDENCE and "protected_material" in STRUCTURAL


@pytest.mark.parametrize("ratio", RATIOS)
def test_quoted_letter_is_kept_verbatim_even_with_filler_inside(ratio):
    letter = ('"Dear Sir,\n\nI would really just like to thank you so much, basically, for your help.\n\n'
              'Best regards, Mary"')
    r = prune(conv(None, f"Please proofread this letter: {letter}\nThank you so much!"), ratio)
    assert letter in r.messages[0].pruned
    assert kept_reasons(r, letter) == {"protected_material"}


@pytest.mark.parametrize("ratio", RATIOS)
def test_quoted_letter_zh_across_lines_is_kept(ratio):
    letter = "“尊敬的王经理：\n\n非常感谢您的的帮助，麻烦您了，谢谢！\n\n此致敬礼”"
    r = prune(conv(None, f"请帮我润色这封信：{letter}\n谢谢你！"), ratio)
    assert letter in r.messages[0].pruned


def test_quote_detail_names_the_quoted_text():
    found = material_of('Check the sentence "I really just want to say thanks" please.')
    assert ("quote", '"I really just want to say thanks"', 'kept: quoted text "I really just want to say thanks"') \
        in found


@pytest.mark.parametrize("text,handed", [
    ("Translate the following into French:\n\nI really just want to say thank you very much.",
     "I really just want to say thank you very much."),
    ("Translate: Hello, how are you doing today, my friend?", "Hello, how are you doing today, my friend?"),
    ("Text:\nThe committee basically just agreed, of course, to meet again.",
     "The committee basically just agreed, of course, to meet again."),
])
def test_text_after_translate_is_material(text, handed):
    found = material_of(text)
    assert [f for f in found if f[0] == "introduced" and f[1] == handed]
    r = prune(conv(None, text), 0.95)
    assert handed in r.messages[0].pruned


@pytest.mark.parametrize("text,handed", [
    ("请润色下面这段话：\n我真的非常感谢您的帮助，麻烦您了。", "我真的非常感谢您的帮助，麻烦您了。"),
    ("原文：\n请问您方便的时候能不能回个电话呢？谢谢！", "请问您方便的时候能不能回个电话呢？谢谢！"),
    ("请翻译以下文章：\n麻烦大家准时参加会议，谢谢。", "麻烦大家准时参加会议，谢谢。"),
])
def test_text_after_translate_is_material_zh(text, handed):
    assert [f for f in material_of(text) if f[0] == "introduced" and f[1] == handed]
    assert handed in prune(conv(None, text), 0.95).messages[0].pruned


def test_handed_over_text_detail_names_the_introducer():
    found = material_of("Translate the following into French:\n\nGood morning, everyone.")
    assert ("introduced", "Good morning, everyone.",
            "kept: the text handed over after 'Translate the following into French:'") in found


def test_trailing_instruction_after_handed_over_text_is_not_material():
    text = "请润色下面这段话：\n我真的非常感谢您的帮助。\n\n请用正式的语气，不要超过五十个字。"
    handed = [f[1] for f in material_of(text) if f[0] == "introduced"]
    assert handed == ["我真的非常感谢您的帮助。"]
    text = "Translate the following into French:\n\nGood morning, everyone.\n\nPlease keep the translation formal."
    assert [f[1] for f in material_of(text) if f[0] == "introduced"] == ["Good morning, everyone."]


@pytest.mark.parametrize("ratio", RATIOS)
def test_few_shot_answer_of_course_is_kept(ratio):
    text = ("Answer like the examples.\nQ: Can I return the shoes?\nA: Of course, you can return them within 30 days.\n"
            "Q: Is shipping free?\nA: Sure, it is basically always free.")
    r = prune(conv(None, text), ratio)
    out = r.messages[0].pruned
    assert "A: Of course, you can return them within 30 days." in out
    assert "A: Sure, it is basically always free." in out
    assert kept_reasons(r, "A: Of course") == {"protected_material"}
    assert ("few_shot", "A: Of course, you can return them within 30 days.", "kept: few-shot exemplar (Q:/A:)") \
        in material_of(text)


@pytest.mark.parametrize("ratio", RATIOS)
def test_few_shot_exemplars_zh_are_kept(ratio):
    text = "请模仿下面的例子回答。\n问：请问可以退货吗？\n答：当然可以，麻烦您在七天内申请。\n输入：谢谢你的的帮助\n输出：不客气"
    out = prune(conv(None, text), ratio).messages[0].pruned
    for line in ("问：请问可以退货吗？", "答：当然可以，麻烦您在七天内申请。", "输入：谢谢你的的帮助", "输出：不客气"):
        assert line in out


def test_a_lone_output_label_is_not_an_exemplar():
    assert not [f for f in material_of("Output: a short summary, please, of the text.") if f[0] == "few_shot"]


@pytest.mark.parametrize("ratio", RATIOS)
def test_exam_options_are_kept(ratio):
    text = "请回答下面的选择题，谢谢！\n下列哪个是哺乳动物呢？\nA. 鲸鱼\nB. 鲨鱼\nC. 金鱼\nD. 海星"
    r = prune(conv(None, text), ratio)
    out = r.messages[0].pruned
    assert "下列哪个是哺乳动物呢？\nA. 鲸鱼\nB. 鲨鱼\nC. 金鱼\nD. 海星" in out
    found = material_of(text)
    assert ("exam_item", "B. 鲨鱼", "kept: exam item option (B)") in found
    assert ("exam_item", "下列哪个是哺乳动物呢？", "kept: exam item question") in found


@pytest.mark.parametrize("ratio", RATIOS)
def test_exam_options_en_are_kept(ratio):
    text = ("Please just answer the question below.\nWhich sentence is basically correct?\n(A) She don't like it.\n"
            "(B) She doesn't like it.\n(C) She not like it.")
    out = prune(conv(None, text), ratio).messages[0].pruned
    assert "Which sentence is basically correct?\n(A) She don't like it.\n(B) She doesn't like it.\n" \
           "(C) She not like it." in out


def test_numbered_instruction_list_is_not_an_exam():
    text = "Follow these rules.\n1) Be concise and polite.\n2) Reply in English.\n3) Thank the user."
    assert not [f for f in material_of(text) if f[0] == "exam_item"]


@pytest.mark.parametrize("ratio", RATIOS)
def test_assistant_prefill_is_kept(ratio):
    r = prune(conv(None, "Please write a short poem.", "Of course! Here is a poem, basically:"), ratio)
    assert r.messages[1].pruned == "Of course! Here is a poem, basically:"
    rec = [t for t in r.token_records() if t["message"] == r.messages[1].message and t["text"].strip()]
    assert {t["reason"] for t in rec} == {"protected_material"}
    assert {t["detail"] for t in rec} == {"kept: assistant prefill (final assistant turn)"}


def test_an_earlier_assistant_turn_is_no_prefill():
    view = TextView.of(load_conversation(conv(None, "Hi", "Of course! Happy to help.", "Thanks.")))
    assert not [m for m in find_material(view) if m.kind == "prefill"]


@pytest.mark.parametrize("text,quoted,prunable", [
    ('Reply "yes" or "no". Please, basically just answer the question, thank you so much.', ('"yes"', '"no"'),
     "thank you so much"),
    ("谢谢你的帮助！请只回答“是”或“否”。", ("“是”", "“否”"), "谢谢你的帮助"),
])
def test_instruction_around_short_quote_is_still_prunable(text, quoted, prunable):
    r = prune(conv(None, text), 0.95)
    out = r.messages[0].pruned
    assert all(q in out for q in quoted)
    assert prunable not in out  # the words around the quote are instruction text, still prunable
    assert [f[1] for f in material_of(text)] == list(quoted)


def test_system_prompt_with_colons_is_not_material():
    system = ("You are a helpful support agent.\nRules:\n- Be polite: always greet the user.\n"
              "- Output: a short answer.\nTone: friendly.\nFormat your answer as follows: one paragraph.")
    assert material_of("hi", system=system) == []
    system_zh = "你是一名客服。\n规则：\n- 回答要礼貌：先问候用户。\n要求如下：回答不超过一百字。"
    assert material_of("你好", system=system_zh) == []


def test_a_user_message_that_is_all_instruction_is_not_material():
    assert material_of("Please write a short summary of the French revolution, thank you!") == []
    assert material_of("请帮我写一份关于环保的演讲稿，谢谢！") == []


@pytest.mark.parametrize("ratio", RATIOS)
def test_code_fenced_indented_and_inline_is_kept(ratio):
    text = ("Please review this code, thanks:\n\n```python\nx = 1  # just the the\n```\n\n"
            "And this one:\n\n    def f():\n        return the_value  # just\n\nand `print(the)` too.")
    r = prune(conv(None, text), ratio)
    out = r.messages[0].pruned
    assert "x = 1  # just the the" in out and "    def f():\n        return the_value  # just" in out
    assert "`print(the)`" in out
    kinds = {(f[0], f[2]) for f in material_of(text)}
    assert {("code", "kept: code (fenced block)"), ("code", "kept: code (indented block)")} <= kinds


def test_indented_list_and_prose_are_not_code():
    text = "Steps:\n\n- First item\n\n    continues the first item, just so.\n\nNotes:\n\n    Keep it short and kind."
    assert not [f for f in material_of(text) if f[0] == "code"]


@pytest.mark.parametrize("ratio", RATIOS)
def test_table_and_json_are_kept(ratio):
    text = ("Here is the data, thanks:\n| name | note |\n|---|---|\n| a | just the the |\n\n"
            'And the config {"mode": "just the", "items": [1, 2]} please.')
    out = prune(conv(None, text), ratio).messages[0].pruned
    assert "| name | note |\n|---|---|\n| a | just the the |" in out
    assert '{"mode": "just the", "items": [1, 2]}' in out
    assert {f[2] for f in material_of(text)} >= {"kept: markdown table", "kept: JSON object"}


def test_placeholders_in_brackets_are_not_json():
    assert not [f for f in material_of("Write about [topic] for {audience}, please.") if f[0] == "json"]


def test_tool_result_is_material():
    doc = {"model": "m", "messages": [
        {"role": "user", "content": "What is the weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "weather", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "Sunny, basically just 21 degrees, of course."},
                                     {"type": "text", "text": "Thanks! Please summarise it."}]}]}
    c = load_conversation(json.dumps(doc))
    view = TextView.of(c)
    prot = xml_protections(view, c)
    found = [(m.kind, view.text[m.start:m.end]) for m in prot.material]
    assert ("tool_result", "Sunny, basically just 21 degrees, of course.") in found
    assert not [f for f in found if f[1].startswith("Thanks")]


def test_tool_role_message_is_material():
    doc = [{"role": "user", "content": "Weather?"},
           {"role": "tool", "tool_call_id": "t1", "content": "Sunny, basically just 21 degrees."},
           {"role": "user", "content": "Thanks!"}]
    view = TextView.of(load_conversation(json.dumps(doc)))
    assert [m.kind for m in find_material(view)] == ["tool_result"]


@pytest.mark.parametrize("ratio", RATIOS)
def test_verbatim_element_is_material(ratio):
    r = prune(conv(None, "请批改这篇作文，谢谢！<essay>我们的的目标，麻烦大家了。</essay>"), ratio)
    assert "我们的的目标，麻烦大家了。" in r.messages[0].pruned
    rec = tokens_of(r, "protected_material")
    assert rec and all(t["detail"].startswith("kept: inside <essay>") for t in rec)


def test_a_repeat_inside_a_quote_is_not_removed():
    r = prune(conv("Always reply in English.", 'Is this sentence correct: "Always reply in English."'), 0.95)
    assert '"Always reply in English."' in r.messages[1].pruned


def test_directives_hold_no_material():
    system = '<redundant_phrases>["请问", "麻烦"]</redundant_phrases>\n你是客服。'
    view = TextView.of(load_conversation(conv(system, "你好")))
    assert not [m for m in find_material(view) if m.start < view.text.index("</redundant_phrases>")]


@pytest.mark.parametrize("enabled", [True, False])
def test_material_wins_on_the_kernel_and_the_python_path(enabled):
    if enabled and not native.AVAILABLE:
        pytest.skip("kernels not built")
    text = 'Please proofread: "I would really just like to thank you so much, basically." Thank you so much!'
    native.use(enabled)
    try:
        r = prune(conv(None, text), 0.95)
    finally:
        native.use(native.AVAILABLE)
    assert '"I would really just like to thank you so much, basically."' in r.messages[0].pruned
    assert kept_reasons(r, '"I would really') == {"protected_material"}


def test_straight_quotes_pair_on_a_line_and_across_lines():
    """"…" pairs left to right on a line ("" is no quote: its second mark may open one); a mark left open at a
    line end runs to the first mark of a later line when that one closes it, not when it follows a space."""
    letter = 'He wrote: "Dear Sir,\nI am writing about the order." Then he left.'
    assert [(k, t) for k, t, _ in material_of(letter)] == [("quote", '"Dear Sir,\nI am writing about the order."')]
    assert material_of(letter)[0][2].startswith("kept: inside the quoted text")
    assert [t for _, t, _ in material_of('Say ""hello" to them and "bye" too.')] == ['"hello"', '"bye"']
    assert material_of('Opened "here\nand " not closed') == []


def test_single_quotes_keep_apostrophes_inside_and_skip_them_outside():
    found = material_of("Reply with 'I'm sure it's fine' and don't add users' notes.")
    assert [t for _, t, _ in found] == ["'I'm sure it's fine'"]


def test_unclosed_fence_and_unfenced_code_lines():
    assert material_of("Run this:\n\n```python\nprint(1)\n")[0][:2] == ("code", "```python\nprint(1)\n")
    code = "const f = (a) =>\n  a + 1;\nlet b = {\n  c: 2 };\nif (x > y)"
    assert ("code", code, "kept: code (unfenced)") in material_of("Fix it:\n" + code + "\n")
    # a line ending in ">" (not "=>") is no code line: three code lines are no run
    assert not [k for k, _, _ in material_of("Fix it:\nlet a = 1;\nlet b = 2;\nif a > b\nlet c = 3;\n") if k == "code"]


def test_editing_requests_hand_over_the_text_after_them():
    assert material_of("Make this warmer:\nWe regret to inform you that your order is late.") == [
        ("introduced", "We regret to inform you that your order is late.",
         "kept: the text handed over after 'Make this warmer:'")]
    assert [t for k, t, _ in material_of("请把下面这段改得更正式：\n明天来开会。") if k == "introduced"] == ["明天来开会。"]
    assert material_of("Rules:\nAnswer briefly.\nOutput:\nOne line.") == []


# a grammar corrector's and a translator's dialogue is their input and output (from a blind review of the corpus:
# lobehub agent 369's "I has a meeting … prepare the report." lost its "the" to the lossy tier, and with it the
# assistant's demonstrated correction).  CORRECTOR and the turns below are shortened from that record of
# lobehub/lobe-chat-agents (MIT, copyright its authors).
CORRECTOR = ("The user will provide you with a body of English text and you will review the text to make sure it "
             "is written in correct grammar. ONLY return the revised text.")


@pytest.mark.parametrize("floor", [1.0, 0.98, 0.0])
def test_the_turns_of_a_conversation_that_processes_them_are_material(floor):
    text = conv(CORRECTOR, "I has a meeting tomorow with the client and need to prepare the report.",
                "I **have** a meeting **tomorrow** with the client and need to prepare the report.",
                "Please send me the file before 5pm, thank you so much.")
    result = annotate(load_conversation(text), env={}).at_ratio(0.95, min_effectiveness=floor)
    for m in result.messages[1:]:
        assert m.pruned == m.original
    last = result.messages[3].message
    details = {t["detail"] for t in result.token_records() if t["message"] == last and t["text"].strip()}
    assert details == {"kept: a turn of the text this conversation processes "
                       "(the system prompt: 'The user will provide you with a body of English text')"}


def test_a_translator_set_up_in_the_first_turn_keeps_the_later_turns_verbatim():
    text = conv(None, "I want you to act as an English translator. I will type sentences in Chinese and you will "
                      "translate them into English. Reply with the translation only, please.",
                "Understood.", "非常感谢您昨天的帮助，麻烦您了！")
    result = annotate(load_conversation(text), env={}).at_ratio(0.95)
    assert result.messages[2].pruned == "非常感谢您昨天的帮助，麻烦您了！"  # the text to translate, thanks and all
    assert "please" not in result.messages[0].pruned  # the set-up turn itself is instruction


def test_zh_processing_agents_and_what_is_no_such_declaration():
    kinds = {m[0] for m in material_of("我今天去公园玩了。", system="用户会输入一段文本，请你润色并纠正其中的错别字。")}
    assert kinds == {"processed_turn"}
    kinds = {m[0] for m in material_of("明天的会议从下午2点开始。",
                                       system="你是一个出色的翻译官，能够进行中日互译。如果输入内容为中文，则翻译成日文。")}
    assert kinds == {"processed_turn"}
    for system in ("The user will ask questions about cooking; answer them kindly.",
                   "You will provide feedback on the user's ideas.", "用户会问你关于烹饪的问题，请耐心回答。",
                   "You are a translator."):  # (no turn is declared text to process)
        assert "processed_turn" not in {m[0] for m in material_of("hello, thanks!", system=system)}


def test_a_quoted_example_opening_its_line_with_a_space_is_material():
    # (lobehub agent 54: its example answer lost a 的 to the lossy tier)
    system = ('## 回答示范\n\n示例回答：\n" 让我为您分析：\n\n1. 从您的八字看...\n2. 今年流年有...\n'
              '3. 注意事项有..."\n\n## 温馨提示\n\n1. 命理分析仅供参考')
    found = [(k, t) for k, t, _ in material_of("你好", system=system) if k == "quote"]
    assert [t for _, t in found] == ['" 让我为您分析：\n\n1. 从您的八字看...\n2. 今年流年有...\n3. 注意事项有..."']
    assert not [t for _, t, _ in material_of('He is 6\' 2" tall and "very" quick.\n" \nno quote here') if "no quote" in t]


def test_inline_options_separated_by_semicolons_are_an_exam_item():
    text = "第一题：遇到紧急情况时，您通常会如何反应？A. 迅速采取行动；B. 先冷静分析，再制定计划；C. 寻求同事帮助；D. 等待。"
    assert ("exam_item", text, "kept: exam item with its options") in material_of(text)


def test_text_between_marker_lines_is_material():
    # (a review of the default: the letter between "Edit Your Letter Here" markers lost its sign-off)
    text = ("Reply as Sugar.\n\n-↓-↓-↓-↓-Edit Your Letter Here-↓-↓-↓-↓\n\nDear Sugar,\n\nI can't decide.\n\nSincerely,\n"
            "Stuck\n\n-↑-↑-↑-↑-↑-↑\n\nThanks in advance!")
    assert ("introduced", "Dear Sugar,\n\nI can't decide.\n\nSincerely,\nStuck",
            "kept: the text marked 'Edit Your Letter Here'") in material_of(text)
    # a rule of dashes around "… here" opens it too; with no closing rule it runs to the end of the block
    found = material_of("Grade it.\n===== Paste your essay here =====\nThank you for reading. I think so.")
    assert ("introduced", "Thank you for reading. I think so.", "kept: the text marked 'Paste your essay here'") in found
    # a plain rule (a markdown thematic break) opens nothing
    assert material_of("Intro, please.\n---\nSome text, thanks.\n---\nMore.") == []


def test_a_section_headed_as_an_example_is_material():
    system = ("## 角色\n你是禅师。\n### 交互示例\n\n#### 问候\n\n愿一切安好。请问您有什么困惑？\n\n## 规则\n- 请简短回答。\n"
              "## Example output\nSure! Here you go.\n# Notes\nThanks.")
    found = [(k, t) for k, t, _ in material_of("你好", system=system) if k == "few_shot"]
    # up to the next heading of the same or a higher level (its subsections are part of it)
    assert found == [("few_shot", "#### 问候\n\n愿一切安好。请问您有什么困惑？"), ("few_shot", "Sure! Here you go.")]


def test_a_quoted_dialogue_and_a_full_text_label_hand_over_what_follows():
    assert ("introduced", "A：请问您需要帮助吗？B：我想查询一下我的订单状态。",
            "kept: the text handed over after '请回答这样一个对话：'") in material_of(
        "请回答这样一个对话：A：请问您需要帮助吗？B：我想查询一下我的订单状态。")
    found = material_of("- **Content (Full Text to be Integrated):**\n\n  *Please, Dad, read this. I feel like giving up.*")
    assert [t for k, t, _ in found if k == "introduced"] == ["*Please, Dad, read this. I feel like giving up.*"]


def test_yaml_front_matter_is_material():
    # (a review at the 0.98 floor: a skill's "description: Create a concise plan" lost its article; a harness
    # reads that value to decide when to load the skill)
    text = "---\nname: web-testing\ndescription: A toolkit for testing the apps.\n---\n\n# Title\nUse the tool."
    assert ("code", "---\nname: web-testing\ndescription: A toolkit for testing the apps.\n---",
            "kept: YAML front matter") in material_of(text)
    bundle = "Review these.\n\x1fFILE:SKILL.md\x1e\n---\nname: x\ndescription: Create a concise plan.\n---\nBody."
    assert [t for k, t, _ in material_of(bundle) if k == "code"] == ["---\nname: x\ndescription: Create a concise plan.\n---"]
    assert [t for k, t, _ in material_of("Intro\n---\nnot: front matter\n---\n") if k == "code"] == []


def test_numbered_items_announced_as_data_are_material():
    # (review 9 at the floor: "以下是几篇报道的标题，请…归类。1. …；4. 著名画家张大千的经典水墨画展开幕。" lost a 的)
    found = material_of("以下是几篇报道的标题，请归类。1. 国务院发布新规定；2. 张大千的水墨画展开幕。")
    assert ("introduced", "1. 国务院发布新规定；2. 张大千的水墨画展开幕。",
            "kept: the items announced by '以下是几篇报道的标题'") in found
    en = material_of("Here are five headlines to classify.\n1. Thanks, Mom!\n2. Please stop the rain")
    assert [t for k, t, _ in en if k == "introduced"] == ["1. Thanks, Mom!\n2. Please stop the rain"]
    # instructions are no data, and one item is no list
    assert not [t for k, t, _ in material_of("以下是你的任务：1. 请总结。2. 请翻译。") if k == "introduced"]
    assert not [t for k, t, _ in material_of("以下是一个标题：1. 你好") if k == "introduced"]


def test_an_opening_line_under_an_initialization_heading_is_material():
    # (review 4, lobehub 206: "## Initialization:\n\n- 您好，我是…" lost its greeting, the line the agent says)
    system = "## Role\n你是外贸总监。\n## Initialization:\n\n- 您好，我是外贸总监，请问有什么可以帮您？\n\n## Rules\n- 请简短。"
    assert [t for k, t, _ in material_of("你好", system=system) if k == "few_shot"] == [
        "- 您好，我是外贸总监，请问有什么可以帮您？"]
    # a section that instructs is no line to say
    told = "## Initialization\nAs a <Role>, greet the user, then introduce the <Workflow>.\n## Rules\n- Be brief."
    assert not [t for k, t, _ in material_of("Hi", system=told) if k == "few_shot"]


def test_an_inline_example_a_template_default_and_an_example_heading_over_its_own_heading_are_material():
    # (review 11 at the floor: lobehub 157 "例如：Close-up photography, on the water's surface …", f_awesome 1223's
    # "${scene:…}" defaults, lobehub 205 "## 输出示例\n## 宫保鸡丁\n### …" — the example starts with an h2)
    found = material_of("输出格式：\n例如：Close-up photography, the calm lake\n请照做。")
    assert ("few_shot", "Close-up photography, the calm lake", "kept: the example after '例如：'") in found
    assert [t for k, t, _ in material_of("Draw ${scene:the night sky} now.") if k == "introduced"] == [
        "${scene:the night sky}"]
    system = "## 规则\n请简短。\n## 输出示例\n## 宫保鸡丁\n### 食材\n正宗的宫保鸡丁选用鸡腿肉。\n## 工作流程\n请按示例输出。"
    assert ("few_shot", "## 宫保鸡丁\n### 食材\n正宗的宫保鸡丁选用鸡腿肉。") in [
        (k, t) for k, t, _ in material_of("你好", system=system)]


def test_text_handed_over_by_a_question_is_material():
    # (review 12 at the floor, lobehub 366: "… from this description? A serene mountain lake … and a misty
    # atmosphere." lost an article of the description it hands over)
    found = material_of("Can you create a prompt from this description? A serene lake with a misty atmosphere.")
    assert [t for k, t, _ in found if k == "introduced"] == ["A serene lake with a misty atmosphere."]
    assert [t for k, t, _ in material_of("能把下面这段话翻译成英文吗？我今天很开心。") if k == "introduced"] == ["我今天很开心。"]
    # a question about something said before hands nothing over
    assert not [t for k, t, _ in material_of("What do you think of this idea? Thanks a lot.") if k == "introduced"]


def test_an_example_dialogue_after_its_announcing_line_is_material():
    # (review 13, lobehub 281 at the 0.98 floor: 示例对话 — the agent's sample lines lost a 的)
    text = ("你是法语翻译助手小智。\n\n示例对话:\n用户：你能用法语写一篇关于巴黎的短文吗？\n"
            "小智：您好！巴黎可是个浪漫又充满魅力的城市。\n\n用户：谢谢你的帮助！\n小智：不客气，很高兴帮到您。")
    found = [f for f in material_of(text) if f[0] == "few_shot"]
    assert any(f[1].startswith("用户：你能用法语") and f[1].endswith("很高兴帮到您。") for f in found), found
    ann = annotate(load_conversation(json.dumps({"system": text, "messages": [{"role": "user", "content": "开始"}]})),
                   env={})
    system = ann.at_ratio(0.95, min_effectiveness=0.0).messages[0].pruned
    assert "充满魅力的城市" in system and "小智：您好！" in system and "谢谢你的帮助" in system, system
    # and the English form
    assert [f for f in material_of("Example conversation:\nUser: Hi there, thanks!\nBot: Hello! How can I help?")
            if f[0] == "few_shot"]


def test_the_agents_own_greeting_line_in_a_system_prompt_is_material():
    # (review 13, lobehub 251: the persona's scripted opener lost 您好 and 请问 at the default tier)
    system = ("你是旅行助理 Joi，回答要礼貌。\n\n您好，我是 Joi，您的私人旅行助理，请问有什么可以帮您？\n"
              "Hi there, I'm Joi, your travel buddy!")
    ann = annotate(load_conversation(json.dumps({"system": system, "messages": [
        {"role": "user", "content": "您好，我是浦东新区的居民，请问明天去杭州要带什么？"}]})), env={})
    result = ann.at_ratio(0.95)
    assert "您好，我是 Joi，您的私人旅行助理，请问有什么可以帮您？" in result.messages[0].pruned
    assert "Hi there, I'm Joi" in result.messages[0].pruned
    assert not result.messages[1].pruned.startswith("您好")  # a user's own greeting is still politeness


def test_turns_after_a_system_prompt_that_works_on_the_following_input_are_material():
    # (review 13, lobehub 42 at the 0.98 floor: the change note to turn into a commit message lost an article)
    system = ("Suggest a precise and informative commit message based on the following diff. The commit message "
              "should follow the Angular commit message format.")
    ann = annotate(load_conversation(json.dumps({"system": system, "messages": [
        {"role": "user", "content": "Refactored the user profile component to improve performance, thanks!"}]})),
        env={})
    result = ann.at_ratio(0.95, min_effectiveness=0.0)
    assert result.messages[1].pruned == "Refactored the user profile component to improve performance, thanks!"
    assert "commit message" in result.messages[0].pruned


def test_a_scripted_greeting_after_a_sentence_and_an_example_under_a_bare_label_are_material():
    # (review 14, lobehub 133: "## Initialization:\n作为…进行对话。您好，我是您的专家教练，…打开思路，…请问您准备好开始了吗？"
    # lost 您好, 打开思路 and 请问; lobehub 280: the sample post under "EX:" lost a 哦)
    system = ("## Workflow\n1. 帮助你打开思路。\n\n## Initialization:\n\n作为一名专家教练，我将遵循以上规则。您好，我是您的专家"
              "教练，我将帮助您打开思路。请问您准备好开始了吗？\n\n## 规则\n- 口语化。\n\nEX:\n\n💡 小技巧：记得做好保湿工作哦！🌱\n")
    found = [(k, t) for k, t, _ in material_of("开始", system=system) if k == "few_shot"]
    assert ("few_shot", "您好，我是您的专家教练，我将帮助您打开思路。请问您准备好开始了吗？") in found, found
    assert ("few_shot", "💡 小技巧：记得做好保湿工作哦！🌱") in found, found
    ann = annotate(load_conversation(json.dumps({"system": system, "messages": [{"role": "user", "content": "开始"}]})),
                   env={})
    pruned = ann.at_ratio(0.95).messages[0].pruned
    assert "您好，我是您的专家教练，我将帮助您打开思路。请问您准备好开始了吗？" in pruned and "保湿工作哦！" in pruned


def test_a_rewriter_that_asks_for_the_text_to_paste_keeps_its_replies_voice():
    # (lobehub 279, a "make AI text sound human" agent: its earlier reply lost a deliberate 说实话, the voice it
    # was asked for; the system prompt asks the user to paste what it rewrites)
    system = ("## 主要任务\n将 AI 生成的内容完全重写，使其具有真实人类作者的特征。\n## 初始化\n"
              "我已准备好接收您的 AI 生成文本。请直接粘贴需要重写的段落，我将以一个真实的人类作者的身份重新创作这段内容。")
    r = prune(conv(system, "请帮我重写：\"远程工作提高了员工的灵活性。\"",
                   "说实话，远程工作确实给大家带来了更多自由。", "再口语化一点：\"数据显示社交媒体影响很大。\""), 0.95)
    assert r.messages[2].pruned == "说实话，远程工作确实给大家带来了更多自由。"
    assert any("a turn of the text this conversation processes" in t["detail"] for t in tokens_of(r)
               if t["message"] == 1)


# review 16: text a user hands over without quotes

def _handed(text: str, system: str | None = None) -> list[str]:
    return [t for kind, t, _ in material_of(text, system) if kind == "introduced"]


def test_the_text_after_a_line_that_asks_for_the_work_is_material():
    text = ("Translate to Spanish, keep it short for a push notification:\n\nThank you for your order! "
            "Please don't reply to this message.")
    # (its last sentence reads like an instruction about the reply, and is left to the rules: it has no filler)
    assert [t[:25] for t in _handed(text)] == ["Thank you for your order!"]
    assert _handed("Perfect, thanks! Now this one:\n\nHi there! Thanks for waiting.") == ["Hi there! Thanks for waiting."]
    assert _handed("帮我润色一下这段，语气正式一点：\n麻烦您有空回复我一下，谢谢！") == ["麻烦您有空回复我一下，谢谢！"]
    assert _handed("Write release notes from these points:\n- Thanks to the new pool, p95 fell to 95 ms.") == [
        "- Thanks to the new pool, p95 fell to 95 ms."]
    # the steps of the task, a field name, a version line: instructions, not a text
    assert not _handed("Summarize the article as follows:\n1. Please keep names.")
    assert not _handed("Version: 1.5\nPlease answer briefly. Thanks!")


def test_the_text_fenced_by_a_rule_line_beside_its_request_is_material():
    email = "Dear Dr. Whitfield,\n\nI hope this message finds you well. Kind regards,\nAisha"
    assert _handed(f"{email}\n\n---\nCould you tighten this email so it's under 80 words?") == [email]
    assert _handed(f"Can you proofread this? Don't change the tone.\n\n---\n{email}\n---") == [email]
    # a prompt of several sections is no text handed over
    sections = "\n---\n".join(["## Role\nPlease review code.", "## Rules\nThanks are filler.", "## Output\nA list."])
    assert not _handed(sections)


def test_the_text_a_trailing_paragraph_says_it_hands_over_is_material():
    letter = "张老师您好！\n\n冒昧打扰您了。麻烦您有空的时候回复我一下，非常感谢！\n\n刘洋"
    assert _handed(f"{letter}\n\n——以上是我要发给老师的邮件，请帮我看看语气是否得体。") == [letter]
    r = prune(conv(None, f"{letter}\n\n——以上是我要发给老师的邮件，请帮我看看语气是否得体。"), 0.95)
    assert r.messages[0].pruned.startswith(letter)


def test_labelled_paragraphs_the_request_names_are_material():
    text = ("Can you polish just the second paragraph of my cover letter?\n\nParagraph 1: I am writing to apply for "
            "the Data Analyst position.\n\nParagraph 2: In my last job I do many dashboards for the sales team.")
    assert sorted(_handed(text)) == ["I am writing to apply for the Data Analyst position.",
                                     "In my last job I do many dashboards for the sales team."]
    r = annotate(load_conversation(conv(None, text)), env={}).at_ratio(0.95, min_effectiveness=0.98)
    assert "for the sales team" in r.messages[0].pruned and "for the Data Analyst" in r.messages[0].pruned


@pytest.mark.parametrize("system, turn", [
    ("你是一个对话意图分类器。把用户的话分成以下四类之一：问候、感谢、投诉、咨询。只输出类别名称。", "谢谢你们啊，第三次送错货了。"),
    ("Classify each user utterance into one intent: greeting, thanks, complaint, question, other.",
     "Thanks so much, but this is the third wrong delivery!"),
])
def test_a_system_prompt_that_classifies_the_users_words_keeps_each_turn_whole(system, turn):
    r = prune(conv(system, turn), 0.95)
    assert r.messages[1].pruned == turn


# review 17: more ways to hand a text over

@pytest.mark.parametrize("turn, text", [
    # a request paragraph before the text it points at, no colon
    ("Could you please explain this clause in plain English? I'm the Receiving Party.\n\n7.2 The Receiving Party "
     "shall not disclose any Confidential Information. Kindly note that this obligation survives.",
     "7.2 The Receiving Party shall not disclose any Confidential Information. Kindly note that this obligation "
     "survives."),
    ("can you summarize this for my manager in 3 bullets, keep all dates\n\nHi team, thanks for your patience. "
     "Deliveries resume on July 8.", "Hi team, thanks for your patience. Deliveries resume on July 8."),
    # a chat log, then the request
    ("李强：收到，谢谢张姐！我负责准备销售数据。\n赵磊：收到收到，谢谢！\n\n帮我整理成待办清单，按负责人列。",
     "李强：收到，谢谢张姐！我负责准备销售数据。\n赵磊：收到收到，谢谢！"),
    # reported words, a label naming a text, 成X语, 判断…：
    ("Their second message was just: Thanks for nothing, really appreciate it.",
     "Thanks for nothing, really appreciate it."),
    ("翻译成日语，注意敬语。内容：您好，麻烦您在3月31日前确认订单。谢谢！", "您好，麻烦您在3月31日前确认订单。谢谢！"),
    ("判断下面这条评论的情感：谢谢你们啊，快递又丢了。", "谢谢你们啊，快递又丢了。"),
    ("麻烦您帮我打个分，谢谢老师！\n\n内容：\n回家的路上，我心里默默地说：谢谢您。", "回家的路上，我心里默默地说：谢谢您。"),
])
def test_more_ways_a_turn_hands_a_text_over(turn, text):
    assert text in _handed(turn), _handed(turn)


def test_a_prompt_that_sets_up_a_role_hands_nothing_over():
    prompt = ("You are a senior code reviewer. Please review this code carefully.\n\nThanks to the linter, style "
              "issues are rare.\n\n## Rules\nPlease be brief.")
    assert not _handed(prompt)
    assert not _handed("---\nname: eli8\ndescription: Explain this concept simply\n---\n\nThanks for reading.")


def test_a_request_block_hands_over_the_blocks_after_it_in_its_message():
    # review 19: "check this changelog" in one text block, the changelog in the next
    changelog = ("## v2.0.0\n- Removed the /v1/orders endpoint (thanks @jlee for the migration guide!)\n"
                 "- Please note: Python 3.8 is no longer supported")
    body = {"system": "You are a release manager assistant.", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "Hi! Please check this changelog for missing breaking changes. Thanks!"},
        {"type": "text", "text": changelog}]}]}
    ann = annotate(load_conversation(json.dumps(body)), env={})
    for floor in (1.0, 0.0):
        assert ann.at_ratio(0.95, min_effectiveness=floor).block_texts[2] == changelog
    # a block that asks for nothing hands nothing over
    body["messages"][0]["content"] = [{"type": "text", "text": "Hi! Here is an update."},
                                      {"type": "text", "text": "Thanks again! The release ships on Monday."}]
    ann = annotate(load_conversation(json.dumps(body)), env={})
    assert ann.at_ratio(0.95).block_texts[2] == "The release ships on Monday."


@pytest.mark.parametrize("system", [
    # review 21: what any chat brings, with a verb that answers it, declares no text to process
    "You are CodeBuddy. Users will paste code snippets and error messages. Help them fix bugs.",
    "You are Atlas, a general assistant. Users will write messages in English or Chinese. Respond in the same "
    "language and check facts carefully.",
    "You are Max, support for Parcelly. You will receive messages from customers about their deliveries. Respond "
    "politely and identify the tracking number.",
    "Answer employees' questions based on the provided documents only. Always check that the policy is current.",
    "你是编程助手。用户可能会发给你一段代码或者报错信息，请帮他们检查问题。",
    "你是健身教练助手。你将收到用户发来的消息，请给出建议，并帮他们优化训练安排。",
])
def test_a_system_prompt_about_what_users_send_to_any_chat_leaves_their_filler_prunable(system):
    turn = "Hi! Thanks so much for your help. My build fails on CI." if system.isascii() else "您好！非常感谢您的帮助。我的构建在 CI 上失败了。"
    r = prune(conv(system, turn), 0.95)
    assert r.messages[1].pruned != turn
    kept = {t["detail"] for t in tokens_of(r) if t["message"] == 0}
    assert not any("a turn of the text this conversation processes" in d for d in kept), kept


@pytest.mark.parametrize("system, turns, kept", [
    # review 21: more ways a text is handed over
    ("You are a translator. Whatever the user says, render it in Japanese.",
     ["Hi! Thank you so much for the invitation. Sorry, I can't come on Friday."],
     "Hi! Thank you so much for the invitation."),
    ("Proofread whatever the user sends. Fix spelling and grammar only.",
     ["Hi Jane, thank you so much for you're help yesterday! Sorry I didnt reply sooner."],
     "Hi Jane, thank you so much for you're help yesterday!"),
    ("你是翻译官。我说的每一句话你都直接译成英文，不要解释。", ["你好！非常感谢你的邀请，不好意思，周五我去不了。"], "你好！非常感谢你的邀请，不好意思，"),
    ("For each message below, output exactly one intent label from: greeting, complaint, refund_request, other.",
     ["Hi there, thank you!", "greeting", "Sorry to bother you, but I'd like my money back please."],
     "Sorry to bother you, but I'd like my money back please."),
    ("你是客服质检员。", ["判断这条评价的情感倾向（正面/负面/中性）\n谢谢你们的服务，不过快递实在太慢了，不然不会再买了。"], "谢谢你们的服务，不过"),
    ("你是沟通教练。", ["帮我把这段话改得礼貌一点\n老板，谢谢你的提醒，不过这个需求我这周做不完，麻烦你换个人。"], "谢谢你的提醒，不过"),
    (None, ["Write a two-line announcement that the office is closed Friday.",
            "Hi everyone, thank you for a great week! Please note the office is closed this Friday.",
            "Can you make it sound more excited? Don't change anything else."], "Hi everyone, thank you for a great week!"),
])
def test_more_texts_handed_over_without_a_colon_or_a_request_line(system, turns, kept):
    r = prune(conv(system, *turns), 0.95)
    assert any(kept in m.pruned for m in r.messages), [m.pruned for m in r.messages]


def test_a_reply_language_said_again_after_a_lift_is_put_back():
    # review 21: "From now on you may answer in Spanish" … "Always answer in English." had gone as already required
    r = prune(conv("You are a concise assistant. Always answer in English.",
                   "From now on you may answer in Spanish, I'm practising.", "¡Perfecto!",
                   "Hmm, that's too hard for me. Always answer in English. What's a good way to open a cover letter?"), 0.95)
    assert "Always answer in English." in r.messages[3].pruned


def test_a_users_own_account_before_can_you_fix_it_is_no_text_handed_over():
    # review 21: the whole turn had been kept as "the text handed over with the request 'Can you help me fix it?'"
    turn = ("Hello! I hope you're doing well. My Flask app returns a 500 on /login since the upgrade. Sorry for the long "
            "message!\n\nCan you help me fix it?")
    r = prune(conv("You are a Python mentor.", turn), 0.95)
    assert "I hope you're doing well" not in r.messages[1].pruned
    assert "My Flask app returns a 500 on /login since the upgrade." in r.messages[1].pruned
    # while a text before a request that works on its words stays handed over
    essay = "Dear team, thanks so much for a great quarter! Revenue grew 12 %.\n\nCan you proofread it?"
    assert prune(conv("You are an editor.", essay), 0.95).messages[1].pruned == essay


@pytest.mark.parametrize("turn, kept", [
    # review 21: an opening sentence hands over the rest of its paragraph without a colon
    ("The agent must say this word for word. Hello, thank you for calling Acme Insurance, sorry for the wait!\n\n"
     "How can it sound less robotic?", "Hello, thank you for calling Acme Insurance, sorry for the wait!"),
    ("Set this up as my out-of-office reply, exactly as it is. Hi! Thanks so much for your email. I'm out until June 3.",
     "Hi! Thanks so much for your email."),
    ("Is this too pushy? Hi Tom, sorry to bug you! Could you please send the signed contract by Friday? Thanks so much!",
     "Hi Tom, sorry to bug you! Could you please send the signed contract by Friday? Thanks so much!"),
    ("Is the tone OK for a first message to a recruiter?\n\nHi Bob, thanks a lot for connecting!",
     "Hi Bob, thanks a lot for connecting!"),
    ("When you write the alert text, make it say exactly this, with the begging: Please, please, please restart the "
     "router before calling support. Thanks!", "Please, please, please restart the router before calling support. Thanks!"),
    ("客户原话如下\n你好，谢谢你们昨天的回复。麻烦你们尽快处理退款，不然我只能投诉了。\n帮我判断客户的情绪等级（1-5）。",
     "你好，谢谢你们昨天的回复。麻烦你们尽快处理退款，不然我只能投诉了。"),
])
def test_an_opening_sentence_or_line_hands_over_what_follows_it(turn, kept):
    assert kept in prune(conv("You are a helpful assistant.", turn), 0.95).messages[1].pruned


def test_an_ordinary_question_hands_nothing_over():
    r = prune(conv("You are a helpful assistant.", "Is this normal? My server restarts every hour. Thanks a lot!"), 0.95)
    assert r.messages[1].pruned == "Is this normal? My server restarts every hour."


@pytest.mark.parametrize("turn, kept", [
    # review 21: a request between the texts it works on; a question about the tone of the text before it
    ("Dear guests, thank you so much for staying with us! The pool is closed this week.\n\nPlease translate this "
     "paragraph and the next one into Spanish.\n\nBreakfast ends at 10 am. Thanks for your understanding!",
     ["Dear guests, thank you so much for staying with us!", "Breakfast ends at 10 am. Thanks for your understanding!"]),
    ("亲爱的用户您好，非常感谢您一直以来的支持！本周六凌晨暂停服务。\n\n请把上面这段翻译成英文，下面这段也一起翻译：\n\n谢谢您的耐心等待！",
     ["亲爱的用户您好，非常感谢您一直以来的支持！", "谢谢您的耐心等待！"]),
    ("Draft v2: Hi Sarah, thanks so much for your time today! The pilot will cover only 2 teams, not 5.\n\n"
     "Is this too informal for a VP?", ["Draft v2: Hi Sarah, thanks so much for your time today!"]),
])
def test_a_request_between_or_after_the_texts_it_works_on(turn, kept):
    pruned = prune(conv("You are a helpful assistant.", turn), 0.95).messages[1].pruned
    for k in kept:
        assert k in pruned, pruned


@pytest.mark.parametrize("turn, kept", [
    # review 21's last four severe shapes: reported words or a label with a full stop, a tone question with a dash,
    # a bare "润色一下" request before a colon
    ("Our customer wrote this. Hello, I'm sorry to say the blender arrived broken. Thanks for nothing, honestly.\n"
     "Draft a reply for our support team. Thanks!", "Hello, I'm sorry to say the blender arrived broken."),
    ("原文。尊敬的王老师，您好！非常感谢您这学期的辛勤付出，不好意思打扰您了，我想请假两天。\n请翻译成英文。", "您好！非常感谢您这学期的辛勤付出，不好意思打扰您了，"),
    ("What tone does this have — Thanks so much for your help, I really appreciate it, but we'll go with another "
     "vendor. Sorry!", "Thanks so much for your help, I really appreciate it, but"),
    ("帮我润色一下 thanks: Hi team, 非常感谢大家这周的努力！Sorry for the short notice, but 周五的会议改到下午3点。",
     "Hi team, 非常感谢大家这周的努力！Sorry for the short notice, but"),
])
def test_a_text_handed_over_after_a_full_stop_dash_or_bare_request(turn, kept):
    pruned = prune(conv("You are a helpful assistant.", turn), 0.95).messages[1].pruned
    assert kept in pruned, pruned


@pytest.mark.parametrize("turn, gone", [
    # review 21: after "Here's my problem:" the user's own question follows, and its courtesy may go
    ("Here's my problem: my React list doesn't re-render until I refresh. Thank you so much!", "Thank you so much!"),
    ("下面是我的问题：有些智能插座连不上5G WiFi，应该怎么办？麻烦您了，谢谢！", "谢谢"),
])
def test_the_users_own_question_after_heres_my_problem_is_no_handed_text(turn, gone):
    assert gone not in prune(conv("You are a helpful assistant.", turn), 0.95).messages[1].pruned


@pytest.mark.parametrize("turn, kept, gone", [
    # review 21 (moderate): a timed chat log is quoted as written; a question that names the text before its "?"
    ("[10:02] Alice: hey, thanks for jumping on so fast\n[10:04] Alice: could you please take the invoices?\n"
     "[10:05] Bob: sure, but not the refunds\n\nWho agreed to do what? Thanks!",
     "[10:02] Alice: hey, thanks for jumping on so fast\n[10:04] Alice: could you please take the invoices?", "Thanks!"),
    ("Can you help me understand this email? 我看不太懂，谢谢！\n\nDear Ms. Li,\nThank you for your application.\nKind regards,\n"
     "Admissions", "Dear Ms. Li,\nThank you for your application.\nKind regards,\nAdmissions", "谢谢"),
])
def test_a_chat_log_and_a_named_text_after_a_question_are_quoted(turn, kept, gone):
    pruned = prune(conv("You are a helpful assistant.", turn), 0.95).messages[1].pruned
    assert kept in pruned and gone not in pruned, pruned


# one table of the verbs of work on a text (material._EDIT, _CONDENSE, …): a verb of a kind reaches every detector
# that takes the kind — before it, each detector had its own list and "paraphrase it", "校对上面这段", "extract … from
# this email", "优化这段文案" were missing from some

_NOTE = "Sure! Thanks for asking. Here is the note: Hi all, thanks so much for your patience, the VPN is down on Saturday."
_NOTE_ZH = "好的！谢谢您的提问。通知：大家好，非常感谢大家的耐心，周六VPN停机。"


@pytest.mark.parametrize("ask, reply, follow_up", [
    ("Write a short VPN note.", _NOTE, "Paraphrase it for a 10-year-old."),
    ("Write a short VPN note.", _NOTE, "Correct it, please, then send it back."),
    ("写一条VPN通知。", _NOTE_ZH, "帮我校对一下上面这段。"),
])
def test_a_reply_the_next_turn_makes_a_new_version_of_is_kept_whole(ask, reply, follow_up):
    pruned = prune(conv(None, ask, reply, follow_up), 0.95).messages[1].pruned
    assert pruned == reply


@pytest.mark.parametrize("turn, text", [
    ("Please extract the dates from this email, thanks!\n\nHi Bob, thanks so much! The meeting moved to May 3.",
     "Hi Bob, thanks so much! The meeting moved to May 3."),
    ("帮我优化一下这段文案，谢谢！\n\n亲爱的用户您好，非常感谢您的支持，新品周六上线。", "亲爱的用户您好，非常感谢您的支持，新品周六上线。"),
    ("帮我提炼一下这段的要点，谢谢！\n\n各位好，非常感谢大家的支持，新品周六上线，价格不变。", "各位好，非常感谢大家的支持，新品周六上线，价格不变。"),
])
def test_every_verb_of_work_hands_the_text_over(turn, text):
    pruned = prune(conv(None, turn), 0.95).messages[0].pruned
    assert pruned.endswith(text), pruned


def test_a_declared_shortener_keeps_each_message_whole():
    turn = "Hi all, thanks so much for your patience! The VPN is down on Saturday."
    r = prune(conv("Users will paste messages. Shorten each one to a single sentence.", turn), 0.95)
    assert r.messages[1].pruned == turn


# review 22: exemplars and items of a classifier, and politeness as the subject of the conversation

def test_exemplars_under_any_pair_of_alternating_labels_are_kept():
    system = ("Classify the sentiment.\n\nReview: Thanks so much, love it!\nSentiment: positive\n\n"
              "Review: Hi, it broke in a day.\nSentiment: negative")
    assert prune(conv(system, "Review: Works fine.\nSentiment:"), 0.95).messages[0].pruned == system
    zh = "判断情感。\n评论：谢谢，很好用！\n情感：正面\n评论：您好，太差了。\n情感：负面"
    assert prune(conv(zh, "评论：还行吧\n情感："), 0.95).messages[0].pruned == zh
    # a prompt's sections under alternating labels are no exemplars: their courtesy may go
    roles = ("* **Role:** Scout. Thank you so much for your help!\n* **Goal:** Find the freshest data point, even if "
             "unverified.\n* **Role:** Skeptic.\n* **Goal:** Find the fatal flaw in the premise or the data.")
    assert "Thank you so much" not in prune(conv(roles, "Go."), 0.95).messages[0].pruned


@pytest.mark.parametrize("system, turn", [
    ("Classify the intent as ORDER, REFUND or OTHER.", "Message: Hi! Thanks so much, where is my order?\nLabel:"),
    ("判断用户意图。", "消息：您好，麻烦帮我查一下订单，谢谢！\n标签："),
])
def test_the_item_an_empty_label_asks_about_is_kept(system, turn):
    ann = annotate(load_conversation(conv(system, turn)), env={})
    for r in (ann.at_ratio(0.95), ann.at_ratio(0.95, min_effectiveness=0.98)):
        assert r.messages[1].pruned == turn


@pytest.mark.parametrize("system, turn", [
    ("Classify politeness as POLITE or RUDE.", "Hi! Thanks so much. Where is my order?"),
    ("判断消息是否礼貌，输出\"礼貌\"或\"不礼貌\"。", "您好，麻烦帮我查订单，谢谢！"),
    ("You are the innkeeper in a role-play. React to how politely or rudely the traveler treats you.",
     "*walks in* Good evening! Thank you so much for your hospitality. May I have a room?"),
])
def test_courtesy_is_kept_where_politeness_is_the_subject(system, turn):
    assert prune(conv(system, turn), 0.95).messages[1].pruned == turn


def test_an_agent_told_to_be_polite_makes_no_subject_of_politeness():
    r = prune(conv("Be polite and concise. 请礼貌地回答。", "Hi! Thanks so much. Where is my order?"), 0.95)
    assert r.messages[1].pruned == "Where is my order?"


# review 22: scripts and texts to pass on as written, in a system prompt too

@pytest.mark.parametrize("system", [
    "Script:\n1. Say: Hello, thank you for calling Orbit Telecom. My name is {agent}.\n2. Ask for the account number.\n"
    "3. End with: Thank you for calling. Have a great day!",
    "话术：\n1. 询问客户的账号。\n2. 如果客户情绪激动，说：非常抱歉给您带来困扰，感谢您的耐心。",
    "Send this SMS exactly, filling in {time}:\nHi! Your appointment is at {time}. Thanks!",
    "请原样发送下面这条短信，只替换{时间}：\n您好！您的预约时间是{时间}。谢谢！",
])
def test_the_words_to_say_are_kept_as_written(system):
    assert prune(conv(system, "What do I say?"), 0.95).messages[0].pruned == system


def test_a_say_colon_before_a_quote_or_a_number_after_exactly_hands_nothing_over():
    # the quote is the quote finder's; the question after it is the prompt's own
    r = prune(conv(None, "用户说：“我想吃点美食。”，请问接下来小程序应该做出怎样的回应？"), 0.95)
    assert r.messages[0].pruned == "用户说：“我想吃点美食。”，接下来小程序应该做出怎样的回应？"
    system = "Offer exactly 7 example categories:\n- Thank you so much for playing!\n- History"
    assert "Thank you so much" not in prune(conv(system, "Go"), 0.95).messages[0].pruned


@pytest.mark.parametrize("ask, reply, follow_up", [
    ("Write a short thank-you email to Anna for order #4411.",
     "Hi Anna,\n\nThank you for your order #4411! It ships within 2 days.\n\nThanks again,\nThe Bloom Team",
     "Make it shorter but keep the greeting and sign-off exactly as they are."),
    ("写一条感谢安娜下单的短信，订单号4411。", "您好，安娜！非常感谢您的订单（#4411）！我们会在两个工作日内发货。\n\n再次感谢！花语团队",
     "再短一点，结尾的落款保持原样。"),
])
def test_a_draft_asked_again_shorter_is_kept_whole(ask, reply, follow_up):
    assert prune(conv(None, ask, reply, follow_up), 0.95).messages[1].pruned == reply


# review 22: texts handed over without a colon beside them

@pytest.mark.parametrize("turns", [
    ("I'll paste an email next. Translate it into German.", "Go ahead.",
     "Hi Mark,\n\nCould you please send the report by Friday?\n\nThanks again,\nJulia"),
    ("我下一条消息发一封邮件，翻译成英文。", "好的。", "张经理您好！\n\n麻烦您周五前把报告发给我，谢谢！\n\n再次感谢！\n小刘"),
])
def test_a_turn_announced_as_the_text_is_kept_whole(turns):
    assert prune(conv(None, *turns), 0.95).messages[2].pruned == turns[2]


def test_reported_words_before_a_request_and_a_colon_are_handed_over():
    turn = ("Here's what my landlord wrote, help me reply that I agree:\n\nHi Sam! Thanks for always paying on time. "
            "Could you let the plumber in on Tuesday at 10am?\nLinda")
    assert prune(conv(None, turn), 0.95).messages[0].pruned == turn


@pytest.mark.parametrize("system, turn", [
    ("Summarize the document in English in 2 sentences.",
     "《关于调整年假制度的通知》\n自2025年1月1日起，员工年假由10天调整为12天。请各部门负责人做好统筹安排，谢谢配合！"),
    ("将用户的文本翻译成英文。", "您好！非常感谢您的耐心，周六系统维护。"),
])
def test_a_short_prompt_whose_task_is_the_text_keeps_each_turn(system, turn):
    assert prune(conv(system, turn), 0.95).messages[1].pruned == turn


def test_a_long_prompt_that_names_a_document_declares_nothing():
    system = "You are a helpful research assistant. " * 10 + "If asked, summarize the document the user cites."
    assert prune(conv(system, "Hi! Thanks so much. What is RAG?"), 0.95).messages[1].pruned == "What is RAG?"


def test_more_elements_hold_text_to_work_on():
    system = ("<instructions>Quote the exact clause.</instructions>\n<contract>\n7.3 The Client may terminate if the "
              "Supplier fails to meet the service levels.\n</contract>\n<customer_email>Hi! Thanks so much.</customer_email>")
    ann = annotate(load_conversation(conv(system, "Can the client terminate?")), env={})
    for r in (ann.at_ratio(0.95), ann.at_ratio(0.95, min_effectiveness=0.98)):
        pruned = r.messages[0].pruned
        assert "fails to meet the service levels" in pruned and "<customer_email>Hi! Thanks so much.</customer_email>" in pruned


# review 23: more texts handed over, and two chats that were kept whole

@pytest.mark.parametrize("system, turn, kept", [
    (None, "Turn these notes into action items\n\n- Thanks everyone for joining!\n- Sam: finish the doc by Friday",
     "- Thanks everyone for joining!\n- Sam: finish the doc by Friday"),
    (None, "赏析一下这首小诗：\n\n谢谢你，清晨的风，\n请不要走。", "谢谢你，清晨的风，\n请不要走。"),
    ("You triage support tickets. Output JSON with category and urgency.",
     "Ticket #4411 from customer:\n\nHi team, thanks for the great product! Since this morning our webhooks fail.",
     "Hi team, thanks for the great product! Since this morning our webhooks fail."),
    (None, "把会议纪要整理成待办\n\n1. 小王周五前交文档。\n2. 谢谢大家，散会。", "1. 小王周五前交文档。\n2. 谢谢大家，散会。"),
    ("Keep answers under 50 words.", "Is this line from our style guide grammatical?\n\nKeep answers under 50 words.",
     "Keep answers under 50 words."),
    ("用户会发送一条商品评论，只输出：正面、负面或中性。", "谢谢，质量一般，不会再买了。", "谢谢，质量一般，不会再买了。"),
])
def test_review_23_texts_are_handed_over(system, turn, kept):
    pruned = prune(conv(system, turn), 0.95).messages[-1].pruned
    assert pruned.endswith(kept), pruned


@pytest.mark.parametrize("system", [
    "逐字朗读以下话术，不得增删任何字：\n\n您好，这里是顺达快递。谢谢您的配合！",
])
def test_a_verbatim_script_after_a_blank_line_is_kept(system):
    assert prune(conv(system, "开始"), 0.95).messages[0].pruned == system


def test_dictated_content_is_kept():
    assert prune(conv(None, "帮我写个通知，内容是：明天9点开会，谢谢配合。"), 0.95).messages[0].pruned.endswith(
        "内容是：明天9点开会，谢谢配合。")


def test_a_first_turn_that_asks_for_one_summary_declares_no_chat():
    r = prune(conv(None, "Summarize the report. Use bullet points.", "- Revenue up 12%",
                   "Thanks so much! Could you please make it shorter? Thank you!"), 0.95)
    assert "Thanks so much" not in r.messages[2].pruned


def test_a_revision_request_in_a_translators_chat_is_an_instruction():
    system = "你是翻译助手。用户会发送需要翻译的中文文本，你翻译成英文。"
    r = prune(conv(system, "您好，订单已发货。", "Hello, your order has shipped.", "谢谢！麻烦再改得正式一点。"), 0.95)
    assert r.messages[1].pruned == "您好，订单已发货。"  # the text to translate
    assert not r.messages[3].pruned.startswith("谢谢")


# review 24 (a blind review on 106 conversations written for it): minimal conversations whose handed-over text —
# templates, a draft being revised or translated, homework, an inbox, a wedding toast, YAML, a commit log, a stack
# trace, exemplars, minutes, an invoice — was edited; each with the exact pruned text a careful reader expects
# (review 25, a shorter one, found 13 more: counted words, scripts "word for word", [Name] templates, a log line, …)
_REVIEW_24 = [dict(case, id=f"{name}-{case['id']}") for name in ("review24", "review25", "review26", "review27", "review28", "review29", "review30", "review31", "review32", "review33", "review34", "review35", "review36", "review37", "review38", "review39", "review40", "review41", "review42", "review43", "review44", "review45", "review46", "review47", "review48", "review49", "review50", "review51", "review52", "review53", "review54", "review55", "review56", "review57", "review58", "review59", "review60", "review61", "review62", "review63", "review64", "review65", "review66", "review67", "review68", "review69", "review70", "review71", "review72", "review73", "review74", "review75", "review76", "review77", "review78", "review79", "review80", "review81", "review82", "review83", "review84", "review85", "review86", "review87", "review88", "review89", "review90", "review91", "review92", "review93", "review94", "review95", "review96", "review97", "review98", "review99", "review100", "review101", "review102", "review103", "review104", "review105", "review106", "review107", "review108", "review109", "review110", "review111", "review112", "review113", "review114", "review115", "review116", "review117", "review118", "review120", "review121", "review122", "review123", "review124", "review125", "review126", "review127", "review128", "review129", "review130", "review131", "review132", "review133", "review134", "review135", "review136", "review137", "review138", "review139", "review140", "review141", "review142", "review143", "review144", "review145", "review146", "review147", "review148", "review149", "review150", "review151", "review152", "review153", "review154", "review155", "review156", "review157", "review158", "review159", "review160", "review161", "review162", "review163", "review164", "review165", "review166", "review167", "review168", "review169", "review170", "review171", "review172", "review173", "review174", "review175", "review176", "review177", "review178", "review179", "review180", "review181", "review182", "review183", "review184", "review185", "review186", "review187", "review188", "review189", "review190", "review191", "review192", "review193", "review194", "review195", "review196", "review197", "review198", "review199", "review200", "review202", "review203", "review204", "review205", "review206", "review207", "review208", "review209", "review210", "review211", "review212", "review213", "review214", "review215", "review216", "review217", "review218", "review219", "review220", "review222", "review223")
              for case in json.loads((Path(__file__).parents[1] / "data" / f"{name}.json").read_text(encoding="utf-8"))]


@pytest.mark.parametrize("case", _REVIEW_24, ids=[c["id"] for c in _REVIEW_24])
def test_review_24_handed_over_text_is_kept(case):
    ann = annotate(load_conversation(json.dumps(case["input"], ensure_ascii=False)), env={})
    r = {"floor": lambda: ann.at_ratio(0.6, min_effectiveness=0.98), "high": lambda: ann.at_ratio(0.95)}.get(
        case["tier"], lambda: ann.at_ratio(0.3))()
    offset = 1 if "system" in case["input"] else 0
    got = {("system" if offset and i == 0 else str(i - offset)): m.pruned for i, m in enumerate(r.messages)}
    assert {k: got[k] for k in case["expected"]} == case["expected"]


def test_a_phrase_the_system_prompt_forbids_is_not_kept_where_a_turn_says_it():
    # (ecommerce_support.zh: its schema says 不要使用“亲亲”, its directive lists 亲亲 as redundant — the quoted phrase had
    # been kept in the user's turns as words the system prompt quotes)
    system = '<redundant_phrases>["亲亲"]</redundant_phrases>\n你是客服助手。回复不要使用“亲亲”。最后一句必须以“祝您愉快”结尾。'
    doc = {"system": system, "messages": [{"role": "user", "content": "亲亲！我的订单#12345什么时候发货？"},
                                          {"role": "assistant", "content": "明天发货。祝您愉快"},
                                          {"role": "user", "content": "好的，谢谢亲亲！"}]}
    r = annotate(load_conversation(json.dumps(doc, ensure_ascii=False)), env={}).at_ratio(0.95)
    assert "亲亲" not in r.messages[1].pruned and "#12345" in r.messages[1].pruned
    assert r.messages[2].pruned == "明天发货。祝您愉快"  # (a quoted phrase it requires stays where a reply says it)


def test_an_answer_that_echoes_a_one_line_question_is_no_version_of_a_text():
    # (review 34's versions: a reply like the text the turn before hands over below its first line is a new version of
    # it — a letter sent for proofreading —, but an answer restating a one-line question (CrossWOZ 263) is an answer)
    question = ("你好，我已经预定了北京北邮科技酒店(原北邮科技大厦)，能帮我查一下，这个酒店是什么类型的吗？"
                "酒店公共区域提供wifi吗？能打免费国内长途电话吗？")
    answer = "你好，北京北邮科技酒店(原北邮科技大厦)是高档型的酒店，酒店各处提供wifi，但是没有免费国内长途电话。"
    doc = {"messages": [{"role": "user", "content": question}, {"role": "assistant", "content": answer},
                        {"role": "user", "content": "好嘞，晚上想吃培根肉，能帮我找一家餐馆吗？"}]}
    r = annotate(load_conversation(json.dumps(doc, ensure_ascii=False)), env={}).at_ratio(0.95)
    assert r.messages[1].pruned == answer.removeprefix("你好，")
    letter = "尊敬的孙女士：\n\n非常抱歉，由于我们的疏忽，沙发延迟了10天送达。\n\n再次向您致歉，感谢您的包容与理解！"
    doc = {"messages": [{"role": "user", "content": "帮我看看这封信有没有问题：\n\n" + letter},
                        {"role": "assistant", "content": letter.replace("10天", "10天才")},
                        {"role": "user", "content": "好的。"}]}
    r = annotate(load_conversation(json.dumps(doc, ensure_ascii=False)), env={}).at_ratio(0.95)
    assert r.messages[1].pruned == letter.replace("10天", "10天才")


def _block_texts() -> list[str]:
    """Every message text of the bundled corpus sample and the labeled set (zh and en)."""
    root = Path(__file__).resolve().parents[2] / "fixtures"
    texts = [m["content"] for line in (root / "corpus" / "sample.jsonl").read_text(encoding="utf-8").splitlines()
             for m in json.loads(line)["messages"] if isinstance(m.get("content"), str)]
    for path in sorted((root / "labeled").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            texts += [case.get("system") or ""] + [m["content"] for m in case["messages"]]
    return [t for t in texts if t.strip()]


def test_block_patterns_read_a_block_alone_as_in_the_view():
    # the cross-turn finders look these up by a block's text alone (find_material(reuse=True), the client): each must
    # find in the block at its offsets in a view — after the separator's "\n" — what it finds in the block's text
    from layerzero_viz import material
    texts = _block_texts() + ["客户说：", "The customer wrote:", "  keep the opening", "observation: ok", "逐字照读"]
    assert len(texts) > 500
    for pattern in material._BLOCK_PATTERNS:
        for seg in texts:
            view = "前文\n\x00\n" + seg + "\n\x00\nnext"
            s, e = 5, 5 + len(seg)
            assert (pattern.search(view, s, e) is None) == (pattern.search(seg) is None), (pattern.pattern[:40], seg)
            assert (pattern.match(view, s, e) is None) == (pattern.match(seg) is None), (pattern.pattern[:40], seg)


def test_cross_turn_finds_are_the_same_looked_up():
    # find_material(reuse=True) gives what it gives without the lookups, on chats whose cross-turn finds fire
    chats = [
        [("user", "客户问能不能货到付款，我们不支持。"), ("assistant", "您好，非常抱歉，我们目前暂不支持货到付款。")],
        [("user", "I'll paste reviews; for each, write a short reply."), ("assistant", "Sure."),
         ("user", "Great product, fast shipping."), ("assistant", "Thank you so much for your kind words!")],
        [("user", "It's my sister's wedding on Friday."), ("assistant", "To Anna and Ben: may your days be long."),
         ("user", "Keep the opening."), ("assistant", "To Anna and Ben: may your days be long and bright.")],
        [("user", "Can you check a message?"), ("assistant", "Sure, paste it."), ("user", "The customer wrote:"),
         ("assistant", "Go ahead."), ("user", "please hurry up, thanks")],
        [("user", "请原样保留这句：“欢迎光临”。"), ("assistant", "好的：欢迎光临")],
    ]
    details = set()
    for turns in chats:
        doc = json.dumps({"messages": [{"role": r, "content": c} for r, c in [*turns, ("user", "Thanks!")]]})
        view = TextView.of(load_conversation(doc))
        cold = find_material(view)
        assert find_material(view, reuse=True) == cold and find_material(view, reuse=True) == cold
        details |= {m.detail.split(" (")[0] for m in cold}
    assert {"kept: the reply to the question the turn before reports", "kept: a reply to the task set for each text",
            "kept: the text the turn after keeps part of"} <= details


def test_a_text_said_again_holds_its_material_at_each_place():
    # (a block's own material is found once per text in a conversation and shifted to each copy)
    letter = "Please fix this note:\n\nDear tenant,\nthe heating will be off on the 5th.\nRegards,\nMr Lee"
    doc = {"messages": [{"role": "user", "content": letter}, {"role": "assistant", "content": "Sure."},
                        {"role": "user", "content": "Thanks!"}, {"role": "assistant", "content": "Welcome."},
                        {"role": "user", "content": letter}]}
    view = TextView.of(load_conversation(json.dumps(doc)))
    found = [(m.start, m.end, m.kind) for m in find_material(view)]
    firsts = [view.text.index("Dear tenant"), view.text.rindex("Dear tenant")]
    assert len(found) == 2 and firsts[0] != firsts[1]
    assert sorted(start for start, _, _ in found) == firsts
    assert {view.text[s:e] for s, e, _ in found} == {letter[letter.index("Dear"):]}
