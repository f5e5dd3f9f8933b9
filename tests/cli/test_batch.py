"""``batch``: inputs, records, summary, malformed lines, parallel runs, output formats, refusals."""
import io
import json

import pyarrow.parquet as pq
import pytest

from layerzero_viz import annotate, load_conversation
from layerzero_viz.batch import Progress
from layerzero_viz.batch.work import REASONS
from layerzero_viz.cli import main

from .helpers import CORPUS, SMALL_LOG, err_text, good_lines, out_text, read_jsonl, run, without_run, write_log

RECORD_KEYS = {"file", "line", "format", "ratio", "ratio_source", "enabled", "tokens_total", "tokens_pruned",
               "tokens_directive", "pruned_by_reason", "effectiveness_estimate", "risk", "findings", "output"}
SUMMARY_KEYS = {"kind", "version", "inputs", "output", "output_format", "ratio", "conversations",
                "malformed_lines", "tokens_total", "tokens_pruned", "tokens_directive", "pruned_fraction",
                "pruned_by_reason", "estimate", "risk", "malformed", "complete", "stopped_at", "run"}


@pytest.fixture
def logs(tmp_path):
    """A folder with a plain and a gzipped log, and a loose log next to it."""
    lines = good_lines()
    folder = tmp_path / "logs"
    write_log(folder / "a.jsonl", lines[:20])
    write_log(folder / "sub" / "b.jsonl.gz", lines[20:35], gz=True)
    write_log(folder / "notes.txt", ["not a log"])
    loose = write_log(tmp_path / "c.jsonl", lines[35:])
    return folder, loose, lines


def batch(*argv, capsys=None):
    code = main(["batch", *map(str, argv)])
    captured = capsys.readouterr() if capsys else None
    return code, captured


def test_records_carry_file_line_counts_reasons_and_the_pruned_conversation(tmp_path, logs, capsys, monkeypatch):
    folder, loose, lines = logs
    monkeypatch.chdir(tmp_path)
    code, cap = batch("logs", "c.jsonl", "--ratio", "0.3", "-o", "out.jsonl", "--json", capsys=capsys)
    assert code == 0, cap.err
    records = read_jsonl(tmp_path / "out.jsonl")
    assert [(r["file"], r["line"]) for r in records] == (
        [("logs/a.jsonl", n) for n in range(1, 21)] + [("logs/sub/b.jsonl.gz", n) for n in range(1, 16)]
        + [("c.jsonl", n) for n in range(1, len(lines) - 34)])
    for r in records:
        assert set(r) == RECORD_KEYS
        assert set(r["pruned_by_reason"]) == set(REASONS)
        assert sum(r["pruned_by_reason"].values()) == r["tokens_pruned"] <= int(0.3 * r["tokens_total"])
        assert 0 <= r["effectiveness_estimate"] <= 1 and isinstance(r["risk"], list)
    # each record is what the library gives for that line
    first = records[0]
    expected = annotate(load_conversation(lines[0]), env={}).at_ratio(0.3)
    assert first["output"] == expected.output and first["tokens_pruned"] == expected.tokens_pruned

    summary = json.loads(cap.out)
    assert set(summary) == SUMMARY_KEYS and summary["kind"] == "batch_summary" and summary["complete"]
    assert summary["inputs"] == ["logs/a.jsonl", "logs/sub/b.jsonl.gz", "c.jsonl"]
    assert summary["conversations"] == len(records) == len(lines)
    assert summary["tokens_total"] == sum(r["tokens_total"] for r in records)
    assert summary["tokens_pruned"] == sum(r["tokens_pruned"] for r in records)
    by_reason = {k: sum(r["pruned_by_reason"][k] for r in records) for k in REASONS}
    assert summary["pruned_by_reason"] == {k: v for k, v in by_reason.items() if v}
    est = summary["estimate"]
    values = sorted(r["effectiveness_estimate"] for r in records)
    assert est["min"] == values[0] and est["max"] == values[-1]
    assert est["p5"] <= est["p25"] <= est["p50"] <= est["p75"] <= est["p95"]
    assert abs(est["p50"] - values[(len(values) + 1) // 2 - 1]) <= 5e-5
    assert sum(b["conversations"] for b in est["histogram"]) == len(records)
    assert summary["risk"]["conversations"] == sum(1 for r in records if r["risk"])


def test_malformed_lines_are_reported_with_file_and_line_and_counted(tmp_path, capsys):
    lines = good_lines()[:4]
    log = write_log(tmp_path / "mixed.jsonl", [
        lines[0], '{"messages": [{"role": "user", "content": "cut off"', lines[1], "",
        '{"messages": [{"role": "robot", "content": "hi"}]}', b"\xff\xfe not utf-8", lines[2], "plain text"])
    code, cap = batch(log, "-o", tmp_path / "out.jsonl", "--json", capsys=capsys)
    assert code == 0
    summary = json.loads(cap.out)
    assert summary["malformed_lines"] == 4 and summary["conversations"] == 3
    assert [(m["file"], m["line"]) for m in summary["malformed"]] == [(str(log), n) for n in (2, 5, 6, 8)]
    warnings = [line for line in cap.err.splitlines() if line.startswith("warning: malformed line skipped: ")]
    assert [w.split(": ", 2)[2].split(":")[0:2] for w in warnings] == [[str(log), str(n)] for n in (2, 5, 6, 8)]
    assert [r["line"] for r in read_jsonl(tmp_path / "out.jsonl")] == [1, 3, 7]


def test_strict_stops_at_the_first_malformed_line_with_exit_2(tmp_path, capsys):
    lines = good_lines()[:3]
    log = write_log(tmp_path / "mixed.jsonl", [lines[0], lines[1], "{oops", lines[2], "{again"])
    code, cap = batch(log, "-o", tmp_path / "out.jsonl", "--strict", "--json", capsys=capsys)
    assert code == 2
    errors = [line for line in cap.err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and f"{log}:3" in errors[0]
    summary = json.loads(cap.out)
    assert summary["complete"] is False and summary["stopped_at"]["line"] == 3
    assert summary["malformed_lines"] == 1 and summary["conversations"] == 2
    assert [r["line"] for r in read_jsonl(tmp_path / "out.jsonl")] == [1, 2]


def test_two_processes_write_the_same_bytes_as_one(tmp_path, capsys):
    log = write_log(tmp_path / "log.jsonl", good_lines())
    code1, cap1 = batch(log, "-o", tmp_path / "one.jsonl", "--ratio", "0.4", "--json", capsys=capsys)
    code2, cap2 = batch(log, "-o", tmp_path / "two.jsonl", "--ratio", "0.4", "--json", "--jobs", "2",
                        "--chunk-lines", "7", capsys=capsys)
    assert code1 == code2 == 0
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert without_run(json.loads(cap1.out)) == without_run(json.loads(cap2.out))
    assert json.loads(cap2.out)["run"]["engine"] == "local, 2 processes"


def test_parquet_holds_the_same_records_in_row_groups(tmp_path, capsys):
    log = write_log(tmp_path / "log.jsonl", good_lines())
    assert batch(log, "-o", tmp_path / "out.jsonl", "--ratio", "0.3", capsys=capsys)[0] == 0
    code, cap = batch(log, "-o", tmp_path / "out.parquet", "--ratio", "0.3", "--row-group-rows", "20",
                      "--chunk-lines", "9", "--json", capsys=capsys)
    assert code == 0 and json.loads(cap.out)["output_format"] == "parquet"
    parquet = pq.ParquetFile(tmp_path / "out.parquet")
    assert parquet.num_row_groups >= 2
    rows = parquet.read().to_pylist()
    expected = read_jsonl(tmp_path / "out.jsonl")
    assert len(rows) == len(expected)
    for row, rec in zip(rows, expected):
        assert json.loads(row.pop("output")) == rec.pop("output")
        rec["findings"] = [{**f, "message": None if f["message"] is None else str(f["message"])}
                           for f in rec["findings"]]
        assert row == rec
    assert not (tmp_path / "out.parquet.parts").exists()


def test_an_existing_output_is_never_silently_replaced(tmp_path, capsys):
    log = write_log(tmp_path / "log.jsonl", good_lines()[:3])
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n")
    code, cap = batch(log, "-o", out, capsys=capsys)
    assert code == 2 and "--overwrite" in cap.err and out.read_text() == "precious\n"
    assert batch(log, "-o", out, "--overwrite", capsys=capsys)[0] == 0
    assert len(read_jsonl(out)) == 3


def test_a_finished_run_is_not_run_again_and_other_settings_are_refused(tmp_path, capsys):
    log = write_log(tmp_path / "log.jsonl", good_lines()[:3])
    out = tmp_path / "out.jsonl"
    code, first = batch(log, "-o", out, "--ratio", "0.3", "--json", capsys=capsys)
    before = out.read_bytes()
    code2, again = batch(log, "-o", out, "--ratio", "0.3", "--json", capsys=capsys)
    assert code == code2 == 0 and out.read_bytes() == before
    assert without_run(json.loads(again.out)) == without_run(json.loads(first.out))
    assert "already complete" in again.err
    code3, other = batch(log, "-o", out, "--ratio", "0.5", capsys=capsys)
    assert code3 == 2 and "ratio" in other.err and other.err.startswith("error: ")


@pytest.mark.parametrize("argv,needle", [
    (["--jobs", "0"], "--jobs"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--engine dask"),
    (["--ratio", "1.5"], "outside"),
    (["--chunk-lines", "0"], "--chunk-lines"),
])
def test_bad_options_are_one_error_line_and_exit_2(tmp_path, capsys, argv, needle):
    code, cap = batch(SMALL_LOG, "-o", tmp_path / "out.jsonl", *argv, capsys=capsys)
    assert code == 2 and cap.out == ""
    assert cap.err.startswith("error: ") and cap.err.count("\n") == 1 and needle in cap.err


def test_a_folder_without_logs_is_an_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, cap = batch(tmp_path / "empty", "-o", tmp_path / "out.jsonl", capsys=capsys)
    assert code == 2 and "no *.jsonl" in cap.err


def test_report_option_writes_a_summary_page(tmp_path, capsys):
    code, cap = batch(SMALL_LOG, "-o", tmp_path / "out.jsonl", "--report", tmp_path / "r.html", capsys=capsys)
    assert code == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Pruned tokens by reason" in page and "<svg" in page and "<script" not in page


def test_the_plain_summary_is_a_short_table(tmp_path, capsys):
    code, cap = batch(SMALL_LOG, "-o", tmp_path / "out.jsonl", capsys=capsys)
    assert code == 0
    assert cap.out.splitlines()[0].startswith("conversations     5")


def test_an_output_that_cannot_be_created_is_exit_2():
    proc = run("batch", SMALL_LOG, "-o", "/dev/null/never", "--ratio", "0.3")
    assert proc.returncode == 2  # the output folder cannot be made: an OS error is an input error
    assert err_text(proc).startswith("error: ")


def test_on_a_terminal_progress_is_a_bar_with_rates():
    stream = io.StringIO()
    progress = Progress(stream=stream, tty=True)
    progress.start(1000, 0, "test")
    progress.advance(500, 10, 4000)
    progress.malformed("a.jsonl", 3, "a.jsonl:3:1: bad JSON")
    progress.finish("done")
    text = stream.getvalue()
    assert "conv/s" in text and "tok/s" in text and "50%" in text
    assert "warning: malformed line skipped: a.jsonl:3:1: bad JSON" in text and text.rstrip().endswith("done")


def test_log_lines_when_not_a_terminal(tmp_path):
    proc = run("batch", SMALL_LOG, CORPUS, "-o", tmp_path / "out.jsonl")
    assert proc.returncode == 0
    err = err_text(proc).splitlines()
    assert err[0].startswith("batch: ") and "MB of input on local, 1 process" in err[0]
    assert err[-1].startswith("batch: 53 conversations")
    assert "\r" not in err_text(proc)
    assert out_text(proc).startswith("conversations")
