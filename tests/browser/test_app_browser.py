"""The app in a real Chromium: what only a DOM can show — rendering, uploads, keys, links, escaping, screenshots.

The logic behind each page is pinned by the AppTest suite (``tests/app``); these tests drive the served app the
way a person does and wait for what they would see (a heading, a metric, a chip), never for a fixed time.
Screenshots land in ``tests/browser/artifacts/``; ``LZ_UPDATE_SCREENSHOTS=1`` also refreshes the README's
``docs/screenshots/heatmap.png``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
README_SHOT = REPO / "docs" / "screenshots" / "heatmap.png"

# Sidebar link text → (page heading, URL path), in sidebar order.
PAGES = {
    "Load": ("Load a conversation", "/load"),
    "Heatmap": ("Heatmap", "/"),
    "Side by side": ("Side by side", "/side-by-side"),
    "Timing": ("Timing", "/timing"),
    "Ratio sweep": ("Ratio sweep", "/sweep"),
}
# What each page draws last on the client (charts render after the script has finished).
CHART = "[data-testid=stVegaLiteChart] canvas, [data-testid=stVegaLiteChart] svg"
PAGE_READY = {
    "Load": ".st-key-open-finance_qa-zh-json button",
    "Heatmap": ".lz-card .lz-tok",
    "Side by side": "[data-testid=stMain] [data-testid=stCode]",
    "Timing": CHART,
    "Ratio sweep": CHART,
}
# Chips the ratio decides (directive tags are always removed: they instruct the pruner, not the model).
BUDGETED_PRUNE = ".lz-card .lz-tok[data-decision=prune]:not(.lz-directive)"
XSS_PAYLOADS = ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>",
                '<a href="javascript:alert(document.cookie)">', "<svg/onload=alert('xss')>",
                "<b onmouseover=alert(1)>", "<style>body{display:none}</style>")
# Counts calls of alert/confirm/prompt (also from frames that call parent.alert) before passing them on.
DIALOG_PROBE = """
window.__xss = 0;
for (const name of ["alert", "confirm", "prompt"]) {
  const original = window[name].bind(window);
  window[name] = (...args) => { window.__xss += 1; return original(...args); };
}
"""


# ---------------------------------------------------------------------------------------------- helpers


def known_bug(reason: str) -> pytest.MarkDecorator:
    """A test of the right behaviour that fails today; strict, so the fix shows up as XPASS: drop the mark then."""
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)


def sidebar(page: Page) -> Locator:
    return page.get_by_test_id("stSidebar")


def heading(page: Page) -> Locator:
    return page.locator("[data-testid=stMain] h1")


def metric(page: Page, label: str) -> Locator:
    """The value of the sidebar metric labelled ``label``."""
    box = sidebar(page).get_by_test_id("stMetric").filter(has=page.get_by_text(label, exact=True))
    return box.get_by_test_id("stMetricValue")


def slider(page: Page) -> Locator:
    return page.get_by_role("slider", name="prune_ratio")


def settled(page: Page) -> None:
    """Wait until the script run is over and every element is drawn: no stale element, no loading skeleton.

    Call it after waiting for something the run draws, so the run is known to have started.
    ``data-test-script-state`` is the attribute Streamlit's own browser tests wait on.
    """
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning")
    expect(page.locator("[data-stale=true]")).to_have_count(0)
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0)


def wait_loaded(page: Page, conversation: str) -> None:
    """Wait until the sidebar describes ``conversation`` (its caption is drawn last, after the metrics)."""
    page.get_by_test_id("stApp").wait_for()
    expect(sidebar(page).get_by_text(f"{conversation} · ")).to_be_visible()
    settled(page)


def open_app(page: Page, url: str, conversation: str = "finance_qa.zh.json") -> None:
    page.goto(url)
    wait_loaded(page, conversation)


def go_to(page: Page, link: str) -> None:
    """Click a sidebar navigation link and wait for that page to be drawn."""
    title, path = PAGES[link]
    sidebar(page).get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
    expect(heading(page)).to_have_text(title)
    expect(page).to_have_url(re.compile(re.escape(path) + r"(\?.*)?$"))
    settled(page)
    page.locator(PAGE_READY[link]).first.wait_for()


def upload(page: Page, path: Path, *, name: str | None = None) -> None:
    """Put ``path`` into the Load page's file uploader (under another file name if ``name`` is given)."""
    page.get_by_role("tab", name="Upload").click()
    files = page.locator("input[type=file]")
    if name is None:
        files.set_input_files(path)
    else:
        files.set_input_files({"name": name, "mimeType": "application/json", "buffer": path.read_bytes()})


def message_text(page: Page, role: str = "user") -> str:
    """The text of the token cards for ``role``, as the chips spell it (marks and whitespace glyphs left out)."""
    page.locator(f".lz-card[data-role={role}]").first.wait_for()
    return page.locator(f".lz-card[data-role={role}] .lz-tokens").evaluate_all("""parts => parts.map(part => {
        const copy = part.cloneNode(true);
        copy.querySelectorAll('sup, .lz-ws').forEach(e => e.remove());
        return copy.textContent;
    }).join('\\n')""")


def screenshot(page: Page, path: Path) -> Path:
    """A screenshot of the whole page: the viewport is sized to the content (Streamlit scrolls inside the page)."""
    settled(page)
    bottom = page.evaluate("""() => Math.max(...['stMainBlockContainer', 'stSidebarUserContent'].map(id => {
        const box = document.querySelector(`[data-testid=${id}]`)?.getBoundingClientRect();
        return box ? box.bottom : 0;
    }))""")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": min(int(bottom) + 24, 8000)})
    page.screenshot(path=path, animations="disabled", caret="hide")
    page.set_viewport_size(size)
    return path


# ---------------------------------------------------------------------------------------------- tests


def test_start_page_is_the_finance_heatmap_with_visible_token_chips(page, app_url):
    open_app(page, app_url)

    expect(heading(page)).to_have_text("Heatmap")
    chips = page.locator(".lz-card .lz-tok")
    expect(chips.first).to_be_visible()
    assert chips.count() > 100
    assert page.locator(BUDGETED_PRUNE).count() > 0  # r = 0.35 from the directive
    assert "七日年化收益率" in message_text(page, "system")
    expect(metric(page, "Tokens before → after")).to_have_text(re.compile(r"^[\d,]+ → [\d,]+$"))
    expect(sidebar(page).get_by_text("from the <layer-zero/> directive")).to_be_visible()


def test_uploading_a_file_on_the_load_page_opens_its_conversation(page, app_url):
    open_app(page, f"{app_url}/load")
    expect(heading(page)).to_have_text("Load a conversation")

    upload(page, FIXTURES / "support_chat.en.json")

    wait_loaded(page, "support_chat.en.json")
    expect(heading(page)).to_have_text("Heatmap")  # a load switches to the heatmap
    expect(page.locator(".lz-card[data-role=user] .lz-tok").first).to_be_visible()
    assert "AeroSound X2 headphones (SKU-40912)" in message_text(page, "user")
    go_to(page, "Load")
    expect(page.get_by_test_id("stMain").get_by_text("support_chat.en.json · format")).to_be_visible()


def test_an_uploaded_conversation_survives_a_browser_reload(page, app_url):
    open_app(page, f"{app_url}/load")
    upload(page, FIXTURES / "support_chat.en.json")
    wait_loaded(page, "support_chat.en.json")
    go_to(page, "Side by side")
    expect(page).to_have_url(re.compile(r"/side-by-side\?c=[0-9a-f]{16}$"))

    page.reload()
    wait_loaded(page, "support_chat.en.json")
    expect(heading(page)).to_have_text("Side by side")
    expect(page.get_by_test_id("stMain").get_by_text("AeroSound X2 headphones (SKU-40912)").first).to_be_visible()


def test_ratio_slider_keys_change_the_sidebar_metrics(page, app_url):
    open_app(page, app_url)
    expect(slider(page)).to_have_value("0.35")
    tokens, pruned = metric(page, "Tokens before → after"), metric(page, "Pruned")
    at_directive = pruned.inner_text()
    assert at_directive != "0.0%"

    slider(page).focus()
    page.keyboard.press("End")
    expect(slider(page)).to_have_value("0.95")
    expect(sidebar(page).get_by_text("Effective ratio 0.95 · from the slider")).to_be_visible()
    expect(page.get_by_test_id("stMain").get_by_text("tokens pruned at r = 0.95.")).to_be_visible()

    page.keyboard.press("Home")
    expect(sidebar(page).get_by_text("Effective ratio 0.00 · from the slider")).to_be_visible()
    expect(pruned).to_have_text("0.0%")
    total = tokens.inner_text().split(" → ")[0]
    expect(tokens).to_have_text(f"{total} → {total}")
    expect(page.locator(BUDGETED_PRUNE)).to_have_count(0)

    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect(sidebar(page).get_by_text("Effective ratio 0.05 · from the slider")).to_be_visible()
    expect(pruned).not_to_have_text("0.0%")
    expect(tokens).not_to_have_text(f"{total} → {total}")
    expect(page.locator(BUDGETED_PRUNE).first).to_be_visible()


def test_sidebar_links_switch_pages_and_keep_the_ratio(page, app_url):
    open_app(page, app_url)
    slider(page).focus()
    page.keyboard.press("ArrowRight")
    expect(sidebar(page).get_by_text("Effective ratio 0.36 · from the slider")).to_be_visible()

    for link in ("Timing", "Ratio sweep", "Side by side", "Load", "Heatmap"):
        go_to(page, link)
        expect(slider(page)).to_have_value("0.36")
        expect(sidebar(page).get_by_text("finance_qa.zh.json · ")).to_be_visible()


def test_debug_link_reopens_the_same_view_in_a_fresh_browser(new_page, app_url):
    page = new_page()
    open_app(page, f"{app_url}/load")
    page.locator(".st-key-open-code_review-en-json button").click()  # a sample, not the --fixture one
    wait_loaded(page, "code_review.en.json")
    slider(page).focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(sidebar(page).get_by_text("Effective ratio 0.32 · from the slider")).to_be_visible()
    go_to(page, "Side by side")
    page.get_by_role("combobox", name="Message").click()
    page.get_by_role("option", name="#2 user").click()
    expect(page.locator("[data-testid=stMain] [data-testid=stCode]")).to_have_count(1)  # one message shown

    sidebar(page).get_by_role("button", name="Copy debug link").click()
    link = sidebar(page).get_by_test_id("stCode").locator("code").inner_text().strip()
    assert re.fullmatch(rf"{re.escape(app_url)}/side-by-side\?(s|share)=\S+", link), link

    fresh = new_page()  # another context: no cookie, no session state in common
    fresh.goto(link)
    wait_loaded(fresh, "code_review.en.json")
    expect(heading(fresh)).to_have_text("Side by side")
    expect(fresh).to_have_url(re.compile(re.escape(f"{app_url}/side-by-side")))
    expect(slider(fresh)).to_have_value("0.32")
    expect(sidebar(fresh).get_by_text("Effective ratio 0.32 · from the slider")).to_be_visible()
    expect(fresh.get_by_role("combobox", name="Message")).to_have_value("#2 user")
    expect(fresh.locator("[data-testid=stMain] [data-testid=stCode]")).to_have_count(1)
    for label in ("Tokens before → after", "Pruned", "Effectiveness (estimate)"):
        expect(metric(fresh, label)).to_have_text(metric(page, label).inner_text())


def test_xss_payload_is_shown_as_text_and_never_runs(page, app_url):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.add_init_script(DIALOG_PROBE)
    open_app(page, f"{app_url}/load")

    # The file name is user text too.
    hostile_name = "<img src=x onerror=alert(2)>.json"
    upload(page, FIXTURES / "xss_payload.en.json", name=hostile_name)
    wait_loaded(page, hostile_name)
    slider(page).focus()
    page.keyboard.press("Home")  # nothing pruned: the side-by-side text is the message verbatim
    expect(sidebar(page).get_by_text("Effective ratio 0.00 · from the slider")).to_be_visible()
    settled(page)
    user_text = message_text(page, "user")
    for payload in XSS_PAYLOADS:
        assert payload in user_text, payload
    page.locator(".lz-card .lz-tok").filter(has_text="hover").first.hover()  # the <b onmouseover> payload

    go_to(page, "Side by side")
    pruned = page.locator("[data-testid=stMain] [data-testid=stCode]")
    expect(pruned.filter(has_text="<img src=x onerror=alert(1)>")).to_be_visible()
    expect(pruned.filter(has_text="<script>alert(1)</script>")).to_be_visible()
    expect(pruned.filter(has_text="<iframe srcdoc=")).to_be_visible()

    for link in ("Heatmap", "Side by side"):
        go_to(page, link)
        dom = page.evaluate("""() => ({
            img_src_x: document.querySelectorAll('img[src=x], img[src$="/x"]').length,
            handlers: document.querySelectorAll('[onerror], [onload], [onmouseover]').length,
            script_alert: [...document.scripts].filter(s => s.textContent.includes('alert(')).length,
            iframes: document.querySelectorAll('iframe[srcdoc]').length,
            js_links: document.querySelectorAll('a[href^="javascript:"]').length,
            hidden_body: getComputedStyle(document.body).display === 'none',
            probe: window.__xss,
        })""")
        assert dom == {"img_src_x": 0, "handlers": 0, "script_alert": 0, "iframes": 0, "js_links": 0,
                       "hidden_body": False, "probe": 0}, (link, dom)
    assert len(page.frames) == 1
    assert dialogs == []


def test_every_page_renders_for_a_screenshot(page, app_url, artifacts):
    open_app(page, app_url)
    for n, link in enumerate(PAGES, start=1):
        go_to(page, link)
        screenshot(page, artifacts / f"{n}-{PAGES[link][1].strip('/') or 'heatmap'}.png")
    # Chinese is drawn with a real CJK font: without one every character is the same missing-glyph box.
    glyphs = page.evaluate("""() => ['七', '年', '化'].map(ch => {
        const canvas = Object.assign(document.createElement('canvas'), {width: 40, height: 40});
        const c = canvas.getContext('2d');
        c.font = '32px sans-serif';
        c.fillText(ch, 4, 32);
        return canvas.toDataURL();
    })""")
    assert len(set(glyphs)) == 3, "CJK characters render as identical boxes: install fonts-wqy-microhei"


def test_the_browser_requests_nothing_from_outside_this_machine(page, app_url):
    outside: list[str] = []
    page.on("request", lambda request: outside.append(request.url)
            if request.url.startswith(("http:", "https:")) and not request.url.startswith(app_url) else None)
    open_app(page, app_url)
    for link in PAGES:
        go_to(page, link)
    assert outside == [], "the Load page promises that nothing leaves this machine"


def test_message_picker_says_all_messages_when_none_is_chosen(page, app_url):
    open_app(page, app_url)
    assert page.get_by_role("combobox", name="Message").input_value() == "All messages"


def test_legend_group_titles_each_start_a_row(page, app_url):
    open_app(page, app_url)
    legend = page.locator(".lz-legend")
    legend.wait_for()
    offsets = legend.evaluate("""legend => [...legend.querySelectorAll('.lz-legend-title')].map(h =>
        h.getBoundingClientRect().left - legend.getBoundingClientRect().left)""")
    assert len(offsets) == 3 and all(offset < 1 for offset in offsets), offsets


def test_readme_heatmap_screenshot(page, app_url, artifacts):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_app(page, app_url)
    page.locator(".lz-card .lz-tok").first.wait_for()
    settled(page)
    # past the legend to the turns, where the filler the engine prunes shows
    page.locator(".lz-card[data-role=system]").evaluate("card => card.scrollIntoView({block: 'start'})")
    expect(page.locator(".lz-card[data-role=user] .lz-tok.lz-filler").first).to_be_in_viewport()
    shot = page.screenshot(path=artifacts / "readme-heatmap.png", animations="disabled", caret="hide")
    if os.environ.get("LZ_UPDATE_SCREENSHOTS") == "1":
        README_SHOT.parent.mkdir(parents=True, exist_ok=True)
        README_SHOT.write_bytes(shot)


def test_allowing_lossy_pruning_shows_lossy_chips_and_the_sweep_compares_floors(page, app_url, artifacts):
    """Issue 13: past the safe frontier the sidebar offers the 0.98 floor; the heatmap then shows lossy chips and
    the sweep draws lossless and 0.98 together."""
    open_app(page, app_url)
    slider(page).focus()
    page.keyboard.press("End")
    expect(sidebar(page).get_by_text("Effective ratio 0.95 · from the slider")).to_be_visible()
    expect(sidebar(page).get_by_text(re.compile(r"All redundant tokens are used from r = 0\.\d\d"))).to_be_visible()
    expect(page.locator(".lz-card .lz-tok.lz-lossy")).to_have_count(0)
    sidebar(page).get_by_role("button", name="Allow lossy pruning (floor 0.98)").click()
    # (the bundled conversation's grammar words run out before the floor: the lossy tier has taken them all)
    expect(sidebar(page).get_by_text(re.compile(r"Stopped by the 0\.98 floor at \d+%|Nothing left that either tier may take"))
           ).to_be_visible()
    settled(page)
    chip = page.locator(".lz-card .lz-tok.lz-lossy").first
    expect(chip).to_be_visible()
    assert "estimated loss" in chip.get_attribute("title")
    go_to(page, "Ratio sweep")
    expect(page.get_by_text("What each floor would cost")).to_be_visible()
    floors = page.get_by_test_id("stMain").get_by_test_id("stMultiSelect")
    expect(floors).to_contain_text("lossless")
    expect(floors).to_contain_text("0.98")
    screenshot(page, artifacts / "sweep_two_floors.png")
