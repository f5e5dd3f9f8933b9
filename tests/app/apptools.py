"""AppTest helpers: a fresh app per test, and the user's moves (open a sample, paste, switch page)."""
from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
TIMEOUT = 30  # seconds per script run: generous for a cold tokenizer on a slow CI machine

PAGE_FILES = {
    "load": "app_pages/load.py",
    "heatmap": "app_pages/heatmap.py",
    "side-by-side": "app_pages/side_by_side.py",
    "timing": "app_pages/timing.py",
    "sweep": "app_pages/sweep.py",
}


def new_app(**query_params: str) -> AppTest:
    """The app, run once (with ``query_params`` in the URL, if any)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params.update(query_params)
    return at.run()


def goto(at: AppTest, page: str) -> AppTest:
    """Open ``page`` (an id such as ``"timing"``) as the sidebar navigation would."""
    return at.switch_page(PAGE_FILES[page]).run()


def open_sample(at: AppTest, file: str) -> AppTest:
    """Open a bundled fixture from the Load page's gallery; the app lands on the heatmap."""
    goto(at, "load")
    at.button(key=f"open:{file}").click().run()
    # AppTest keeps requesting the page of its last switch_page(); follow the app's own switch.
    at.switch_page(PAGE_FILES["heatmap"])
    return at


def paste(at: AppTest, text: str, fmt: str = "auto") -> AppTest:
    """Paste ``text`` on the Load page and press the load button."""
    goto(at, "load")
    at.selectbox(key="load_format").set_value(fmt)
    at.text_area(key="paste_text").input(text)
    at.button(key="load_paste").click().run()
    if not at.error:  # loaded: the app switched to the heatmap; keep AppTest there too
        at.switch_page(PAGE_FILES["heatmap"])
    return at


def metrics(at: AppTest) -> dict[str, str]:
    """The sidebar metrics, label → shown value."""
    return {m.label: m.value for m in at.sidebar.metric}


def chips_html(at: AppTest) -> str:
    """The heatmap's chips: the markup handed to its component (``ui.chips``), or "" when it is not drawn."""
    for element in at.get("bidi_component"):
        if element.proto.component_name == "layerzero_viz_chips":
            return json.loads(element.proto.json)["html"]
    return ""


def html_markdown(at: AppTest) -> str:
    """Everything written with st.markdown on the main page, and the heatmap's chips, joined."""
    return "\n".join([*(m.value for m in at.main.markdown), chips_html(at)])


def no_exception(at: AppTest) -> bool:
    return len(at.exception) == 0
