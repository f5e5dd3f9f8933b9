"""The app's pages: one ``st.Page`` per file in ``pages/``, addressed by the ids in ``appstate.PAGES``."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from layerzero_viz.appstate import DEFAULT_PAGE


@dataclass(frozen=True)
class PageSpec:
    id: str
    file: str
    title: str
    icon: str


SPECS: tuple[PageSpec, ...] = (
    PageSpec("load", "app_pages/load.py", "Load", ":material/upload_file:"),
    PageSpec("heatmap", "app_pages/heatmap.py", "Heatmap", ":material/grid_on:"),
    PageSpec("side-by-side", "app_pages/side_by_side.py", "Side by side", ":material/compare:"),
    PageSpec("timing", "app_pages/timing.py", "Timing", ":material/timer:"),
    PageSpec("sweep", "app_pages/sweep.py", "Ratio sweep", ":material/tune:"),
    PageSpec("ab", "app_pages/ab.py", "A/B", ":material/science:"),
    PageSpec("detector", "app_pages/detector.py", "Detector", ":material/troubleshoot:"),
    PageSpec("history", "app_pages/history.py", "History mining", ":material/query_stats:"),
)


def build() -> dict[str, st.Page]:
    """Page id → ``st.Page``; the heatmap is the default page (served at the app root)."""
    return {
        s.id: st.Page(s.file, title=s.title, icon=s.icon, url_path=s.id, default=s.id == DEFAULT_PAGE)
        for s in SPECS
    }


def page_id(pages: dict[str, st.Page], page: st.Page) -> str:
    """The id of ``page`` (the object ``st.navigation`` returned)."""
    return next((k for k, p in pages.items() if p is page), DEFAULT_PAGE)
