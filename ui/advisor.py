"""Streamlit bindings of the advisor: the sidebar's profile picker, cached lint and mining, applying a fix.

The profile chosen in the sidebar is session state (``ui.session.PROFILE``, ``active_profile``,
``profile_key``); it flows into ``Config(profile=...)`` through ``ui.cache``'s key, so the heatmap, the sweep
and every page show the profile's capped ratio and protected patterns.  This module draws the picker.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import PurePath
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
from layerzero_viz.errors import InputError
from layerzero_viz.formats import dump_conversation, dump_text
from layerzero_viz.model import Conversation

from . import session
from .session import OFF, PROFILE, active_profile, profile_names

FIX_MESSAGE = "advisor_fix_message"
FIX_ERROR = "advisor_fix_error"


def profile_picker(cur: Any) -> None:
    """The sidebar's domain-profile select box and which rule of the profile is in force."""
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


# ---------------------------------------------------------------------------------------------- edits
# A fix replaces the loaded conversation; what it replaced is kept in the session so that it can be undone and
# nothing the user gave is lost: the original always (the first entry), and the last MAX_UNDO - 1 steps after
# it while their texts fit in MAX_UNDO_BYTES.

HISTORY = "advisor_history"
PENDING = "advisor_pending"
MAX_UNDO = 5
MAX_UNDO_BYTES = 16 * 2**20
MODIFIED = " (modified)"


@dataclass(frozen=True)
class Edit:
    """One applied fix (or batch of fixes): the source it replaced, the digest of its result, what it did."""

    before: Source
    after: str
    label: str


@dataclass(frozen=True)
class Pending:
    """Fixes computed but not applied yet: the rewritten source, shown as a diff until applied or cancelled."""

    base: str  # the digest of the source they were computed on
    source: Source
    label: str


def modified_name(name: str) -> str:
    """The loaded conversation's name once a fix changed it: ``chat (modified).json``.

    >>> modified_name("chat.json"), modified_name("chat (modified).json"), modified_name("pasted")
    ('chat (modified).json', 'chat (modified).json', 'pasted (modified)')
    """
    if MODIFIED in name:
        return name
    path = PurePath(name)
    return f"{name[:len(name) - len(path.suffix)]}{MODIFIED}{path.suffix}" if path.suffix else name + MODIFIED


def history(source: Source | None) -> list[Edit]:
    """The fixes that made ``source`` (oldest first); empty when it is not a fixed conversation."""
    edits = st.session_state.get(HISTORY) or []
    if source is None or not edits or edits[-1].after != source.digest:
        return []
    return list(edits)


def _bounded(edits: list[Edit]) -> list[Edit]:
    """The original first, then as many of the latest steps as MAX_UNDO and MAX_UNDO_BYTES allow."""
    if len(edits) <= 1:
        return edits
    kept, size = [], len(edits[0].before.text)
    for edit in reversed(edits[1:]):
        size += len(edit.before.text)
        if len(kept) + 1 >= MAX_UNDO or size > MAX_UNDO_BYTES:
            break
        kept.append(edit)
    return [edits[0], *reversed(kept)]


def _replace_source(conv: Conversation, message: str) -> None:
    ss = st.session_state
    source = ss.get(session.SOURCE)
    text = dump_text(conv, dump_conversation(conv))
    name = modified_name(source.name if source else "pasted")
    new = Source(text, conv.format, name=name)
    if session.load(new, goto=None):
        previous = history(source)
        ss[HISTORY] = _bounded([*previous, Edit(source, ss[session.SOURCE].digest, message)]) if source else []
        ss[FIX_MESSAGE] = message + ". Undo restores the conversation as it was."
    else:  # the rewritten text does not load: keep the conversation, say why
        ss[FIX_ERROR] = ss.get(session.LOAD_ERROR)
    ss.pop(PENDING, None)


def undo() -> None:
    """Button callback: put back the conversation the last fix replaced (its name and text exactly)."""
    ss = st.session_state
    edits = history(ss.get(session.SOURCE))
    if not edits:
        return
    last = edits[-1]
    if session.load(last.before, goto=None):
        ss[HISTORY] = edits[:-1]
        ss[FIX_MESSAGE] = f"Undone: {last.label}."
    else:
        ss[FIX_ERROR] = ss.get(session.LOAD_ERROR)
    ss.pop(PENDING, None)


def apply_fix(conv: Conversation, finding: Finding) -> None:
    """Button callback: rewrite the loaded conversation with ``finding``'s fix (a failure keeps it and says why)."""
    try:
        new = apply_one_fix(conv, finding)
    except LayerZeroError as exc:
        st.session_state[FIX_ERROR] = str(exc)
        return
    _replace_source(new, f"Applied {finding.code}: {finding.fix.label if finding.fix else ''}")


def propose_all(source: Source, conv: Conversation, profile: str, ratio: float | None) -> None:
    """Button callback: compute every mechanical fix (linting again after each) and hold it for review."""
    new, applied = apply_all_fixes(conv, profile=profile, ratio=ratio, env=os.environ)
    if not applied:
        st.session_state[FIX_MESSAGE] = "Nothing to apply."
        return
    text = dump_text(new, dump_conversation(new))
    label = f"Applied {len(applied)} fixes: {', '.join(f.code for f in applied)}"
    st.session_state[PENDING] = Pending(source.digest, Source(text, new.format, name=source.name), label)


def pending(source: Source) -> Pending | None:
    """The fixes waiting for review on ``source`` (None once applied, cancelled, or another conversation loaded)."""
    found = st.session_state.get(PENDING)
    return found if isinstance(found, Pending) and found.base == source.digest else None


def apply_pending() -> None:
    """Button callback: apply the reviewed fixes."""
    found = st.session_state.get(PENDING)
    if isinstance(found, Pending):
        _replace_source(found.source.load(), found.label)


def cancel_pending() -> None:
    """Button callback: drop the reviewed fixes; the conversation stays as it is."""
    st.session_state.pop(PENDING, None)


def edit_status(cur: Any) -> None:
    """In the sidebar, on every page: that the loaded conversation was changed by fixes, and the undo button."""
    edits = history(cur.source if cur is not None else None)
    if not edits:
        return
    st.warning(f"**Modified** by {len(edits)} detector edit{'s' if len(edits) > 1 else ''} "
               f"(last: {md_escape(edits[-1].label)}).", icon=":material/edit_note:")
    st.button("Undo the last fix", key="advisor_undo", icon=":material/undo:", on_click=undo, width="stretch",
              help=f"Puts back the conversation as it was before the last fix; the original "
                   f"({md_escape(edits[0].before.name)}) is always kept.")


# ---------------------------------------------------------------------------------------------- mining


@st.cache_resource(max_entries=4, show_spinner="Mining the history…")
def _mine(digest: str, name: str, top: int, skip_bad_lines: bool, column: str | None, _data: bytes) -> MiningResult:
    return mine(_data, top=top, skip_bad_lines=skip_bad_lines, column=column or None, name=name, progress=False)


# the library's hints name the command line's options; the page has a control for each
_PAGE_HINTS = (("--skip-bad-lines", "fix or remove the line, or turn on “Skip bad lines” above to skip and count "
                                    "bad lines"),
               ("--column", "type the column's name in “CSV column” above"))


def mining_error(exc: LayerZeroError) -> str:
    """``exc`` as the History mining page says it: where, what, and how to fix it with the page's own controls."""
    if isinstance(exc, InputError) and exc.hint:
        for flag, hint in _PAGE_HINTS:
            if flag in exc.hint:
                return str(InputError(exc.message, location=exc.location, hint=hint))
    return str(exc)


def mine_upload(data: bytes, name: str, *, top: int, skip_bad_lines: bool, column: str | None) -> MiningResult:
    """The mining result of an uploaded history (cached per content and options); raises the library's errors."""
    digest = hashlib.sha256(data).hexdigest()
    return _mine(digest, name, int(top), bool(skip_bad_lines), column, data)
