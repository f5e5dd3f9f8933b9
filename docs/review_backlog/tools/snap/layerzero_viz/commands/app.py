"""``layerzero-viz app`` — start the Streamlit app (``streamlit run app.py``) from the package's source tree.

Streamlit options pass through after ``--`` (``layerzero-viz app -- --theme.base dark``); the app's own
``--fixture`` is an option here.  The process's exit code is Streamlit's.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

from . import EXIT_INTERRUPTED, EXIT_OK, EnvironmentFailure, missing_dependency

__all__ = ["add_parser", "run", "app_script", "streamlit_command"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "app", help="start the Streamlit app and print its URL",
        description="Start the Streamlit app (streamlit run app.py) from the source tree layerzero_viz lives in. "
                    "Anything after -- goes to Streamlit unchanged.")
    p.add_argument("--fixture", help="conversation file to load at start (app.py --fixture)")
    p.add_argument("--address", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    p.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    p.add_argument("streamlit_args", nargs=argparse.REMAINDER, metavar="-- STREAMLIT_ARGS",
                   help="passed to `streamlit run` as they are")
    p.set_defaults(run=run)


def app_script() -> Path:
    """``app.py`` at the root of the source tree this package was imported from."""
    script = Path(__file__).resolve().parents[2] / "app.py"
    if not script.is_file():
        raise EnvironmentFailure(f"{script} not found: the app runs from a source checkout of layerzero-viz "
                                 "(git clone, then pip install -e '.[app]')")
    return script


def streamlit_command(args: argparse.Namespace) -> list[str]:
    """The command line that starts the app."""
    passthrough = list(args.streamlit_args)
    if passthrough[:1] == ["--"]:
        passthrough = passthrough[1:]
    command = [sys.executable, "-m", "streamlit", "run", str(app_script()),
               "--server.address", args.address, "--server.port", str(args.port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false", *passthrough]
    if args.fixture:
        command += ["--", "--fixture", str(Path(args.fixture).resolve())]
    return command


def run(args: argparse.Namespace) -> int:
    command = streamlit_command(args)
    if args.dry_run:
        print(" ".join(command))
        return EXIT_OK
    if importlib.util.find_spec("streamlit") is None:
        raise missing_dependency("streamlit", "`layerzero-viz app`")
    if args.fixture and not Path(args.fixture).is_file():
        raise FileNotFoundError(2, "No such file", args.fixture)
    host = "localhost" if args.address in ("127.0.0.1", "localhost", "::1") else args.address
    print(f"layerzero-viz: starting the app at http://{host}:{args.port}/ (Ctrl-C stops it)", file=sys.stderr)
    root = app_script().parent
    child = subprocess.Popen(command, cwd=root, env={**os.environ, "PYTHONPATH": _python_path(root)})
    # SIGTERM to us ends the app too (Ctrl-C reaches both: they share the terminal's process group).
    previous = signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.wait()
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, previous)


def _python_path(root: Path) -> str:
    """PYTHONPATH with the source root first, so app.py imports this very package and ``ui``."""
    rest = os.environ.get("PYTHONPATH", "")
    return str(root) + (os.pathsep + rest if rest else "")
