"""Real-browser setup: one Streamlit server and one Chromium for the session, a fresh context per test.

The server is ``streamlit run app.py -- --fixture fixtures/finance_qa.zh.json`` on a free port, with a
throwaway share store. Chromium is Debian's (``apt-get install chromium fonts-wqy-microhei``), never
``playwright install``, which needs a download this machine cannot make.

Without ``/usr/bin/chromium`` the tests skip, unless ``LZ_REQUIRE_BROWSER=1`` (CI) makes that a failure.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from playwright.sync_api import expect, sync_playwright

from layerzero_viz.directives import ENV_ENABLED, ENV_RATIO

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
START_FIXTURE = "fixtures/finance_qa.zh.json"
VIEWPORT = {"width": 1400, "height": 2400}  # tall: Streamlit scrolls inside the page, not the window
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
HEALTH_TIMEOUT_S = 60.0
# A rerun is well under a second here, but the first Chinese conversation of a process loads jieba's
# dictionary (~1 s) and CI machines are slower: waits are generous, and only ever as long as needed.
expect.set_options(timeout=15_000)
ACTION_TIMEOUT_MS = 20_000


def _unavailable(reason: str) -> None:
    """Skip, or fail when CI demands the browser suite (``LZ_REQUIRE_BROWSER=1``)."""
    if os.environ.get("LZ_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (LZ_REQUIRE_BROWSER=1 requires the browser suite)", pytrace=False)
    pytest.skip(f"{reason}; install it with `apt-get install chromium fonts-wqy-microhei` "
                "or set LZ_REQUIRE_BROWSER=1 to make this a failure")


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's Chromium, checked before anything slow starts."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing")
    return CHROMIUM


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text(errors='replace')}", pytrace=False)
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"streamlit not healthy after {HEALTH_TIMEOUT_S:.0f} s:\n{log.read_text(errors='replace')}",
                pytrace=False)


def _stop(proc: subprocess.Popen) -> None:
    """Terminate the server's whole process group (streamlit may have children), then make sure."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def app_url(chromium_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a Streamlit server started on the finance fixture (``http://127.0.0.1:<port>``)."""
    tmp = tmp_path_factory.mktemp("streamlit")
    port = _free_port()
    env = {**os.environ, "LAYERZERO_SHARE_DB": str(tmp / "shares.db")}
    # The layer-zero settings from the environment would change every ratio the tests expect.
    for name in (ENV_ENABLED, ENV_RATIO):
        env.pop(name, None)
    log = tmp / "streamlit.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--", "--fixture", START_FIXTURE]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield url
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def browser(chromium_path: Path):
    """One headless Chromium for the session."""
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(chromium_path), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser, app_url):
    """A factory of pages, each in its own browser context: a fresh cookie jar, so a fresh Streamlit session.

    Uncaught JavaScript errors fail the test that caused them.
    """
    contexts, errors = [], []

    def make():
        context = browser.new_context(viewport=VIEWPORT, locale="en-US")
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"uncaught JavaScript errors: {errors}"


@pytest.fixture
def page(new_page):
    """A page in a fresh session (nothing opened yet)."""
    return new_page()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
