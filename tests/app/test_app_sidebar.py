"""The shared sidebar: the ratio slider over a cached annotation, where the ratio comes from, and the metrics."""
from __future__ import annotations

import json

from apptools import goto, metrics, new_app, no_exception, open_sample, paste

from ui import cache


def sidebar_text(at) -> str:
    return " ".join([m.value for m in at.sidebar.markdown] + [c.value for c in at.sidebar.caption]
                    + [w.value for w in at.sidebar.warning])


def test_slider_starts_at_the_effective_ratio_and_says_where_it_came_from():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    assert at.slider[0].value == 0.35
    assert at.session_state["ratio_touched"] is False
    assert "from the <layer-zero/> directive" in sidebar_text(at).replace("\\", "")


def test_moving_the_slider_changes_the_metrics_without_detecting_again():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    before = metrics(at)
    detections = cache.ANNOTATE_CALLS["count"]
    at.slider[0].set_value(0.05).run()
    assert no_exception(at)
    after = metrics(at)
    assert after["Pruned"] != before["Pruned"]
    assert after["Tokens before → after"] != before["Tokens before → after"]
    assert "Effectiveness (estimate)" in after and "Context preservation" in after
    assert "from the slider" in sidebar_text(at)
    at.slider[0].set_value(0.0).run()
    assert metrics(at)["Pruned"] == "0.0%"
    assert cache.ANNOTATE_CALLS["count"] == detections


def test_the_slider_persists_across_pages():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.slider[0].set_value(0.12).run()
    for page in ("side-by-side", "timing", "sweep", "load", "heatmap"):
        goto(at, page)
        assert no_exception(at)
        assert at.slider[0].value == 0.12, page


def test_low_information_switch_changes_what_is_pruned():
    at = open_sample(new_app(), "physics_teacher.zh.json").run()
    at.slider[0].set_value(0.5).run()
    with_low = metrics(at)["Pruned"]
    at.toggle(key="low_information").set_value(False).run()
    assert no_exception(at)
    assert metrics(at)["Pruned"] != with_low
    assert at.slider[0].value == 0.5  # the ratio is kept


def test_engine_warnings_are_shown():
    misplaced = {"system": 'Be brief.\n<layer-zero enabled="true" prune_ratio="0.35"/>',
                 "messages": [{"role": "user", "content": "hello"}]}
    at = paste(new_app(), json.dumps(misplaced))
    assert any("not honoured" in w.value for w in at.sidebar.warning)
    # the plain-text sample's own directive is honoured (it opens the prompt): no warning there
    at = open_sample(new_app(), "plain_prompt.zh.txt").run()
    assert not [w for w in at.sidebar.warning if "not honoured" in w.value]
    assert "Effective ratio **0.35** · from the" in " ".join(m.value for m in at.sidebar.markdown)


def test_disabled_layer_zero_says_so_and_prunes_nothing():
    conv = {"system": '<layer-zero enabled="false"/>\nBe brief.',
            "messages": [{"role": "user", "content": "Could you please kindly help me, thank you so much?"}]}
    at = paste(new_app(), json.dumps(conv))
    assert no_exception(at)
    assert any("disabled" in w.value for w in at.sidebar.warning)
    assert metrics(at)["Pruned"] == "0.0%"
    # and the heatmap's own caption says why nothing is pruned (second UX walkthrough: only the sidebar, far down)
    assert any("Layer-zero is disabled by the directive: nothing is pruned." in c.value for c in at.main.caption)


def test_ratio_from_the_environment_is_the_initial_value(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_LAYER_ZERO_PRUNE_RATIO", "0.21")
    at = open_sample(new_app(), "support_chat.en.json").run()
    assert at.slider[0].value == 0.21
    assert "environment" in sidebar_text(at)


def test_a_request_nothing_switches_on_is_a_preview_and_the_api_prunes_nothing():
    # (second UX walkthrough: "Layer-zero enabled (by default)" read as an Anthropic feature that is on, while the
    # SDK middleware sends such a request unpruned)
    at = paste(new_app(), json.dumps({"messages": [{"role": "user", "content": "Hi! Could you please check order 7?"}]}))
    assert no_exception(at)
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "nothing in this request switches layer-zero on" in captions and "prunes nothing" in captions
    assert "enabled (by default)" not in captions
    at = open_sample(new_app(), "finance_qa.zh.json").run()  # its directive switches it on
    assert any("Layer-zero enabled (by directive)" in c.value for c in at.sidebar.caption)


def test_under_a_profile_cap_the_slider_says_it_is_capped():
    # (second UX walkthrough: the slider read 0.50 while pruning ran at r = 0.20, and moving it changed nothing)
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.sidebar.slider(key="ratio").set_value(0.6).run()
    at.sidebar.selectbox(key="profile").set_value("finance").run()
    assert no_exception(at)
    [note] = [c.value for c in at.sidebar.caption if c.value.startswith("Capped at")]
    assert "finance profile" in note and "Off lifts the cap" in note
    at.sidebar.selectbox(key="profile").set_value("Off").run()
    assert not [c for c in at.sidebar.caption if c.value.startswith("Capped at")]


def test_the_token_counts_of_a_large_conversation_fit_the_sidebar():
    # (second UX walkthrough: "175,528 → 15…" on a 600-message upload: the after-count was cut off)
    turns = [{"role": "user" if k % 2 == 0 else "assistant", "content": f"Thank you so much! Check order {k}. " + "word " * 500}
             for k in range(240)]  # about 120,000 tokens
    at = paste(new_app(), json.dumps({"messages": turns}))
    assert no_exception(at)
    shown = metrics(at)["Tokens before → after"]
    assert len(shown) <= 16 and shown.endswith("k") and " → " in shown
    [exact] = [c.value for c in at.sidebar.caption if c.value.endswith(" tokens") and "→" in c.value]
    before, after = (int(x.replace(",", "")) for x in exact.removesuffix(" tokens").split(" → "))
    assert before > after > 10_000
