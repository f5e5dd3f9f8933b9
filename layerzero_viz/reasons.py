"""Reason codes the engine gives every token, and how each one looks on screen.

Every token is kept or pruned *for a reason*; this module is the single list of those codes and their
presentation (label, colour, glyph, CSS), so the heatmap, the legend, the charts and the CLI agree.

Colours come from the colour-blind-safe palettes of Okabe & Ito and Paul Tol: warm hues for prune reasons,
cool hues for protections.  Twenty categories cannot all be told apart by hue alone, so colour is never the
only cue: each reason also has a glyph, and its *kind* has its own line style (prune = struck through on a
tinted background, protected = solid border, over budget = dashed border, content = plain).

>>> REASON_STYLES["filler"].label
'Filler'
>>> REASON_STYLES["filler"].decision
'prune'
>>> REASON_STYLES["protected_number"].rgba(0.5)
'rgba(17, 119, 51, 0.5)'
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
_KIND_CSS: Mapping[str, str] = {
    "prune": "text-decoration: line-through; text-decoration-color: {color}; text-decoration-thickness: 2px; "
    "border-bottom: 2px solid {color};",
    "protected": "border: 1px solid {color};",
    "over_budget": "border: 1px dashed {color};",
    "plain": "",
}

# code: (label, colour, glyph, kind).  Okabe–Ito: #E69F00 #56B4E9 #009E73 #F0E442 #0072B2 #D55E00 #CC79A7;
# Paul Tol muted: #332288 #88CCEE #44AA99 #117733 #999933 #DDCC77 #CC6677 #882255 #AA4499 #DDDDDD;
# Paul Tol bright: #4477AA #66CCEE #228833 #BBBBBB.
_TABLE: tuple[tuple[str, str, str, str, ReasonKind], ...] = (
    ("declared_redundant", "Declared redundant", "#D55E00", "✂", "prune"),
    ("repeated_constraint", "Repeated constraint", "#E69F00", "↻", "prune"),
    ("derivable_context", "Derivable from context", "#CC79A7", "∴", "prune"),
    ("filler", "Filler", "#F0E442", "…", "prune"),
    ("low_information", "Low information", "#999933", "∅", "prune"),
    ("lossy", "Lossy tier (estimated loss)", "#CC6677", "≈", "prune"),
    ("directive", "Engine directive", "#882255", "⚙", "prune"),
    ("protected_xml", "XML markup", "#332288", "⟨", "protected"),
    ("protected_schema", "Output schema", "#0072B2", "▦", "protected"),
    ("protected_context", "Context block", "#88CCEE", "¶", "protected"),
    ("protected_material", "Material (verbatim)", "#6699CC", "❞", "protected"),
    ("protected_pattern", "Protected pattern", "#44AA99", "✱", "protected"),
    ("protected_number", "Number", "#117733", "#", "protected"),
    ("protected_identifier", "Identifier", "#56B4E9", "@", "protected"),
    ("protected_negation", "Negation", "#AA4499", "¬", "protected"),
    ("protected_connective", "Connective", "#009E73", "⇒", "protected"),
    ("protected_code", "Code", "#4477AA", "λ", "protected"),
    ("protected_quote", "Quotation", "#66CCEE", "❝", "protected"),
    ("protected_user_fact", "User fact", "#228833", "★", "protected"),
    ("over_budget", "Over budget (kept)", "#DDCC77", "⊘", "over_budget"),
    ("content", "Content", "#DDDDDD", "", "plain"),
    ("disabled", "Pruning disabled", "#BBBBBB", "○", "plain"),
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
    return ReasonStyle(code, code.replace("_", " ").capitalize(), "#BBBBBB", "?", "plain", "")
