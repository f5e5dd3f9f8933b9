"""Self-contained HTML reports: of one ``prune`` result (heatmap, side by side, summary) or of a batch run.

A report works offline and runs no script: charts are rendered to SVG by vl-convert and inlined, the token
chips are :mod:`layerzero_viz.render`'s escaped HTML, and a Content-Security-Policy forbids scripts and any
network fetch.  Everything that came from the input passes through ``html.escape``.

>>> html_text = report_html({"kind": "batch_summary", "conversations": 0, "malformed_lines": 0, "tokens_total": 0,
...     "tokens_pruned": 0, "tokens_directive": 0, "pruned_fraction": 0.0, "pruned_by_reason": {},
...     "estimate": {"mean": None, "histogram": []}, "risk": {"conversations": 0, "by_flag": {}, "first": []},
...     "malformed": [], "inputs": ["<x>.jsonl"], "output": "o.jsonl"})
>>> "&lt;x&gt;.jsonl" in html_text and "<script" not in html_text
True
"""
from __future__ import annotations

import html
from typing import Any, Iterable, Mapping, Sequence

import altair as alt
import pandas as pd

from . import charts, render
from .errors import InputError
from .reasons import reason_style

__all__ = ["report_html", "prune_report_html", "batch_report_html", "result_tokens", "heatmap_chart",
           "batch_chart", "chart_svg", "MAX_TOKEN_CHIPS"]

MAX_TOKEN_CHIPS = 20_000
"""Token chips shown in a prune report (the overview chart always covers every token)."""
_MAX_ROWS = 500

_PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", "Microsoft YaHei",
       sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 4px; } h2 { font-size: 1.2em; margin-top: 32px;
     border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.lz-sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f5f5f5; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.lz-side { table-layout: fixed; width: 100%; } .lz-side td { white-space: pre-wrap; word-break: break-word; }
.lz-chart { margin: 8px 0 16px; overflow-x: auto; } .lz-note { color: #555; font-style: italic; }
nav a { margin-right: 12px; }
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def report_html(data: Mapping[str, Any], *, title: str | None = None) -> str:
    """The report for ``data``: a batch summary (``kind == "batch_summary"``) or a ``prune`` JSON result."""
    if not isinstance(data, Mapping):
        raise InputError("expected a JSON object: the output of `layerzero-viz prune` or a batch summary")
    if data.get("kind") == "batch_summary":
        return batch_report_html(data, title=title)
    if "messages" in data and "tokens_total" in data:
        return prune_report_html(data, title=title)
    raise InputError("this JSON is neither a prune result (messages, tokens_total …) nor a batch summary "
                     '(kind "batch_summary")', hint="pass the JSON printed by `layerzero-viz prune` or "
                                                    "`layerzero-viz batch --json`")


# ---- one conversation -------------------------------------------------------------------------------------

def result_tokens(result: Mapping[str, Any]) -> pd.DataFrame:
    """The result's ``tokens`` as the table charts and chips need: plus ``role`` and display ``group``.

    A character split over several tokens shows on the first one; the others carry empty text at the same
    offset — they join its group, as in the engine's own token table.
    """
    tokens = list(result.get("tokens") or [])
    roles = {_key(m["message"]): m["role"] for m in result.get("messages", [])}
    rows, group, last = [], -1, None
    for t in tokens:
        place = (_key(t["message"]), t.get("block", 0))
        if not (t["text"] == "" and last is not None and last[0] == place and t["start"] == last[1]):
            group += 1
        last = (place, t["end"])
        rows.append({**t, "role": roles.get(_key(t["message"]), ""), "group": group})
    columns = ["message", "role", "block", "i", "id", "text", "start", "end", "decision", "reason", "detail",
               "score", "group"]
    return pd.DataFrame.from_records(rows, columns=columns)


def heatmap_chart(result: Mapping[str, Any]) -> alt.Chart:
    """The messages × position overview of a prune result (the chart ``report --png`` exports)."""
    df = result_tokens(result)
    if df.empty:
        raise InputError("the result has no tokens (it was printed with --no-tokens), so there is no heatmap",
                         hint="run prune without --no-tokens")
    return charts.overview_heatmap(df)


def prune_report_html(result: Mapping[str, Any], *, title: str | None = None) -> str:
    """Heatmap (overview chart and token chips), side by side and summary of one ``prune`` result."""
    df = result_tokens(result)
    total, pruned = int(result["tokens_total"]), int(result["tokens_pruned"])
    metrics = result.get("metrics") or {}
    # (results saved before the metric kept its seed name called it …_ratio_estimate)
    estimate = metrics.get("layer_zero_effectiveness_ratio", metrics.get("layer_zero_effectiveness_ratio_estimate"))
    sub = (f"r = {_num(result.get('ratio'))} ({result.get('ratio_source', '?')}) · {pruned:,} of {total:,} tokens "
           f"pruned ({pruned / total if total else 0:.1%})"
           + (f" · effectiveness estimate {estimate:.4f}" if isinstance(estimate, (int, float)) else ""))
    parts = [_head(title or "Pruning report", sub),
             '<nav><a href="#summary">Summary</a><a href="#heatmap">Heatmap</a>'
             '<a href="#side-by-side">Side by side</a><a href="#deleted">Deleted spans</a></nav>']

    parts.append('<h2 id="summary">Summary</h2>')
    parts.append(_kv_table([
        ("ratio", f"{_num(result.get('ratio'))} (from {result.get('ratio_source', '?')})"),
        ("enabled", f"{result.get('enabled', True)} (from {result.get('enabled_source', '?')})"),
        ("tokens", f"{total:,}"), ("pruned", f"{pruned:,} ({pruned / total if total else 0:.1%})"),
        ("engine directives removed", f"{int(result.get('tokens_directive', 0)):,}"),
        ("effectiveness estimate", f"{estimate:.4f}" if isinstance(estimate, (int, float)) else "—"),
        ("profile", result.get("profile") or "—"),
    ]))
    if result.get("warnings"):
        parts.append("<h3>Warnings</h3><ul>" + "".join(f"<li>{_e(w)}</li>" for w in result["warnings"]) + "</ul>")
    if not df.empty:
        by_reason = df[df["decision"] == "prune"].groupby("reason").size().sort_values(ascending=False)
        parts.append("<h3>Pruned tokens by reason</h3>"
                     + _table(["reason", "code", "tokens"],
                              [(reason_style(r).label, r, f"{n:,}") for r, n in by_reason.items()], numeric={2}))
    if result.get("timings_ms"):
        parts.append("<h3>Timings</h3>" + _table(["stage", "ms"], [(k, f"{float(v):,.2f}") for k, v in
                                                                  result["timings_ms"].items()], numeric={1}))

    parts.append('<h2 id="heatmap">Heatmap</h2>')
    if df.empty:
        parts.append('<p class="lz-note">This result has no per-token list (it was printed with --no-tokens); '
                     "run prune without it for the heatmap.</p>")
    else:
        parts.append(_chart(charts.overview_heatmap(df)))
        parts.append(_chart(charts.pruned_by_reason_bar(df)))
        parts.append(render.TOKEN_CSS + render.legend_html(protections_toggle=False))
        parts.append(_token_cards(df))

    parts.append('<h2 id="side-by-side">Side by side</h2>')
    parts.append(_table(["message", "original", "pruned"],
                        [(render.message_label(m["message"], m["role"]), m["original"], m["pruned"])
                         for m in result.get("messages", [])], css="lz-side"))

    parts.append('<h2 id="deleted">Deleted spans</h2>')
    spans = _deleted_spans(df)
    parts.append(_table(["message", "reason", "text", "detail"], spans[:_MAX_ROWS]) if spans
                 else '<p class="lz-note">Nothing was removed.</p>')
    if len(spans) > _MAX_ROWS:
        parts.append(f'<p class="lz-note">… {len(spans) - _MAX_ROWS:,} more spans not shown.</p>')
    return _page(title or "Pruning report", parts)


def _token_cards(df: pd.DataFrame) -> str:
    out, shown = [], 0
    for (message, role), part in df.groupby(["message", "role"], sort=False):
        if shown >= MAX_TOKEN_CHIPS:
            out.append(f'<p class="lz-note">Token chips stop after {MAX_TOKEN_CHIPS:,} tokens; '
                       "the overview chart covers all of them.</p>")
            break
        # counted like the app's cards and the header: engine directives are outside every total
        counted = charts.without_directives(part)
        counts = {"tokens": len(counted), "pruned": int((counted["decision"] == "prune").sum())}
        chips = render.token_html(part, max_tokens=MAX_TOKEN_CHIPS - shown)
        shown += len(part)
        out.append(render.message_card_html(role, message, chips, counts))
    return "".join(out)


def _deleted_spans(df: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """Contiguous removed runs per message and block with one reason and detail."""
    rows: list[list[Any]] = []
    last = None
    for t in df[df["decision"] == "prune"].itertuples(index=False):
        key = (t.message, t.block, t.reason, t.detail)
        if rows and last == (key, t.start):
            rows[-1][2] += t.text
        else:
            rows.append([render.message_label(t.message, t.role), reason_style(t.reason).label, t.text, t.detail])
        last = (key, t.end)
    return [tuple(r) for r in rows]


# ---- a batch run ----------------------------------------------------------------------------------------------

def batch_chart(summary: Mapping[str, Any]) -> alt.Chart:
    """Pruned tokens by reason over the whole run (the chart ``report --png`` exports for a batch summary)."""
    counts = summary.get("pruned_by_reason") or {}
    frame = pd.DataFrame({"reason": [reason_style(r).label for r in counts], "code": list(counts),
                          "tokens": [int(v) for v in counts.values()]})
    scale = alt.Scale(domain=list(frame["reason"]), range=[reason_style(c).color for c in frame["code"]])
    return (alt.Chart({"values": frame.to_dict("records")}).mark_bar()
            .encode(y=alt.Y("reason:N", sort=list(frame["reason"]), title=None),
                    x=alt.X("tokens:Q", title="pruned tokens"),
                    color=alt.Color("reason:N", scale=scale, legend=None))
            .properties(title="Pruned tokens by reason", width=480))


def _estimate_chart(histogram: Sequence[Mapping[str, Any]]) -> alt.Chart:
    frame = pd.DataFrame.from_records(list(histogram), columns=["from", "to", "conversations"])
    return (alt.Chart({"values": frame.to_dict("records")}).mark_bar(color="#0072B2")
            .encode(x=alt.X("from:Q", bin="binned", title="effectiveness estimate", scale=alt.Scale(zero=False)),
                    x2="to:Q", y=alt.Y("conversations:Q", title="conversations"))
            .properties(title="Effectiveness estimate per conversation", width=480))


def batch_report_html(summary: Mapping[str, Any], *, title: str | None = None) -> str:
    """Totals, pruned tokens by reason, the estimate distribution, risky conversations and malformed lines."""
    total, pruned = int(summary["tokens_total"]), int(summary["tokens_pruned"])
    conversations = int(summary["conversations"])
    status = "complete" if summary.get("complete", True) else "stopped early"
    sub = (f"{conversations:,} conversations · {pruned:,} of {total:,} tokens pruned "
           f"({summary.get('pruned_fraction', 0):.1%}) · {status}")
    parts = [_head(title or "Batch report", sub)]
    parts.append("<h2>Summary</h2>")
    rows = [("inputs", ", ".join(map(str, summary.get("inputs", [])))),
            ("output", f"{summary.get('output', '—')} ({summary.get('output_format', '?')})"),
            ("ratio", _num(summary.get("ratio")) if summary.get("ratio") is not None else "each conversation's own"),
            ("conversations", f"{conversations:,}"), ("malformed lines", f"{int(summary['malformed_lines']):,}"),
            ("tokens", f"{total:,}"), ("pruned", f"{pruned:,}"),
            ("engine directives removed", f"{int(summary.get('tokens_directive', 0)):,}"),
            ("conversations with a protected-fact risk", f"{int(summary['risk']['conversations']):,}")]
    if summary.get("stopped_at"):
        stop = summary["stopped_at"]
        rows.append(("stopped at", f"{stop['file']}:{stop['line']}: {stop['error']}"))
    parts.append(_kv_table(rows))

    parts.append("<h2>Pruned tokens by reason</h2>")
    if summary.get("pruned_by_reason"):
        parts.append(_chart(batch_chart(summary)))
        parts.append(_table(["reason", "code", "tokens", "share of pruned"],
                            [(reason_style(r).label, r, f"{n:,}", f"{n / pruned if pruned else 0:.1%}")
                             for r, n in summary["pruned_by_reason"].items()], numeric={2, 3}))
    else:
        parts.append('<p class="lz-note">Nothing was pruned.</p>')

    parts.append("<h2>Effectiveness estimate</h2>")
    est = summary.get("estimate") or {}
    if est.get("mean") is not None:
        keys = [k for k in ("mean", "min", "p5", "p25", "p50", "p75", "p95", "max") if est.get(k) is not None]
        parts.append(_table(keys, [tuple(f"{float(est[k]):.4f}" for k in keys)], numeric=set(range(len(keys)))))
        if est.get("histogram"):
            parts.append(_chart(_estimate_chart(est["histogram"])))
    else:
        parts.append('<p class="lz-note">No conversations.</p>')

    risk = summary["risk"]
    parts.append("<h2>Protected-fact risk</h2>")
    if risk.get("by_flag"):
        parts.append(_table(["flag", "conversations"], [(k, f"{v:,}") for k, v in risk["by_flag"].items()],
                            numeric={1}))
    if risk.get("first"):
        parts.append(_table(["file", "line", "risk"], [(r["file"], str(r["line"]), ", ".join(r["risk"]))
                                                       for r in risk["first"]], numeric={1}))
        if risk["conversations"] > len(risk["first"]):
            parts.append(f'<p class="lz-note">The first {len(risk["first"])} are listed; the output records '
                         'have them all (field "risk").</p>')
    else:
        parts.append('<p class="lz-note">No conversation lost a protected fact.</p>')

    parts.append("<h2>Malformed lines</h2>")
    if summary.get("malformed"):
        parts.append(_table(["file", "line", "error"], [(m["file"], str(m["line"]), m["error"])
                                                         for m in summary["malformed"]], numeric={1}))
    else:
        parts.append('<p class="lz-note">None.</p>')
    return _page(title or "Batch report", parts)


# ---- HTML helpers ---------------------------------------------------------------------------------------------

def chart_svg(chart: alt.TopLevelMixin) -> str:
    """The chart as inline SVG markup, rendered offline by vl-convert (text in it is XML-escaped)."""
    import vl_convert

    svg = vl_convert.vegalite_to_svg(chart.to_json())
    return svg[svg.index("<svg"):] if "<svg" in svg else svg


def _chart(chart: alt.TopLevelMixin) -> str:
    return f'<div class="lz-chart">{chart_svg(chart)}</div>'


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _key(message: Any) -> Any:
    return (type(message).__name__, message)


def _head(title: str, sub: str) -> str:
    return f"<h1>{_e(title)}</h1><p class=\"lz-sub\">{_e(sub)}</p>"


def _kv_table(rows: Iterable[tuple[str, Any]]) -> str:
    return "<table>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows) + "</table>"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]], *, numeric: set[int] = frozenset(),
           css: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    num = ' class="num"'
    body = "".join("<tr>" + "".join(f"<td{num if i in numeric else ''}>{_e(v)}</td>" for i, v in enumerate(row))
                   + "</tr>" for row in rows)
    cls = f' class="{_e(css)}"' if css else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _page(title: str, parts: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_e(title)}</title><style>{_PAGE_CSS}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")
