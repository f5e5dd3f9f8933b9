"""Altair chart builders for the pages: pure functions from engine data to charts.

Aggregation happens here, in pandas, never in Vega: a chart carries at most a few thousand rows however long
the input is (a 50k-token conversation yields ``messages × bins`` heatmap cells), so pages stay fast and
``chart_png`` can export them.  Data is passed as plain inline values, so Altair's 5,000-row guard never
trips on a conversation with many messages.

>>> chart = timings_bar({"load": 2.0, "annotate": 30.5})
>>> [(row["stage"], row["ms"]) for row in chart.data["values"]]
[('load', 2.0), ('annotate', 30.5)]
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

import altair as alt
import numpy as np
import pandas as pd

from .appstate import floor_label
from .engine import EFFECTIVENESS_TARGET, FLOOR_CHOICES  # (the target lives in the core: sweep needs no altair)
from .reasons import PRUNE_REASONS, reason_style
from .render import message_label

__all__ = [
    "overview_heatmap",
    "pruned_by_reason_bar",
    "timings_bar",
    "message_timings_bar",
    "sweep_chart",
    "sweep_knee",
    "without_directives",
    "chart_png",
    "EFFECTIVENESS_TARGET",
]


# Okabe–Ito, for series that are not reasons.
_BLUE, _ORANGE, _GREY, _GREEN = "#0072B2", "#E69F00", "#999999", "#009E73"
# One colour per effectiveness floor, the same whichever floors are drawn together.
_FLOOR_COLORS = {1.0: _BLUE, 0.99: "#56B4E9", 0.98: _ORANGE, 0.95: "#D55E00", 0.0: "#CC79A7"}
_SWEEP_HEIGHT = 420
_SERIES = {"pruned_fraction": "pruned fraction", "effectiveness_estimate": "effectiveness (est.)"}


def _inline(df: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """Inline JSON-safe values (NaN → null, numpy scalars → Python).

    A plain ``{"values": …}`` dict, not ``alt.Data``: Altair neither re-validates every row nor applies its
    5,000-row guard to it, and our data is already aggregated.
    """
    clean = df.astype(object).where(df.notna(), None)
    return {"values": clean.to_dict("records")}


def _require(df: pd.DataFrame, columns: Iterable[str], who: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{who} needs the columns {', '.join(missing)}; got {', '.join(map(str, df.columns))}")


def _messages(df: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Per row, the message's position in input order; and each message's label (``system``, ``#3 user``)."""
    codes, keys = pd.factorize(df["message"], sort=False, use_na_sentinel=False)
    roles = df.groupby(codes, sort=True)["role"].first() if len(df) else pd.Series(dtype=object)
    labels = [message_label(key, str(roles.iloc[n])) for n, key in enumerate(keys)]
    return codes, labels


def overview_heatmap(df: pd.DataFrame, *, bins: int = 60, color_by: str = "pruned_share") -> alt.Chart:
    """A messages × position heatmap: each message is cut into at most ``bins`` equal runs of tokens.

    ``color_by="pruned_share"`` colours a cell by the share of its tokens that are pruned,
    ``color_by="score"`` by their mean score.  The chart's data has at most ``messages × bins`` rows with
    ``message``, ``bin``, ``first``/``last`` token position, ``tokens``, ``pruned``, ``pruned_share``,
    ``score`` and ``token_range``.
    """
    if color_by not in ("pruned_share", "score"):
        raise ValueError(f"color_by must be 'pruned_share' or 'score', not {color_by!r}")
    if bins < 1:
        raise ValueError(f"bins must be at least 1, not {bins}")
    _require(df, ("message", "role", "decision", "score"), "overview_heatmap")
    df = without_directives(df)
    codes, labels = _messages(df)
    sizes = np.bincount(codes, minlength=len(labels)) if len(df) else np.zeros(0, dtype=int)
    position = df.groupby(codes, sort=False).cumcount().to_numpy() if len(df) else np.zeros(0, dtype=int)
    run = np.maximum(1, np.ceil(sizes / bins).astype(int))  # tokens per cell, per message
    frame = pd.DataFrame(
        {
            "m": codes,
            "bin": position // run[codes] if len(df) else position,
            "position": position,
            "pruned": (df["decision"].to_numpy() == "prune").astype(int),
            "score": pd.to_numeric(df["score"], errors="coerce").to_numpy(),
        }
    )
    cells = (
        frame.groupby(["m", "bin"], sort=True)
        .agg(
            first=("position", "min"),
            last=("position", "max"),
            tokens=("position", "size"),
            pruned=("pruned", "sum"),
            score=("score", "mean"),
        )
        .reset_index()
    )
    cells["pruned_share"] = cells["pruned"] / cells["tokens"]
    cells["message"] = [labels[m] for m in cells["m"]]
    cells["token_range"] = [f"{a}–{b}" for a, b in zip(cells["first"], cells["last"])]
    cells = cells.drop(columns="m")

    title = "pruned share" if color_by == "pruned_share" else "mean score"
    color_format = ".0%" if color_by == "pruned_share" else ".2f"
    return (
        alt.Chart(_inline(cells))
        .mark_rect()
        .encode(
            x=alt.X("bin:O", title="position in message (→ end)", axis=alt.Axis(labels=False, ticks=False)),
            # every row named ("Where pruning happens" had labelled every other message, the user rows bare)
            y=alt.Y("message:N", sort=labels, title=None, axis=alt.Axis(labelOverlap=False, labelLimit=0)),
            color=alt.Color(
                f"{color_by}:Q",
                title=title,
                scale=alt.Scale(scheme="yelloworangebrown", domain=[0, 1]),
                legend=alt.Legend(format=color_format),
            ),
            tooltip=[
                alt.Tooltip("message:N", title="message"),
                alt.Tooltip("token_range:N", title="tokens #"),
                alt.Tooltip("tokens:Q", title="tokens"),
                alt.Tooltip("pruned:Q", title="pruned"),
                alt.Tooltip("pruned_share:Q", title="pruned share", format=".0%"),
                alt.Tooltip("score:Q", title="mean score", format=".2f"),
            ],
        )
        .properties(width=640, height=alt.Step(20), title="Where pruning happens")
    )


def without_directives(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` without engine-directive tokens: they are outside every total (the sidebar's, the charts', the token
    cards' of the app and the report; the bars had added 29 directive tokens to 107 pruned)."""
    if "reason" not in df.columns:
        return df
    directive = df["reason"].to_numpy() == "directive"
    return df[~directive] if directive.any() else df


def _reason_scale(codes: Iterable[str]) -> alt.Scale:
    """Prune reasons in priority order, then any other code present (an engine newer than this module)."""
    domain = list(dict.fromkeys([*PRUNE_REASONS, *codes]))
    return alt.Scale(
        domain=[reason_style(c).label for c in domain],
        range=[reason_style(c).color for c in domain],
    )


def pruned_by_reason_bar(df: pd.DataFrame) -> alt.Chart:
    """Stacked bars: per message (input order), how many tokens were pruned for each prune reason."""
    _require(df, ("message", "role", "decision", "reason"), "pruned_by_reason_bar")
    df = without_directives(df)
    codes, labels = _messages(df)
    pruned = df["decision"].to_numpy() == "prune"
    counts = (
        pd.DataFrame({"m": codes[pruned], "reason": df["reason"].astype(str).to_numpy()[pruned]})
        .groupby(["m", "reason"], sort=True)
        .size()
        .reset_index(name="tokens")
    )
    scale = _reason_scale(counts["reason"])
    priority = {label: n for n, label in enumerate(scale.domain)}
    counts["message"] = [labels[m] for m in counts["m"]]
    counts["reason_label"] = [reason_style(r).label for r in counts["reason"]]
    counts["priority"] = [priority[label] for label in counts["reason_label"]]
    counts = counts.drop(columns="m")
    return (
        alt.Chart(_inline(counts))
        .mark_bar()
        .encode(
            x=alt.X("message:N", sort=labels, scale=alt.Scale(domain=labels), title=None),
            y=alt.Y("sum(tokens):Q", title="pruned tokens"),
            color=alt.Color("reason_label:N", title="reason", scale=scale),
            order=alt.Order("priority:Q"),
            tooltip=[
                alt.Tooltip("message:N"),
                alt.Tooltip("reason_label:N", title="reason"),
                alt.Tooltip("reason:N", title="code"),
                alt.Tooltip("tokens:Q", title="pruned tokens"),
            ],
        )
        .properties(title="Pruned tokens by reason")
    )


def timings_bar(timings_ms: Mapping[str, float]) -> alt.Chart:
    """Horizontal bars of milliseconds per pipeline stage, in the order given, with each stage's share."""
    stages = list(timings_ms)
    ms = [float(timings_ms[s]) for s in stages]
    total = sum(v for v in ms if math.isfinite(v)) or 1.0
    frame = pd.DataFrame({"stage": [str(s) for s in stages], "ms": ms, "share": [v / total for v in ms]})
    return (
        alt.Chart(_inline(frame))
        .mark_bar(color=_BLUE)
        .encode(
            # (Vega-Lite cuts axis labels at 180 px by default: "context_preserva…")
            y=alt.Y("stage:N", sort=[str(s) for s in stages], title=None, axis=alt.Axis(labelLimit=0)),
            x=alt.X("ms:Q", title="ms"),
            tooltip=[
                alt.Tooltip("stage:N"),
                alt.Tooltip("ms:Q", format=",.1f"),
                alt.Tooltip("share:Q", title="share of total", format=".0%"),
            ],
        )
        .properties(title="Time per stage")
    )


def message_timings_bar(rows: list[dict[str, Any]]) -> alt.Chart:
    """Horizontal bars of milliseconds per message, stacked by stage when rows carry one.

    Each row has ``message`` (key) and ``ms``, optionally ``role`` (for the ``#3 user`` label),
    ``label`` (used as is) and ``stage``.
    """
    records = []
    for row in rows:
        label = row.get("label") or message_label(row.get("message", "?"), str(row.get("role", "")))
        records.append({"message": str(label), "stage": str(row.get("stage", "total")), "ms": float(row["ms"])})
    frame = pd.DataFrame(records, columns=["message", "stage", "ms"])
    order = list(dict.fromkeys(frame["message"]))
    stacked = frame["stage"].nunique() > 1
    color: Any = alt.Color("stage:N", title="stage") if stacked else alt.value(_BLUE)
    return (
        alt.Chart(_inline(frame))
        .mark_bar()
        .encode(
            y=alt.Y("message:N", sort=order, title=None, axis=alt.Axis(labelLimit=0)),
            x=alt.X("sum(ms):Q", title="ms"),
            color=color,
            tooltip=[alt.Tooltip("message:N"), alt.Tooltip("stage:N"), alt.Tooltip("ms:Q", format=",.1f")],
        )
        .properties(title="Time per message")
    )


def _ordered_floors(values: Iterable[float]) -> list[float]:
    """Floors in the app's order (lossless first, off last); any other value after them, high to low."""
    present = {float(v) for v in values}
    known = [f for f in FLOOR_CHOICES if f in present]
    return known + sorted(present - set(known), reverse=True)


def sweep_knee(rows: Iterable[Mapping[str, Any]], floor: float = 1.0) -> float | None:
    """The knee of one floor's sweep: the first ratio where pruning stops growing, or where the estimate first
    drops below ``floor`` (for a floor strictly between 0 and 1), whichever comes first.

    None when nothing is pruned at any ratio.

    >>> rows = [{"ratio": r / 10, "pruned_fraction": min(r / 10, 0.2), "effectiveness_estimate": 1 - r / 100}
    ...         for r in range(6)]
    >>> sweep_knee(rows), sweep_knee(rows, floor=0.985)
    (0.2, 0.2)
    >>> sweep_knee(rows, floor=0.995)
    0.1
    """
    ordered = sorted(rows, key=lambda r: float(r["ratio"]))
    if not ordered:
        return None
    top = max(float(r["pruned_fraction"]) for r in ordered)
    if top <= 0:
        return None
    knee = next(float(r["ratio"]) for r in ordered if float(r["pruned_fraction"]) >= top - 1e-12)
    if 0.0 < floor < 1.0:
        below = next((float(r["ratio"]) for r in ordered if float(r["effectiveness_estimate"]) < floor), None)
        if below is not None:
            knee = min(knee, below)
    return knee


def _estimate_domain(estimates: Iterable[float], floors: Iterable[float]) -> list[float]:
    """The estimate axis zoomed to its range: from a little under the lowest estimate (or floor drawn) to 1."""
    values = [float(v) for v in estimates if v is not None and math.isfinite(float(v))]
    values += [f for f in floors if 0.0 < f < 1.0]
    low = min(values, default=1.0)
    span = max(1.0 - low, 0.01)
    low = max(0.0, 1.0 - span * 1.15)
    return [math.floor(low * 1000) / 1000, 1.0]


def sweep_chart(sweep_df: pd.DataFrame, *, safe_frontier: float | None = None,
                current_ratio: float | None = None, current_label: str = "slider") -> alt.LayerChart:
    """Pruned fraction (left axis) and the effectiveness estimate (right axis, zoomed to its range) against
    ``prune_ratio``, one curve of each per effectiveness floor in ``sweep_df``.

    ``sweep_df`` has one row per ratio and floor with ``ratio``, ``pruned_fraction``,
    ``effectiveness_estimate`` and ``min_effectiveness`` (rows of :meth:`Annotated.sweep` for several floors,
    concatenated; without the column every row is lossless).  Marked: the ``safe_frontier`` (a vertical rule),
    each floor between 0 and 1 (a horizontal rule on the estimate axis), each floor's knee (:func:`sweep_knee`,
    a point on its pruned curve) and the slider's ``current_ratio`` (labelled ``current_label``: "profile cap" where
    a domain profile caps the slider's value).  Every layer is named (``pruned-0.98``,
    ``estimate-0.98``, ``floor-0.98``, ``knee-0.98``, ``frontier``, ``current``, ``budget``; Altair adds a
    ``_0``/``_1`` suffix) so tests and readers can find it.
    """
    _require(sweep_df, ("ratio", *_SERIES), "sweep_chart")
    df = sweep_df.copy()
    if "min_effectiveness" not in df.columns:
        df["min_effectiveness"] = 1.0
    df["min_effectiveness"] = df["min_effectiveness"].astype(float)
    floors = _ordered_floors(df["min_effectiveness"])
    labels = {f: floor_label(f) for f in floors}
    df["floor"] = df["min_effectiveness"].map(labels)
    floor_scale = alt.Scale(domain=[labels[f] for f in floors],
                            range=[_FLOOR_COLORS.get(f, _GREY) for f in floors])
    color = alt.Color("floor:N", title="effectiveness floor", scale=floor_scale,
                      legend=alt.Legend(symbolType="stroke", symbolStrokeWidth=3, orient="bottom",
                                        direction="vertical"))  # (vertical: two legends fit a phone's width)
    dash = alt.StrokeDash("series:N", title=None, scale=alt.Scale(domain=list(_SERIES.values()),
                                                                  range=[[1, 0], [6, 3]]),
                          legend=alt.Legend(symbolType="stroke", symbolStrokeWidth=2, symbolStrokeColor="#666666",
                                            orient="bottom", direction="vertical"))
    x = alt.X("ratio:Q", title="prune_ratio", scale=alt.Scale(domain=[0, 0.95], nice=False))
    top = float(df["pruned_fraction"].max()) if len(df) else 0.0
    pruned_max = max(0.05, math.ceil(top * 1.15 / 0.05) * 0.05)
    y_pruned = alt.Y("pruned_fraction:Q", title="pruned fraction",
                     scale=alt.Scale(domain=[0, pruned_max], nice=False), axis=alt.Axis(format=".0%"))
    estimate_domain = _estimate_domain(df["effectiveness_estimate"], floors)
    fine = estimate_domain[1] - estimate_domain[0] < 0.05
    y_estimate = alt.Y("effectiveness_estimate:Q", title="effectiveness (estimate)",
                       scale=alt.Scale(domain=estimate_domain, nice=False, zero=False),
                       axis=alt.Axis(orient="right", format=".3f" if fine else ".2f", titleColor=_GREY))
    tooltip = [alt.Tooltip("floor:N", title="floor"), alt.Tooltip("ratio:Q", format=".2f"),
               alt.Tooltip("pruned_fraction:Q", title="pruned", format=".1%"),
               alt.Tooltip("effectiveness_estimate:Q", title="estimate", format=".4f")]
    tooltip += [alt.Tooltip(f"{c}:{t}", title=c.replace("_", " ")) for c, t in
                (("tokens_pruned", "Q"), ("stopped_by", "N")) if c in df.columns]
    keep = ["ratio", "floor", "pruned_fraction", "effectiveness_estimate",
            *[c for c in ("tokens_pruned", "stopped_by") if c in df.columns]]

    left: list[alt.Chart] = []
    right: list[alt.Chart] = []
    knees_labelled: list[tuple[float, float]] = []  # (ratio, pruned fraction) of each knee label drawn
    # floor labels at the right end, unless the slider's label is there
    label_x = 0.8 if current_ratio is not None and current_ratio > 0.85 else 0.95
    # the budget: at most ⌊r·N⌋ tokens, so no curve rises above this diagonal
    budget = pd.DataFrame({"ratio": [0.0, min(0.95, pruned_max)], "pruned_fraction": [0.0, min(0.95, pruned_max)]})
    left.append(alt.Chart(_inline(budget), name="budget")
                .mark_line(color=_GREY, strokeDash=[2, 3], strokeWidth=1, opacity=0.7)
                .encode(x=x, y=y_pruned))
    for f in floors:
        rows = df.loc[df["min_effectiveness"] == f, keep].sort_values("ratio")
        pruned = rows.assign(series=_SERIES["pruned_fraction"])
        estimate = rows.assign(series=_SERIES["effectiveness_estimate"])
        left.append(alt.Chart(_inline(pruned), name=f"pruned-{labels[f]}").mark_line(strokeWidth=2)
                    .encode(x=x, y=y_pruned, color=color, strokeDash=dash))
        right.append(alt.Chart(_inline(estimate), name=f"estimate-{labels[f]}").mark_line(strokeWidth=2)
                     .encode(x=x, y=y_estimate, color=color, strokeDash=dash))
        # invisible points that carry the tooltips (an overlay on the line would blank the dash legend)
        left.append(alt.Chart(_inline(pruned), name=f"hover-pruned-{labels[f]}").mark_point(size=60, opacity=0)
                    .encode(x=x, y=y_pruned, tooltip=tooltip))
        right.append(alt.Chart(_inline(estimate), name=f"hover-estimate-{labels[f]}")
                     .mark_point(size=60, opacity=0).encode(x=x, y=y_estimate, tooltip=tooltip))
        knee = sweep_knee(rows.to_dict("records"), f)
        if knee is not None:
            at = rows.loc[rows["ratio"] == knee].iloc[0]
            mark = pd.DataFrame({"ratio": [knee], "pruned_fraction": [float(at["pruned_fraction"])],
                                 "effectiveness_estimate": [float(at["effectiveness_estimate"])],
                                 "floor": [labels[f]], "label": [f"knee {knee:.2f}"]})
            left.append(alt.Chart(_inline(mark), name=f"knee-{labels[f]}")
                        .mark_point(size=110, filled=True, shape="diamond", stroke="white", strokeWidth=1)
                        .encode(x=x, y=y_pruned, color=color,
                                tooltip=[alt.Tooltip("floor:N"), alt.Tooltip("ratio:Q", title="knee r", format=".2f"),
                                         alt.Tooltip("pruned_fraction:Q", title="pruned", format=".1%"),
                                         alt.Tooltip("effectiveness_estimate:Q", title="estimate",
                                                     format=".4f")]))
            spot = (knee, float(at["pruned_fraction"]))
            # two floors with the same knee: one label (the second was drawn over the first; the diamonds and
            # their tooltips still name each floor)
            if not any(abs(spot[0] - k) < 0.03 and abs(spot[1] - p) < 0.04 * pruned_max for k, p in knees_labelled):
                knees_labelled.append(spot)
                left.append(alt.Chart(_inline(mark), name=f"knee-label-{labels[f]}")
                            .mark_text(align="left", dx=7, dy=-9, fontSize=11, fontWeight="bold")
                            .encode(x=x, y=y_pruned, text="label:N",
                                    color=color))
        if 0.0 < f < 1.0:
            rule = pd.DataFrame({"effectiveness_estimate": [f], "floor": [labels[f]], "label": [f"floor {f:g}"]})
            right.append(alt.Chart(_inline(rule), name=f"floor-{labels[f]}")
                         .mark_rule(strokeDash=[1, 3], strokeWidth=2, opacity=0.9)
                         .encode(y=y_estimate, color=color))
            right.append(alt.Chart(_inline(rule), name=f"floor-label-{labels[f]}")
                         .mark_text(align="right", baseline="top", dx=-4, dy=4, fontSize=11)
                         .encode(y=y_estimate, x=alt.datum(label_x), text="label:N",
                                 color=color))
    if safe_frontier is not None:
        frontier = pd.DataFrame({"ratio": [float(safe_frontier)],
                                 "label": [f"safe frontier {float(safe_frontier):.2f}"]})
        left.append(alt.Chart(_inline(frontier), name="frontier").mark_rule(color=_GREEN, strokeWidth=2)
                    .encode(x=x, tooltip=[alt.Tooltip("ratio:Q", title="safe frontier", format=".3f")]))
        left.append(alt.Chart(_inline(frontier), name="frontier-label")
                    .mark_text(angle=270, align="left", baseline="bottom", dx=4, dy=-4, color=_GREEN, fontSize=11)
                    .encode(x=x, y=alt.datum(0.0), text="label:N"))
    if current_ratio is not None:
        current = pd.DataFrame({"ratio": [float(current_ratio)],
                                "label": [f"{current_label} {float(current_ratio):.2f}"]})
        left.append(alt.Chart(_inline(current), name="current").mark_rule(color=_GREY, strokeWidth=1)
                    .encode(x=x))
        # next to the frontier's label the slider's goes to the top of the rule (both were drawn at the bottom,
        # one over the other)
        near = safe_frontier is not None and abs(float(current_ratio) - float(safe_frontier)) < 0.04
        left.append(alt.Chart(_inline(current), name="current-label")
                    .mark_text(angle=270, align="right" if near else "left", baseline="bottom",
                               dx=-4 if near else 4, dy=-4, color="#777777", fontSize=11)
                    .encode(x=x, y=alt.datum(pruned_max if near else 0.0), text="label:N"))
    return (
        alt.layer(alt.layer(*left), alt.layer(*right))
        .resolve_scale(y="independent")
        .properties(title=alt.TitleParams("Ratio sweep", anchor="start",  # short lines: a phone shows them whole
                                          subtitle=["pruned fraction: left axis, solid lines",
                                                    "effectiveness estimate: right axis, dashed"],
                                          # a mid grey reads on the light and the dark theme (near-black had
                                          # vanished on the dark one)
                                          subtitleColor="#888888"),
                    height=_SWEEP_HEIGHT)
    )


def chart_png(chart: alt.TopLevelMixin, *, scale: float = 1.0) -> bytes:
    """The chart rendered to PNG bytes by vl-convert (offline, no browser)."""
    import vl_convert  # imported here: only exports need it

    return vl_convert.vegalite_to_png(chart.to_json(), scale=scale)
