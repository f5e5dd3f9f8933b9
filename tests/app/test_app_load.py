"""The Load page: samples, paste, upload, format override, JSONL lines, and errors that keep what was loaded."""
from __future__ import annotations

import json
import sys

from apptools import ROOT, goto, metrics, new_app, no_exception, open_sample, paste

GOOD = json.dumps({"system": "你是税务顾问。", "messages": [{"role": "user", "content": "您好，请问个税怎么算？"}]},
                  ensure_ascii=False)


def test_first_run_without_a_conversation_opens_the_load_page_with_the_gallery():
    at = new_app()
    assert no_exception(at)
    assert at.button(key="open:finance_qa.zh.json")  # the sample gallery, not an empty heatmap
    assert not [i for i in at.info if "No conversation loaded" in i.value]
    assert at.slider[0].disabled


def test_another_page_without_a_conversation_points_to_the_load_page():
    at = goto(new_app(), "timing")
    assert no_exception(at)
    assert any("No conversation loaded" in i.value for i in at.info)


def test_gallery_lists_every_fixture_with_its_description():
    at = goto(new_app(), "load")
    assert at.button(key="open:finance_qa.zh.json")
    assert any("七日年化收益率4.2%" in c.value for c in at.caption)


def test_gallery_cards_come_row_by_row_in_the_gallery_order():
    # laid out in three tall columns, the cards' tops drifted apart and a phone (which stacks the columns) listed
    # them 1, 4, 7, 2, … (UX walkthrough)
    from layerzero_viz.appstate import read_gallery

    at = goto(new_app(), "load")
    shown = [b.key.removeprefix("open:") for b in at.button if (b.key or "").startswith("open:")]
    assert shown == [item.file for item in read_gallery(ROOT / "fixtures")] and len(shown) > 3


def test_opening_a_sample_lands_on_the_heatmap_with_metrics():
    at = goto(new_app(), "load")
    at.button(key="open:finance_qa.zh.json").click().run()
    assert no_exception(at)
    assert at.title[0].value == "Heatmap"
    assert at.session_state["source"].name == "finance_qa.zh.json"
    assert "Tokens before → after" in metrics(at)


def test_paste_invalid_json_shows_where_and_keeps_the_previous_conversation():
    at = open_sample(new_app(), "finance_qa.zh.json")
    before = metrics(at)
    at = paste(at, '{"messages": [}')
    assert no_exception(at)
    assert at.title[0].value == "Load a conversation"
    [error] = at.error
    assert "pasted:1:15" in error.value and "invalid JSON" in error.value
    assert "kept" in error.value
    assert at.session_state["source"].name == "finance_qa.zh.json"
    assert metrics(at) == before


def test_sidebar_counts_messages_as_the_gallery_card_does():
    # the card says "A 17-message hotel booking"; the sidebar had said "18 messages" (the system prompt counted)
    at = goto(new_app(), "load")
    assert any("A 17-message hotel booking" in c.value for c in at.caption)
    at = open_sample(new_app(), "vip_multiturn.zh.json").run()
    assert any("· 17 messages + system prompt" in c.value for c in at.sidebar.caption)


def test_paste_of_a_bare_json_value_is_an_error_not_a_prompt():
    at = paste(new_app(), "null")
    assert no_exception(at)
    assert "not a conversation" in at.error[0].value
    assert "source" not in at.session_state


def test_paste_with_a_wrong_shape_names_the_json_path():
    at = paste(new_app(), '{"messages": [{"role": "user"}]}')
    assert no_exception(at)
    assert "messages\\[0\\].content" in at.error[0].value  # Markdown-escaped brackets render as [0]
    assert "source" not in at.session_state


def test_empty_paste_says_what_to_do():
    at = paste(new_app(), "   ")
    assert no_exception(at)
    assert "empty" in at.error[0].value


def test_a_good_paste_after_an_error_clears_the_error():
    at = paste(new_app(), "{")
    assert at.error
    at = paste(at, GOOD)
    assert no_exception(at)
    assert at.title[0].value == "Heatmap"
    assert not at.error
    assert at.session_state["source"].format == "auto"


def test_format_override_reads_json_as_plain_text():
    at = paste(new_app(), GOOD, fmt="text")
    assert no_exception(at)
    goto(at, "side-by-side")
    assert any("#0 user" in m.value for m in at.main.markdown)  # one user message holding the JSON text


def test_upload_of_a_broken_file_names_the_file_and_line_and_keeps_the_previous():
    at = open_sample(new_app(), "support_chat.en.json")
    goto(at, "load")
    at.file_uploader(key="upload").upload("broken.json", b'{\n  "messages": [\n    {"role": "user",, }\n]}',
                                          "application/json").run()
    assert no_exception(at)
    assert "broken.json:3:" in at.error[0].value
    assert at.session_state["source"].name == "support_chat.en.json"


def test_an_ndjson_file_uploads_as_jsonl():
    # (second UX walkthrough: the browser refused .ndjson on the Load page, which History mining accepts)
    at = goto(new_app(), "load")
    uploader = at.file_uploader(key="upload")
    assert ".ndjson" in list(uploader.proto.type)
    lines = b'{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [{"role": "user", "content": "yo"}]}\n'
    uploader.upload("chats.ndjson", lines, "application/x-ndjson").run()
    assert no_exception(at)
    conv = at.session_state["source"].load()
    assert conv.jsonl_lines == 2 and conv.messages[0].text == "hi"


def test_upload_that_is_not_utf8_says_which_byte():
    at = goto(new_app(), "load")
    at.file_uploader(key="upload").upload("latin1.txt", "Grüße".encode("latin-1"), "text/plain").run()
    assert no_exception(at)
    assert "latin1.txt: byte 2" in at.error[0].value and "UTF-8" in at.error[0].value


def test_upload_of_a_raw_http_capture_reads_its_header_ratio():
    at = goto(new_app(), "load")
    data = (ROOT / "fixtures" / "capture.http").read_bytes()
    at.file_uploader(key="upload").upload("capture.http", data, "application/octet-stream").run()
    assert no_exception(at)
    assert at.title[0].value == "Heatmap"
    assert at.session_state["source"].name == "capture.http"
    assert at.slider[0].value == 0.32
    assert "X-Anthropic-Layer-Zero header" in " ".join(m.value for m in at.sidebar.markdown)


def test_jsonl_line_picker_loads_another_line():
    at = open_sample(new_app(), "batch_small.jsonl")
    goto(at, "load")
    picker = at.number_input(key="jsonl_line")
    assert picker.max == 5
    first = at.session_state["source"]
    picker.set_value(3).run()
    assert no_exception(at)
    source = at.session_state["source"]
    assert source.line == 3 and source.text == first.text
    assert "line 3 of 5" in " ".join(c.value for c in at.sidebar.caption)


def test_a_sharegpt_dataset_loads_and_its_picker_picks_a_record():
    # (second UX walkthrough: a JSON array of ShareGPT records, the usual dataset shape, could not be loaded)
    records = [{"id": str(k), "conversations": [{"from": "human", "value": f"Thanks! Where is order {k}?"},
                                                {"from": "gpt", "value": f"Order {k} ships today."}]}
               for k in range(1, 4)]
    at = paste(new_app(), json.dumps(records))
    assert no_exception(at) and not at.error
    assert at.session_state["source"].load().messages[0].text == "Thanks! Where is order 1?"
    goto(at, "load")
    picker = at.number_input(key="jsonl_line")
    assert picker.max == 3 and picker.label.startswith("JSON array record")
    picker.set_value(2).run()
    assert no_exception(at)
    assert at.session_state["source"].load().messages[0].text == "Thanks! Where is order 2?"
    assert "record 2 of 3" in " ".join(c.value for c in at.sidebar.caption)


def test_fixture_from_the_command_line_is_loaded_on_the_first_run(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["app.py", "--fixture", "fixtures/finance_qa.zh.json"])
    at = new_app()
    assert no_exception(at)
    assert at.title[0].value == "Heatmap"
    assert at.session_state["source"].name == "finance_qa.zh.json"


def test_missing_fixture_from_the_command_line_is_an_error_not_a_crash(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["app.py", "--fixture", "fixtures/nope.json"])
    at = new_app()
    assert no_exception(at)
    assert "nope.json" in at.error[0].value


def _tab_container(node):
    """The proto of the first tab container under ``node`` (its ``default_tab_index`` is the tab it opens on)."""
    proto = getattr(node, "proto", None)
    if proto is not None and "tab_container" in {f.name for f in proto.DESCRIPTOR.fields} \
            and proto.HasField("tab_container"):
        return proto.tab_container
    children = getattr(node, "children", None)
    for child in (children.values() if isinstance(children, dict) else ()):
        found = _tab_container(child)
        if found is not None:
            return found
    return None


def test_after_a_failed_load_the_page_opens_on_the_tab_the_input_came_from():
    # (a UX review: the error above the tabs made them new elements, which opened on Samples, hiding the pasted
    # text the user had to fix)
    at = paste(new_app(), '{"messages": [ broken')
    assert at.error and at.text_area(key="paste_text").value == '{"messages": [ broken'
    assert _tab_container(at._tree).default_tab_index == 1  # Paste
    at = goto(new_app(), "load")
    assert _tab_container(at._tree).default_tab_index == 0  # no error: Samples first


def test_a_failed_load_says_the_previous_conversation_is_kept_in_a_sentence_of_its_own():
    # (a UX review: "… at or just before this point) The conversation loaded before is kept.")
    at = paste(open_sample(new_app(), "finance_qa.zh.json").run(), '{"messages": [ broken')
    [error] = at.error
    assert "). The conversation loaded before is kept." in error.value, error.value
    assert at.session_state["source"].name == "finance_qa.zh.json"
