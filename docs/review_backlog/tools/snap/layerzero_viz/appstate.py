"""The app's state as plain data: the loaded source, the view a debug link reopens, pagination, downloads.

The Streamlit app (``app.py``, ``pages/``, ``ui/``) keeps these objects in its session; everything here is
pure, so the rules — what a link carries, which page it opens, how the token view is cut into pages — are
tested with plain pytest.  This module never imports streamlit.

>>> src = Source('{"messages": [{"role": "user", "content": "Hi"}]}', name="chat.json")
>>> view = view_from_link(link_state(ViewState(page="timing", source=src, ratio=0.3)))
>>> view.page, view.ratio, view.source == src
('timing', 0.3, True)
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

import numpy as np
import pandas as pd

from .engine import FLOOR_CHOICES
from .select import SLIDER_STEP, floor_label, slider_frontier  # (pandas-free: the CLI reads them there)
from .errors import InputError, ShareLinkError
from .formats import dump_conversation, dump_text, load_conversation
from .model import Conversation, MessageKey, PathPart
from .reasons import ALL_REASONS
from .render import message_label

__all__ = [
    "PAGES",
    "DEFAULT_PAGE",
    "FORMAT_CHOICES",
    "COLOR_BY",
    "HEATMAP_VIEWS",
    "TOKENS_PER_PAGE",
    "MESSAGES_PER_PAGE",
    "VIEW_FIELDS",
    "ViewField",
    "TIER_CHOICES",
    "MAX_SEARCH_CHARS",
    "view_values",
    "message_count",
    "counted",
    "holds_records",
    "passed_through",
    "FLOOR_CHOICES",
    "LOSSLESS",
    "RECOMMENDED_FLOOR",
    "SLIDER_STEP",
    "slider_frontier",
    "floor_label",
    "clean_floor",
    "bound_message",
    "Bound",
    "Source",
    "ViewState",
    "GalleryItem",
    "ResultView",
    "page_url_path",
    "link_state",
    "view_from_link",
    "MAX_LINK_TOKENS",
    "held_to_size",
    "clean_view",
    "fixture_from_argv",
    "read_gallery",
    "text_of_upload",
    "page_count",
    "page_bounds",
    "app_base_url",
    "download_names",
    "md_escape",
    "same_message",
    "message_position",
]

PAGES: tuple[str, ...] = ("load", "heatmap", "side-by-side", "timing", "sweep", "ab", "detector", "history")
"""Page ids, also their URL paths; the default page is served at the app root instead."""
DEFAULT_PAGE = "heatmap"
FORMAT_CHOICES: tuple[str, ...] = ("auto", "anthropic", "openai", "jsonl", "sharegpt", "http", "text")
COLOR_BY: tuple[str, ...] = ("pruned_share", "score")
HEATMAP_VIEWS: tuple[str, ...] = ("tokens", "overview")
TOKENS_PER_PAGE = 2000
T = TypeVar("T")
MESSAGES_PER_PAGE = 20
LOSSLESS = 1.0
"""The default effectiveness floor: no lossy-tier token is ever taken (the trust contract)."""
RECOMMENDED_FLOOR = 0.98
"""The article's alert threshold: the floor the app offers when the safe tier is used up."""


def clean_floor(value: Any) -> float:
    """A floor from a link or the session: one of :data:`FLOOR_CHOICES`, else lossless.

    An old link carries none and loads as lossless; a value the app does not offer is never trusted.

    >>> clean_floor(0.98), clean_floor(None), clean_floor(0.97), clean_floor(True), clean_floor("0.95")
    (0.98, 1.0, 1.0, 1.0, 1.0)
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for choice in FLOOR_CHOICES:
            if float(value) == choice:
                return choice
    return LOSSLESS


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _chip(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _subset_of(choices: Sequence[Any]) -> Callable[[Any], bool]:
    """A check for a list of distinct values, each one of ``choices`` (a multiselect's value)."""
    def check(value: Any) -> bool:
        return (isinstance(value, list) and len(set(map(repr, value))) == len(value)
                and all(any(v == c and type(v) is type(c) for c in choices) for v in value))
    return check


def _search_text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_SEARCH_CHARS


TIER_CHOICES: tuple[str, ...] = ("safe", "lossy", "none")
"""The heatmap's tier filter: a token pruned by the safe or the lossy tier, or by neither (kept, or a directive)."""
MAX_SEARCH_CHARS = 200


@dataclass(frozen=True)
class ViewField:
    """One page-level view value a debug link carries: its default and the check a value from a link must pass.

    The name is the session-state key of the widget that shows it and the key in the link's ``view`` object, so
    it must not look like a credential (``share`` drops names such as ``token`` or ``*_token``).
    """

    default: Any
    check: Callable[[Any], bool]


VIEW_FIELDS: Mapping[str, ViewField] = {
    # Heatmap
    "heatmap_view": ViewField(HEATMAP_VIEWS[0], lambda v: v in HEATMAP_VIEWS),
    "heatmap_page": ViewField(1, _positive_int),
    "color_by": ViewField(COLOR_BY[0], lambda v: v in COLOR_BY),
    "heatmap_search": ViewField("", _search_text),
    "heatmap_reasons": ViewField([], _subset_of(ALL_REASONS)),
    "heatmap_tiers": ViewField([], _subset_of(TIER_CHOICES)),
    "chip": ViewField(None, _chip),  # the selected chip (display group), whose details are open
    "heatmap_protections": ViewField(False, lambda v: isinstance(v, bool)),  # "Show protections"
    # Side by side
    "messages_page": ViewField(1, _positive_int),
    # Ratio sweep
    "sweep_floors": ViewField([LOSSLESS], _subset_of(FLOOR_CHOICES)),
    # Detector
    "finding": ViewField(0, lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
}
"""Every page-level view value a debug link carries, whatever the page it was made on (so going back to
another page after opening the link finds it as it was).  The app registers each one as a session key;
``tests/app/test_app_links.py`` fails when a session key is neither here, a :class:`ViewState` field, nor
declared not to be view state."""


@dataclass(frozen=True)
class Source:
    """A conversation as the user gave it (text, format override, JSONL line): enough to reload it anywhere."""

    text: str
    format: str = "auto"
    line: int | None = None
    name: str = "pasted"

    @cached_property
    def digest(self) -> str:
        """sha256 of the text: with format and line, the key the app caches the annotation under."""
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()

    def load(self) -> Conversation:
        """The conversation; :class:`InputError` says where the text is wrong and how to fix it.

        The text is passed as bytes so that it is always content, never taken for the name of a file.
        """
        data = self.text.encode("utf-8", "surrogatepass")
        return load_conversation(data, self.format, line=self.line, name=self.name)


@dataclass(frozen=True)
class ViewState:
    """Everything a debug link reopens: the source, the controls and the page with its own view values.

    ``ratio`` None means the conversation's own effective ratio (env, header, directive or default);
    a number is an explicit argument, as when the user moved the slider.
    """

    page: str = DEFAULT_PAGE
    source: Source | None = None
    ratio: float | None = None
    low_information: bool = True
    show_whitespace: bool = False
    message: MessageKey | None = None
    view: Mapping[str, Any] = field(default_factory=dict)
    profile: str | None = None  # the domain profile picked in the sidebar (None: off)
    min_effectiveness: float = LOSSLESS  # the effectiveness floor of the lossy tier (1.0: lossless)


@dataclass(frozen=True)
class Bound:
    """What bounds pruning right now, as the sidebar says it; ``offer`` is a floor worth offering, if any."""

    stopped_by: str
    text: str
    offer: float | None = None




def passed_through(conv: Conversation, position: int) -> list[str]:
    """What message ``position`` holds besides text, as the pages name it: "tool_use get_weather", "tool_call
    run_sql", "image", "tool result (tu_1)" — passed through untouched, never pruned (a tool call had been
    invisible, a tool result indistinguishable from what the user typed).

    >>> from layerzero_viz import load_conversation
    >>> body = ('{"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": '
    ...         '[{"type": "tool_use", "id": "tu_1", "name": "get_weather", "input": {}}]}]}')
    >>> passed_through(load_conversation(body), 1)
    ['tool_use get_weather']
    """
    out: list[str] = []
    results: set[tuple[PathPart, ...]] = set()
    for block in conv.messages[position].blocks:
        if block.type == "tool_result":
            # the tool_result block itself: its path up to the last "content" (its text's own key)
            holder = block.path[:len(block.path) - 1 - block.path[::-1].index("content")] \
                if "content" in block.path else block.path
            if holder not in results:  # one note per tool_result block, however many text pieces it has
                results.add(holder)
                raw = _at(conv.raw, holder)
                ref = raw.get("tool_use_id") if isinstance(raw, dict) else None
                out.append(f"tool result ({ref})" if ref else "tool result")
            continue
        if block.kind != "opaque":
            continue
        raw = _at(conv.raw, block.path)
        name = None
        if isinstance(raw, dict):
            function = raw.get("function")  # an OpenAI tool call names its function there
            name = raw.get("name") or (function.get("name") if isinstance(function, dict) else None)
        out.append(f"{block.type} {name}" if isinstance(name, str) and name else block.type)
    return out


def _at(doc: Any, path: Sequence[PathPart]) -> Any:
    """The value at ``path`` inside a loaded document, or None."""
    for part in path:
        try:
            doc = doc[part]
        except (KeyError, IndexError, TypeError):
            return None
    return doc


def holds_records(source: Source) -> bool:
    """Whether ``source`` is a JSON array of conversations, read record by record (its "line" is a record), rather
    than a JSONL file."""
    return source.text.lstrip().startswith("[")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun, singular for one ("1 token", "1,234 tokens", "1 match"; "1 matches" had been shown).

    >>> counted(1, "token"), counted(1234, "token"), counted(2, "match", "matches")
    ('1 token', '1,234 tokens', '2 matches')
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def message_count(conv: Conversation) -> str:
    """How many messages ``conv`` has, as a gallery card counts them: the system prompt apart.

    >>> from layerzero_viz import load_conversation
    >>> message_count(load_conversation('{"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]}'))
    '1 message + system prompt'
    """
    system = sum(m.role in ("system", "developer") for m in conv.messages)
    text = counted(len(conv.messages) - system, "message")
    if system:
        text += " + system prompt" if system == 1 else f" + {system} system prompts"
    return text


def _percent(fraction: float) -> str:
    return f"{fraction:.0%}" if fraction >= 0.01 or fraction == 0 else f"{fraction:.1%}"


def bound_message(result: Any) -> Bound | None:
    """Why selection stopped where it did (from ``result.stopped_by``), in the sidebar's words.

    None when layer-zero is disabled (the sidebar says so already).  Under the lossless floor with every
    safe-tier token taken, the message offers :data:`RECOMMENDED_FLOOR`.
    """
    if not result.annotated.settings.enabled:
        return None
    floor = float(result.min_effectiveness)
    why = result.stopped_by
    if not result.tokens_total:
        return Bound(why, "Nothing to prune: no text block holds a token (images, documents and tool blocks pass "
                          "through untouched).")
    if why == "ratio":
        from .select import budget_for
        budget = budget_for(result.ratio, result.tokens_total)
        # (selection is prefix-stable and spans are whole: the budget of the blocks up to each block binds too,
        # so what is pruned may stay below ⌊r · tokens⌋)
        return Bound(why, f"The budget (r = {result.ratio:.2f}: at most {budget:,} tokens) is used as far as whole "
                          f"spans fit: {result.tokens_pruned:,} pruned; a higher ratio prunes more.")
    if why == "floor" and floor >= LOSSLESS:
        used = f"All redundant tokens are used from r = {slider_frontier(result.safe_frontier):.2f}"
        # what the offer would add here (the lossy tier is built once per conversation, its entries once per floor)
        more = result.annotated.at_ratio(result.ratio, min_effectiveness=RECOMMENDED_FLOOR).tokens_pruned \
            - result.tokens_pruned
        if more <= 0:
            return Bound(why, f"{used}; lossy pruning (floor {RECOMMENDED_FLOOR:g}) would take nothing more here.")
        return Bound(why, f"{used}; allowing lossy pruning (floor {RECOMMENDED_FLOOR:g}) takes "
                          f"{counted(more, 'more token')}.", offer=RECOMMENDED_FLOOR)
    if floor < LOSSLESS and result.effectiveness_estimate < floor and not result.tokens_lossy:
        # (a short prompt: the safe rules' own prunes already weigh more than the floor allows)
        return Bound(why, f"The safe rules alone bring the estimate to {result.effectiveness_estimate:.3f}, below "
                          f"the {floor:g} floor, which bounds only the lossy tier: it took nothing.")
    if why == "floor":
        return Bound(why, f"Stopped by the {floor:g} floor at {_percent(result.pruned_fraction)}; "
                          "a lower floor prunes more, at a lower estimate.")
    return Bound(why, "Nothing left that either tier may take.")


def page_url_path(page: str) -> str:
    """The URL path of a page: ``""`` for the default page (served at the root), else its id.

    >>> page_url_path("heatmap"), page_url_path("timing")
    ('', 'timing')
    """
    return "" if page == DEFAULT_PAGE else page


def link_state(view: ViewState) -> dict[str, Any]:
    """The state dict :func:`layerzero_viz.share.make_link` packs (source fields flattened, view values cleaned)."""
    state: dict[str, Any] = {
        "page": view.page,
        "ratio": view.ratio,
        "low_information": view.low_information,
        "show_whitespace": view.show_whitespace,
        "message": view.message,
        "profile": view.profile,
        "view": clean_view(view.view),
    }
    # in the view extras, as source_name: share.STATE_FIELDS keeps only the fields it knows at the top level
    state["view"]["min_effectiveness"] = clean_floor(view.min_effectiveness)
    if view.source is not None:
        state["view"]["source_name"] = view.source.name
        state.update(conversation=view.source.text, format=view.source.format, line=view.source.line)
    return state


def view_from_link(state: Mapping[str, Any]) -> ViewState:
    """The view a decoded link state describes; :class:`ShareLinkError` when it carries no conversation.

    An unknown page opens the default page; view values that fail their check are dropped; a link without
    an effectiveness floor (made before there was one) or with one the app does not offer loads as lossless.
    """
    if not state.get("conversation"):
        raise ShareLinkError("This debug link carries no conversation, so there is nothing to show. "
                             "Create the link again after loading a conversation.")
    extras = dict(state.get("view") or {})
    name = extras.get("source_name")
    source = Source(
        text=state["conversation"],
        format=state.get("format") or "auto",
        line=state.get("line") or None,
        name=name if isinstance(name, str) and name else "debug link",
    )
    page = state.get("page")
    return ViewState(
        page=page if page in PAGES else DEFAULT_PAGE,
        source=source,
        ratio=state.get("ratio"),
        low_information=state.get("low_information", True),
        show_whitespace=state.get("show_whitespace", False),
        message=state.get("message"),
        view=clean_view(extras),
        profile=state.get("profile"),
        min_effectiveness=clean_floor(extras.get("min_effectiveness", state.get("min_effectiveness", LOSSLESS))),
    )


MAX_LINK_TOKENS = 200_000
"""The most tokens of a conversation the app opens, from a debug link, an upload or a paste: annotated and drawn in about 2-3 s here (a view of
100k tokens takes ≈ 1 s, 300k ≈ 2.5 s) and held in ≈ 0.4 GB of the server's caches.  A link (≤ 64 KB, unpacking
to ≤ 25 MB) could otherwise carry millions of tokens: a 21 KB link unpacked to 6.2 MB took 36 s and 2.9 GB."""


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 2**20:.1f} MB" if n_bytes >= 2**20 else f"{n_bytes / 1024:.0f} KB"


def held_to_size(source: Source, max_tokens: int | None = None) -> tuple[Source, str | None]:
    """``source`` cut to its leading messages within ``max_tokens`` (cl100k; default :data:`MAX_LINK_TOKENS`),
    and a notice saying so (None: kept whole).

    Whole messages are kept, in the input's own format; when even the first is too long its text is cut.  A JSONL
    file keeps only its selected line.  A source that does not load is returned unchanged (loading it reports
    the error as usual).

    >>> turn = '{"role": "user", "content": "%s"}' % ("word " * 300)
    >>> small, notice = held_to_size(Source('{"messages": [%s, %s]}' % (turn, turn)), max_tokens=400)
    >>> len(small.load().messages), notice.split(": ")[1].split(".")[0]
    (1, 'the app shows its first 1 message of 2')
    """
    max_tokens = MAX_LINK_TOKENS if max_tokens is None else max_tokens
    n_bytes = len(source.text.encode("utf-8", "surrogatepass"))
    if n_bytes <= max_tokens:  # every token holds at least one byte
        return source, None
    try:
        conv = source.load()
    except Exception:  # noqa: BLE001 - the app's loader reports it, with where and how to fix
        return source, None
    from .tokens import encoding  # only for big links: the tokenizer's tables load once

    enc = encoding()
    total, kept, cut_text = 0, len(conv.messages), None
    for k, m in enumerate(conv.messages):
        n = len(enc.encode_ordinary(m.text))
        if total + n > max_tokens:
            kept = k
            if k == 0:  # the first message alone is too long: keep its head (a token holds ≥ 1 byte)
                cut_text = max_tokens
            break
        total += n
    whole = conv.jsonl_line is None or conv.jsonl_lines in (None, 1)
    if kept == len(conv.messages) and whole:
        return source, None
    texts: dict[Any, str] = {}
    if cut_text is not None:
        kept = 1
        budget = cut_text
        for b in conv.messages[0].blocks:
            if b.kind == "text":
                head = b.text.encode("utf-8", "surrogatepass")[:max(budget, 0)].decode("utf-8", "ignore")
                texts[b.path] = head
                budget -= len(head.encode("utf-8", "surrogatepass"))
    obj = dump_conversation(conv, texts)
    if conv.format == "text":
        obj = texts.get(conv.messages[0].blocks[0].path, obj) if cut_text is not None else obj
    else:
        cuts: dict[Any, int] = {}
        for m in conv.messages[kept:]:
            path = next((b.path for b in m.blocks if len(b.path) > 1 and isinstance(b.path[1], int)), None)
            if path is not None:
                cuts[path[0]] = min(cuts.get(path[0], path[1]), path[1])
        for name, index in cuts.items():
            if isinstance(obj, dict) and isinstance(obj.get(name), list):
                obj[name] = obj[name][:index]
    text = dump_text(conv, obj)
    fmt = "auto" if conv.jsonl_line is not None else source.format
    what = []
    if kept < len(conv.messages) or cut_text is not None:
        # counted as the sidebar counts them (message_count): the system prompt apart ("683 of 1001 messages"
        # had stood beside the sidebar's "682 messages + system prompt")
        system = [m.role in ("system", "developer") for m in conv.messages]
        shown, total = kept - sum(system[:kept]), len(system) - sum(system)
        what.append(f"its first {counted(shown, 'message')} of {total:,}" + (" and its system prompt" if any(
            system[:kept]) else "") + (", cut short" if cut_text else ""))
    if not whole:
        what.append(f"only record {conv.jsonl_line} of the {conv.jsonl_lines} in its JSON array"
                    if holds_records(source)
                    else f"only line {conv.jsonl_line} of the {conv.jsonl_lines}-line file")
    notice = (f"This conversation ({_size(n_bytes)}) holds more than the {max_tokens:,} tokens the app renders in "
              f"a few seconds: the app shows {' and '.join(what)}. To see all of it, prune the file itself with "
              f"the CLI (layerzero-viz prune / report).")
    return Source(text, fmt, None, source.name), notice


def clean_view(values: Mapping[str, Any]) -> dict[str, Any]:
    """Only the known page view values that pass their check.

    >>> clean_view({"heatmap_page": 3, "color_by": "bogus", "other": 1})
    {'heatmap_page': 3}
    """
    return {k: v for k, v in values.items() if k in VIEW_FIELDS and VIEW_FIELDS[k].check(v)}


def view_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Every view value: the valid ones of ``values``, the rest at their defaults (fresh copies of lists).

    >>> view_values({"heatmap_page": 2})["heatmap_page"], view_values({})["heatmap_search"]
    (2, '')
    """
    clean = clean_view(values)
    return {k: clean[k] if k in clean else copy.copy(f.default) for k, f in VIEW_FIELDS.items()}


def fixture_from_argv(argv: Sequence[str]) -> str | None:
    """The ``--fixture PATH`` (or ``--fixture=PATH``) given after ``streamlit run app.py --``.

    >>> fixture_from_argv(["app.py", "--fixture", "fixtures/a.json"]), fixture_from_argv(["pytest", "-q"])
    ('fixtures/a.json', None)
    """
    for k, arg in enumerate(argv):
        if arg == "--fixture" and k + 1 < len(argv):
            return argv[k + 1]
        if arg.startswith("--fixture="):
            return arg.split("=", 1)[1] or None
    return None


@dataclass(frozen=True)
class GalleryItem:
    """A bundled fixture with the title and one-line description the Load page shows."""

    file: str
    title: str
    description: str
    lang: str
    path: Path


def read_gallery(folder: str | Path) -> list[GalleryItem]:
    """The fixtures in ``folder``: those in ``GALLERY.toml`` first (its order), then any other file by name.

    A listed file that does not exist is skipped; a missing or broken ``GALLERY.toml`` lists files only.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    try:
        listed = tomllib.loads((folder / "GALLERY.toml").read_text(encoding="utf-8")).get("files", {})
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        listed = {}
    items: list[GalleryItem] = []
    for file, meta in listed.items() if isinstance(listed, dict) else ():
        path = folder / file
        if not isinstance(meta, dict) or not path.is_file() or path.parent != folder:
            continue
        items.append(GalleryItem(file, str(meta.get("title") or file), str(meta.get("description") or ""),
                                 str(meta.get("lang") or ""), path))
    seen = {item.file for item in items}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.name not in seen and path.suffix in (".json", ".jsonl", ".txt", ".http"):
            items.append(GalleryItem(path.name, path.name, "", "", path))
    return items


def text_of_upload(data: bytes, name: str) -> str:
    """An uploaded file's text (UTF-8, BOM removed); :class:`InputError` naming the first bad byte otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        load_conversation(data, name=name)  # raises the library's InputError, which says where and how to fix
        raise InputError("not valid UTF-8", location=name, hint="save the file as UTF-8") from None


def page_count(n_items: int, per_page: int) -> int:
    """How many pages ``n_items`` fill, at least 1.

    >>> page_count(0, 2000), page_count(2000, 2000), page_count(2001, 2000)
    (1, 1, 2)
    """
    return max(1, math.ceil(n_items / per_page))


def page_bounds(groups: Sequence[int], per_page: int) -> list[int]:
    """Where each page of tokens starts, plus the end: cuts every ``per_page`` tokens, moved on past a group.

    A display group (a character split over several tokens) is never cut in two.

    >>> page_bounds([0, 1, 1, 2, 3], 2)
    [0, 3, 5]
    """
    n = len(groups)
    bounds = [0]
    cut = per_page
    while cut < n:
        while cut < n and groups[cut] == groups[cut - 1]:
            cut += 1
        if cut < n:
            bounds.append(cut)
        cut = max(cut, bounds[-1]) + per_page
    bounds.append(n)
    return bounds


def app_base_url(context_url: str | None, current_url_path: str, *, fallback: str = "http://127.0.0.1:8501") -> str:
    """The app's root URL from ``st.context.url`` (which ends with the current page's path, if any).

    >>> app_base_url("http://h:8501/timing", "timing"), app_base_url(None, "")
    ('http://h:8501', 'http://127.0.0.1:8501')
    """
    if not context_url:
        return fallback
    url = context_url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    if current_url_path and url.endswith("/" + current_url_path):
        url = url[: -len(current_url_path) - 1]
    return url


def download_names(source_name: str, conv: Conversation) -> dict[str, str]:
    """File names for the downloads: the pruned conversation keeps the input's kind of file.

    >>> from layerzero_viz import load_conversation
    >>> download_names("chat.json", load_conversation("Hi"))["pruned"]
    'chat.pruned.txt'
    """
    stem = Path(source_name).stem if source_name and source_name not in ("pasted", "debug link") else "conversation"
    stem = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in stem) or "conversation"
    if conv.jsonl_line is not None:
        ext = ".jsonl"
    else:
        ext = {"text": ".txt", "http": ".http"}.get(conv.format, ".json")
    return {"pruned": f"{stem}.pruned{ext}", "tokens": f"{stem}.tokens.csv", "result": f"{stem}.result.json"}


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|$~#"})


def md_escape(text: str) -> str:
    """``text`` with Markdown's active characters backslash-escaped, for user text in ``st.error``/``st.caption``.

    >>> md_escape("a_b [x](y) $5")
    'a\\\\_b \\\\[x\\\\](y) \\\\$5'
    """
    return str(text).translate(_MD_SPECIAL)


class ResultView:
    """A :class:`~layerzero_viz.result.PruneResult` with the tables the pages show, each built once.

    The app caches one per (source, settings, ratio), so paging or switching pages never rebuilds them.
    """

    def __init__(self, result: Any) -> None:
        self.result = result
        self._memo: dict[Any, Any] = {}

    def memo(self, key: Any, build: Callable[[], T]) -> T:
        """``build()`` once per ``key`` for this result (charts, summaries: anything derived from it)."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def _positions(self, keys: Sequence[Any]) -> list[int]:
        """Each message key's position in the conversation (keys of mixed types: ``"system"``, 0, 1 …)."""
        pos = {(type(m.key), m.key): n for n, m in enumerate(self.result.annotated.conversation.messages)}
        return [pos[(type(k), k)] for k in keys]

    @cached_property
    def tokens(self) -> pd.DataFrame:
        """The token table plus ``m`` (the message's position) and ``label`` (``system``, ``#3 user``)."""
        df = self.result.token_table()
        if df.empty:
            return pd.DataFrame(columns=[*df.columns, "m", "label"])
        # per message, not per token: a 20k-token table took 140 ms of dict lookups and labels row by row
        codes, keys = pd.factorize(df["message"], sort=False)
        first = np.unique(codes, return_index=True)[1]  # the first row of each message, in order of codes
        roles = df["role"].to_numpy()[first]
        df["m"] = np.asarray(self._positions(list(keys)), dtype=np.int64)[codes]
        df["label"] = np.asarray([message_label(k, r) for k, r in zip(keys, roles)], dtype=object)[codes]
        return df

    @cached_property
    def deleted(self) -> pd.DataFrame:
        """Every removed span: ``m``, message label, reason, text, detail and its character range in the block."""
        rows = self.result.deleted_spans()
        frame = pd.DataFrame.from_records(
            rows, columns=["message", "role", "block", "start", "end", "text", "reason", "detail"])
        labels = [message_label(k, r) for k, r in zip(frame["message"], frame["role"])]
        frame.insert(0, "m", self._positions(frame["message"]))
        frame["message"] = labels  # one type per column, as Arrow needs
        return frame.loc[:, ["m", "message", "reason", "text", "detail", "block", "start", "end"]]

    def tokens_csv(self) -> str:
        """The token annotations as CSV, the columns of ``PruneResult.token_table``."""
        return self.tokens.drop(columns=["m", "label"]).to_csv(index=False)

    def result_json(self) -> str:
        """The CLI's JSON result."""
        return json.dumps(self.result.to_dict(), ensure_ascii=False)


def same_message(a: Any, b: Any) -> bool:
    """Message keys compare by type too: ``"0"`` is not message 0, ``True`` is not 1."""
    return type(a) is type(b) and a == b


def message_position(conv: Conversation, key: Any) -> int | None:
    """The position of the message with ``key`` in ``conv``, or None when there is none."""
    for n, m in enumerate(conv.messages):
        if same_message(m.key, key):
            return n
    return None
