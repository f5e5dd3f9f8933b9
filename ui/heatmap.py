"""The heatmap's find bar and details panel: callbacks that move the selection, and the panel that shows it."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import streamlit as st

from layerzero_viz.appstate import md_escape
from layerzero_viz.find import ChipDetails, step

from . import chips, session

SCROLL = "heatmap_scroll"  # a fresh value after each jump: the chips scroll the selected one into view once


def jump(targets: Sequence[int], groups: np.ndarray, bounds: Sequence[int], forward: bool) -> None:
    """Button callback: select the next (or previous) chip of ``targets`` and open the token page that holds it.

    ``groups`` is the display group of each row shown (the message filter applied), ``bounds`` where each token
    page starts.
    """
    ss = st.session_state
    target = step(targets, ss.get(session.CHIP), forward=forward)
    if target is None:
        return
    row = int(np.searchsorted(groups, target, side="left"))  # groups ascend along the rows
    ss[session.CHIP] = target
    ss[session.TOKEN_PAGE] = int(np.searchsorted(bounds, row, side="right"))
    ss[SCROLL] = ss.get(SCROLL, 0) + 1


def pick() -> None:
    """Component callback: the chip a click, tap or Enter picked becomes the selected chip."""
    chip = chips.picked()
    if chip is not None:
        st.session_state[session.CHIP] = chip


def close() -> None:
    """Button callback: close the details panel."""
    st.session_state[session.CHIP] = None


def details_panel(details: ChipDetails) -> None:
    """The selected chip's details: its text, decision and reason, rule details, tier and loss, token ids, score."""
    with st.container(border=True, key="chip_details"):
        head, shut = st.columns([6, 1], vertical_alignment="center")
        verdict = "Pruned" if details.decision == "prune" else "Kept"
        head.markdown(f"**{verdict}** · {md_escape(' / '.join(details.labels))} · in {md_escape(details.message)}")
        shut.button("Close", key="chip_close", icon=":material/close:", on_click=close, width="stretch")
        st.code(details.text, language=None, wrap_lines=True)
        rows = []
        if details.protection:
            rows.append(("Kept by", details.protection))
        rows += [("Why", d) for d in details.details]
        if details.tier:
            rows.append(("Tier", f"{details.tier} · estimated loss {details.loss:.2f} bits"))
        if details.sentence:  # one line of the panel (it is sticky on a phone: it must stay short)
            sentence = " ".join(details.sentence.split())
            rows.append(("In the sentence", sentence if len(sentence) <= 160 else sentence[:159] + "…"))
        rows.append(("Token ids", ", ".join(map(str, details.token_ids))))
        rows.append(("Score", f"{details.score:.2f}"))
        st.markdown("  \n".join(f"**{md_escape(name)}:** {md_escape(value)}" for name, value in rows))
