"""Load: paste, upload or pick a sample; the format is detected unless overridden."""
from pathlib import Path

import streamlit as st

from layerzero_viz.appstate import FORMAT_CHOICES, holds_records, md_escape, read_gallery
from ui import session

ss = st.session_state
st.title("Load a conversation")
st.caption("Anthropic or OpenAI requests, ShareGPT, JSONL (one conversation per line), a raw HTTP capture, "
           "or plain text. Nothing leaves this machine.")

if error := ss.get(session.LOAD_ERROR):
    # (an error may end without a full stop: "… at or just before this point)")
    end = "" if error.rstrip().endswith((".", "。", "!", "?", "！", "？")) else "."
    kept = f"{end} The conversation loaded before is kept." if ss.get(session.SOURCE) is not None else ""
    st.error(f"**Could not load this input.** {md_escape(error)}{kept}", icon=":material/error:")

source = ss.get(session.SOURCE)
if source is not None:
    with st.container(border=True):
        cur = session.current()
        detected = f"{cur.annotated.conversation.format}" if cur else "?"
        how = "detected" if source.format == "auto" else "chosen"
        st.markdown(f"**Loaded:** {md_escape(source.name)} · format `{detected}` ({how})")
        lines = cur.annotated.conversation.jsonl_lines if cur else None
        if lines:
            ss[session.JSONL_LINE] = cur.annotated.conversation.jsonl_line  # the picker shows the line loaded
            unit = "JSON array record" if holds_records(source) else "JSONL line"
            st.number_input(f"{unit} (1–{lines})", min_value=1, max_value=lines, step=1,
                            key=session.JSONL_LINE, on_change=session.change_line,
                            help="Each line of a JSONL file, or each record of a JSON array (a ShareGPT dataset), "
                                 "is its own conversation.")

st.selectbox("Format", FORMAT_CHOICES, key=session.LOAD_FORMAT, persist_state="session",
             help="auto detects it; pick one when detection guesses wrong. Applies to pasted text and uploads.")

# after a failed load the page opens on the tab it came from, with what was pasted still in it (the error above
# the tabs makes them new elements, which would open on Samples)
gallery, paste, upload = st.tabs(["Samples", "Paste", "Upload"], default=ss.get(session.LOAD_TAB) if error else None)

with gallery:
    items = read_gallery(Path(__file__).resolve().parent.parent / "fixtures")
    if not items:
        st.info("No sample conversations found in fixtures/.")
    # row by row, each card as tall as its row (in three tall columns the cards' tops drifted apart, and a phone,
    # which stacks the columns, listed the samples out of order)
    for first in range(0, len(items), 3):
        for column, item in zip(st.columns(3), items[first:first + 3]):
            with column.container(border=True, height="stretch"):
                lang = f" · {item.lang}" if item.lang else ""
                st.markdown(f"**{md_escape(item.title)}**")
                st.caption(f"{md_escape(item.description)}  \n`{item.file}`{lang}")
                st.button("Open", key=f"open:{item.file}", on_click=session.load_file, args=(str(item.path),),
                          icon=":material/open_in_new:")

with paste:
    st.text_area("Conversation", key=session.PASTE, height=280, persist_state="session",
                 placeholder='{"system": "…", "messages": [{"role": "user", "content": "…"}]}  — or any text')
    st.button("Load pasted text", key="load_paste", type="primary", on_click=session.load_paste)

with upload:
    st.file_uploader("Conversation file", type=["json", "jsonl", "ndjson", "txt", "http"], key=session.UPLOAD,
                     on_change=session.load_upload,
                     help="JSON, JSONL (.jsonl or .ndjson), plain text or a raw HTTP request capture (.http), UTF-8.")
