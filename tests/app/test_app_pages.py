"""Heatmap, Side by side, Timing and Ratio sweep on real fixtures."""
from __future__ import annotations

import json

from apptools import ROOT, goto, html_markdown, metrics, new_app, no_exception, open_sample, paste

from layerzero_viz.appstate import TOKENS_PER_PAGE


def test_heatmap_shows_every_message_as_a_card_of_token_chips():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    assert no_exception(at)
    html = html_markdown(at)
    cards = html.count('class="lz-card"')
    assert cards == len(at.session_state["source"].load().messages)
    assert 'data-role="system"' in html and 'data-role="user"' in html
    assert 'data-decision="prune"' in html and "lz-protected_number" in html
    assert "4.2" in html


def test_heatmap_whitespace_toggle_and_message_picker():
    at = open_sample(new_app(), "vip_multiturn.zh.json").run()
    assert 'class="lz-ws"' not in html_markdown(at)
    at.toggle(key="show_whitespace").set_value(True).run()
    assert 'class="lz-ws"' in html_markdown(at)
    at.selectbox(key="message").set_value(2).run()
    assert no_exception(at)
    assert html_markdown(at).count('class="lz-card"') == 1
    assert "#2 " in html_markdown(at)


def test_heatmap_overview_charts():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.segmented_control(key="heatmap_view").set_value("overview").run()
    assert no_exception(at)
    assert len(at.get("vega_lite_chart")) == 2
    at.segmented_control(key="color_by").set_value("score").run()
    assert no_exception(at)


def test_heatmap_paginates_a_long_conversation():
    turns = [{"role": "user" if k % 2 == 0 else "assistant",
              "content": f"第{k}轮：您好，请问七日年化收益率4.2%是什么意思？麻烦详细解释一下，谢谢！" * 20}
             for k in range(24)]
    at = paste(new_app(), json.dumps({"messages": turns}, ensure_ascii=False))
    at.switch_page("app_pages/heatmap.py")
    pager = at.number_input(key="heatmap_page")
    assert pager.max >= 2
    first = html_markdown(at).count('class="lz-tok ')
    assert first <= TOKENS_PER_PAGE
    pager.set_value(2).run()
    assert no_exception(at)
    assert "on this page" in html_markdown(at) or 'class="lz-card"' in html_markdown(at)


def test_side_by_side_shows_pruned_text_as_code_and_every_deleted_span():
    at = goto(open_sample(new_app(), "support_chat.en.json"), "side-by-side")
    assert no_exception(at)
    codes = [c.value for c in at.main.code]
    assert len(codes) == len(at.session_state["source"].load().messages)
    spans = at.main.dataframe[0].value
    assert list(spans.columns) == ["message", "reason", "text", "detail", "block", "start", "end"]
    # (and what reconstruction tidies away at a cut: every character the pruned text lacks is listed)
    assert len(spans) > 0 and set(spans["reason"]) <= {
        "declared_redundant", "repeated_constraint", "derivable_context", "filler", "low_information", "directive",
        "tidy"}
    assert "Original" in " ".join(c.value for c in at.main.caption)


def test_side_by_side_downloads_are_offered():
    at = goto(open_sample(new_app(), "capture.http"), "side-by-side")
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == [
        "Pruned conversation", "Token annotations (CSV)", "JSON result (as the CLI)"]


def test_timing_explains_a_zero_context_preservation():
    at = goto(open_sample(new_app(), "support_chat.en.json"), "timing")
    assert no_exception(at)
    assert "no `<context>` element" in at.info[0].value
    assert len(at.get("vega_lite_chart")) == 2


def test_timing_with_a_context_block_measures_it():
    at = goto(open_sample(new_app(), "gov_hotline_12345.zh.json"), "timing")
    assert no_exception(at)
    assert not [i for i in at.info if "<context>" in i.value]


def test_sweep_button_sets_the_slider_to_the_knee():
    at = goto(open_sample(new_app(), "finance_qa.zh.json"), "sweep")
    assert no_exception(at)
    button = at.button(key="use_knee")
    target = float(button.label.rsplit(" ", 1)[1])
    button.click().run()
    assert no_exception(at)
    assert at.slider[0].value == target
    assert at.session_state["ratio_touched"] is True
    assert "from the slider" in " ".join(m.value for m in at.sidebar.markdown)


def test_a_50k_token_conversation_renders_one_page_of_chips_at_a_time():
    sample = json.loads((ROOT / "fixtures" / "vip_multiturn.zh.json").read_text(encoding="utf-8"))
    sample["messages"] = sample["messages"][:16] * 40  # about 50,000 tokens, alternating roles kept
    at = paste(new_app(), json.dumps(sample, ensure_ascii=False))
    assert no_exception(at)
    assert at.session_state["source"] is not None
    tokens = int(metrics(at)["Tokens before → after"].split(" → ")[0].replace(",", ""))
    assert tokens > 45_000
    at.run()
    chips = html_markdown(at).count('class="lz-tok ')
    assert 0 < chips <= TOKENS_PER_PAGE
    at.slider[0].set_value(0.2).run()
    assert no_exception(at)
    at.number_input(key="heatmap_page").set_value(at.number_input(key="heatmap_page").max).run()
    assert no_exception(at) and 0 < html_markdown(at).count('class="lz-tok ') <= TOKENS_PER_PAGE


def test_heatmap_cards_count_tokens_like_the_sidebar():
    """Engine directives are outside the budget: the system card's counts leave them out, as the sidebar does."""
    from layerzero_viz import annotate

    at = open_sample(new_app(), "finance_qa.zh.json").run()
    result = annotate(at.session_state["source"].load(), env={}).at_ratio()
    system = next(m for m in result.messages if m.message == "system")
    pruned = sum(1 for t in result.token_records()
                 if t["message"] == "system" and t["decision"] == "prune" and t["reason"] != "directive")
    assert f"tokens {system.tokens_before:,} · pruned {pruned:,}" in html_markdown(at)


def test_directive_tokens_are_counted_one_way_on_every_page():
    from layerzero_viz import annotate

    at = open_sample(new_app(), "finance_qa.zh.json").run()
    total = int(metrics(at)["Tokens before → after"].split("→")[0].replace(",", ""))
    result = annotate(at.session_state["source"].load(), env={}).at_ratio()
    assert total == result.tokens_total and result.tokens_directive > 0
    assert any(f"Engine directives: {result.tokens_directive:,} tokens" in c.value for c in at.caption)
    assert any(f"({result.tokens_directive:,} of them engine directives)" in c.value for c in at.caption)
    goto(at, "timing")
    assert no_exception(at)
    table = at.dataframe[0].value
    assert int(table["tokens"].sum()) == total
    assert int(table["directive tokens"].sum()) == result.tokens_directive


# ---------------------------------------------------------------------------------------------- find on the heatmap

from apptools import chips_html  # noqa: E402


def _chip_texts(html: str, cls: str) -> list[str]:
    """The text of every chip with class ``cls`` (its glyph left out)."""
    import re
    return [re.sub(r"<sup.*?</sup>", "", inner) for inner in
            re.findall(rf'<span class="lz-tok [^"]*\b{cls}\b[^"]*"[^>]*>(.*?)</span>', html)]


def _selected(at) -> str:
    """The markup of the selected chip (there is one at most)."""
    import re
    found = re.findall(r'<span class="lz-tok [^"]*lz-selected[^"]*"[^>]*>.*?</span>', chips_html(at))
    assert len(found) <= 1
    return found[0] if found else ""


def test_search_marks_the_matching_chips_and_dims_the_rest():
    import re
    at = open_sample(new_app(), "vip_multiturn.zh.json").run()
    at.text_input(key="heatmap_search").input("vip").run()  # case-insensitive
    html = chips_html(at)
    assert "lz-hit" in html and "lz-dim" in html
    hits = "".join(_chip_texts(html, "lz-hit"))
    assert "VIP" in hits and "vip" not in hits.replace("VIP", "")
    assert "VIP" not in "".join(_chip_texts(html, "lz-dim"))
    assert re.search(r"\d+ matches \(\d+ tokens\)", " ".join(c.value for c in at.caption))


def test_filters_by_reason_and_tier_mark_only_those_tokens():
    at = open_sample(new_app(), "vip_multiturn.zh.json").run()
    at.multiselect(key="heatmap_reasons").set_value(["filler"]).run()
    import re
    marked = re.findall(r'class="lz-tok (lz-[a-z_]+) [^"]*\blz-hit\b', chips_html(at))
    assert marked and set(marked) == {"lz-filler"}
    at.multiselect(key="heatmap_reasons").set_value([]).run()
    at.multiselect(key="heatmap_tiers").set_value(["none"]).run()
    kept = re.findall(r'class="lz-tok (lz-[a-z_]+) [^"]*\blz-hit\b[^"]*" data-decision="([a-z]+)"', chips_html(at))
    assert kept and all(reason == "lz-directive" for reason, decision in kept if decision == "prune")
    assert any(decision == "keep" for _, decision in kept)


def test_next_and_previous_walk_the_pruned_tokens_and_open_their_details():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.button(key="heatmap_next").click().run()
    first = _selected(at)
    assert 'data-decision="prune"' in first
    assert at.button(key="chip_close")  # the details panel is open
    assert "Token ids:" in " ".join(m.value for m in at.main.markdown)
    at.button(key="heatmap_next").click().run()
    second = _selected(at)
    assert second != first and 'data-decision="prune"' in second
    at.button(key="heatmap_prev").click().run()
    assert _selected(at) == first
    at.button(key="chip_close").click().run()
    assert _selected(at) == ""
    assert not [b for b in at.button if b.key == "chip_close"]


def test_next_match_opens_the_token_page_that_holds_it():
    text = "\n".join(f"Line {n}: the quarterly report covers region {n}." for n in range(300)) + "\nneedle here."
    at = paste(new_app(), text)
    assert at.number_input(key="heatmap_page").value == 1
    at.text_input(key="heatmap_search").input("needle").run()
    at.button(key="heatmap_next").click().run()
    assert at.number_input(key="heatmap_page").value == at.number_input(key="heatmap_page").max > 1
    assert "needle" in _selected(at)


def test_details_panel_shows_a_protection_and_escapes_user_text():
    at = open_sample(new_app(), "xss_payload.en.json").run()
    at.text_input(key="heatmap_search").input("<script").run()
    at.button(key="heatmap_next").click().run()
    panel = [m.value for m in at.main.markdown if "Token ids" in m.value or m.value.startswith(("**Kept**", "**Pruned**"))]
    assert len(panel) == 2 and all("<" not in m.replace("\\<", "") for m in panel)
    code = [c.value for c in at.main.code]
    assert any("<" in c for c in code)  # st.code shows the chip's text verbatim, as text


def test_a_kept_number_says_which_protection_kept_it():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.multiselect(key="heatmap_reasons").set_value(["protected_number"]).run()
    at.button(key="heatmap_next").click().run()
    text = " ".join(m.value for m in at.main.markdown)
    assert "**Kept by:** Number" in text and "**Kept**" in text


def test_heatmap_offers_the_pruned_conversation_and_the_token_table():
    at = open_sample(new_app(), "capture.http").run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Pruned conversation", "Token annotations (CSV)"]


def test_chips_are_buttons_with_accessible_labels():
    import re
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    html = chips_html(at)
    chips = re.findall(r'<span class="lz-tok [^>]*>', html)
    assert chips and all('tabindex="0"' in c and 'role="button"' in c and 'aria-label="' in c for c in chips)
    assert re.search(r'aria-label="[^"]+: Filler, pruned"', html)


def test_next_steps_over_a_whole_match_not_chip_by_chip():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.text_input(key="heatmap_search").input("收益").run()  # two chips per match
    starts = []
    for _ in range(3):
        at.button(key="heatmap_next").click().run()
        starts.append(_chip_texts(_selected(at), "lz-selected")[0].strip())
    assert starts == ["收", "收", "收"]


# ---------------------------------------------------------------------------------------------- legible by default


def test_protections_are_quiet_until_the_toggle_shows_them():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    html = chips_html(at)
    assert "lz-protected_number" in html and "lz-show-protections" not in html
    at.sidebar.toggle(key="heatmap_protections").set_value(True).run()
    html = chips_html(at)
    assert no_exception(at) and html.count('class="lz-tokens lz-show-protections"') == html.count('class="lz-tokens')


def test_view_controls_live_in_the_sidebar_so_the_text_comes_first():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    for kind, key in (("selectbox", "message"), ("text_input", "heatmap_search"), ("multiselect", "heatmap_reasons"),
                      ("multiselect", "heatmap_tiers"), ("toggle", "heatmap_protections"),
                      ("toggle", "show_whitespace"), ("number_input", "heatmap_page")):
        assert getattr(at.sidebar, kind)(key=key), key
    assert not at.main.text_input and not at.main.multiselect and not at.main.toggle
    goto(at, "side-by-side")
    assert at.sidebar.selectbox(key="message") and at.sidebar.number_input(key="messages_page")
    assert not at.main.selectbox


def test_the_details_panel_shows_the_sentence_a_token_belongs_to():
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.multiselect(key="heatmap_reasons").set_value(["protected_number"]).run()
    at.button(key="heatmap_next").click().run()
    chip_text = at.main.code[0].value.strip()
    line = next(m.value for m in at.main.markdown if "**In the sentence:**" in m.value)
    sentence = line.split("**In the sentence:**", 1)[1].split("  \n", 1)[0].strip()
    assert chip_text and chip_text in sentence.replace("\\", "") and len(sentence) > len(chip_text)


def test_the_sweep_chart_marks_the_safe_frontier_where_the_metric_and_the_sidebar_put_it():
    # (a UX review: the chart said "safe frontier 0.13" while the metric said r = 0.14; at 0.13 3 of finance_qa's
    # 124 redundant tokens still stand)
    at = goto(open_sample(new_app(), "finance_qa.zh.json"), "sweep")
    assert no_exception(at)
    marked = _layer_data(at.get("vega_lite_chart")[0], "frontier-label")
    shown = next(m for m in at.metric if m.label == "Safe frontier").value
    assert shown == "r = 0.14" and list(marked["label"]) == ["safe frontier 0.14"]
    assert list(marked["ratio"]) == [0.14]


def test_a_conversation_without_text_shows_every_page_without_a_traceback():
    # (a UX review: an image-only request — real traffic — or an empty text block loaded, then Heatmap and Side by
    # side raised KeyError/ValueError tracebacks, and the sidebar said the budget was spent)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    for doc in ({"messages": [{"role": "user", "content": ""}]}, {"messages": [{"role": "user", "content": [image]}]}):
        at = paste(new_app(), json.dumps(doc))
        assert at.session_state["source"] is not None
        for page in ("heatmap", "side-by-side", "timing", "sweep"):
            at = goto(at, page)
            assert no_exception(at), (page, [e.value for e in at.exception])
        at = goto(at, "heatmap")
        at.segmented_control(key="heatmap_view").set_value("overview").run()
        assert no_exception(at), [e.value for e in at.exception]
        assert any("Nothing to prune: no text block holds a token" in c.value for c in at.sidebar.caption)


def test_the_chip_range_is_counted_out_of_every_chip():
    # (a UX review: "Token chips 1–1,146 of 1,099 + 47 directive" read as a range past its total)
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    caption = next(c.value for c in at.caption if c.value.startswith("Token chips"))
    assert caption.startswith("Token chips 1–1,146 of 1,146 (47 of them engine directives)"), caption


def _layer_data(chart, name: str):
    """The data (a DataFrame) of the first layer of a sweep chart whose name starts with ``name``."""
    import io

    import pyarrow as pa

    spec = json.loads(chart.proto.spec)
    layer = next(x for x in spec["layer"][0]["layer"] if x.get("name", "").startswith(name))
    data = next(d for d in chart.proto.datasets if d.name == layer["data"]["name"])
    return pa.ipc.open_stream(io.BytesIO(data.data.data)).read_all().to_pandas()


def test_under_a_profile_cap_the_sweep_marks_the_capped_ratio_as_the_profiles():
    # (a UX review: with the slider at 0.60 and a finance profile, the chart's rule said "slider 0.20")
    at = open_sample(new_app(), "finance_qa.zh.json").run()
    at.sidebar.slider(key="ratio").set_value(0.6).run()
    at.sidebar.selectbox(key="profile").set_value("finance").run()
    at = goto(at, "sweep")
    assert no_exception(at) and at.sidebar.slider(key="ratio").value == 0.6
    marked = _layer_data(at.get("vega_lite_chart")[0], "current-label")
    [label] = list(marked["label"])
    assert label.startswith("profile cap 0.") and float(label.rsplit(" ", 1)[1]) < 0.6, label
    at.sidebar.selectbox(key="profile").set_value("Off").run()
    assert list(_layer_data(at.get("vega_lite_chart")[0], "current-label")["label"]) == ["slider 0.60"]


def test_tool_calls_and_tool_results_are_named_on_both_pages():
    # (second UX walkthrough: an OpenAI tool call was skipped by the heatmap and two empty boxes side by side; an
    # Anthropic tool_use appeared nowhere, and a tool result read as something the user typed)
    openai_chat = [{"role": "user", "content": "How many orders came in today?"},
                   {"role": "assistant", "content": None, "tool_calls": [
                       {"id": "c1", "type": "function", "function": {"name": "run_sql", "arguments": "{}"}}]},
                   {"role": "tool", "tool_call_id": "c1", "content": "42"},
                   {"role": "assistant", "content": "42 orders came in today."}]
    at = paste(new_app(), json.dumps(openai_chat))
    assert no_exception(at)
    assert "<code>tool_call run_sql</code>" in chips_html(at)
    at = goto(at, "side-by-side")
    assert any("<code>tool_call run_sql</code>" in m.value for m in at.markdown)
    anthropic = {"messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Sure, let me check that for you."},
                                          {"type": "tool_use", "id": "tu_1", "name": "get_weather",
                                           "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "Sunny, 24 C"}]}]}
    at = paste(new_app(), json.dumps(anthropic))
    html = chips_html(at)
    assert "<code>tool_use get_weather</code>" in html and "<code>tool result (tu_1)</code>" in html


def test_counts_of_one_read_in_the_singular():
    # (second UX walkthrough: "Original · 1 tokens", "1 matches (1 tokens)", "1 findings")
    at = goto(paste(new_app(), json.dumps({"messages": [{"role": "user", "content": "hi"}]})), "side-by-side")
    assert no_exception(at)
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Original · 1 token · ") for c in captions), captions
    assert "Pruned · 1 token" in captions
