"""Heatmap: every token as a chip in its message card, or overview charts of the whole conversation."""
import streamlit as st

from layerzero_viz import charts, render
from layerzero_viz.appstate import COLOR_BY, HEATMAP_VIEWS, TOKENS_PER_PAGE, floor_label, md_escape, page_bounds
from ui import session, widgets

ss = st.session_state
cur = widgets.require_current()
conv = cur.annotated.conversation
tokens = cur.view.tokens

st.title("Heatmap")
result = cur.result
tiers = (f" ({result.tokens_safe:,} safe, {result.tokens_lossy:,} lossy ≈)" if result.tokens_lossy else "")
st.caption(f"{md_escape(cur.source.name)} · {result.tokens_pruned:,} of {result.tokens_total:,} tokens "
           f"pruned{tiers} at r = {result.ratio:.2f}. Effectiveness floor: {floor_label(result.min_effectiveness)}.")

# A control rather than st.tabs: only the chosen view is computed, and a debug link can reopen it.
view = st.segmented_control("View", HEATMAP_VIEWS, key=session.HEATMAP_VIEW, persist_state="session",
                            format_func={"tokens": "Tokens", "overview": "Overview charts"}.get,
                            label_visibility="collapsed") or HEATMAP_VIEWS[0]

if view == "tokens":
    pick, whitespace, paging = st.columns([3, 2, 2], vertical_alignment="bottom")
    with pick:
        position = widgets.message_select(conv)
    with whitespace:
        st.toggle("Show whitespace", key=session.SHOW_WHITESPACE, persist_state="session",
                  help="Spaces as ·, tabs as →, newlines as ↵")
    shown = tokens if position is None else tokens[tokens["m"] == position]
    bounds = cur.view.memo(("bounds", position), lambda: page_bounds(shown["group"].to_numpy(), TOKENS_PER_PAGE))
    with paging:
        page = widgets.page_number(session.TOKEN_PAGE, len(bounds) - 1)
    first, last = bounds[page - 1], bounds[page]
    chunk = shown.iloc[first:last]

    with st.expander("Legend: what the colours, borders and marks mean", expanded=True):  # open on a first visit
        st.markdown(render.TOKEN_CSS + render.legend_html(), unsafe_allow_html=True)
    if chunk.empty:
        st.info("This selection has no text tokens (images and tool blocks are passed through untouched).")
    else:
        directive = int((shown["reason"] == "directive").sum())
        of = f"{len(shown) - directive:,} + {directive:,} directive" if directive else f"{len(shown):,}"
        st.caption(f"Token chips {first + 1:,}–{last:,} of {of} ({TOKENS_PER_PAGE:,} per page). "
                   "Hover a token for its reason, detail, tier, estimated loss, token ids and score.")
        st.markdown(render.TOKEN_CSS, unsafe_allow_html=True)
        # counted like the sidebar: engine directives are outside tokens_total and tokens_pruned
        totals = cur.view.memo("per_message", lambda: tokens[tokens["reason"] != "directive"]
                               .assign(pruned=lambda t: t["decision"] == "prune")
                               .groupby("m").agg(tokens=("pruned", "size"), pruned=("pruned", "sum"))
                               .reindex(sorted(tokens["m"].unique()), fill_value=0))
        for m, part in chunk.groupby("m", sort=True):
            message = conv.messages[int(m)]
            counts = {"tokens": int(totals.at[m, "tokens"]), "pruned": int(totals.at[m, "pruned"])}
            if len(part) < counts["tokens"]:
                counts["on this page"] = len(part)
            chips = render.token_html(part, show_whitespace=ss[session.SHOW_WHITESPACE])
            st.markdown(render.message_card_html(message.role, message.key, chips, counts), unsafe_allow_html=True)
else:
    labels = {"pruned_share": "Pruned share", "score": "Mean score"}
    color_by = st.segmented_control("Colour by", COLOR_BY, key=session.COLOR, format_func=labels.get,
                                    persist_state="session") or COLOR_BY[0]
    st.altair_chart(cur.view.memo(("heatmap", color_by), lambda: charts.overview_heatmap(tokens, color_by=color_by)),
                    width="stretch")
    st.altair_chart(cur.view.memo("by_reason", lambda: charts.pruned_by_reason_bar(tokens)), width="stretch")
