"""History: the redundant phrases of real traffic, ranked, ready to paste as <redundant_phrases>."""
import streamlit as st

from layerzero_viz import LayerZeroError
from layerzero_viz.advisor.preselect import MIN_SHARE, verdicts
from layerzero_viz.advisor.sample import sample_history
from layerzero_viz.advisor.views import phrases_chart, phrases_frame
from layerzero_viz.appstate import md_escape
from ui import advisor

ss = st.session_state
st.title("History mining")
st.caption("Upload a history of user messages — JSONL (a string, {\"text\": …} or a conversation per line), "
           "CSV with a header, or plain lines — and see which phrases are worth declaring redundant. "
           "It is streamed in bounded memory; nothing leaves this machine.")

upload = st.file_uploader("History file", type=["jsonl", "json", "ndjson", "csv", "tsv", "txt"], key="history_upload")
options, sample = st.columns([3, 1], vertical_alignment="bottom")
with options:
    top_col, column_col, skip_col = st.columns(3, vertical_alignment="bottom")
    top = top_col.number_input("Top phrases", min_value=1, max_value=500, value=50, step=5, key="history_top",
                               persist_state="session")
    column = column_col.text_input("CSV column", key="history_column", persist_state="session",
                                   placeholder="text", help="Only for CSV: the column with the messages.")
    skip = skip_col.toggle("Skip bad lines", key="history_skip", persist_state="session",
                           help="Skip and count malformed lines instead of stopping at the first one.")
with sample:
    # (with a file uploaded the button did nothing visible: the upload wins)
    use_sample = st.button("Try a sample", key="history_sample", icon=":material/science:", disabled=upload is not None,
                           help="Remove the uploaded file (× above) to mine the sample instead." if upload is not None
                           else "A generated history of 5,000 messages with four planted redundant phrases.")
if use_sample:
    ss["history_sample_on"] = True
if upload is not None:
    ss["history_sample_on"] = False

if upload is not None:
    data, name = upload.getvalue(), upload.name
elif ss.get("history_sample_on"):
    data, name = ("\n".join(sample_history(5000, seed=7)) + "\n").encode(), "sample.jsonl"
else:
    st.info("Upload a history file, or try the generated sample.", icon=":material/info:")
    st.stop()

try:
    result = advisor.mine_upload(data, name, top=int(top), skip_bad_lines=bool(skip), column=column.strip() or None)
except LayerZeroError as exc:
    st.error(f"**Could not mine this history.** {md_escape(advisor.mining_error(exc))}", icon=":material/error:")
    st.stop()

a, b, c, d = st.columns(4)
a.metric("Messages", f"{result.messages:,}")
b.metric("Tokens", f"{result.tokens:,}")
c.metric("Estimated saving", f"{result.saving:,}",
         help="Tokens the ranked phrases cost across the history, weighted by how likely the engine removes a use.")
d.metric("Bad lines skipped", f"{result.skipped:,}")
if result.skipped:
    st.warning(f"Skipped {result.skipped:,} malformed lines (first: "
               f"{', '.join(str(n) for n in result.skipped_lines[:10])}).")
if not result.phrases:
    st.info("No phrase occurs often enough to be worth declaring.")
    st.stop()

judged = verdicts(result.phrases, messages=result.messages)
# a new history starts from its own pre-selection: the last one's choice, kept by the widget, had cut a new file's
# 7 pre-selected phrases to the 3 both shared
history = (name, len(data), int(top), column.strip(), bool(skip))
if ss.get("history_mined") != history:
    ss["history_mined"] = history
    ss.pop("history_chosen", None)
st.altair_chart(phrases_chart(result), width="stretch")
st.caption(f"**Pre-selected** are only phrases in at least {MIN_SHARE:.0%} of the messages that are, by "
           "segmentation, politeness frames (麻烦您帮我看一下, “could you please”) or runs of function words "
           "framing clauses — never nouns, names, products or other content words. The *why* column says why "
           "each phrase is or is not selected; add others by hand when you know they carry nothing.")
st.dataframe(phrases_frame(result, judged), hide_index=True, width="stretch",
             column_config={"selected": st.column_config.CheckboxColumn("pre-selected"),
                            "why": st.column_config.TextColumn("why", width="large")})

chosen = st.multiselect("Phrases in the block", [p.phrase for p in result.phrases],
                        default=[p.phrase for p, v in zip(result.phrases, judged) if v.selected],
                        key="history_chosen",
                        help="Pre-selected: politeness frames and clause-framing function words spread over the "
                             "history. Add a phrase only when it carries no meaning in your domain.")
block = result.block(chosen)
st.markdown("**Paste into the system prompt** (copy with the icon at the top right):")
st.code(block, language=None, wrap_lines=True)
st.download_button("Download the block", block, file_name="redundant_phrases.txt", mime="text/plain",
                   key="history_download", icon=":material/download:")
