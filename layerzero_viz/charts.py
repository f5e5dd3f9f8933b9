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

from .reasons import PRUNE_REASONS, reason_style
from .render import message_label

__all__ = [
    "overview_heatmap",
    "pruned_by_reason_bar",
    "timings_bar",
    "message_timings_bar",
    "sweep_chart",
    "chart_png",
    "EFFECTIVENESS_TARGET",
]

EFFECTIVENESS_TARGET = 0.99
"""The effectiveness a pruned prompt should keep; the sweep chart draws it as a rule."""

# Okabe–Ito, for series that are not reasons.
_BLUE, _ORANGE, _GREY = "#0072B2", "#E69F00", "#999999"
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
            y=alt.Y("message:N", sort=labels, title=None),
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
        .properties(width=640, height=alt.Step(18), title="Where pruning happens")
    )


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
            y=alt.Y("stage:N", sort=[str(s) for s in stages], title=None),
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
            y=alt.Y("message:N", sort=order, title=None),
            x=alt.X("sum(ms):Q", title="ms"),
            color=color,
            tooltip=[alt.Tooltip("message:N"), alt.Tooltip("stage:N"), alt.Tooltip("ms:Q", format=",.1f")],
        )
        .properties(title="Time per message")
    )


def sweep_chart(sweep_df: pd.DataFrame, *, best_ratio: float | None = None) -> alt.LayerChart:
    """Pruned fraction and estimated effectiveness against ``prune_ratio``, with the 0.99 target and best ratio.

    ``sweep_df`` has one row per ratio with ``ratio``, ``pruned_fraction`` and ``effectiveness_estimate``.
    """
    _require(sweep_df, ("ratio", *_SERIES), "sweep_chart")
    long = sweep_df.loc[:, ["ratio", *_SERIES]].melt(id_vars="ratio", var_name="series", value_name="value")
    long["series"] = long["series"].map(_SERIES)
    series_scale = alt.Scale(domain=list(_SERIES.values()), range=[_BLUE, _ORANGE])

    lines = (
        alt.Chart(_inline(long))
        .mark_line(point=True)
        .encode(
            x=alt.X("ratio:Q", title="prune_ratio", scale=alt.Scale(domain=[0, 0.95])),
            y=alt.Y("value:Q", title=None, scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("series:N", title=None, scale=series_scale),
            tooltip=[
                alt.Tooltip("ratio:Q", format=".2f"),
                alt.Tooltip("series:N"),
                alt.Tooltip("value:Q", format=".3f"),
            ],
        )
    )
    target = pd.DataFrame({"y": [EFFECTIVENESS_TARGET], "label": [f"target {EFFECTIVENESS_TARGET:g}"]})
    target_rule = alt.Chart(_inline(target)).mark_rule(strokeDash=[4, 4], color=_GREY).encode(y="y:Q")
    target_text = (
        alt.Chart(_inline(target))
        .mark_text(align="right", dx=-4, dy=-6, color=_GREY)
        .encode(y="y:Q", x=alt.datum(0.95), text="label:N")
    )
    layers: list[alt.Chart] = [lines, target_rule, target_text]
    if best_ratio is not None:
        best = pd.DataFrame({"ratio": [float(best_ratio)], "label": [f"best r = {float(best_ratio):.2f}"]})
        layers.append(alt.Chart(_inline(best)).mark_rule(color=_ORANGE, strokeWidth=2).encode(x="ratio:Q"))
        layers.append(
            alt.Chart(_inline(best))
            .mark_text(align="left", dx=4, dy=-4, baseline="bottom", color=_ORANGE)
            .encode(x="ratio:Q", y=alt.datum(0.0), text="label:N")
        )
    return alt.layer(*layers).properties(title="Ratio sweep")


def chart_png(chart: alt.TopLevelMixin, *, scale: float = 1.0) -> bytes:
    """The chart rendered to PNG bytes by vl-convert (offline, no browser)."""
    import vl_convert  # imported here: only exports need it

    return vl_convert.vegalite_to_png(chart.to_json(), scale=scale)
