"""Timing: where the milliseconds go, per stage and per message."""
import pandas as pd
import streamlit as st

from layerzero_viz import charts
from layerzero_viz.render import message_label
from ui import widgets

cur = widgets.require_current()
timings = cur.result.timings_ms

st.title("Timing")
once = sum(timings[k] for k in ("parse", "tokenize", "detect", "protect", "resolve"))
per_ratio = timings["select"] + timings["reconstruct"]
a, b, c = st.columns(3)
a.metric("Total", f"{once + per_ratio:,.1f} ms",
         help="parse + tokenize + detect + protect + resolve + select + reconstruct. The scanners run on a second "
              "thread while the text is tokenised, so this sum of stage times can be a little more than the "
              "time that passed.")
b.metric("Detection (once per conversation)", f"{once:,.1f} ms")
c.metric("Selection at this ratio", f"{per_ratio:,.2f} ms")
st.altair_chart(charts.timings_bar(timings), width="stretch")
st.caption("context_preservation is part of protect, shown on its own. Moving the slider repeats only "
           "select and reconstruct.")

st.subheader("Context preservation")
ms = timings["context_preservation"]
st.metric("layer_zero_context_preservation_ms", f"{ms:.3f} ms")
if ms == 0:
    st.info("This is exactly 0 because the conversation has no `<context>` element: context preservation is the "
            "time spent finding `<context>` blocks and protecting what they hold, so with none there is nothing "
            "to do. It is not a measurement too small to show.", icon=":material/info:")
else:
    st.caption("Time spent finding the `<context>` blocks and protecting everything inside them, "
               "so facts the model must keep are never pruned.")

st.subheader("Per message")
rows = cur.annotated.message_timings()
st.altair_chart(charts.message_timings_bar(rows), width="stretch")
table = pd.DataFrame({"message": [message_label(r["message"], str(r["role"])) for r in rows],
                      "tokens": [r["tokens"] for r in rows], "directive tokens": [r["directive"] for r in rows],
                      "tokenize ms": [r["ms"] for r in rows]})
st.dataframe(table, hide_index=True, width="stretch")
