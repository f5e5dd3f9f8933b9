"""Fixes write back into the input's own format: ShareGPT, raw HTTP captures, system prompts made of blocks."""
from __future__ import annotations

import json

from layerzero_viz import load_conversation
from layerzero_viz.advisor import Fix, apply_fix, lint
from layerzero_viz.advisor.edits import apply
from layerzero_viz.formats import dump_conversation, dump_text


def test_sharegpt_gets_a_system_turn():
    doc = {"conversations": [{"from": "human", "value": "Hello, could you please check my order?"},
                             {"from": "gpt", "value": "Sure."}]}
    conv = load_conversation(json.dumps(doc).encode())
    fixed = apply(conv, Fix("declare", redundant_phrases=("Hello",)))
    assert fixed.format == "sharegpt"
    assert fixed.raw["conversations"][0] == {"from": "system", "value": '<redundant_phrases>["Hello"]</redundant_phrases>'}


def test_http_capture_keeps_its_request_line_and_recomputes_the_length():
    body = json.dumps({"model": "m", "system": "截至2024年10月1日的数据。", "messages": [{"role": "user", "content": "hi"}]},
                      ensure_ascii=False)
    capture = f"POST /v1/messages HTTP/1.1\r\nHost: api\r\nContent-Length: 1\r\n\r\n{body}"
    conv = load_conversation(capture.encode())
    fixed = apply_fix(conv, next(f for f in lint(conv) if f.code == "LZ110"))
    text = dump_text(fixed, dump_conversation(fixed))
    head, _, new_body = text.partition("\r\n\r\n")
    assert fixed.format == "http" and head.startswith("POST /v1/messages HTTP/1.1")
    assert f"Content-Length: {len(new_body.encode())}" in head and "<date_anchor>2024-10-01</date_anchor>" in new_body


def test_system_prompt_of_blocks_is_edited_in_its_first_text_block():
    doc = {"model": "m", "system": [{"type": "text", "text": "你是客服。"}, {"type": "text", "text": "回答要简短。"}],
           "messages": [{"role": "user", "content": "您好，请问订单到了吗？"}]}
    conv = load_conversation(json.dumps(doc, ensure_ascii=False).encode())
    fixed = apply_fix(conv, next(f for f in lint(conv) if f.code == "LZ191"))
    blocks = fixed.raw["system"]
    assert blocks[0]["text"].startswith("你是客服。\n<redundant_phrases>") and blocks[1]["text"] == "回答要简短。"


def test_existing_lists_are_merged_not_duplicated():
    conv = load_conversation(json.dumps({"system": '<redundant_phrases>["您好"]</redundant_phrases>',
                                         "messages": [{"role": "user", "content": "您好"}]}).encode())
    fixed = apply(conv, Fix("declare", redundant_phrases=("您好", "请问")))
    assert fixed.messages[0].text == '<redundant_phrases>["您好", "请问"]</redundant_phrases>'
