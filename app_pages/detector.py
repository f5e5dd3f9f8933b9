"""Detector: what pruning will break in this conversation, where, and the rewrite that prevents it."""
import streamlit as st

from layerzero_viz import Config, render
from layerzero_viz.advisor import CHECKS
from layerzero_viz.advisor.diff import DIFF_CSS, conversation_diff, diff_html
from layerzero_viz.advisor.lint import apply_fix
from layerzero_viz.advisor.profiles import AUTO, detect_domain
from layerzero_viz.advisor.views import FIND_CSS, finding_label, findings_frame, fixed_counts, highlight_html
from layerzero_viz.appstate import counted, md_escape, message_position
from ui import advisor, session, widgets


def show_diff(before, after) -> None:
    """Original vs fixed, per changed message (escaped HTML: deletions struck, insertions marked)."""
    changes = conversation_diff(before, after)
    if not changes:
        st.caption("The fix changes no message text.")
        return
    st.markdown(DIFF_CSS, unsafe_allow_html=True)
    for change in changes:
        st.markdown(f"**{md_escape(change.label)}**")
        left, right = st.columns(2)
        left.caption("Original")
        left.markdown(diff_html(change, "before"), unsafe_allow_html=True)
        right.caption("Fixed")
        right.markdown(diff_html(change, "after"), unsafe_allow_html=True)


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
st.caption(f"{md_escape(cur.source.name)} · {counted(len(found), 'finding')} · {domain}. Codes are explained in docs/LINT.md.")

edits = advisor.history(cur.source)
if edits:
    undo_col, original_col = st.columns([3, 1], vertical_alignment="center")
    undo_col.info(f"**Modified** by {len(edits)} edit{'s' if len(edits) > 1 else ''}: "
                  f"{md_escape('; '.join(e.label for e in edits))}.", icon=":material/edit_note:")
    original_col.download_button("Download the original", edits[0].before.text, file_name=edits[0].before.name,
                                 key="advisor_original", icon=":material/download:", width="stretch")
    original_col.button("Undo the last fix", key="advisor_undo_page", icon=":material/undo:", width="stretch",
                        on_click=advisor.undo)

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
if proposal := advisor.pending(cur.source):
    with st.container(border=True):
        st.markdown(f"**Review before applying** — {md_escape(proposal.label)}")
        show_diff(conv, proposal.source.load())
        apply_col, cancel_col, _ = st.columns([1, 1, 2])
        apply_col.button("Apply these fixes", key="advisor_apply_pending", type="primary",
                         icon=":material/check:", on_click=advisor.apply_pending, width="stretch")
        cancel_col.button("Cancel", key="advisor_cancel_pending", icon=":material/close:",
                          on_click=advisor.cancel_pending, width="stretch")
elif fixable:
    st.button(f"Review the {fixable} mechanical fixes" if fixable > 1 else "Review the mechanical fix", key="apply_all", icon=":material/auto_fix_high:",
              on_click=advisor.propose_all, args=(cur.source, conv, profile, ratio),
              help="Shows the original and the fixed conversation side by side before anything changes.")

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
        with st.expander("What the fix changes (original → fixed)", expanded=True):
            show_diff(conv, apply_fix(conv, finding))
        st.button(finding.fix.label, key="apply_fix", type="primary", icon=":material/auto_fix_normal:",
                  on_click=advisor.apply_fix, args=(conv, finding), help="Undo puts the conversation back.")
    else:
        st.caption("No mechanical fix: rewrite it by hand as suggested.")
