"""Behaviour of layerzero_viz.formats: loading every input format, detection, dumping back, and errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layerzero_viz.errors import InputError
from layerzero_viz.formats import (
    FORMATS,
    Headers,
    conversation_from_json,
    detect_format,
    dump_conversation,
    dump_text,
    iter_conversations,
    load_conversation,
)
from layerzero_viz.model import Block, Conversation

DATA = Path(__file__).parent / "data" / "formats"
CORPUS = Path(__file__).parents[2] / "shared" / "corpus"


def load_error(source, format: str = "auto", **kwargs) -> InputError:
    """The InputError that loading ``source`` raises."""
    with pytest.raises(InputError) as info:
        load_conversation(source, format, **kwargs)
    return info.value


def block_summary(conv: Conversation) -> list[tuple]:
    """(key, role, [(index, kind, type, path, text)]) per message, for comparing whole structures."""
    return [
        (m.key, m.role, [(b.index, b.kind, b.type, b.path, b.text) for b in m.blocks]) for m in conv.messages
    ]


# ------------------------------------------------------------------------------------------------ loading


def test_anthropic_request_keeps_system_blocks_paths_and_opaque_blocks():
    conv = load_conversation(DATA / "anthropic.json")

    assert conv.format == "anthropic"
    assert conv.source_name == "anthropic.json"
    assert block_summary(conv) == [
        ("system", "system", [
            (0, "text", "text", ("system", 0, "text"), "你是一名电商客服。请务必礼貌。"),
            (1, "text", "text", ("system", 1, "text"), "Answer in Chinese."),
        ]),
        (0, "user", [
            (0, "text", "text", ("messages", 0, "content"), "您好，请问订单 #12345 的 SKU-12345 什么时候发货？"),
        ]),
        (1, "assistant", [
            (0, "text", "text", ("messages", 1, "content", 0, "text"), "我来查一下。"),
            (1, "opaque", "tool_use", ("messages", 1, "content", 1), ""),
        ]),
        (2, "user", [
            (0, "text", "tool_result", ("messages", 2, "content", 0, "content"), "shipped 2024-06-01"),
            (1, "text", "tool_result", ("messages", 2, "content", 1, "content", 0, "text"), "carrier: SF Express"),
            (2, "opaque", "image", ("messages", 2, "content", 1, "content", 1), ""),
            (3, "text", "text", ("messages", 2, "content", 2, "text"), "麻烦再确认一下地址。"),
        ]),
    ]
    assert conv.system is conv.messages[0]
    assert conv.raw["metadata"] == {"user_id": "u-42"}  # keys we do not read are kept


def test_anthropic_string_system_and_empty_tool_result():
    conv = load_conversation(json.dumps({
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}],
    }))

    assert block_summary(conv) == [
        ("system", "system", [(0, "text", "text", ("system",), "Be brief.")]),
        (0, "user", [(0, "opaque", "tool_result", ("messages", 0, "content", 0), "")]),
    ]


def test_openai_request_reads_parts_and_tool_call_without_content():
    conv = load_conversation(DATA / "openai.json")

    assert conv.format == "openai"
    assert block_summary(conv) == [
        (0, "system", [(0, "text", "text", ("messages", 0, "content"), "You are a physics teacher. Use analogies.")]),
        (1, "user", [
            (0, "text", "text", ("messages", 1, "content", 0, "text"), "Could you kindly explain this diagram?"),
            (1, "opaque", "image_url", ("messages", 1, "content", 1), ""),
        ]),
        (2, "assistant", [(0, "opaque", "tool_call", ("messages", 2, "tool_calls", 0), "")]),  # shown, untouched
        (3, "tool", [(0, "text", "text", ("messages", 3, "content"), "Ohm's law: V = I R")]),
        (4, "assistant", [(0, "text", "text", ("messages", 4, "content"), "Think of voltage as water pressure.")]),
    ]
    assert conv.system is conv.messages[0]


def test_openai_bare_message_list_has_paths_from_the_root():
    conv = load_conversation('[{"role": "developer", "content": "Be terse."}, {"role": "user", "content": "hi"}]')

    assert conv.format == "openai"
    assert [(m.key, m.role, m.blocks[0].path) for m in conv.messages] == [
        (0, "developer", (0, "content")),
        (1, "user", (1, "content")),
    ]


def test_sharegpt_maps_speakers_to_roles():
    conv = load_conversation(DATA / "sharegpt.json")

    assert conv.format == "sharegpt"
    assert [(m.key, m.role, m.blocks[0].path, m.text) for m in conv.messages] == [
        (0, "system", ("conversations", 0, "value"), "你是一名税务顾问。"),
        (1, "user", ("conversations", 1, "value"), "作为税务顾问，请问个税怎么申报？"),
        (2, "assistant", ("conversations", 2, "value"), "可以通过个人所得税App申报。"),
    ]


def test_http_capture_reads_request_line_headers_and_body():
    conv = load_conversation(DATA / "capture.http")

    assert conv.format == "http"
    assert conv.http_request_line == "POST /v1/messages HTTP/1.1"
    assert conv.headers["x-anthropic-layer-zero"] == "prune_ratio=0.3"  # lookups ignore case
    assert conv.headers["Content-Type"] == "application/json"
    assert list(conv.headers)[:2] == ["Host", "content-type"]  # names keep the capture's case
    assert [(m.key, m.role, m.blocks[0].path) for m in conv.messages] == [
        ("system", "system", ("system",)),
        (0, "user", ("messages", 0, "content")),
    ]
    assert conv.raw["max_tokens"] == 256


def test_http_capture_with_crlf_and_openai_endpoint():
    capture = (
        "POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer test\r\n\r\n"
        '{"messages": [{"role": "user", "content": "hi"}]}'
    )
    conv = load_conversation(capture)

    assert conv.format == "http"
    assert conv.headers == {"Authorization": "Bearer test"}
    assert [(m.role, m.text) for m in conv.messages] == [("user", "hi")]


def test_plain_text_is_one_user_message():
    conv = load_conversation(DATA / "prompt.txt")

    assert conv.format == "text"
    assert block_summary(conv) == [(0, "user", [(0, "text", "text", (), conv.raw)])]
    assert conv.raw.startswith("请务必用中文回答")


def test_existing_str_path_is_read_as_a_file_and_other_str_is_content(monkeypatch):
    monkeypatch.chdir(DATA)

    assert load_conversation("sharegpt.json").format == "sharegpt"
    assert load_conversation("no-such-file.json").raw == "no-such-file.json"


def test_name_replaces_the_file_name_in_locations():
    conv = load_conversation(DATA / "prompt.txt", name="pasted")
    assert conv.source_name == "pasted"
    assert load_error("[1,", name="pasted").location == "pasted:1:4"


@pytest.mark.parametrize("source", [
    b'\xef\xbb\xbf{"messages": [{"role": "user", "content": "hi"}]}',
    '\ufeff{"messages": [{"role": "user", "content": "hi"}]}',
])
def test_utf8_byte_order_mark_is_accepted(source):
    conv = load_conversation(source)
    assert (conv.format, conv.messages[0].text) == ("anthropic", "hi")


def test_empty_system_prompt_is_kept_for_round_trips():
    conv = load_conversation('{"system": "", "messages": [{"role": "user", "content": "hi"}]}')
    assert block_summary(conv)[0] == ("system", "system", [(0, "text", "text", ("system",), "")])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not checked out next to the repo")
def test_every_corpus_record_loads_as_anthropic():
    files = sorted(CORPUS.glob("*.jsonl"))
    assert files
    for path in files:
        count = 0
        for number, conv in iter_conversations(path):
            assert not isinstance(conv, InputError), f"{path.name}:{number}: {conv}"
            assert conv.format == "anthropic"
            assert conv.raw["source"]  # the corpus's own keys are kept
            count += 1
        assert count == conv.jsonl_lines


# --------------------------------------------------------------------------------------- detection


@pytest.mark.parametrize("text, expected", [
    ('{"messages": [{"role": "user", "content": "hi"}]}', "anthropic"),
    ('{"system": "s", "messages": []}', "anthropic"),
    ('{"messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]}', "anthropic"),
    ('{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}]}', "anthropic"),
    ('{"messages": [{"role": "system", "content": "s"}]}', "openai"),
    ('{"messages": [{"role": "tool", "content": "42"}]}', "openai"),
    ('{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}', "openai"),
    ('[{"role": "user", "content": "hi"}]', "openai"),
    ('{"conversations": [{"from": "human", "value": "hi"}]}', "sharegpt"),
    ('{"a": 1}\n\n{"b": 2}\n', "jsonl"),
    ('{"a": 1}\n{"b": ', "jsonl"),
    ("POST /v1/messages HTTP/1.1\nHost: x\n\n{}", "http"),
    ("Hello, world", "text"),
    ("42 apples", "text"),
    ("null pointer?", "text"),
])
def test_detect_format(text, expected):
    assert detect_format(text) == expected


@pytest.mark.parametrize("text", ["42", "null", '"hi"'])
def test_detect_format_refuses_one_json_value_that_is_no_container(text):
    with pytest.raises(InputError, match="not a conversation"):
        detect_format(text)


def test_detect_format_refuses_broken_json_that_is_not_jsonl():
    with pytest.raises(InputError) as info:
        detect_format('{\n  "messages": [\n    {"role": "user", "content": "hi"},,\n  ]\n}')
    assert info.value.location == "<input>:3:39"  # the second comma


def test_broken_json_is_an_error_not_text_unless_text_is_forced():
    assert load_error('{"messages": [}').location == "<input>:1:15"
    conv = load_conversation('{"messages": [}', "text")
    assert (conv.format, conv.raw) == ("text", '{"messages": [}')


def test_forced_format_overrides_detection():
    doc = '{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}'
    assert load_conversation(doc).format == "openai"
    assert load_conversation(doc, "anthropic").messages[0].blocks[0].type == "image_url"
    assert load_conversation(DATA / "anthropic.json", "text").format == "text"
    assert load_error(DATA / "prompt.txt", "anthropic").location == "prompt.txt:1:1"
    assert load_error(DATA / "prompt.txt", "http").location == "prompt.txt:1:1"


# -------------------------------------------------------------------------------------------------- JSONL


def test_jsonl_defaults_to_line_one_and_each_line_has_its_own_format():
    first = load_conversation(DATA / "batch.jsonl")
    third = load_conversation(DATA / "batch.jsonl", line=3)
    fourth = load_conversation(DATA / "batch.jsonl", "jsonl", line=4)

    assert (first.format, first.jsonl_line, first.jsonl_lines) == ("anthropic", 1, 6)
    assert (third.format, third.jsonl_line, third.messages[0].role) == ("openai", 3, "system")
    assert (fourth.format, fourth.messages[1].text) == ("sharegpt", "您好！")


@pytest.mark.parametrize("line, location, message", [
    (7, "batch.jsonl", "line 7 is out of range: the input has 6 lines"),
    (0, "batch.jsonl", "line 0 is out of range: the input has 6 lines"),
    (2, "batch.jsonl:2", "line 2 is blank"),
    (5, "batch.jsonl:5:43", "invalid JSON: Unterminated string starting at"),
    (6, "batch.jsonl:6: messages[0].role", "unknown role 'robot'"),
])
def test_jsonl_line_errors_name_the_file_line(line, location, message):
    error = load_error(DATA / "batch.jsonl", line=line)
    assert error.location == location
    assert error.message.startswith(message)


def test_line_is_refused_for_input_that_is_not_jsonl():
    error = load_error(DATA / "openai.json", line=2)
    assert error.location == "openai.json"
    assert "not JSONL" in error.message


def test_jsonl_lines_split_on_newlines_only():
    # U+2028 is a line break for str.splitlines() but may stand raw inside a JSON string.
    text = '{"messages": [{"role": "user", "content": "a\u2028b"}]}\n{"messages": [{"role": "user", "content": "c"}]}'
    conv = load_conversation(text, line=2)
    assert (conv.messages[0].text, conv.jsonl_lines) == ("c", 2)


# ---------------------------------------------------------------------------------------- iter_conversations


def summarise(items) -> list[tuple[int, str]]:
    """(line, format or error location) per yielded item."""
    return [(n, c.location if isinstance(c, InputError) else c.format) for n, c in items]


EXPECTED_BATCH = [
    (1, "anthropic"),
    (3, "openai"),
    (4, "sharegpt"),
    (5, "batch.jsonl:5:43"),
    (6, "batch.jsonl:6: messages[0].role"),
]


def test_iter_conversations_streams_a_jsonl_file_and_yields_errors_per_line():
    items = list(iter_conversations(DATA / "batch.jsonl"))
    assert summarise(items) == EXPECTED_BATCH
    assert {c.jsonl_lines for _, c in items if isinstance(c, Conversation)} == {6}


def test_iter_conversations_reads_jsonl_content_the_same_way():
    items = iter_conversations((DATA / "batch.jsonl").read_bytes(), name="batch.jsonl")
    assert summarise(items) == EXPECTED_BATCH


def test_iter_conversations_yields_one_item_for_other_input():
    assert summarise(iter_conversations(DATA / "openai.json")) == [(1, "openai")]
    assert summarise(iter_conversations("[1,")) == [(1, "<input>:1:4")]


def test_iter_conversations_raises_for_a_bad_format_name_at_once():
    with pytest.raises(InputError) as info:
        iter_conversations(DATA / "batch.jsonl", "csv")
    assert info.value.location == "format"


def test_streamed_jsonl_file_may_exceed_max_bytes_but_each_line_may_not(tmp_path):
    line = json.dumps({"messages": [{"role": "user", "content": "x" * 40}]})
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join([line] * 50 + [line.replace("x" * 40, "y" * 400)] + [line]) + "\n")

    items = list(iter_conversations(path, max_bytes=200))

    assert len(items) == 52
    assert [n for n, c in items if isinstance(c, InputError)] == [51]
    assert items[50][1].location == "big.jsonl:51"
    assert items[51][1].messages[0].text == "x" * 40  # reading resumes on the next line
    assert load_error(path, max_bytes=200).location == "big.jsonl"  # loading one conversation reads it whole


def test_streamed_jsonl_reports_a_bad_byte_by_its_file_offset(tmp_path):
    first = b'{"messages": [{"role": "user", "content": "ok"}]}\n'
    path = tmp_path / "mixed.jsonl"
    second = b'{"messages": [{"role": "user", "content": "caf\xe9"}]}\n'
    path.write_bytes(first + second)

    items = list(iter_conversations(path))

    assert isinstance(items[0][1], Conversation)
    error = items[1][1]
    bad_byte = len(first) + second.index(b"\xe9")
    assert (items[1][0], error.location) == (2, f"mixed.jsonl: byte {bad_byte}")


# ------------------------------------------------------------------------------------------------ dumping


FIXTURES = ["anthropic.json", "openai.json", "sharegpt.json", "capture.http", "prompt.txt", "batch.jsonl"]


@pytest.mark.parametrize("fixture", FIXTURES)
def test_dump_without_replacements_is_an_independent_copy_of_the_input(fixture):
    conv = load_conversation(DATA / fixture)
    dumped = dump_conversation(conv)

    assert dumped == conv.raw
    if isinstance(dumped, dict):
        dumped["messages" if "messages" in dumped else "conversations"].clear()
        assert conv.raw != dumped


@pytest.mark.parametrize("fixture", FIXTURES)
def test_dump_replaces_exactly_the_given_path(fixture):
    conv = load_conversation(DATA / fixture)
    block = [b for m in conv.messages for b in m.blocks if b.kind == "text"][-1]

    dumped = dump_conversation(conv, {block.path: "PRUNED"})
    reloaded = load_conversation(dump_text(conv, dumped), conv.format if conv.format == "text" else "auto")

    changed = [(b.path, b.text) for m in reloaded.messages for b in m.blocks]
    original = [(b.path, b.text) for m in conv.messages for b in m.blocks]
    assert [(p, t) for (p, t), (_, o) in zip(changed, original) if t != o] == [(block.path, "PRUNED")]
    assert len(changed) == len(original)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_dump_text_reloads_to_an_equal_conversation(fixture):
    conv = load_conversation(DATA / fixture)
    text = dump_text(conv, dump_conversation(conv))
    reloaded = load_conversation(text, conv.format if conv.format == "text" else "auto")

    assert reloaded.format == conv.format
    assert reloaded.messages == conv.messages
    assert reloaded.raw == conv.raw
    assert reloaded.headers == conv.headers or conv.format == "http"


def test_dump_text_of_a_jsonl_line_is_one_line_and_keeps_unicode():
    conv = load_conversation(DATA / "batch.jsonl", line=4)
    text = dump_text(conv, dump_conversation(conv))
    assert "\n" not in text
    assert "您好！" in text


def test_dump_text_of_http_recomputes_content_length():
    conv = load_conversation(DATA / "capture.http")
    text = dump_text(conv, dump_conversation(conv, {("messages", 0, "content"): "咨询社保。"}))
    head, body = text.split("\r\n\r\n", 1)

    assert head.split("\r\n")[0] == "POST /v1/messages HTTP/1.1"
    assert f"Content-Length: {len(body.encode())}" in head.split("\r\n")
    assert "X-Anthropic-Layer-Zero: prune_ratio=0.3" in head.split("\r\n")
    assert json.loads(body)["messages"][0]["content"] == "咨询社保。"


def test_dump_of_text_input_is_the_replacement_string():
    conv = load_conversation("Please, kindly, answer.")
    assert dump_conversation(conv, {(): "Answer."}) == "Answer."
    assert dump_text(conv, "Answer.") == "Answer."


def test_dump_refuses_paths_that_are_not_text_blocks():
    conv = load_conversation(DATA / "anthropic.json")
    with pytest.raises(ValueError, match=r"messages\[1\]\.content\[1\]"):
        dump_conversation(conv, {("messages", 1, "content", 1): "x"})


def test_dump_copies_documents_nested_near_the_json_limit():
    deep: object = "leaf"
    for _ in range(900):
        deep = [deep]
    doc = {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "input": {"x": deep}}]}]}
    conv = load_conversation(json.dumps(doc))
    assert dump_conversation(conv) == doc


# ------------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize("source, location, message", [
    ("", "<input>", "the input is empty"),
    (" \n\t", "<input>", "the input is empty"),
    ("[]", "<input>", "the conversation is empty"),
    # one JSON value that is no container: what a JSON tool prints when it found nothing, not a prompt
    ("null", "<input>", "the input is the JSON value null, not a conversation"),
    (" false\n", "<input>", "the input is the JSON value false, not a conversation"),
    ("-4.2e3", "<input>", "the input is the JSON value -4.2e3, not a conversation"),
    ('"Summarise this."', "<input>", "the input is one JSON string, not a conversation"),
    ('{"system": "", "messages": []}', "<input>", "the conversation is empty"),
    ('[{"role": "developer", "content": ""}]', "<input>", "the conversation is empty"),
    ('{"model": "m"}', "<input>: messages", '"messages" is missing'),
    ('{"messages": {}}', "<input>: messages", '"messages" must be a list, got object'),
    ('{"messages": [3]}', "<input>: messages[0]", "expected a JSON object, got number"),
    ('{"messages": [{"content": "x"}]}', "<input>: messages[0].role", '"role" is missing'),
    ('{"messages": [{"role": "bot", "content": "x"}]}', "<input>: messages[0].role", "unknown role 'bot'"),
    ('{"messages": [{"role": ["user"], "content": "x"}]}', "<input>: messages[0].role",
     '"role" must be a string, got array'),
    ('{"messages": [{"role": "user"}]}', "<input>: messages[0].content", "content is missing"),
    ('{"messages": [{"role": "user", "content": 7}]}', "<input>: messages[0].content",
     "content must be a string or a list of blocks, got number"),
    ('[{"role": "user", "content": null}]', "<input>: [0].content",
     "content must be a string or a list of blocks, got null"),
    ('{"messages": [{"role": "user", "content": [{"text": "x"}]}]}', "<input>: messages[0].content[0].type",
     'content block has no string "type"'),
    ('{"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": [{"type": "text", "text": 5}]}]}',
     "<input>: messages[1].content[0].text", "text must be a string, got number"),
    ('{"messages": [{"role": "user", "content": [{"type": "tool_result", "content": 1}]}]}',
     "<input>: messages[0].content[0].content", "content must be a string or a list of blocks"),
    ('{"conversations": [{"from": "wizard", "value": "x"}]}', "<input>: conversations[0].from", "unknown role"),
    ('{"conversations": [{"from": "human", "value": ["x"]}]}', "<input>: conversations[0].value",
     "value must be a string, got array"),
    ("[" * 5000, "<input>", "invalid JSON: nested too deeply"),
    ("[" + "1" * 5000 + "]", "<input>", "invalid JSON: Exceeds the limit"),
    ("POST /v1/messages HTTP/1.1\nHost: x\n", "<input>:3", "the HTTP request has no body"),
    ("POST /v1/messages HTTP/1.1\nno colon here\n\n{}", "<input>:2", "malformed header line"),
    ('POST /v1/messages HTTP/1.1\nHost: x\n\n{"messages": [}', "<input>:4:15", "invalid JSON: Expecting value"),
    (b"caf\xc3\xa9 \xff", "<input>: byte 6", "not valid UTF-8: byte 0xff"),
])
def test_input_errors_say_where(source, location, message):
    error = load_error(source)
    assert error.location == location
    assert error.message.startswith(message)
    assert error.hint


@pytest.mark.parametrize("format", ["anthropic", "openai", "sharegpt"])
@pytest.mark.parametrize("doc", ["null", "3", '"s"', "true"])
def test_forced_json_format_refuses_a_scalar_document(format, doc):
    assert load_error(doc, format).location == "<input>: $"


def test_unknown_role_lists_the_allowed_ones():
    error = load_error('{"messages": [{"role": "bot", "content": "x"}]}')
    assert error.hint == "use one of: user, assistant"


def test_utf16_file_gets_a_hint(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("hello", encoding="utf-16")
    error = load_error(path)
    assert (error.location, "UTF-16" in error.hint) == ("chat.txt: byte 0", True)


def test_missing_file_and_directory_are_input_errors(tmp_path):
    assert load_error(tmp_path / "nope.json").message == "file not found"
    assert load_error(tmp_path / "nope.json").location == str(tmp_path / "nope.json")
    assert load_error(tmp_path).message == "is a directory, not a file"


def test_unknown_format_name_lists_the_known_ones():
    error = load_error("hi", "xml")
    assert error.location == "format"
    assert all(name in error.hint for name in FORMATS)


def test_max_bytes_is_checked_before_a_file_is_read(tmp_path):
    path = tmp_path / "huge.json"
    with path.open("wb") as f:
        f.truncate(10**7)

    error = load_error(path, max_bytes=1000)

    # The exact size can only come from stat: a read never takes more than max_bytes + 1 bytes.
    assert error.location == "huge.json"
    assert error.message == "input is larger than the limit of 1,000 bytes (10,000,000 bytes)"
    assert "max_bytes=" in error.hint


@pytest.mark.parametrize("source", ["x" * 101, b"x" * 101, "é" * 51])
def test_max_bytes_applies_to_content_in_utf8_bytes(source):
    assert load_error(source, max_bytes=100).message.startswith("input is larger than the limit of 100 bytes")


def test_content_at_the_limit_is_accepted():
    assert load_conversation("é" * 50, max_bytes=100).raw == "é" * 50


def test_headers_compare_like_a_dict_and_ignore_case_on_lookup():
    headers = Headers([("X-A", "1"), ("x-a", "2"), ("B", "3")])
    assert headers == {"X-A": "1, 2", "B": "3"}
    assert "x-A" in headers and 5 not in headers
    assert headers.get("b") == "3"


# ------------------------------------------------------------------------------------------- properties


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
# Values shaped like conversations, so the property reaches the message and block readers too.
roles = st.sampled_from(["user", "assistant", "system", "tool", "human", "gpt", "bot"]) | json_values
blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "tool_result", "image_url"]) | json_values},
    optional={"text": json_values, "content": json_values | st.text(), "source": json_values},
)
messages = st.fixed_dictionaries(
    {"role": roles}, optional={"content": st.text() | st.lists(blocks, max_size=3) | json_values}
)
documents = st.one_of(
    json_values,
    st.lists(messages, max_size=3),
    st.fixed_dictionaries(
        {"messages": st.lists(messages, max_size=3) | json_values},
        optional={"system": st.text() | st.lists(blocks, max_size=2) | json_values},
    ),
    st.fixed_dictionaries(
        {"conversations": st.lists(st.fixed_dictionaries({"from": roles, "value": json_values | st.text()}))}
    ),
)


def load_or_input_error(source, format: str = "auto") -> None:
    """Load ``source``; only InputError may escape, and a success must be dumpable."""
    try:
        conv = load_conversation(source, format)
    except InputError:
        return
    dump_text(conv, dump_conversation(conv))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.sampled_from(["auto", "anthropic", "openai", "sharegpt", "jsonl"]))
def test_any_json_value_loads_or_raises_input_error(doc, format):
    load_or_input_error(json.dumps(doc, ensure_ascii=False), format)


@settings(max_examples=200)
@given(st.lists(documents, min_size=1, max_size=4))
def test_any_jsonl_or_http_body_loads_or_raises_input_error(docs):
    lines = "\n".join(json.dumps(d) for d in docs)
    for item in iter_conversations(lines.encode()):
        assert isinstance(item[1], (Conversation, InputError))
    load_or_input_error("POST /v1/messages HTTP/1.1\nHost: x\n\n" + json.dumps(docs[0]))


@settings(max_examples=300)
@given(st.text() | st.binary(), st.sampled_from(["auto", *FORMATS]))
def test_any_text_or_bytes_loads_or_raises_input_error(source, format):
    load_or_input_error(source, format)


def _names_a_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


# (a string naming an existing file is read as that file — Hypothesis once drew "/proc/self/status")
@given(st.text(min_size=1).filter(lambda t: t.removeprefix("\ufeff").strip() and not _names_a_file(t)))
def test_text_that_is_not_json_round_trips_as_text(text):
    conv = load_conversation(text, "text")
    assert conv.messages[0].blocks == (Block(0, "text", text.removeprefix("\ufeff"), ()),)
    assert dump_text(conv, dump_conversation(conv)) == conv.raw


@pytest.mark.parametrize("source, location", [
    (b'{"messages": [{"role": "user", "content": "fee \\ud800 due"}]}', "messages[0].content"),
    (b'{"system": [{"type": "text", "text": "ok"}, {"type": "text", "text": "\\udfff"}], "messages": []}',
     "system[1].text"),
    ("plain text with \ud800 in it", "$"),
])
def test_lone_surrogate_is_a_located_input_error(source, location):
    # JSON can spell a lone surrogate; it is no character, and the tokenizer cannot encode it
    with pytest.raises(InputError) as info:
        load_conversation(source)
    assert location in str(info.value) and "surrogate" in str(info.value)


def test_surrogate_pair_is_one_character():
    conv = load_conversation(b'{"messages": [{"role": "user", "content": "ok \\ud83d\\ude00"}]}')
    assert conv.messages[0].text == "ok \U0001F600"


@pytest.mark.parametrize("text", ['"Translate" this "text"', '"unterminated', "2024 budget review", "null pointer?"])
def test_text_that_only_looks_like_a_json_value_is_a_plain_text_prompt(text):
    conv = load_conversation(text)
    assert conv.format == "text" and conv.messages[0].text == text


def test_an_anthropic_request_read_as_openai_is_an_error_not_a_dropped_system_prompt():
    # (second UX walkthrough: the format override "openai" on an Anthropic request counted 239 tokens instead of
    # 335, the system prompt gone without a word)
    body = json.dumps({"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]})
    with pytest.raises(InputError) as info:
        load_conversation(body, format="openai")
    assert info.value.location == "<input>: system" and "choose the anthropic format" in info.value.hint
    assert load_conversation(body).format == "anthropic"  # auto still reads it


@pytest.mark.parametrize("fmt", ["auto", "sharegpt"])
def test_a_json_array_of_conversations_loads_record_by_record(fmt):
    # (second UX walkthrough: a ShareGPT dataset, the usual shape, failed with "[0].role: "role" is missing")
    doc = [{"id": "a", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]},
           {"id": "b", "conversations": [{"from": "human", "value": "x"}]}]
    first = load_conversation(json.dumps(doc), format=fmt)
    assert (first.format, first.jsonl_line, first.jsonl_lines, first.messages[1].text) == ("sharegpt", 1, 2, "hello")
    second = load_conversation(json.dumps(doc), line=2)
    assert second.messages[0].text == "x" and second.raw == doc[1]
    assert [n for n, _ in iter_conversations(json.dumps(doc))] == [1, 2]
    with pytest.raises(InputError, match="record 3 is out of range") as info:
        load_conversation(json.dumps(doc), line=3)
    assert "pick a record from 1 to 2" in info.value.hint
    doc[1]["conversations"][0]["from"] = "wizard"  # an error says which record
    with pytest.raises(InputError) as info:
        load_conversation(json.dumps(doc), line=2)
    assert info.value.location == "<input>: [1]: conversations[0].from"
    # a plain list of OpenAI messages is still one conversation
    assert load_conversation(json.dumps([{"role": "user", "content": "hi"}])).format == "openai"
    # a request body holds one conversation: an array there is still an error that says so
    with pytest.raises(InputError, match="a JSON array of 2 conversations"):
        conversation_from_json(doc)
