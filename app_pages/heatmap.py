"""Heatmap: every token as a chip in its message card, or overview charts of the whole conversation."""
import dataclasses

import streamlit as st

from layerzero_viz import charts, render
from layerzero_viz.appstate import (
    COLOR_BY, HEATMAP_VIEWS, MAX_SEARCH_CHARS, TIER_CHOICES, TOKENS_PER_PAGE, floor_label, md_escape, page_bounds,
    counted, passed_through,
)
from layerzero_viz.find import chip_details, filters_active, groups_of, match_rows, run_starts, sentence_of
from layerzero_viz.reasons import ALL_REASONS, reason_style
from ui import chips, heatmap, session, sidebar, widgets

# Page layout the widgets cannot say: the details panel sticks under the app's header while the text scrolls,
# and on a phone (Streamlit stacks below 640 px) the legend moves below the text, so the text comes first.
LAYOUT_CSS = """<style>
[data-testid=stMain] [data-testid=stLayoutWrapper]:has(> .st-key-chip_details) { position: sticky; top: 3.75rem;
  z-index: 5; background-color: var(--lz-page-bg, Canvas); max-height: 45vh; overflow-y: auto; }
@media (max-width: 640px) {
  [data-testid=stMain] [data-testid=stLayoutWrapper]:has(> .st-key-heatmap_legend) { order: 10; }
  [data-testid=stMain] [data-testid=stLayoutWrapper]:has(> .st-key-chip_details) { max-height: 40vh; }
}
</style>"""

ss = st.session_state
cur = widgets.require_current()
conv = cur.annotated.conversation
tokens = cur.view.tokens

st.title("Heatmap")
result = cur.result
tiers = (f" ({result.tokens_safe:,} safe, {result.tokens_lossy:,} lossy ≈)" if result.tokens_lossy else "")
settings = cur.annotated.settings
off = "" if settings.enabled else f" Layer-zero is disabled by the {md_escape(settings.enabled_source)}: nothing is pruned."
st.caption(f"{md_escape(cur.source.name)} · {result.tokens_pruned:,} of {result.tokens_total:,} tokens "
           f"pruned{tiers} at r = {result.ratio:.2f}. Effectiveness floor: {floor_label(result.min_effectiveness)}."
           + off)

# A control rather than st.tabs: only the chosen view is computed, and a debug link can reopen it.
view = st.segmented_control("View", HEATMAP_VIEWS, key=session.HEATMAP_VIEW, persist_state="session",
                            format_func={"tokens": "Tokens", "overview": "Overview charts"}.get,
                            label_visibility="collapsed") or HEATMAP_VIEWS[0]

if view == "tokens":
    # The view controls live in the sidebar: on a phone it folds away and the text comes first.
    with sidebar.page_controls():
        st.markdown("**Tokens shown**")
        position = widgets.message_select(conv)
        shown = tokens if position is None else tokens[tokens["m"] == position]
        bounds = cur.view.memo(("bounds", position), lambda: page_bounds(shown["group"].to_numpy(), TOKENS_PER_PAGE))
        # Find: search and filters mark chips (the rest is dimmed, not hidden: context matters); ◀ ▶ jump among them.
        st.text_input("Search tokens", key=session.SEARCH, max_chars=MAX_SEARCH_CHARS, persist_state="session",
                      placeholder="text in the tokens", help="Case-insensitive; a word split over tokens is found whole.")
        present = set(tokens["reason"])
        st.multiselect("Reason", [r for r in ALL_REASONS if r in present or r in ss[session.REASONS]],
                       key=session.REASONS, format_func=lambda r: reason_style(r).label, persist_state="session",
                       placeholder="any reason")
        st.multiselect("Tier", TIER_CHOICES, key=session.TIERS, persist_state="session", placeholder="any tier",
                       format_func={"safe": "safe", "lossy": "lossy ≈", "none": "neither (kept)"}.get,
                       help="Which tier pruned the token: safe (redundant by a rule), lossy (beyond the safe rules), "
                            "or neither (kept, or an engine directive)")
        st.toggle("Show protections", key=session.PROTECTIONS, persist_state="session",
                  help="Mark every protected token (numbers, negations, quotes, your patterns …) with its colour and "
                       "glyph. Off, protections stay quiet: a protected token shows its mark when hovered or selected.")
        st.toggle("Show whitespace", key=session.SHOW_WHITESPACE, persist_state="session",
                  help="Spaces as ·, tabs as →, newlines as ↵")
        page = widgets.page_number(session.TOKEN_PAGE, len(bounds) - 1)
    active = filters_active(ss[session.SEARCH], ss[session.REASONS], ss[session.TIERS])
    found = (match_rows(shown, search=ss[session.SEARCH], reasons=ss[session.REASONS], tiers=ss[session.TIERS])
             if active else (shown["decision"] == "prune").to_numpy())
    targets = run_starts(shown, found)  # one step per match or pruned run, not per chip
    what = "match" if active else "pruned run of tokens"
    args = (targets, shown["group"].to_numpy(), bounds)
    first, last = bounds[page - 1], bounds[page]
    chunk = shown.iloc[first:last]
    chip = ss.get(session.CHIP)

    st.html(LAYOUT_CSS)  # styles only: takes no room
    with st.container(horizontal=True, key="heatmap_bar", vertical_alignment="center"):
        st.button("Previous", key="heatmap_prev", icon=":material/arrow_back:", on_click=heatmap.jump,
                  args=(*args, False), disabled=not targets, help=f"Previous {what}")
        st.button("Next", key="heatmap_next", icon=":material/arrow_forward:", on_click=heatmap.jump,
                  args=(*args, True), disabled=not targets, help=f"Next {what}")
        with st.popover("Download", icon=":material/download:"):
            widgets.downloads(cur, key="heatmap_downloads", result_json=False)
    if active:
        st.caption(f"{counted(len(targets), 'match', 'matches')} ({counted(int(found.sum()), 'token')}); "
                   "the rest is dimmed.")

    with st.container(key="heatmap_legend"):  # after the text on a phone (LAYOUT_CSS)
        with st.expander("Legend: what the colours and marks mean", expanded=True):  # open on a first visit
            st.markdown(render.TOKEN_CSS + render.legend_html(), unsafe_allow_html=True)
    details = chip_details(tokens, chip) if chip is not None else None
    if details is not None and chip is not None and 0 <= chip < len(cur.annotated.g_start):
        details = dataclasses.replace(details, sentence=sentence_of(cur.annotated.view,
                                                                    int(cur.annotated.g_start[chip])))
    if details is not None:
        heatmap.details_panel(details)  # sticky (LAYOUT_CSS): a tap far down the text still shows it
    if chunk.empty:
        st.info("This selection has no text tokens (images and tool blocks are passed through untouched).")
    else:
        directive = int((shown["reason"] == "directive").sum())
        # (the range counts every chip: "1–1,146 of 1,099 + 47 directive" read as running past the total)
        of = f"{len(shown):,} ({directive:,} of them engine directives)" if directive else f"{len(shown):,}"
        st.caption(f"Token chips {first + 1:,}–{last:,} of {of} ({TOKENS_PER_PAGE:,} per page). "
                   "Click or tap a token (or Tab to it and press Enter) for its details.")
        st.markdown(render.TOKEN_CSS, unsafe_allow_html=True)
        # counted like the sidebar: engine directives are outside tokens_total and tokens_pruned
        totals = cur.view.memo("per_message", lambda: charts.without_directives(tokens)
                               .assign(pruned=lambda t: t["decision"] == "prune")
                               .groupby("m").agg(tokens=("pruned", "size"), pruned=("pruned", "sum"))
                               .reindex(sorted(tokens["m"].unique()), fill_value=0))
        marks = set(groups_of(shown, found)) if active else None
        cards = []
        parts = dict(list(chunk.groupby("m", sort=True)))
        # a message with no text (a tool call, an image) between this page's first and last message gets a card too:
        # it had been skipped, the tool call shown nowhere
        lo = 0 if page == 1 else int(chunk["m"].iloc[0])
        hi = len(conv.messages) - 1 if page == len(bounds) - 1 else int(chunk["m"].iloc[-1])
        notes = {p: passed_through(conv, p) for p in range(lo, hi + 1) if position is None or p == position}
        textless = [p for p, found in notes.items() if found and p not in parts
                    and not any(b.kind == "text" and b.text for b in conv.messages[p].blocks)]
        for m in sorted([*parts, *textless]):
            message = conv.messages[int(m)]
            note = render.passed_through_html(notes[int(m)])  # (every message of the page is in notes)
            if m not in parts:
                cards.append(render.message_card_html(message.role, message.key, note, {"tokens": 0}))
                continue
            part = parts[m]
            counts = {"tokens": int(totals.at[m, "tokens"]), "pruned": int(totals.at[m, "pruned"])}
            if len(part) < counts["tokens"]:
                counts["on this page"] = len(part)
            html = render.token_html(part, show_whitespace=ss[session.SHOW_WHITESPACE], marks=marks, selected=chip,
                                     interactive=True, show_protections=ss[session.PROTECTIONS])
            cards.append(render.message_card_html(message.role, message.key, html + note, counts))
        scroll = ss.get(heatmap.SCROLL)
        chips.chips("".join(cards), on_pick=heatmap.pick, scroll=None if scroll is None else str(scroll))
else:
    labels = {"pruned_share": "Pruned share", "score": "Mean score"}
    color_by = st.segmented_control("Colour by", COLOR_BY, key=session.COLOR, format_func=labels.get,
                                    persist_state="session") or COLOR_BY[0]
    st.altair_chart(cur.view.memo(("heatmap", color_by), lambda: charts.overview_heatmap(tokens, color_by=color_by)),
                    width="stretch")
    st.altair_chart(cur.view.memo("by_reason", lambda: charts.pruned_by_reason_bar(tokens)), width="stretch")
