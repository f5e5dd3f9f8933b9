"""Side by side: each message before (deletions marked) and after, every deleted span, and downloads."""
import streamlit as st

from layerzero_viz import render
from layerzero_viz.appstate import MESSAGES_PER_PAGE, TOKENS_PER_PAGE, counted, md_escape, page_count, passed_through
from ui import session, sidebar, widgets

ss = st.session_state
cur = widgets.require_current()
conv, result, tokens = cur.annotated.conversation, cur.result, cur.view.tokens

st.title("Side by side")
with sidebar.page_controls():  # in the sidebar: on a phone the text comes first
    st.markdown("**Messages shown**")
    position = widgets.message_select(conv)
    positions = list(range(len(conv.messages))) if position is None else [position]
    page = widgets.page_number(session.MESSAGES_PAGE, page_count(len(positions), MESSAGES_PER_PAGE),
                               label="Messages page")
positions = positions[(page - 1) * MESSAGES_PER_PAGE: page * MESSAGES_PER_PAGE]

st.markdown(render.TOKEN_CSS, unsafe_allow_html=True)
for pos in positions:
    message = result.messages[pos]
    with st.container(border=True):
        st.markdown(f"**{md_escape(render.message_label(message.message, message.role))}**")
        if notes := passed_through(conv, pos):  # a tool call had been two empty boxes
            st.markdown(render.passed_through_html(notes), unsafe_allow_html=True)
        before, after = st.columns(2)
        with before:
            st.caption(f"Original · {counted(message.tokens_before, 'token')} · deletions struck through")
            chips = render.token_html(tokens[tokens["m"] == pos], show_whitespace=ss[session.SHOW_WHITESPACE],
                                      max_tokens=TOKENS_PER_PAGE)
            st.markdown(chips, unsafe_allow_html=True)
        with after:
            st.caption(f"Pruned · {counted(message.tokens_after, 'token')}")
            st.code(message.pruned, language=None, wrap_lines=True)

st.subheader("Deleted spans")
deleted = cur.view.deleted if position is None else cur.view.deleted[cur.view.deleted["m"] == position]
st.caption(f"{len(deleted):,} spans; click a column header to sort.")
st.dataframe(deleted.drop(columns=["m"]), hide_index=True, width="stretch",
             column_config={"text": st.column_config.TextColumn("text", width="medium"),
                            "detail": st.column_config.TextColumn("detail", width="large")})

st.subheader("Downloads")
widgets.downloads(cur, key="side_downloads")
