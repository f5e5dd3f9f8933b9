"""Streamlit bindings of the advisor: the sidebar's profile picker, cached lint and mining, applying a fix.

The profile chosen in the sidebar is session state (``ui.session.PROFILE``, ``active_profile``,
``profile_key``); it flows into ``Config(profile=...)`` through ``ui.cache``'s key, so the heatmap, the sweep
and every page show the profile's capped ratio and protected patterns.  This module draws the picker.
"""
from __future__ import annotations

import hashlib
import os
from typing import Any

import streamlit as st

from layerzero_viz import LayerZeroError
from layerzero_viz.advisor import lint as lint_conversation
from layerzero_viz.advisor.lint import Finding
from layerzero_viz.advisor.lint import apply_all as apply_all_fixes
from layerzero_viz.advisor.lint import apply_fix as apply_one_fix
from layerzero_viz.advisor.mine import MiningResult, mine
from layerzero_viz.advisor.profiles import AUTO, ENV_PROFILES, load_profiles
from layerzero_viz.appstate import Source, md_escape
from layerzero_viz.formats import dump_conversation, dump_text
from layerzero_viz.model import Conversation

from . import session
from .session import OFF, PROFILE, active_profile, profile_names

FIX_MESSAGE = "advisor_fix_message"
FIX_ERROR = "advisor_fix_error"


def profile_picker(cur: Any) -> None:
    """The sidebar's domain-profile select box, and which rule of the profile is in force."""
    names = profile_names()
    options = [OFF, AUTO, *names]
    if st.session_state.get(PROFILE, OFF) not in options:
        st.session_state[PROFILE] = OFF
    try:
        titles = {name: p.title for name, p in load_profiles().items()}
    except LayerZeroError as exc:
        titles = {}
        st.error(md_escape(str(exc)))
    labels = {OFF: "Off", AUTO: "Auto (detect the domain)", **titles}
    st.selectbox("Domain profile", options, key=PROFILE, format_func=lambda v: labels.get(v, v),
                 help="Caps prune_ratio at what the domain tolerates and protects its patterns "
                      "(layerzero_viz/profiles/default.toml, or your file in $LAYERZERO_PROFILES).")
    if cur is None:
        return
    settings = cur.annotated.settings
    if settings.profile_rule:
        st.caption(f"Profile rule: {md_escape(settings.profile_rule)}")
    elif active_profile() == AUTO:
        st.caption("Auto: no domain recognised, no profile applied.")


# ---------------------------------------------------------------------------------------------- lint


@st.cache_resource(max_entries=16, show_spinner="Linting…")
def _lint(key: tuple, _conv: Conversation, profile: str, ratio: float | None) -> list[Finding]:
    return lint_conversation(_conv, profile=profile, ratio=ratio, env=os.environ)


def findings(source: Source, conv: Conversation, ratio: float | None) -> list[Finding]:
    """The findings for the loaded conversation (cached per text, profile and ratio)."""
    profile = active_profile() or AUTO
    key = (source.digest, source.format, source.line, profile, ratio, os.environ.get(ENV_PROFILES))
    return _lint(key, conv, profile, ratio)


def _replace_source(conv: Conversation, message: str) -> None:
    source = st.session_state.get(session.SOURCE)
    text = dump_text(conv, dump_conversation(conv))
    if session.load(Source(text, conv.format, name=source.name if source else "pasted"), goto=None):
        st.session_state[FIX_MESSAGE] = message
    else:  # the rewritten text does not load: keep the conversation, say why
        st.session_state[FIX_ERROR] = st.session_state.get(session.LOAD_ERROR)


def apply_fix(conv: Conversation, finding: Finding) -> None:
    """Button callback: rewrite the loaded conversation with ``finding``'s fix (a failure keeps it and says why)."""
    try:
        new = apply_one_fix(conv, finding)
    except LayerZeroError as exc:
        st.session_state[FIX_ERROR] = str(exc)
        return
    _replace_source(new, f"Applied {finding.code}: {finding.fix.label if finding.fix else ''}")


def apply_all(conv: Conversation, profile: str, ratio: float | None) -> None:
    """Button callback: apply every mechanical fix, linting again after each."""
    new, applied = apply_all_fixes(conv, profile=profile, ratio=ratio, env=os.environ)
    if applied:
        _replace_source(new, f"Applied {len(applied)} fixes: {', '.join(f.code for f in applied)}")
    else:
        st.session_state[FIX_MESSAGE] = "Nothing to apply."


# ---------------------------------------------------------------------------------------------- mining


@st.cache_resource(max_entries=4, show_spinner="Mining the history…")
def _mine(digest: str, name: str, top: int, skip_bad_lines: bool, column: str | None, _data: bytes) -> MiningResult:
    return mine(_data, top=top, skip_bad_lines=skip_bad_lines, column=column or None, name=name, progress=False)


def mine_upload(data: bytes, name: str, *, top: int, skip_bad_lines: bool, column: str | None) -> MiningResult:
    """The mining result of an uploaded history (cached per content and options); raises the library's errors."""
    digest = hashlib.sha256(data).hexdigest()
    return _mine(digest, name, int(top), bool(skip_bad_lines), column, data)
