"""Pure builders for the advisor's pages: tables, the highlighted location of a finding, the phrase chart.

Like ``render`` and ``charts``: no streamlit here, every piece of user text is escaped with
``html.escape(..., quote=True)`` before it reaches markup.

>>> html_ = highlight_html("请问<b>4.2%</b>是什么？", 2, 13, role="user", key=0, label="LZ110")
>>> "&lt;b&gt;4.2%&lt;/b&gt;" in html_ and "<b>" not in html_
True
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Sequence

import altair as alt
import pandas as pd

from ..engine import Config, annotate
from ..model import Conversation
from ..render import message_label
from .lint import Finding, apply_fix
from .mine import MiningResult
from .preselect import Verdict

__all__ = ["FIND_CSS", "TokenCounts", "findings_frame", "highlight_html", "token_counts", "fixed_counts",
           "phrases_frame", "phrases_chart", "finding_label"]

FIND_CSS = (
    "<style>.lz-find { white-space: pre-wrap; word-break: break-word; line-height: 1.7; "
    "font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }"
    ".lz-find mark { background: rgba(230, 159, 0, 0.35); color: currentColor; border-radius: 3px; "
    "outline: 1px solid rgba(230, 159, 0, 0.9); padding: 0 1px; }"
    ".lz-find .lz-gap { opacity: 0.6; font-style: italic; }</style>"
)


def finding_label(f: Finding) -> str:
    """A one-line label for pickers: ``LZ110 · warning · system · '截至2024年…'``."""
    where = "conversation" if f.message_key is None else message_label(f.message_key)
    excerpt = f.excerpt.replace("\n", " ")
    excerpt = excerpt if len(excerpt) <= 40 else excerpt[:39] + "…"
    return f"{f.code} · {f.severity} · {where}" + (f" · {excerpt!r}" if excerpt else "")


def findings_frame(findings: Sequence[Finding]) -> pd.DataFrame:
    """One row per finding: code, name, severity, where, excerpt, message and whether a fix can be applied."""
    rows = [{
        "code": f.code, "name": f.name, "severity": f.severity,
        "where": "conversation" if f.message_key is None else message_label(f.message_key),
        "excerpt": f.excerpt, "message": f.message, "fix": f.fix_available,
    } for f in findings]
    return pd.DataFrame(rows, columns=["code", "name", "severity", "where", "excerpt", "message", "fix"])


def highlight_html(text: str, start: int, end: int, *, role: str, key: Any, label: str, context: int = 240) -> str:
    """The message ``text`` around ``[start, end)`` with that span marked; ``context`` characters either side."""
    lo, hi = max(0, start - context), min(len(text), end + context)
    before, hit, after = text[lo:start], text[start:end], text[end:hi]
    esc = lambda s: html.escape(s, quote=True)  # noqa: E731
    gap = '<span class="lz-gap">…</span>'
    return (
        f'<div class="lz-card" data-role="{esc(str(role))}"><div class="lz-card-head">'
        f'<span class="lz-card-role">{esc(message_label(key, str(role)))}</span>'
        f'<span class="lz-card-counts">characters {start:,}–{end:,}</span></div>'
        f'<div class="lz-find">{gap if lo else ""}{esc(before)}<mark title="{esc(label)}">{esc(hit)}</mark>'
        f'{esc(after)}{gap if hi < len(text) else ""}</div></div>'
    )


@dataclass(frozen=True)
class TokenCounts:
    """Tokens of a conversation before pruning (``total``) and sent after pruning at ``ratio`` (``sent``)."""

    total: int
    sent: int
    ratio: float


def token_counts(conv: Conversation, config: Config, ratio: float | None = None) -> TokenCounts:
    """How many tokens ``conv`` has and how many are sent after pruning at ``ratio`` (None: its own).

    >>> from layerzero_viz import load_conversation
    >>> c = token_counts(load_conversation("您好，请问七日年化收益率4.2%是什么意思？"), Config(env={}), 0.0)
    >>> c.total == c.sent
    True
    """
    result = annotate(conv, config).at_ratio(ratio)
    return TokenCounts(result.tokens_total, result.tokens_total - result.tokens_pruned, result.ratio)


def fixed_counts(conv: Conversation, finding: Finding, config: Config,
                 ratio: float | None = None) -> tuple[TokenCounts, TokenCounts]:
    """Token counts before and after applying ``finding``'s fix."""
    return token_counts(conv, config, ratio), token_counts(apply_fix(conv, finding), config, ratio)


def phrases_frame(result: MiningResult, verdicts: Sequence[Verdict] | None = None) -> pd.DataFrame:
    """The mined phrases as a table (rank, phrase, messages, tokens per use, tokens, saving, edge share, example),
    with, given their :class:`~layerzero_viz.advisor.preselect.Verdict` s, whether each is pre-selected and why."""
    rows = [{
        "rank": k, "phrase": p.phrase, "messages": p.documents, "uses": p.occurrences, "tokens_per_use": p.tokens,
        "tokens": p.tokens_total, "saving": p.saving, "edge_share": p.edge_share, "lexicon": p.lexicon,
        "example": p.examples[0] if p.examples else "",
    } for k, p in enumerate(result.phrases, 1)]
    columns = ["rank", "phrase", "messages", "uses", "tokens_per_use", "tokens", "saving", "edge_share", "lexicon",
               "example"]
    if verdicts is not None:
        for row, v in zip(rows, verdicts):
            row.update(selected=v.selected, kind=v.kind, why=v.reason)
        columns[2:2] = ["selected", "kind", "why"]
    return pd.DataFrame(rows, columns=columns)


def phrases_chart(result: MiningResult, top: int = 25) -> alt.Chart:
    """A horizontal bar per phrase: estimated tokens saved across the history, best first."""
    df = phrases_frame(result).head(top)
    data = {"values": df[["rank", "phrase", "messages", "saving", "lexicon"]].to_dict("records")}
    return (
        alt.Chart(data)  # inline values, as charts.py passes them
        .mark_bar(color="#0072B2")
        .encode(
            x=alt.X("saving:Q", title="estimated tokens saved"),
            # every bar named, the phrase whole up to 320 px ("非常感谢您的耐…" and every other label dropped)
            y=alt.Y("phrase:N", sort=alt.EncodingSortField("rank", order="ascending"), title=None,
                    axis=alt.Axis(labelOverlap=False, labelLimit=320)),
            tooltip=[alt.Tooltip("phrase:N"), alt.Tooltip("messages:Q", format=","),
                     alt.Tooltip("saving:Q", format=","), alt.Tooltip("lexicon:N", title="known filler")],
        )
        .properties(height=max(120, 20 * len(df)))
    )
