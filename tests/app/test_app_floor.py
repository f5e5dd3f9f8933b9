"""The effectiveness floor beside the slider (issue 13): lossless by default, a lower floor lets the lossy tier
prune past the safe frontier, the sidebar says what bounds pruning, links carry the floor, the sweep compares floors.

support_chat.en.json's rules find redundant tokens up to r ≈ 0.2 (its safe frontier); r = 0.5 is past it.
"""
from __future__ import annotations

import re

from urllib.parse import parse_qs, urlparse

from apptools import goto, html_markdown, metrics, new_app, no_exception, open_sample

from layerzero_viz import annotate, share
from layerzero_viz.appstate import link_state, slider_frontier, view_from_link

FLOOR = "min_effectiveness"
SUPPORT = "support_chat.en.json"


def floor_control(at):
    return at.sidebar.segmented_control(key=FLOOR)


def pruned_tokens(at) -> int:
    before, after = metrics(at)["Tokens before → after"].replace(",", "").split(" → ")
    return int(before) - int(after)


def tiers(at) -> tuple[int, int]:
    safe, lossy = metrics(at)["Pruned by tier (safe + lossy)"].replace(",", "").split(" + ")
    return int(safe), int(lossy)


def sidebar_says(at) -> str:
    return " ".join([c.value for c in at.sidebar.caption] + [i.value for i in at.sidebar.info]).replace("\\", "")


def past_the_frontier(ratio: float = 0.5):
    at = open_sample(new_app(), SUPPORT).run()
    at.slider[0].set_value(ratio).run()
    return at


def test_the_floor_control_offers_five_floors_and_starts_lossless():
    at = open_sample(new_app(), SUPPORT).run()
    control = floor_control(at)
    assert control.label == "Effectiveness floor"
    assert control.options == ["lossless", "0.99", "0.98", "0.95", "off"]
    assert control.value == 1.0 and at.session_state[FLOOR] == 1.0
    assert tiers(at)[1] == 0  # lossless: no lossy-tier token


def test_a_lower_floor_prunes_more_past_the_safe_frontier_and_the_heatmap_shows_lossy_tokens():
    at = past_the_frontier()
    lossless = pruned_tokens(at)
    assert tiers(at) == (lossless, 0)
    assert "lossy tier · estimated loss" not in html_markdown(at)  # no lossy chip (the legend shows the style)

    floor_control(at).set_value(0.98).run()
    assert no_exception(at)
    at_098 = pruned_tokens(at)
    safe, lossy = tiers(at)
    assert at_098 > lossless and safe == lossless and lossy == at_098 - lossless
    assert float(metrics(at)["Effectiveness (estimate)"]) >= 0.98
    html = html_markdown(at)
    assert re.search(r'class="lz-tok lz-lossy [^"]*" data-decision="prune"', html)
    assert "lossy tier · estimated loss" in html and "bits of estimated information" in html
    assert "lossy ≈" in " ".join(c.value for c in at.main.caption)

    floor_control(at).set_value(0.0).run()
    assert pruned_tokens(at) > at_098
    assert at.slider[0].value == 0.5  # the floor never moves the slider


def test_the_heatmap_legend_has_the_lossy_tier():
    at = open_sample(new_app(), SUPPORT).run()
    assert "Lossy tier (estimated loss)" in html_markdown(at) and "lz-lossy" in html_markdown(at)


def test_the_sidebar_says_the_budget_is_spent():
    at = open_sample(new_app(), SUPPORT).run()
    at.slider[0].set_value(0.1).run()
    assert "The budget (r = 0.10: at most " in sidebar_says(at) and "a higher ratio prunes more." in sidebar_says(at)
    assert "allow_lossy" not in [b.key for b in at.sidebar.button]


def test_past_the_safe_frontier_the_sidebar_offers_the_floor():
    at = past_the_frontier()
    frontier = annotate(at.session_state["source"].load(), env={}).safe_frontier
    says = sidebar_says(at)
    assert (f"All redundant tokens are used from r = {slider_frontier(frontier):.2f}; allowing lossy pruning "
            "(floor 0.98) takes " in says)
    before = pruned_tokens(at)
    at.sidebar.button(key="allow_lossy").click().run()
    assert no_exception(at)
    assert at.session_state[FLOOR] == 0.98 and floor_control(at).value == 0.98
    assert pruned_tokens(at) > before
    assert "Stopped by the 0.98 floor at" in sidebar_says(at)
    assert "allow_lossy" not in [b.key for b in at.sidebar.button]


def test_the_sidebar_says_when_nothing_is_left():
    at = past_the_frontier(0.9)
    floor_control(at).set_value(0.0).run()
    assert "Nothing left that either tier may take." in sidebar_says(at)


def test_the_floor_holds_across_pages_and_a_new_conversation():
    at = past_the_frontier()
    floor_control(at).set_value(0.95).run()
    for page in ("side-by-side", "timing", "sweep", "load", "heatmap"):
        goto(at, page)
        assert no_exception(at), page
        assert floor_control(at).value == 0.95, page
    at = open_sample(at, "finance_qa.zh.json").run()
    assert floor_control(at).value == 0.95


def test_side_by_side_lists_the_lossy_spans():
    at = past_the_frontier()
    floor_control(at).set_value(0.98).run()
    goto(at, "side-by-side")
    assert no_exception(at)
    spans = at.main.dataframe[0].value
    lossy = spans[spans["reason"] == "lossy"]
    assert len(lossy) > 0 and lossy["detail"].str.contains("taken while the estimate stays ≥ 0.98").all()


def test_a_debug_link_carries_the_floor():
    at = past_the_frontier()
    floor_control(at).set_value(0.98).run()
    goto(at, "timing")
    at.sidebar.button(key="debug_link").click().run()
    [code] = at.sidebar.code
    token = parse_qs(urlparse(code.value).query)["s"][0]
    assert view_from_link(share.decode_state(token)).min_effectiveness == 0.98

    again = new_app(s=token)
    assert no_exception(again)
    assert again.title[0].value == "Timing"
    assert floor_control(again).value == 0.98 and again.slider[0].value == 0.5
    assert metrics(again) == metrics(at)


def test_an_old_link_without_a_floor_opens_lossless():
    at = past_the_frontier()
    state = link_state(view_from_link({"conversation": at.session_state["source"].text, "ratio": 0.5}))
    del state["view"][FLOOR]
    again = new_app(s=share.encode_state(state))
    assert no_exception(again)
    assert floor_control(again).value == 1.0
    assert tiers(again)[1] == 0


def test_the_sweep_compares_the_current_floor_with_lossless():
    at = past_the_frontier()
    floor_control(at).set_value(0.98).run()
    goto(at, "sweep")
    assert no_exception(at)
    picker = at.multiselect(key="sweep_floors")
    assert picker.value == [1.0, 0.98]
    assert picker.options == ["lossless", "0.99", "0.98", "0.95", "off"]
    [chart] = at.get("vega_lite_chart")
    assert '"pruned-lossless' in chart.proto.spec and '"pruned-0.98' in chart.proto.spec
    assert '"floor-0.98' in chart.proto.spec and '"frontier' in chart.proto.spec
    assert '"pruned-off' not in chart.proto.spec

    picker.set_value([1.0, 0.98, 0.0]).run()
    assert no_exception(at)
    [chart] = at.get("vega_lite_chart")
    assert '"pruned-off' in chart.proto.spec and '"estimate-off' in chart.proto.spec
    table = at.main.dataframe[0].value
    assert list(table["floor"]) == ["lossless", "0.98 (sidebar)", "off"]
    assert table["most pruned"].is_monotonic_increasing  # a lower floor prunes at least as much


def test_the_sweep_adds_the_sidebar_floor_and_offers_the_others():
    at = goto(open_sample(new_app(), SUPPORT), "sweep")
    assert at.multiselect(key="sweep_floors").value == [1.0]
    floor_control(at).set_value(0.95).run()
    assert at.multiselect(key="sweep_floors").value == [1.0, 0.95]
    at.button(key="use_floor:lossless").click().run()
    assert no_exception(at)
    assert floor_control(at).value == 1.0 and at.session_state[FLOOR] == 1.0


def test_the_sweep_knee_button_sets_the_slider():
    at = past_the_frontier()
    floor_control(at).set_value(0.98).run()
    goto(at, "sweep")
    button = at.button(key="use_knee")
    knee = float(button.label.rsplit(" ", 1)[1])
    frontier = annotate(at.session_state["source"].load(), env={}).safe_frontier
    assert knee > frontier  # past the safe frontier: the lossy tier goes on under 0.98
    button.click().run()
    assert no_exception(at)
    assert at.slider[0].value == knee and at.session_state["ratio_touched"] is True
