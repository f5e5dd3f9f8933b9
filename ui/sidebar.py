"""The sidebar every page shares: the ratio and the effectiveness floor, what bounds pruning, the low-information
switch, the page's own controls (:func:`page_controls`), metrics and the debug link.

Pages put their view controls (message picker, search, filters, toggles) in the sidebar rather than above their
text: on a phone the sidebar folds away and the text comes first.
"""
from __future__ import annotations

import threading

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from layerzero_viz import LayerZeroError
from layerzero_viz.appstate import (
    FLOOR_CHOICES, app_base_url, bound_message, floor_label, holds_records, md_escape, message_count,
    page_url_path, slider_frontier,
)

from . import advisor, claude, clipboard, session
from .session import Current

_SOURCE_LABELS = {
    "argument": "the slider",
    "env": "the environment (ANTHROPIC_LAYER_ZERO_PRUNE_RATIO)",
    "header": "the X-Anthropic-Layer-Zero header",
    "directive": "the <layer-zero/> directive",
    "default": "the default",
    "profile": "the domain profile's cap",
}


_run = threading.local()  # one script run per thread: the slot of this run's page controls


def page_controls() -> DeltaGenerator:
    """Where the current page draws its view controls: a slot in the sidebar under the shared controls and above
    the metrics (the sidebar itself when :func:`render` did not run, as in a page's own tests)."""
    slot = getattr(_run, "slot", None)
    return slot if slot is not None else st.sidebar


def render(page: str, cur: Current | None) -> None:
    """Draw the shared sidebar for ``page`` (``cur`` is None when nothing is loaded)."""
    _run.slot = None
    with st.sidebar:
        st.slider(
            "prune_ratio", min_value=0.0, max_value=0.95, step=0.01, key=session.RATIO,
            on_change=session.mark_ratio_touched, disabled=cur is None,
            help="At most ⌊r · tokens⌋ tokens are pruned. Moving the slider only re-selects: "
                 "detection ran once when the conversation was loaded.",
        )
        if cur is not None and cur.result.ratio_source == "profile":
            # at the slider itself: past a profile's cap moving it changes nothing (it read 0.50 over r = 0.20)
            profile = cur.annotated.settings.profile or "domain"
            st.caption(f"Capped at **{cur.result.ratio:.2f}** by the {md_escape(profile)} profile: above it the "
                       f"slider prunes as at {cur.result.ratio:.2f} (Domain profile: Off lifts the cap).")
        st.segmented_control(
            "Effectiveness floor", FLOOR_CHOICES, key=session.FLOOR, required=True, format_func=floor_label,
            disabled=cur is None, width="stretch",
            help="How much estimated information pruning may cost. **lossless** (the default) takes only the safe "
                 "tier: the redundant tokens the rules found. Below it, a lossy tier spends the rest of the budget "
                 "on the least informative words while the effectiveness estimate stays ≥ the floor. 0.98 is the "
                 "article's alert threshold, recommended for exploring; **off** removes the floor.",
        )
        st.toggle("Low-information words", key=session.LOW_INFORMATION, disabled=cur is None,
                  help="Prune frequent function words while budget is left (lowest priority). "
                       "Switching this re-runs detection once; the result is cached.")
        advisor.profile_picker(cur)
        advisor.edit_status(cur)  # modified by detector fixes: says so, with the undo button, on every page
        _run.slot = st.container(key="page_controls")
        if cur is None:
            st.caption("Load a conversation to see its metrics.")
            return
        _status(cur)
        _bound(cur)
        _metrics(cur)
        claude.exact_counts(cur)
        st.divider()
        _debug_link(page)


def _status(cur: Current) -> None:
    result, settings = cur.result, cur.annotated.settings
    source = _SOURCE_LABELS.get(result.ratio_source, result.ratio_source)
    st.markdown(f"Effective ratio **{result.ratio:.2f}** · from {md_escape(source)}")
    if settings.enabled and settings.enabled_source == "default" and settings.ratio_source == "default":
        # the app previews every conversation; the middleware prunes only what something switches on (and the
        # API itself prunes nothing: "enabled (by default)" read as an Anthropic feature that is on)
        st.caption("Previewing: nothing in this request switches layer-zero on (no directive, header or environment "
                   "variable), so the SDK middleware would send it unpruned unless its caller enables it. Pruning "
                   "runs here, client-side; the Anthropic API prunes nothing.")
    elif settings.enabled:
        st.caption(f"Layer-zero enabled (by {md_escape(settings.enabled_source)}); pruning runs here, client-side")
    else:
        st.warning(f"Layer-zero is disabled by {md_escape(settings.enabled_source)}: nothing is pruned.")
    for warning in cur.annotated.warnings:
        st.warning(md_escape(warning))


def _bound(cur: Current) -> None:
    """What bounds pruning now (the budget, the floor or the candidates) and, past the safe tier, the offer."""
    bound = bound_message(cur.result)
    if bound is None:
        return
    if bound.offer is None:
        st.caption(md_escape(bound.text))
        return
    st.info(md_escape(bound.text), icon=":material/info:")
    st.button(f"Allow lossy pruning (floor {floor_label(bound.offer)})", key="allow_lossy", width="stretch",
              icon=":material/trending_down:", on_click=session.set_floor, args=(bound.offer,),
              help=f"The slider is past the safe frontier (r = {slider_frontier(cur.result.safe_frontier):.2f}): "
                   "under the lossless floor no higher ratio prunes more. This lets the lossy tier spend the rest of the "
                   "budget while the estimate stays ≥ the floor.")


def _short(n: int) -> str:
    """``n`` in at most 6 characters: 175528 → "175.5k", 12345678 → "12.3M"."""
    return f"{n / 1e6:.1f}M" if n >= 1_000_000 else f"{n / 1e3:.1f}k" if n >= 10_000 else f"{n:,}"


def _metrics(cur: Current) -> None:
    result = cur.result
    after = result.tokens_total - result.tokens_pruned
    exact = f"{result.tokens_total:,} → {after:,}"
    # the sidebar fits about 16 characters of a metric: "175,528 → 15…" cut the number the user came for
    st.metric("Tokens before → after", exact if len(exact) <= 16 else f"{_short(result.tokens_total)} → {_short(after)}",
              help="Engine directives are not counted here (nor anywhere a total is shown): they instruct the "
                   "pruner and always leave the output, outside the budget.")
    if len(exact) > 16:
        st.caption(f"{exact} tokens")
    if result.tokens_directive:
        st.caption(f"Engine directives: {result.tokens_directive:,} tokens, removed, outside the budget")
    st.metric("Pruned", f"{result.pruned_fraction:.1%}")
    st.metric("Pruned by tier (safe + lossy)", f"{result.tokens_safe:,} + {result.tokens_lossy:,}",
              help="Safe tier: the redundant tokens the rules found, taken first. Lossy tier: the least informative "
                   f"words beyond them, taken while the estimate stays ≥ the floor "
                   f"({floor_label(result.min_effectiveness)}); always 0 when lossless.")
    # full width: in a half-width column the label was cut to "Effectiveness…"
    st.metric("Effectiveness (estimate)", f"{result.effectiveness_estimate:.3f}",
                 help="An estimate from token information content, not a measured model score.")
    st.metric("Context preservation", f"{result.timings_ms['context_preservation']:.2f} ms",
              help="Time spent finding and protecting <context> blocks; 0 when there is none.")
    conv = cur.annotated.conversation
    unit = "record" if holds_records(cur.source) else "line"  # a JSON array's, or a JSONL file's
    line = f" · {unit} {conv.jsonl_line} of {conv.jsonl_lines}" if conv.jsonl_line else ""
    st.caption(f"{md_escape(cur.source.name)} · {conv.format}{line} · {message_count(conv)}")


def _debug_link(page: str) -> None:
    # the view a link is for: the link stays shown under the button while this is on screen (the clipboard
    # component's report reruns the script, and in that run the button reads False)
    here = (page, st.session_state.get(session.RATIO), st.session_state.get(session.FLOOR))
    if st.button("Copy debug link", key="debug_link", icon=":material/link:", width="stretch",
                 help="Copies a URL that reopens exactly this view: conversation, ratio, floor, profile, toggles, "
                      "page, token page, search, filters and the selected token."):
        url_path = page_url_path(page)
        base = app_base_url(st.context.url, url_path)
        try:
            link = session.make_debug_link(page, base, url_path)
        except LayerZeroError as exc:
            st.error(md_escape(str(exc)))
            return
        clipboard.copy(link, key="copy_link_js", copied="Debug link copied to the clipboard",
                       failed="The browser did not allow copying: copy the link below the button by hand.")
        st.session_state[session.DEBUG_LINK_SHOWN] = (here, link)
    shown = st.session_state.get(session.DEBUG_LINK_SHOWN)
    if shown is not None and shown[0] == here:
        st.code(shown[1], language=None, wrap_lines=True)
        st.caption("Secrets (API keys, auth headers) are redacted from the link. Click again after changing the "
                   "view: the link is the view at the click.")
