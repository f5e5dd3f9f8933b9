"""Subcommands of ``layerzero-viz`` beyond ``prune``: one module each, registered in ``cli.COMMANDS``.

Each module offers ``add_parser(subparsers)`` and ``run(args) -> int``.  This package holds what they share:
the input options of a one-conversation command (``prune``, ``sweep``) and the exit codes.

Exit codes (docs/CLI.md):

====  =====================================================================================================
0     success
1     a gate tripped (``prune --fail-on``)
2     bad input, arguments or settings; ``batch --strict`` stopped on a malformed line
3     the environment failed us: Dask scheduler unreachable, an optional dependency missing (the message
      names the extra to install), a worker process died
130   interrupted (Ctrl-C); ``batch`` saved its checkpoint, so running it again resumes
143   terminated (SIGTERM); as 130
====  =====================================================================================================
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from ..engine import Config
from ..errors import InputError, LayerZeroError
from ..formats import load_conversation
from ..model import Conversation

__all__ = [
    "EXIT_OK", "EXIT_GATE", "EXIT_INPUT", "EXIT_ENVIRONMENT", "EXIT_INTERRUPTED", "EXIT_TERMINATED",
    "INPUT_FORMATS", "EnvironmentFailure", "Terminated", "add_input_arguments", "add_floor_argument",
    "read_conversation", "engine_config", "OPTIONAL_MODULES", "missing_dependency", "require",
    "command_line_message", "check_output",
]

EXIT_OK, EXIT_GATE, EXIT_INPUT, EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 3, 130, 143
INPUT_FORMATS = ("auto", "anthropic", "openai", "jsonl", "sharegpt", "http", "text")


class EnvironmentFailure(Exception):
    """Something outside the input failed (a scheduler, a worker, a missing program): exit code 3."""


class Terminated(BaseException):
    """SIGTERM arrived (``timeout``, systemd, Kubernetes): handled like Ctrl-C, exit code 143."""


#: optional top-level modules → the extra of layerzero-viz that installs them
OPTIONAL_MODULES = {
    "altair": "app", "pandas": "app", "vl_convert": "app", "streamlit": "app",
    "dask": "dask", "distributed": "dask",
    "pyarrow": "parquet",
}


def missing_dependency(module: str, what: str = "") -> EnvironmentFailure:
    """The exit-3 error for a missing module: one line naming the extra (or the package) to install."""
    top = module.split(".")[0]
    extra = OPTIONAL_MODULES.get(top)
    needs = f"{what} needs {top}, which is not installed" if what else f"{top} is not installed"
    if extra:
        return EnvironmentFailure(f"{needs}: pip install 'layerzero-viz[{extra}]'")
    return EnvironmentFailure(f"{needs}: reinstall layerzero-viz (pip install layerzero-viz) to get its "
                              "dependencies")


def require(module: str, what: str) -> None:
    """Import ``module`` now, or raise :func:`missing_dependency` (before any work is done)."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise missing_dependency(exc.name or module, what) from None


#: library hints that name keyword arguments → the same advice in terms of command-line options
_CLI_HINTS = (
    ("a larger max_bytes=", "a larger --max-bytes"),
    ("iter_conversations streams JSONL of any size", "`layerzero-viz batch` streams JSONL logs of any size"),
    ("leave out line=, or pass format='jsonl'", "leave out --line, or pass --format jsonl"),
)


def command_line_message(exc: LayerZeroError) -> str:
    """``str(exc)`` with its hint speaking of command-line options instead of the library's keyword arguments."""
    if not isinstance(exc, InputError):
        return str(exc)
    hint = exc.hint
    for library, cli in _CLI_HINTS:
        hint = hint.replace(library, cli)
    message = exc.message
    if message.startswith("line=") and " was given" in message:
        message = "--line " + message.removeprefix("line=")
    return str(InputError(message, location=exc.location, hint=hint))


def check_output(output: str, inputs: list[str], in_place: bool) -> None:
    """InputError (exit 2) when the output file ``output`` is one of ``inputs`` — same path once resolved, or
    the same file by device and inode (a hard link, a symlink) — unless ``in_place``."""
    if in_place or output == "-":
        return
    target = Path(output)
    for name in inputs:
        if name == "-":
            continue
        source = Path(name)
        same = target.resolve() == source.resolve()
        if not same:
            try:
                same = os.path.samefile(target, source)
            except OSError:  # one of them does not exist (yet): not the same file
                same = False
        if same:
            raise InputError(f"the output {output} is the input file {name}", location="-o",
                             hint="pass --in-place to overwrite the input")


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """The options of a command that reads one conversation (``prune``, ``sweep``)."""
    p.add_argument("input", help="file path, or - for stdin")
    p.add_argument("--format", default="auto", choices=INPUT_FORMATS,
                   help="the input's format (default: auto, detected from the content)")
    p.add_argument("--line", type=int, default=None,
                   help="JSONL: 1-based line to use; a JSON array of conversations (a ShareGPT dataset): the record")
    p.add_argument("--no-low-information", action="store_true", help="do not prune frequent function words")
    p.add_argument("--keep-directives", action="store_true", help="keep <layer-zero/> and list tags in the output")
    p.add_argument("--max-bytes", type=int, default=20 * 1024 * 1024, help="input size limit (default 20 MB)")


def read_conversation(args: argparse.Namespace) -> Conversation:
    """The conversation named by ``args.input`` (``-`` reads stdin), as :func:`add_input_arguments` parsed it."""
    if args.input == "-":
        source: object = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        source, name = Path(args.input), args.input
    return load_conversation(source, args.format, line=args.line, max_bytes=args.max_bytes, name=name)


def engine_config(args: argparse.Namespace, ratio: float | None) -> Config:
    """The engine settings from the common options; the environment applies (explicit ``ratio`` beats it)."""
    return Config(ratio=ratio, low_information=not args.no_low_information,
                  keep_directives=args.keep_directives, env=os.environ)


def add_floor_argument(p: argparse.ArgumentParser) -> None:
    """``--min-effectiveness F``: the floor that bounds the lossy tier (1.0, the default, is lossless)."""
    p.add_argument("--min-effectiveness", type=float, default=1.0, metavar="F",
                   help="take lossy-tier words beyond the safe rules only while the effectiveness estimate stays "
                        ">= F (default 1.0: lossless, safe rules only; 0.98 is the article's alert threshold, "
                        "recommended for exploring; 0: no floor)")
