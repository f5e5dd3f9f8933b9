"""How the app looks in Chromium (issue 16): the system's dark theme is honoured, chip colours pass WCAG AA as
drawn, protections are quiet until asked for, CJK text flows without gaps, and a phone shows the text first with
the token details beside it.  Screenshots of every page in light and dark, desktop and phone, go to
``tests/browser/artifacts/look/`` to be looked at.

Colours are read from the DOM (computed styles), not from our CSS source, so a theme or stylesheet that does not
apply shows up here.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from layerzero_viz.reasons import ALL_REASONS
from layerzero_viz.render import THEMES, contrast_ratio
from test_app_browser import PAGE_READY, PAGES, go_to, heading, open_app, screenshot, settled, sidebar

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
CARD_CHIP = ".lz-card .lz-tok[data-group]"
PANEL = "[class*=st-key-chip_details]"


@pytest.fixture
def themed_page(browser, app_url):
    """A factory: a fresh page in a context with the given colour scheme and viewport."""
    contexts = []

    def make(scheme: str, viewport: dict) -> Page:
        context = browser.new_context(viewport=viewport, color_scheme=scheme, locale="en-US")
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def _rgba(css: str) -> tuple[float, float, float, float]:
    """``rgb(…)`` / ``rgba(…)`` from getComputedStyle as (r, g, b, a)."""
    numbers = [float(n) for n in re.findall(r"[\d.]+", css)]
    return (*numbers[:3], numbers[3] if len(numbers) > 3 else 1.0)  # type: ignore[return-value]


def _over(top: tuple[float, float, float, float], under: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b, a = top
    return tuple(a * t + (1 - a) * u for t, u in zip((r, g, b), under))  # type: ignore[return-value]


def _hex(color: str) -> tuple[float, float, float]:
    h = color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def open_on_phone(page: Page, url: str, title: str = "Heatmap") -> None:
    """Open ``url`` where the sidebar is folded away (its captions are hidden): wait for the page's heading."""
    page.goto(url)
    expect(heading(page)).to_have_text(title)
    settled(page)


def app_colours(page: Page) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The app's page background and body text as drawn."""
    bg, fg = page.locator(".stApp").evaluate("e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]")
    return _rgba(bg)[:3], _rgba(fg)[:3]


def chip_contrasts(page: Page, page_bg: tuple[float, float, float]) -> dict[str, float]:
    """For every reason shown in the cards, the lowest text contrast of its chips (text vs tint over the page)."""
    drawn = page.locator(CARD_CHIP).evaluate_all("""chips => chips.map(c => {
        const s = getComputedStyle(c);
        return [c.classList[1], s.color, s.backgroundColor, s.opacity];
    })""")
    worst: dict[str, float] = {}
    for cls, color, background, opacity in drawn:
        o = float(opacity)
        text = _over((*_rgba(color)[:3], o), page_bg)
        r, g, b, a = _rgba(background)
        fill = _over((r, g, b, a * o), page_bg)
        worst[cls] = min(worst.get(cls, 99.0), contrast_ratio(text, fill))
    return worst


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_app_follows_the_system_colour_scheme(themed_page, app_url, scheme):
    page = themed_page(scheme, DESKTOP)
    open_app(page, app_url)
    bg, fg = app_colours(page)
    assert bg == _hex(THEMES[scheme].background) and fg == _hex(THEMES[scheme].text), (bg, fg)
    # the cards' text is the theme's own, not a colour fixed for white pages
    chip_fg = _rgba(page.locator(f"{CARD_CHIP}.lz-content").first.evaluate("e => getComputedStyle(e).color"))[:3]
    assert chip_fg == fg


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_chip_drawn_passes_wcag_aa(themed_page, app_url, scheme):
    page = themed_page(scheme, DESKTOP)
    open_app(page, app_url)
    page_bg, _ = app_colours(page)
    plain = chip_contrasts(page, page_bg)
    assert {"lz-filler", "lz-content", "lz-protected_number", "lz-directive"} <= set(plain)
    sidebar(page).get_by_text("Show protections").click()  # tints on protected chips too
    expect(page.locator(".lz-tokens.lz-show-protections").first).to_be_visible()
    settled(page)
    shown = chip_contrasts(page, page_bg)
    page.get_by_role("textbox", name="Search tokens").fill("收益")  # dimmed chips
    page.keyboard.press("Enter")
    expect(page.locator(f"{CARD_CHIP}.lz-dim").first).to_be_visible()
    settled(page)
    dimmed = chip_contrasts(page, page_bg)
    for name, table in (("plain", plain), ("protections shown", shown), ("search", dimmed)):
        assert set(table) <= {f"lz-{code}" for code in ALL_REASONS}
        failing = {cls: round(ratio, 2) for cls, ratio in table.items() if ratio < 4.5}
        assert not failing, (scheme, name, failing)


def test_filler_stands_out_from_plain_text(themed_page, app_url):
    page = themed_page("light", DESKTOP)
    open_app(page, app_url)
    filler = page.locator(f"{CARD_CHIP}.lz-filler").first
    style = filler.evaluate("""e => { const s = getComputedStyle(e);
        return [s.backgroundColor, s.textDecorationLine, s.boxShadow]; }""")
    background, decoration, shadow = style
    assert _rgba(background)[3] > 0.2  # a tint of its own
    assert "line-through" in decoration and shadow != "none"


def test_protections_are_quiet_by_default_and_shown_by_the_toggle(themed_page, app_url):
    page = themed_page("light", DESKTOP)
    open_app(page, app_url)
    number = page.locator(f"{CARD_CHIP}.lz-protected_number").first

    def look():
        return number.evaluate("""e => { const s = getComputedStyle(e); const icon = e.querySelector('sup.lz-icon');
            return [s.boxShadow, s.backgroundColor, icon ? getComputedStyle(icon).display : 'none']; }""")

    shadow, background, icon = look()
    assert shadow == "none" and _rgba(background)[3] == 0 and icon == "none"
    # no protected chip anywhere shows a glyph by default
    assert page.locator(".lz-card .lz-k-protected > sup.lz-icon").evaluate_all(
        "icons => icons.filter(i => getComputedStyle(i).display !== 'none').length") == 0

    number.hover()  # a hover highlights the one chip
    expect(number).not_to_have_css("box-shadow", "none")

    page.mouse.move(0, 0)
    sidebar(page).get_by_text("Show protections").click()
    expect(page.locator(".lz-tokens.lz-show-protections").first).to_be_visible()
    settled(page)
    shadow, background, icon = look()
    assert shadow != "none" and _rgba(background)[3] > 0 and icon != "none"


def test_chinese_text_flows_without_gaps_between_chips(themed_page, app_url):
    page = themed_page("light", DESKTOP)
    open_app(page, app_url)
    settled(page)
    gaps = page.locator(".lz-card[data-role=system] .lz-tokens").first.evaluate("""tokens => {
        const chips = [...tokens.querySelectorAll('.lz-tok')];
        const out = [];
        for (let i = 1; i < chips.length; i++) {
            const a = chips[i - 1].getClientRects(), b = chips[i].getClientRects();
            if (a.length !== 1 || b.length !== 1) continue;
            const left = a[0], right = b[0];
            const cjk = /^[\\u4e00-\\u9fff]$/;
            if (Math.abs(left.top - right.top) < 1 && cjk.test(chips[i - 1].textContent) && cjk.test(chips[i].textContent))
                out.push(right.left - left.right);
        }
        return out;
    }""")
    assert len(gaps) > 50
    assert max(abs(g) for g in gaps) < 0.5, sorted(gaps)[-5:]


def test_a_phone_shows_the_text_first_and_the_details_beside_a_tapped_token(themed_page, app_url):
    page = themed_page("light", PHONE)
    open_on_phone(page, app_url)
    page.locator(CARD_CHIP).first.wait_for()
    first = page.locator(CARD_CHIP).first
    expect(first).to_be_in_viewport()
    assert first.bounding_box()["y"] < PHONE["height"] * 0.7
    # the controls are in the (folded) sidebar, not above the text
    expect(page.get_by_role("textbox", name="Search tokens")).not_to_be_in_viewport()
    assert page.get_by_test_id("stMain").get_by_role("textbox").count() == 0

    far = page.locator(".lz-card[data-role=assistant] .lz-tok[data-group].lz-filler").last
    far.scroll_into_view_if_needed()
    far.click()
    panel = page.locator(PANEL)
    expect(panel).to_contain_text("Pruned · Filler")
    settled(page)
    expect(panel).to_be_in_viewport()
    chosen = page.locator(f"{CARD_CHIP}.lz-selected")
    expect(chosen).to_be_in_viewport()
    box, chip = panel.bounding_box(), chosen.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    assert chip["y"] >= box["y"] + box["height"] - 1 or chip["y"] + chip["height"] <= box["y"]  # not hidden by it


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_screenshots_of_every_page(themed_page, app_url, artifacts, scheme, size):
    viewport = DESKTOP if size == "desktop" else PHONE
    page = themed_page(scheme, viewport)
    out = artifacts / "look"
    out.mkdir(exist_ok=True)
    for n, link in enumerate(PAGES, start=1):
        title, path = PAGES[link]
        if size == "phone":  # the navigation is in the folded sidebar
            open_on_phone(page, app_url + path, title)
        elif n == 1:
            open_app(page, app_url + path)
        else:
            go_to(page, link)
        settled(page)
        page.locator(PAGE_READY[link]).first.wait_for()
        name = f"{size}-{scheme}-{n}-{PAGES[link][1].strip('/') or 'heatmap'}"
        if size == "phone":  # what the first screen shows, as a person holding the phone sees it
            shot = out / f"{name}.png"
            page.screenshot(path=shot, animations="disabled", caret="hide")
        else:
            shot = screenshot(page, out / f"{name}.png")
        assert shot.stat().st_size > 10_000
        if size == "phone" and link == "Heatmap":  # a tap far down the text, and its details
            far = page.locator(".lz-card[data-role=assistant] .lz-tok[data-group].lz-filler").last
            far.scroll_into_view_if_needed()
            far.click()
            expect(page.locator(PANEL)).to_contain_text("Pruned · Filler")
            settled(page)
            page.screenshot(path=out / f"{name}-tapped.png", animations="disabled", caret="hide")
        if scheme == "dark":
            bg, _ = app_colours(page)
            assert bg == _hex(THEMES["dark"].background), link


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_primary_buttons_keep_their_label_readable(themed_page, app_url, scheme):
    page = themed_page(scheme, DESKTOP)
    open_app(page, app_url)
    go_to(page, "Ratio sweep")
    button = page.get_by_role("button", name=re.compile(r"^Set the slider to"))
    fg, bg = button.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]")
    assert _rgba(bg)[3] == 1.0  # a filled (primary) button
    assert contrast_ratio(_rgba(fg)[:3], _rgba(bg)[:3]) >= 4.5, (scheme, fg, bg)
