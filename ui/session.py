"""The session: which conversation is loaded, the shared controls, loading and restoring from a debug link.

Session keys are named here once.  The rule that matters: ``SOURCE`` is replaced only after a new input
has been read *and* annotated without error, so a bad paste, upload or link never loses what was loaded.
Loading happens in widget callbacks (they run before the script, so they may set widget values such as
the slider); the page switch they ask for is done by ``app.py`` through ``GOTO``.

The domain profile chosen in the sidebar (``PROFILE``: ``OFF``, ``"auto"`` or a profile name) is session
state too: it is part of every cached annotation's key (``profile_key``), so the heatmap, the sweep and every
page show the profile's capped ratio and protected patterns.  ``ui.advisor`` draws its picker.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

import os

import streamlit as st

from layerzero_viz import Annotated, LayerZeroError, share
from layerzero_viz.profile import AUTO, ENV_PROFILES, load_profiles
from layerzero_viz.appstate import (
    DEFAULT_PAGE, LOSSLESS, VIEW_FIELDS, ResultView, Source, ViewState, clean_floor, held_to_size, link_state,
    md_escape, message_position, text_of_upload, view_from_link, view_values,
)

from . import cache

# Shared controls (sidebar) and the view values of the pages.
SOURCE = "source"
RATIO = "ratio"
RATIO_TOUCHED = "ratio_touched"
FLOOR = "min_effectiveness"  # the effectiveness floor of the lossy tier, beside the slider
LOW_INFORMATION = "low_information"
SHOW_WHITESPACE = "show_whitespace"
MESSAGE = "message"
ALL_MESSAGES = "__all__"  # the picker's "All messages": a real option, since Streamlit shows None as no choice
# The view values a debug link carries (appstate.VIEW_FIELDS: defaults and checks), by the pages that show them.
HEATMAP_VIEW = "heatmap_view"
TOKEN_PAGE = "heatmap_page"
COLOR = "color_by"
SEARCH = "heatmap_search"
REASONS = "heatmap_reasons"
TIERS = "heatmap_tiers"
CHIP = "chip"  # the selected chip (its display group), whose details are open on the heatmap
PROTECTIONS = "heatmap_protections"  # "Show protections": protected chips marked (quiet otherwise)
MESSAGES_PAGE = "messages_page"
SWEEP_FLOORS = "sweep_floors"
FINDING = "finding"
# Bookkeeping.
HELD = "held"  # the token (?c=) under which this process holds the loaded conversation for a browser reload
HELD_PARAM = "c"
HELD_SEEN = "held_seen"  # the ?c= token already handled in this session
HELD_MISSING = "held_missing"  # the page's ?c= names a conversation this process no longer holds: said once
LOAD_ERROR = "load_error"
LOAD_TAB = "load_tab"  # the Load page's tab the last load came from: the page reopens on it after an error
LINK_ERROR = "link_error"
LINK_SEEN = "link_seen"
SIZE_NOTICE = "size_notice"  # the loaded conversation was cut to what the app renders (appstate.held_to_size)
GOTO = "goto"
FIXTURE_DONE = "fixture_done"
SWEEP_FLOOR_SEEN = "sweep_floor_seen"  # the sidebar's floor when the sweep's floors were last brought up to date
# Widgets of the Load page.
JSONL_LINE = "jsonl_line"
LOAD_FORMAT = "load_format"
PASTE = "paste_text"
UPLOAD = "upload"
# The domain profile (the sidebar's picker, ui.advisor).
PROFILE = "profile"
OFF = "off"

LINKED_CONTROLS: tuple[str, ...] = (RATIO, RATIO_TOUCHED, FLOOR, LOW_INFORMATION, SHOW_WHITESPACE, MESSAGE, PROFILE,
                                    SOURCE)
"""Session keys a debug link carries as :class:`ViewState` fields (the source, the sidebar's controls)."""

DEBUG_LINK_SHOWN = "debug_link_shown"  # ((page, ratio, floor), link): the last link made, for its view
NOT_VIEW_STATE: Mapping[str, str] = {
    HELD: "the URL carries it itself (?c=), for a reload; a link carries the conversation",
    HELD_SEEN: "which ?c= was restored already",
    HELD_MISSING: "a message about a conversation no longer held, shown until one is loaded",
    LOAD_ERROR: "a message about a failed load, shown once",
    LOAD_TAB: "which tab of the Load page the last load came from (input, not a view)",
    LINK_ERROR: "a message about a broken link, shown once",
    LINK_SEEN: "which link was restored already",
    SIZE_NOTICE: "that the loaded conversation was cut to the app's size, shown while it is loaded",
    GOTO: "a page switch asked for by a callback",
    FIXTURE_DONE: "whether --fixture was handled",
    SWEEP_FLOOR_SEEN: "bookkeeping of sweep_floors (the link restores it as the link's floor)",
    JSONL_LINE: "input: the link carries the line in its source",
    LOAD_FORMAT: "input: the link carries the format in its source",
    PASTE: "input: the link carries the loaded text itself",
    UPLOAD: "input: the link carries the loaded text itself",
    "debug_link": "an action (button)",
    DEBUG_LINK_SHOWN: "the link the last click made, shown under the button while its view is on screen",
    "allow_lossy": "an action (button)",
    "load_paste": "an action (button)",
    "open:": "actions (the gallery's buttons), by prefix",
    "use_floor:": "actions (the sweep's buttons), by prefix",
    "use_knee": "an action (button)",
    "heatmap_prev": "an action (button)",
    "heatmap_next": "an action (button)",
    "chip_close": "an action (button)",
    "copy_link_js": "the clipboard writer of the debug link button",
    "heatmap_scroll": "counts jumps, so the chips scroll to the selected one once per jump",
    "heatmap_downloads:": "actions (download buttons), by prefix",
    "side_downloads:": "actions (download buttons), by prefix",
    "token_chips": "the heatmap's chips (a component): a click sets the chip",
    "apply_all": "an action (button)",
    "apply_fix": "an action (button)",
    "ab_": "the A/B page works on its own rows and runs, not on the loaded conversation (by prefix)",
    "history_": "history mining works on its own uploaded file, not on the loaded conversation (by prefix)",
    "advisor_": "the advisor's bookkeeping (by prefix)",
    "claude_": "the exact-count client's bookkeeping (by prefix)",
}
"""Session keys that are deliberately not in a debug link, and why; a name ending in ``:`` or ``_`` is a prefix."""

_DEFAULTS: Mapping[str, Any] = {
    RATIO: 0.3,
    RATIO_TOUCHED: False,
    FLOOR: LOSSLESS,
    LOW_INFORMATION: True,
    SHOW_WHITESPACE: False,
    MESSAGE: ALL_MESSAGES,
    SWEEP_FLOOR_SEEN: LOSSLESS,
    LOAD_FORMAT: "auto",
}


def init() -> None:
    """Give every shared key its default once per session."""
    for key, value in {**_DEFAULTS, **view_values({})}.items():
        st.session_state.setdefault(key, value)


# ---------------------------------------------------------------------------------------------- loading


def _friendly(exc: BaseException, what: str) -> str:
    """The message a user sees: the library's own (it says where and how to fix), or a plain fallback."""
    if isinstance(exc, LayerZeroError):
        return str(exc)
    return (f"{what} failed unexpectedly ({type(exc).__name__}: {exc}). The previous conversation is kept. "
            "If the input looks right, please report this together with it.")


# ---------------------------------------------------------------------------------------------- the profile


def profile_names() -> list[str]:
    """The profiles a user can pick (shipped ones, replaced or extended by ``$LAYERZERO_PROFILES``)."""
    try:
        return sorted(load_profiles())
    except LayerZeroError:
        return sorted(load_profiles(env={}))  # a broken user file: the picker still offers the shipped ones


def active_profile() -> str | None:
    """The profile the engine applies: None (off), ``"auto"`` or a profile name."""
    value = st.session_state.get(PROFILE, OFF)
    return None if value in (None, OFF) else str(value)


def profile_key() -> cache.ProfileKey:
    """What a cached annotation depends on besides the text: the chosen profile and the profile file in use."""
    return active_profile(), os.environ.get(ENV_PROFILES)


def try_load(source: Source, *, low_information: bool | None = None) -> tuple[Source, Annotated] | str:
    """Read and annotate ``source``: the (normalised) source and its annotation, or the error message."""
    low = st.session_state.get(LOW_INFORMATION, True) if low_information is None else low_information
    try:
        annotated = cache.annotation(source, low, profile=profile_key())
    except Exception as exc:  # noqa: BLE001 - any failure is shown to the user, never as a traceback
        return _friendly(exc, f"Reading {source.name}")
    line = annotated.conversation.jsonl_line
    if line is not None and source.line != line:
        source = replace(source, line=line)
    return source, annotated


def load(source: Source, *, goto: str | None = DEFAULT_PAGE) -> bool:
    """Make ``source`` the loaded conversation with fresh controls; on failure keep everything and say why.

    Call from a widget callback (or before the sidebar is drawn): it sets the slider's value.
    """
    # held to what the app renders in a few seconds, like a link's (appstate.MAX_LINK_TOKENS): an upload or a
    # paste of millions of tokens would otherwise hold gigabytes for one session; the CLI takes any size
    source, notice = held_to_size(source)
    loaded = try_load(source)
    if isinstance(loaded, str):
        st.session_state[LOAD_ERROR] = loaded
        return False
    source, annotated = loaded
    ss = st.session_state
    ss[SIZE_NOTICE] = notice
    for param in ("s", "share"):  # the URL no longer shows the link's conversation: a reload must not reopen it
        if param in st.query_params:
            del st.query_params[param]
    # the floor is the user's choice, like the low-information switch: a new conversation keeps it
    _install(source, annotated, ViewState(source=source, low_information=ss[LOW_INFORMATION],
                                          show_whitespace=ss[SHOW_WHITESPACE], min_effectiveness=floor()))
    if goto:
        st.session_state[GOTO] = goto
    return True


def _install(source: Source, annotated: Annotated, view: ViewState) -> None:
    ss = st.session_state
    ss[SOURCE] = source
    ss[HELD] = ss[HELD_SEEN] = cache.hold(source)
    ss[HELD_MISSING] = None
    ss[LOAD_ERROR] = None
    ss[LINK_ERROR] = None
    ss[RATIO] = annotated.settings.ratio if view.ratio is None else view.ratio
    ss[RATIO_TOUCHED] = view.ratio is not None
    ss[FLOOR] = clean_floor(view.min_effectiveness)
    ss[LOW_INFORMATION] = view.low_information
    ss[SHOW_WHITESPACE] = view.show_whitespace
    known = message_position(annotated.conversation, view.message) is not None
    ss[MESSAGE] = view.message if known and view.message is not None else ALL_MESSAGES
    for key, value in view_values(view.view).items():  # a new conversation starts every view afresh
        ss[key] = value
    ss[SWEEP_FLOOR_SEEN] = ss[FLOOR]
    ss[JSONL_LINE] = annotated.conversation.jsonl_line or 1


def load_fixture_once(path: str | None) -> None:
    """On the first run of a session with nothing loaded, load ``path`` (from ``--fixture``); without one, go to
    the Load page."""
    ss = st.session_state
    if ss.get(FIXTURE_DONE):
        return
    ss[FIXTURE_DONE] = True
    if path and ss.get(SOURCE) is None:
        load_file(path)
        ss.pop(GOTO, None)  # the default page is the heatmap already
    elif ss.get(SOURCE) is None and ss.get(LOAD_ERROR) is None:
        ss[GOTO] = "load"  # the first minute: nothing loaded opens the sample gallery, not an empty heatmap


def load_paste() -> None:
    """Callback of the Load page's button: load the pasted text in the chosen format."""
    ss = st.session_state
    ss[LOAD_TAB] = "Paste"
    load(Source(ss.get(PASTE) or "", ss.get(LOAD_FORMAT) or "auto", name="pasted"))


def load_upload() -> None:
    """Callback of the Load page's file uploader: load the file as soon as it arrives."""
    ss = st.session_state
    ss[LOAD_TAB] = "Upload"
    uploaded = ss.get(UPLOAD)
    if uploaded is None:  # the file was removed
        return
    try:
        text = text_of_upload(uploaded.getvalue(), uploaded.name)
    except LayerZeroError as exc:
        ss[LOAD_ERROR] = str(exc)
        return
    load(Source(text, ss.get(LOAD_FORMAT) or "auto", name=uploaded.name))


def load_file(path: str | Path) -> None:
    """Callback of a gallery button: load a bundled fixture (format auto-detected)."""
    path = Path(path)
    try:
        text = text_of_upload(path.read_bytes(), path.name)
    except OSError as exc:
        st.session_state[LOAD_ERROR] = f"{path}: cannot read the file ({exc.strerror or exc})."
        return
    except LayerZeroError as exc:
        st.session_state[LOAD_ERROR] = str(exc)
        return
    load(Source(text, name=path.name))


def change_line() -> None:
    """Callback of the JSONL line picker: load another line of the same input, staying on the page."""
    ss = st.session_state
    source = ss.get(SOURCE)
    if source is not None:
        load(replace(source, line=int(ss[JSONL_LINE])), goto=None)


# ---------------------------------------------------------------------------------------------- links


def restore_from_link(params: Mapping[str, Any]) -> None:
    """Restore the view a ``?s=`` / ``?share=`` link describes, once per link; a broken link only sets an error."""
    ss = st.session_state
    marker = (params.get("s"), params.get("share"))
    if marker == (None, None) or ss.get(LINK_SEEN) == marker:
        return
    ss[LINK_SEEN] = marker
    ss[FIXTURE_DONE] = True  # a link wins over --fixture
    try:
        state = share.resolve_query(params)
        view = view_from_link(state or {})
        # held to what the app renders in a few seconds (appstate.MAX_LINK_TOKENS); the notice says so above it
        held, notice = held_to_size(view.source)
        view = replace(view, source=held)
    except LayerZeroError as exc:
        ss[LINK_ERROR] = str(exc)
        return
    except Exception as exc:  # noqa: BLE001
        ss[LINK_ERROR] = _friendly(exc, "Opening the debug link")
        return
    # the profile is part of the annotation's cache key: set it before loading, as the link saw it
    ss[PROFILE] = view.profile if view.profile in (*profile_names(), AUTO) else OFF
    loaded = try_load(view.source, low_information=view.low_information)
    if isinstance(loaded, str):
        ss[LINK_ERROR] = f"The conversation in this debug link cannot be read: {loaded}"
        return
    source, annotated = loaded
    _install(source, annotated, replace(view, source=source))
    ss[SIZE_NOTICE] = notice  # shown above every page by app.py while this conversation is loaded
    ss[GOTO] = view.page


def link_error(params: Mapping[str, Any]) -> str | None:
    """The error of the broken link still in the URL (None once the user has moved on)."""
    ss = st.session_state
    if ss.get(LINK_ERROR) and ss.get(LINK_SEEN) == (params.get("s"), params.get("share")):
        return ss[LINK_ERROR]
    return None


# ---------------------------------------------------------------------------------------------- reload


def restore_held(params: Mapping[str, Any]) -> None:
    """After a browser reload (a new session): reopen the conversation the URL's ``?c=`` names, if this process
    still holds it (``cache.hold``), with fresh controls; say so once when it does not.  A link wins over it."""
    ss = st.session_state
    token = params.get(HELD_PARAM)
    if not token or ss.get(SOURCE) is not None or ss.get(HELD_SEEN) == token:
        return
    ss[HELD_SEEN] = token
    ss[FIXTURE_DONE] = True  # the page's own conversation (or the notice that it is gone) wins over --fixture
    source = cache.held(token)
    loaded = try_load(source) if source is not None else None
    if loaded is None or isinstance(loaded, str):
        ss[HELD_MISSING] = ("The conversation this page showed is no longer held by the app (it was restarted, or "
                            "has held many conversations since): load it again. A debug link keeps a view for good.")
        return
    source, annotated = loaded
    _install(source, annotated, ViewState(source=source, low_information=ss[LOW_INFORMATION],
                                          show_whitespace=ss[SHOW_WHITESPACE], min_effectiveness=floor()))


def keep_in_url() -> None:
    """Put the loaded conversation's ``?c=`` token in the URL (a page switch clears the query), so that a reload of
    the page reopens it."""
    token = st.session_state.get(HELD)
    if token and st.session_state.get(SOURCE) is not None and st.query_params.get(HELD_PARAM) != token:
        st.query_params[HELD_PARAM] = token


def current_view(page: str) -> ViewState:
    """The view on screen now, as a debug link would reopen it."""
    ss = st.session_state
    return ViewState(
        page=page,
        source=ss.get(SOURCE),
        ratio=float(ss[RATIO]) if ss[RATIO_TOUCHED] else None,
        low_information=bool(ss[LOW_INFORMATION]),
        show_whitespace=bool(ss[SHOW_WHITESPACE]),
        message=None if ss.get(MESSAGE) == ALL_MESSAGES else ss.get(MESSAGE),
        view={k: ss[k] for k in VIEW_FIELDS if k in ss},
        profile=active_profile(),
        min_effectiveness=floor(),
    )


def make_debug_link(page: str, base_url: str, url_path: str) -> str:
    """A URL that reopens this exact view (``?s=`` or, past 8 KB, ``?share=`` in the local store)."""
    return share.make_link(link_state(current_view(page)), base_url=base_url, page=url_path)


# ---------------------------------------------------------------------------------------------- the current result


@dataclass(frozen=True)
class Current:
    """What every page shows: the loaded source, its annotation and the decisions at the sidebar's ratio and floor."""

    source: Source
    annotated: Annotated
    view: ResultView

    @property
    def result(self):
        return self.view.result


def mark_ratio_touched() -> None:
    """Slider callback: from now on the ratio is an explicit argument."""
    st.session_state[RATIO_TOUCHED] = True


def set_ratio(ratio: float) -> None:
    """Button callback: move the slider to ``ratio`` (an explicit argument)."""
    st.session_state[RATIO] = float(ratio)
    st.session_state[RATIO_TOUCHED] = True


def set_floor(value: float) -> None:
    """Button callback: set the effectiveness floor (as the sidebar's picker would)."""
    st.session_state[FLOOR] = clean_floor(value)


def floor() -> float:
    """The effectiveness floor every page prunes under (1.0: lossless, the default)."""
    return clean_floor(st.session_state.get(FLOOR, LOSSLESS))


def ratio() -> float | None:
    """The slider's ratio as an explicit argument, or None (the conversation's own) until the user moves it."""
    ss = st.session_state
    return float(ss[RATIO]) if ss[RATIO_TOUCHED] else None


def current() -> Current | None:
    """The loaded conversation at the current controls, or None when nothing is loaded (or it broke)."""
    ss = st.session_state
    source = ss.get(SOURCE)
    if source is None:
        return None
    low = bool(ss[LOW_INFORMATION])
    try:
        annotated = cache.annotation(source, low, profile=profile_key())
        view = cache.result_view(source, low, ratio(), floor(), profile=profile_key())
    except Exception as exc:  # noqa: BLE001
        st.error(md_escape(_friendly(exc, "Pruning")))
        return None
    return Current(source, annotated, view)
