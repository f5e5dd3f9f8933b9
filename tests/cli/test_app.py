"""``app``: the Streamlit command line it runs, and that the app really answers on localhost."""
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from layerzero_viz.cli import main

from .helpers import FIXTURES, ROOT, clean_env


def test_dry_run_shows_streamlit_run_app_py_with_passthrough_args(capsys):
    assert main(["app", "--dry-run", "--port", "8600", "--fixture", str(FIXTURES / "finance_qa.zh.json"),
                 "--", "--theme.base", "dark"]) == 0
    argv = shlex.split(capsys.readouterr().out)
    assert argv[1:4] == ["-m", "streamlit", "run"] and argv[4] == str(ROOT / "app.py")
    assert argv[argv.index("--server.port") + 1] == "8600"
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"
    assert argv[argv.index("--theme.base") + 1] == "dark"
    sep = argv.index("--")
    assert argv[sep + 1:] == ["--fixture", str(FIXTURES / "finance_qa.zh.json")]
    assert argv.index("--theme.base") < sep


def test_a_missing_fixture_is_exit_2(capsys):
    assert main(["app", "--fixture", "nope.json"]) == 2
    assert capsys.readouterr().err.startswith("error: nope.json")


@pytest.mark.timeout(90)
def test_the_app_starts_prints_its_url_and_stops_on_sigterm():
    pytest.importorskip("streamlit")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "layerzero_viz", "app", "--port", str(port)], cwd=ROOT,
                            env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline, healthy = time.monotonic() + 60, False
        while time.monotonic() < deadline and not healthy and proc.poll() is None:
            try:
                with no_proxy.open(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    healthy = r.read() == b"ok"
            except OSError:
                time.sleep(0.5)
        assert healthy
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        first = proc.stderr.readline().decode()
        assert first.startswith(f"layerzero-viz: starting the app at http://localhost:{port}/")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
