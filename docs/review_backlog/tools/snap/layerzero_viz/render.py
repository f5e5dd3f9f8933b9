"""Escaped HTML for the token heatmap: one chip per display group, styled by its reason.

Everything that came from the user's input (token text, rule details, roles) passes through
``html.escape(..., quote=True)`` before it reaches markup, so a prompt that contains ``<script>`` shows as text.
The returned strings are meant for ``st.html`` / ``st.markdown(..., unsafe_allow_html=True)`` together with
:data:`TOKEN_CSS`.

>>> import pandas as pd
>>> df = pd.DataFrame({"id": [9906], "text": ["<b>"], "decision": ["prune"], "reason": ["filler"],
...                    "detail": ["politeness"], "score": [1.0], "group": [0]})
>>> "&lt;b&gt;" in token_html(df) and "<b>" not in token_html(df)
True
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Collection, Iterable, Mapping, Sequence

import pandas as pd

from .reasons import ALL_REASONS, PRUNE_REASONS, PROTECTED_REASONS, REASON_STYLES, ReasonStyle, reason_style

__all__ = [
    "THEMES",
    "ThemeColors",
    "TOKEN_CSS",
    "DIM_OPACITY",
    "HIT_COLOR",
    "chip_colors",
    "contrast_ratio",
    "token_html",
    "legend_html",
    "message_card_html",
    "passed_through_html",
    "message_label",
    "tint_alpha",
]

# How strong a tint may get: the score scales it (tint_alpha), this caps it so the theme's text keeps WCAG AA
# contrast on it in both themes (tests/test_render.py computes every pair).
_MAX_TINT = {"prune": 0.5, "protected": 0.22, "over_budget": 0.0, "plain": 0.0}
DIM_OPACITY = 0.8
"""Opacity of chips the search or filters did not match (their tint and bar are dropped too): dimmed, yet the
text keeps 4.5:1 in both themes."""
HIT_COLOR = "#0072B2"
"""The outline of chips the search or filters matched (3:1 or more against both themes' backgrounds)."""


@dataclass(frozen=True)
class ThemeColors:
    """A Streamlit theme's page background and body text (``#rrggbb``), against which chip colours are checked."""

    name: str
    background: str
    text: str


THEMES: Mapping[str, ThemeColors] = MappingProxyType({
    # Streamlit 1.67's built-in themes (bgColor, bodyText); .streamlit/config.toml changes only the primary colour,
    # and tests/browser checks that the served app really draws these.
    "light": ThemeColors("light", "#FFFFFF", "#2F2D2B"),
    "dark": ThemeColors("dark", "#171614", "#EDEBE8"),
})


def _rgb(color: str | tuple[float, float, float]) -> tuple[float, float, float]:
    if isinstance(color, tuple):
        return color
    h = color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _luminance(color: str | tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = _rgb(color)
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_ratio(a: str | tuple[float, float, float], b: str | tuple[float, float, float]) -> float:
    """The WCAG 2 contrast ratio of two opaque colours (``#rrggbb`` or an ``(r, g, b)`` of 0..255), 1..21.

    >>> round(contrast_ratio("#000000", "#FFFFFF"), 1), round(contrast_ratio("#2F2D2B", "#FFFFFF"), 2)
    (21.0, 13.72)
    """
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _over(color: str | tuple[float, float, float], alpha: float,
          under: str | tuple[float, float, float]) -> tuple[float, float, float]:
    """``color`` at ``alpha`` drawn over the opaque ``under`` (browsers blend in sRGB)."""
    top, bottom = _rgb(color), _rgb(under)
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top, bottom))  # type: ignore[return-value]


def chip_colors(code: str, theme: ThemeColors, *, score: float = 1.0, shown: bool = True,
                dimmed: bool = False) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The (text, background) a chip of reason ``code`` is drawn with on ``theme``, as opaque ``(r, g, b)``.

    ``shown`` — a protected chip with protections shown (or hovered, selected); ``dimmed`` — not matched by the
    search or filters (no tint, the text at :data:`DIM_OPACITY`).
    """
    style = reason_style(code)
    tint = _MAX_TINT[style.kind] * tint_alpha(score) if (style.kind != "protected" or shown) and not dimmed else 0.0
    text = _over(theme.text, DIM_OPACITY if dimmed else 1.0, theme.background)
    return text, _over(style.color, tint, theme.background)


def tint_alpha(score: float) -> float:
    """The intensity (0.6..1) a token's tint gets from its score; NaN or out-of-range scores are clamped.

    A score of 0 still tints clearly: a pruned token must stand out whatever its score.

    >>> tint_alpha(0.0), tint_alpha(1.0)
    (0.6, 1.0)
    """
    s = float(score)
    if s != s:  # NaN: show at the faintest visible intensity
        s = 0.0
    return 0.6 + 0.4 * min(1.0, max(0.0, s))


def message_label(key: Any, role: str = "") -> str:
    """The short label a message goes by in cards and charts: ``"system"`` or ``"#3 user"``.

    >>> message_label("system", "system"), message_label(3, "user")
    ('system', '#3 user')
    """
    if isinstance(key, str):
        return key if not role or role == key else f"{key} {role}"
    return f"#{key} {role}".rstrip()


def _css_class(code: str) -> str:
    # A reason code is engine data, not user text, but a class name must never break out of its attribute.
    return "lz-" + re.sub(r"[^a-z0-9_-]", "_", str(code).lower())


def _build_css() -> str:
    rules = [
        ".lz-tokens { white-space: pre-wrap; word-break: break-word; line-height: 1.9; "
        "font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }",
        # No padding, margin or border on a chip: CJK text flows as text, one character after another.
        ".lz-tok { color: currentColor; border-radius: 0; padding: 0; margin: 0; "
        "box-decoration-break: clone; -webkit-box-decoration-break: clone; }",
        ".lz-tok.lz-start { border-top-left-radius: 3px; border-bottom-left-radius: 3px; }",
        ".lz-tok.lz-end { border-top-right-radius: 3px; border-bottom-right-radius: 3px; }",
        ".lz-tok sup.lz-icon { font-size: 0.65em; line-height: 0; opacity: 0.85; margin-right: 1px; "
        "text-decoration: none; display: inline-block; }",
        # Protections are quiet: no glyph, edge or tint unless shown (toggle), hovered or selected.
        ".lz-k-protected > sup.lz-icon { display: none; }",
        ":is(.lz-show-protections, .lz-legend) .lz-k-protected > sup.lz-icon { display: inline-block; }",
        ".lz-tok:hover { outline: 1px solid currentColor; }",
        ".lz-ws { opacity: 0.45; }",
        ".lz-tok[role=button] { cursor: pointer; }",
        ".lz-tok[role=button]:focus-visible { outline: 2px solid currentColor; outline-offset: 1px; }",
        # Dimmed: the colour goes, so what matched stands out; the text stays readable (4.5:1).
        f".lz-dim {{ opacity: {DIM_OPACITY}; background-color: transparent !important; box-shadow: none !important; }}",
        f".lz-hit {{ outline: 2px solid {HIT_COLOR}; outline-offset: 0; }}",
        ".lz-selected { outline: 3px solid currentColor; outline-offset: 1px; }",
        ".lz-more { opacity: 0.75; font-style: italic; }",
        ".lz-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 0.85em; margin: 4px 0 8px; "
        "line-height: 1.9; }",
        ".lz-legend .lz-tok { padding: 0 3px; }",
        ".lz-legend .lz-legend-title { flex-basis: 100%; margin: 4px 0 0; font-size: 0.85em; font-weight: 600; "
        "opacity: 0.85; }",
        ".lz-card { border: 1px solid rgba(128, 128, 128, 0.35); border-radius: 6px; padding: 6px 10px; "
        "margin: 0 0 10px; }",
        ".lz-card-head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 8px; "
        "font-size: 0.85em; opacity: 0.85; margin-bottom: 4px; }",
        ".lz-card-role { font-weight: 600; }",
        ".lz-pass { font-size: 0.85em; opacity: 0.8; margin-top: 4px; }",
        ".lz-pass code { font-size: 0.95em; }",
    ]
    for code, style in REASON_STYLES.items():
        if not style.css:
            continue
        cls = _css_class(code)
        if style.kind == "protected":
            selector = (f":is(.lz-show-protections, .lz-legend) .{cls}, .{cls}:hover, .{cls}.lz-selected, "
                        f".{cls}:focus-visible")
        else:
            selector = f".{cls}"
        rules.append(f"{selector} {{ {style.css} }}")
    return "<style>\n" + "\n".join(rules) + "\n</style>"


TOKEN_CSS: str = _build_css()
"""The ``<style>`` block chips, legend and cards need.  Text is the theme's own (``currentColor``); each reason's
colour is a mid-luminance hue used for lines and as a translucent tint, so one stylesheet suits light and dark
themes.  Protected chips show their edge and tint inside ``.lz-show-protections`` (and in the legend), or when
hovered or selected."""


def _visible_text(text: str, show_whitespace: bool) -> str:
    """Escape ``text`` and turn its whitespace into markup (after escaping, so nothing user-made survives)."""
    out = html.escape(text.replace("\r\n", "\n").replace("\r", "\n"), quote=True)
    if show_whitespace:
        out = (
            out.replace(" ", '<span class="lz-ws">·</span>')
            .replace("\t", '<span class="lz-ws">→</span>')
            .replace("\n", '<span class="lz-ws">↵</span><br>')
        )
    else:
        out = out.replace("\n", "<br>")
    return out


def _spoken(text: str) -> str:
    """How a chip's text is read out: whitespace named, long text cut."""
    if not text.strip():
        return {"\n": "line break", "\t": "tab"}.get(text[:1], "space")
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"


def _chip(rows: list[dict[str, Any]], show_whitespace: bool, *, mark: str = "", selected: bool = False,
          interactive: bool = False, start: bool = True, end: bool = True) -> str:
    """One ``<span>`` for the tokens of one display group (a character split over tokens shows once)."""
    first = rows[0]
    style = reason_style(str(first["reason"]))
    text = "".join(str(r["text"]) for r in rows)
    score = max(float(r["score"]) for r in rows)
    ids = ", ".join(str(r["id"]) for r in rows)
    decision = str(first.get("decision") or style.decision)

    reasons = _unique(str(r["reason"]) for r in rows)
    details = _unique(str(r["detail"]) for r in rows if str(r["detail"]))
    title_lines = [" / ".join(reason_style(c).label for c in reasons)]
    title_lines += details
    tiers = _unique(str(r["tier"]) for r in rows if r.get("tier") in ("safe", "lossy"))
    if tiers:
        loss = sum(float(r.get("loss") or 0.0) for r in rows)
        title_lines.append(f"{' + '.join(tiers)} tier · estimated loss {loss:.2f} bits")
    title_lines.append(f"{'tokens' if len(rows) > 1 else 'token'} {ids} · score {score:.2f}")
    title = html.escape("\n".join(title_lines), quote=True)
    extra = ""
    if interactive:
        said = f"{_spoken(text)}: {title_lines[0]}, {'pruned' if decision == 'prune' else 'kept'}"
        extra = (f' data-group="{int(first["group"])}" tabindex="0" role="button" '
                 f'aria-label="{html.escape(said, quote=True)}"' + (' aria-pressed="true"' if selected else ""))
    classes = " ".join(c for c in (mark, "lz-selected" if selected else "") if c)
    return _span(style, decision=decision, title=title, score=score, inner=_visible_text(text, show_whitespace),
                 classes=classes, extra=extra, start=start, end=end)


def _span(style: ReasonStyle, *, decision: str, title: str, score: float, inner: str, classes: str = "",
          extra: str = "", start: bool = True, end: bool = True) -> str:
    """A chip: ``title``, ``inner`` and ``extra`` (attributes) must already be escaped markup; the tint (the
    ``--lz-tint`` property the reason's CSS paints with) follows ``score``.

    ``start``/``end``: the chip opens/closes a run of chips with the same reason; only a run's first chip carries
    the reason's glyph, and only a run's ends are rounded, so a run reads as one highlighted phrase.
    """
    tint = _MAX_TINT[style.kind] * tint_alpha(score)
    style_attr = f' style="--lz-tint: {style.rgba(tint)}"' if tint > 0 else ""
    icon = (f'<sup class="lz-icon" aria-hidden="true">{html.escape(style.glyph)}</sup>'
            if style.glyph and start else "")
    more = "".join(f" {c}" for c in ("lz-start" if start else "", "lz-end" if end else "", classes) if c)
    return (
        f'<span class="lz-tok {_css_class(style.code)} lz-k-{style.kind}{more}" '
        f'data-decision="{html.escape(decision, quote=True)}" '
        f'data-icon="{html.escape(style.glyph, quote=True)}" title="{title}"{extra}{style_attr}>{icon}{inner}</span>'
    )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def token_html(df: pd.DataFrame, *, show_whitespace: bool = False, max_tokens: int | None = None,
               marks: Collection[int] | None = None, selected: int | None = None, interactive: bool = False,
               show_protections: bool = False) -> str:
    """HTML chips for the tokens in ``df`` (one message or block, in order), wrapped in ``<div class="lz-tokens">``.

    Consecutive tokens sharing ``group`` merge into one chip whose title lists every token id. Each chip has
    classes ``lz-tok lz-<reason> lz-k-<kind>``, a title (reason label, detail, the pruning tier and its estimated
    loss in bits when the table has ``tier``/``loss``, token ids, score), a tint whose alpha follows the score,
    and the reason's glyph as ``data-icon`` (and, on the first chip of a run of one reason, a ``<sup>``; such
    runs get ``lz-start``/``lz-end`` at their ends).  Protected chips stay plain text unless
    ``show_protections`` (the wrapper then has ``lz-show-protections``) or they are hovered or selected.  ``show_whitespace`` shows spaces as
    ``·``, tabs as ``→`` and newlines as ``↵`` (then a line break).  ``max_tokens`` stops after that many
    tokens (never inside a group) and says how many were left out.

    ``marks`` (display groups) are what the heatmap's search and filters found: those chips get ``lz-hit``, the
    others ``lz-dim``; None marks nothing.  ``selected`` gets ``lz-selected``.  ``interactive`` makes every chip
    a focusable button (``tabindex``, ``role``, an ``aria-label`` saying its text, reason and decision, and
    ``data-group``) for the heatmap's details panel.
    """
    needed = ("id", "text", "reason", "detail", "score", "group")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"token_html needs the engine's token columns; missing: {', '.join(missing)}")

    columns = list(needed) + [c for c in ("decision", "tier", "loss") if c in df.columns]
    rows = df.loc[:, columns].to_dict("records")
    limit = len(rows) if max_tokens is None else max(0, int(max_tokens))

    chips: list[tuple[int, int]] = []  # (first row, end row) of each display group shown
    shown = 0
    i = 0
    while i < len(rows) and shown < limit:
        j = i + 1
        while j < len(rows) and rows[j]["group"] == rows[i]["group"]:
            j += 1
        chips.append((i, j))
        shown += j - i
        i = j
    reasons = [str(rows[a]["reason"]) for a, _ in chips]
    parts: list[str] = []
    for n, (a, b) in enumerate(chips):
        group = rows[a]["group"]
        mark = "" if marks is None else "lz-hit" if group in marks else "lz-dim"
        parts.append(_chip(rows[a:b], show_whitespace, mark=mark, selected=selected is not None and group == selected,
                           interactive=interactive, start=n == 0 or reasons[n - 1] != reasons[n],
                           end=n + 1 == len(chips) or reasons[n + 1] != reasons[n]))
    if shown < len(rows):
        rest = len(rows) - shown
        parts.append(f'<span class="lz-more">… {rest:,} more token{"s" if rest != 1 else ""} not shown</span>')
    wrapper = "lz-tokens lz-show-protections" if show_protections else "lz-tokens"
    return f'<div class="{wrapper}">' + "".join(parts) + "</div>"


def _legend_item(style: ReasonStyle) -> str:
    title = html.escape(style.code, quote=True)
    return _span(style, decision=style.decision, title=title, score=1.0, inner=html.escape(style.label))


def legend_html(*, protections_toggle: bool = True) -> str:
    """A legend of every reason, grouped into pruned, protected and other kept tokens, styled like the chips.

    ``protections_toggle``: the page has the "Show protections" toggle (the app's heatmap); a static report has
    none, and its legend does not mention it."""
    marked = "marked when “Show protections” is on, or on hover" if protections_toggle else "marked on hover"
    groups = (
        ("Pruned", PRUNE_REASONS),
        (f"Protected (always kept; {marked})", PROTECTED_REASONS),
        ("Other kept", tuple(c for c in ALL_REASONS if c not in PRUNE_REASONS and c not in PROTECTED_REASONS)),
    )
    parts = ['<div class="lz-legend">']
    for title, codes in groups:
        parts.append(f'<div class="lz-legend-title">{html.escape(title)}</div>')
        parts.extend(_legend_item(REASON_STYLES[c]) for c in codes)
    parts.append("</div>")
    return "".join(parts)


def passed_through_html(notes: Sequence[str]) -> str:
    """One line naming what a message holds besides text (``appstate.passed_through``), escaped; "" for none.

    >>> passed_through_html(["tool_use get_weather", "image"])
    '<div class="lz-pass">Passed through untouched: <code>tool_use get_weather</code> · <code>image</code></div>'
    """
    if not notes:
        return ""
    items = " · ".join(f"<code>{html.escape(n, quote=True)}</code>" for n in notes)
    return f'<div class="lz-pass">Passed through untouched: {items}</div>'


def message_card_html(role: str, key: Any, chips_html: str, counts: Mapping[str, Any]) -> str:
    """A card: a header with the message label and its counts (both escaped), then ``chips_html`` as given.

    ``chips_html`` is trusted markup, normally from :func:`token_html`; ``counts`` such as
    ``{"tokens": 120, "pruned": 31}`` is shown in order as ``tokens 120 · pruned 31``.
    """
    label = html.escape(message_label(key, str(role)), quote=True)
    stats = " · ".join(
        f"{html.escape(str(name))} {value:,}" if isinstance(value, int) and not isinstance(value, bool)
        else f"{html.escape(str(name))} {html.escape(str(value))}"
        for name, value in counts.items()
    )
    return (
        f'<div class="lz-card" data-role="{html.escape(str(role), quote=True)}">'
        f'<div class="lz-card-head"><span class="lz-card-role">{label}</span>'
        f'<span class="lz-card-counts">{stats}</span></div>'
        f"{chips_html}</div>"
    )
