"""The sidebar every page shares: the ratio, its source, the low-information switch, metrics and the debug link."""
from __future__ import annotations

import streamlit as st

from layerzero_viz import LayerZeroError
from layerzero_viz.appstate import app_base_url, md_escape, page_url_path

from . import advisor, claude, session
from .session import Current

_SOURCE_LABELS = {
    "argument": "the slider",
    "env": "the environment (ANTHROPIC_LAYER_ZERO_PRUNE_RATIO)",
    "header": "the X-Anthropic-Layer-Zero header",
    "directive": "the <layer-zero/> directive",
    "default": "the default",
    "profile": "the domain profile's cap",
}


def render(page: str, cur: Current | None) -> None:
    """Draw the shared sidebar for ``page`` (``cur`` is None when nothing is loaded)."""
    with st.sidebar:
        st.slider(
            "prune_ratio", min_value=0.0, max_value=0.95, step=0.01, key=session.RATIO,
            on_change=session.mark_ratio_touched, disabled=cur is None,
            help="At most ⌊r · tokens⌋ tokens are pruned. Moving the slider only re-selects: "
                 "detection ran once when the conversation was loaded.",
        )
        st.toggle("Low-information words", key=session.LOW_INFORMATION, disabled=cur is None,
                  help="Prune frequent function words while budget is left (lowest priority). "
                       "Switching this re-runs detection once; the result is cached.")
        advisor.profile_picker(cur)
        if cur is None:
            st.caption("Load a conversation to see its metrics.")
            return
        _status(cur)
        _metrics(cur)
        claude.exact_counts(cur)
        st.divider()
        _debug_link(page)


def _status(cur: Current) -> None:
    result, settings = cur.result, cur.annotated.settings
    source = _SOURCE_LABELS.get(result.ratio_source, result.ratio_source)
    st.markdown(f"Effective ratio **{result.ratio:.2f}** · from {md_escape(source)}")
    if settings.enabled:
        st.caption(f"Layer-zero enabled (by {md_escape(settings.enabled_source)})")
    else:
        st.warning(f"Layer-zero is disabled by {md_escape(settings.enabled_source)}: nothing is pruned.")
    for warning in cur.annotated.warnings:
        st.warning(md_escape(warning))


def _metrics(cur: Current) -> None:
    result = cur.result
    after = result.tokens_total - result.tokens_pruned
    st.metric("Tokens before → after", f"{result.tokens_total:,} → {after:,}")
    st.metric("Pruned", f"{result.pruned_fraction:.1%}")
    # full width: in a half-width column the label was cut to "Effectiveness…"
    st.metric("Effectiveness (estimate)", f"{result.effectiveness_estimate:.3f}",
                 help="An estimate from token information content, not a measured model score.")
    st.metric("Context preservation", f"{result.timings_ms['context_preservation']:.2f} ms",
              help="Time spent finding and protecting <context> blocks; 0 when there is none.")
    conv = cur.annotated.conversation
    line = f" · line {conv.jsonl_line} of {conv.jsonl_lines}" if conv.jsonl_line else ""
    st.caption(f"{md_escape(cur.source.name)} · {conv.format}{line} · {len(conv.messages)} messages")


def _debug_link(page: str) -> None:
    if st.button("Copy debug link", icon=":material/link:", width="stretch",
                 help="A URL that reopens exactly this view: conversation, ratio, toggles and page."):
        url_path = page_url_path(page)
        base = app_base_url(st.context.url, url_path)
        try:
            link = session.make_debug_link(page, base, url_path)
        except LayerZeroError as exc:
            st.error(md_escape(str(exc)))
            return
        st.code(link, language=None, wrap_lines=True)
        st.caption("Copy it with the icon at the top right. Secrets (API keys, auth headers) are redacted.")
