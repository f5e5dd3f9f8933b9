"""Debug links: a link made in the app reopens the same view; broken links are errors, never crashes."""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from apptools import ROOT, goto, metrics, new_app, no_exception, open_sample, paste

from layerzero_viz import share
from layerzero_viz.appstate import Source, ViewState, link_state


def copy_debug_link(at) -> str:
    at.sidebar.button(key="debug_link").click().run()
    [code] = at.sidebar.code
    return code.value


def test_copied_link_reopens_the_same_page_conversation_ratio_and_view():
    at = open_sample(new_app(), "vip_multiturn.zh.json").run()
    at.slider[0].set_value(0.1).run()
    at.toggle(key="show_whitespace").set_value(True).run()
    at.selectbox(key="message").set_value(4).run()
    goto(at, "side-by-side")
    link = copy_debug_link(at)
    url = urlparse(link)
    assert url.scheme == "http" and url.path == "/side-by-side"
    token = parse_qs(url.query)["s"][0]

    again = new_app(s=token)
    assert no_exception(again)
    assert again.title[0].value == "Side by side"
    assert again.slider[0].value == 0.1 and again.session_state["ratio_touched"] is True
    assert again.session_state["source"].text == at.session_state["source"].text
    assert again.session_state["source"].name == "vip_multiturn.zh.json"
    assert again.session_state["show_whitespace"] is True
    assert again.session_state["message"] == 4
    assert metrics(again) == metrics(at)


def test_link_of_the_heatmap_opens_at_the_app_root_with_its_page_number():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.segmented_control(key="heatmap_view").set_value("overview").run()
    link = copy_debug_link(at)
    assert urlparse(link).path == "/"
    again = new_app(s=parse_qs(urlparse(link).query)["s"][0])
    assert again.title[0].value == "Heatmap"
    assert again.session_state["heatmap_view"] == "overview"
    assert again.session_state["ratio_touched"] is False  # the directive's ratio, as before
    assert again.slider[0].value == 0.35


def test_link_made_from_a_state_restores_ratio_and_conversation():
    text = (ROOT / "fixtures" / "tax_advisor.zh.json").read_text(encoding="utf-8")
    state = link_state(ViewState(page="timing", source=Source(text, name="tax.json"), ratio=0.2,
                                 low_information=False))
    at = new_app(s=share.encode_state(state))
    assert no_exception(at)
    assert at.title[0].value == "Timing"
    assert at.slider[0].value == 0.2
    assert at.session_state["low_information"] is False
    assert at.session_state["source"].text == text
    assert "from the slider" in " ".join(m.value for m in at.sidebar.markdown)


def test_a_long_conversation_goes_through_the_share_store():
    text = (ROOT / "fixtures" / "vip_multiturn.zh.json").read_text(encoding="utf-8")
    padded = text.replace("我是VIP客户", "我是VIP客户" + "".join(f"（备注{n}）" for n in range(3000)), 1)
    state = link_state(ViewState(page="sweep", source=Source(padded, name="long.json"), ratio=0.4))
    link = share.make_link(state, base_url="http://127.0.0.1:8501", page="sweep")
    assert "?share=" in link
    at = new_app(share=parse_qs(urlparse(link).query)["share"][0])
    assert no_exception(at)
    assert at.title[0].value == "Ratio sweep"
    assert at.session_state["source"].text == padded and at.slider[0].value == 0.4


def test_secrets_never_reach_the_link():
    capture = (ROOT / "fixtures" / "capture.http").read_text(encoding="utf-8")
    secret = "sk-ant-api03-" + "A" * 40
    text = capture.replace("Host:", f"x-api-key: {secret}\nHost:", 1)
    at = paste(new_app(), text)
    at.switch_page("app_pages/heatmap.py")
    link = copy_debug_link(at.run())
    state = share.decode_state(parse_qs(urlparse(link).query)["s"][0])
    assert secret not in state["conversation"] and "[REDACTED]" in state["conversation"]


def test_a_broken_link_shows_why_and_the_app_still_works():
    at = new_app(s="not-a-link!")
    assert no_exception(at)
    assert "cannot appear in one" in at.error[0].value
    at = open_sample(at, "finance_qa.zh.json").run()
    assert no_exception(at)
    assert at.session_state["source"].name == "finance_qa.zh.json"


def test_a_damaged_link_keeps_the_conversation_that_was_loaded():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.query_params["s"] = "eJwrSS0uAQAEXQHB"  # zlib of "test": not JSON
    at.run()
    assert no_exception(at)
    assert "damaged" in at.error[0].value
    assert at.session_state["source"].name == "finance_qa.zh.json"


def test_an_unknown_share_id_is_an_error():
    at = new_app(share="0123456789abcdef")
    assert no_exception(at)
    assert "Unknown share id" in at.error[0].value


def test_a_link_whose_conversation_cannot_be_read_says_so():
    state = link_state(ViewState(source=Source('{"messages": [}', name="bad.json")))
    at = new_app(s=share.encode_state(state))
    assert no_exception(at)
    assert "cannot be read" in at.error[0].value and "bad.json:1:15" in at.error[0].value


def test_a_debug_link_carries_the_domain_profile():
    from apptools import new_app, open_sample

    from layerzero_viz import share
    from layerzero_viz.appstate import link_state
    from ui import session

    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.sidebar.selectbox(key="profile").set_value("finance").run()
    capped = at.session_state["profile"]
    assert capped == "finance"
    # the link state the sidebar would share, decoded as a fresh browser would
    state = share.decode_state(share.encode_state({**link_state(session.ViewState(
        page="heatmap", source=at.session_state["source"], profile="finance"))}))
    assert state["profile"] == "finance"
    again = new_app(s=share.encode_state(state))
    assert again.session_state["profile"] == "finance"
