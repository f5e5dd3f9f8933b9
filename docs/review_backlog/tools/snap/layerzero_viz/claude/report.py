"""A/B results as tables and charts (pure: pandas and Altair, no Streamlit), and where runs are saved.

>>> from layerzero_viz.claude.ab import ABReport, Outcome
>>> report = ABReport((Outcome("r1", 1, "A", 0.0, "unpruned", 10, 0, 12, 5, 80.0, None, True),
...                    Outcome("r1", 1, "B", 0.3, "global", 8, 2, 10, 5, 70.0, None, False, "lost 4.2%")),
...                   model="m", judge_model="m", ratio=0.3, rows=1, c_note="")
>>> group_frame(report)[["group", "n", "effectiveness_ratio"]].to_dict("records")
[{'group': 'A', 'n': 1, 'effectiveness_ratio': 1.0}, {'group': 'B', 'n': 1, 'effectiveness_ratio': 0.0}, {'group': 'C', 'n': 0, 'effectiveness_ratio': None}]
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Mapping

import altair as alt
import pandas as pd

from ..errors import InputError
from .ab import GROUP_LABELS, GROUPS, ABReport
from .guard import THRESHOLD

__all__ = ["group_frame", "outcome_frame", "effectiveness_chart", "tokens_chart", "latency_chart",
           "results_dir", "save_report", "list_reports", "load_report", "ENV_AB_DIR"]

ENV_AB_DIR = "LAYERZERO_AB_DIR"
_GROUP_COLORS = {"A": "#999999", "B": "#0072B2", "C": "#E69F00"}  # Okabe–Ito


def group_frame(report: ABReport) -> pd.DataFrame:
    """One row per group: n, equivalent, effectiveness ratio, tokens, cost, mean latency, errors."""
    rows = []
    for g, s in report.groups().items():
        rows.append({"group": g, "label": GROUP_LABELS[g], "n": s.n, "equivalent": s.equivalent,
                     "effectiveness_ratio": s.effectiveness_ratio, "input_tokens": s.input_tokens,
                     "output_tokens": s.output_tokens, "cost_usd": s.cost_usd, "latency_ms": s.latency_ms,
                     "errors": s.errors})
    return pd.DataFrame(rows).astype(object).where(lambda df: df.notna(), None)


def outcome_frame(report: ABReport) -> pd.DataFrame:
    """One row per (row, group) outcome, in run order."""
    columns = ["row", "line", "group", "ratio", "ratio_source", "tokens_estimate", "tokens_pruned", "input_tokens",
               "output_tokens", "latency_ms", "cost_usd", "equivalent", "differences", "error", "cached"]
    return pd.DataFrame([o.to_dict() for o in report.outcomes], columns=columns)


def _values(df: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    return {"values": df.astype(object).where(df.notna(), None).to_dict("records")}


def _group_color() -> alt.Color:
    return alt.Color("group:N", scale=alt.Scale(domain=list(GROUPS), range=[_GROUP_COLORS[g] for g in GROUPS]),
                     legend=None)


def effectiveness_chart(groups: pd.DataFrame, *, threshold: float = THRESHOLD) -> alt.LayerChart:
    """Effectiveness ratio per group, with the rollback threshold as a rule."""
    df = groups[["group", "label", "effectiveness_ratio", "n"]]
    bars = alt.Chart(_values(df)).mark_bar().encode(
        x=alt.X("group:N", sort=list(GROUPS), title=None),
        y=alt.Y("effectiveness_ratio:Q", scale=alt.Scale(domain=[0, 1]), title="effectiveness ratio"),
        color=_group_color(),
        tooltip=["group:N", "label:N", alt.Tooltip("effectiveness_ratio:Q", format=".3f"), "n:Q"],
    )
    rule = alt.Chart({"values": [{"threshold": threshold}]}).mark_rule(strokeDash=[4, 3], color="#D55E00").encode(
        y="threshold:Q")
    return (bars + rule).properties(title="Equivalent replies / judged rows", height=240)


def tokens_chart(groups: pd.DataFrame) -> alt.Chart:
    """Input tokens Claude counted per group."""
    return alt.Chart(_values(groups[["group", "label", "input_tokens"]])).mark_bar().encode(
        x=alt.X("group:N", sort=list(GROUPS), title=None), y=alt.Y("input_tokens:Q", title="input tokens"),
        color=_group_color(), tooltip=["group:N", "label:N", "input_tokens:Q"],
    ).properties(title="Input tokens (Claude's count)", height=240)


def latency_chart(outcomes: pd.DataFrame) -> alt.Chart:
    """Reply latency per outcome, by group (box plot)."""
    df = outcomes.loc[outcomes["latency_ms"].notna(), ["group", "row", "latency_ms"]]
    return alt.Chart(_values(df)).mark_boxplot(extent="min-max").encode(
        x=alt.X("group:N", sort=list(GROUPS), title=None), y=alt.Y("latency_ms:Q", title="latency (ms)"),
        color=_group_color(),
    ).properties(title="Reply latency", height=240)


# ---- saved runs -----------------------------------------------------------------------------------------
def results_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the app saves A/B runs: ``$LAYERZERO_AB_DIR`` or ``.layerzero/ab``."""
    env = os.environ if env is None else env
    return Path(env.get(ENV_AB_DIR) or Path(".layerzero") / "ab")


def save_report(report: ABReport, directory: Path | None = None) -> Path:
    """Write ``report`` as ``ab-<time>-<model>.json`` in ``directory`` (atomically); its path."""
    from ..cli import write_atomic

    directory = results_dir() if directory is None else directory
    safe_model = "".join(c if c.isalnum() or c in "-_." else "_" for c in report.model)[:60]
    path = directory / f"ab-{time.strftime('%Y%m%d-%H%M%S')}-{safe_model}.json"
    write_atomic(path, json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    return path


def list_reports(directory: Path | None = None) -> list[Path]:
    """Saved runs, newest first."""
    directory = results_dir() if directory is None else directory
    if not directory.is_dir():
        return []
    return sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)


def load_report(source: str | bytes | os.PathLike[str]) -> ABReport:
    """A saved run from a path or the file's bytes/text; InputError when it is not one."""
    if isinstance(source, os.PathLike):
        text: str | bytes = Path(source).read_bytes()
    else:
        text = source
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not JSON ({exc})", location="results",
                         hint="load the file written by: python -m layerzero_viz ab RUNS.jsonl --out results.json") from None
    return ABReport.from_dict(doc)
