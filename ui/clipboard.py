"""Writing to the browser's clipboard: a small ``st.components.v2`` component, and a toast that says how it went.

Streamlit has no clipboard call of its own (``st.code`` has a copy icon, which needs a second click), so the
component's JavaScript calls ``navigator.clipboard.writeText`` as soon as it is drawn — right after the click
that asked for it — and reports back ``copied`` or ``failed``; the callbacks turn that into a toast.  Where the
Clipboard API is missing (a page served over plain HTTP to another machine is not a secure context) it falls
back to ``document.execCommand("copy")``.  The text is passed as data, never as markup.
"""
from __future__ import annotations

import uuid

import streamlit as st

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  if (!data || typeof data.text !== "string") return;
  // A rerun may draw the same request again: write each request once.
  const done = (window.__lzClipboardDone = window.__lzClipboardDone || new Set());
  if (done.has(data.nonce)) return;
  done.add(data.nonce);
  const legacy = () => {
    const area = document.createElement("textarea");
    area.value = data.text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
    return ok;
  };
  const report = (ok, why) => setTriggerValue(ok ? "copied" : "failed", ok ? data.nonce : String(why || "refused"));
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(data.text).then(
      () => report(true),
      (err) => report(legacy(), err && err.message));
  } else {
    report(legacy(), "no clipboard access on this page");
  }
}
"""

_copier = st.components.v2.component("layerzero_viz_clipboard", js=_JS)


def copy(text: str, *, key: str, copied: str, failed: str) -> None:
    """Put ``text`` on the clipboard of the browser that ran this script; toast ``copied`` or ``failed`` after.

    Call it in the run that answers a click (a button's ``if``): the browser writes when it draws it.
    """
    _copier(key=key, data={"text": text, "nonce": uuid.uuid4().hex}, height=0,
            on_copied_change=lambda: st.toast(copied, icon=":material/content_copy:"),
            on_failed_change=lambda: st.toast(failed, icon=":material/error:", duration="long"))
