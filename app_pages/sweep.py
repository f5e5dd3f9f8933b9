"""Ratio sweep: pruned share and estimated effectiveness for every r, and the best r to use."""
import pandas as pd
import streamlit as st

from layerzero_viz import Annotated, charts
from ui import cache, session, widgets

cur = widgets.require_current()
rows = cache.sweep(cur.source, bool(st.session_state[session.LOW_INFORMATION]))
best = Annotated.best_ratio(rows, charts.EFFECTIVENESS_TARGET)

st.title("Ratio sweep")
st.caption(f"prune_ratio from 0 to 0.95 in steps of 0.01 over one annotation: detection ran once, "
           f"each point only re-selects. The target is an effectiveness estimate ≥ {charts.EFFECTIVENESS_TARGET:g}.")
if not cur.annotated.settings.enabled:
    st.warning("Layer-zero is disabled for this conversation, so nothing is pruned at any ratio.")
st.altair_chart(charts.sweep_chart(pd.DataFrame(rows), best_ratio=best), width="stretch")

if best is None:
    st.info(f"Even the smallest ratio drops the estimate below {charts.EFFECTIVENESS_TARGET:g}.")
else:
    row = next(r for r in rows if r["ratio"] == best)
    a, b, c = st.columns(3)
    a.metric("Highest r with estimate ≥ 0.99", f"{best:.2f}")
    b.metric("Pruned there", f"{row['pruned_fraction']:.1%}")
    c.metric("Estimate there", f"{row['effectiveness_estimate']:.3f}")
    st.button(f"Set the slider to {best:.2f}", key="use_best", type="primary", icon=":material/tune:",
              on_click=session.set_ratio, args=(best,))

with st.expander("All points"):
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
