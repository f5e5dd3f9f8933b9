"""A browser reload keeps the loaded conversation: the URL carries ``?c=``, a token under which the server process
holds it in memory (``ui.cache.hold``); a page switch puts it back, a new load replaces a link's conversation."""
from __future__ import annotations

import json

from apptools import goto, new_app, no_exception, open_sample, paste

from layerzero_viz import share
from layerzero_viz.appstate import Source, ViewState, link_state

CHAT = json.dumps({"system": "你是网购平台客服。", "messages": [
    {"role": "user", "content": "您好，请问订单20240311001什么时候发货？谢谢！"}]}, ensure_ascii=False)


def _token(at) -> str:
    value = at.query_params.get("c")
    value = value[0] if isinstance(value, list) else value
    assert isinstance(value, str) and value, dict(at.query_params)
    return value


def test_a_pasted_conversation_survives_a_reload_on_the_page_it_was_on():
    at = paste(new_app(), CHAT).run()
    goto(at, "timing")
    token = _token(at)  # a page switch clears the query: the app puts ?c= back
    at.slider[0].set_value(0.5).run()

    again = new_app(c=token)  # a reload is a new session with the same URL
    assert no_exception(again)
    assert again.session_state["source"].text == CHAT
    assert again.session_state["source"].name == "pasted"
    assert _token(again) == token
    # the controls start afresh (a debug link keeps an exact view)
    assert again.session_state["ratio_touched"] is False
    assert not again.info


def test_a_sample_opened_from_the_gallery_survives_a_reload():
    at = open_sample(new_app(), "support_chat.en.json").run()
    again = new_app(c=_token(at))
    assert again.session_state["source"].name == "support_chat.en.json"


def test_a_conversation_the_server_no_longer_holds_says_so_and_the_app_still_works():
    at = new_app(c="0123456789abcdef")
    assert no_exception(at)
    assert "source" not in at.session_state or at.session_state["source"] is None
    assert any("no longer held by the app" in i.value for i in at.info)
    at = paste(at, CHAT).run()  # loading one clears the notice
    assert at.session_state["source"].text == CHAT
    assert not any("no longer held" in i.value for i in at.info)


def test_a_new_load_after_a_link_takes_the_link_out_of_the_url():
    # otherwise a reload would reopen the link's conversation instead of the one on screen
    token = share.encode_state(link_state(ViewState(page="heatmap", source=Source(CHAT, name="linked.json"))))
    at = new_app(s=token)
    assert at.session_state["source"].name == "linked.json"
    at = paste(at, CHAT.replace("20240311001", "20240311002")).run()
    assert "s" not in at.query_params
    again = new_app(c=_token(at))
    assert "20240311002" in again.session_state["source"].text
