"""Reason codes the engine gives every token, and how each one looks on screen.

Every token is kept or pruned *for a reason*; this module is the single list of those codes and their
presentation (label, colour, glyph, CSS), so the heatmap, the legend, the charts and the CLI agree.

Colours start from the colour-blind-safe palettes of Okabe & Ito and Paul Tol (warm hues for prune reasons,
cool hues for protections), each moved to a mid luminance (0.19–0.23) so that the same colour, drawn as a line
or an edge, has at least 3:1 contrast against both Streamlit themes' backgrounds (white and #171614; WCAG 1.4.11)
while the chip's text stays the theme's own.  Twenty categories cannot all be told apart by hue alone, so colour
is never the only cue: each reason also has a glyph (at the start of a run of chips), and its *kind* has its own
line style (prune = struck through over a bar on a tinted background; protected = an inset edge, drawn only when
protections are shown or the chip is hovered or selected; over budget = dashed underline; content = plain).

>>> REASON_STYLES["filler"].label
'Filler'
>>> REASON_STYLES["filler"].decision
'prune'
>>> REASON_STYLES["protected_number"].rgba(0.5)
'rgba(48, 140, 67, 0.5)'
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, Mapping

__all__ = [
    "PRUNE_REASONS",
    "PROTECTED_REASONS",
    "KEEP_REASONS",
    "ALL_REASONS",
    "ReasonKind",
    "ReasonStyle",
    "REASON_STYLES",
    "reason_style",
]

# Highest priority first, as in the design (docs/ARCHITECTURE.md).
PRUNE_REASONS: tuple[str, ...] = (
    "declared_redundant",
    "repeated_constraint",
    "derivable_context",
    "filler",
    "low_information",
    "lossy",
    "directive",
)
PROTECTED_REASONS: tuple[str, ...] = (
    "protected_xml",
    "protected_schema",
    "protected_context",
    "protected_material",
    "protected_pattern",
    "protected_number",
    "protected_identifier",
    "protected_negation",
    "protected_connective",
    "protected_code",
    "protected_quote",
    "protected_user_fact",
)
KEEP_REASONS: tuple[str, ...] = PROTECTED_REASONS + ("over_budget", "content", "disabled")
ALL_REASONS: tuple[str, ...] = PRUNE_REASONS + KEEP_REASONS

ReasonKind = Literal["prune", "protected", "over_budget", "plain"]


@dataclass(frozen=True)
class ReasonStyle:
    """How one reason code is shown.

    ``color`` is a ``#rrggbb`` hex from a colour-blind-safe palette; ``glyph`` a single character shown
    next to the token (empty for plain content); ``css`` the declarations the reason's ``lz-<code>``
    class gets in :data:`layerzero_viz.render.TOKEN_CSS` (the score-dependent tint is added per token).
    """

    code: str
    label: str
    color: str
    glyph: str
    kind: ReasonKind
    css: str

    @property
    def decision(self) -> str:
        """``"prune"`` for prune reasons, else ``"keep"``."""
        return "prune" if self.kind == "prune" else "keep"

    @property
    def rgb(self) -> tuple[int, int, int]:
        """The colour as an ``(r, g, b)`` tuple of 0..255 ints."""
        h = self.color.lstrip("#")
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)

    def rgba(self, alpha: float) -> str:
        """The colour as a CSS ``rgba()`` with ``alpha`` clamped to 0..1 (a tint that suits light and dark themes)."""
        a = min(1.0, max(0.0, float(alpha)))
        r, g, b = self.rgb
        return f"rgba({r}, {g}, {b}, {round(a, 3)})"


# CSS per kind; the colour is substituted per reason.  Text keeps ``currentColor`` so the theme decides it.
# Lines are box-shadows and text decorations, never borders: they take no room, so CJK text keeps its rhythm.
# The score-dependent tint is a custom property (``--lz-tint``) set per chip; render.TOKEN_CSS decides when a
# protected chip shows its edge and tint (protections are quiet unless asked for).
_KIND_CSS: Mapping[str, str] = {
    "prune": "background-color: var(--lz-tint); text-decoration: line-through {color} 2px; "
    "box-shadow: inset 0 -3px 0 {color};",
    "protected": "background-color: var(--lz-tint); box-shadow: inset 0 0 0 1px {color};",
    "over_budget": "text-decoration: underline dashed {color} 2px; text-underline-offset: 4px;",
    "plain": "",
}

# code: (label, colour, glyph, kind).  From Okabe–Ito (#E69F00 #56B4E9 #009E73 #F0E442 #0072B2 #D55E00 #CC79A7)
# and Paul Tol's muted/bright sets, each moved in HLS lightness to relative luminance 0.19–0.23 (hue and
# saturation kept): filler's #F0E442 yellow became #9B8000, a line visible on white as on the dark theme.
_TABLE: tuple[tuple[str, str, str, str, ReasonKind], ...] = (
    ("declared_redundant", "Declared redundant", "#D55E00", "✂", "prune"),
    ("repeated_constraint", "Repeated constraint", "#B7731A", "↻", "prune"),
    ("derivable_context", "Derivable from context", "#C062A0", "∴", "prune"),
    ("filler", "Filler", "#9B8000", "…", "prune"),
    ("low_information", "Low information", "#7A8938", "∅", "prune"),
    ("lossy", "Lossy tier (estimated loss)", "#D0506A", "≈", "prune"),
    ("directive", "Engine directive", "#87817B", "⚙", "prune"),
    ("protected_xml", "XML markup", "#7C6AD9", "⟨", "protected"),
    ("protected_schema", "Output schema", "#0080C7", "▦", "protected"),
    ("protected_context", "Context block", "#298BB8", "¶", "protected"),
    ("protected_material", "Material (verbatim)", "#4A86C3", "❞", "protected"),
    ("protected_pattern", "Protected pattern", "#3A9082", "✱", "protected"),
    ("protected_number", "Number", "#308C43", "#", "protected"),
    ("protected_identifier", "Identifier", "#1A89C8", "@", "protected"),
    ("protected_negation", "Negation", "#BB53AA", "¬", "protected"),
    ("protected_connective", "Connective", "#00946C", "⇒", "protected"),
    ("protected_code", "Code", "#487EB3", "λ", "protected"),
    ("protected_quote", "Quotation", "#148CB5", "❝", "protected"),
    ("protected_user_fact", "User fact", "#5A8A1F", "★", "protected"),
    ("over_budget", "Over budget (kept)", "#958226", "⊘", "over_budget"),
    ("content", "Content", "#828282", "", "plain"),
    ("disabled", "Pruning disabled", "#768492", "○", "plain"),
)

REASON_STYLES: Mapping[str, ReasonStyle] = MappingProxyType(
    {
        code: ReasonStyle(code, label, color, glyph, kind, _KIND_CSS[kind].format(color=color))
        for code, label, color, glyph, kind in _TABLE
    }
)


def reason_style(code: str) -> ReasonStyle:
    """The style of ``code``; an unknown code (say, from a newer engine) gets a neutral plain style.

    >>> reason_style("made_up").kind
    'plain'
    """
    style = REASON_STYLES.get(code)
    if style is not None:
        return style
    return ReasonStyle(code, code.replace("_", " ").capitalize(), "#828282", "?", "plain", "")
