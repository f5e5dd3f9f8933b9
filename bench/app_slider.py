"""Slider move → page redrawn, in a real browser: the heatmap of a ~20k-token conversation in Chromium.

Starts ``streamlit run app.py`` on a conversation of about ``--tokens`` tokens built from ../shared/corpus (else
the bundled fixtures/corpus sample), opens it in Debian's Chromium with Playwright (never ``playwright
install``), and moves the ratio slider ``--moves`` times with the keyboard (one step, 0.01, each time to a ratio
not seen before, so every move re-selects and redraws).  A move's time runs from the key press to the last DOM
mutation before the page stays quiet for ``--quiet`` ms (a MutationObserver on the whole document).  Prints
each move and the median; the issue's target is ≤ 300 ms median.

Usage: python bench/app_slider.py [--tokens 20000] [--moves 15] [--quiet 400]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from engine import corpus_records, long_conversation  # noqa: E402  (bench/engine.py)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]  # as tests/browser/conftest.py

_OBSERVE = """() => {
  window.__lzLast = performance.now();
  window.__lzCount = 0;
  new MutationObserver((records) => {
      window.__lzLast = performance.now(); window.__lzCount += 1;
      const t = records[0].target;
      window.__lzMut = records[0].type + " " + (t.getAttribute ? (t.getAttribute("data-testid") || t.className || t.tagName) : t.nodeName);
    })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.25)
    raise SystemExit(f"streamlit not healthy after {timeout:.0f} s")


def _quiet_after(page, t0: float, quiet_ms: float, timeout_s: float = 30.0) -> float:
    """Milliseconds from ``t0`` to the last mutation, once the DOM has changed and then stayed quiet."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        now, last, = page.evaluate("[performance.now(), window.__lzLast]")
        if last > t0 and now - last >= quiet_ms:
            return last - t0
        time.sleep(0.02)
    raise SystemExit(f"the page did not settle within {timeout_s:.0f} s "
                     f"({page.evaluate('window.__lzCount')} mutations; last {page.evaluate('window.__lzMut')})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=20_000)
    ap.add_argument("--moves", type=int, default=15)
    ap.add_argument("--quiet", type=float, default=400.0, help="ms without DOM mutation that count as settled")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    records, _, files = corpus_records(1_000_000)
    doc, n_tokens = long_conversation(records, args.tokens)
    tmp = Path(tempfile.mkdtemp(prefix="lz-bench-slider-"))
    conv = tmp / "long.json"
    conv.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    print(f"conversation: {n_tokens:,} tokens, {len(doc['messages'])} messages ({', '.join(files)})")

    port = _free_port()
    env = {**os.environ, "LAYERZERO_SHARE_DB": str(tmp / "shares.db")}
    env.pop("ANTHROPIC_LAYER_ZERO_PRUNE_RATIO", None)
    env.pop("ANTHROPIC_EXPERIMENTAL_LAYER_ZERO", None)
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
           "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false", "--", "--fixture",
           str(conv)]
    log = (tmp / "streamlit.log").open("wb")
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    times: list[float] = []
    try:
        _wait_healthy(url)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(url)
            page.wait_for_selector(".lz-tokens", timeout=90_000)  # the heatmap's chips are drawn
            page.evaluate(_OBSERVE)
            page.wait_for_function("performance.now() - window.__lzLast >= 1000", timeout=60_000)  # first render over
            thumb = page.get_by_role("slider", name="prune_ratio")
            thumb.focus()
            for k in range(args.moves):
                t0 = page.evaluate("performance.now()")
                page.keyboard.press("ArrowRight")
                ms = _quiet_after(page, t0, args.quiet)
                value = thumb.input_value()
                times.append(ms)
                print(f"move {k + 1:2d}: r = {value}  {ms:7.1f} ms")
            browser.close()
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(server.pid, signal.SIGKILL)
        log.close()
    times.sort()
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    print(f"slider move -> page redrawn and quiet: median {statistics.median(times):.0f} ms, p90 {p90:.0f} ms, "
          f"min {times[0]:.0f} ms over {len(times)} moves (target <= 300 ms median)")


if __name__ == "__main__":
    main()
