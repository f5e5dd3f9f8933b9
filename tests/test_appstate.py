"""The app's state as plain data: sources, debug-link views, pagination, gallery, uploads, downloads."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from layerzero_viz import InputError, ShareLinkError, annotate, load_conversation, share
from layerzero_viz.appstate import (
    DEFAULT_PAGE, FLOOR_CHOICES, LOSSLESS, PAGES, ResultView, Source, ViewState, app_base_url, bound_message,
    clean_floor, clean_view, download_names, fixture_from_argv, floor_label, link_state, md_escape,
    message_position, page_bounds, page_count, page_url_path, read_gallery, slider_frontier, text_of_upload,
    view_from_link,
)

ROOT = Path(__file__).resolve().parents[1]
CHAT = '{"system": "你是税务顾问。", "messages": [{"role": "user", "content": "您好，请问个税怎么算？"}]}'


def test_source_text_is_content_never_a_file_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "secret.json").write_text('{"messages": [{"role": "user", "content": "from disk"}]}')
    conv = Source("secret.json").load()
    assert conv.format == "text" and conv.messages[0].text == "secret.json"


def test_source_errors_name_the_source():
    with pytest.raises(InputError, match=r"^chat\.json:1:"):
        Source("{", name="chat.json").load()


def test_source_digest_depends_on_the_text_only():
    assert Source(CHAT, "auto").digest == Source(CHAT, "anthropic", name="x").digest != Source(CHAT + " ").digest


def test_link_state_round_trips_through_a_share_token():
    view = ViewState(page="side-by-side", source=Source(CHAT, "anthropic", None, "tax.json"), ratio=0.25,
                     low_information=False, show_whitespace=True, message=0, view={"messages_page": 2},
                     profile="finance", min_effectiveness=0.98)
    back = view_from_link(share.decode_state(share.encode_state(link_state(view))))
    assert back == view


def test_every_view_state_field_travels_in_a_link():
    """A field added to ViewState must be carried by link_state (source fields are flattened)."""
    from dataclasses import fields

    state = link_state(ViewState(source=Source(CHAT)))
    carried = set(share.decode_state(share.encode_state(state))["view"]) | set(state) | {"source"}
    assert {f.name for f in fields(ViewState)} <= carried


@pytest.mark.parametrize("floor", FLOOR_CHOICES)
def test_every_floor_round_trips_through_a_link(floor):
    view = ViewState(source=Source(CHAT), ratio=0.4, min_effectiveness=floor)
    back = view_from_link(share.decode_state(share.encode_state(link_state(view))))
    assert back.min_effectiveness == floor and isinstance(back.min_effectiveness, float)


def test_an_old_link_without_a_floor_or_with_a_strange_one_loads_lossless():
    old = link_state(ViewState(source=Source(CHAT), ratio=0.4))
    del old["view"]["min_effectiveness"]
    assert view_from_link(share.decode_state(share.encode_state(old))).min_effectiveness == LOSSLESS
    for strange in (0.97, -1, 2, "0.98", True, None, float("nan")):
        state = {**old, "view": {**old["view"], "min_effectiveness": strange}}
        assert view_from_link(state).min_effectiveness == LOSSLESS


def test_floor_labels_and_cleaning():
    assert [floor_label(f) for f in FLOOR_CHOICES] == ["lossless", "0.99", "0.98", "0.95", "off"]
    assert clean_floor(0) == 0.0 and clean_floor(1) == 1.0 and clean_floor(0.95) == 0.95


@pytest.fixture(scope="module")
def support():
    return annotate(load_conversation(ROOT / "fixtures" / "support_chat.en.json"), env={})


def test_bound_message_for_each_way_selection_stops(support):
    frontier = support.safe_frontier
    assert 0.1 < frontier < 0.4  # the fixture: every redundant token is used at about 20 %

    budget = bound_message(support.at_ratio(0.1))
    at_10 = support.at_ratio(0.1)
    assert budget.stopped_by == "ratio" and budget.offer is None
    assert budget.text == (f"The budget (r = 0.10: at most {int(0.1 * at_10.tokens_total)} tokens) is used as far as "
                           f"whole spans fit: {at_10.tokens_pruned} pruned; a higher ratio prunes more.")
    assert at_10.tokens_pruned < int(0.1 * at_10.tokens_total)  # (why it says "as far as whole spans fit")

    safe_used = bound_message(support.at_ratio(0.5))
    assert safe_used.stopped_by == "floor" and safe_used.offer == 0.98
    step = slider_frontier(frontier)
    more = support.at_ratio(0.5, min_effectiveness=0.98).tokens_pruned - support.at_ratio(0.5).tokens_pruned
    assert more > 0 and safe_used.text == (f"All redundant tokens are used from r = {step:.2f}; allowing lossy "
                                           f"pruning (floor 0.98) takes {more} more tokens.")
    # where the lossy tier has nothing to add, there is no offer (a UX review: the button gave +0 on five of the
    # bundled samples)
    gov = annotate(load_conversation(ROOT / "fixtures" / "gov_hotline_12345.zh.json"), env={})
    assert gov.at_ratio(0.95, min_effectiveness=0.98).tokens_pruned == gov.at_ratio(0.95).tokens_pruned
    none_more = bound_message(gov.at_ratio(0.95))
    assert none_more.offer is None and none_more.text.endswith("would take nothing more here."), none_more
    # the position it names takes every safe-tier token, and the one below it does not yet
    assert support.at_ratio(step).tokens_pruned == support.at_ratio(0.95).tokens_pruned
    assert support.at_ratio(round(step - 0.01, 2)).tokens_pruned < support.at_ratio(0.95).tokens_pruned

    # (the support chat's grammar words run out before its floor: another conversation, under a higher floor)
    travel = annotate(load_conversation(ROOT / "fixtures" / "sharegpt_travel.en.json"), env={})
    result = travel.at_ratio(0.5, min_effectiveness=0.99)
    floor = bound_message(result)
    assert floor.stopped_by == "floor" and floor.offer is None
    assert floor.text.startswith(f"Stopped by the 0.99 floor at {result.pruned_fraction:.0%}")

    nothing = bound_message(support.at_ratio(0.9, min_effectiveness=0.0))
    assert nothing.stopped_by == "candidates" and nothing.text == "Nothing left that either tier may take."


def test_bound_message_says_when_the_safe_rules_alone_are_below_the_floor():
    # (a 15-token prompt from the corpus: pruning 一下 weighs 5 % of its estimated information)
    result = annotate(load_conversation("介绍一下什么是机器学习？"), env={}).at_ratio(0.5, min_effectiveness=0.98)
    assert result.tokens_lossy == 0 and result.effectiveness_estimate < 0.98
    bound = bound_message(result)
    assert bound.text == (
        f"The safe rules alone bring the estimate to {result.effectiveness_estimate:.3f}, below the 0.98 floor, "
        "which bounds only the lossy tier: it took nothing.")


def test_bound_message_is_silent_when_layer_zero_is_disabled():
    conv = load_conversation(json.dumps({
        "system": '<layer-zero enabled="false"/>\nBe brief.',
        "messages": [{"role": "user", "content": "Could you please kindly help me, thank you so much?"}]}))
    assert bound_message(annotate(conv, env={}).at_ratio(0.5)) is None


def test_link_without_a_ratio_keeps_the_conversations_own():
    back = view_from_link(share.decode_state(share.encode_state(link_state(ViewState(source=Source(CHAT))))))
    assert back.ratio is None and back.page == DEFAULT_PAGE


def test_link_to_an_unknown_page_opens_the_default_page():
    assert view_from_link({"page": "nope", "conversation": CHAT}).page == DEFAULT_PAGE


def test_link_without_a_conversation_is_a_share_link_error():
    with pytest.raises(ShareLinkError, match="no conversation"):
        view_from_link({"page": "timing", "ratio": 0.3})


def test_clean_view_keeps_only_known_values_that_pass_their_check():
    assert clean_view({"heatmap_page": 0, "messages_page": True, "color_by": "score", "heatmap_view": "x",
                       "source_name": "a"}) == {"color_by": "score"}


def test_default_page_is_served_at_the_root():
    assert page_url_path(DEFAULT_PAGE) == "" and all(page_url_path(p) == p for p in PAGES if p != DEFAULT_PAGE)


@pytest.mark.parametrize("argv, expected", [
    (["app.py", "--fixture", "f.json"], "f.json"),
    (["app.py", "--fixture=f.json"], "f.json"),
    (["app.py", "--fixture"], None),
    (["pytest", "tests/app"], None),
])
def test_fixture_from_argv(argv, expected):
    assert fixture_from_argv(argv) == expected


def test_gallery_lists_described_fixtures_first_then_the_rest(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.txt").write_text("hi")
    (tmp_path / "GALLERY.toml").write_text(
        '[files."b.txt"]\ntitle = "B"\ndescription = "bee"\nlang = "en"\n[files."gone.json"]\ntitle = "G"\n'
        '[files."../escape.json"]\ntitle = "E"\n')
    (tmp_path.parent / "escape.json").write_text("{}")
    items = read_gallery(tmp_path)
    assert [(i.file, i.title, i.description) for i in items] == [("b.txt", "B", "bee"), ("a.json", "a.json", "")]


def test_gallery_of_the_bundled_fixtures_has_a_description_for_each():
    items = read_gallery(ROOT / "fixtures")
    assert items and all(i.description for i in items)


def test_broken_gallery_toml_still_lists_files(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "GALLERY.toml").write_text("[files\n")
    assert [i.file for i in read_gallery(tmp_path)] == ["a.json"]


def test_upload_text_drops_the_bom_and_reports_bad_bytes():
    assert text_of_upload(b"\xef\xbb\xbfhello", "a.txt") == "hello"
    with pytest.raises(InputError, match=r"a\.txt: byte 1"):
        text_of_upload(b"h\xe9llo", "a.txt")


def test_page_count():
    assert [page_count(n, 10) for n in (0, 1, 10, 11)] == [1, 1, 1, 2]


def test_page_bounds_never_split_a_group():
    groups = [0, 1, 1, 1, 2, 3, 3, 4]
    bounds = page_bounds(groups, 2)
    assert bounds[0] == 0 and bounds[-1] == len(groups)
    assert all(groups[b] != groups[b - 1] for b in bounds[1:-1])
    assert page_bounds([], 2000) == [0, 0]


def test_app_base_url_strips_the_page_path():
    assert app_base_url("http://h:8501/timing", "timing") == "http://h:8501"
    assert app_base_url("http://h:8501/", "") == "http://h:8501"
    assert app_base_url("https://x.org/app/sweep", "sweep") == "https://x.org/app"
    assert app_base_url(None, "timing") == "http://127.0.0.1:8501"


def test_download_names_follow_the_input_kind():
    assert download_names("chat.json", load_conversation(CHAT))["pruned"] == "chat.pruned.json"
    assert download_names("pasted", load_conversation("Hi"))["tokens"] == "conversation.tokens.csv"
    http = load_conversation(ROOT / "fixtures" / "capture.http")
    assert download_names("capture.http", http)["pruned"] == "capture.pruned.http"
    jsonl = load_conversation(ROOT / "fixtures" / "batch_small.jsonl", line=2)
    assert download_names("batch_small.jsonl", jsonl)["pruned"] == "batch_small.pruned.jsonl"


def test_md_escape_neutralises_markdown_and_html():
    assert md_escape("<img src=x> [a](javascript:b) $x$") == "\\<img src=x\\> \\[a\\](javascript:b) \\$x\\$"


def test_result_view_tables():
    annotated = annotate(load_conversation(CHAT), env={})
    view = ResultView(annotated.at_ratio(0.5))
    assert set(view.tokens["label"]) == {"system", "#0 user"}
    assert list(view.tokens["m"].unique()) == [0, 1]
    assert list(view.deleted.columns) == ["m", "message", "reason", "text", "detail", "block", "start", "end"]
    assert view.tokens_csv().splitlines()[0].startswith("message,role,block,i,id,text")
    assert view.memo("x", lambda: 1) == view.memo("x", lambda: 2) == 1


def test_message_position_compares_keys_by_type():
    conv = load_conversation(CHAT)
    assert message_position(conv, "system") == 0 and message_position(conv, 0) == 1
    assert message_position(conv, "0") is None and message_position(conv, False) is None


def test_the_frontier_is_shown_at_the_first_slider_position_that_reaches_it():
    # (finance_qa's frontier is 0.134: shown as "0.13", the slider there left 3 of its 124 tokens)
    assert slider_frontier(0.134) == 0.14 and slider_frontier(0.13) == 0.13 and slider_frontier(0.1300001) == 0.14
    assert slider_frontier(0.0) == 0.0 and slider_frontier(0.951) == 0.95
    ann = annotate(load_conversation(ROOT / "fixtures" / "finance_qa.zh.json"), env={})
    step = slider_frontier(ann.safe_frontier)
    assert ann.at_ratio(step).tokens_pruned == ann.at_ratio(0.95).tokens_pruned
