"""A/B: does Claude answer the pruned prompt as it answers the original? Run it, or open a saved run."""
import streamlit as st

from layerzero_viz import LayerZeroError
from layerzero_viz.appstate import md_escape, text_of_upload
from layerzero_viz.claude import GROUPS, ABReport, has_api_key, read_rows, rows_of
from layerzero_viz.claude.ab import GROUP_LABELS
from layerzero_viz.claude.counts import model_from_env
from layerzero_viz.claude.report import (effectiveness_chart, group_frame, latency_chart, list_reports, load_report,
                                         outcome_frame, results_dir, save_report, tokens_chart)
from ui import claude, session

REPORT = "ab_report"

st.title("A/B effectiveness")
st.caption("Each conversation runs in three groups: " + " · ".join(f"**{g}** {GROUP_LABELS[g]}" for g in GROUPS)
           + ". Claude judges each reply against the reply to the original prompt; the effectiveness ratio is "
             "equivalent / judged. Replies and verdicts are cached, so a rerun costs nothing and a stopped run resumes.")

cur = session.current()
if has_api_key():
    with st.form("ab_run"):
        options = ["The loaded conversation", "A JSONL of conversations"]
        source = st.radio("Rows", options, index=0 if cur else 1, horizontal=True, key="ab_source")
        upload = st.file_uploader("JSONL (one conversation per line; optional id and ratio fields)",
                                  type=["jsonl", "json"], key="ab_upload")
        left, mid, right = st.columns(3)
        model = left.text_input("Model", value=model_from_env(), key="ab_model")
        ratio = mid.slider("Group B ratio", 0.0, 0.95, value=float(cur.result.ratio) if cur else 0.3, step=0.01,
                           key="ab_ratio")
        concurrency = right.number_input("Concurrency", 1, 16, 4, key="ab_concurrency")
        submitted = st.form_submit_button("Run A/B", type="primary", icon=":material/science:", key="ab_submit")
    if submitted:
        try:
            if source == options[0]:
                if cur is None:
                    raise LayerZeroError("no conversation is loaded: load one on the Load page, or upload a JSONL")
                rows = rows_of(cur.annotated.conversation)
            else:
                if upload is None:
                    raise LayerZeroError("upload a JSONL of conversations first")
                rows = read_rows(text_of_upload(upload.getvalue(), upload.name).encode("utf-8"))
            bar = st.progress(0.0, text=f"0 of {len(rows)} rows")
            done = []

            def progress(row, outcomes):
                done.append(row)
                bar.progress(len(done) / len(rows), text=f"{len(done)} of {len(rows)} rows")

            report = claude.run_ab(rows, model=model.strip(), ratio=ratio, concurrency=int(concurrency),
                                   on_outcome=progress)
        except LayerZeroError as exc:
            st.error(md_escape(str(exc)))
        else:
            path = save_report(report)
            st.session_state[REPORT] = report.to_dict()
            if report.errors:
                st.warning(f"{report.errors} outcomes failed (see the table). Run again to resume: finished calls "
                           "are cached.")
            st.success(f"Saved to {md_escape(str(path))}: {report.calls} API calls, {report.cache_hits} from cache.")
else:
    st.info("No ANTHROPIC_API_KEY is set, so this page cannot ask Claude. Set ANTHROPIC_API_KEY (and "
            "ANTHROPIC_BASE_URL for a gateway) and restart the app, or run\n\n"
            "`python -m layerzero_viz ab RUNS.jsonl --ratio 0.3 --model M --out results.json`\n\n"
            "where a key is available and open its results below.", icon=":material/key_off:")

with st.expander("Open a saved run", expanded=REPORT not in st.session_state):
    saved = list_reports()
    if saved:
        pick = st.selectbox(f"Runs saved in {results_dir()}", [p.name for p in saved], index=None,
                            key="ab_saved", placeholder="choose a run")
        if pick is not None:
            try:
                st.session_state[REPORT] = load_report(results_dir() / pick).to_dict()
            except (LayerZeroError, OSError) as exc:
                st.error(md_escape(str(exc)))
    file = st.file_uploader("…or a results file (ab --out)", type=["json"], key="ab_results_upload")
    if file is not None:
        try:
            st.session_state[REPORT] = load_report(file.getvalue()).to_dict()
        except LayerZeroError as exc:
            st.error(md_escape(str(exc)))

if REPORT not in st.session_state:
    st.stop()

report = ABReport.from_dict(st.session_state[REPORT])
groups = group_frame(report)
st.subheader(f"{report.rows} rows · {md_escape(report.model)} · group B ratio {report.ratio:.2f}")
for col, row in zip(st.columns(len(GROUPS)), groups.to_dict("records")):
    value = "—" if row["effectiveness_ratio"] is None else f"{row['effectiveness_ratio']:.3f}"
    col.metric(f"{row['group']}: {row['label']}", value,
               help=f"{row['equivalent']} of {row['n']} judged equivalent; {row['errors']} errors")
st.caption(md_escape(report.c_note))
left, mid, right = st.columns(3)
left.altair_chart(effectiveness_chart(groups), width="stretch")
mid.altair_chart(tokens_chart(groups), width="stretch")
outcomes = outcome_frame(report)
right.altair_chart(latency_chart(outcomes), width="stretch")
st.dataframe(groups, hide_index=True, width="stretch")
st.subheader("Every outcome")
st.dataframe(outcomes, hide_index=True, width="stretch")
