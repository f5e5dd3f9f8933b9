"""The heatmap's chips as an ``st.components.v2`` component: a click, a tap, or Enter/Space on a focused chip
picks it, and the page opens its details.

The markup comes from :func:`layerzero_viz.render.token_html` (user text already escaped) and is set as the
component's HTML; styles are not isolated, so ``render.TOKEN_CSS`` (drawn once by the page) applies.  After a
rerun the chip that had the keyboard focus gets it back, and a jump (next/previous) scrolls the selected chip
into view once.
"""
from __future__ import annotations

from typing import Callable

import streamlit as st

_JS = """
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector(":scope > .lz-chips");
  if (!root) {
    root = document.createElement("div");
    root.className = "lz-chips";
    parentElement.appendChild(root);
    root.addEventListener("focusin", (e) => {
      const chip = e.target.closest(".lz-tok[data-group]");
      root.__focus = chip ? chip.dataset.group : null;
    });
  }
  // The page's background as a CSS variable: the sticky details panel paints it so text scrolling under it
  // does not show through (Streamlit's theme sets it on .stApp only; the theme can follow the system).
  const app = document.querySelector(".stApp");
  if (app) document.documentElement.style.setProperty("--lz-page-bg", getComputedStyle(app).backgroundColor);
  const hadFocus = root.contains(document.activeElement) ? root.__focus : null;
  if (root.__html !== data.html) {
    root.innerHTML = data.html;  // escaped by render.token_html
    root.__html = data.html;
    if (hadFocus != null) {
      const again = root.querySelector(`.lz-tok[data-group="${hadFocus}"]`);
      if (again) again.focus({ preventScroll: true });
    }
  }
  const pick = (target) => {
    const chip = target.closest(".lz-tok[data-group]");
    if (chip) setTriggerValue("chip", Number(chip.dataset.group));
    return chip;
  };
  root.onclick = (e) => { pick(e.target); };
  root.onkeydown = (e) => {
    if ((e.key === "Enter" || e.key === " ") && pick(e.target)) e.preventDefault();
  };
  if (data.scroll && root.__scrolled !== data.scroll) {
    root.__scrolled = data.scroll;
    const chosen = root.querySelector(".lz-selected");
    if (chosen) { chosen.scrollIntoView({ block: "center" }); chosen.focus({ preventScroll: true }); }
  }
}
"""

_chips = st.components.v2.component("layerzero_viz_chips", js=_JS, isolate_styles=False)

KEY = "token_chips"


def picked() -> int | None:
    """The chip the last click or key press picked (inside the component's callback)."""
    value = st.session_state.get(KEY)

    chip = value.get("chip") if hasattr(value, "get") else getattr(value, "chip", None)
    return chip if isinstance(chip, int) and not isinstance(chip, bool) else None


def chips(markup: str, *, on_pick: Callable[[], None], scroll: str | None = None) -> None:
    """Draw ``markup`` (cards of chips); ``on_pick`` runs when a chip is picked (read it with :func:`picked`).

    ``scroll`` — any new value scrolls the selected chip into view once (a jump); None leaves the page alone.
    """
    _chips(key=KEY, data={"html": markup, "scroll": scroll}, on_chip_change=on_pick)
