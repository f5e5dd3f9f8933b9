"""The heatmap and the debug link in Chromium: what needs a DOM — the clipboard, clicks and keys on chips, focus.

AppTest (tests/app) pins the state behind these; here a person's moves are replayed and what they would see is
waited for, never a fixed time.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_app_browser import heading, open_app, settled, sidebar

pytestmark = pytest.mark.browser

CARD_CHIP = ".lz-card .lz-tok[data-group]"
PANEL = "[class*=st-key-chip_details]"


def details(page: Page):
    return page.locator(PANEL)


def test_copy_debug_link_puts_the_link_on_the_clipboard_and_says_so(page: Page, app_url: str, new_page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    open_app(page, app_url)
    page.get_by_role("textbox", name="Search tokens").fill("收益")
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(r"\d+ matches \("))).to_be_visible()
    settled(page)
    sidebar(page).get_by_role("button", name="Copy debug link").click()
    expect(page.get_by_test_id("stToast")).to_contain_text("Debug link copied to the clipboard")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link.startswith(app_url + "/?s=")

    other = new_page()
    other.goto(link)
    expect(heading(other)).to_have_text("Heatmap")
    expect(other.get_by_role("textbox", name="Search tokens")).to_have_value("收益")
    expect(other.locator(".lz-card .lz-tok.lz-hit").first).to_be_visible()


def test_clicking_a_chip_opens_its_details(page: Page, app_url: str):
    open_app(page, app_url)
    chip = page.locator(f"{CARD_CHIP}.lz-filler").first
    text = chip.evaluate("e => [...e.childNodes].filter(n => n.nodeName !== 'SUP').map(n => n.textContent).join('')")
    chip.click()
    expect(details(page)).to_contain_text("Pruned · Filler")
    expect(details(page)).to_contain_text("Token ids:")
    expect(details(page).get_by_test_id("stCode")).to_contain_text(text)
    expect(page.locator(f"{CARD_CHIP}.lz-selected")).to_have_count(1)
    details(page).get_by_role("button", name="Close").click()
    expect(details(page)).to_have_count(0)


def test_a_chip_focused_by_keyboard_opens_with_enter_and_keeps_the_focus(page: Page, app_url: str):
    open_app(page, app_url)
    chips = page.locator(CARD_CHIP)
    first = chips.first
    first.focus()
    page.keyboard.press("Tab")  # the next chip: chips are in the tab order
    focused = page.evaluate("document.activeElement.dataset.group")
    assert focused is not None and focused != first.get_attribute("data-group")
    page.keyboard.press("Enter")
    expect(details(page)).to_be_visible()
    chosen = page.locator(f'{CARD_CHIP}[data-group="{focused}"]')
    expect(chosen).to_have_class(re.compile(r"\blz-selected\b"))
    expect(chosen).to_be_focused()  # redrawn, and the keyboard user is where they were


def test_chips_have_accessible_names(page: Page, app_url: str):
    open_app(page, app_url)
    chip = page.locator(f"{CARD_CHIP}.lz-protected_number").first
    expect(chip).to_have_attribute("role", "button")
    expect(chip).to_have_attribute("tabindex", "0")
    expect(chip).to_have_accessible_name(re.compile(r".+: Number, kept$"))


def test_next_pruned_token_selects_it_and_shows_it(page: Page, app_url: str):
    open_app(page, app_url)
    page.get_by_role("button", name="Next").click()
    expect(details(page)).to_contain_text("Pruned")
    chosen = page.locator(f"{CARD_CHIP}.lz-selected")
    expect(chosen).to_have_attribute("data-decision", "prune")
    expect(chosen).to_be_in_viewport()
