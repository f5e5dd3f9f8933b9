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


# ---------------------------------------------------------------------------------------------- exact links

from layerzero_viz.appstate import VIEW_FIELDS  # noqa: E402
from ui import session  # noqa: E402

# A valid value, other than the default, for every view field (a new field needs one here: the test says so).
NON_DEFAULT = {
    "heatmap_view": "overview",
    "heatmap_page": 2,
    "color_by": "score",
    "heatmap_search": "VIP",
    "heatmap_reasons": ["filler", "protected_user_fact"],
    "heatmap_tiers": ["safe"],
    "chip": 7,
    "heatmap_protections": True,
    "messages_page": 2,
    "sweep_floors": [1.0, 0.95],
    "finding": 1,
}
EVERY_PAGE = ("load", "heatmap", "side-by-side", "timing", "sweep", "ab", "detector", "history")


def _declared_not_view_state(key: str) -> bool:
    return any(key == name or (name.endswith((":", "_")) and key.startswith(name))
               for name in session.NOT_VIEW_STATE)


def test_every_session_key_of_every_page_is_in_the_link_or_declared_not_to_be():
    """A widget or session value added to any page must either travel in debug links or say why it does not."""
    at = open_sample(new_app(), "vip_multiturn.zh.json").run()
    seen: set[str] = set()
    for page in EVERY_PAGE:
        at.switch_page(f"app_pages/{page.replace('-', '_')}.py").run()
        assert no_exception(at), page
        seen |= set(at.session_state.keys())
    at.switch_page("app_pages/heatmap.py").run()
    at.segmented_control(key="heatmap_view").set_value("overview").run()
    seen |= set(at.session_state.keys())
    unclassified = {k for k in seen if not k.startswith("$$")  # Streamlit's own
                    and k not in VIEW_FIELDS and k not in session.LINKED_CONTROLS
                    and not _declared_not_view_state(k)}
    assert not unclassified, ("session keys neither carried by debug links (appstate.VIEW_FIELDS) nor declared "
                              f"in ui.session.NOT_VIEW_STATE: {sorted(unclassified)}")


def _long_conversation() -> str:
    text = (ROOT / "fixtures" / "vip_multiturn.zh.json").read_text(encoding="utf-8")
    return text.replace("我是VIP客户", "我是VIP客户" + "".join(f"（备注{n}）" for n in range(900)), 1)


def test_every_view_field_round_trips_through_a_copied_link():
    """Set every registered view value away from its default, copy the link, open it fresh: all come back."""
    assert set(NON_DEFAULT) == set(VIEW_FIELDS), "give every view field a non-default value in NON_DEFAULT"
    for key, value in NON_DEFAULT.items():
        assert value != VIEW_FIELDS[key].default and VIEW_FIELDS[key].check(value), key
    at = paste(new_app(), _long_conversation())
    at.slider[0].set_value(0.4).run()
    at.sidebar.segmented_control(key="min_effectiveness").set_value(0.98).run()
    at.sidebar.toggle(key="low_information").set_value(False).run()
    at.sidebar.selectbox(key="profile").set_value("finance").run()
    at.toggle(key="show_whitespace").set_value(True).run()
    at.selectbox(key="message").set_value(0).run()  # the long user turn: its tokens fill two pages
    goto(at, "timing")  # a page without the heatmap's widgets, whose last values would overwrite these
    for key, value in NON_DEFAULT.items():
        at.session_state[key] = value
    link = copy_debug_link(at.run())
    query = parse_qs(urlparse(link).query)

    again = new_app(**{k: v[0] for k, v in query.items()})
    assert no_exception(again)
    assert again.title[0].value == "Timing"
    for key, value in NON_DEFAULT.items():
        assert again.session_state[key] == value, key
    for key in ("ratio", "ratio_touched", "min_effectiveness", "low_information", "profile", "show_whitespace",
                "message"):
        assert again.session_state[key] == at.session_state[key], key
    assert again.session_state["source"].text == at.session_state["source"].text
    # and the pages show them: the heatmap opens on the token page and view the link was made with
    again.switch_page("app_pages/heatmap.py").run()
    assert again.segmented_control(key="heatmap_view").value == "overview"
    again.segmented_control(key="heatmap_view").set_value("tokens").run()
    assert again.number_input(key="heatmap_page").value == 2


def test_the_heatmap_link_reopens_its_token_page():
    """The bug of issue 16: a link made on token page 2 of a long conversation reopened page 1."""
    at = paste(new_app(), _long_conversation())
    at.number_input(key="heatmap_page").set_value(2).run()
    link = copy_debug_link(at)
    again = new_app(**{k: v[0] for k, v in parse_qs(urlparse(link).query).items()})
    assert again.title[0].value == "Heatmap"
    assert again.number_input(key="heatmap_page").value == 2
    assert "Token chips 2,001–" in " ".join(c.value for c in again.caption)


def test_a_view_value_from_a_hand_edited_link_falls_back_to_its_default():
    text = (ROOT / "fixtures" / "finance_qa.zh.json").read_text(encoding="utf-8")
    state = link_state(ViewState(source=Source(text), view={"heatmap_page": 3}))
    state["view"].update(heatmap_page=-4, heatmap_reasons=["not_a_reason"], sweep_floors=[0.5], chip="x")
    at = new_app(s=share.encode_state(state))
    assert no_exception(at)
    assert at.session_state["heatmap_page"] == 1 and at.session_state["heatmap_reasons"] == []
    assert at.session_state["sweep_floors"] == [1.0] and at.session_state["chip"] is None


def test_the_link_stays_under_the_button_after_the_rerun_the_clipboard_report_causes():
    # (a UX review: the clipboard component reports back, which reruns the script; the button then reads False and
    # the link vanished — "copy the link below the button by hand" pointed at nothing when copying was refused)
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    link = copy_debug_link(at)
    at.run()  # the rerun the component's report makes
    assert [c.value for c in at.sidebar.code] == [link]
    at.slider[0].set_value(0.5).run()  # another view: the link shown would not reopen it
    assert not at.sidebar.code
