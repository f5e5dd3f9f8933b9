"""The command line: ``layerzero-viz <command> …`` (same as ``python -m layerzero_viz``).

``prune INPUT [--ratio R] …`` prints the JSON result contract.  Other commands live in their own modules
and register here through ``COMMANDS``: each module offers ``add_parser(subparsers)`` and ``run(args) -> int``.

Exit codes: 0 success; 2 bad input or settings (one ``error: …`` line on stderr, nothing on stdout);
1 a gate tripped (``--fail-on``, lint findings of error severity); 3 the environment failed (a Dask scheduler,
an optional dependency not installed: the line names the extra); 130 interrupted; 143 terminated (SIGTERM);
141 stdout's reader went away (``… | head``: quietly, no message).
docs/CLI.md lists them per command.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Iterator, Sequence

from .commands import (EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_TERMINATED, EnvironmentFailure, Terminated,
                       add_floor_argument, add_input_arguments, check_output, command_line_message, engine_config,
                       missing_dependency, read_conversation)
from .engine import annotate
from .errors import InputError, LayerZeroError
from .risk import CHECKS, run_checks

__all__ = ["main", "build_parser", "write_atomic", "open_atomic", "version", "COMMANDS", "EXIT_OK", "EXIT_GATE", "EXIT_INPUT"]

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command whose reader went away

# Modules providing further subcommands (each: add_parser(subparsers) and run(args) -> int).
COMMANDS: tuple[str, ...] = (
    "layerzero_viz.commands.sweep",
    "layerzero_viz.commands.ab", "layerzero_viz.commands.count",
    "layerzero_viz.commands.batch",
    "layerzero_viz.commands.report",
    "layerzero_viz.commands.app",
    "layerzero_viz.commands.lint", "layerzero_viz.commands.mine",
)


def version() -> str:
    """The installed distribution's version; the package's own ``__version__`` in a source checkout."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("layerzero-viz")
    except PackageNotFoundError:
        from . import __version__
        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="layerzero-viz", description="Visual pruning debugger for LLM prompts.")
    parser.add_argument("--version", action="version", version=f"layerzero-viz {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prune", help="annotate and prune one conversation, print the JSON result",
                       description="Annotate and prune one conversation; print the JSON result on stdout. "
                                   "With -o - the pruned conversation goes to stdout instead, and the JSON "
                                   "result only where --result says. "
                                   "With --fail-on, print one line per finding on stderr "
                                   "(file:message:char: check: kind: detail) and exit 1 when any is found.")
    add_input_arguments(p)
    p.add_argument("--ratio", type=float, default=None, help="prune ratio in [0, 0.95] (beats env, header, directive)")
    add_floor_argument(p)
    p.add_argument("--no-tokens", action="store_true", help="leave the per-token list empty")
    p.add_argument("-o", "--output", metavar="PRUNED",
                   help="also write the pruned conversation (input's format) to this file; - for stdout (then the "
                        "JSON result is not printed unless --result names a file); never the input file itself "
                        "unless --in-place")
    p.add_argument("--in-place", action="store_true",
                   help="write the pruned conversation over INPUT (allows -o INPUT; alone, means -o INPUT)")
    p.add_argument("--result", metavar="JSON", default=None,
                   help="where the JSON result goes: a file, or - for stdout (the default, except with -o -)")
    p.add_argument("--fail-on", type=_check_list, default=(), metavar="CHECKS",
                   help=f"comma-separated gate checks ({', '.join(CHECKS)}); exit 1 when one finds a problem")
    p.add_argument("--max-ratio", type=float, default=0.5, metavar="M",
                   help="over_ratio trips when tokens_pruned / tokens_total > M (default 0.5)")
    p.set_defaults(run=_prune)
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    _user_caches()
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except LayerZeroError as exc:
        print(f"error: {command_line_message(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        # stdout's reader stopped reading (``… | head``): nothing wrong with the input, and nothing more to say; what
        # is still buffered goes nowhere instead of failing again at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    except EnvironmentFailure as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except ImportError as exc:
        # an optional dependency (altair, dask, pyarrow …) imported on the way: name the extra, no traceback
        if (exc.name or "").split(".")[0] in ("", "layerzero_viz"):
            raise
        print(f"error: {missing_dependency(exc.name or '', _command_name(argv))}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print("error: terminated", file=sys.stderr)
        return EXIT_TERMINATED


def _user_caches() -> None:
    """tiktoken copies its encoding to a shared temp folder (/tmp/data-gym-cache) unless told otherwise: point it
    at the user's cache folder (``$XDG_CACHE_HOME/layerzero-viz/tiktoken``) when that is writable."""
    if "TIKTOKEN_CACHE_DIR" in os.environ or "DATA_GYM_CACHE_DIR" in os.environ:
        return
    from .lexicon import _cache_dir

    folder = _cache_dir()
    if folder is not None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder / "tiktoken")


def _command_name(argv: Sequence[str] | None) -> str:
    words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
    return f"`layerzero-viz {words[0]}`" if words else "layerzero-viz"


def _prune(args: argparse.Namespace) -> int:
    output = args.output
    if args.in_place:
        if args.input == "-":
            raise InputError("--in-place needs an input file, not stdin", location="--in-place")
        output = output or args.input
    if output is not None:
        check_output(output, [args.input], args.in_place)
    result_to = args.result if args.result is not None else (None if output == "-" else "-")
    if output == "-" and result_to == "-":
        raise InputError("-o - and --result - both want stdout", location="--result",
                         hint="send the JSON result to a file: --result RESULT.json")
    conv = read_conversation(args)
    result = annotate(conv, engine_config(args, args.ratio)).at_ratio(args.ratio,
                                                                     min_effectiveness=args.min_effectiveness)
    if output == "-":
        sys.stdout.write(result.dump())
        sys.stdout.flush()
    elif output:
        write_atomic(Path(output), result.dump())
    if result_to == "-":  # with -o - and no --result the JSON result is not built at all
        _write_result(result, sys.stdout, tokens=not args.no_tokens)
    elif result_to:
        with open_atomic(Path(result_to)) as fh:
            _write_result(result, fh, tokens=not args.no_tokens)
    if not args.fail_on:
        return EXIT_OK
    findings = run_checks(result, args.fail_on, max_ratio=args.max_ratio)
    name = "<stdin>" if args.input == "-" else args.input
    for finding in findings:
        print(finding.ci_line(name), file=sys.stderr)
    if findings:
        counts = ", ".join(f"{c} {sum(f.check == c for f in findings)}" for c in args.fail_on)
        print(f"layerzero-viz: {len(findings)} finding(s) ({counts}): failing", file=sys.stderr)
        return EXIT_GATE
    return EXIT_OK


def _write_result(result, fh: IO[str], *, tokens: bool) -> None:
    """The JSON result and a newline, streamed (``PruneResult.write_json``: the token list is never held whole)."""
    result.write_json(fh, tokens=tokens)
    fh.write("\n")


def _check_list(text: str) -> tuple[str, ...]:
    """argparse type for ``--fail-on``: known check names, comma-separated, in the order given."""
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in CHECKS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown check {', '.join(unknown) or repr(text)}; "
                                         f"choose from {', '.join(CHECKS)}")
    return names


def write_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` via a temporary file and rename: never a half-written file.

    The file gets ``mode`` when given; else an existing file's mode is kept, and a new file gets what ``open``
    would give it (0666 less the umask), not the 0600 of a temporary file.
    """
    with open_atomic(path, mode=mode) as fh:
        fh.write(text)


@contextlib.contextmanager
def open_atomic(path: Path, *, mode: int | None = None) -> Iterator[IO[str]]:
    """A UTF-8 text file to write ``path`` through: a temporary file in its folder, renamed over ``path`` when
    the block ends without an exception and removed when it raises (any exception, Ctrl-C included), so
    ``path`` is never half-written.  ``mode`` as in :func:`write_atomic`; ``with open_atomic(path) as fh:``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError:
            mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask, read without changing it where the system says (Linux), else set and restored."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current
