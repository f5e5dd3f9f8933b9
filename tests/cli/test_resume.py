"""An interrupted batch run resumes where it stopped, without duplicating or losing a record."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from layerzero_viz.batch import Job, Progress, RunOptions, checkpoint_path, run_batch

from .helpers import ROOT, clean_env, good_lines, read_jsonl, run, without_run, write_log


@pytest.fixture(scope="module")
def long_log(tmp_path_factory):
    """About 530 conversations: long enough to be killed in the middle."""
    return write_log(tmp_path_factory.mktemp("resume") / "log.jsonl", good_lines() * 10)


def _batch_cmd(log, out, *extra):
    return [sys.executable, "-m", "layerzero_viz", "batch", str(log), "-o", str(out), "--ratio", "0.3", "--jobs", "2",
            "--chunk-lines", "5", "--checkpoint-seconds", "0", "--quiet", *extra]


def test_a_run_killed_with_sigkill_resumes_without_duplicates(tmp_path, long_log):
    out = tmp_path / "out.jsonl"
    cp = checkpoint_path(out)
    proc = subprocess.Popen(_batch_cmd(long_log, out), cwd=ROOT, env=clean_env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if cp.exists() and json.loads(cp.read_text())["cursor"]["line"] >= 60:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run finished before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group: the CLI and its workers
        proc.wait()
    state = json.loads(cp.read_text())
    assert not state["complete"] and 60 <= state["cursor"]["line"] < len(good_lines()) * 10
    assert out.stat().st_size >= state["position"]["bytes"]

    resumed = subprocess.run(_batch_cmd(long_log, out, "--json"), cwd=ROOT, env=clean_env(), capture_output=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr.decode()
    summary = json.loads(resumed.stdout)
    assert summary["run"]["resumed"] is True

    records = read_jsonl(out)
    keys = [(r["file"], r["line"]) for r in records]
    assert len(keys) == len(set(keys)) == len(good_lines()) * 10
    assert [line for _, line in keys] == list(range(1, len(keys) + 1))

    fresh = tmp_path / "fresh.jsonl"
    clean = run("batch", long_log, "-o", fresh, "--ratio", "0.3", "--quiet", "--json", timeout=300)
    assert clean.returncode == 0
    assert out.read_bytes() == fresh.read_bytes()
    assert without_run(summary) == without_run(json.loads(clean.stdout))


class _Interrupt(Progress):
    """Raises KeyboardInterrupt after ``after`` units, as Ctrl-C would."""

    def __init__(self, after: int) -> None:
        super().__init__(quiet=True)
        self.after = after

    def advance(self, done_bytes, records, tokens):
        self.after -= 1
        if self.after < 0:
            raise KeyboardInterrupt


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_an_interrupted_run_resumes_to_the_same_output_in_both_formats(tmp_path, fmt):
    log = write_log(tmp_path / "log.jsonl", good_lines())
    job = Job(ratio=0.3, output_format=fmt)
    options = RunOptions(lines_per_unit=4, row_group_rows=8, checkpoint_seconds=0.0)
    out = tmp_path / f"out.{fmt}"
    with pytest.raises(KeyboardInterrupt):
        run_batch([str(log)], out, job, options, _Interrupt(after=6))
    assert not json.loads(checkpoint_path(out).read_text())["complete"]
    resumed = run_batch([str(log)], out, job, options)
    fresh = run_batch([str(log)], tmp_path / f"fresh.{fmt}", job, options)
    assert resumed.summary["run"]["resumed"] and not fresh.summary["run"]["resumed"]
    assert without_run(resumed.summary) == without_run(fresh.summary)
    if fmt == "jsonl":
        assert out.read_bytes() == (tmp_path / "fresh.jsonl").read_bytes()
    else:
        import pyarrow.parquet as pq

        assert pq.read_table(out).to_pylist() == pq.read_table(tmp_path / "fresh.parquet").to_pylist()
