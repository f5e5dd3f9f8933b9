"""Detector: what pruning will break in this conversation, where, and the rewrite that prevents it."""
import streamlit as st

from layerzero_viz import Config, render
from layerzero_viz.advisor import CHECKS
from layerzero_viz.advisor.profiles import AUTO, detect_domain
from layerzero_viz.advisor.views import FIND_CSS, finding_label, findings_frame, fixed_counts, highlight_html
from layerzero_viz.appstate import md_escape, message_position
from ui import advisor, session, widgets

ss = st.session_state
cur = widgets.require_current()
conv = cur.annotated.conversation
ratio = float(ss[session.RATIO]) if ss[session.RATIO_TOUCHED] else None
found = advisor.findings(cur.source, conv, ratio)

st.title("Detector")
profile = advisor.active_profile() or AUTO
guess = detect_domain(conv) if profile == AUTO else None
domain = f"domain **{md_escape(guess.name)}** (detected)" if guess else (
    "no domain recognised" if profile == AUTO else f"profile **{md_escape(profile)}**")
st.caption(f"{md_escape(cur.source.name)} · {len(found)} findings · {domain}. Codes are explained in docs/LINT.md.")

if message := ss.pop(advisor.FIX_MESSAGE, None):
    st.success(md_escape(message), icon=":material/check:")
if error := ss.pop(advisor.FIX_ERROR, None):
    st.error(md_escape(error))

if not found:
    st.info("Nothing to report: this conversation should prune safely.", icon=":material/verified:")
    st.stop()

counts = {s: sum(1 for f in found if f.severity == s) for s in ("error", "warning", "info")}
a, b, c, d = st.columns(4)
a.metric("Errors", counts["error"])
b.metric("Warnings", counts["warning"])
c.metric("Info", counts["info"])
fixable = sum(1 for f in found if f.fix_available)
d.metric("Fixable", fixable)
if fixable:
    st.button(f"Apply all {fixable} mechanical fixes", key="apply_all", icon=":material/auto_fix_high:",
              on_click=advisor.apply_all, args=(conv, profile, ratio))

st.dataframe(findings_frame(found), hide_index=True, width="stretch")

if not 0 <= ss.get(session.FINDING, 0) < len(found):  # from a link, or before a fix removed findings
    ss[session.FINDING] = 0
index = st.selectbox("Finding", range(len(found)), format_func=lambda k: finding_label(found[k]),
                     key=session.FINDING, persist_state="session")
finding = found[index if index is not None and index < len(found) else 0]
check = CHECKS[finding.code]

with st.container(border=True):
    st.markdown(f"**{finding.code} · {check.name}** — {md_escape(check.title)}")
    st.markdown(f"{md_escape(finding.message)}")
    if finding.message_key is not None:
        position = message_position(conv, finding.message_key)
        message = conv.messages[position]
        st.markdown(render.TOKEN_CSS + FIND_CSS, unsafe_allow_html=True)
        st.markdown(highlight_html(message.text, finding.start, finding.end, role=message.role, key=message.key,
                                   label=finding.code), unsafe_allow_html=True)
    st.markdown("**Suggested rewrite**")
    st.code(finding.suggestion, language=None, wrap_lines=True)
    if finding.fix is not None:
        config = Config(low_information=bool(ss[session.LOW_INFORMATION]), profile=advisor.active_profile())
        before, after = fixed_counts(conv, finding, config, ratio)
        left, right = st.columns(2)
        left.metric("Tokens in the prompt", f"{before.total:,} → {after.total:,}", delta=after.total - before.total,
                    delta_color="inverse")
        right.metric(f"Tokens sent after pruning (r = {after.ratio:.2f})", f"{before.sent:,} → {after.sent:,}",
                     delta=after.sent - before.sent, delta_color="inverse")
        st.button(finding.fix.label, key="apply_fix", type="primary", icon=":material/auto_fix_normal:",
                  on_click=advisor.apply_fix, args=(conv, finding))
    else:
        st.caption("No mechanical fix: rewrite it by hand as suggested.")
