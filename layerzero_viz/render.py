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
from typing import Any, Collection, Iterable, Mapping

import pandas as pd

from .reasons import ALL_REASONS, PRUNE_REASONS, PROTECTED_REASONS, REASON_STYLES, ReasonStyle, reason_style

__all__ = [
    "TOKEN_CSS",
    "token_html",
    "legend_html",
    "message_card_html",
    "message_label",
    "tint_alpha",
]

# How strong a tint may get: the score scales it, this caps it so text stays readable on both themes.
_MAX_TINT = {"prune": 0.55, "protected": 0.22, "over_budget": 0.22, "plain": 0.0}


def tint_alpha(score: float) -> float:
    """The intensity (0.35..1) a token's tint gets from its score; NaN or out-of-range scores are clamped.

    >>> tint_alpha(0.0), tint_alpha(1.0)
    (0.35, 1.0)
    """
    s = float(score)
    if s != s:  # NaN: show at the faintest visible intensity
        s = 0.0
    return 0.35 + 0.65 * min(1.0, max(0.0, s))


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
        ".lz-tok { color: currentColor; border-radius: 3px; padding: 0 1px; margin: 0; "
        "box-decoration-break: clone; -webkit-box-decoration-break: clone; }",
        ".lz-tok sup.lz-icon { font-size: 0.6em; opacity: 0.8; margin-left: 1px; text-decoration: none; "
        "display: inline-block; }",
        ".lz-tok:hover { outline: 1px solid currentColor; }",
        ".lz-ws { opacity: 0.45; }",
        ".lz-tok[role=button] { cursor: pointer; }",
        ".lz-tok[role=button]:focus-visible { outline: 2px solid currentColor; outline-offset: 1px; }",
        ".lz-dim { opacity: 0.35; }",
        ".lz-hit { outline: 2px solid rgba(0, 114, 178, 0.9); outline-offset: 0; }",
        ".lz-selected { outline: 3px solid #D55E00; outline-offset: 1px; }",
        ".lz-more { opacity: 0.7; font-style: italic; }",
        ".lz-legend { display: flex; flex-wrap: wrap; gap: 4px 10px; font-size: 0.85em; margin: 4px 0 8px; }",
        ".lz-legend .lz-legend-title { flex-basis: 100%; margin: 4px 0 0; font-size: 0.85em; font-weight: 600; opacity: 0.8; }",
        ".lz-card { border: 1px solid rgba(128, 128, 128, 0.35); border-radius: 6px; padding: 6px 10px; "
        "margin: 0 0 10px; }",
        ".lz-card-head { display: flex; justify-content: space-between; gap: 8px; font-size: 0.85em; "
        "opacity: 0.85; margin-bottom: 4px; }",
        ".lz-card-role { font-weight: 600; }",
    ]
    for code, style in REASON_STYLES.items():
        if style.css:
            rules.append(f".{_css_class(code)} {{ {style.css} }}")
    return "<style>\n" + "\n".join(rules) + "\n</style>"


TOKEN_CSS: str = _build_css()
"""The ``<style>`` block chips, legend and cards need; rgba tints and ``currentColor`` suit light and dark themes."""


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
          interactive: bool = False) -> str:
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
                 classes=classes, extra=extra)


def _span(style: ReasonStyle, *, decision: str, title: str, score: float, inner: str, classes: str = "",
          extra: str = "") -> str:
    """A chip: ``title``, ``inner`` and ``extra`` (attributes) must already be escaped markup; the tint follows
    ``score``."""
    tint = _MAX_TINT[style.kind] * tint_alpha(score)
    style_attr = f' style="background-color: {style.rgba(tint)}"' if tint > 0 else ""
    icon = f'<sup class="lz-icon" aria-hidden="true">{html.escape(style.glyph)}</sup>' if style.glyph else ""
    more = f" {classes}" if classes else ""
    return (
        f'<span class="lz-tok {_css_class(style.code)}{more}" data-decision="{html.escape(decision, quote=True)}" '
        f'data-icon="{html.escape(style.glyph, quote=True)}" title="{title}"{extra}{style_attr}>{inner}{icon}</span>'
    )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def token_html(df: pd.DataFrame, *, show_whitespace: bool = False, max_tokens: int | None = None,
               marks: Collection[int] | None = None, selected: int | None = None, interactive: bool = False) -> str:
    """HTML chips for the tokens in ``df`` (one message or block, in order), wrapped in ``<div class="lz-tokens">``.

    Consecutive tokens sharing ``group`` merge into one chip whose title lists every token id. Each chip has
    classes ``lz-tok lz-<reason>``, a title (reason label, detail, the pruning tier and its estimated loss in bits
    when the table has ``tier``/``loss``, token ids, score), a tint whose alpha follows
    the score, and the reason's glyph as ``data-icon`` and a ``<sup>``.  ``show_whitespace`` shows spaces as
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

    parts: list[str] = []
    shown = 0
    i = 0
    while i < len(rows):
        j = i + 1
        while j < len(rows) and rows[j]["group"] == rows[i]["group"]:
            j += 1
        if shown >= limit:
            break
        group = rows[i]["group"]
        mark = "" if marks is None else "lz-hit" if group in marks else "lz-dim"
        parts.append(_chip(rows[i:j], show_whitespace, mark=mark, selected=selected is not None and group == selected,
                           interactive=interactive))
        shown += j - i
        i = j
    if shown < len(rows):
        rest = len(rows) - shown
        parts.append(f'<span class="lz-more">… {rest:,} more token{"s" if rest != 1 else ""} not shown</span>')
    return '<div class="lz-tokens">' + "".join(parts) + "</div>"


def _legend_item(style: ReasonStyle) -> str:
    title = html.escape(style.code, quote=True)
    return _span(style, decision=style.decision, title=title, score=1.0, inner=html.escape(style.label))


def legend_html() -> str:
    """A legend of every reason, grouped into pruned, protected and other kept tokens, styled like the chips."""
    groups = (
        ("Pruned", PRUNE_REASONS),
        ("Protected (always kept)", PROTECTED_REASONS),
        ("Other kept", tuple(c for c in ALL_REASONS if c not in PRUNE_REASONS and c not in PROTECTED_REASONS)),
    )
    parts = ['<div class="lz-legend">']
    for title, codes in groups:
        parts.append(f'<div class="lz-legend-title">{html.escape(title)}</div>')
        parts.extend(_legend_item(REASON_STYLES[c]) for c in codes)
    parts.append("</div>")
    return "".join(parts)


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
