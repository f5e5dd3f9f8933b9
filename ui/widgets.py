"""Small widgets the pages share: the "nothing loaded" guard, the message picker, page numbers and downloads."""
from __future__ import annotations

import streamlit as st

from layerzero_viz.appstate import download_names, md_escape, message_position
from layerzero_viz.model import Conversation
from layerzero_viz.render import message_label

from . import session
from .session import Current


def require_current() -> Current:
    """The loaded conversation, or a pointer to the Load page and the end of this page's run."""
    cur = session.current()
    if cur is None:
        st.info("No conversation loaded yet. Paste one, upload a file or pick a sample on the Load page.",
                icon=":material/info:")
        if error := st.session_state.get(session.LOAD_ERROR):
            st.error(md_escape(error))
        st.page_link("app_pages/load.py", label="Go to Load", icon=":material/upload_file:")
        st.stop()
    return cur


def message_select(conv: Conversation) -> int | None:
    """A picker over the conversation's messages (shared by pages); the chosen message's position or None (all)."""
    keys = [m.key for m in conv.messages]
    ss = st.session_state
    chosen = ss.get(session.MESSAGE, session.ALL_MESSAGES)
    if chosen != session.ALL_MESSAGES and message_position(conv, chosen) is None:
        ss[session.MESSAGE] = session.ALL_MESSAGES  # a message of an earlier conversation
    labels = {session.ALL_MESSAGES: "All messages",
              **{(type(m.key), m.key): message_label(m.key, m.role) for m in conv.messages}}
    st.selectbox(
        "Message", [session.ALL_MESSAGES, *keys], key=session.MESSAGE, persist_state="session",
        format_func=lambda k: labels[k] if k == session.ALL_MESSAGES else labels[(type(k), k)],
    )
    chosen = ss[session.MESSAGE]
    return None if chosen == session.ALL_MESSAGES else message_position(conv, chosen)


def page_number(key: str, n_pages: int, label: str = "Page") -> int:
    """A 1-based page number input clamped to ``n_pages`` (a stored value past the end goes to the last page)."""
    ss = st.session_state
    value = ss.get(key, 1)
    if not isinstance(value, int) or not 1 <= value <= n_pages:
        ss[key] = min(max(1, value if isinstance(value, int) else 1), n_pages)
    return int(st.number_input(f"{label} (of {n_pages:,})", min_value=1, max_value=n_pages, step=1, key=key,
                               persist_state="session", disabled=n_pages == 1))


def downloads(cur: Current, *, key: str, result_json: bool = True) -> None:
    """Download buttons in a row: the pruned conversation (the input's format), the token table as CSV and, with
    ``result_json``, the CLI's JSON result.  ``key`` tells the rows of different pages apart."""
    conv, result = cur.annotated.conversation, cur.result
    names = download_names(cur.source.name, conv)
    mime = "text/plain" if conv.format in ("text", "http") else "application/json"
    columns = st.columns(3 if result_json else 2)
    columns[0].download_button("Pruned conversation", data=result.dump, file_name=names["pruned"], mime=mime,
                               on_click="ignore", icon=":material/download:", help="Same format as the input",
                               key=f"{key}:pruned")
    columns[1].download_button("Token annotations (CSV)", data=cur.view.tokens_csv, file_name=names["tokens"],
                               mime="text/csv", on_click="ignore", icon=":material/table:", key=f"{key}:tokens")
    if result_json:
        columns[2].download_button("JSON result (as the CLI)", data=cur.view.result_json, file_name=names["result"],
                                   mime="application/json", on_click="ignore", icon=":material/data_object:",
                                   key=f"{key}:result")
