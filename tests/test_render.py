"""Token heatmap HTML: escaping, merged display groups, whitespace, one style per reason, and WCAG contrast of every
chip in both Streamlit themes."""
from __future__ import annotations

import doctest
import html
import re
from dataclasses import FrozenInstanceError

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layerzero_viz import reasons, render
from layerzero_viz.reasons import (
    ALL_REASONS,
    KEEP_REASONS,
    PROTECTED_REASONS,
    PRUNE_REASONS,
    REASON_STYLES,
    reason_style,
)
from layerzero_viz.render import (
    DIM_OPACITY, HIT_COLOR, THEMES, TOKEN_CSS, chip_colors, contrast_ratio, legend_html, message_card_html,
    tint_alpha, token_html,
)

XSS = ['<img src=x onerror=alert(1)>', "<script>alert('x')</script>", '" onmouseover="alert(1)', "a'b&c"]


def tokens(*rows: dict) -> pd.DataFrame:
    """A token table like the engine's; each row gives at least ``text``, the rest has defaults."""
    full = []
    for n, row in enumerate(rows):
        reason = row.get("reason", "content")
        full.append(
            {
                "message": 0, "role": "user", "block": 0, "i": n, "id": row.get("id", 1000 + n),
                "text": row["text"], "start": 0, "end": 0,
                "decision": REASON_STYLES[reason].decision if reason in REASON_STYLES else "keep",
                "reason": reason, "detail": row.get("detail", ""), "score": row.get("score", 0.5),
                "span": -1, "group": row.get("group", n),
            }
        )
    return pd.DataFrame(full)


def chips(markup: str) -> list[str]:
    return re.findall(r'<span class="lz-tok [^"]*"', markup)


def titles(markup: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r' title="([^"]*)"', markup)]


# ---------------------------------------------------------------- escaping


@pytest.mark.parametrize("payload", XSS)
def test_payload_in_token_text_is_escaped(payload):
    markup = token_html(tokens({"text": payload, "reason": "filler"}))
    assert payload not in markup or not re.search(r"[<>\"']", payload)
    assert "<img" not in markup and "<script" not in markup and "onmouseover=\"" not in markup
    assert html.escape(payload, quote=True) in markup


@pytest.mark.parametrize("payload", XSS)
def test_payload_in_detail_is_escaped_inside_the_title(payload):
    markup = token_html(tokens({"text": "x", "reason": "repeated_constraint", "detail": payload}))
    assert "<img" not in markup and "<script" not in markup and 'onmouseover="' not in markup
    assert payload in titles(markup)[0]


@settings(max_examples=200)
@given(st.text(), st.text())
def test_no_user_text_can_open_a_tag_or_attribute(text, detail):
    markup = token_html(tokens({"text": text, "detail": detail, "reason": "filler"}), show_whitespace=True)
    # Every "<" in the output starts one of our own tags; every quote closes one of our own attributes.
    assert set(re.findall(r"<(/?[a-z0-9]+)", markup)) <= {"div", "/div", "span", "/span", "sup", "/sup", "br"}
    assert len(chips(markup)) == 1
    plain = token_html(tokens({"text": text, "detail": detail, "reason": "filler"}))
    shown = html.unescape(re.sub(r"<[^>]*>", "", plain.replace("<br>", "\n")))
    assert text.replace("\r\n", "\n").replace("\r", "\n") in shown


def test_message_card_escapes_role_key_and_counts():
    card = message_card_html('<b>"user"</b>', "<script>", "<i>chips</i>", {"tokens": 1200, "<x>": "<y>"})
    assert "<b>" not in card and "<script>" not in card and "<x>" not in card and "<y>" not in card
    assert "&lt;script&gt;" in card and "tokens 1,200" in card
    assert "<i>chips</i>" in card  # the chips are our own markup and pass through


def test_message_card_header_uses_the_message_label():
    assert '<span class="lz-card-role">#3 user</span>' in message_card_html("user", 3, "", {})
    assert '<span class="lz-card-role">system</span>' in message_card_html("system", "system", "", {})


# ---------------------------------------------------------------- groups


def test_tokens_of_one_group_merge_into_one_chip_listing_every_id():
    df = tokens(
        {"text": "你", "id": 53901, "group": 7, "reason": "filler", "detail": "politeness"},
        {"text": "", "id": 252, "group": 7, "reason": "filler", "detail": "politeness"},
        {"text": "好", "id": 53902, "group": 8},
    )
    markup = token_html(df)
    assert len(chips(markup)) == 2
    first = titles(markup)[0]
    assert "53901, 252" in first and first.count("politeness") == 1 and first.startswith("Filler")
    assert '</sup>你</span>' in markup  # the glyph leads the run, the text follows


def test_group_title_shows_every_distinct_reason_and_the_highest_score():
    df = tokens(
        {"text": "a", "group": 1, "reason": "protected_number", "score": 0.2},
        {"text": "b", "group": 1, "reason": "protected_identifier", "score": 0.9},
    )
    title = titles(token_html(df))[0]
    assert title.startswith("Number / Identifier") and "score 0.90" in title


def test_title_has_label_detail_id_and_score():
    title = titles(token_html(tokens({"text": "请问", "id": 42, "reason": "declared_redundant",
                                      "detail": "listed in <redundant_phrases>", "score": 0.25})))[0]
    assert title == "Declared redundant\nlisted in <redundant_phrases>\ntoken 42 · score 0.25"


def test_max_tokens_cuts_between_groups_and_says_how_many_are_hidden():
    df = tokens({"text": "a"}, {"text": "b", "group": 9}, {"text": "", "group": 9}, {"text": "c"})
    markup = token_html(df, max_tokens=2)
    assert len(chips(markup)) == 2  # the group of two is not split
    assert "… 1 more token not shown" in markup
    assert "more token" not in token_html(df)
    assert "4 more tokens" in token_html(df, max_tokens=0)


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match="group"):
        token_html(pd.DataFrame({"id": [1], "text": ["a"], "reason": ["content"], "detail": [""], "score": [0]}))


def test_empty_table_renders_an_empty_container():
    assert token_html(tokens().reindex(columns=["id", "text", "reason", "detail", "score", "group"])) == (
        '<div class="lz-tokens"></div>'
    )


# ---------------------------------------------------------------- whitespace


def test_whitespace_toggle_shows_spaces_tabs_and_newlines():
    df = tokens({"text": "a b\tc\nd"})
    shown = token_html(df, show_whitespace=True)
    ws = '<span class="lz-ws">{}</span>'.format
    assert f">a{ws('·')}b{ws('→')}c{ws('↵')}<br>d<" in shown
    plain = token_html(df)
    assert ">a b\tc<br>d<" in plain and "lz-ws" not in plain


def test_windows_newlines_become_one_line_break():
    assert token_html(tokens({"text": "a\r\nb"})).count("<br>") == 1


# ---------------------------------------------------------------- styles


@pytest.mark.parametrize("code", ALL_REASONS)
def test_every_reason_renders_with_its_class_and_glyph(code):
    style = REASON_STYLES[code]
    markup = token_html(tokens({"text": "t", "reason": code, "score": 1.0}))
    assert f'class="lz-tok lz-{code} lz-k-{style.kind} lz-start lz-end"' in markup
    assert f'data-icon="{style.glyph}"' in markup
    assert f'data-decision="{style.decision}"' in markup
    assert titles(markup)[0].startswith(style.label)
    assert (f'<sup class="lz-icon" aria-hidden="true">{html.escape(style.glyph)}</sup>' in markup) == bool(style.glyph)


def test_unknown_reason_still_renders_plainly():
    markup = token_html(tokens({"text": "t", "reason": "brand_new<x>"}))
    assert 'class="lz-tok lz-brand_new_x_ lz-k-plain' in markup and "Brand new<x>" in titles(markup)[0]


def test_tint_follows_the_score():
    assert tint_alpha(0) == pytest.approx(0.6) and tint_alpha(1) == pytest.approx(1.0)
    assert tint_alpha(0.5) == pytest.approx(0.8) and tint_alpha(float("nan")) == pytest.approx(0.6)
    assert tint_alpha(7) == pytest.approx(1.0)

    def alpha(score: float) -> float:
        markup = token_html(tokens({"text": "t", "reason": "filler", "score": score}))
        return float(re.search(r"--lz-tint: rgba\(\d+, \d+, \d+, ([0-9.]+)\)", markup).group(1))

    assert alpha(0.0) < alpha(0.5) < alpha(1.0) <= 1
    assert alpha(1.0) / alpha(0.0) == pytest.approx(1 / 0.6, rel=0.01)


def test_plain_content_has_no_tint():
    assert "--lz-tint" not in token_html(tokens({"text": "t", "reason": "content"}))


def test_a_run_of_one_reason_gets_one_glyph_and_rounded_ends_only():
    df = tokens(*({"text": ch, "reason": "filler"} for ch in "非常感谢"), {"text": "您", "reason": "content"},
                {"text": "1", "reason": "protected_number"}, {"text": "2", "reason": "protected_number"})
    markup = token_html(df)
    found = chips(markup)
    assert len(found) == 7
    assert markup.count('<sup class="lz-icon" aria-hidden="true">…</sup>') == 1
    assert markup.count('<sup class="lz-icon" aria-hidden="true">#</sup>') == 1
    assert [("lz-start" in c, "lz-end" in c) for c in found] == [
        (True, False), (False, False), (False, False), (False, True), (True, True), (True, False), (False, True)]


def test_css_strikes_pruned_tokens_and_keeps_protections_quiet_until_shown():
    for code in PRUNE_REASONS:
        assert re.search(rf"(^|\n)\.lz-{code} \{{[^}}]*line-through", TOKEN_CSS)
    for code in PROTECTED_REASONS:
        # the edge and tint only inside .lz-show-protections (and the legend), or on hover/selection/focus
        rule = re.search(rf"\n([^\n{{]*\.lz-{code}[^\n{{]*) \{{([^}}]*)\}}", TOKEN_CSS)
        selector, body = rule.groups()
        assert "box-shadow" in body and "background-color: var(--lz-tint)" in body
        assert {s.strip() for s in re.split(r",(?![^(]*\))", selector)} == {
            f":is(.lz-show-protections, .lz-legend) .lz-{code}", f".lz-{code}:hover", f".lz-{code}.lz-selected",
            f".lz-{code}:focus-visible"}
    assert ".lz-k-protected > sup.lz-icon { display: none; }" in TOKEN_CSS
    assert re.search(r"\.lz-over_budget \{[^}]*dashed", TOKEN_CSS)
    assert ".lz-content {" not in TOKEN_CSS


def test_chips_take_no_room_beyond_their_text():
    # Boxes and padding around each chip spread CJK text apart (issue 16): lines are shadows and decorations.
    chip_rules = " ".join(re.findall(r"\.lz-[a-z_]+[^{\n]*\{([^}]*)\}", TOKEN_CSS.split(".lz-legend {")[0]))
    assert not re.search(r"border(-top|-bottom|-left|-right)?(-width)?:", chip_rules)
    assert "padding: 0 " not in chip_rules.replace("padding: 0;", "")
    assert re.search(r"\.lz-tok \{[^}]*padding: 0;[^}]*margin: 0;", TOKEN_CSS)


def test_protection_toggle_marks_the_wrapper():
    df = tokens({"text": "42", "reason": "protected_number"})
    assert token_html(df).startswith('<div class="lz-tokens">')
    assert token_html(df, show_protections=True).startswith('<div class="lz-tokens lz-show-protections">')


def test_css_suits_dark_themes_by_never_fixing_the_text_colour():
    assert TOKEN_CSS.startswith("<style>") and TOKEN_CSS.endswith("</style>")
    assert "currentColor" in TOKEN_CSS
    assert not re.search(r"(?<![-\w])color:\s*(#000|#000000|black|#fff|white)", TOKEN_CSS, re.IGNORECASE)


# ---------------------------------------------------------------- contrast (WCAG 2.1 AA)


def test_contrast_ratio_matches_known_pairs():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#FFFFFF", "#FFFFFF") == pytest.approx(1.0)
    assert contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)  # the classic just-fails grey
    assert contrast_ratio("#D55E00", "#FFFFFF") == contrast_ratio("#FFFFFF", "#D55E00")


def contrast_table() -> list[tuple[str, str, float, bool, bool, float]]:
    """(theme, reason, score, shown, dimmed, text contrast) for every way a chip can be drawn."""
    rows = []
    for theme in THEMES.values():
        for code in ALL_REASONS:
            for score in (0.0, 0.5, 1.0):
                for shown in (False, True):
                    for dimmed in (False, True):
                        fg, bg = chip_colors(code, theme, score=score, shown=shown, dimmed=dimmed)
                        rows.append((theme.name, code, score, shown, dimmed, contrast_ratio(fg, bg)))
    return rows


def test_every_chip_text_passes_wcag_aa_in_light_and_dark_themes():
    table = contrast_table()
    assert len(table) == 2 * 22 * 3 * 2 * 2
    failing = [row for row in table if row[-1] < 4.5]
    assert not failing, failing
    worst = {name: min(r[-1] for r in table if r[0] == name) for name in THEMES}
    assert all(value >= 4.5 for value in worst.values()), worst


def test_a_chip_tint_is_really_there_for_pruned_tokens():
    # The contrast check must not pass because nothing is drawn: pruned chips have a background of their own.
    for theme in THEMES.values():
        for code in PRUNE_REASONS:
            _, bg = chip_colors(code, theme, score=0.0)
            assert contrast_ratio(bg, theme.background) > 1.15, (theme.name, code)


@pytest.mark.parametrize("theme", list(THEMES))
def test_reason_lines_and_outlines_have_3_to_1_against_the_page(theme):
    # WCAG 1.4.11 (non-text contrast): the strike, bar, edge and dashed line in the reason's colour, and the
    # search hit outline, must be visible on both themes' backgrounds.
    page = THEMES[theme].background
    for code in ALL_REASONS:
        assert contrast_ratio(REASON_STYLES[code].color, page) >= 3.0, code
    assert contrast_ratio(HIT_COLOR, page) >= 3.0


def test_filler_is_no_longer_yellow_on_yellow():
    # Issue 16: the strike of a filler chip was #F0E442 on a #F0E442 tint; now the line stands out from its tint.
    for theme in THEMES.values():
        _, bg = chip_colors("filler", theme, score=1.0)
        assert contrast_ratio(REASON_STYLES["filler"].color, bg) >= 1.5, theme.name
    assert 0 < DIM_OPACITY < 1


def test_legend_lists_every_reason_once_under_its_group():
    legend = legend_html()
    for code in ALL_REASONS:
        assert legend.count(f'class="lz-tok lz-{code} ') == 1
        assert html.escape(REASON_STYLES[code].label) in legend
    assert legend.index("Pruned") < legend.index("Protected") < legend.index("Other kept")


# ---------------------------------------------------------------- the reason table


def test_reason_groups_partition_the_codes():
    assert set(PRUNE_REASONS).isdisjoint(KEEP_REASONS)
    assert set(PROTECTED_REASONS) < set(KEEP_REASONS)
    assert set(REASON_STYLES) == set(ALL_REASONS) and len(ALL_REASONS) == 22


def test_reason_styles_are_frozen_and_well_formed():
    for code, style in REASON_STYLES.items():
        assert style.code == code and style.label and re.fullmatch(r"#[0-9A-F]{6}", style.color)
        assert len(style.glyph) <= 1 and (style.glyph or code == "content")
        expected_kind = ("prune" if code in PRUNE_REASONS else "protected" if code in PROTECTED_REASONS
                         else "over_budget" if code == "over_budget" else "plain")
        assert style.kind == expected_kind
    with pytest.raises(FrozenInstanceError):
        REASON_STYLES["filler"].label = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        REASON_STYLES["x"] = REASON_STYLES["filler"]  # type: ignore[index]


def test_colours_are_distinct_within_prune_and_within_protected():
    for group in (PRUNE_REASONS, PROTECTED_REASONS):
        colours = [REASON_STYLES[c].color for c in group]
        assert len(set(colours)) == len(colours)


def test_rgba_clamps_alpha():
    assert reason_style("filler").rgba(2) == "rgba(155, 128, 0, 1.0)"
    assert reason_style("filler").rgba(-1) == "rgba(155, 128, 0, 0.0)"


@pytest.mark.parametrize("module", [reasons, render])
def test_docstring_examples_hold(module):
    assert doctest.testmod(module).failed == 0
