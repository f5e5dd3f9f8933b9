"""Ratio sweep: pruned fraction and the effectiveness estimate for every r, under one or more floors."""
import pandas as pd
import streamlit as st

from layerzero_viz import charts
from layerzero_viz.appstate import FLOOR_CHOICES, LOSSLESS, floor_label, slider_frontier
from ui import cache, session, widgets

FLOORS = session.SWEEP_FLOORS  # the floors drawn together (in a debug link)
FLOOR_SEEN = session.SWEEP_FLOOR_SEEN  # the sidebar's floor when the choice was last brought up to date

ss = st.session_state
cur = widgets.require_current()
floor = session.floor()
low = bool(ss[session.LOW_INFORMATION])
# The sidebar's floor is always among the curves: on first view, and whenever it changes, it is added.
if FLOORS not in ss or ss.get(FLOOR_SEEN) != floor:
    chosen = set(ss.get(FLOORS) or [LOSSLESS]) | {floor}
    ss[FLOORS] = [f for f in FLOOR_CHOICES if f in chosen]
    ss[FLOOR_SEEN] = floor

st.title("Ratio sweep")
st.caption("prune_ratio from 0 to 0.95 in steps of 0.01 over one annotation: detection ran once, each point only "
           "re-selects. Solid lines are the pruned fraction (left axis), dashed lines the effectiveness estimate "
           "(right axis, zoomed to its range). Past the **safe frontier** only the lossy tier can prune more, and "
           "only while the estimate stays ≥ its **floor**; the **knee** is where a floor's curve stops growing "
           "(or its estimate first drops below the floor).")
if not cur.annotated.settings.enabled:
    st.warning("Layer-zero is disabled for this conversation, so nothing is pruned at any ratio.")

picked = st.multiselect("Floors to compare", FLOOR_CHOICES, key=FLOORS, format_func=floor_label,
                        persist_state="session",
                        help="Draw the curves of several effectiveness floors at once to see what each would cost "
                             "before choosing one in the sidebar.")
floors = [f for f in FLOOR_CHOICES if f in set(picked) | {floor}]
sweeps = {f: cache.sweep(cur.source, low, f, profile=session.profile_key()) for f in floors}
frame = pd.DataFrame([row for f in floors for row in sweeps[f]])
exact_frontier = cur.annotated.safe_frontier
frontier = slider_frontier(exact_frontier)  # the chart, the metric and the sidebar name the same slider position
slider = float(cur.result.ratio)  # the effective ratio: a domain profile may cap the slider's value
marker = "profile cap" if cur.result.ratio_source == "profile" else "slider"
st.altair_chart(cur.view.memo(("sweep", tuple(floors), low),
                              lambda: charts.sweep_chart(frame, safe_frontier=frontier, current_ratio=slider,
                                                         current_label=marker)),
                width="stretch")


def _at(rows, ratio):
    return min(rows, key=lambda r: abs(r["ratio"] - ratio))


summary = []
for f in floors:
    rows = sweeps[f]
    knee = charts.sweep_knee(rows, f)
    here = _at(rows, slider)
    at_knee = _at(rows, knee) if knee is not None else None
    summary.append({
        "floor": floor_label(f) + (" (sidebar)" if f == floor else ""),
        "knee r": knee,
        "pruned at the knee": at_knee["pruned_fraction"] if at_knee else None,
        "estimate at the knee": at_knee["effectiveness_estimate"] if at_knee else None,
        f"pruned at r = {slider:.2f}": here["pruned_fraction"],
        f"estimate at r = {slider:.2f}": here["effectiveness_estimate"],
        "most pruned": max(r["pruned_fraction"] for r in rows),
    })

mine = next(s for s, f in zip(summary, floors) if f == floor)
a, b, c, d = st.columns(4)
a.metric("Safe frontier", f"r = {frontier:.2f}",
         help="The first slider position at which every safe-tier token (the redundant ones the rules found) is "
              f"pruned (exactly r = {exact_frontier:.4f}); past it, only the lossy tier can prune more.")
if mine["knee r"] is None:
    b.metric(f"Knee ({floor_label(floor)})", "—", help="Nothing is pruned at any ratio.")
else:
    b.metric(f"Knee ({floor_label(floor)})", f"r = {mine['knee r']:.2f}",
             help="Where pruning stops growing under the sidebar's floor, or the estimate first drops below it.")
    c.metric("Pruned at the knee", f"{mine['pruned at the knee']:.1%}")
    d.metric("Estimate at the knee", f"{mine['estimate at the knee']:.4f}")
    st.button(f"Set the slider to {mine['knee r']:.2f}", key="use_knee", type="primary", icon=":material/tune:",
              on_click=session.set_ratio, args=(mine["knee r"],),
              help="A higher ratio prunes nothing more under this floor.")

st.subheader("What each floor would cost")
st.dataframe(pd.DataFrame(summary), hide_index=True, width="stretch",
             column_config={k: st.column_config.NumberColumn(format="percent") for k in summary[0]
                            if k.startswith("pruned") or k == "most pruned"}
             | {k: st.column_config.NumberColumn(format="%.4f") for k in summary[0] if k.startswith("estimate")}
             | {"knee r": st.column_config.NumberColumn(format="%.2f")})
others = [f for f in floors if f != floor]
if others:
    for col, f in zip(st.columns(len(others)), others):
        col.button(f"Use floor {floor_label(f)}", key=f"use_floor:{floor_label(f)}", on_click=session.set_floor,
                   args=(f,), icon=":material/tune:", width="stretch")

with st.expander("All points"):
    st.dataframe(frame, hide_index=True, width="stretch")
