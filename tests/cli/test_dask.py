"""``--engine dask``: partitions become tasks on a LocalCluster; results are identical to the local run."""
import json

import pytest

from .helpers import err_text, good_lines, read_jsonl, run, without_run, write_log

pytest.importorskip("distributed")


@pytest.mark.timeout(60)
def test_dask_local_cluster_gives_the_same_bytes_and_summary_as_local(tmp_path):
    lines = good_lines()
    log = write_log(tmp_path / "log.jsonl", lines[:30] + ["{broken"] + lines[30:])
    local = run("batch", log, "-o", tmp_path / "local.jsonl", "--ratio", "0.3", "--chunk-lines", "8", "--json",
                "--quiet")
    dask = run("batch", log, "-o", tmp_path / "dask.jsonl", "--ratio", "0.3", "--chunk-lines", "8", "--json",
               "--quiet", "--engine", "dask", "--jobs", "2", timeout=55)
    assert local.returncode == dask.returncode == 0, err_text(dask)
    assert (tmp_path / "local.jsonl").read_bytes() == (tmp_path / "dask.jsonl").read_bytes()
    assert len(read_jsonl(tmp_path / "dask.jsonl")) == len(lines)
    local_summary, dask_summary = json.loads(local.stdout), json.loads(dask.stdout)
    assert without_run(local_summary) == without_run(dask_summary)
    assert dask_summary["malformed_lines"] == 1
    assert dask_summary["run"]["engine"] == "dask local cluster, 2 workers"


@pytest.mark.timeout(60)
def test_an_unreachable_scheduler_is_exit_3(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = write_log(tmp_path / "log.jsonl", good_lines()[:2])
    proc = run("batch", log, "-o", tmp_path / "out.jsonl", "--engine", "dask", "--scheduler",
               f"tcp://127.0.0.1:{port}", timeout=55)
    assert proc.returncode == 3
    err = err_text(proc).strip()
    assert err.startswith(f"error: could not connect to the Dask scheduler at tcp://127.0.0.1:{port}")
    assert "\n" not in err
