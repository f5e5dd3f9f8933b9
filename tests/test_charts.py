"""Altair builders: bounded data for long inputs, the expected encodings, reason colours, PNG export."""
from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd
import pytest

from layerzero_viz import charts
from layerzero_viz.charts import (
    chart_png,
    message_timings_bar,
    overview_heatmap,
    pruned_by_reason_bar,
    sweep_chart,
    timings_bar,
)
from layerzero_viz.reasons import ALL_REASONS, PRUNE_REASONS, REASON_STYLES

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[1]


def token_table(n: int, messages: int, *, seed: int = 0) -> pd.DataFrame:
    """A synthetic engine token table: ``messages`` messages (the first one "system"), ``n`` tokens in all."""
    rng = np.random.default_rng(seed)
    m = np.sort(rng.integers(0, messages, n))
    m[:messages] = np.arange(messages)  # every message has at least one token
    m.sort()
    decision = rng.choice(["keep", "prune"], n, p=[0.7, 0.3])
    reason = np.where(
        decision == "prune",
        rng.choice([r for r in PRUNE_REASONS if r != "directive"], n),  # (directives: outside every count)
        rng.choice([c for c in ALL_REASONS if c not in PRUNE_REASONS], n),
    )
    return pd.DataFrame(
        {
            "message": pd.Series(["system" if k == 0 else int(k) for k in m], dtype=object),
            "role": np.where(m == 0, "system", np.where(m % 2 == 1, "user", "assistant")),
            "block": 0,
            "i": np.arange(n),
            "id": rng.integers(0, 100_000, n),
            "text": "tok",
            "start": 0,
            "end": 0,
            "decision": decision,
            "reason": reason,
            "detail": "",
            "score": rng.random(n),
            "span": -1,
            "group": np.arange(n),
        }
    )


@pytest.fixture(scope="module")
def big() -> pd.DataFrame:
    return token_table(50_000, 40)


def rows(spec: dict) -> list[dict]:
    """The data rows of a single-view chart spec, inline or consolidated into ``datasets``."""
    data = spec["data"]
    return data["values"] if "values" in data else spec["datasets"][data["name"]]


# ---------------------------------------------------------------- heatmap


def test_heatmap_of_50k_tokens_has_at_most_messages_times_bins_rows(big):
    spec = overview_heatmap(big, bins=60).to_dict()
    cells = rows(spec)
    assert 40 < len(cells) <= 40 * 60
    assert sum(c["tokens"] for c in cells) == len(big)
    assert sum(c["pruned"] for c in cells) == int((big["decision"] == "prune").sum())


def test_heatmap_encodes_message_rows_position_columns_and_pruned_share(big):
    spec = overview_heatmap(big).to_dict()
    enc = spec["encoding"]
    assert spec["mark"]["type"] == "rect"
    assert enc["x"]["field"] == "bin" and enc["y"]["field"] == "message" and enc["color"]["field"] == "pruned_share"
    assert enc["y"]["sort"][:3] == ["system", "#1 user", "#2 assistant"]
    assert {t["field"] for t in enc["tooltip"]} >= {"message", "token_range", "tokens", "pruned", "pruned_share"}
    assert enc["color"]["scale"]["domain"] == [0, 1]


def test_heatmap_can_colour_by_mean_score(big):
    assert overview_heatmap(big, color_by="score").to_dict()["encoding"]["color"]["field"] == "score"


def test_heatmap_cells_cover_each_message_in_order():
    df = token_table(1_000, 3)
    cells = rows(overview_heatmap(df, bins=10).to_dict())
    for label in ("system", "#1 user", "#2 assistant"):
        mine = [c for c in cells if c["message"] == label]
        assert len(mine) <= 10
        assert mine[0]["first"] == 0
        assert all(a["last"] + 1 == b["first"] for a, b in zip(mine, mine[1:]))
        assert mine[0]["token_range"] == f"0–{mine[0]['last']}"


def test_heatmap_message_shorter_than_bins_gets_one_cell_per_token():
    df = token_table(5, 1)
    assert [c["tokens"] for c in rows(overview_heatmap(df, bins=60).to_dict())] == [1] * 5


def test_heatmap_share_is_pruned_over_tokens():
    df = token_table(4, 1)
    df["decision"] = ["prune", "keep", "prune", "prune"]
    (cell,) = rows(overview_heatmap(df, bins=1).to_dict())
    assert cell["tokens"] == 4 and cell["pruned"] == 3 and cell["pruned_share"] == pytest.approx(0.75)


def test_heatmap_of_an_empty_table_is_an_empty_chart():
    assert rows(overview_heatmap(token_table(10, 2).iloc[:0]).to_dict()) == []


def test_heatmap_rejects_bad_options(big):
    with pytest.raises(ValueError, match="color_by"):
        overview_heatmap(big, color_by="reason")
    with pytest.raises(ValueError, match="bins"):
        overview_heatmap(big, bins=0)
    with pytest.raises(ValueError, match="decision"):
        overview_heatmap(big.drop(columns="decision"))


# ---------------------------------------------------------------- pruned by reason


def test_reason_bar_counts_pruned_tokens_per_message_and_reason(big):
    spec = pruned_by_reason_bar(big).to_dict()
    data = rows(spec)
    assert len(data) <= 40 * len(PRUNE_REASONS)
    assert sum(r["tokens"] for r in data) == int((big["decision"] == "prune").sum())
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["x"]["field"] == "message" and spec["encoding"]["y"]["aggregate"] == "sum"


def test_reason_bar_maps_each_reason_to_its_colour(big):
    scale = pruned_by_reason_bar(big).to_dict()["encoding"]["color"]["scale"]
    assert scale["domain"] == [REASON_STYLES[c].label for c in PRUNE_REASONS]
    assert scale["range"] == [REASON_STYLES[c].color for c in PRUNE_REASONS]


def test_reason_bar_colours_an_unexpected_prune_reason_too():
    df = token_table(50, 2)
    df.loc[0, ["decision", "reason"]] = ["prune", "brand_new"]
    scale = pruned_by_reason_bar(df).to_dict()["encoding"]["color"]["scale"]
    assert len(scale["domain"]) == len(scale["range"]) == len(PRUNE_REASONS) + 1


def test_reason_bar_keeps_messages_without_pruning_on_the_axis():
    df = token_table(30, 3)
    df["decision"] = "keep"
    spec = pruned_by_reason_bar(df).to_dict()
    assert rows(spec) == [] and spec["encoding"]["x"]["scale"]["domain"] == ["system", "#1 user", "#2 assistant"]


# ---------------------------------------------------------------- timings


def test_timings_bar_lists_stages_in_order_with_their_share():
    spec = timings_bar({"load": 1.0, "tokenize": 3.0, "annotate": 6.0}).to_dict()
    assert [r["stage"] for r in rows(spec)] == ["load", "tokenize", "annotate"]
    assert [r["share"] for r in rows(spec)] == pytest.approx([0.1, 0.3, 0.6])
    assert spec["encoding"]["y"]["field"] == "stage" and spec["encoding"]["x"]["field"] == "ms"
    assert {t["field"] for t in spec["encoding"]["tooltip"]} == {"stage", "ms", "share"}


def test_timing_bars_never_cut_their_labels():
    # the app's theme cut the y labels at a fixed width: "context_preserva…" (UX walkthrough); 0 = no limit
    spec = timings_bar({"parse": 1.0, "context_preservation": 0.0}).to_dict()
    assert spec["encoding"]["y"]["axis"]["labelLimit"] == 0
    spec = message_timings_bar([{"label": "#12 assistant (a long label)", "ms": 1.0}]).to_dict()
    assert spec["encoding"]["y"]["axis"]["labelLimit"] == 0


def test_the_overview_and_the_phrase_chart_name_every_row():
    # (second UX walkthrough: "Where pruning happens" labelled every other message, the history chart ~6 of 11)
    spec = overview_heatmap(token_table(300, 17)).to_dict()
    assert spec["encoding"]["y"]["axis"]["labelOverlap"] is False and spec["encoding"]["y"]["axis"]["labelLimit"] == 0
    import io

    from layerzero_viz.advisor.mine import mine
    from layerzero_viz.advisor.views import phrases_chart

    lines = [json.dumps({"content": f"非常感谢您的耐心解答，请问订单{k}到哪了？"}, ensure_ascii=False) for k in range(6)]
    result = mine(io.BytesIO("\n".join(lines).encode()), top=10, progress=False)
    axis = phrases_chart(result).to_dict()["encoding"]["y"]["axis"]
    assert axis["labelOverlap"] is False and axis["labelLimit"] >= 300


def test_message_timings_stack_by_stage_when_given():
    spec = message_timings_bar(
        [
            {"message": "system", "role": "system", "stage": "rules", "ms": 2.0},
            {"message": "system", "role": "system", "stage": "protect", "ms": 1.0},
            {"message": 1, "role": "user", "stage": "rules", "ms": 4.0},
        ]
    ).to_dict()
    assert [r["message"] for r in rows(spec)] == ["system", "system", "#1 user"]
    assert spec["encoding"]["color"]["field"] == "stage"
    assert spec["encoding"]["y"]["sort"] == ["system", "#1 user"]


def test_message_timings_without_stages_are_single_bars():
    spec = message_timings_bar([{"label": "first", "ms": 1}, {"message": 2, "role": "user", "ms": 2}]).to_dict()
    assert [r["message"] for r in rows(spec)] == ["first", "#2 user"]
    assert "field" not in spec["encoding"]["color"]


# ---------------------------------------------------------------- sweep


@pytest.fixture
def sweep() -> pd.DataFrame:
    ratio = np.round(np.arange(0, 0.96, 0.05), 2)
    return pd.DataFrame({"ratio": ratio, "pruned_fraction": ratio * 0.8, "effectiveness_estimate": 1 - ratio / 5})


def floors_sweep() -> pd.DataFrame:
    """Three floors as the engine gives them: lossless stops at the safe frontier (0.20), 0.98 goes on to 0.30,
    off to 0.50 (where the lossy tier has nothing left)."""
    ratio = np.round(np.arange(0, 0.96, 0.01), 2)
    frames = []
    for floor, top in ((1.0, 0.20), (0.98, 0.30), (0.0, 0.50)):
        pruned = np.minimum(ratio, top)
        estimate = 1 - 0.005 * np.minimum(ratio, 0.2) / 0.2 - 0.4 * np.clip(pruned - 0.2, 0, None)
        frames.append(pd.DataFrame({"ratio": ratio, "tokens_pruned": (pruned * 1000).round().astype(int),
                                    "pruned_fraction": pruned, "effectiveness_estimate": estimate,
                                    "stopped_by": "ratio", "min_effectiveness": floor}))
    return pd.concat(frames, ignore_index=True)


def named_layers(spec: dict) -> dict[str, dict]:
    """Every named layer of a layer of layers, by its name without Altair's ``_0`` suffix; its data rows (inline
    or consolidated into ``datasets``) are put in as ``rows``."""
    out = {}
    for group in spec["layer"]:
        for layer in group["layer"]:
            data = layer["data"]
            rows = data["values"] if "values" in data else spec["datasets"][data["name"]]
            out[layer["name"].rsplit("_", 1)[0]] = {**layer, "rows": rows}
    return out


def test_sweep_draws_a_curve_per_floor_on_two_axes():
    spec = sweep_chart(floors_sweep(), safe_frontier=0.2, current_ratio=0.3).to_dict()
    assert spec["resolve"] == {"scale": {"y": "independent"}}
    left, right = spec["layer"]
    layers = named_layers(spec)
    for label in ("lossless", "0.98", "off"):
        pruned, estimate = layers[f"pruned-{label}"], layers[f"estimate-{label}"]
        assert pruned["name"] in [x["name"] for x in left["layer"]]
        assert estimate["name"] in [x["name"] for x in right["layer"]]
        assert pruned["mark"]["type"] == estimate["mark"]["type"] == "line"
        assert {r["floor"] for r in pruned["rows"]} == {label}
        assert len(pruned["rows"]) == 96
    # pruned fraction on the left in percent, the estimate on its own right axis zoomed to its range
    assert layers["pruned-lossless"]["encoding"]["y"]["axis"]["format"] == ".0%"
    y = layers["estimate-lossless"]["encoding"]["y"]
    assert y["axis"]["orient"] == "right"
    low, high = y["scale"]["domain"]
    assert high == 1.0 and 0.8 < low < 0.9  # lowest estimate 0.875 (off at 0.50), not 0–1
    # one colour per floor, the same in every layer
    colors = layers["pruned-lossless"]["encoding"]["color"]["scale"]
    assert colors["domain"] == ["lossless", "0.98", "off"] and len(set(colors["range"])) == 3


def test_sweep_marks_the_safe_frontier_the_floors_and_the_knees():
    layers = named_layers(sweep_chart(floors_sweep(), safe_frontier=0.2, current_ratio=0.3).to_dict())
    frontier = layers["frontier"]
    assert frontier["mark"]["type"] == "rule" and frontier["rows"][0]["ratio"] == 0.2
    assert layers["frontier-label"]["rows"][0]["label"] == "safe frontier 0.20"
    # a horizontal rule on the estimate axis for a real floor; lossless (1.0) and off (0) have none
    rule = layers["floor-0.98"]
    assert rule["mark"]["type"] == "rule" and rule["encoding"]["y"]["field"] == "effectiveness_estimate"
    assert rule["rows"][0]["effectiveness_estimate"] == 0.98
    assert "floor-lossless" not in layers and "floor-off" not in layers
    # knees: lossless stops growing at 0.20; 0.98 drops below its floor at 0.24; off stops at 0.50
    knees = {k: layers[f"knee-{k}"]["rows"][0]["ratio"] for k in ("lossless", "0.98", "off")}
    assert knees == {"lossless": 0.2, "0.98": 0.24, "off": 0.5}
    assert layers["current"]["rows"][0]["ratio"] == 0.3


def test_sweep_of_one_floor_without_the_column_is_lossless(sweep):
    spec = sweep_chart(sweep).to_dict()
    layers = named_layers(spec)
    assert {"pruned-lossless", "estimate-lossless", "knee-lossless"} <= set(layers)
    assert not [name for name in layers if name.startswith(("frontier", "current", "floor-"))]


def test_sweep_needs_its_columns(sweep):
    with pytest.raises(ValueError, match="effectiveness_estimate"):
        sweep_chart(sweep.drop(columns="effectiveness_estimate"))


def test_sweep_knee():
    rows = floors_sweep()
    lossless = rows[rows["min_effectiveness"] == 1.0].to_dict("records")
    assert charts.sweep_knee(lossless, 1.0) == 0.2
    assert charts.sweep_knee(lossless, 0.9966) == 0.14  # the estimate falls below 0.9966 before pruning stops
    assert charts.sweep_knee([{"ratio": 0.0, "pruned_fraction": 0.0, "effectiveness_estimate": 1.0}]) is None
    assert charts.sweep_knee([]) is None


def test_sweep_chart_of_a_real_conversation_and_two_floors():
    from layerzero_viz import annotate, load_conversation

    # (a conversation whose user turns have articles for the lossy tier to take)
    ann = annotate(load_conversation(ROOT / "fixtures" / "sharegpt_travel.en.json"), env={})
    frame = pd.DataFrame(ann.sweep(min_effectiveness=1.0) + ann.sweep(min_effectiveness=0.98))
    layers = named_layers(sweep_chart(frame, safe_frontier=ann.safe_frontier).to_dict())
    knee_lossless = layers["knee-lossless"]["rows"][0]
    knee_098 = layers["knee-0.98"]["rows"][0]
    assert knee_098["ratio"] > knee_lossless["ratio"] >= ann.safe_frontier - 0.01
    assert knee_098["pruned_fraction"] > knee_lossless["pruned_fraction"]
    assert knee_098["effectiveness_estimate"] >= 0.98


def test_the_sweep_subtitle_reads_on_a_dark_theme_too():
    # (second UX walkthrough: near-black on the dark theme's near-black background)
    from layerzero_viz.render import THEMES, contrast_ratio

    color = sweep_chart(floors_sweep()).to_dict()["title"]["subtitleColor"]
    for theme in THEMES.values():
        assert contrast_ratio(color, theme.background) >= 3.0, (color, theme)


def test_sweep_labels_never_sit_on_each_other():
    # (UX walkthrough: "slider 0.14" drawn over "safe frontier 0.13" at the bottom of the chart, and two floors'
    # "knee 0.14" over each other)
    from layerzero_viz import annotate, load_conversation

    ann = annotate(load_conversation(ROOT / "fixtures" / "finance_qa.zh.json"), env={})
    frame = pd.DataFrame(ann.sweep(min_effectiveness=1.0) + ann.sweep(min_effectiveness=0.98))
    layers = named_layers(sweep_chart(frame, safe_frontier=0.134, current_ratio=0.14).to_dict())
    assert layers["knee-lossless"]["rows"][0]["ratio"] == layers["knee-0.98"]["rows"][0]["ratio"]
    assert "knee-label-lossless" in layers and "knee-label-0.98" not in layers  # one label, both diamonds
    assert layers["frontier-label"]["encoding"]["y"]["datum"] == 0.0
    assert layers["current-label"]["encoding"]["y"]["datum"] > 0.0  # at the top of its rule
    # apart, each sits at the bottom of its rule
    layers = named_layers(sweep_chart(frame, safe_frontier=0.134, current_ratio=0.5).to_dict())
    assert layers["current-label"]["encoding"]["y"]["datum"] == 0.0


# ---------------------------------------------------------------- export and purity


def test_every_chart_exports_to_png(big, sweep):
    built = [
        overview_heatmap(big),
        pruned_by_reason_bar(big),
        timings_bar({"load": 1.0, "annotate": 2.0}),
        message_timings_bar([{"message": 0, "role": "user", "ms": 1.0}]),
        sweep_chart(sweep),
        sweep_chart(floors_sweep(), safe_frontier=0.2, current_ratio=0.3),
    ]
    for chart in built:
        assert isinstance(chart, (alt.Chart, alt.LayerChart))
        png = chart_png(chart)
        assert png.startswith(PNG_MAGIC) and len(png) > 1_000


def test_chart_data_is_json_safe_with_missing_scores():
    df = token_table(100, 2)
    df["score"] = np.nan
    png = chart_png(overview_heatmap(df, color_by="score"))
    assert png.startswith(PNG_MAGIC)


def test_library_modules_never_import_streamlit():
    code = (
        "import sys; import layerzero_viz.charts, layerzero_viz.render, layerzero_viz.share, "
        "layerzero_viz.reasons; print('streamlit' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_docstring_examples_hold():
    assert doctest.testmod(charts).failed == 0
